//! Patches against their analytic shape (a quadratic Bézier reproduces a parabola exactly),
//! their corners, and the stitching: neighbours that share an edge, either way round, make the
//! same vertices there to the bit — on made-up grids and on every pair of OpenArena's patches
//! that share an edge.

use super::super::{patch_steps, read, Ibsp, Surface, SurfaceType};
use super::*;
use crate::pk3::Pk3;

fn point(x: f32, y: f32, z: f32) -> Vertex {
    Vertex {
        position: [x, y, z],
        st: [x / 64.0, y / 64.0],
        lightmap_st: [0.5, 0.5],
        normal: [0.0, 0.0, 1.0],
        color: [255, 128, 0, 255],
    }
}

/// The control grid of z = x² / 64 over x in 0..128, y in 0..64·(rows − 1): a quadratic
/// Bézier with control points (0, 0), (64, 0), (128, 256) traces that parabola exactly.
fn parabola(width: u32, height: u32) -> Vec<Vertex> {
    let mut grid = Vec::new();
    for r in 0..height {
        for c in 0..width {
            let piece = c / 2;
            let x0 = piece as f32 * 128.0;
            let z = match c % 2 {
                0 => (c as f32 * 64.0).powi(2) / 64.0,
                // The middle control point: where the end tangents meet.
                _ => x0 * x0 / 64.0 + (2.0 * x0 / 64.0) * 64.0,
            };
            grid.push(point(c as f32 * 64.0, r as f32 * 64.0, z));
        }
    }
    grid
}

#[test]
fn a_patch_follows_its_curve_and_keeps_its_corners() {
    let grid = parabola(5, 3);
    let (vertices, indices) = tessellate(&grid, 5, 3, 8);
    assert_eq!(vertices.len(), 17 * 9);
    assert_eq!(indices.len(), 16 * 8 * 6);
    for v in &vertices {
        let [x, _, z] = v.position;
        assert!((z - x * x / 64.0).abs() < 1e-3, "{x} {z}");
        assert!((v.st[0] - x / 64.0).abs() < 1e-5);
    }
    for (v, c) in [(0, 0), (16, 4), (17 * 8, 10), (17 * 9 - 1, 14)] {
        assert_eq!(vertices[v].position, grid[c].position);
    }
    // Every triangle winds the same way: over a height field, all their normals point down.
    for t in indices.chunks(3) {
        let p = |i: u32| glam::Vec3::from(vertices[i as usize].position);
        let n = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]));
        assert!(n.z < 0.0, "{n}");
    }
}

/// The vertex positions on the patch's border, as bit patterns.
fn border(vertices: &[Vertex], cols: usize, rows: usize) -> std::collections::BTreeSet<[u32; 3]> {
    let bits = |v: &Vertex| v.position.map(f32::to_bits);
    let mut out = std::collections::BTreeSet::new();
    for r in 0..rows {
        for c in 0..cols {
            if r == 0 || c == 0 || r + 1 == rows || c + 1 == cols {
                out.insert(bits(&vertices[r * cols + c]));
            }
        }
    }
    out
}

#[test]
fn neighbours_that_share_an_edge_either_way_round_share_its_vertices() {
    // A wavy 3 × 3 patch, and a neighbour whose first column is its last column reversed and
    // whose grid runs the other way (rows and columns swapped).
    let a: Vec<Vertex> = (0..9)
        .map(|i| {
            point(
                (i % 3) as f32 * 37.3,
                (i / 3) as f32 * 41.7,
                ((i * 7) % 5) as f32 * 13.1,
            )
        })
        .collect();
    let shared = [a[8], a[5], a[2]];
    let mut b = Vec::new();
    for r in 0..3 {
        for c in 0..3 {
            b.push(match c {
                0 => shared[r],
                _ => point(
                    100.0 + c as f32 * 40.0,
                    r as f32 * 50.0,
                    (r * c) as f32 * 9.7,
                ),
            });
        }
    }
    // The neighbour transposed: its shared border is now its first row.
    let bt: Vec<Vertex> = (0..9).map(|i| b[(i % 3) * 3 + i / 3]).collect();
    for steps in [2, 4, 8, 16] {
        let (va, _) = tessellate(&a, 3, 3, steps);
        let n = steps as usize + 1;
        let edge_a: std::collections::BTreeSet<[u32; 3]> = (0..n)
            .map(|r| va[r * n + n - 1].position.map(f32::to_bits))
            .collect();
        for grid in [&b, &bt] {
            let (vb, _) = tessellate(grid, 3, 3, steps);
            let shared_b = border(&vb, n, n);
            let missing = edge_a.iter().filter(|p| !shared_b.contains(*p)).count();
            assert_eq!(
                missing,
                0,
                "steps {steps}: {missing} of {} edge vertices differ",
                edge_a.len()
            );
        }
    }
}

/// The three control points of each border piece of a patch, by position bits.
fn border_pieces(map: &Ibsp, s: &Surface) -> Vec<[[u32; 3]; 3]> {
    let (w, h) = (s.patch[0] as usize, s.patch[1] as usize);
    let p = |r: usize, c: usize| {
        map.vertices[s.vertices.start as usize + r * w + c]
            .position
            .map(f32::to_bits)
    };
    let mut out = Vec::new();
    for k in (0..w - 1).step_by(2) {
        out.push([p(0, k), p(0, k + 1), p(0, k + 2)]);
        out.push([p(h - 1, k), p(h - 1, k + 1), p(h - 1, k + 2)]);
    }
    for k in (0..h - 1).step_by(2) {
        out.push([p(k, 0), p(k + 1, 0), p(k + 2, 0)]);
        out.push([p(k, w - 1), p(k + 1, w - 1), p(k + 2, w - 1)]);
    }
    out
}

/// OpenArena's patches: wherever two patches have a border piece with the same three control
/// points (either way round), their tessellations share every vertex of it.
#[test]
fn openarenas_neighbouring_patches_meet_without_a_crack() {
    let path = std::path::Path::new("/usr/share/games/openarena/baseoa/pak1-maps.pk3");
    if !path.is_file() {
        return lanthorn_testdata::missing_realdata(path);
    }
    let pk3 = Pk3::open(path).unwrap();
    let (mut pairs, mut checked_maps) = (0, 0);
    for name in ["maps/oa_dm4.bsp", "maps/oa_ctf2.bsp", "maps/aggressor.bsp"] {
        let map = read(&pk3.read(pk3.find(name).unwrap()).unwrap(), name).unwrap();
        let patches: Vec<&Surface> = map
            .surfaces
            .iter()
            .filter(|s| s.kind == SurfaceType::Patch)
            .collect();
        let mut owner = std::collections::HashMap::new();
        // The steps the importer cuts each patch into (`patch_steps`: by its bends, equal
        // across patches that share a border point).
        let all_steps = patch_steps(&map);
        let steps: Vec<u32> = (map.surfaces.iter().zip(&all_steps))
            .filter(|(s, _)| s.kind == SurfaceType::Patch)
            .map(|(_, &n)| n)
            .collect();
        let tess: Vec<std::collections::BTreeSet<[u32; 3]>> = patches
            .iter()
            .zip(&steps)
            .map(|(s, &n)| {
                let control = &map.vertices[s.vertices.start as usize..s.vertices.end as usize];
                let (v, _) = tessellate(control, s.patch[0], s.patch[1], n);
                v.iter().map(|v| v.position.map(f32::to_bits)).collect()
            })
            .collect();
        for (i, s) in patches.iter().enumerate() {
            for piece in border_pieces(&map, s) {
                if piece[0] == piece[1] || piece[1] == piece[2] || piece[0] == piece[2] {
                    continue; // a collapsed border (a cone's tip): no curve to share
                }
                let key = if piece[0] <= piece[2] {
                    piece
                } else {
                    [piece[2], piece[1], piece[0]]
                };
                if let Some(&j) = owner.get(&key) {
                    if j != i {
                        // Both tessellations hold the piece's curve: its ends and its middle.
                        let (a, b): (
                            &std::collections::BTreeSet<_>,
                            &std::collections::BTreeSet<_>,
                        ) = (&tess[i], &tess[j]);
                        assert!(
                            a.contains(&piece[0])
                                && b.contains(&piece[0])
                                && a.contains(&piece[2])
                                && b.contains(&piece[2]),
                            "{name}"
                        );
                        assert_eq!(steps[i], steps[j], "{name}: neighbours {j} and {i}");
                        let shared = a.intersection(b).count();
                        let n = steps[i] as usize + 1;
                        assert!(shared >= n, "{name}: patches {j} and {i} share {shared} vertices along a common border of {n}");
                        pairs += 1;
                    }
                } else {
                    owner.insert(key, i);
                }
            }
        }
        checked_maps += 1;
    }
    eprintln!("{pairs} shared patch borders in {checked_maps} maps");
    assert!(pairs > 0);
}

/// A row of a patch bent by `bend` (|p0 − 2p1 + p2|) along z: its steps keep the tessellation
/// within the tolerance of the curve, measured at each step's middle against the exact
/// Bézier (a quadratic strays most from its chord there), and half as many would not; a flat
/// patch takes the fewest; one that shares a border point with a bent one takes the bent
/// one's steps.
#[test]
fn patches_take_the_steps_their_bends_need_and_neighbours_share_them() {
    let row = |x0: f32, bend: f32| -> Vec<Vertex> {
        (0..3)
            .flat_map(|r| {
                (0..3).map(move |c| {
                    let z = if c == 1 { -bend / 2.0 } else { 0.0 };
                    point(x0 + 64.0 * c as f32, 64.0 * r as f32, z)
                })
            })
            .collect()
    };
    let tolerance = 1.0;
    for bend in [0.0, 3.0, 8.0, 20.0, 60.0, 500.0] {
        let control = row(0.0, bend);
        let n = group_steps(&[(&control, 3, 3)], 8, tolerance)[0];
        let exact = |t: f32| {
            let (p0, p1, p2) = (0.0, -bend / 2.0, 0.0);
            (1.0 - t).powi(2) * p0 + 2.0 * t * (1.0 - t) * p1 + t * t * p2
        };
        let (v, _) = tessellate(&control, 3, 3, n);
        let worst = (0..n as usize)
            .map(|k| {
                let mid = (v[k].position[2] + v[k + 1].position[2]) / 2.0;
                (mid - exact((k as f32 + 0.5) / n as f32)).abs()
            })
            .fold(0.0f32, f32::max);
        assert!(
            n == 8 || worst <= tolerance + 1e-4,
            "bend {bend}: {n} steps stray {worst}"
        );
        if n > MIN_STEPS {
            assert!(
                bend / (n * n) as f32 > tolerance,
                "bend {bend}: {n} steps where {} do",
                n / 2
            );
        }
        if bend == 0.0 {
            assert_eq!(n, MIN_STEPS);
        }
    }
    // A flat patch beside a bent one, sharing its border column x = 128, and one apart.
    let (bent, flat, apart) = (row(0.0, 500.0), row(128.0, 0.0), row(1000.0, 0.0));
    let steps = group_steps(
        &[(&bent, 3, 3), (&flat, 3, 3), (&apart, 3, 3)],
        8,
        tolerance,
    );
    assert_eq!(steps, [8, 8, MIN_STEPS]);
}
