//! Surfaces from convex polygons: triangulated (fans that avoid flat triangles at T-junction
//! vertices), with texture and lightmap coordinates.

use glam::{DVec3, Vec2};

use crate::texture::TexVecs;
use lanthorn_geom::triangulate;
use lanthorn_level::{LightmapRect, Surface, Vertex};

/// Largest lightmap rect side, in luxels.
pub(super) const MAX_LIGHTMAP: u32 = 1024;

/// Texture and lightmap settings for one surface.
#[derive(Clone)]
pub(super) struct SurfaceSpec {
    pub tex: TexVecs,
    pub tex_size: (u32, u32),
    pub material: u32,
    pub flags: u32,
    /// Luxel size in texels, or `None` for surfaces without a lightmap (sky, liquids).
    pub luxel: Option<f64>,
}

/// Builds a triangulated surface from a convex polygon (counter-clockwise seen from the front),
/// cut without flat triangles (`geom::triangulate::cut`): T-junction vertices on its straight
/// sides are kept as vertices, so no boundary edge skips one.
pub(super) fn make_surface(points: &[DVec3], normal: DVec3, spec: &SurfaceSpec) -> Surface {
    if points.len() < 3 {
        return Surface {
            normal: normal.as_vec3(),
            material: spec.material,
            flags: spec.flags,
            ..Default::default()
        };
    }
    let (indices, centre) = triangulate::cut(points);
    let mut pts = points.to_vec();
    if centre {
        pts.push(triangulate::centre(points));
    }
    let st: Vec<(f64, f64)> = pts.iter().map(|&p| spec.tex.st(p)).collect();
    let (w, h) = (spec.tex_size.0.max(1) as f64, spec.tex_size.1.max(1) as f64);
    let mut lightmap = None;
    let mut lm_uv = vec![Vec2::ZERO; pts.len()];
    if let Some(luxel) = spec.luxel {
        let (mut smin, mut smax, mut tmin, mut tmax) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(s, t) in &st {
            smin = smin.min(s / luxel);
            smax = smax.max(s / luxel);
            tmin = tmin.min(t / luxel);
            tmax = tmax.max(t / luxel);
        }
        let (s0, t0) = (smin.floor(), tmin.floor());
        let width = (smax.ceil() - s0) as u32 + 1;
        let height = (tmax.ceil() - t0) as u32 + 1;
        // A face too large for one lightmap (Quake subdivides those) gets none rather than
        // a giant rect: at most MAX_LIGHTMAP luxels on a side.
        if width <= MAX_LIGHTMAP && height <= MAX_LIGHTMAP {
            lightmap = Some(LightmapRect {
                x: 0,
                y: 0,
                width,
                height,
            });
        }
        for (uv, &(s, t)) in lm_uv.iter_mut().zip(&st) {
            // Luxel k's centre is at k + 0.5 (as Quake's renderers offset by half a luxel):
            // bilinear filtering then stays inside the rect.
            *uv = Vec2::new((s / luxel - s0 + 0.5) as f32, (t / luxel - t0 + 0.5) as f32);
        }
    }
    let vertices = pts
        .iter()
        .zip(&st)
        .zip(&lm_uv)
        .map(|((&p, &(s, t)), &l)| Vertex {
            position: p.as_vec3(),
            uv: Vec2::new((s / w) as f32, (t / h) as f32),
            lightmap_uv: l,
        })
        .collect();
    Surface {
        vertices,
        indices,
        normal: normal.as_vec3(),
        material: spec.material,
        lightmap,
        styles: Default::default(),
        flags: spec.flags,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanthorn_geom::fix_tjunctions;
    use lanthorn_level::tjunctions::find_tjunction;

    #[test]
    fn tjunction_repair_on_a_split_edge() {
        // A big square next to two small ones: the big one's edge gets the middle vertex.
        let sq = |x0: f64, y0: f64, x1: f64, y1: f64| {
            vec![
                DVec3::new(x0, y0, 0.0),
                DVec3::new(x1, y0, 0.0),
                DVec3::new(x1, y1, 0.0),
                DVec3::new(x0, y1, 0.0),
            ]
        };
        let mut polys = vec![
            sq(0.0, 0.0, 64.0, 64.0),
            sq(64.0, 0.0, 128.0, 32.0),
            sq(64.0, 32.0, 128.0, 64.0),
        ];
        let spec = SurfaceSpec {
            tex: TexVecs {
                s: DVec3::X,
                s_offset: 0.0,
                t: DVec3::Y,
                t_offset: 0.0,
            },
            tex_size: (64, 64),
            material: 0,
            flags: 0,
            luxel: Some(16.0),
        };
        let before: Vec<Surface> = polys
            .iter()
            .map(|p| make_surface(p, DVec3::Z, &spec))
            .collect();
        assert!(find_tjunction(&before.iter().collect::<Vec<_>>(), 0.01).is_some());
        let changed = fix_tjunctions(&mut polys, 0.05);
        assert_eq!(changed[0], vec![false, false, true, false, false]);
        assert!(changed[1..].iter().all(|c| c.iter().all(|&i| !i)));
        assert_eq!(polys[0].len(), 5);
        let after: Vec<Surface> = polys
            .iter()
            .zip(&changed)
            .map(|(p, _)| make_surface(p, DVec3::Z, &spec))
            .collect();
        assert_eq!(
            find_tjunction(&after.iter().collect::<Vec<_>>(), 0.01),
            None
        );
        // Area is kept by the centre fan.
        let area: f32 = after[0]
            .indices
            .chunks(3)
            .map(|t| {
                let p = |i: u32| after[0].vertices[i as usize].position;
                (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])).length() * 0.5
            })
            .sum();
        assert!((area - 64.0 * 64.0).abs() < 1e-3);
        // Lightmap: 64 units / 16 = 4 luxels → 5 samples.
        assert_eq!(after[0].lightmap.unwrap().width, 5);
    }
}
