//! What the cache keeps of a surface ([`CacheSurface`]), measured from the level and the
//! world mesh once: its texel bounds, the affine map from texture to lightmap coordinates, its
//! texel size and stretch.

use glam::{Vec2, Vec3};

use super::CacheSurface;
use crate::world::mesh::{SurfaceKind, WorldVertex, VERTEX_NO_LIGHTMAP};
use lanthorn_level::{Level, Vertex};

/// The cache's view of surface `s`, or `None` where it cannot hold it: not an opaque world
/// surface with a lightmap, no material texels, or texture and lightmap coordinates that are
/// not one affine map of each other.
pub(super) fn cache_surface(
    level: &Level,
    vertex: Option<WorldVertex>,
    s: usize,
) -> Option<CacheSurface> {
    let surface = &level.surfaces[s];
    let material = level.materials.get(surface.material as usize)?;
    let rect = surface.lightmap?;
    // A scrolling or animated picture changes over its lightmap every frame: drawn directly.
    if SurfaceKind::of(surface.flags) != SurfaceKind::Opaque
        || material.scroll != [0.0; 2]
        || material.animation.is_some()
        || material.texels.is_none()
        || material.width == 0
        || material.height == 0
        || surface.vertices.len() < 3
    {
        return None;
    }
    let vertex = vertex?;
    if vertex.flags & VERTEX_NO_LIGHTMAP != 0 {
        return None;
    }
    let size = Vec2::new(material.width as f32, material.height as f32);
    let base = Vec2::new(rect.x as f32, rect.y as f32);
    let uv: Vec<Vec2> = surface.vertices.iter().map(|v| v.uv).collect();
    let lm: Vec<Vec2> = surface
        .vertices
        .iter()
        .map(|v| base + v.lightmap_uv)
        .collect();
    let (lm_base, lm_du, lm_dv) = affine_fit(&uv, &lm)?;
    let texels = uv.iter().map(|&t| t * size);
    let (min, max) = texels.fold((Vec2::MAX, Vec2::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let positions = surface.vertices.iter().map(|v| v.position);
    let (bounds_min, bounds_max) =
        positions.fold((Vec3::MAX, Vec3::MIN), |(lo, hi), p| (lo.min(p), hi.max(p)));
    let texel_world = texel_size(surface, size)?;
    // Unknown (a degenerate widest triangle): never counted as magnified.
    let texel_stretch = texel_stretch(surface, size).unwrap_or(f32::INFINITY);
    let plane = surface
        .normal
        .extend(surface.normal.dot(surface.vertices[0].position));
    let border = lanthorn_light::atlas::BORDER as f32 - 0.5;
    Some(CacheSurface {
        min,
        max,
        size,
        texel_world,
        texel_stretch,
        plane,
        lm_base,
        lm_du,
        lm_dv,
        lm_min: base - Vec2::splat(border),
        lm_max: base + Vec2::new(rect.width as f32, rect.height as f32) + Vec2::splat(border),
        bounds_min,
        bounds_max,
        styles: vertex.styles,
        layer: vertex.layer,
        flags: vertex.flags,
        unlit: vertex.unlit,
        style_tints: vertex.style_tints,
    })
}

/// `(base, du, dv)` with `to[i] = base + from[i].x · du + from[i].y · dv` for every point (to
/// 1/100 luxel), from the widest triangle of `from`; `None` if `from` is degenerate or the
/// points do not fit one affine map.
pub(super) fn affine_fit(from: &[Vec2], to: &[Vec2]) -> Option<(Vec2, Vec2, Vec2)> {
    let n = from.len();
    let mut best = (0.0f32, 0, 0, 0);
    for j in 1..n {
        for k in j + 1..n {
            let area = (from[j] - from[0]).perp_dot(from[k] - from[0]).abs();
            if area > best.0 {
                best = (area, 0, j, k);
            }
        }
    }
    let (area, i, j, k) = best;
    if area < 1e-9 {
        return None;
    }
    let (e1, e2) = (from[j] - from[i], from[k] - from[i]);
    let det = e1.perp_dot(e2);
    let (f1, f2) = (to[j] - to[i], to[k] - to[i]);
    // Solve [du dv] · [e1 e2] = [f1 f2].
    let du = (f1 * e2.y - f2 * e1.y) / det;
    let dv = (f2 * e1.x - f1 * e2.x) / det;
    let base = to[i] - from[i].x * du - from[i].y * dv;
    let fits = from
        .iter()
        .zip(to)
        .all(|(f, t)| (base + f.x * du + f.y * dv - *t).abs().max_element() < 0.01);
    fits.then_some((base, du, dv))
}

/// World units per material texel of `s` (its world area over its texel area, square-rooted).
fn texel_size(s: &lanthorn_level::Surface, size: Vec2) -> Option<f32> {
    let (mut world, mut texels) = (0.0f32, 0.0f32);
    for t in s.indices.chunks_exact(3) {
        let v = |i: u32| s.vertices.get(i as usize);
        let (Some(a), Some(b), Some(c)) = (v(t[0]), v(t[1]), v(t[2])) else {
            continue;
        };
        world += (b.position - a.position)
            .cross(c.position - a.position)
            .length();
        texels += ((b.uv - a.uv) * size).perp_dot((c.uv - a.uv) * size).abs();
    }
    let r = (world / texels).sqrt();
    (r.is_finite() && r > 0.0).then_some(r)
}

/// The most material texels one world unit of `s` spans, in any direction along it: the
/// largest singular value of the map from its plane to its texels (one affine map over a
/// surface), from its widest triangle.
pub(super) fn texel_stretch(s: &lanthorn_level::Surface, size: Vec2) -> Option<f32> {
    let corners = |t: &[u32]| {
        let v = |i: u32| s.vertices.get(i as usize);
        Some((v(t[0])?, v(t[1])?, v(t[2])?))
    };
    let twice_area = |(a, b, c): &(&Vertex, &Vertex, &Vertex)| {
        (b.position - a.position)
            .cross(c.position - a.position)
            .length()
    };
    let (a, b, c) = s
        .indices
        .chunks_exact(3)
        .filter_map(corners)
        .max_by(|x, y| twice_area(x).total_cmp(&twice_area(y)))?;
    let (e1, e2) = (b.position - a.position, c.position - a.position);
    // The triangle's edges in an orthonormal frame of its plane.
    let u = e1.normalize_or_zero();
    let w = e1.cross(e2).cross(e1).normalize_or_zero();
    let (p1, p2) = (
        Vec2::new(e1.dot(u), e1.dot(w)),
        Vec2::new(e2.dot(u), e2.dot(w)),
    );
    let det = p1.perp_dot(p2);
    let (t1, t2) = ((b.uv - a.uv) * size, (c.uv - a.uv) * size);
    // The map's columns: texels per unit along the frame's two axes (J p1 = t1, J p2 = t2).
    let jx = (t1 * p2.y - t2 * p1.y) / det;
    let jy = (t2 * p1.x - t1 * p2.x) / det;
    // The square root of JᵀJ's larger eigenvalue.
    let (m11, m22, m12) = (jx.dot(jx), jy.dot(jy), jx.dot(jy));
    let larger = 0.5 * (m11 + m22) + (0.25 * (m11 - m22).powi(2) + m12 * m12).sqrt();
    let stretch = larger.sqrt();
    (stretch.is_finite() && stretch > 0.0).then_some(stretch)
}
