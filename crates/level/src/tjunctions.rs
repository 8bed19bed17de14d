//! T-junctions in a level's surfaces: finding one, and repairing already built planar surfaces
//! (imported Quake faces, the built-in levels) by inserting the vertices that lie on their edges.

use std::collections::HashMap;

use glam::{DVec3, Vec2, Vec3};

use super::{Surface, Vertex};
use lanthorn_geom::{fix_tjunctions, triangulate};

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
/// each surface's outline (its boundary vertices in order; a fan centre is not on it) gets the
/// vertices of the others that lie on its edges, with texture and lightmap coordinates
/// interpolated along the edge (exact: both are affine on a plane), and is triangulated again
/// without flat triangles. Returns how many vertices were inserted.
pub fn repair_tjunctions(surfaces: &mut [Surface], ids: &[u32]) -> usize {
    let outlines: Vec<Vec<Vertex>> = ids
        .iter()
        .map(|&i| outline(&surfaces[i as usize]))
        .collect();
    let mut polys: Vec<Vec<DVec3>> = outlines
        .iter()
        .map(|o| o.iter().map(|v| v.position.as_dvec3()).collect())
        .collect();
    let inserted = fix_tjunctions(&mut polys, 0.05);
    let mut total = 0;
    for (k, &i) in ids.iter().enumerate() {
        let added = inserted[k].iter().filter(|f| **f).count();
        if added == 0 {
            continue;
        }
        total += added;
        let vertices = with_inserted(&outlines[k], &polys[k], &inserted[k]);
        let (vertices, indices) = cut_surface(vertices, &polys[k]);
        let s = &mut surfaces[i as usize];
        s.vertices = vertices;
        s.indices = indices;
    }
    total
}

/// A surface's outline: its vertices that lie on a boundary edge, in vertex order (a fan
/// centre, appended after the outline, lies on none).
pub fn outline(s: &Surface) -> Vec<Vertex> {
    let mut on_boundary = vec![false; s.vertices.len()];
    for (a, b) in boundary_edges(s) {
        on_boundary[a as usize] = true;
        on_boundary[b as usize] = true;
    }
    s.vertices
        .iter()
        .zip(&on_boundary)
        .filter(|(_, &b)| b)
        .map(|(v, _)| *v)
        .collect()
}

/// The outline with the inserted points (`inserted[j]` marks `points[j]`), their texture and
/// lightmap coordinates interpolated along the edge they split.
fn with_inserted(old: &[Vertex], points: &[DVec3], inserted: &[bool]) -> Vec<Vertex> {
    let mut vertices = Vec::with_capacity(points.len());
    // The original vertices come in `points` in their own order: the last one passed is the
    // start of the edge an inserted point splits (counted, not looked up by position: an
    // outline may repeat a position, and the first copy's edge can have no length).
    let mut passed = 0usize;
    let mut orig = 0usize;
    for (p, &is_new) in points.iter().zip(inserted) {
        if !is_new {
            orig = passed.min(old.len() - 1);
            passed += 1;
            vertices.push(old[orig]);
            continue;
        }
        let (a, b) = (old[orig], old[(orig + 1) % old.len()]);
        let (pa, pb) = (a.position.as_dvec3(), b.position.as_dvec3());
        let t = ((*p - pa).dot(pb - pa) / (pb - pa).length_squared()).clamp(0.0, 1.0) as f32;
        vertices.push(Vertex {
            position: p.as_vec3(),
            uv: a.uv + (b.uv - a.uv) * t,
            lightmap_uv: a.lightmap_uv + (b.lightmap_uv - a.lightmap_uv) * t,
        });
    }
    vertices
}

/// Triangles of a convex outline with no flat one (`triangulate::cut`): between its corners,
/// the diagonals shortest in sum, or a fan from an added centre vertex.
pub fn cut_surface(mut vertices: Vec<Vertex>, points: &[DVec3]) -> (Vec<Vertex>, Vec<u32>) {
    let (indices, centre) = triangulate::cut(points);
    if centre {
        let centre = centre_vertex(&vertices);
        vertices.push(centre);
    }
    (vertices, indices)
}

/// The average of a planar surface's vertices: positions, texture and lightmap coordinates
/// are affine on the plane, so the average of each is exact at the centre.
pub fn centre_vertex(vertices: &[Vertex]) -> Vertex {
    let inv = 1.0 / vertices.len().max(1) as f32;
    Vertex {
        position: vertices.iter().map(|v| v.position).sum::<Vec3>() * inv,
        uv: vertices.iter().map(|v| v.uv).sum::<Vec2>() * inv,
        lightmap_uv: vertices.iter().map(|v| v.lightmap_uv).sum::<Vec2>() * inv,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    /// A fan surface over `corners` (z = 0) whose texture coordinates are its x and y.
    fn surface(corners: &[[f32; 2]]) -> Surface {
        let vertices: Vec<Vertex> = corners
            .iter()
            .map(|&[x, y]| Vertex {
                position: Vec3::new(x, y, 0.0),
                uv: Vec2::new(x, y),
                lightmap_uv: Vec2::new(x, y),
            })
            .collect();
        let indices = (1..corners.len() as u32 - 1)
            .flat_map(|k| [0, k, k + 1])
            .collect();
        Surface {
            vertices,
            indices,
            normal: Vec3::Z,
            ..Default::default()
        }
    }

    /// A neighbour's corner on an edge is inserted with the coordinates the edge has there,
    /// also when the outline repeats a corner (a damaged file's face): every inserted vertex's
    /// texture coordinates are its position's.
    #[test]
    fn inserted_vertices_take_the_coordinates_of_their_edge_even_past_a_repeated_corner() {
        let mut surfaces = vec![
            // (64, 0) repeated: a side of no length before the long side it starts.
            surface(&[
                [0.0, 0.0],
                [64.0, 0.0],
                [64.0, 0.0],
                [64.0, 64.0],
                [0.0, 64.0],
            ]),
            // A neighbour whose corner (64, 32) lies on the long side.
            surface(&[[64.0, 32.0], [96.0, 32.0], [96.0, 48.0], [64.0, 48.0]]),
        ];
        let added = repair_tjunctions(&mut surfaces, &[0, 1]);
        assert!(added >= 2, "{added}");
        for v in &surfaces[0].vertices {
            let xy = v.position.truncate();
            assert!(v.uv.is_finite() && (v.uv - xy).length() < 1e-4, "{v:?}");
            assert!((v.lightmap_uv - xy).length() < 1e-4, "{v:?}");
        }
    }
}
