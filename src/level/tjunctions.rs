//! T-junctions in a level's surfaces: finding one, and repairing already built planar surfaces
//! (imported Quake faces, the built-in levels) by inserting the vertices that lie on their edges.

use std::collections::HashMap;

use glam::{DVec3, Vec3};

use super::Surface;
use crate::geom::fix_tjunctions;

/// Boundary edges of a triangulated surface: those used by exactly one triangle.
fn boundary_edges(s: &Surface) -> Vec<(u32, u32)> {
    let mut count: HashMap<(u32, u32), u32> = HashMap::new();
    for t in s.indices.chunks(3) {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *count.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let mut v: Vec<(u32, u32)> = count
        .into_iter()
        .filter(|&(_, c)| c == 1)
        .map(|(e, _)| e)
        .collect();
    v.sort_unstable();
    v
}

/// Brute-force check used by tests: every boundary edge of every surface's triangles against
/// every boundary vertex of every surface (vertices on some surface's outline: a fan centre
/// inside a surface cannot crack); returns the first vertex found strictly inside an edge.
pub fn find_tjunction(surfaces: &[&Surface], eps: f32) -> Option<(usize, Vec3, Vec3, Vec3)> {
    let mut verts: Vec<Vec3> = Vec::new();
    for s in surfaces {
        for (a, b) in boundary_edges(s) {
            verts.push(s.vertices[a as usize].position);
            verts.push(s.vertices[b as usize].position);
        }
    }
    verts.sort_by(|a, b| a.x.total_cmp(&b.x));
    for (si, s) in surfaces.iter().enumerate() {
        for (a, b) in boundary_edges(s) {
            let (pa, pb) = (
                s.vertices[a as usize].position,
                s.vertices[b as usize].position,
            );
            let (x0, x1) = (pa.x.min(pb.x) - eps, pa.x.max(pb.x) + eps);
            let start = verts.partition_point(|v| v.x < x0);
            let ab = pb - pa;
            let len = ab.length();
            for &p in verts[start..].iter().take_while(|v| v.x <= x1) {
                let t = (p - pa).dot(ab) / (len * len);
                if t * len <= eps || (1.0 - t) * len <= eps {
                    continue;
                }
                if (pa + ab * t).distance(p) < eps {
                    return Some((si, pa, pb, p));
                }
            }
        }
    }
    None
}

/// Repairs T-junctions between already built planar surfaces (e.g. imported Quake faces):
/// each surface's outline (its vertices in order) gets the vertices of the others that lie on
/// its edges, with texture and lightmap coordinates interpolated along the edge (exact: both
/// are affine on a plane), and is triangulated again. Returns how many vertices were inserted.
pub fn repair_tjunctions(surfaces: &mut [Surface], ids: &[u32]) -> usize {
    let mut polys: Vec<Vec<DVec3>> = ids
        .iter()
        .map(|&i| {
            surfaces[i as usize]
                .vertices
                .iter()
                .map(|v| v.position.as_dvec3())
                .collect()
        })
        .collect();
    let inserted = fix_tjunctions(&mut polys, 0.05);
    let mut total = 0;
    for (k, &i) in ids.iter().enumerate() {
        let flags = &inserted[k];
        let added = flags.iter().filter(|f| **f).count();
        if added == 0 {
            continue;
        }
        total += added;
        let old = std::mem::take(&mut surfaces[i as usize].vertices);
        let n_old = old.len();
        let mut vertices = Vec::with_capacity(polys[k].len());
        let mut orig = 0usize; // index of the last original vertex passed
        for (p, &is_new) in polys[k].iter().zip(flags) {
            if !is_new {
                orig = old
                    .iter()
                    .position(|v| v.position.as_dvec3() == *p)
                    .unwrap_or(0);
                vertices.push(old[orig]);
            } else {
                let (a, b) = (old[orig], old[(orig + 1) % n_old]);
                let (pa, pb) = (a.position.as_dvec3(), b.position.as_dvec3());
                let t =
                    ((*p - pa).dot(pb - pa) / (pb - pa).length_squared()).clamp(0.0, 1.0) as f32;
                vertices.push(crate::level::Vertex {
                    position: p.as_vec3(),
                    uv: a.uv + (b.uv - a.uv) * t,
                    lightmap_uv: a.lightmap_uv + (b.lightmap_uv - a.lightmap_uv) * t,
                });
            }
        }
        // Fan from a corner whose neighbours are corners (no flat triangles); otherwise from
        // an added centre vertex (its coordinates are the average: affine maps keep centroids).
        let n = vertices.len();
        let apex = (0..n).find(|&j| !flags[j] && !flags[(j + 1) % n] && !flags[(j + n - 1) % n]);
        let mut indices = Vec::with_capacity(3 * n);
        match apex {
            Some(a) => {
                for j in 1..n - 1 {
                    indices.extend_from_slice(&[
                        a as u32,
                        ((a + j) % n) as u32,
                        ((a + j + 1) % n) as u32,
                    ]);
                }
            }
            None => {
                let c = n as u32;
                let inv = 1.0 / n as f32;
                let centre = crate::level::Vertex {
                    position: vertices.iter().map(|v| v.position).sum::<glam::Vec3>() * inv,
                    uv: vertices.iter().map(|v| v.uv).sum::<glam::Vec2>() * inv,
                    lightmap_uv: vertices.iter().map(|v| v.lightmap_uv).sum::<glam::Vec2>() * inv,
                };
                for j in 0..n {
                    indices.extend_from_slice(&[c, j as u32, ((j + 1) % n) as u32]);
                }
                vertices.push(centre);
            }
        }
        let s = &mut surfaces[i as usize];
        s.vertices = vertices;
        s.indices = indices;
    }
    total
}
