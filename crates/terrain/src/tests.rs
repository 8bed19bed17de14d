//! Terrain tests against independent oracles: rasterized footprints, edge counting for cracks,
//! fresh window fills, brute-force min/max, the PNG's own raw values.

use std::collections::{HashMap, HashSet};

use glam::{DVec2, Vec3};

use super::clipmap::{local_rect, rotate};
use super::vertex::{morph_alpha, vertex_position};
use super::*;
use lanthorn_geom::{Camera, CameraSpec};

// ---------------------------------------------------------------------------------------------
// helpers

use lanthorn_geom::rng::XorShift as Rng;

/// An integer in `a..b`.
fn int(r: &mut Rng, a: i64, b: i64) -> i64 {
    a + (r.next_u64() % (b - a) as u64) as i64
}

fn camera_at(x: f64, y: f64, z: f64, yaw: f32, pitch: f32) -> Camera {
    Camera::new(
        CameraSpec {
            position: Vec3::new(x as f32, y as f32, z as f32),
            yaw,
            pitch,
        },
        16.0 / 9.0,
    )
}

fn small_cfg(levels: u32) -> ClipmapConfig {
    ClipmapConfig::new(levels, 31, 8.0).unwrap()
}

fn flat() -> Heightmap {
    Heightmap::from_f32(4, 4, vec![0.0; 16]).unwrap()
}

fn select_all(cfg: ClipmapConfig, cam: &Camera, hm: &Heightmap) -> Selection {
    let mut pyr = MinMaxPyramid::new(hm);
    let mut s = ClipmapSelector::new(cfg).unwrap();
    s.cull = false;
    s.select(cam, hm, &mut pyr).clone()
}

/// (kind, instance) pairs of a selection.
fn pieces(sel: &Selection) -> Vec<(MeshKind, TerrainInstance)> {
    let mut v = Vec::new();
    for k in MeshKind::ALL {
        for i in sel.of_kind(k) {
            v.push((k, *i));
        }
    }
    v
}

/// Sample points inside a unit cell that lie on no grid line or diagonal.
const SAMPLES: [[f64; 2]; 4] = [[0.2, 0.35], [0.7, 0.15], [0.35, 0.8], [0.85, 0.6]];

fn inside(t: &[[f64; 2]; 3], p: [f64; 2]) -> bool {
    let s =
        |a: [f64; 2], b: [f64; 2]| (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
    let (d0, d1, d2) = (s(t[0], t[1]), s(t[1], t[2]), s(t[2], t[0]));
    (d0 > 0.0 && d1 > 0.0 && d2 > 0.0) || (d0 < 0.0 && d1 < 0.0 && d2 < 0.0)
}

/// Per-cell sample coverage counts of a set of placed pieces (level units).
fn rasterize(
    meshes: &ClipmapMeshes,
    ps: &[(MeshKind, TerrainInstance)],
) -> HashMap<([i64; 2], usize), u32> {
    let mut cov = HashMap::new();
    for (k, inst) in ps {
        for tri in meshes.get(*k).triangles() {
            let t = tri.map(|v| {
                let g = inst.grid_point(v);
                [g[0] as f64, g[1] as f64]
            });
            let x0 = t.iter().map(|p| p[0]).fold(f64::MAX, f64::min) as i64;
            let x1 = t.iter().map(|p| p[0]).fold(f64::MIN, f64::max) as i64;
            let y0 = t.iter().map(|p| p[1]).fold(f64::MAX, f64::min) as i64;
            let y1 = t.iter().map(|p| p[1]).fold(f64::MIN, f64::max) as i64;
            for y in y0..y1 {
                for x in x0..x1 {
                    for (si, s) in SAMPLES.iter().enumerate() {
                        if inside(&t, [x as f64 + s[0], y as f64 + s[1]]) {
                            *cov.entry(([x, y], si)).or_insert(0) += 1;
                        }
                    }
                }
            }
        }
    }
    cov
}

/// Cells fully covered exactly once; panics on partial or multiple coverage.
fn covered_cells(cov: &HashMap<([i64; 2], usize), u32>, what: &str) -> HashSet<[i64; 2]> {
    let mut cells: HashMap<[i64; 2], u32> = HashMap::new();
    for ((c, _), n) in cov {
        assert_eq!(*n, 1, "{what}: cell {c:?} covered {n} times (overlap)");
        *cells.entry(*c).or_insert(0) += 1;
    }
    for (c, n) in &cells {
        assert_eq!(*n, 4, "{what}: cell {c:?} only partly covered");
    }
    cells.into_keys().collect()
}

fn bbox(cells: &HashSet<[i64; 2]>) -> ([i64; 2], [i64; 2]) {
    let mut a = [i64::MAX; 2];
    let mut b = [i64::MIN; 2];
    for c in cells {
        for i in 0..2 {
            a[i] = a[i].min(c[i]);
            b[i] = b[i].max(c[i] + 1);
        }
    }
    (a, b)
}

/// Check the whole footprint: level by level, the level's pieces plus everything finer cover a
/// filled square exactly once. Returns each level's covered square (level units).
fn check_footprint(
    cfg: &ClipmapConfig,
    sel: &Selection,
    meshes: &ClipmapMeshes,
) -> Vec<(u32, [i64; 2], [i64; 2])> {
    let all = pieces(sel);
    let mut squares = Vec::new();
    let mut finer: Option<([i64; 2], [i64; 2])> = None;
    for l in 0..cfg.levels {
        if l < sel.first_level {
            assert!(
                all.iter().all(|(_, i)| i.level >= sel.first_level),
                "inactive level drawn"
            );
            continue;
        }
        let lv: Vec<_> = all
            .iter()
            .copied()
            .filter(|(k, i)| i.level == l && *k != MeshKind::Seam)
            .collect();
        let cells = covered_cells(&rasterize(meshes, &lv), &format!("level {l}"));
        let mut union = cells.clone();
        if let Some((a, b)) = finer {
            for i in 0..2 {
                assert!(
                    a[i] % 2 == 0 && b[i] % 2 == 0,
                    "level {}'s square {a:?}..{b:?} not aligned to level {l}",
                    l - 1
                );
            }
            for y in a[1] / 2..b[1] / 2 {
                for x in a[0] / 2..b[0] / 2 {
                    assert!(
                        union.insert([x, y]),
                        "level {l} overlaps the finer levels at {:?}",
                        [x, y]
                    );
                }
            }
        }
        let (a, b) = bbox(&union);
        let area = ((b[0] - a[0]) * (b[1] - a[1])) as usize;
        assert_eq!(union.len(), area, "level {l}: gap inside {a:?}..{b:?}");
        assert_eq!(b[0] - a[0], b[1] - a[1], "level {l} not square");
        let side = b[0] - a[0];
        let t = cfg.tile_quads() as i64;
        let expect = if l + 1 == cfg.levels {
            4 * t + 1
        } else {
            4 * t + 2
        };
        assert_eq!(side, expect, "level {l} square side");
        if l == sel.first_level {
            assert_eq!(
                cells.len(),
                area,
                "finest active level covers its full square"
            );
        }
        squares.push((l, a, b));
        finer = Some((a, b));
    }
    squares
}

fn random_cameras(n: usize, seed: u64, extent: f64) -> Vec<Camera> {
    let mut r = Rng(seed);
    (0..n)
        .map(|_| {
            camera_at(
                r.range_f64(-extent, extent),
                r.range_f64(-extent, extent),
                r.range_f64(-200.0, 3000.0),
                r.range_f64(0.0, 360.0) as f32,
                r.range_f64(-60.0, 30.0) as f32,
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// clipmap geometry

#[test]
fn terrain_footprint_covers_square_without_gaps_or_overlaps() {
    let hm = flat();
    for (levels, grid, n) in [
        (5u32, 31u32, 120usize),
        (3, 255, 3),
        (1, 15, 10),
        (6, 15, 60),
    ] {
        let mut cfg = ClipmapConfig::new(levels, grid, 8.0).unwrap();
        let meshes = ClipmapMeshes::new(&cfg);
        for (i, cam) in random_cameras(n, 7 + grid as u64, 1.0e5)
            .into_iter()
            .enumerate()
        {
            cfg.active_height_factor = if i % 2 == 0 { 0.0 } else { 2.5 };
            let sel = select_all(cfg, &cam, &hm);
            let sq = check_footprint(&cfg, &sel, &meshes);
            // The coarsest square surrounds the camera; every square matches the placement.
            for &(l, a, b) in &sq {
                let (l, a, b) = (l as usize, &a, &b);
                let p = sel.levels[l];
                assert_eq!(*a, p.origin, "level {l} origin");
                assert_eq!(b[0] - a[0], p.quads);
                let s = cfg.spacing(l as u32);
                let c = cam.position.as_dvec3();
                assert!(c.x >= a[0] as f64 * s && c.x <= b[0] as f64 * s);
                assert!(c.y >= a[1] as f64 * s && c.y <= b[1] as f64 * s);
            }
        }
    }
}

#[test]
fn terrain_snapped_origins_do_not_swim() {
    // Level origins are multiples of twice the level spacing (vertices of the coarser level),
    // and every vertex of every piece lies on its level's grid for any camera: moving the camera
    // by less than a cell moves nothing.
    let cfg = small_cfg(5);
    let hm = flat();
    let mut r = Rng(99);
    for _ in 0..200 {
        let (x, y) = (r.range_f64(-1e5, 1e5), r.range_f64(-1e5, 1e5));
        let a = select_all(cfg, &camera_at(x, y, 100.0, 0.0, 0.0), &hm);
        for p in &a.levels[..cfg.levels as usize - 1] {
            assert_eq!(p.origin[0].rem_euclid(2), 0);
            assert_eq!(p.origin[1].rem_euclid(2), 0);
        }
        // Nudge within the same finest cell: identical instance lists.
        let s0 = cfg.spacing(0);
        let (cx, cy) = ((x / s0).floor() * s0, (y / s0).floor() * s0);
        let b = select_all(
            cfg,
            &camera_at(
                cx + 0.9 * s0 * r.unit_f64(),
                cy + 0.9 * s0 * r.unit_f64(),
                100.0,
                0.0,
                0.0,
            ),
            &hm,
        );
        assert_eq!(a.instances, b.instances);
    }
}

#[test]
fn terrain_trims_take_all_rotations_and_fill_the_gap_exactly() {
    let cfg = small_cfg(4);
    let meshes = ClipmapMeshes::new(&cfg);
    let hm = flat();
    let s = cfg.spacing(1);
    for l in 0..cfg.levels - 1 {
        let mut rotations = HashSet::new();
        for (px, py) in [(0i64, 0i64), (1, 0), (0, 1), (1, 1)] {
            // A camera whose level-l cell has parity (px, py).
            let sl = cfg.spacing(l);
            let base = 4.0 * s * 1000.0;
            let cam = camera_at(
                base + (px as f64 + 0.5) * sl,
                base + (py as f64 + 0.5) * sl,
                50.0,
                0.0,
                0.0,
            );
            let sel = select_all(cfg, &cam, &hm);
            let p = sel.levels[l as usize];
            assert_eq!([p.cell[0] & 1, p.cell[1] & 1], [px, py]);
            let all = pieces(&sel);
            let trims: Vec<_> = all
                .iter()
                .copied()
                .filter(|(k, i)| *k == MeshKind::Trim && i.level == l)
                .collect();
            assert_eq!(trims.len(), 1);
            rotations.insert(trims[0].1.rotation);
            let trim_cells = covered_cells(&rasterize(&meshes, &trims), "trim");
            // The hole level l+1 leaves (from rasterizing level l+1), in level-l cells.
            let coarse: Vec<_> = all
                .iter()
                .copied()
                .filter(|(k, i)| i.level == l + 1 && *k != MeshKind::Seam)
                .collect();
            let cc = covered_cells(&rasterize(&meshes, &coarse), "coarse");
            let (a, b) = bbox(&cc);
            let mut hole = HashSet::new();
            for y in a[1]..b[1] {
                for x in a[0]..b[0] {
                    if !cc.contains(&[x, y]) {
                        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                            hole.insert([2 * x + dx, 2 * y + dy]);
                        }
                    }
                }
            }
            // Minus what level l's other pieces and the finer levels cover.
            let fine: Vec<_> = all
                .iter()
                .copied()
                .filter(|(k, i)| i.level <= l && *k != MeshKind::Seam && *k != MeshKind::Trim)
                .collect();
            let mut filled = HashSet::new();
            for (k, i) in &fine {
                let one = [(*k, *i)];
                for c in covered_cells(&rasterize(&meshes, &one), "piece") {
                    // Finer pieces' cells scaled to level l.
                    let sh = l - i.level;
                    filled.insert([c[0] >> sh, c[1] >> sh]);
                }
            }
            let gap: HashSet<_> = hole.difference(&filled).copied().collect();
            assert_eq!(
                trim_cells, gap,
                "level {l} parity {px},{py}: trim is not exactly the gap"
            );
            // The trim runs along the sides away from the tiles: bit x set → left column.
            let (ta, tb) = bbox(&trim_cells);
            let left_col = trim_cells.iter().filter(|c| c[0] == ta[0]).count() as i64;
            let right_col = trim_cells.iter().filter(|c| c[0] == tb[0] - 1).count() as i64;
            if px == 1 {
                assert!(left_col > right_col);
            } else {
                assert!(right_col > left_col);
            }
        }
        assert_eq!(rotations.len(), 4, "level {l}: rotations {rotations:?}");
    }
}

/// Undirected edge counts of all placed triangles (base-grid coordinates).
fn edge_counts(
    meshes: &ClipmapMeshes,
    ps: &[(MeshKind, TerrainInstance)],
) -> HashMap<([i64; 2], [i64; 2]), u32> {
    let mut e = HashMap::new();
    for (k, inst) in ps {
        for tri in meshes.get(*k).triangles() {
            let v = tri.map(|p| inst.base_point(p));
            for (a, b) in [(v[0], v[1]), (v[1], v[2]), (v[2], v[0])] {
                let key = if a <= b { (a, b) } else { (b, a) };
                *e.entry(key).or_insert(0) += 1;
            }
        }
    }
    e
}

#[test]
fn terrain_no_cracks_every_boundary_edge_is_matched_or_seamed() {
    let hm = flat();
    for (levels, grid, n) in [(5u32, 31u32, 60usize), (3, 127, 3), (4, 15, 60)] {
        let mut cfg = ClipmapConfig::new(levels, grid, 4.0).unwrap();
        let meshes = ClipmapMeshes::new(&cfg);
        for (i, cam) in random_cameras(n, 1234 + grid as u64, 5.0e4)
            .into_iter()
            .enumerate()
        {
            // Half with every level active, half with height-dependent finest levels.
            cfg.active_height_factor = if i % 2 == 0 { 0.0 } else { 2.5 };
            let sel = select_all(cfg, &cam, &hm);
            let all = pieces(&sel);
            let e = edge_counts(&meshes, &all);
            // The outer boundary of the coarsest level is the only open edge loop.
            let top = sel.levels[cfg.levels as usize - 1];
            let sh = top.level;
            let lo = [top.origin[0] << sh, top.origin[1] << sh];
            let hi = [
                (top.origin[0] + top.quads) << sh,
                (top.origin[1] + top.quads) << sh,
            ];
            let on_outer = |a: [i64; 2], b: [i64; 2]| {
                (a[0] == b[0] && (a[0] == lo[0] || a[0] == hi[0]))
                    || (a[1] == b[1] && (a[1] == lo[1] || a[1] == hi[1]))
            };
            for ((a, b), n) in &e {
                let want = if on_outer(*a, *b) { 1 } else { 2 };
                assert_eq!(
                    *n, want,
                    "edge {a:?}-{b:?} used {n} times (cam {:?})",
                    cam.position
                );
            }
            // And without seams there would be cracks: the oracle is not vacuous.
            if cfg.levels - sel.first_level > 1 {
                let no_seam: Vec<_> = all
                    .iter()
                    .copied()
                    .filter(|(k, _)| *k != MeshKind::Seam)
                    .collect();
                let e2 = edge_counts(&meshes, &no_seam);
                assert!(e2.iter().any(|((a, b), n)| *n == 1 && !on_outer(*a, *b)));
            }
        }
    }
}

#[test]
fn terrain_meshes_are_counter_clockwise_and_sized() {
    let cfg = ClipmapConfig::new(10, 255, 16.0).unwrap();
    let m = ClipmapMeshes::new(&cfg);
    let t = cfg.tile_quads() as usize;
    assert_eq!(t, 63);
    assert_eq!(m.get(MeshKind::Tile).vertices.len(), (t + 1) * (t + 1));
    assert_eq!(m.get(MeshKind::Tile).triangle_count() as usize, 2 * t * t);
    assert_eq!(m.get(MeshKind::Filler).triangle_count() as usize, 2 * t);
    assert_eq!(
        m.get(MeshKind::Trim).triangle_count() as usize,
        2 * ((4 * t + 2) + (4 * t + 1))
    );
    assert_eq!(
        m.get(MeshKind::Cross).triangle_count() as usize,
        2 * (4 * t + 1)
    );
    assert_eq!(
        m.get(MeshKind::Seam).triangle_count() as usize,
        2 * (4 * t + 2)
    );
    for k in MeshKind::ALL {
        let mesh = m.get(k);
        assert!(mesh.indices_u16().is_some());
        let (a, b) = local_rect(k, t as i32);
        for v in &mesh.vertices {
            assert!(
                v[0] >= a[0] && v[0] <= b[0] && v[1] >= a[1] && v[1] <= b[1],
                "{k:?} {v:?}"
            );
        }
        for tri in mesh.triangles() {
            let area = (tri[1][0] - tri[0][0]) * (tri[2][1] - tri[0][1])
                - (tri[1][1] - tri[0][1]) * (tri[2][0] - tri[0][0]);
            if k == MeshKind::Seam {
                assert_eq!(area, 0, "seam triangles are degenerate");
            } else {
                assert!(area > 0, "{k:?} triangle {tri:?} is not CCW");
            }
        }
    }
    // Rotations are quarter turns.
    for r in 0..4 {
        let v = rotate(r, [3, 1]);
        assert_eq!(v[0] * v[0] + v[1] * v[1], 10);
        assert_eq!(rotate((r + 1) % 4, [3, 1]), rotate(1, v));
    }
    assert_eq!(std::mem::size_of::<TerrainInstance>(), 16);
    assert_eq!(std::mem::size_of::<TerrainFrame>(), 48);
}

/// Each mesh's parts split its triangles into consecutive runs (the tile's quadrants, the trim's
/// and the cross's arms, the seam's sides: four each, the filler one); a part's rectangle is
/// the tight bound of its triangles; neighbours in the parts' order touch; and a run of parts,
/// wrapping or not, is one range of the doubled index list holding exactly its parts'
/// triangles.
#[test]
fn terrain_mesh_parts_split_each_mesh_in_order() {
    for grid in [15, 63, 127, 255] {
        let cfg = ClipmapConfig::new(6, grid, 8.0).unwrap();
        let m = ClipmapMeshes::new(&cfg);
        let mut runs = 0;
        for k in MeshKind::ALL {
            let mesh = m.get(k);
            let want = if k == MeshKind::Filler { 1 } else { 4 };
            assert_eq!(mesh.parts.len(), want, "{k:?}");
            let mut next = 0;
            let mut spans = Vec::new();
            for part in &mesh.parts {
                assert!(part.triangles > 0 && part.first_triangle == next, "{k:?}");
                next += part.triangles;
                let first = 3 * part.first_triangle as usize;
                let idx = &mesh.indices[first..first + 3 * part.triangles as usize];
                let vs: Vec<[i32; 2]> = idx.iter().map(|&i| mesh.vertices[i as usize]).collect();
                let lo = [0, 1].map(|a| vs.iter().map(|v| v[a]).min().unwrap());
                let hi = [0, 1].map(|a| vs.iter().map(|v| v[a]).max().unwrap());
                assert_eq!((part.min, part.max), (lo, hi), "{k:?}");
                spans.push(vs.into_iter().collect::<HashSet<_>>());
            }
            assert_eq!(next, mesh.triangle_count());
            runs += want * want;
            for w in spans.windows(2) {
                assert!(
                    !w[0].is_disjoint(&w[1]),
                    "{k:?}: neighbouring parts do not touch"
                );
            }
            let cyclic = mesh.cyclic_indices();
            let triangles_of = |idx: &[u32]| {
                let mut v: Vec<[u32; 3]> =
                    idx.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
                v.sort();
                v
            };
            for first in 0..want {
                for count in 1..=want {
                    let run = PartRun {
                        first: first as u8,
                        count: count as u8,
                    };
                    let r = mesh.run_indices(run);
                    let mut expect = Vec::new();
                    for p in run.parts(want) {
                        let part = mesh.parts[p];
                        let a = 3 * part.first_triangle as usize;
                        expect.extend_from_slice(&mesh.indices[a..a + 3 * part.triangles as usize]);
                    }
                    assert_eq!(
                        triangles_of(&cyclic[r.start as usize..r.end as usize]),
                        triangles_of(&expect),
                        "{k:?} {run:?}"
                    );
                }
            }
        }
        assert_eq!(runs, clipmap::MAX_DRAWS, "the draws a selection may make");
    }
}

/// `PartRun::covering` against every run: the run it gives holds the mask's parts, and no
/// shorter run does.
#[test]
fn the_covering_run_is_the_shortest() {
    for parts in 1..=4usize {
        let runs: Vec<(PartRun, u32)> = (0..parts)
            .flat_map(|first| (1..=parts).map(move |count| (first, count)))
            .map(|(first, count)| {
                let run = PartRun {
                    first: first as u8,
                    count: count as u8,
                };
                (run, run.parts(parts).fold(0, |m, p| m | 1 << p))
            })
            .collect();
        for mask in 1..(1u32 << parts) {
            let got = PartRun::covering(mask, parts);
            let bits = got.parts(parts).fold(0, |m, p| m | 1 << p);
            assert_eq!(mask & !bits, 0, "{mask:b}: {got:?}");
            let shortest = runs
                .iter()
                .filter(|(_, b)| mask & !b == 0)
                .map(|(r, _)| r.count)
                .min();
            assert_eq!(Some(got.count), shortest, "{mask:b}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// culling

#[test]
fn terrain_culling_is_conservative_and_culls() {
    let hm = Heightmap::procedural(4096, 5);
    let cfg = ClipmapConfig::new(6, 63, 32.0).unwrap();
    let meshes = ClipmapMeshes::new(&cfg);
    let mut pyr = MinMaxPyramid::new(&hm);
    let mut sel = ClipmapSelector::new(cfg).unwrap();
    let (mut total_culled, mut parts_culled, mut beside_corners) = (0, 0, 0);
    for cam in random_cameras(40, 77, 60_000.0) {
        let s = sel.select(&cam, &hm, &mut pyr).clone();
        total_culled += s.stats.pieces_culled;
        parts_culled += s.stats.parts_culled;
        // Each kind's instances in runs of its parts, each (kind, run) once, in order.
        let mut next = 0;
        let mut seen = HashSet::new();
        for (k, run, r) in s.draws() {
            assert!(!r.is_empty() && r.start == next && seen.insert((k, run)));
            assert!(r.start >= s.ranges[k as usize].start && r.end <= s.ranges[k as usize].end);
            next = r.end;
            for inst in &s.instances[r.start as usize..r.end as usize] {
                let b = clipmap::instance_aabb(&cfg, k, inst, &hm, &mut pyr);
                assert!(!b.is_empty() && b.max.z >= b.min.z);
            }
        }
        assert_eq!(next as usize, s.instances.len());
        assert_eq!(s.culled.len() as u32, s.stats.pieces_culled);
        assert_eq!(
            s.instances.len() as u32 + s.stats.pieces_culled,
            s.stats.pieces_total
        );
        let (rel, planes) = {
            let mut c = cam;
            c.position = Vec3::ZERO;
            (c.view_proj(), c.frustum_planes())
        };
        let direct = DirectHeights { hm: &hm, cfg };
        let clip = |k: MeshKind, inst: &TerrainInstance| -> Vec<glam::DVec4> {
            let verts = &meshes.get(k).vertices;
            let at = |v| vertex_position(&s.frame, inst, v, &direct).extend(1.0);
            verts.iter().map(|&v| (rel * at(v)).as_dvec4()).collect()
        };
        // No triangle of a culled piece (true heights, morphed) reaches into the frustum.
        for (k, inst) in &s.culled {
            let c = clip(*k, inst);
            for t in meshes.get(*k).indices.chunks_exact(3) {
                let tri = [0, 1, 2].map(|i| c[t[i] as usize]);
                assert!(
                    !reaches_frustum(tri),
                    "{k:?} {inst:?} culled but its triangle {t:?} shows"
                );
            }
            let verts: Vec<Vec3> = meshes
                .get(*k)
                .vertices
                .iter()
                .map(|v| vertex_position(&s.frame, inst, *v, &direct))
                .collect();
            let by_a_plane = planes
                .iter()
                .any(|p| verts.iter().all(|v| p.distance(*v) < 1e-2));
            beside_corners += !by_a_plane as u32;
        }
        // Nor does one of the parts a drawn piece leaves out.
        for (k, run, r) in s.draws() {
            let mesh = meshes.get(k);
            let drawn: Vec<usize> = run.parts(mesh.parts.len()).collect();
            for inst in &s.instances[r.start as usize..r.end as usize] {
                let c = clip(k, inst);
                for (i, part) in mesh.parts.iter().enumerate() {
                    if drawn.contains(&i) {
                        continue;
                    }
                    let first = 3 * part.first_triangle as usize;
                    let end = first + 3 * part.triangles as usize;
                    for t in mesh.indices[first..end].chunks_exact(3) {
                        let tri = [0, 1, 2].map(|i| c[t[i] as usize]);
                        assert!(
                            !reaches_frustum(tri),
                            "{k:?} {inst:?} part {i} left out but shows"
                        );
                    }
                }
            }
        }
    }
    assert!(
        total_culled > 40 * 20,
        "culling barely culls: {total_culled}"
    );
    // The parts and the pieces no single plane rules out (beside the frustum's corners, under
    // the eye) are culled too.
    assert!(parts_culled > 40 * 10, "parts culled: {parts_culled}");
    assert!(
        beside_corners > 20,
        "pieces culled beside the corners: {beside_corners}"
    );
}

/// Whether triangle `tri` (clip space) has a part inside the frustum, shrunk by a thousandth
/// so that one touching its edge does not count.
fn reaches_frustum(tri: [glam::DVec4; 3]) -> bool {
    reaches_screen(tri, [-1.0, -1.0], [1.0, 1.0])
}

/// Whether triangle `tri` (clip space) has a part in front of the eye inside the NDC
/// rectangle `min..max` less a thousandth: the triangle clipped plane by plane.
fn reaches_screen(tri: [glam::DVec4; 3], min: [f64; 2], max: [f64; 2]) -> bool {
    let e = 1e-3;
    let planes = [
        glam::DVec4::new(1.0, 0.0, 0.0, -(min[0] + e)),
        glam::DVec4::new(-1.0, 0.0, 0.0, max[0] - e),
        glam::DVec4::new(0.0, 1.0, 0.0, -(min[1] + e)),
        glam::DVec4::new(0.0, -1.0, 0.0, max[1] - e),
    ];
    // In front of the eye.
    let near = glam::DVec4::new(0.0, 0.0, 0.0, 1.0);
    let mut poly = tri.to_vec();
    for (p, offset) in planes.map(|p| (p, 0.0)).into_iter().chain([(near, e)]) {
        let d = |v: &glam::DVec4| v.dot(p) - offset;
        let mut out = Vec::new();
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let (da, db) = (d(&a), d(&b));
            if da >= 0.0 {
                out.push(a);
            }
            if (da >= 0.0) != (db >= 0.0) {
                out.push(a + (b - a) * (da / (da - db)));
            }
        }
        poly = out;
        if poly.is_empty() {
            return false;
        }
    }
    true
}

/// The fog cut drops the pieces the fog hides wholly, and only those: every vertex of a piece
/// drawn without the cut but dropped with it (true heights, morphed) lies at least the
/// fogged-out distance from the eye, where the shading's fog leaves at most
/// `FOGGED_OUT_REMAINDER` of the ground; nothing is drawn with the cut that is not drawn
/// without it; and over a small map (fog at 0.3 of its width) it drops many.
#[test]
fn terrain_fogged_out_pieces_lie_wholly_in_the_fog() {
    let hm = Heightmap::procedural(256, 5);
    let cfg = ClipmapConfig::new(8, 63, 32.0).unwrap();
    let shading = TerrainShading::for_heightmap(&hm, &cfg);
    let limit = shading.fogged_out_distance();
    assert!(shading.fog_amount(limit) >= 1.0 - shading::FOGGED_OUT_REMAINDER);
    assert!(shading.fog_amount(0.99 * limit) < 1.0 - shading::FOGGED_OUT_REMAINDER);
    let meshes = ClipmapMeshes::new(&cfg);
    let direct = DirectHeights { hm: &hm, cfg };
    let mut pyr = MinMaxPyramid::new(&hm);
    let mut plain = ClipmapSelector::new(cfg).unwrap();
    let mut fogged = ClipmapSelector::new(cfg).unwrap();
    fogged.fogged_out = Some(limit);
    let (mut dropped, mut drawn) = (0, 0);
    for cam in random_cameras(40, 78, 20_000.0) {
        let all = pieces(plain.select(&cam, &hm, &mut pyr));
        let s = fogged.select(&cam, &hm, &mut pyr).clone();
        let kept = pieces(&s);
        assert!(
            kept.iter().all(|p| all.contains(p)),
            "a piece only the cut draws"
        );
        for (k, inst) in all.iter().filter(|p| !kept.contains(p)) {
            for v in &meshes.get(*k).vertices {
                let d = vertex_position(&s.frame, inst, *v, &direct).length();
                assert!(
                    d >= limit - 0.01,
                    "{k:?} {inst:?}: a vertex at {d} < {limit}"
                );
            }
        }
        dropped += all.len() - kept.len();
        drawn += all.len();
        // Counted among the culled (some would have fallen to the frustum anyway).
        assert!(s.stats.pieces_fogged as usize >= all.len() - kept.len());
    }
    assert!(
        dropped * 4 > drawn,
        "the cut drops {dropped} of {drawn} pieces"
    );
}

/// Culling to a screen octagon (the outdoor cells seen through a doorway): every culled piece
/// lies wholly on the far side of one edge of the octagon's x/y bounds or behind the eye — checked
/// in clip space with the camera's own matrix — and a small octagon culls far more.
#[test]
fn terrain_culling_to_a_screen_octagon_is_conservative() {
    let hm = Heightmap::procedural(4096, 5);
    let cfg = ClipmapConfig::new(6, 63, 32.0).unwrap();
    let meshes = ClipmapMeshes::new(&cfg);
    let mut pyr = MinMaxPyramid::new(&hm);
    let mut sel = ClipmapSelector::new(cfg).unwrap();
    let mut r = Rng(99);
    let (mut full_drawn, mut screen_drawn) = (0usize, 0usize);
    for cam in random_cameras(40, 78, 60_000.0) {
        sel.screen = lanthorn_geom::Octagon::FULL;
        full_drawn += sel.select(&cam, &hm, &mut pyr).instances.len();
        // A doorway-sized octagon somewhere on screen.
        let c = glam::Vec2::new(r.range_f64(-0.8, 0.8) as f32, r.range_f64(-0.8, 0.8) as f32);
        let e = glam::Vec2::new(r.range_f64(0.05, 0.3) as f32, r.range_f64(0.05, 0.3) as f32);
        let oct =
            lanthorn_geom::Octagon::from_points([c - e, c + e, c + glam::Vec2::new(e.x, -e.y)]);
        sel.screen = oct;
        let s = sel.select(&cam, &hm, &mut pyr).clone();
        screen_drawn += s.instances.len();
        let t = oct.tightened();
        let rel = {
            let mut c = cam;
            c.position = Vec3::ZERO;
            c.view_proj()
        };
        let direct = DirectHeights { hm: &hm, cfg };
        let (min, max) = (
            [t.min[0].max(-1.0) as f64, t.min[1].max(-1.0) as f64],
            [t.max[0].min(1.0) as f64, t.max[1].min(1.0) as f64],
        );
        for (k, inst) in &s.culled {
            let mesh = meshes.get(*k);
            let at = |v| vertex_position(&s.frame, inst, v, &direct).extend(1.0);
            let clips: Vec<glam::DVec4> = mesh
                .vertices
                .iter()
                .map(|&v| (rel * at(v)).as_dvec4())
                .collect();
            for tri in mesh.indices.chunks_exact(3) {
                let tri = [0, 1, 2].map(|i| clips[tri[i] as usize]);
                assert!(
                    !reaches_screen(tri, min, max),
                    "{k:?} {inst:?} culled but may show inside {oct:?}"
                );
            }
        }
    }
    eprintln!("instances drawn: full screen {full_drawn}, through small octagons {screen_drawn}");
    assert!(
        screen_drawn * 4 < full_drawn * 3,
        "{screen_drawn} vs {full_drawn}"
    );
}

// ---------------------------------------------------------------------------------------------
// vertex shader reference: morph and crack-free geometry

#[test]
fn terrain_morph_reaches_coarse_level_at_boundaries() {
    let hm = Heightmap::procedural(2048, 3);
    let cfg = small_cfg(5);
    let meshes = ClipmapMeshes::new(&cfg);
    let direct = DirectHeights { hm: &hm, cfg };
    for cam in random_cameras(30, 4321, 20_000.0) {
        let sel = select_all(cfg, &cam, &hm);
        let f = sel.frame;
        // Positions of every level's vertices keyed by base-grid point.
        let mut at: HashMap<(u32, [i64; 2]), Vec3> = HashMap::new();
        for (k, inst) in pieces(&sel) {
            if k == MeshKind::Seam {
                continue;
            }
            for v in &meshes.get(k).vertices {
                let p = vertex_position(&f, &inst, *v, &direct);
                if let Some(q) = at.insert((inst.level, inst.base_point(*v)), p) {
                    assert!((p - q).length() < 1e-4, "one grid point, two positions");
                }
            }
        }
        for l in sel.first_level..cfg.levels - 1 {
            let p = sel.levels[l as usize];
            let sh = l;
            let (lo, hi) = (p.origin, [p.origin[0] + p.quads, p.origin[1] + p.quads]);
            for i in 0..=p.quads {
                for g in [
                    [lo[0] + i, lo[1]],
                    [lo[0] + i, hi[1]],
                    [lo[0], lo[1] + i],
                    [hi[0], lo[1] + i],
                ] {
                    let bp = [g[0] << sh, g[1] << sh];
                    let fine = at[&(l, bp)];
                    assert_eq!(
                        morph_alpha(&f, l, [fine.x, fine.y]),
                        1.0,
                        "boundary vertex not fully morphed"
                    );
                    if g[0] % 2 == 0 && g[1] % 2 == 0 {
                        let coarse = at[&(l + 1, bp)];
                        assert!(
                            (fine - coarse).length() < 1e-3,
                            "level {l} boundary {g:?}: {fine} vs {coarse}"
                        );
                    } else {
                        // An odd boundary vertex lies on the coarse edge between its neighbours.
                        let d = if g[0] % 2 != 0 { [1, 0] } else { [0, 1] };
                        let a = at[&(l + 1, [(g[0] - d[0]) << sh, (g[1] - d[1]) << sh])];
                        let b = at[&(l + 1, [(g[0] + d[0]) << sh, (g[1] + d[1]) << sh])];
                        assert!(
                            (fine - (a + b) * 0.5).length() < 1e-3,
                            "level {l} odd boundary vertex off the coarse edge"
                        );
                    }
                }
            }
            // The finer level's boundary sits where this level does not morph.
            if l > sel.first_level {
                let q = sel.levels[l as usize - 1];
                let (a, b) = (q.origin, [q.origin[0] + q.quads, q.origin[1] + q.quads]);
                for g in [a, b, [a[0], b[1]], [b[0], a[1]]] {
                    let bp = [g[0] << (l - 1), g[1] << (l - 1)];
                    let v = at[&(l, bp)];
                    assert_eq!(
                        morph_alpha(&f, l, [v.x, v.y]),
                        0.0,
                        "inner edge of level {l} morphs"
                    );
                }
            }
        }
    }
}

#[test]
fn terrain_vertex_reference_is_camera_relative_and_precise_far_away() {
    // 30 million units from the origin, positions stay exact to the grid.
    let hm = flat();
    let cfg = ClipmapConfig::new(8, 63, 4.0).unwrap();
    let cam = camera_at(3.0e7 + 0.3, -2.9e7 + 0.7, 120.0, 0.0, 0.0);
    let sel = select_all(cfg, &cam, &hm);
    let direct = DirectHeights { hm: &hm, cfg };
    let c = DVec2::new(3.0e7 + 0.3, -2.9e7 + 0.7);
    let cam_f32 = cam.position.as_dvec3().truncate();
    for inst in sel.of_kind(MeshKind::Tile) {
        for v in [[0, 0], [5, 7]] {
            let p = vertex_position(&sel.frame, inst, v, &direct);
            let b = inst.base_point(v);
            let want = DVec2::new(b[0] as f64, b[1] as f64) * cfg.base_spacing - cam_f32;
            assert!(
                (p.truncate().as_dvec2() - want).length() < 0.05,
                "{p} vs {want}"
            );
        }
    }
    let _ = c;
}

// ---------------------------------------------------------------------------------------------
// toroidal windows

fn fly(
    cfg: ClipmapConfig,
    hm: &Heightmap,
    frames: usize,
    speed: f64,
    seed: u64,
    check_every: usize,
) -> (WindowTextureModel, DVec2, Vec<usize>) {
    let mut r = Rng(seed);
    let mut st = HeightStreamer::new(cfg);
    let mut model = WindowTextureModel::new(&cfg);
    let mut u = HeightUpdates::default();
    let mut pos = DVec2::new(r.range_f64(-5e4, 5e4), r.range_f64(-5e4, 5e4));
    let mut heading = r.range_f64(0.0, std::f64::consts::TAU);
    let mut bytes = Vec::new();
    for f in 0..frames {
        heading += r.range_f64(-0.3, 0.3);
        pos += DVec2::new(heading.cos(), heading.sin()) * speed;
        u.clear();
        bytes.push(st.update(hm, pos, &mut u));
        assert_eq!(u.bytes(), *bytes.last().unwrap());
        model.apply(&u);
        if check_every > 0 && f % check_every == check_every - 1 {
            assert_eq!(
                model,
                WindowTextureModel::full_fill(&cfg, hm, pos),
                "frame {f}"
            );
        }
    }
    (model, pos, bytes)
}

#[test]
fn terrain_toroidal_windows_match_fresh_fill_after_long_flight() {
    let hm = Heightmap::procedural(1 << 16, 11);
    let cfg = small_cfg(6);
    let (model, pos, bytes) = fly(cfg, &hm, 1500, 23.0, 5, 250);
    assert_eq!(model, WindowTextureModel::full_fill(&cfg, &hm, pos));
    let n = cfg.window_size() as usize;
    assert_eq!(
        bytes[0],
        cfg.levels as usize * n * n * 4,
        "first frame fills every layer"
    );
    // With teleports (moves larger than a window) and pauses as well.
    let mut st = HeightStreamer::new(cfg);
    let mut m = WindowTextureModel::new(&cfg);
    let mut u = HeightUpdates::default();
    let mut r = Rng(8);
    let mut p = DVec2::ZERO;
    for i in 0..300 {
        p += match i % 50 {
            0 => DVec2::new(r.range_f64(-1e5, 1e5), r.range_f64(-1e5, 1e5)),
            1..=5 => DVec2::ZERO,
            _ => DVec2::new(r.range_f64(-40.0, 40.0), r.range_f64(-40.0, 40.0)),
        };
        u.clear();
        st.update(&hm, p, &mut u);
        m.apply(&u);
    }
    assert_eq!(m, WindowTextureModel::full_fill(&cfg, &hm, p));
    // The windows hold every height the vertex shader reads.
    let sel = select_all(cfg, &camera_at(p.x, p.y, 300.0, 0.0, 0.0), &hm);
    let meshes = ClipmapMeshes::new(&cfg);
    let direct = DirectHeights { hm: &hm, cfg };
    for (k, inst) in pieces(&sel) {
        for v in &meshes.get(k).vertices {
            let a = vertex_position(&sel.frame, &inst, *v, &m);
            let b = vertex_position(&sel.frame, &inst, *v, &direct);
            assert_eq!(a, b, "{k:?} {inst:?} {v:?}");
        }
    }
}

#[test]
fn terrain_upload_bytes_follow_camera_speed_not_terrain_size() {
    let cfg = small_cfg(6);
    let small = Heightmap::procedural(1024, 2);
    let huge = Heightmap::procedural(1 << 16, 2);
    let frames = 400;
    let total = |b: &[usize]| b[1..].iter().sum::<usize>() as f64;
    let (_, _, slow) = fly(cfg, &small, frames, 10.0, 3, 0);
    let (_, _, fast) = fly(cfg, &small, frames, 40.0, 3, 0);
    let (_, _, fast_huge) = fly(cfg, &huge, frames, 40.0, 3, 0);
    assert_eq!(fast, fast_huge, "bytes depend on the source size");
    let ratio = total(&fast) / total(&slow);
    eprintln!(
        "terrain upload: slow {:.0} B/frame, fast (4x) {:.0} B/frame, ratio {ratio:.2}",
        total(&slow) / (frames - 1) as f64,
        total(&fast) / (frames - 1) as f64
    );
    assert!(ratio > 3.0 && ratio < 5.0, "ratio {ratio}");
    // Standing still costs nothing.
    let mut st = HeightStreamer::new(cfg);
    let mut u = HeightUpdates::default();
    st.update(&small, DVec2::new(10.0, 10.0), &mut u);
    u.clear();
    assert_eq!(st.update(&small, DVec2::new(11.0, 12.0), &mut u), 0);
}

// ---------------------------------------------------------------------------------------------
// heightmaps and pyramid

#[test]
fn flat_heightmaps_are_zero_everywhere() {
    assert_eq!(
        HeightmapSpec::parse("flat:256").unwrap(),
        HeightmapSpec::Flat { size: 256 }
    );
    let flat = Heightmap::open(&HeightmapSpec::Flat { size: 64 }, Default::default()).unwrap();
    assert_eq!(flat.size(), (64, 64));
    assert_eq!(flat.height_at(300.5, 1000.25), 0.0);
    assert_eq!(flat.analytic_bound(0, 0, 63, 63), Some((0.0, 0.0)));
    for bad in ["flat:", "flat:8", "flat:64:1"] {
        let e = HeightmapSpec::parse(bad).unwrap_err().to_string();
        assert!(e.contains("bad heightmap"), "{e}");
    }
}

#[test]
fn terrain_spec_parses_cli_spelling() {
    assert_eq!(
        HeightmapSpec::parse("procedural:65536").unwrap(),
        HeightmapSpec::Procedural {
            size: 65536,
            seed: 1
        }
    );
    assert_eq!(
        HeightmapSpec::parse("procedural:1024:9").unwrap(),
        HeightmapSpec::Procedural {
            size: 1024,
            seed: 9
        }
    );
    assert_eq!(
        HeightmapSpec::parse("a/b.png").unwrap(),
        HeightmapSpec::Png("a/b.png".into())
    );
    for bad in [
        "procedural:",
        "procedural:abc",
        "procedural:4",
        "x.jpg",
        "",
        "procedural:64:1:2",
    ] {
        let e = HeightmapSpec::parse(bad).unwrap_err().to_string();
        assert!(e.contains("bad heightmap"), "{e}");
    }
    // Missing file and missing sidecar name the file.
    let e = Heightmap::open(
        &HeightmapSpec::Png("/nonexistent/h.png".into()),
        Default::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("/nonexistent/h.png"), "{e}");
    let dir = std::env::temp_dir().join(format!("lanthorn-terrain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("lonely.png");
    image::ImageBuffer::<image::Luma<u16>, _>::from_raw(2, 2, vec![0u16, 1, 2, 3])
        .unwrap()
        .save(&png)
        .unwrap();
    let e = Heightmap::load_png(&png, Default::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("lonely.png") && e.contains("sidecar"), "{e}");
    std::fs::write(
        dir.join("lonely.json"),
        r#"{"height_min_m": 5, "height_max_m": 1}"#,
    )
    .unwrap();
    let e = Heightmap::load_png(&png, Default::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("lonely.json") && e.contains("height_min_m"),
        "{e}"
    );
    // Heights whose range overflows (or beyond ±100 km) are refused, naming the field.
    for text in [
        r#"{"height_min_m": -1e308, "height_max_m": 1e308}"#,
        r#"{"height_min_m": 0, "height_max_m": 100001}"#,
    ] {
        std::fs::write(dir.join("lonely.json"), text).unwrap();
        let e = Heightmap::load_png(&png, Default::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("lonely.json") && e.contains("within ±100000 m"),
            "{e}"
        );
    }
    std::fs::write(
        dir.join("lonely.json"),
        r#"{"height_min_m": -10, "height_max_m": 10}"#,
    )
    .unwrap();
    let hm = Heightmap::load_png(
        &png,
        HeightmapOptions {
            horizontal_scale: Some(2.0),
            vertical_scale: Some(1.0),
        },
    )
    .unwrap();
    assert!((hm.sample(1, 1) - (-10.0 + 3.0 / 65535.0 * 20.0) as f32).abs() < 1e-5);
    assert_eq!(hm.height_at(2.0, 0.0), hm.sample(1, 0));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(Heightmap::from_f32(3, 3, vec![0.0; 8])
        .unwrap_err()
        .to_string()
        .contains("9 samples"));
}

fn require_realdata() -> bool {
    std::env::var("CI").map(|v| v == "true").unwrap_or(false)
        || std::env::var("LANTHORN_REQUIRE_GPU").is_ok()
}

#[test]
fn terrain_etopo5_decodes_like_its_sidecar() {
    let dir = lanthorn_testdata::realdata_dir().join("terrain");
    let png = dir.join("etopo5_4320x2161.png");
    if !png.is_file() {
        assert!(
            !require_realdata(),
            "ETOPO5 missing at {} (CI=true / LANTHORN_REQUIRE_GPU set)",
            png.display()
        );
        eprintln!(
            "!!! SKIPPED terrain_etopo5_decodes_like_its_sidecar: {} not found",
            png.display()
        );
        return;
    }
    let hm = Heightmap::load_png(
        &png,
        HeightmapOptions {
            horizontal_scale: Some(64.0),
            vertical_scale: Some(1.0),
        },
    )
    .unwrap();
    assert_eq!(hm.size(), (4320, 2161));
    assert!(hm.wrap_x);
    // Oracle: the PNG's raw values (decoded separately) and the sidecar's formula read as JSON.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("etopo5.json")).unwrap()).unwrap();
    let (lo, hi) = (
        json["height_min_m"].as_f64().unwrap(),
        json["height_max_m"].as_f64().unwrap(),
    );
    let raw = image::open(&png).unwrap().into_luma16();
    let mut r = Rng(5);
    let mut pts: Vec<(u32, u32)> = (0..50)
        .map(|_| (int(&mut r, 0, 4320) as u32, int(&mut r, 0, 2161) as u32))
        .collect();
    pts.extend([(0, 0), (4319, 2160), (2160, 1080)]);
    for (x, y) in pts {
        let v = raw.get_pixel(x, y).0[0];
        let m = lo + v as f64 / 65535.0 * (hi - lo);
        assert_eq!(hm.raw_u16(x, y), Some(v));
        assert!(
            (hm.sample(x as i64, y as i64) as f64 - m).abs() < 1e-3 * m.abs().max(1.0),
            "({x},{y})"
        );
    }
    // Geography (row 0 = south, column 0 = 0° going east, 12 samples per degree):
    let at = |lat: f64, lon: f64| {
        hm.sample(
            (lon * 12.0).round() as i64,
            ((lat + 90.0) * 12.0).round() as i64,
        )
    };
    assert!(
        at(33.0, 88.0) > 4000.0,
        "Tibetan plateau {}",
        at(33.0, 88.0)
    );
    assert!(
        at(0.0, 180.0) < -3000.0,
        "central Pacific {}",
        at(0.0, 180.0)
    );
    assert!(
        at(-33.0, 88.0) < -2000.0,
        "southern Indian Ocean {}",
        at(-33.0, 88.0)
    );
    assert!(
        at(-80.0, 30.0) > 1500.0,
        "Antarctic ice sheet {}",
        at(-80.0, 30.0)
    );
    let everest = hm.brute_min_max(
        (86.5 * 12.0) as i64,
        (117.5 * 12.0) as i64,
        (87.5 * 12.0) as i64,
        (118.5 * 12.0) as i64,
    );
    assert!(everest.1 > 6000.0, "Himalaya max {everest:?}");
    // Wraps in longitude, clamps in latitude.
    assert_eq!(hm.sample(-1, 700), hm.sample(4319, 700));
    assert_eq!(hm.sample(4320 + 5, 700), hm.sample(5, 700));
    assert_eq!(hm.sample(10, -3), hm.sample(10, 0));
    // Pyramid: exact on aligned blocks, conservative across the date line.
    let mut pyr = MinMaxPyramid::new(&hm);
    for _ in 0..30 {
        let p = int(&mut r, 0, 5) as u32;
        let side = pyramid::LEAF << p;
        let (bx, by) = (int(&mut r, 0, 4320 / side), int(&mut r, 0, 2161 / side));
        let b = pyr.block(&hm, p, bx, by);
        let bf = hm.brute_min_max(
            bx * side,
            by * side,
            (bx + 1) * side - 1,
            ((by + 1) * side - 1).min(2160),
        );
        assert_eq!((b[0], b[1]), bf);
    }
    let q = pyr.bounds_samples(&hm, 4300, 1000, 4340, 1030);
    let bf = hm.brute_min_max(4300, 1000, 4340, 1030);
    assert!(q.0 <= bf.0 && q.1 >= bf.1);
}

#[test]
fn terrain_procedural_is_deterministic_and_tiles_agree() {
    let a = Heightmap::procedural(1 << 16, 42);
    let b = Heightmap::procedural(1 << 16, 42);
    let c = Heightmap::procedural(1 << 16, 43);
    let mut r = Rng(3);
    let mut differs = 0;
    for _ in 0..1000 {
        let (x, y) = (
            int(&mut r, -1 << 40, 1 << 40),
            int(&mut r, -1 << 40, 1 << 40),
        );
        let v = a.sample(x, y);
        assert!(v.is_finite());
        assert_eq!(v, b.sample(x, y));
        differs += (v != c.sample(x, y)) as u32;
    }
    assert!(differs > 990);
    // Tiles generated separately agree on their shared border, for any level spacing.
    for spacing in [32.0, 64.0, 16.0, 256.0] {
        let (x0, y0) = (
            int(&mut r, -100_000, 100_000),
            int(&mut r, -100_000, 100_000),
        );
        let (mut t1, mut t2, mut whole) = (Vec::new(), Vec::new(), Vec::new());
        a.fill_grid(x0, y0, 65, 65, spacing, &mut t1);
        a.fill_grid(x0 + 64, y0, 65, 65, spacing, &mut t2);
        a.fill_grid(x0, y0, 129, 65, spacing, &mut whole);
        for y in 0..65 {
            assert_eq!(t1[y * 65 + 64], t2[y * 65], "shared border");
            for x in 0..65 {
                assert_eq!(t1[y * 65 + x], whole[y * 129 + x]);
                assert_eq!(t2[y * 65 + x], whole[y * 129 + 64 + x]);
            }
        }
    }
    // Varied terrain, not a constant.
    let (lo, hi) = a.brute_min_max(0, 0, 511, 511);
    assert!(hi - lo > 100.0, "{lo} {hi}");
    // The analytic bound holds on random rectangles.
    let noise = FractalNoise::for_size(1 << 16, 42);
    for _ in 0..200 {
        let (x, y) = (
            int(&mut r, -1 << 20, 1 << 20),
            int(&mut r, -1 << 20, 1 << 20),
        );
        let (w, h) = (int(&mut r, 1, 300), int(&mut r, 1, 300));
        let (lo, hi) = noise.bound(x, y, x + w, y + h);
        for yy in (y..=y + h).step_by(7) {
            for xx in (x..=x + w).step_by(5) {
                let v = noise.value(xx, yy);
                assert!(v >= lo - 1e-3 && v <= hi + 1e-3, "{v} not in {lo}..{hi}");
            }
        }
    }
}

#[test]
fn terrain_pyramid_matches_brute_force() {
    // Stored grid with odd size.
    let mut r = Rng(17);
    let (w, h) = (300u32, 211u32);
    let data: Vec<f32> = (0..w * h)
        .map(|_| r.range_f64(-500.0, 900.0) as f32)
        .collect();
    let hm = Heightmap::from_f32(w, h, data).unwrap();
    let mut pyr = MinMaxPyramid::new(&hm);
    for _ in 0..300 {
        let p = int(&mut r, 0, 5) as u32;
        let side = pyramid::LEAF << p;
        let (bx, by) = (
            int(&mut r, 0, (w as i64 + side - 1) / side),
            int(&mut r, 0, (h as i64 + side - 1) / side),
        );
        let b = pyr.block(&hm, p, bx, by);
        let bf = hm.brute_min_max(
            bx * side,
            by * side,
            ((bx + 1) * side - 1).min(w as i64 - 1),
            ((by + 1) * side - 1).min(h as i64 - 1),
        );
        assert_eq!((b[0], b[1]), bf, "block {p} {bx} {by}");
    }
    for _ in 0..300 {
        let (x0, y0) = (int(&mut r, -50, 350), int(&mut r, -50, 260));
        let (x1, y1) = (x0 + int(&mut r, 0, 120), y0 + int(&mut r, 0, 120));
        let q = pyr.bounds_samples(&hm, x0, y0, x1, y1);
        let bf = hm.brute_min_max(x0, y0, x1, y1);
        assert!(q.0 <= bf.0 && q.1 >= bf.1, "{q:?} does not contain {bf:?}");
    }
    // Procedural: lazy, exact up to exact_side, conservative above, memory follows use.
    let hm = Heightmap::procedural(1 << 16, 9);
    let mut pyr = MinMaxPyramid::new(&hm);
    pyr.exact_side = 64;
    for _ in 0..40 {
        let p = int(&mut r, 0, 3) as u32; // 16, 32, 64 samples: exact
        let side = pyramid::LEAF << p;
        let (bx, by) = (int(&mut r, -5000, 5000), int(&mut r, -5000, 5000));
        let b = pyr.block(&hm, p, bx, by);
        let bf = hm.brute_min_max(
            bx * side,
            by * side,
            (bx + 1) * side - 1,
            (by + 1) * side - 1,
        );
        assert_eq!((b[0], b[1]), bf);
    }
    for _ in 0..20 {
        let (x0, y0) = (
            int(&mut r, -1 << 20, 1 << 20),
            int(&mut r, -1 << 20, 1 << 20),
        );
        let (x1, y1) = (x0 + int(&mut r, 0, 700), y0 + int(&mut r, 0, 700));
        let q = pyr.bounds_samples(&hm, x0, y0, x1, y1);
        let bf = hm.brute_min_max(x0, y0, x1, y1);
        assert!(q.0 <= bf.0 && q.1 >= bf.1, "{q:?} does not contain {bf:?}");
    }
    assert!(pyr.memory_bytes() < 1 << 20);
    // The default lazy pyramid (analytic blocks) is conservative and not absurdly loose.
    let mut pyr = MinMaxPyramid::new(&hm);
    let mut slack = 0.0f64;
    for _ in 0..60 {
        let (x0, y0) = (
            int(&mut r, -1 << 20, 1 << 20),
            int(&mut r, -1 << 20, 1 << 20),
        );
        let (x1, y1) = (x0 + int(&mut r, 0, 64), y0 + int(&mut r, 0, 64));
        let q = pyr.bounds_samples(&hm, x0, y0, x1, y1);
        let bf = hm.brute_min_max(x0, y0, x1, y1);
        assert!(q.0 <= bf.0 && q.1 >= bf.1, "{q:?} does not contain {bf:?}");
        slack += ((q.1 - q.0) - (bf.1 - bf.0)) as f64;
    }
    let (lo, hi) = hm
        .analytic_bound(-(1 << 40), -(1 << 40), 1 << 40, 1 << 40)
        .unwrap();
    eprintln!(
        "analytic pyramid: mean slack {:.0} units vs global range {:.0}",
        slack / 60.0,
        hi - lo
    );
    assert!(slack / 60.0 < 0.5 * (hi - lo) as f64);
}

// ---------------------------------------------------------------------------------------------
// the per-frame facade

fn check_frame_against_source(t: &mut ClipmapTerrain, cams: &[Camera]) {
    let cfg = *t.config();
    let mut model = WindowTextureModel::new(&cfg);
    for (i, cam) in cams.iter().enumerate() {
        let f = t.frame(cam);
        if i == 0 {
            let active = (cfg.levels - f.selection.first_level) as usize;
            assert_eq!(
                f.updates.bytes(),
                t.window_bytes() / cfg.levels as usize * active
            );
        }
        let f = t.frame(cam);
        assert_eq!(f.updates.bytes(), 0, "same camera twice streams nothing");
        let kinds = MeshKind::ALL
            .iter()
            .filter(|k| !f.selection.of_kind(**k).is_empty())
            .count();
        assert!((1..=6).contains(&kinds));
        let sel = f.selection.clone();
        // Replay the streamed writes into a model (re-run the first frame's full fill).
        let mut st = HeightStreamer::new(cfg);
        let mut u = HeightUpdates::default();
        st.update(&t.heightmap, cam.position.as_dvec3().truncate(), &mut u);
        model.apply(&u);
        let direct = DirectHeights {
            hm: &t.heightmap,
            cfg,
        };
        for (k, inst) in pieces(&sel) {
            for v in t.meshes.get(k).vertices.iter().step_by(7) {
                assert_eq!(
                    vertex_position(&sel.frame, &inst, *v, &model),
                    vertex_position(&sel.frame, &inst, *v, &direct),
                    "{k:?} {inst:?}"
                );
            }
        }
    }
}

#[test]
fn terrain_facade_streams_and_selects_procedural() {
    let hm = Heightmap::procedural(1 << 16, 4);
    let spec = ClipmapTerrain::suggested_camera(&hm);
    assert!(spec.position.z > hm.height_at(spec.position.x as f64, spec.position.y as f64));
    let cfg = ClipmapConfig::new(6, 63, 32.0).unwrap();
    let mut t = ClipmapTerrain::new(hm, cfg).unwrap();
    let c = Camera::new(spec, 16.0 / 9.0);
    let mut c2 = c;
    c2.position.x += 500.0;
    check_frame_against_source(&mut t, &[c, c2]);
}

#[test]
fn terrain_facade_on_etopo5_wraps_at_the_date_line() {
    let png = lanthorn_testdata::realdata_dir().join("terrain/etopo5_4320x2161.png");
    if !png.is_file() {
        assert!(!require_realdata(), "ETOPO5 missing at {}", png.display());
        eprintln!(
            "!!! SKIPPED terrain_facade_on_etopo5_wraps_at_the_date_line: {} not found",
            png.display()
        );
        return;
    }
    let hm = Heightmap::open(&HeightmapSpec::Png(png), HeightmapOptions::default()).unwrap();
    let cfg = ClipmapConfig::new(5, 63, hm.horizontal_scale).unwrap();
    let mut t = ClipmapTerrain::new(hm, cfg).unwrap();
    // Over longitude 0 (the wrap) and over the Himalaya.
    let c0 = Camera::new(
        CameraSpec {
            position: Vec3::new(10.0, 64.0 * 1100.0, 3000.0),
            yaw: 180.0,
            pitch: -20.0,
        },
        1.5,
    );
    let c1 = Camera::new(
        CameraSpec {
            position: Vec3::new(64.0 * 1043.0, 64.0 * 1416.0, 5000.0),
            yaw: 0.0,
            pitch: -20.0,
        },
        1.5,
    );
    check_frame_against_source(&mut t, &[c0, c1]);
    let direct = DirectHeights {
        hm: &t.heightmap,
        cfg,
    };
    // West of longitude 0 is the far east of the map.
    assert_eq!(direct.fetch(0, -3, 1100), t.heightmap.sample(4317, 1100));
}

#[test]
fn terrain_vertex_wgsl_validates_with_naga() {
    // The WGSL twin of the CPU reference parses and validates on its own, inside a vertex entry
    // point.
    let src = format!(
        "{}\n{}",
        vertex::VERTEX_WGSL,
        r#"
@group(0) @binding(0) var<uniform> frame: TerrainFrame;
@group(0) @binding(1) var heights: texture_2d_array<f32>;
@group(0) @binding(2) var<storage, read> instances: array<TerrainInstance>;
struct Out { @builtin(position) pos: vec4<f32>, @location(0) n: vec3<f32> }
@vertex fn vs(@location(0) local: vec2<i32>, @builtin(instance_index) ii: u32) -> Out {
    let inst = instances[ii];
    let p = terrain_vertex(heights, frame, inst, local);
    var o: Out;
    o.pos = vec4<f32>(p, 1.0);
    o.n = terrain_normal(heights, frame, inst.level, terrain_grid_point(inst, local));
    return o;
}
"#
    );
    let module =
        naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{}", e.emit_to_string(&src)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{e:?}"));
    // Its struct layouts against the Rust twins: render::shader_layout.
}

#[test]
fn terrain_high_cameras_drop_fine_levels() {
    let hm = flat();
    let cfg = small_cfg(6);
    let meshes = ClipmapMeshes::new(&cfg);
    // Level l's square is 30 · 8 · 2^l units wide; it stays while that is ≥ 2.5 × height.
    for (z, want) in [
        (10.0, 0u32),
        (95.0, 0),
        (97.0, 1),
        (1000.0, 4),
        (1e6, 5),
        (-50.0, 0),
    ] {
        let sel = select_all(cfg, &camera_at(123.0, -77.0, z, 0.0, -30.0), &hm);
        assert_eq!(sel.first_level, want, "height {z}");
        assert_eq!(sel.stats.levels, cfg.levels - want);
        let sq = check_footprint(&cfg, &sel, &meshes);
        assert_eq!(sq.len() as u32, cfg.levels - want);
        assert_eq!(sel.of_kind(MeshKind::Cross).len(), 1);
        assert_eq!(sel.of_kind(MeshKind::Cross)[0].level, want);
        assert_eq!(
            sel.of_kind(MeshKind::Tile).len(),
            16 + 12 * (cfg.levels - want - 1) as usize
        );
    }
    // Inactive levels are not streamed, and come back with a full refill.
    let mut st = HeightStreamer::new(cfg);
    let mut u = HeightUpdates::default();
    let n = cfg.window_size() as usize;
    assert_eq!(st.update_from(&hm, DVec2::ZERO, 3, &mut u), 3 * n * n * 4);
    assert!(st.origins()[..3].iter().all(|o| o.is_none()));
    u.clear();
    assert_eq!(st.update_from(&hm, DVec2::ZERO, 1, &mut u), 2 * n * n * 4);
    let mut m = WindowTextureModel::new(&cfg);
    let mut all = HeightUpdates::default();
    let mut st2 = HeightStreamer::new(cfg);
    st2.update(&hm, DVec2::ZERO, &mut all);
    m.apply(&all);
    assert_eq!(m, WindowTextureModel::full_fill(&cfg, &hm, DVec2::ZERO));
    // Hysteresis: a level dropped going up needs 20 % more height than it needs to come back.
    let mut pyr = MinMaxPyramid::new(&hm);
    let mut s = ClipmapSelector::new(cfg).unwrap();
    let mut at = |z: f64| {
        s.select(&camera_at(0.0, 0.0, z, 0.0, 0.0), &hm, &mut pyr)
            .first_level
    };
    assert_eq!(at(90.0), 0);
    assert_eq!(at(100.0), 0, "just above the threshold (96): kept");
    assert_eq!(at(110.0), 0);
    assert_eq!(at(120.0), 1, "20 % above: dropped");
    assert_eq!(at(110.0), 1, "stays dropped until below the threshold");
    assert_eq!(at(95.0), 0, "back as soon as it is needed");
    // No active-level switching when the factor is 0.
    let mut c0 = cfg;
    c0.active_height_factor = 0.0;
    assert_eq!(
        select_all(c0, &camera_at(0.0, 0.0, 1e6, 0.0, 0.0), &hm).first_level,
        0
    );
}

#[test]
fn terrain_bench_flight_reports_cpu_figures() {
    let hm = Heightmap::procedural(4096, 8);
    let path = fixed_flight(&hm, 2000);
    assert_eq!(path, fixed_flight(&hm, 2000), "deterministic");
    for s in &path {
        let ground = hm.height_at(s.position.x as f64, s.position.y as f64);
        assert!((s.position.z - ground - 300.0).abs() < 1.0);
    }
    let cfg = ClipmapConfig::new(6, 63, hm.horizontal_scale).unwrap();
    let mut t = ClipmapTerrain::new(hm, cfg).unwrap();
    let st = t.bench_flight(&path, 16.0 / 9.0);
    eprintln!("{st:?}");
    assert_eq!(st.frames, 2000);
    assert!(
        st.terrain_draw_calls_max >= 3 && st.terrain_draw_calls_max <= clipmap::MAX_DRAWS,
        "{st:?}"
    );
    assert!(st.terrain_triangles_median > 1000);
    assert!(
        st.upload_bytes_per_frame_median < st.window_bytes / 4,
        "{st:?}"
    );
    assert!(st.clipmap_select_us_median > 0.0);
    let json = serde_json::to_value(&st).unwrap();
    assert!(json.get("upload_bytes_per_frame_median").is_some());
}

/// A level's detail is what its vertices add over the next coarser level: none on a plane; on
/// stripes of height `a` at every odd column, `a` at level 0 (edge midpoints across the
/// stripes and cell centres, two thirds of the odd vertices, are `a` off; midpoints along them
/// 0) and none at level 1 (its
/// vertices are the even columns). The grid follows: a plane gets 127; stripes whose detail
/// projects past the bound keep 255, as does the SSE oracle's rough heightmap; a gentler copy
/// of it (the keep's vertical scale, 0.4) gets 127.
#[test]
fn the_grid_is_sized_by_the_heightmap_detail() {
    let (w, h) = (257u32, 129u32);
    let raw = |f: &dyn Fn(u32, u32) -> f32| {
        let data = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| f(x, y))
            .collect();
        Heightmap::from_f32(w, h, data).unwrap()
    };
    let plane = raw(&|x, y| 3.0 * x as f32 - 2.0 * y as f32);
    for l in 0..4 {
        assert!(
            state::level_detail(&plane, l).abs() < 1e-3,
            "plane level {l}"
        );
    }
    assert_eq!(ClipmapConfig::grid_for_detail(&plane), 127);
    let a = 40.0;
    let stripes = raw(&|x, _| if x % 2 == 1 { a } else { 0.0 });
    // Every edge midpoint across the stripes and every centre is `a` off: two thirds of the
    // errors, so the 90th percentile is `a`.
    assert!((state::level_detail(&stripes, 0) - a as f64).abs() < 1e-3);
    assert!(state::level_detail(&stripes, 1).abs() < 1e-3);
    assert_eq!(ClipmapConfig::grid_for_detail(&stripes), 255);
    let rough = Heightmap::procedural(1024, 11);
    assert_eq!(ClipmapConfig::for_heightmap(&rough).grid, 255);
    let gentle = Heightmap::procedural(1024, 11).with_scales(32.0, 0.4);
    assert_eq!(ClipmapConfig::for_heightmap(&gentle).grid, 127);
}
