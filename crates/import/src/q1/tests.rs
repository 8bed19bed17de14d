//! Tests against the id maps' own data (../shared/realdata/quake/bsp).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use glam::{DVec3, Vec3};

use super::lumps::{self, i32_at};
use super::*;
use lanthorn_level::Level;

/// Real data is required on CI (`CI=true`) or GPU runs (`LANTHORN_REQUIRE_GPU=1`); elsewhere a
/// missing folder skips the test loudly.
fn require_realdata(what: &str) -> bool {
    let dir = lanthorn_testdata::realdata_dir().join("quake/bsp");
    if dir.join("e1m1.bsp").is_file() {
        return true;
    }
    let required = std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("LANTHORN_REQUIRE_GPU").is_ok_and(|v| v == "1");
    if required {
        panic!(
            "{what}: real data missing at {} (required because CI=true or LANTHORN_REQUIRE_GPU=1)",
            dir.display()
        );
    }
    eprintln!(
        "\n!!!!! SKIPPED {what}: no Quake maps at {} !!!!!\n",
        dir.display()
    );
    false
}

struct Map {
    name: String,
    bytes: Vec<u8>,
    level: Level,
    ms: f64,
}

/// All id maps, imported once (through `level::load`, so the `.bsp` dispatch is covered).
fn maps() -> &'static [Map] {
    static MAPS: OnceLock<Vec<Map>> = OnceLock::new();
    MAPS.get_or_init(|| {
        let dir = lanthorn_testdata::realdata_dir().join("quake/bsp");
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|r| {
                r.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "bsp"))
                    .collect()
            })
            .unwrap_or_default();
        paths.sort();
        paths
            .into_iter()
            .map(|p| {
                let bytes = std::fs::read(&p).unwrap();
                let t = Instant::now();
                let level = lanthorn_load::load(&p).unwrap_or_else(|e| panic!("{e}"));
                let ms = t.elapsed().as_secs_f64() * 1e3;
                Map {
                    name: p.file_stem().unwrap().to_string_lossy().into_owned(),
                    bytes,
                    level,
                    ms,
                }
            })
            .collect()
    })
}

fn e1m1() -> Vec<u8> {
    std::fs::read(lanthorn_testdata::realdata_dir().join("quake/bsp/e1m1.bsp")).unwrap()
}

#[test]
fn every_id_map_imports_with_sane_counts() {
    if !require_realdata("every_id_map_imports_with_sane_counts") {
        return;
    }
    let maps = maps();
    assert_eq!(
        maps.len(),
        22,
        "expected the 22 id maps (episodes 1 and 2, dm1–dm6, start)"
    );
    for m in maps {
        let l = &m.level;
        check_indices(l).unwrap();
        let lu = lumps::read(&m.bytes, &m.name).unwrap();
        eprintln!(
            "{:6} cells {:5} (planes/cell {:.1}) portals {:5} surfaces {:5} objects {:3} materials {:3} atlas {}x{} unlit {:3} import {:.1} ms",
            m.name,
            l.cells.len(),
            l.cells.iter().map(|c| c.planes.len()).sum::<usize>() as f64 / l.cells.len() as f64,
            l.portals.len(),
            l.surfaces.len(),
            l.objects.len(),
            l.materials.len(),
            l.lightmaps.width,
            l.lightmaps.height,
            l.surfaces.iter().filter(|s| s.lightmap.is_some_and(|r| r.width == 1 && r.height == 1)).count(),
            m.ms
        );
        assert_eq!(l.surfaces.len(), lu.faces.len());
        // Every brush model but the world and the triggers' (Quake never draws those).
        let triggers = l
            .entities
            .iter()
            .filter(|e| e.classname().starts_with("trigger_") && e.get("model").is_some())
            .count();
        assert!(triggers > 0, "{}: every id map has triggers", m.name);
        // And those a normal-skill game leaves out (spawnflags 512, episode gates).
        let rules = lanthorn_level::spawn::SpawnRules::default();
        let left_out = l
            .entities
            .iter()
            .filter(|e| !e.classname().starts_with("trigger_") && e.get("model").is_some())
            .filter(|e| rules.removes(e))
            .count();
        assert_eq!(
            l.objects.len(),
            lu.models.len() - 1 - triggers - left_out,
            "{}",
            m.name
        );
        assert!(l.objects.iter().all(|o| o
            .entity
            .is_none_or(|e| !l.entities[e as usize].classname().starts_with("trigger_"))));
        assert!(l.cells.len() > 100 && l.cells.len() < lu.leafs.len());
        assert!(
            l.portals.len() > l.cells.len(),
            "{}: too few portals",
            m.name
        );
        assert!(l
            .entities
            .first()
            .is_some_and(|e| e.classname() == "worldspawn"));
        assert!(l.player_start().is_some());
        let has_sky_surface = l
            .surfaces
            .iter()
            .any(|s| s.flags & lanthorn_level::surface_flags::SKY != 0);
        assert_eq!(l.sky.is_some(), has_sky_surface, "{}", m.name);
        if let Some(sky) = &l.sky {
            assert!(l.materials[sky.material.unwrap() as usize]
                .name
                .starts_with("sky"));
        }
        if m.name == "e1m1" {
            assert!(has_sky_surface);
        }
        assert!(l.pvs.is_some());
        assert!(l.materials.iter().all(|mat| mat
            .texels
            .as_ref()
            .is_some_and(|t| t.len() == (mat.width * mat.height * 4) as usize)));
        every_face_in_one_place(&m.name, l, &lu);
        assert!(
            l.objects.iter().filter(|o| o.entity.is_some()).count() * 10 >= l.objects.len() * 9
        );
    }
}

/// Every world face is listed by some cell, object faces by none; a cell's portals name it.
fn every_face_in_one_place(name: &str, l: &Level, lu: &lumps::Lumps) {
    // Every world face is listed by some cell; object faces by none.
    let mut listed = vec![false; l.surfaces.len()];
    for c in &l.cells {
        assert!(!c.planes.is_empty() && !c.aabb.is_empty());
        for &s in &c.surfaces {
            listed[s as usize] = true;
        }
        for &p in &c.portals {
            let p = &l.portals[p as usize];
            assert!(
                std::ptr::eq(&l.cells[p.front as usize], c)
                    || std::ptr::eq(&l.cells[p.back as usize], c)
            );
        }
    }
    let world = lu.models[0].num_faces as usize;
    let unlisted_world = listed[..world].iter().filter(|x| !**x).count();
    assert!(
        unlisted_world == 0,
        "{}: {unlisted_world} of {world} world faces in no cell",
        name
    );
    for o in &l.objects {
        assert!(o.surfaces.iter().all(|&s| !listed[s as usize]));
    }
}

/// Every face of every id map is triangulated without flat triangles and its triangles cover
/// exactly its outline (Quake's outlines carry collinear T-junction vertices: a fan from
/// vertex 0 made 13 % of the triangles flat).
#[test]
fn every_face_is_triangulated_without_flat_triangles() {
    if !require_realdata("quake/bsp") {
        return;
    }
    for m in maps() {
        let bad: Vec<String> = m
            .level
            .surfaces
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                Some(format!(
                    "face {i}: {}",
                    lanthorn_testdata::bad_triangulation(s)?
                ))
            })
            .collect();
        assert!(
            bad.is_empty(),
            "{}: {} faces, first {:?}",
            m.name,
            bad.len(),
            &bad[..bad.len().min(3)]
        );
    }
}

#[test]
fn surfaces_wind_ccw_and_lightmap_uvs_stay_in_their_rects() {
    if !require_realdata("surfaces_wind_ccw_and_lightmap_uvs_stay_in_their_rects") {
        return;
    }
    for m in maps() {
        let l = &m.level;
        let (mut lit, mut tris) = (0, 0);
        for (i, s) in l.surfaces.iter().enumerate() {
            assert!((s.normal.length() - 1.0).abs() < 1e-3);
            for t in s.indices.chunks(3) {
                let [a, b, c] = [0, 1, 2].map(|k| s.vertices[t[k] as usize].position);
                let n = (b - a).cross(c - a);
                // Skip slivers of collinear boundary vertices (their sign is rounding noise).
                if n.length() > 1e-2 * (b - a).length() * (c - a).length() {
                    assert!(
                        n.normalize().dot(s.normal) > 0.99,
                        "{} surface {i}: triangle wound clockwise",
                        m.name
                    );
                    tris += 1;
                }
            }
            if let Some(r) = s.lightmap {
                lit += 1;
                assert!(r.x + r.width <= l.lightmaps.width && r.y + r.height <= l.lightmaps.height);
                for v in &s.vertices {
                    let uv = v.lightmap_uv;
                    assert!(
                        uv.x >= 0.5 - 1e-3
                            && uv.y >= 0.5 - 1e-3
                            && uv.x <= r.width as f32 - 0.5 + 1e-3
                            && uv.y <= r.height as f32 - 0.5 + 1e-3,
                        "{} surface {i}: lightmap uv {uv} outside its {}x{} rect",
                        m.name,
                        r.width,
                        r.height
                    );
                }
            } else {
                assert!(
                    s.flags
                        & (lanthorn_level::surface_flags::SKY
                            | lanthorn_level::surface_flags::LIQUID)
                        != 0,
                    "{} surface {i} unlit",
                    m.name
                );
            }
        }
        assert!(lit * 2 > l.surfaces.len() && tris > 0);
    }
}

/// The oracle: id's light tool stored each lit face's `size × styles` bytes back to back, each
/// block starting at a multiple of 4 bytes, so offsets recomputed from our extents must tile
/// the lighting lump exactly (up to that alignment).
fn lighting_mismatches(bytes: &[u8], name: &str, grow: i64) -> (usize, usize) {
    lighting_mismatches_spaced(bytes, name, grow, &|_| 16.0)
}

/// `lighting_mismatches` with face `i`'s luxels `spacing(i)` texture units apart.
pub(super) fn lighting_mismatches_spaced(
    bytes: &[u8],
    name: &str,
    grow: i64,
    spacing: &dyn Fn(usize) -> f64,
) -> (usize, usize) {
    let l = lumps::read(bytes, name).unwrap();
    let mut spans = Vec::new();
    for (i, f) in l.faces.iter().enumerate() {
        if f.light_ofs < 0 {
            continue;
        }
        let g = faces::face_geom(&l, i, usize::MAX, name).unwrap();
        let e = faces::extents(&g.texinfo, &g.points, spacing(i));
        let size = (e.size[0] + grow) * (e.size[1]);
        spans.push((f.light_ofs as i64, size * faces::style_count(f) as i64));
    }
    spans.sort();
    let mut bad = 0;
    for w in spans.windows(2) {
        if (w[0].0 + w[0].1 + 3) & !3 != w[1].0 {
            bad += 1;
        }
    }
    let (last_ofs, last_len) = *spans.last().unwrap();
    let tail = l.lighting.len() as i64 - (last_ofs + last_len);
    if !(0..4).contains(&tail) {
        bad += 1;
    }
    if spans[0].0 != 0 {
        bad += 1;
    }
    (bad, spans.len())
}

#[test]
fn recomputed_extents_reproduce_lighting_offsets() {
    if !require_realdata("recomputed_extents_reproduce_lighting_offsets") {
        return;
    }
    for m in maps() {
        let (bad, n) = lighting_mismatches(&m.bytes, &m.name, 0);
        assert_eq!(
            bad, 0,
            "{}: {bad} of {n} lit faces do not tile the lighting lump",
            m.name
        );
        // The check can fail: one luxel more per row breaks the tiling.
        let (bad_grown, _) = lighting_mismatches(&m.bytes, &m.name, 1);
        assert!(
            bad_grown > n / 2,
            "{}: perturbed extents went unnoticed",
            m.name
        );
    }
}

#[test]
fn portals_join_open_leaves_on_both_boundaries() {
    if !require_realdata("portals_join_open_leaves_on_both_boundaries") {
        return;
    }
    for m in maps() {
        let l = &m.level;
        let lu = lumps::read(&m.bytes, &m.name).unwrap();
        let tree = tree::build(&lu, &m.name).unwrap();
        let (mut worst_plane, mut worst_cell, mut worst_box) = (0f32, 0f32, 0f32);
        for (i, p) in l.portals.iter().enumerate() {
            assert_ne!(p.front, p.back, "{} portal {i}", m.name);
            for c in [p.front, p.back] {
                let leaf = &lu.leafs[tree.cell_leaf[c as usize] as usize];
                assert!(
                    leaf.contents != tree::CONTENTS_SOLID,
                    "{} portal {i} touches a solid leaf",
                    m.name
                );
            }
            assert!(p.polygon.len() >= 3);
            for &v in &p.polygon {
                worst_plane = worst_plane.max(p.plane.distance(v).abs());
                for c in [p.front, p.back] {
                    let cell = &l.cells[c as usize];
                    for pl in &cell.planes {
                        worst_cell = worst_cell.max(-pl.distance(v));
                    }
                    let out = (cell.aabb.min - v).max(v - cell.aabb.max).max_element();
                    worst_box = worst_box.max(out);
                }
            }
            // The front cell is on the plane's positive side: a point just off the centroid.
            let ctr = p.polygon.iter().copied().sum::<Vec3>() / p.polygon.len() as f32;
            let fc = &l.cells[p.front as usize];
            assert!(
                fc.contains(ctr + p.plane.normal * 0.01, 0.05)
                    && l.cells[p.back as usize].contains(ctr - p.plane.normal * 0.01, 0.05)
            );
        }
        assert!(
            worst_plane < 0.01,
            "{}: portal vertex {worst_plane} off its plane",
            m.name
        );
        assert!(
            worst_cell < 0.05,
            "{}: portal vertex {worst_cell} outside a cell",
            m.name
        );
        // Independent oracle: qbsp's own leaf bounds contain our portals.
        assert!(
            worst_box < 0.01,
            "{}: portal vertex {worst_box} outside its cell's leaf bounds",
            m.name
        );
    }
}

fn reachable(l: &Level, from: u32) -> Vec<bool> {
    let mut seen = vec![false; l.cells.len()];
    let mut q = VecDeque::from([from]);
    seen[from as usize] = true;
    while let Some(c) = q.pop_front() {
        for &p in &l.cells[c as usize].portals {
            let o = l.portals[p as usize].other(c);
            if !seen[o as usize] {
                seen[o as usize] = true;
                q.push_back(o);
            }
        }
    }
    seen
}

#[test]
fn pvs_is_reachable_through_portals_and_neighbours_see_each_other() {
    if !require_realdata("pvs_is_reachable_through_portals_and_neighbours_see_each_other") {
        return;
    }
    for m in maps() {
        let l = &m.level;
        let pvs = l.pvs.as_ref().unwrap();
        let n = l.cells.len() as u32;
        let mut visible_total = 0usize;
        for c in 0..n {
            let r = reachable(l, c);
            for to in 0..n {
                if pvs.visible(c, to) {
                    visible_total += 1;
                    assert!(
                        r[to as usize],
                        "{}: cell {to} is in cell {c}'s PVS but not reachable through portals",
                        m.name
                    );
                }
            }
        }
        // The PVS is a real restriction, not "everything".
        assert!(visible_total < (n as usize * n as usize) / 2, "{}", m.name);
        // qbsp/vis always mark leaves sharing a portal of the same contents as visible.
        let mut missing = 0;
        let lu = lumps::read(&m.bytes, &m.name).unwrap();
        let tree = tree::build(&lu, &m.name).unwrap();
        let contents = |c: u32| lu.leafs[tree.cell_leaf[c as usize] as usize].contents;
        let mut same = 0;
        for (i, p) in l.portals.iter().enumerate() {
            // Sky leaves excluded: vis does not keep their neighbours visible.
            if contents(p.front) == contents(p.back) && contents(p.front) != -6 {
                same += 1;
                if !(pvs.visible(p.front, p.back) && pvs.visible(p.back, p.front)) {
                    missing += 1;
                    if missing < 5 {
                        let area = lanthorn_geom::DPolygon::new(
                            p.polygon.iter().map(|v| v.as_dvec3()).collect(),
                        )
                        .area();
                        eprintln!(
                            "  portal {i} cells {} {} contents {} area {area}",
                            p.front,
                            p.back,
                            contents(p.front)
                        );
                    }
                }
            }
        }
        eprintln!(
            "{}: {missing} of {same} same-contents portals join cells the PVS keeps apart ({} portals)",
            m.name,
            l.portals.len()
        );
        assert!(
            missing * 200 <= l.portals.len(),
            "{}: {missing} portals between mutually invisible cells",
            m.name
        );
    }
}

#[test]
fn locate_returns_the_cell_of_points_inside_it() {
    if !require_realdata("locate_returns_the_cell_of_points_inside_it") {
        return;
    }
    let mut seed = 0x1234_5678u64;
    let mut rnd = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    for m in maps() {
        let l = &m.level;
        let (mut tested, mut cells_hit) = (0, 0);
        for (ci, c) in l.cells.iter().enumerate() {
            let inside = |p: Vec3| c.planes.iter().all(|pl| pl.distance(p) >= 0.05);
            let mut samples: Vec<Vec3> = Vec::new();
            for &pi in &c.portals {
                let p = &l.portals[pi as usize];
                let ctr = p.polygon.iter().copied().sum::<Vec3>() / p.polygon.len() as f32;
                let s = if p.front == ci as u32 { 0.5 } else { -0.5 };
                samples.push(ctr + p.plane.normal * s);
            }
            for _ in 0..20 {
                let t = Vec3::new(rnd(), rnd(), rnd());
                samples.push(c.aabb.min + (c.aabb.max - c.aabb.min) * t);
            }
            let before = tested;
            for p in samples.into_iter().filter(|&p| inside(p)) {
                assert_eq!(
                    l.locate(p),
                    Some(ci as u32),
                    "{}: {p} inside cell {ci}",
                    m.name
                );
                tested += 1;
            }
            cells_hit += (tested > before) as usize;
        }
        assert!(
            cells_hit * 10 >= l.cells.len() * 8,
            "{}: only {cells_hit} of {} cells sampled",
            m.name,
            l.cells.len()
        );
    }
}

#[test]
fn cells_lie_in_front_of_their_surfaces() {
    if !require_realdata("cells_lie_in_front_of_their_surfaces") {
        return;
    }
    for m in maps() {
        let l = &m.level;
        let (mut bad, mut total) = (0, 0);
        for c in &l.cells {
            let pts: Vec<Vec3> = c
                .portals
                .iter()
                .flat_map(|&p| l.portals[p as usize].polygon.iter().copied())
                .collect();
            for &s in &c.surfaces {
                let s = &l.surfaces[s as usize];
                let d = s.normal.dot(s.vertices[0].position);
                total += 1;
                if pts.iter().any(|p| s.normal.dot(*p) - d < -0.1) {
                    bad += 1;
                }
            }
        }
        assert!(
            bad == 0,
            "{}: {bad} of {total} cell surfaces face away from their cell",
            m.name
        );
    }
}

/// Every lit face keeps all its light style maps: the surface's styles are the face record's
/// four style bytes (read straight from the file: faces lump, 20-byte records, styles at byte
/// 12, light offset at 16), and atlas layer `k` at the surface's rect holds the lighting
/// lump's `k`-th block of the face, luxel for luxel. start.bsp alone has faces with 1–3 styles.
#[test]
fn every_style_map_of_a_face_lands_in_its_atlas_layer() {
    if !require_realdata("every_style_map_of_a_face_lands_in_its_atlas_layer") {
        return;
    }
    let mut multi = 0;
    for m in maps() {
        let (faces_at, faces_len) = lump_range(&m.bytes, 7);
        let (light_at, light_len) = lump_range(&m.bytes, 8);
        let lm = &m.level.lightmaps;
        let layer = (lm.width * lm.height * 3) as usize;
        for i in 0..faces_len / 20 {
            let rec = &m.bytes[faces_at + 20 * i..faces_at + 20 * (i + 1)];
            let styles: [u8; 4] = rec[12..16].try_into().unwrap();
            let ofs = i32_at(rec, 16);
            let s = &m.level.surfaces[i];
            let Some(r) = s.lightmap else { continue };
            if ofs < 0 || styles[0] == 255 || r.width * r.height == 1 {
                continue;
            }
            assert_eq!(s.styles.0, styles, "{} face {i}", m.name);
            let n = (r.width * r.height) as usize;
            let count = styles.iter().take_while(|&&x| x != 255).count();
            multi += (count > 1) as usize;
            for k in 0..count {
                for j in 0..r.height as usize {
                    for x in 0..r.width as usize {
                        // Luxels past the end of the lump are black (e2m6's last face runs
                        // 11 bytes past it; the importer warns).
                        let byte = ofs as usize + k * n + j * r.width as usize + x;
                        let want = if byte < light_len {
                            m.bytes[light_at + byte]
                        } else {
                            0
                        };
                        let at = k * layer
                            + (((r.y as usize + j) * lm.width as usize) + r.x as usize + x) * 3;
                        assert_eq!(
                            &lm.texels[at..at + 3],
                            &[want; 3],
                            "{} face {i} style slot {k} luxel ({x}, {j})",
                            m.name
                        );
                    }
                }
            }
        }
    }
    assert!(multi > 500, "only {multi} faces with several styles");
}

/// A face naming a style beyond Quake's 64 is one error naming the face, slot and style.
#[test]
fn a_style_beyond_63_is_an_error_naming_the_face() {
    if !require_realdata("a_style_beyond_63_is_an_error_naming_the_face") {
        return;
    }
    let mut bytes = e1m1();
    let (faces_at, faces_len) = lump_range(&bytes, 7);
    let i = (0..faces_len / 20)
        .find(|&i| {
            i32_at(&bytes, faces_at + 20 * i + 16) >= 0 && bytes[faces_at + 20 * i + 13] == 255
        })
        .unwrap();
    bytes[faces_at + 20 * i + 13] = 200;
    let e = from_bytes(&bytes, "x.bsp").unwrap_err().to_string();
    assert!(
        e.contains(&format!(
            "x.bsp: corrupt faces lump: face {i}: light style 200 in slot 1 is not below 64"
        )),
        "{e}"
    );
}

fn lump_range(bytes: &[u8], lump: usize) -> (usize, usize) {
    (
        i32_at(bytes, 4 + lump * 8) as usize,
        i32_at(bytes, 8 + lump * 8) as usize,
    )
}

#[test]
fn node_cycles_are_rejected() {
    if !require_realdata("node_cycles_are_rejected") {
        return;
    }
    let orig = e1m1();
    let (ofs, len) = lump_range(&orig, lumps::NODES);
    assert!(len >= 24 * 10);
    let child = |n: usize, side: usize| {
        i16::from_le_bytes([
            orig[ofs + n * 24 + 4 + side * 2],
            orig[ofs + n * 24 + 5 + side * 2],
        ])
    };
    let with_child = |n: usize, side: usize, c: i16| {
        let mut b = orig.clone();
        b[ofs + n * 24 + 4 + side * 2..ofs + n * 24 + 6 + side * 2]
            .copy_from_slice(&c.to_le_bytes());
        b
    };
    // A node whose two children are both nodes (to make a shared subtree).
    let n = (3..len / 24)
        .find(|&n| child(n, 0) > 0 && child(n, 1) > 0)
        .unwrap();
    let cases = [
        ("back edge to an ancestor", with_child(n, 0, 0)),
        ("back edge to an earlier node", with_child(n, 0, 2)),
        ("self loop", with_child(n, 1, n as i16)),
        ("shared subtree", with_child(n, 0, child(n, 1))),
    ];
    for (what, bytes) in cases {
        match from_bytes(&bytes, "e1m1-cycle") {
            Err(e @ Q1Error::NodeCycle { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("e1m1-cycle") && msg.contains(&format!("node {n}")),
                    "{what}: {msg}"
                );
            }
            Err(e) => panic!("{what}: expected a node cycle error, got {e}"),
            Ok(_) => panic!("{what}: accepted"),
        }
    }
    let e = from_bytes(&orig[..100], "short").unwrap_err().to_string();
    assert!(e.contains("short") && e.contains("truncated"), "{e}");
}

/// Every index in a level points at something (what consumers rely on to never panic).
fn check_indices(l: &Level) -> Result<(), String> {
    use lanthorn_level::BspChild;
    let (nc, np, ns) = (l.cells.len(), l.portals.len(), l.surfaces.len());
    for (i, c) in l.cells.iter().enumerate() {
        if c.surfaces.iter().any(|&s| s as usize >= ns)
            || c.portals.iter().any(|&p| p as usize >= np)
        {
            return Err(format!("cell {i}"));
        }
    }
    for (i, p) in l.portals.iter().enumerate() {
        if p.front as usize >= nc
            || p.back as usize >= nc
            || p.polygon.len() < 3
            || !p.polygon.iter().all(|v| v.is_finite())
        {
            return Err(format!("portal {i}"));
        }
    }
    for (i, s) in l.surfaces.iter().enumerate() {
        let r_ok = s.lightmap.is_none_or(|r| {
            r.x + r.width <= l.lightmaps.width && r.y + r.height <= l.lightmaps.height
        });
        let finite = |v: &lanthorn_level::Vertex| {
            v.position.is_finite() && v.uv.is_finite() && v.lightmap_uv.is_finite()
        };
        let wrong = [
            (
                s.indices.iter().any(|&x| x as usize >= s.vertices.len()),
                "an index",
            ),
            (s.material as usize >= l.materials.len(), "its material"),
            (!r_ok, "its lightmap rectangle"),
            (
                !s.vertices.iter().all(finite),
                "a vertex that is not finite",
            ),
        ];
        if let Some((_, what)) = wrong.iter().find(|(bad, _)| *bad) {
            return Err(format!("surface {i}: {what}"));
        }
    }
    // Whole layers, one per style slot, and every lit surface's slots within them.
    let layer = (l.lightmaps.width * l.lightmaps.height * 3) as usize;
    let layers = l.lightmaps.texels.len() / layer.max(1);
    if layer == 0 || !l.lightmaps.texels.len().is_multiple_of(layer) || !(1..=4).contains(&layers) {
        return Err("lightmap atlas size".into());
    }
    if let Some(i) = l.surfaces.iter().position(|s| {
        s.styles
            .0
            .iter()
            .take_while(|&&x| x != 255)
            .any(|&x| x >= 64)
            || (s.lightmap.is_some()
                && s.styles.0.iter().take_while(|&&x| x != 255).count() > layers)
    }) {
        return Err(format!("surface {i} light styles"));
    }
    let child_ok = |c: &BspChild| match *c {
        BspChild::Node(n) => (n as usize) < l.bsp.nodes.len(),
        BspChild::Leaf(x) => (x as usize) < l.bsp.leaves.len(),
    };
    if !l.bsp.root.as_ref().is_none_or(child_ok)
        || !l.bsp.nodes.iter().all(|n| n.children.iter().all(child_ok))
        || l.bsp
            .leaves
            .iter()
            .any(|x| x.cells.iter().any(|&c| c as usize >= nc))
    {
        return Err("bsp".into());
    }
    for (i, o) in l.objects.iter().enumerate() {
        if o.surfaces.iter().any(|&s| s as usize >= ns)
            || o.entity.is_some_and(|e| e as usize >= l.entities.len())
        {
            return Err(format!("object {i}"));
        }
    }
    if let Some(p) = &l.pvs {
        if p.rows.len() != p.row_bytes * nc || p.row_bytes * 8 < nc {
            return Err("pvs".into());
        }
    }
    if l.sky
        .as_ref()
        .and_then(|s| s.material)
        .is_some_and(|m| m as usize >= l.materials.len())
    {
        return Err("sky".into());
    }
    for (i, m) in l.materials.iter().enumerate() {
        let n = (m.width * m.height) as usize;
        if m.texels.as_ref().is_some_and(|t| t.len() != n * 4)
            || m.fullbright.as_ref().is_some_and(|f| f.len() != n)
        {
            return Err(format!("material {i}"));
        }
    }
    Ok(())
}

#[test]
fn corrupted_files_never_panic() {
    if !require_realdata("corrupted_files_never_panic") {
        return;
    }
    // Each mutant costs up to a full import (~20 ms in release): 1000 mutants of 1-5 changes
    // each keep the test near 12 s while still making ~2800 mutations. Debug builds
    // (~15x slower) run a tenth of them.
    fuzz(&e1m1(), if cfg!(debug_assertions) { 100 } else { 1000 });
}

/// The wide formats' files mutated the same way (dm3 compiled by ericw-tools as BSP2 and
/// 2PSB): never a panic, an allocation sized by a damaged count, or a level with a bad index.
#[test]
fn corrupted_bsp2_and_2psb_files_never_panic() {
    let dir = std::env::temp_dir().join(format!("lanthorn-fuzz-wide-{}", std::process::id()));
    let Some(map) = lanthorn_testdata::id_map_in(&dir, "dm3") else {
        return;
    };
    for flag in ["-bsp2", "-2psb"] {
        let out = dir.join(format!("dm3{flag}.bsp"));
        if super::format_tests::compile(&map, &out, &[flag]).is_none() {
            return;
        }
        eprintln!("{flag}:");
        fuzz(
            &std::fs::read(&out).unwrap(),
            if cfg!(debug_assertions) { 50 } else { 400 },
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Imports `iterations` mutants of `orig` (`mutant`): none panics, every error names the
/// file, every level that imports has sound indices, and enough mutants are errors.
fn fuzz(orig: &[u8], iterations: usize) {
    // LANTHORN_FUZZ_SEED / LANTHORN_FUZZ_ITERS run other or longer campaigns.
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let mut seed = env("LANTHORN_FUZZ_SEED")
        .unwrap_or(0x9e37_79b9_7f4a_7c15)
        .max(1);
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // Silence panic messages of this thread only (other tests run in parallel).
    let prev_hook = std::sync::Arc::new(std::panic::take_hook());
    let me = std::thread::current().id();
    let prev = prev_hook.clone();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() != me {
            prev(info)
        }
    }));
    let t = Instant::now();
    let (mut panics, mut errors, mut oks, mut mutations) = (Vec::new(), 0, 0, 0);
    let mut broken = Vec::new();
    let iterations = env("LANTHORN_FUZZ_ITERS").map_or(iterations, |n| n as usize);
    for it in 0..iterations {
        let (b, n) = mutant(orig, &mut next);
        mutations += n;
        match std::panic::catch_unwind(|| from_bytes(&b, "fuzz")) {
            Ok(Ok(level)) => {
                oks += 1;
                if let Err(e) = check_indices(&level) {
                    broken.push((it, e));
                }
            }
            Ok(Err(e)) => {
                errors += 1;
                assert!(
                    e.to_string().starts_with("fuzz"),
                    "error does not name the file: {e}"
                );
            }
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                panics.push((it, msg));
            }
        }
    }
    let _ = std::panic::take_hook(); // back to the default hook
    eprintln!(
        "fuzz: {iterations} mutants ({mutations} mutations), {errors} errors, {oks} imported, {} panics, {:.1} s",
        panics.len(),
        t.elapsed().as_secs_f64()
    );
    assert!(panics.is_empty(), "panics: {panics:?}");
    assert!(
        broken.is_empty(),
        "imported with broken indices: {broken:?}"
    );
    assert!(
        errors > iterations / 10,
        "mutations too gentle: {errors} errors"
    );
    assert!(mutations >= iterations * 2, "{mutations} mutations");
}

/// A mutant of `orig` and how many changes made it: one in ten truncated, the others with 1 to
/// 5 bytes set to 0xff, 0, a flipped bit or a random byte, in the header, anywhere, or (half
/// of them) in a structural lump.
fn mutant(orig: &[u8], next: &mut impl FnMut() -> u64) -> (Vec<u8>, usize) {
    let header = lumps::HEADER_SIZE;
    let structural = [
        lumps::ENTITIES,
        lumps::PLANES,
        lumps::VISIBILITY,
        lumps::NODES,
        lumps::TEXINFO,
        lumps::FACES,
        lumps::LEAFS,
        lumps::MARKSURFACES,
        lumps::EDGES,
        lumps::SURFEDGES,
        lumps::MODELS,
        lumps::TEXTURES,
        lumps::VERTEXES,
    ];
    let mut b = orig.to_vec();
    let mut mutations = 0;
    let kind = next() % 10;
    if kind == 0 {
        b.truncate((next() % orig.len() as u64) as usize);
        mutations += 1;
    } else {
        for _ in 0..1 + next() % 5 {
            let pos = match next() % 4 {
                0 => (next() % header as u64) as usize,
                1 => (next() % orig.len() as u64) as usize,
                _ => {
                    let lump = structural[(next() % structural.len() as u64) as usize];
                    let (o, l) = lump_range(orig, lump);
                    // Texture lumps: stay within headers and offsets (texel bytes are inert).
                    let l = if lump == lumps::TEXTURES {
                        l.min(2048)
                    } else {
                        l
                    };
                    if l == 0 {
                        continue;
                    }
                    o + (next() % l as u64) as usize
                }
            };
            mutations += 1;
            b[pos] = match next() % 4 {
                0 => 0xff,
                1 => 0,
                2 => b[pos] ^ (1 << (next() % 8)),
                _ => next() as u8,
            };
        }
    }
    (b, mutations)
}

#[test]
fn bad_headers_give_clear_errors() {
    let mut b = vec![0u8; lumps::HEADER_SIZE];
    b[0] = 31;
    let e = from_bytes(&b, "x31.bsp").unwrap_err().to_string();
    assert!(e.contains("x31.bsp") && e.contains("version 31"), "{e}");
    b[..4].copy_from_slice(b"IBSP");
    let e = from_bytes(&b, "q2.bsp").unwrap_err().to_string();
    assert!(e.contains("q2.bsp") && e.contains("Quake 2"), "{e}");
    b[..4].copy_from_slice(&29i32.to_le_bytes());
    b[4 + 5 * 8] = 200; // nodes lump offset past the end
    b[8 + 5 * 8] = 24;
    let e = from_bytes(&b, "x.bsp").unwrap_err().to_string();
    assert!(e.contains("nodes") && e.contains("x.bsp"), "{e}");
    let _ = DVec3::ZERO;
}

/// Diagnostic: where e1m1's import time goes (`cargo test --release --lib stage_timings -- --ignored --nocapture`).
#[test]
#[ignore]
fn stage_timings() {
    fn best<T>(name: &str, mut f: impl FnMut() -> T) -> T {
        let mut b = f64::MAX;
        let mut r = None;
        for _ in 0..7 {
            let t = Instant::now();
            r = Some(f());
            b = b.min(t.elapsed().as_secs_f64() * 1e3);
        }
        eprintln!("{name} {b:.2} ms");
        r.unwrap()
    }
    let m = e1m1();
    let l = best("lumps", || lumps::read(&m, "e").unwrap());
    let mats = best("textures", || {
        textures::decode(l.textures, default_palette(), "e").unwrap()
    });
    let tr = best("tree", || tree::build(&l, "e").unwrap());
    let light = light::Light::choose((l.lighting, l.faces.len()), None, &[], &mut Vec::new());
    let fs: Vec<_> = best("faces", || {
        (0..l.faces.len())
            .map(|i| faces::build((&l, &light), i, &mats, "e").unwrap())
            .collect::<Vec<_>>()
    });
    let lb: Vec<_> = fs
        .iter()
        .filter_map(|f| f.luxels.as_ref())
        .map(|(w, h, rgb)| lanthorn_light::atlas::LuxelBlock {
            width: *w,
            height: *h,
            rgb,
        })
        .collect();
    best("atlas", || lanthorn_light::atlas::pack(&lb).unwrap());
    best("portals", || {
        crate::portalize::generate(&tr.bsp, &tr.leaf_cell, &tr.parent, 20000.0)
    });
    best("vis", || {
        vis::build(&l, &tr.leaf_cell, &tr.cell_leaf, "e").unwrap()
    });
    best("all", || from_bytes(&m, "e").unwrap());
}

/// A tiny BSP29 written from scratch (no real data needed): a 128-unit box split at x = 0
/// into an air half (leaf 1, x > 0) and a water half (leaf 2), one lit floor face in the air
/// half, one 16×16 texture.
mod synthetic {
    use super::*;

    fn plane(n: [f32; 3], d: f32) -> Vec<u8> {
        let mut b = Vec::new();
        for c in n {
            b.extend_from_slice(&c.to_le_bytes());
        }
        b.extend_from_slice(&d.to_le_bytes());
        b.extend_from_slice(&0i32.to_le_bytes());
        b
    }

    fn i16s(v: &[i16]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// Planes: 0 x=0; 1..=5 bound the +x half (x<=64, y>=-64, y<=64, z>=-64, z<=64);
    /// 6 x>=-64 for the -x half (which reuses 2..=5).
    pub(super) fn bytes() -> Vec<u8> {
        let [planes, nodes, leafs] = tree();
        let [verts, edges, surfedges, texinfo, face, lighting] = floor();
        let marks = 0u16.to_le_bytes().to_vec();
        let tex = texture();
        let model = world_model();
        let entities = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"32 0 -40\"\n}\n\0".to_vec();
        let lumps: [Vec<u8>; 15] = [
            entities,
            planes,
            tex,
            verts,
            Vec::new(),
            nodes,
            texinfo,
            face,
            lighting,
            Vec::new(),
            leafs,
            marks,
            edges,
            surfedges,
            model,
        ];
        let mut out = 29i32.to_le_bytes().to_vec();
        let mut ofs = lumps::HEADER_SIZE;
        for l in &lumps {
            out.extend((ofs as i32).to_le_bytes());
            out.extend((l.len() as i32).to_le_bytes());
            ofs += l.len();
        }
        for l in &lumps {
            out.extend(l);
        }
        out
    }

    /// The planes, nodes and leaves: the air half +x and the water half -x.
    fn tree() -> [Vec<u8>; 3] {
        let planes: Vec<u8> = [
            plane([1.0, 0.0, 0.0], 0.0),
            plane([-1.0, 0.0, 0.0], -64.0),
            plane([0.0, 1.0, 0.0], -64.0),
            plane([0.0, -1.0, 0.0], -64.0),
            plane([0.0, 0.0, 1.0], -64.0),
            plane([0.0, 0.0, -1.0], -64.0),
            plane([1.0, 0.0, 0.0], -64.0),
        ]
        .concat();
        // Nodes 0 (root), 1..=5 (+x chain), 6..=10 (-x chain); back children are solid leaf 0.
        let node = |p: i32, front: i16, back: i16| {
            let mut b = p.to_le_bytes().to_vec();
            b.extend(i16s(&[front, back, -64, -64, -64, 64, 64, 64]));
            b.extend(i16s(&[0, 0]));
            b
        };
        let mut nodes = node(0, 1, 6);
        let chain_pos = [1, 2, 3, 4, 5];
        let chain_neg = [6, 2, 3, 4, 5];
        for (k, &p) in chain_pos.iter().enumerate() {
            nodes.extend(node(p, if k < 4 { 2 + k as i16 } else { -2 }, -1));
        }
        for (k, &p) in chain_neg.iter().enumerate() {
            nodes.extend(node(p, if k < 4 { 7 + k as i16 } else { -3 }, -1));
        }
        let leaf = |contents: i32, mins: [i16; 3], maxs: [i16; 3], first: u16, n: u16| {
            let mut b = contents.to_le_bytes().to_vec();
            b.extend((-1i32).to_le_bytes());
            b.extend(i16s(&mins));
            b.extend(i16s(&maxs));
            b.extend(first.to_le_bytes());
            b.extend(n.to_le_bytes());
            b.extend([0u8; 4]);
            b
        };
        let leafs = [
            leaf(-2, [0; 3], [0; 3], 0, 0),
            leaf(-1, [0, -64, -64], [64, 64, 64], 0, 1),
            leaf(-3, [-64, -64, -64], [0, 64, 64], 1, 0),
        ]
        .concat();
        [planes, nodes, leafs]
    }

    /// The one face: vertices, edges, surface edges, texinfo, face and its lighting.
    fn floor() -> [Vec<u8>; 6] {
        // The floor of the air half, listed clockwise from above (reversed by the importer).
        let verts: Vec<u8> = [
            [0.0f32, -64.0, -64.0],
            [64.0, -64.0, -64.0],
            [64.0, 64.0, -64.0],
            [0.0, 64.0, -64.0],
        ]
        .iter()
        .flat_map(|v| v.iter().flat_map(|c| c.to_le_bytes()))
        .collect();
        let edges: Vec<u8> = [[0u16, 0], [0, 1], [1, 2], [2, 3], [3, 0]]
            .iter()
            .flat_map(|e| i16s(&[e[0] as i16, e[1] as i16]))
            .collect();
        let surfedges: Vec<u8> = [-4i32, -3, -2, -1]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let mut texinfo = Vec::new();
        for v in [1.0f32, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0] {
            texinfo.extend(v.to_le_bytes());
        }
        texinfo.extend(0i32.to_le_bytes());
        texinfo.extend(0i32.to_le_bytes());
        let mut face = 4u16.to_le_bytes().to_vec(); // plane z >= -64: normal +Z
        face.extend(0i16.to_le_bytes());
        face.extend(0i32.to_le_bytes());
        face.extend(4i16.to_le_bytes());
        face.extend(0i16.to_le_bytes());
        face.extend([0, 255, 255, 255]);
        face.extend(0i32.to_le_bytes());
        // s 0..64 → 5 luxels; t -64..64 → 9 luxels.
        let lighting: Vec<u8> = (0..45u8).map(|i| i * 5).collect();
        [verts, edges, surfedges, texinfo, face, lighting]
    }

    /// One 16×16 miptex "floor" of palette index 230.
    fn texture() -> Vec<u8> {
        let mut tex = 1i32.to_le_bytes().to_vec();
        tex.extend(8i32.to_le_bytes());
        let mut name = [0u8; 16];
        name[..5].copy_from_slice(b"floor");
        tex.extend(name);
        tex.extend(16u32.to_le_bytes());
        tex.extend(16u32.to_le_bytes());
        tex.extend(40u32.to_le_bytes());
        tex.extend([0u8; 12]);
        tex.extend([230u8; 256]);
        tex
    }

    /// Model 0: the world's box, head node 0, one face.
    fn world_model() -> Vec<u8> {
        let mut model = Vec::new();
        for v in [-64.0f32, -64.0, -64.0, 64.0, 64.0, 64.0, 0.0, 0.0, 0.0] {
            model.extend(v.to_le_bytes());
        }
        for v in [0i32, 0, 0, 0, 2, 0, 1] {
            model.extend(v.to_le_bytes());
        }
        model
    }

    fn grey_palette() -> [u8; 768] {
        std::array::from_fn(|i| (i / 3) as u8)
    }

    #[test]
    fn two_cells_one_portal_one_face() {
        let pal = grey_palette();
        let l = from_bytes_with_palette(&bytes(), "synthetic.bsp", Some(&pal)).unwrap();
        assert_eq!(l.cells.len(), 2);
        assert_eq!(
            (l.cells[0].medium, l.cells[1].medium),
            (lanthorn_level::Medium::Air, lanthorn_level::Medium::Water)
        );
        assert_eq!(l.cells[0].planes.len(), 6);
        assert_eq!(l.cells[0].surfaces, vec![0]);
        assert_eq!(l.portals.len(), 1);
        let p = &l.portals[0];
        assert_eq!((p.front, p.back), (0, 1));
        assert_eq!(p.plane.normal, Vec3::X);
        assert!(p.flags & lanthorn_level::portal_flags::LIQUID_SURFACE != 0);
        let area = lanthorn_geom::DPolygon::new(p.polygon.iter().map(|v| v.as_dvec3()).collect())
            .area_vector();
        assert!(
            (area.x - 128.0 * 128.0).abs() < 1e-3,
            "portal area vector {area}"
        );
        assert_eq!(l.cells[0].portals, vec![0]);
        assert_eq!(l.cells[1].portals, vec![0]);
        assert_eq!(l.locate(Vec3::new(32.0, 0.0, 0.0)), Some(0));
        assert_eq!(l.locate(Vec3::new(-32.0, 10.0, 5.0)), Some(1));
        assert_eq!(l.locate(Vec3::new(100.0, 0.0, 0.0)), None);
        assert_eq!(l.bsp.nodes.len(), 11);
        assert!(l.pvs.is_none() && l.sky.is_none());
        assert_eq!(
            l.player_start().unwrap().position,
            Vec3::new(32.0, 0.0, -18.0)
        );

        let s = &l.surfaces[0];
        assert_eq!(s.normal, Vec3::Z);
        assert_eq!(s.indices.len(), 6);
        for t in s.indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| s.vertices[t[k] as usize].position);
            assert!((b - a).cross(c - a).z > 0.0, "counter-clockwise from above");
        }
        let r = s.lightmap.unwrap();
        assert_eq!((r.width, r.height), (5, 9));
        let texel = |x: u32, y: u32| l.lightmaps.texels[((y * l.lightmaps.width + x) * 3) as usize];
        for v in &s.vertices {
            let (x, y) = (v.position.x, v.position.y);
            // Luxel i sits at s = 16 i, lightmap_uv = i + 0.5.
            assert_eq!(
                v.lightmap_uv,
                glam::Vec2::new(x / 16.0 + 0.5, (y + 64.0) / 16.0 + 0.5)
            );
            assert_eq!(v.uv, glam::Vec2::new(x / 16.0, y / 16.0));
            let (i, j) = ((x / 16.0) as u32, ((y + 64.0) / 16.0) as u32);
            assert_eq!(texel(r.x + i, r.y + j), ((j * 5 + i) * 5) as u8);
        }
        // The border duplicates the edge luxels.
        assert_eq!(texel(r.x - 1, r.y - 1), 0);
        assert_eq!(texel(r.x + 5, r.y + 8), 44 * 5);
        let m = &l.materials[0];
        assert_eq!((m.name.as_str(), m.width, m.height), ("floor", 16, 16));
        assert_eq!(&m.texels.as_ref().unwrap()[..4], &[230, 230, 230, 255]);
        assert!(m.fullbright.as_ref().unwrap().iter().all(|&f| f == 255));
    }

    #[test]
    fn cycles_and_truncations_are_errors() {
        let good = bytes();
        let nodes_ofs = i32_at(&good, 4 + lumps::NODES * 8) as usize;
        // Node 3's front child back to node 1.
        let mut b = good.clone();
        b[nodes_ofs + 3 * 24 + 4..nodes_ofs + 3 * 24 + 6].copy_from_slice(&1i16.to_le_bytes());
        assert!(matches!(
            from_bytes(&b, "s"),
            Err(Q1Error::NodeCycle {
                node: 3,
                child: 1,
                ..
            })
        ));
        for n in 0..good.len() {
            assert!(from_bytes(&good[..n], "s").is_err(), "truncated at {n}");
        }
    }
}

#[test]
fn level_load_dispatches_bsp_and_names_missing_files() {
    let e = lanthorn_load::load(std::path::Path::new("/nonexistent/nothere.bsp"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("/nonexistent/nothere.bsp"), "{e}");
}

/// id's maps of the registered episodes end their lighting lump a few bytes before their last
/// face's light: e1m1 with its lighting lump cut 5 bytes short loads with one warning naming
/// that face, whose missing luxels are black; every other face's light is the file's own.
#[test]
fn light_data_past_the_lump_is_clamped_with_one_warning() {
    if !require_realdata("light_data_past_the_lump_is_clamped_with_one_warning") {
        return;
    }
    let bytes = e1m1();
    let lighting = 4 + 8 * 8;
    let len = i32_at(&bytes, lighting + 4);
    let mut cut = bytes.clone();
    cut[lighting + 4..lighting + 8].copy_from_slice(&(len - 5).to_le_bytes());
    let (whole, none) = import(&bytes, "e1m1.bsp", default_palette(), None).unwrap();
    assert!(none.is_empty(), "{none:?}");
    let (short, warnings) = import(&cut, "e1m1.bsp", default_palette(), None).unwrap();
    // The face whose light ends last, read from the faces lump itself.
    let l = lumps::read(&bytes, "e1m1.bsp").unwrap();
    let light = light::Light::choose((l.lighting, l.faces.len()), None, &[], &mut Vec::new());
    let ends = |i: usize| {
        let f = &l.faces[i];
        let b = faces::build((&l, &light), i, &whole.materials, "e1m1.bsp").unwrap();
        let n = b.luxels.map_or(0, |(w, h, _)| (w * h) as i64);
        f.light_ofs as i64 + n * lanthorn_level::styles::LightStyles(f.styles).count() as i64
    };
    let last = (0..l.faces.len()).max_by_key(|&i| ends(i)).unwrap();
    assert_eq!(ends(last), len as i64, "the last face ends the lump");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!("face {last}: ")) && warnings[0].contains("5 bytes past"),
        "{}",
        warnings[0]
    );
    let texel = |level: &Level, s: usize, k: usize, x: u32, y: u32| {
        let m = &level.lightmaps;
        let r = level.surfaces[s].lightmap.unwrap();
        let layer = (m.width * m.height * 3) as usize;
        let i = k * layer + (((r.y + y) * m.width + r.x + x) * 3) as usize;
        [m.texels[i], m.texels[i + 1], m.texels[i + 2]]
    };
    let (mut blackened, mut kept) = (0, 0);
    for (s, surface) in whole.surfaces.iter().enumerate() {
        let Some(r) = surface.lightmap else { continue };
        assert_eq!(
            short.surfaces[s].lightmap,
            Some(r),
            "face {s} moved in the atlas"
        );
        for k in 0..surface.styles.count() {
            for y in 0..r.height {
                for x in 0..r.width {
                    let (a, b) = (texel(&whole, s, k, x, y), texel(&short, s, k, x, y));
                    if s == last && a != b {
                        assert_eq!(b, [0; 3], "face {s}: a cut luxel is not black");
                        blackened += 1;
                    } else {
                        assert_eq!(a, b, "face {s} style slot {k} luxel {x},{y}");
                        kept += 1;
                    }
                }
            }
        }
    }
    assert!(
        blackened <= 5 && kept > 100_000,
        "{blackened} blackened, {kept} kept"
    );
}

/// Every brush entity is linked to each cell it can be seen from, as Quake links it to every
/// leaf its box touches: e2m1's `func_door` as wide as three corridors (its box crosses the
/// walls between them; the cells past the walls join only far away) and the id maps' rising
/// stairs in pits (`"angle" "-1"` doors below the floor).
#[test]
fn every_object_surface_facing_open_space_is_linked_to_a_cell_in_front_of_it() {
    if !require_realdata(
        "every_object_surface_facing_open_space_is_linked_to_a_cell_in_front_of_it",
    ) {
        return;
    }
    for m in maps() {
        if let Some(why) = lanthorn_testdata::object_seen_from_an_unlinked_cell(&m.level) {
            panic!("{}: {why}", m.name);
        }
    }
}

/// The palette is found where people keep it around a map: in `gfx/` one folder up from a
/// game's `maps/`, in `id1/gfx/` beside an install, inside `id1/pak0.pak`; the nearest wins;
/// none at all is a warning naming the map and what to give.
#[test]
fn the_palette_is_found_beside_above_and_in_a_pak() {
    let root = std::env::temp_dir().join(format!("lanthorn-palette-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let map = root.join("quake/mymod/maps/x.bsp");
    std::fs::create_dir_all(map.parent().unwrap()).unwrap();
    let pal = |k: u8| -> Vec<u8> { (0..768).map(|i| (i % 251) as u8 ^ k).collect() };
    let err = palette_near(&map).unwrap_err();
    assert!(
        err.contains("x.bsp: no Quake palette found") && err.contains("--palette FILE"),
        "{err}"
    );
    // id1/pak0.pak beside the mod folder's parent.
    std::fs::create_dir_all(root.join("quake/id1")).unwrap();
    let pak = crate::pak::build(&[("gfx/palette.lmp", &pal(1))]);
    std::fs::write(root.join("quake/id1/pak0.pak"), pak).unwrap();
    assert_eq!(palette_near(&map).unwrap().to_vec(), pal(1));
    // A loose id1/gfx/palette.lmp beside that pak: the pak wins, as in Quake's search path.
    std::fs::create_dir_all(root.join("quake/id1/gfx")).unwrap();
    std::fs::write(root.join("quake/id1/gfx/palette.lmp"), pal(4)).unwrap();
    assert_eq!(palette_near(&map).unwrap().to_vec(), pal(1));
    // A nearer folder wins: mymod/gfx, then the map's own folder.
    std::fs::create_dir_all(root.join("quake/mymod/gfx")).unwrap();
    std::fs::write(root.join("quake/mymod/gfx/palette.lmp"), pal(2)).unwrap();
    assert_eq!(palette_near(&map).unwrap().to_vec(), pal(2));
    std::fs::write(root.join("quake/mymod/maps/palette.lmp"), pal(3)).unwrap();
    assert_eq!(palette_near(&map).unwrap().to_vec(), pal(3));
    // A short file is no palette: the next place is used.
    std::fs::write(root.join("quake/mymod/maps/palette.lmp"), [0u8; 100]).unwrap();
    assert_eq!(palette_near(&map).unwrap().to_vec(), pal(2));
    std::fs::remove_dir_all(&root).unwrap();
}
