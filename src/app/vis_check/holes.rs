//! What the truth shows through holes in the level: a pixel whose surface the eye reaches
//! only along a line through solid (e2m5: a face id's qbsp left out of a wall; an eye inside
//! a sky brush, seeing past its sides, which have no faces). No visibility method can find
//! those through open space, Quake's PVS included, and Quake draws no picture there either,
//! so vis-check counts them apart from the misses (`MethodTotals::through_holes`).

use glam::{Mat4, Vec3, Vec4};

use crate::geom::Camera;
use crate::level::{cell_flags, Level};

/// The per-pixel test for one level.
pub(super) struct Holes {
    /// The object each surface belongs to (`u32::MAX`: the world's).
    object_of: Vec<u32>,
    /// Whether the test applies: a level with a tree, no mirror or teleporter (a pixel of
    /// their views is seen from another eye) and no `OUTSIDE` cell (outdoor cells see each
    /// other across the sky, which no cell holds).
    on: bool,
    /// No mirror or teleporter: every pixel is seen from the camera's eye.
    one_view: bool,
}

/// One view of the test: the eye, the camera's inverse view-projection (inverted once, not
/// per pixel), the image size and where the objects stand.
pub(super) struct HoleView<'a> {
    eye: Vec3,
    inverse_view_proj: Mat4,
    size: (u32, u32),
    origins: &'a [Vec3],
}

impl HoleView<'_> {
    pub(super) fn new<'a>(camera: &Camera, size: (u32, u32), origins: &'a [Vec3]) -> HoleView<'a> {
        HoleView {
            eye: camera.position,
            inverse_view_proj: camera.view_proj().inverse(),
            size,
            origins,
        }
    }
}

impl Holes {
    pub(super) fn new(level: &Level) -> Holes {
        let mut object_of = vec![u32::MAX; level.surfaces.len()];
        for (i, o) in level.objects.iter().enumerate() {
            for &s in &o.surfaces {
                if let Some(slot) = object_of.get_mut(s as usize) {
                    *slot = i as u32;
                }
            }
        }
        let one_view = level.portals.iter().all(|p| p.transform.is_none());
        let outside = level
            .cells
            .iter()
            .any(|c| c.flags & cell_flags::OUTSIDE != 0);
        Holes {
            object_of,
            on: level.bsp.root.is_some() && one_view && !outside,
            one_view,
        }
    }

    /// Where surface `s` stands: its object's origin, zero for the world's.
    pub(super) fn origin_of(&self, s: usize, origins: &[Vec3]) -> Vec3 {
        match self.object_of.get(s).copied().unwrap_or(u32::MAX) {
            u32::MAX => Vec3::ZERO,
            o => origins.get(o as usize).copied().unwrap_or(Vec3::ZERO),
        }
    }

    /// Whether surface id `id` (surface + 1) faces the eye by more than 0.01 units: one whose
    /// plane holds the eye, or that faces away, covers no area of the view, and a pixel of it
    /// is the rasterizer's rounding of a line (an eye on a floor's plane draws it as a row),
    /// not a sight. Always true where a mirror's view sees surfaces from another eye.
    pub(super) fn faces_eye(&self, level: &Level, view: &HoleView, id: u32) -> bool {
        let s = id as usize - 1;
        let Some(v) = level.surfaces.get(s).and_then(|x| x.vertices.first()) else {
            return true;
        };
        let origin = self.origin_of(s, view.origins);
        let n = level.surfaces[s].normal;
        !self.one_view || n.dot(view.eye - v.position - origin) > 0.01
    }

    /// Whether pixel `i` of the view shows surface id `id` (surface + 1) only through solid
    /// (the line from the eye to where the pixel's ray meets the surface's plane, stopped a
    /// unit short of it, which has solid behind it, runs through solid) or through a crack.
    pub(super) fn through_solid(&self, level: &Level, view: &HoleView, i: usize, id: u32) -> bool {
        matches!(
            self.sight(level, view, i, id),
            Sight::ThroughSolid | Sight::Crack
        )
    }

    /// What pixel `i` showing surface id `id` is: a sight through open space, a line through
    /// solid, a crack (`Holes::crack`), or a graze: its ray meets the surface's plane outside
    /// the surface or within 1/64 of a pixel of its outline, so the rasterizer covered it by
    /// rounding the projected edge (the rasterizer snaps vertices to a fraction of a pixel).
    pub(super) fn sight(&self, level: &Level, view: &HoleView, i: usize, id: u32) -> Sight {
        let Some(s) = (id as usize)
            .checked_sub(1)
            .and_then(|s| level.surfaces.get(s))
        else {
            return Sight::Open;
        };
        if !self.on || s.vertices.is_empty() {
            return Sight::Open;
        }
        let origin = self.origin_of(id as usize - 1, view.origins);
        let eye = view.eye;
        let dir = pixel_ray(&view.inverse_view_proj, view.size, i, (0.0, 0.0), eye);
        let open = |t: f32| match self.crack(level, view, i, t) {
            true => Sight::Crack,
            false => Sight::Open,
        };
        if s.normal == Vec3::ZERO {
            // No plane (a curved or merged surface): where the ray meets its triangles.
            return match ray_hit(s, eye - origin, dir) {
                None => Sight::Graze,
                Some(t) if t > 1.0 && self.blocked(level, eye, eye + dir * (t - 1.0)) => {
                    Sight::ThroughSolid
                }
                Some(t) => open(t),
            };
        }
        let on_plane = s.vertices[0].position + origin;
        let t = s.normal.dot(on_plane - eye) / s.normal.dot(dir);
        if !t.is_finite() || t <= 1.0 {
            return Sight::Open;
        }
        if self.blocked(level, eye, eye + dir * (t - 1.0)) {
            return Sight::ThroughSolid;
        }
        // Within 1/64 of a pixel of the edge, seen from here, the rasterizer's rounding decides.
        let pixel = 2.0 / view.size.0 as f32;
        let margin = t * pixel / 64.0 / s.normal.dot(dir).abs().max(0.05);
        if meets_inside(s, eye + dir * t - origin, margin) {
            open(t)
        } else {
            Sight::Graze
        }
    }

    fn blocked(&self, level: &Level, a: Vec3, b: Vec3) -> bool {
        level.segment_crosses_solid(a, b, crate::level::GRAZE)
    }

    /// Whether pixel `i`'s open sight, `t` long, runs through a crack: the sights half a
    /// pixel to either side of it, across or down, both meet solid. Where two walls touch
    /// along an edge (one's floor, the other's side) the line through the edge is open for
    /// no width at all; the rasterizer shows what lies beyond on that line only where the
    /// two walls' outlines round apart (their edges end at different vertices).
    fn crack(&self, level: &Level, view: &HoleView, i: usize, t: f32) -> bool {
        if t <= 1.0 {
            return false;
        }
        let blocked = |offset: (f32, f32)| {
            let dir = pixel_ray(&view.inverse_view_proj, view.size, i, offset, view.eye);
            let end = view.eye + dir * (t - 1.0);
            level.segment_crosses_solid(view.eye, end, crate::level::GRAZE * 0.1)
        };
        [(0.5, 0.0), (0.0, 0.5)]
            .into_iter()
            .any(|(x, y)| blocked((x, y)) && blocked((-x, -y)))
    }
}

impl Holes {
    /// Whether pixel `i`'s ray meets surfaces `a` and `b` (ids: surface + 1) at the same
    /// depth (within 0.01 units and 1e-4 of the distance): a coplanar overlap, where which
    /// one a rasterizer shows is rounding, not visibility. False when the ray misses either.
    pub(super) fn depth_tie(
        &self,
        level: &Level,
        view: &HoleView,
        i: usize,
        a: u32,
        b: u32,
    ) -> bool {
        let dir = pixel_ray(&view.inverse_view_proj, view.size, i, (0.0, 0.0), view.eye);
        let depth = |id: u32| {
            let s = (id as usize).checked_sub(1)?;
            let origin = self.origin_of(s, view.origins);
            ray_hit(level.surfaces.get(s)?, view.eye - origin, dir)
        };
        match (depth(a), depth(b)) {
            (Some(ta), Some(tb)) => (ta - tb).abs() <= 0.01 + 1e-4 * ta.max(tb),
            _ => false,
        }
    }

    /// Whether pixel `i` shows each of surfaces `a` and `b` (ids: surface + 1) only by
    /// rounding its outline (`Sight::Graze`): where surfaces meet along an edge through the
    /// pixel's centre (a wall split at a waterline and the water's edge, which id's compiler
    /// ends at different vertices), which one the rasterizer shows is rounding, not
    /// visibility.
    pub(super) fn edge_tie(
        &self,
        level: &Level,
        view: &HoleView,
        i: usize,
        a: u32,
        b: u32,
    ) -> bool {
        let graze = |id| self.sight(level, view, i, id) == Sight::Graze;
        graze(a) && graze(b)
    }
}

/// The nearest distance along `dir` from `eye` at which the ray meets a triangle of `s`
/// (either side), Möller–Trumbore.
fn ray_hit(s: &crate::level::Surface, eye: Vec3, dir: Vec3) -> Option<f32> {
    let at = |k: u32| s.vertices.get(k as usize).map(|v| v.position);
    s.indices
        .chunks_exact(3)
        .filter_map(|t| {
            let (p0, p1, p2) = (at(t[0])?, at(t[1])?, at(t[2])?);
            let (e1, e2) = (p1 - p0, p2 - p0);
            let h = dir.cross(e2);
            let det = e1.dot(h);
            if det.abs() < 1e-12 {
                return None;
            }
            let f = 1.0 / det;
            let o = eye - p0;
            let u = f * o.dot(h);
            let q = o.cross(e1);
            let v = f * dir.dot(q);
            // A hair of slack at the edges: a pixel centre on a shared edge hits one of them.
            let slack = 1e-4;
            let inside = u >= -slack && v >= -slack && u + v <= 1.0 + slack;
            let t = f * e2.dot(q);
            (inside && t > 0.0).then_some(t)
        })
        .min_by(f32::total_cmp)
}

/// Whether `hit` (on the surface's plane) lies in one of its triangles and `margin` or more
/// from its outline (the edges of one triangle only).
fn meets_inside(s: &crate::level::Surface, hit: Vec3, margin: f32) -> bool {
    let corner = |t: &[u32], k: usize| s.vertices[t[k % 3] as usize].position;
    let in_triangle = s.indices.chunks_exact(3).any(|t| {
        (0..3).all(|k| {
            let (u, v) = (corner(t, k), corner(t, k + 1));
            (v - u).cross(s.normal).normalize_or_zero().dot(hit - u) <= 1e-4
        })
    });
    let edges: Vec<(u32, u32)> = s
        .indices
        .chunks_exact(3)
        .flat_map(|t| (0..3).map(move |k| (t[k], t[(k + 1) % 3])))
        .collect();
    let outline = edges.iter().filter(|&&(a, b)| !edges.contains(&(b, a)));
    in_triangle
        && outline.into_iter().all(|&(a, b)| {
            let (u, v) = (
                s.vertices[a as usize].position,
                s.vertices[b as usize].position,
            );
            let along =
                ((hit - u).dot(v - u) / (v - u).length_squared().max(1e-12)).clamp(0.0, 1.0);
            hit.distance(u + (v - u) * along) >= margin
        })
}

/// What a pixel of the truth shows (`Holes::sight`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sight {
    Open,
    ThroughSolid,
    Graze,
    /// An open line no wider than a pixel between walls that touch (`Holes::crack`).
    Crack,
}

/// The unit direction from `eye` of pixel `i`'s ray through its centre moved by `offset`
/// pixels (right, down).
fn pixel_ray(
    inverse_view_proj: &Mat4,
    (w, h): (u32, u32),
    i: usize,
    offset: (f32, f32),
    eye: Vec3,
) -> Vec3 {
    let x = (i % w as usize) as f32 + offset.0;
    let y = (i / w as usize) as f32 + offset.1;
    let ndc = Vec4::new(
        (x + 0.5) / w as f32 * 2.0 - 1.0,
        1.0 - (y + 0.5) / h as f32 * 2.0,
        0.5,
        1.0,
    );
    let p = *inverse_view_proj * ndc;
    (p.truncate() / p.w - eye).normalize_or_zero()
}

#[cfg(test)]
#[path = "holes_tests.rs"]
mod tests;
