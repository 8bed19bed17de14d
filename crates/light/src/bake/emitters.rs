//! The light the bake bounces: emitters from the patches of lit surfaces, bounce after
//! bounce (`crate::bounce` holds the patches and the gathering).

use glam::{Vec2, Vec3};

use super::{bounds, BakeInputs, SurfaceBake};
use crate::bounce;
use crate::lights::RANGE_SCALE;
use lanthorn_level::styles::{LightStyles, NO_STYLE};
use lanthorn_level::{Level, Surface};

/// The emitters of `bounces` bounces: the first from each lit world surface's patches' direct
/// light (style 0's, and daylight apart when it has its own style), each further one from the
/// light the previous one sent the patches.
pub(super) fn bounced(
    level: &Level,
    inputs: &BakeInputs,
    (offset, jobs): (&[Vec3], &[usize]),
    bounces: u32,
) -> Vec<bounce::Emitter> {
    let sun_style = inputs.lights.sun_style;
    let albedos = bounce::surface_albedos(level);
    let mut rays = 0u64;
    // Per surface: its patches, their points and the direct light there.
    let mut surfaces = Vec::new();
    for &si in jobs {
        let s = &level.surfaces[si];
        // Style 0, and daylight's style in slot 1 when it has one.
        let styles = match sun_style {
            0 => LightStyles::default(),
            _ => LightStyles([0, sun_style, NO_STYLE, NO_STYLE]),
        };
        let Some(bake) = SurfaceBake::new(s, offset[si], styles, inputs) else {
            continue;
        };
        let holds = |uv: Vec2| on_surface(s, offset[si], bake.frame.position(uv));
        let patches = bounce::patches(s, holds, |uv| bake.frame.position(uv));
        let points: Vec<Vec3> = patches
            .blocks
            .iter()
            .flatten()
            .map(|&uv| bake.point(uv))
            .collect();
        let direct: Vec<bounce::Parts> = patches
            .blocks
            .iter()
            .flatten()
            .zip(&points)
            .map(|(&uv, &p)| {
                let sums = bake.sample(uv, &mut rays).sums;
                let sky = bake.sky(p, &mut rays);
                match sun_style {
                    0 => [(sums[0] + sky) * RANGE_SCALE, Vec3::ZERO],
                    _ => [sums[0] * RANGE_SCALE, (sums[1] + sky) * RANGE_SCALE],
                }
            })
            .collect();
        surfaces.push((si, patches, points, direct));
    }
    let mut all: Vec<bounce::Emitter> = Vec::new();
    let mut last: Vec<bounce::Emitter> = Vec::new();
    for k in 0..bounces {
        let mut this = Vec::new();
        for (si, patches, points, light) in &mut surfaces {
            let n = level.surfaces[*si].normal;
            if k > 0 {
                let near = nearby_emitters(&last, &level.surfaces[*si], offset[*si]);
                for (l, &p) in light.iter_mut().zip(points.iter()) {
                    *l = bounce::gather(&near, inputs.world, p, n, &mut rays);
                }
            }
            bounce::emit(patches, points, light, n, albedos[*si], &mut this);
        }
        all.extend_from_slice(&this);
        last = this;
    }
    all
}

/// The emitters that can reach `s` (placed at `offset`).
pub(super) fn nearby_emitters(
    emitters: &[bounce::Emitter],
    s: &Surface,
    offset: Vec3,
) -> Vec<bounce::Emitter> {
    if emitters.is_empty() {
        return Vec::new();
    }
    let on_plane = s
        .vertices
        .first()
        .map_or(Vec3::ZERO, |v| v.position + offset);
    bounce::near(emitters, bounds(s, offset), s.normal, on_plane)
}

/// Whether `p` lies in one of `s`'s triangles (placed at `offset`), on its plane.
pub(super) fn on_surface(s: &Surface, offset: Vec3, p: Vec3) -> bool {
    let n = s.normal;
    s.indices.chunks_exact(3).any(|t| {
        let v = |k: usize| s.vertices[t[k] as usize].position + offset;
        let e = |a: Vec3, b: Vec3| (b - a).cross(p - a).dot(n) >= -0.01;
        e(v(0), v(1)) && e(v(1), v(2)) && e(v(2), v(0))
    })
}
