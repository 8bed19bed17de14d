//! OpenArena's maps as levels, checked against what q3map2 wrote into them: its leaf bounds hold
//! our portals, its planes say which way a polygon faces, its visibility keeps neighbouring
//! cells visible to each other and never reaches a cell no portal path reaches, and its spawn
//! points stand in cells.

use std::collections::{HashMap, VecDeque};

use glam::Vec3;

use super::*;
use crate::pk3::Pk3;
use crate::q3::{read, Ibsp, NoFiles};

/// OpenArena's game folder, where Debian installs it.
const BASEOA: &str = lanthorn_testdata::OPENARENA_BASEOA;

/// The development packages' archives in Quake 3's order (the last by name first).
fn archives() -> Option<Vec<Pk3>> {
    let dir = std::fs::read_dir(BASEOA).ok()?;
    let mut paths: Vec<_> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                lanthorn_testdata::OPENARENA_DEVELOPMENT_PK3S
                    .iter()
                    .any(|d| n == *d)
            })
        })
        .collect();
    paths.sort();
    Some(paths.iter().rev().map(|p| Pk3::open(p).unwrap()).collect())
}

/// The archives as the game's files.
struct Archives(Vec<Pk3>);

impl GameFiles for Archives {
    fn read(&self, name: &str) -> Option<Vec<u8>> {
        self.0
            .iter()
            .find_map(|a| a.find(name).map(|e| a.read(e).unwrap()))
    }
    fn list(&self, folder: &str, ext: &str) -> Vec<String> {
        let prefix = format!("{folder}/");
        let mut names: Vec<String> = self
            .0
            .iter()
            .flat_map(|a| a.entries.iter().map(|e| e.name.clone()))
            .filter(|n| n.starts_with(&prefix) && n.ends_with(ext))
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// Every map of the archives (the last archive's copy of a name), read.
fn maps(archives: &Archives) -> Vec<(String, Ibsp)> {
    let mut by_name: HashMap<String, Ibsp> = HashMap::new();
    for a in &archives.0 {
        for e in a
            .entries
            .iter()
            .filter(|e| e.name.starts_with("maps/") && e.name.ends_with(".bsp"))
        {
            if !by_name.contains_key(&e.name) {
                let map = read(&a.read(e).unwrap(), &e.name).unwrap();
                by_name.insert(e.name.clone(), map);
            }
        }
    }
    let mut maps: Vec<_> = by_name.into_iter().collect();
    maps.sort_by(|a, b| a.0.cmp(&b.0));
    maps
}

fn reachable(l: &Level, from: u32) -> Vec<bool> {
    let mut seen = vec![false; l.cells.len()];
    let mut queue = VecDeque::from([from]);
    seen[from as usize] = true;
    while let Some(c) = queue.pop_front() {
        for &p in &l.cells[c as usize].portals {
            let o = l.portals[p as usize].other(c);
            if !seen[o as usize] {
                seen[o as usize] = true;
                queue.push_back(o);
            }
        }
    }
    seen
}

/// A door's shut portals part the two of q3map2's areas it stands between (areas it floods up
/// to its area-portal brushes): from a cell of one, no portal path past a shut door reaches
/// the other. Returns the doors that part two areas (`None`: an area portal no door shuts).
fn check_areas(name: &str, l: &Level, map: &Ibsp, cell_leaf: &[u32]) -> Option<usize> {
    let area = |c: u32| map.leaves[cell_leaf[c as usize] as usize].area;
    let shut: std::collections::HashSet<u32> = l
        .objects
        .iter()
        .flat_map(|o| o.closes.iter().copied())
        .collect();
    let in_area_portal = (0..l.cells.len() as u32).filter(|&c| area(c) < 0);
    let open_area_portal = |c: u32| {
        l.cells[c as usize]
            .portals
            .iter()
            .any(|p| !shut.contains(p))
    };
    if in_area_portal.clone().any(open_area_portal) {
        return None;
    }
    let mut parted = 0;
    for door in l.objects.iter().filter(|o| !o.closes.is_empty()) {
        let portals = door.closes.iter().map(|&p| &l.portals[p as usize]);
        let mut sides: Vec<u32> = portals
            .flat_map(|p| [p.front, p.back])
            .filter(|&c| area(c) >= 0)
            .collect();
        sides.sort_by_key(|&c| area(c));
        sides.dedup_by_key(|c| area(*c));
        // oa_dm3's area portal has one area on both sides (its rooms meet elsewhere too).
        assert!(
            sides.len() <= 2,
            "{name}: {} between areas of {sides:?}",
            door.name
        );
        if sides.len() < 2 {
            continue;
        }
        parted += 1;
        let mut seen = vec![false; l.cells.len()];
        let mut queue = VecDeque::from([sides[0]]);
        seen[sides[0] as usize] = true;
        while let Some(c) = queue.pop_front() {
            let open = l.cells[c as usize]
                .portals
                .iter()
                .filter(|p| !shut.contains(p));
            for o in open.map(|&p| l.portals[p as usize].other(c)) {
                assert!(
                    area(o) != area(sides[1]),
                    "{name}: cell {o} past {} is reached from cell {} before it",
                    door.name,
                    sides[0]
                );
                if !std::mem::replace(&mut seen[o as usize], true) {
                    queue.push_back(o);
                }
            }
        }
    }
    Some(parted)
}

/// The portals lie on their plane, inside both cells' planes and q3map2's bounds of both leaves.
fn check_portals(name: &str, l: &Level, map: &Ibsp, cell_leaf: &[u32]) {
    let (mut off_plane, mut off_cell, mut off_box) = (0f32, 0f32, 0f32);
    for p in &l.portals {
        assert_ne!(p.front, p.back, "{name}");
        for &v in &p.polygon {
            off_plane = off_plane.max(p.plane.distance(v).abs());
            for c in [p.front, p.back] {
                let cell = &l.cells[c as usize];
                for pl in &cell.planes {
                    off_cell = off_cell.max(-pl.distance(v));
                }
                let leaf = &map.leaves[cell_leaf[c as usize] as usize];
                let (lo, hi) = (
                    Vec3::from(leaf.mins.map(|v| v as f32)),
                    Vec3::from(leaf.maxs.map(|v| v as f32)),
                );
                let out = (lo - v).max(v - hi).max_element();
                if out > 1.01 && off_box <= 1.01 {
                    eprintln!(
                        "{name}: cell {c} leaf {} cluster {} bounds {lo} {hi}: vertex {v}",
                        cell_leaf[c as usize], leaf.cluster
                    );
                }
                off_box = off_box.max(out);
            }
        }
    }
    assert!(
        off_plane < 0.01,
        "{name}: a portal vertex {off_plane} off its plane"
    );
    assert!(
        off_cell < 0.05,
        "{name}: a portal vertex {off_cell} outside a cell"
    );
    assert!(
        off_box < 1.01,
        "{name}: a portal vertex {off_box} outside q3map2's leaf bounds"
    );
}

/// Cells the PVS says one sees are reachable through portals; neighbours see each other.
/// Returns (portals whose cells the PVS keeps apart, portals).
/// The light grid is the map's and its points lie where the game reads them: lit where the
/// level is open and dark in solid (q3map2 nudges points near walls out of solid and leaves
/// unlit spaces dark, so most, not all), and brighter where the lightmap of the floor below is
/// (their correlation). Returns the points that agree, the points, and the correlation.
fn check_light_grid(name: &str, l: &Level, report: &Q3Report) -> (usize, usize, Option<f64>) {
    let Some(grid) = l.light_grid.as_ref() else {
        let why = report.no_light_grid.as_deref();
        assert_eq!(why, Some("the map has no light grid"), "{name}");
        return (0, 0, None);
    };
    let scales = [1.0; lanthorn_level::styles::MAX_STYLES];
    let (mut agree, mut pairs) = (0, Vec::new());
    for k in 0..grid.size[2] {
        for j in 0..grid.size[1] {
            for i in 0..grid.size[0] {
                let (p, at) = (grid.position([i, j, k]), grid.index([i, j, k]));
                let lit = grid.styles[at].count() > 0;
                let open = l.locate(p).is_some();
                agree += usize::from(lit == open);
                if !(lit && open) {
                    continue;
                }
                if let Some(f) = lanthorn_light::point::light_below(l, p, &scales, 1.0) {
                    let g = grid.slots[grid.first[at] as usize].eval(Vec3::Z).x;
                    pairs.push((f64::from(g), f64::from(f[0])));
                }
            }
        }
    }
    let r = (pairs.len() >= 100).then(|| lanthorn_testdata::correlation(&pairs));
    (agree, grid.point_count(), r)
}

fn check_pvs(name: &str, l: &Level) -> (usize, usize) {
    let Some(pvs) = &l.pvs else { return (0, 0) };
    let n = l.cells.len() as u32;
    for c in (0..n).step_by(((n / 64) as usize).max(1)) {
        let r = reachable(l, c);
        for to in 0..n {
            assert!(
                !pvs.visible(c, to) || r[to as usize],
                "{name}: cell {to} is in cell {c}'s PVS but no portal path reaches it"
            );
        }
    }
    let apart = l
        .portals
        .iter()
        .filter(|p| !(pvs.visible(p.front, p.back) && pvs.visible(p.back, p.front)))
        .count();
    (apart, l.portals.len())
}

/// Triangles face the way q3map2's vertex normals say (their mean): (facing, all) among the
/// triangles whose three normals agree (a sharp crease says nothing); and the surfaces that
/// keep a plane hold every vertex on it.
fn facing(name: &str, l: &Level, map: &Ibsp, report: &Q3Report) -> (usize, usize) {
    let (mut right, mut all) = (0, 0);
    let steps = super::patch_steps(map);
    for (s, &f) in l.surfaces.iter().zip(&report.file_surface) {
        let fs = &map.surfaces[f as usize];
        let control = &map.vertices[fs.vertices.start as usize..fs.vertices.end as usize];
        let normals: Vec<Vec3> = match fs.kind {
            SurfaceType::Patch => {
                patch::tessellate(control, fs.patch[0], fs.patch[1], steps[f as usize]).0
            }
            _ => control.to_vec(),
        }
        .iter()
        .map(|v| Vec3::from(v.normal).normalize_or_zero())
        .collect();
        for t in s.indices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| s.vertices[t[k] as usize].position);
            let [na, nb, nc] = [0, 1, 2].map(|k| normals[t[k] as usize]);
            let n = (b - a).cross(c - a);
            if n.length() > 1e-2 && na.dot(nb) > 0.9 && na.dot(nc) > 0.9 {
                all += 1;
                right += (n.dot(na + nb + nc) > 0.0) as usize;
            }
        }
        if s.normal != Vec3::ZERO {
            let d = s.normal.dot(s.vertices[0].position);
            let off = s
                .vertices
                .iter()
                .map(|v| (s.normal.dot(v.position) - d).abs())
                .fold(0.0, f32::max);
            assert!(
                off < 0.06,
                "{name}: surface {f} keeps a plane {off} units off a vertex"
            );
        }
    }
    (right, all)
}

/// With the game's textures and scripts: how many materials find a picture, and how many
/// surfaces are drawn as the game draws them (printed; the picture is compared with the game's
/// own in scripts/compare_openarena.py).
#[test]
fn openarenas_materials_find_their_pictures() {
    let Some(archives) = archives() else {
        return lanthorn_testdata::missing_realdata(std::path::Path::new(BASEOA));
    };
    let archives = Archives(archives);
    let (mut materials, mut missing, mut drawn, mut faithful, mut maps) = (0, 0, 0, 0, 0);
    let mut fallbacks = std::collections::BTreeMap::<String, usize>::new();
    for name in [
        "maps/oa_dm1.bsp",
        "maps/oa_dm4.bsp",
        "maps/oa_ctf2.bsp",
        "maps/aggressor.bsp",
    ] {
        let map = read(&archives.read(name).unwrap(), name).unwrap();
        let (l, report) = to_level(&map, name, &archives).unwrap();
        for (m, sh) in l.materials.iter().zip(&map.shaders) {
            // A picture found is decoded whole, at its size.
            if let Some(t) = &m.texels {
                assert_eq!(
                    t.len(),
                    m.width as usize * m.height as usize * 4,
                    "{}",
                    sh.name
                );
            }
        }
        (materials, missing) = (materials + report.materials, missing + report.missing.len());
        (drawn, faithful, maps) = (drawn + report.drawn, faithful + report.faithful, maps + 1);
        for (why, n) in report.fallbacks {
            *fallbacks.entry(why).or_default() += n;
        }
    }
    let mut why: Vec<(usize, String)> = fallbacks.into_iter().map(|(w, n)| (n, w)).collect();
    why.sort_unstable_by(|a, b| b.cmp(a));
    eprintln!("falling back, by the first thing not drawn: {why:?}");
    // Every surface is either drawn as the game draws it or counted with a reason.
    assert_eq!(faithful + why.iter().map(|w| w.0).sum::<usize>(), drawn);
    eprintln!("{maps} maps: {missing} of {materials} materials without a picture; {faithful} of {drawn} surfaces drawn as the game draws them");
    // The misses are shaders that name no picture at all (`textures/NULL`, `noshader`).
    assert!(
        missing * 10 < materials,
        "{missing} of {materials} materials without a picture"
    );
}

#[test]
fn openarenas_maps_become_levels_that_agree_with_what_q3map2_wrote() {
    let Some(archives) = archives() else {
        return lanthorn_testdata::missing_realdata(std::path::Path::new(BASEOA));
    };
    let archives = Archives(archives);
    let (mut apart, mut portals, mut right, mut triangles, mut spawns) = (0, 0, 0, 0, 0);
    let (mut door_maps, mut open_area_portals) = (Vec::new(), Vec::new());
    let (mut grid_agree, mut grid_points, mut grid_r) = (0, 0, Vec::new());
    let maps = maps(&archives);
    for (name, map) in &maps {
        let (l, report) = to_level(map, name, &NoFiles).unwrap_or_else(|e| panic!("{e}"));
        lanthorn_level::validate::validate(&l).unwrap_or_else(|e| panic!("{name}: {e}"));
        let cell_leaf = super::tree::build(map, name).unwrap().cell_leaf;
        check_portals(name, &l, map, &cell_leaf);
        match check_areas(name, &l, map, &cell_leaf) {
            Some(0) => {}
            Some(_) => door_maps.push(name.as_str()),
            None => open_area_portals.push(name.as_str()),
        }
        let (a, o, r) = check_light_grid(name, &l, &report);
        (grid_agree, grid_points) = (grid_agree + a, grid_points + o);
        grid_r.extend(r);
        let (a, p) = check_pvs(name, &l);
        let (r, t) = facing(name, &l, map, &report);
        (apart, portals, right, triangles) = (apart + a, portals + p, right + r, triangles + t);
        // Every spawn point stands in a cell (a point a hair above it: some sit on a floor).
        for e in l
            .entities
            .iter()
            .filter(|e| e.classname().starts_with("info_player"))
        {
            let at = e.origin().unwrap() + Vec3::Z;
            assert!(
                l.locate(at).is_some(),
                "{name}: {} at {at} is in no cell",
                e.classname()
            );
            spawns += 1;
        }
    }
    eprintln!(
        "{} maps: {apart} of {portals} portals join cells q3map2's vis keeps apart; {right} of {triangles} triangles face along their vertex normals; {spawns} spawn points in cells",
        maps.len()
    );
    grid_r.sort_by(f64::total_cmp);
    let median_r = grid_r[grid_r.len() / 2];
    eprintln!("light grids: {grid_agree} of {grid_points} points lit where the level is open and dark in solid; their light and the floor's below correlate by {median_r:.2} (median of {} maps)", grid_r.len());
    eprintln!("doors part two areas on {door_maps:?}; area portals no door shuts on {open_area_portals:?}");
    assert!(maps.len() >= 55 && spawns > 500);
    assert!(door_maps.contains(&"maps/oa_dm5.bsp") && open_area_portals.is_empty());
    // A grid one step off on x and y: 81 % agree, correlation 0.28.
    assert!(grid_agree * 100 >= grid_points * 83 && median_r > 0.35);
    // The rest lie in q3map2's merged ("meta") surfaces, whose vertex normals are not always
    // their triangles' (the game culls by winding alone, as the level does): 1,092 of 857,115
    // (patches cut by their bends; 1,098 of 1,188,744 with every patch at 8 steps).
    assert!(
        right * 1000 >= triangles * 998,
        "{right} of {triangles} triangles face along their normals"
    );
    assert!(
        apart * 1000 <= portals,
        "{apart} of {portals} portals join mutually invisible cells"
    );
}
