//! A direct-light baker: point lights with Lambert falloff and hard shadows, on a planar luxel
//! grid per surface, packed into the level's atlas. Enough for the built-in scene and for
//! compiled levels until a full baker (bounces, soft shadows) exists.

use glam::{Vec2, Vec3};

use super::bvh::{Bvh, Triangle};
use crate::level::{surface_flags, Level};

#[derive(Clone, Copy, Debug)]
pub struct PointLight {
    pub position: Vec3,
    /// Quake-style intensity: full brightness within roughly this many units.
    pub radius: f32,
    pub color: Vec3,
}

#[derive(Clone, Copy, Debug)]
pub struct BakeOptions {
    /// World units per luxel (Quake: 16).
    pub luxel_size: f32,
    /// Light added everywhere, 0..1 (before the ×2 overbright of the shader).
    pub ambient: f32,
}

impl Default for BakeOptions {
    fn default() -> Self {
        BakeOptions {
            luxel_size: 16.0,
            ambient: 0.05,
        }
    }
}

/// Two axes spanning the surface plane, chosen by the normal's dominant axis like Quake's
/// texture projection so luxels are square in world units.
fn plane_axes(n: Vec3) -> (Vec3, Vec3) {
    let a = n.abs();
    if a.z >= a.x && a.z >= a.y {
        (Vec3::X, Vec3::Y)
    } else if a.x >= a.y {
        (Vec3::Y, Vec3::Z)
    } else {
        (Vec3::X, Vec3::Z)
    }
}

/// Bakes every non-sky, non-liquid surface of the world (cells' surfaces) and writes
/// `level.lightmaps`, each surface's `lightmap` rect and its vertices' `lightmap_uv`.
pub fn bake(level: &mut Level, lights: &[PointLight], opts: &BakeOptions) {
    // Shadow casters: every drawn surface (sky and liquids excluded), in a BVH.
    let casters = Bvh::new(
        level
            .surfaces
            .iter()
            .filter(|s| s.flags & (surface_flags::SKY | surface_flags::LIQUID) == 0)
            .flat_map(|s| {
                s.indices.chunks_exact(3).map(move |t| {
                    let p = |i: u32| s.vertices[i as usize].position;
                    Triangle::new(p(t[0]), p(t[1]), p(t[2]))
                })
            })
            .collect(),
    );

    // Luxel grids per surface.
    let mut grids: Vec<Option<(u32, u32, Vec<u8>)>> = Vec::with_capacity(level.surfaces.len());
    for s in level.surfaces.iter_mut() {
        if s.flags & (surface_flags::SKY | surface_flags::LIQUID) != 0 || s.vertices.is_empty() {
            grids.push(None);
            continue;
        }
        let (ua, va) = plane_axes(s.normal);
        let mut min = Vec2::splat(f32::MAX);
        let mut max = Vec2::splat(f32::MIN);
        for v in &s.vertices {
            let st = Vec2::new(v.position.dot(ua), v.position.dot(va));
            min = min.min(st);
            max = max.max(st);
        }
        let origin = (min / opts.luxel_size).floor() * opts.luxel_size;
        let w = ((max.x - origin.x) / opts.luxel_size).ceil() as u32 + 1;
        let h = ((max.y - origin.y) / opts.luxel_size).ceil() as u32 + 1;
        for v in s.vertices.iter_mut() {
            let st = Vec2::new(v.position.dot(ua), v.position.dot(va));
            v.lightmap_uv = (st - origin) / opts.luxel_size + Vec2::splat(0.5);
        }
        // World position of luxel (i, j): on the plane, at the grid point.
        let p0 = s.vertices[0].position;
        let n = s.normal;
        let mut texels = Vec::with_capacity((w * h * 3) as usize);
        for j in 0..h {
            for i in 0..w {
                let st = origin + Vec2::new(i as f32, j as f32) * opts.luxel_size;
                // Solve for the point on the plane with these two coordinates.
                let third = n.abs().max_position();
                let mut p = Vec3::ZERO;
                p += ua * st.x + va * st.y;
                let k = third;
                // n·p = n·p0 → p[k] = (n·p0 − Σ_{i≠k} n_i p_i) / n_k
                let mut rest = n.dot(p0);
                for a in 0..3 {
                    if a != k {
                        rest -= n[a] * p[a];
                    }
                }
                p[k] = rest / n[k];
                let p = p + n * 0.25;
                let mut c = Vec3::splat(opts.ambient);
                for l in lights {
                    let d = l.position - p;
                    let dist = d.length();
                    let ndotl = n.dot(d / dist);
                    if ndotl <= 0.0 || dist >= l.radius {
                        continue;
                    }
                    if casters.occluded(p, d) {
                        continue;
                    }
                    // Quake's linear falloff, scaled by the angle.
                    let f = (1.0 - dist / l.radius) * (0.5 + 0.5 * ndotl);
                    c += l.color * f;
                }
                let c = (c * 0.5).clamp(Vec3::ZERO, Vec3::ONE) * 255.0;
                texels.extend_from_slice(&[c.x as u8, c.y as u8, c.z as u8]);
            }
        }
        grids.push(Some((w, h, texels)));
    }

    // Pack with the shared atlas packer (guillotiere, 1-luxel borders).
    let blocks: Vec<super::atlas::LuxelBlock> = grids
        .iter()
        .flatten()
        .map(|(w, h, rgb)| super::atlas::LuxelBlock {
            width: *w,
            height: *h,
            rgb,
        })
        .collect();
    match super::atlas::pack(&blocks) {
        Ok((atlas, rects)) => {
            let mut next = rects.into_iter();
            for (s, g) in level.surfaces.iter_mut().zip(&grids) {
                s.lightmap = if g.is_some() { next.next() } else { None };
            }
            level.lightmaps = atlas;
        }
        Err(e) => {
            log::warn!("lightmaps not packed ({e}); surfaces draw at full light");
            for s in level.surfaces.iter_mut() {
                s.lightmap = None;
            }
        }
    }
}
