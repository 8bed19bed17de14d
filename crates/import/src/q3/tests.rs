//! Small maps written here by the format's public layout (a floor; two areas with a door in
//! the area portal between them), each way a damaged one fails (one error naming the lump and
//! record), random damage, and OpenArena's 62 maps where Debian
//! installs them: every one reads, and holds what q3map2 always writes (models that cover the
//! surfaces in order, a tree that reaches no leaf twice); how many have a visibility lump is printed (a map compiled
//! without vis has none).

use super::*;
use crate::pk3::Pk3;

fn le(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn lef(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The file of these 17 lumps.
fn ibsp(lumps: &[Vec<u8>; 17]) -> Vec<u8> {
    let mut out = b"IBSP".to_vec();
    out.extend_from_slice(&46i32.to_le_bytes());
    let mut offset = 8 + 17 * 8;
    for l in lumps {
        out.extend_from_slice(&le(&[offset as i32, l.len() as i32]));
        offset += l.len();
    }
    for l in lumps {
        out.extend_from_slice(l);
    }
    out
}

/// The vertices lump of a square ±64 on a side, `vertex` making each from its two coordinates,
/// in the order the indices `0 1 2 0 2 3` draw it.
fn quad_vertices(vertex: impl Fn(f32, f32) -> Vec<u8>) -> Vec<u8> {
    [(-64.0, -64.0), (64.0, -64.0), (64.0, 64.0), (-64.0, 64.0)]
        .map(|(a, b)| vertex(a, b))
        .concat()
}

/// A floor quad over one plane: a root node with an empty leaf in front and a solid one behind,
/// one planar surface (two triangles) in model 0, one lightmap page, one cluster.
fn floor() -> [Vec<u8>; 17] {
    let mut shader = b"textures/base_floor/tile".to_vec();
    shader.resize(64, 0);
    shader.extend(le(&[0, 1]));
    let vertex = |x: f32, y: f32| {
        let mut v = lef(&[x, y, 0.0, x / 64.0, y / 64.0, 0.5, 0.5, 0.0, 0.0, 1.0]);
        v.extend([255, 255, 255, 255]);
        v
    };
    let mut surface = le(&[0, -1, 1, 0, 4, 0, 6, 0, 0, 0, 8, 8]);
    surface.extend(lef(&[0.0; 12]));
    surface.extend(le(&[0, 0]));
    [
        b"{\n\"classname\" \"worldspawn\"\n}\n\0".to_vec(),
        shader,
        lef(&[0.0, 0.0, 1.0, 0.0]),
        le(&[0, -1, -2, -64, -64, -64, 64, 64, 64]),
        [
            le(&[0, 0, -64, -64, 0, 64, 64, 64, 0, 1, 0, 0]),
            le(&[-1, 0, -64, -64, -64, 64, 64, 0, 1, 0, 0, 0]),
        ]
        .concat(),
        le(&[0]),
        Vec::new(),
        [
            lef(&[-64.0, -64.0, 0.0, 64.0, 64.0, 0.0]),
            le(&[0, 1, 0, 0]),
        ]
        .concat(),
        Vec::new(),
        Vec::new(),
        quad_vertices(vertex),
        le(&[0, 1, 2, 0, 2, 3]),
        Vec::new(),
        surface,
        vec![128; LIGHTMAP_BYTES],
        vec![7; 16],
        [le(&[1, 1]), vec![1]].concat(),
    ]
}

#[test]
fn a_written_map_reads_back() {
    let map = read(&ibsp(&floor()), "floor.bsp").unwrap();
    assert_eq!(map.shaders[0].name, "textures/base_floor/tile");
    assert_eq!(map.nodes[0].children, [-1, -2]);
    assert_eq!(map.leaves[1].cluster, -1);
    assert_eq!(map.surfaces[0].kind, SurfaceType::Planar);
    assert_eq!(map.surfaces[0].vertices, 0..4);
    assert_eq!(map.indices, [0, 1, 2, 0, 2, 3]);
    assert_eq!(map.vertices[2].position, [64.0, 64.0, 0.0]);
    assert_eq!(map.models[0].surfaces, 0..1);
    assert_eq!(map.lightmap_pages(), 1);
    assert_eq!(map.light_grid.len(), 2);
    assert_eq!(map.visibility.as_ref().unwrap().clusters, 1);
    assert!(map.entities.contains("worldspawn"));
}

/// `floor()` with lump `n`'s bytes `at..` replaced by `with`.
fn damaged(n: usize, at: usize, with: &[i32]) -> String {
    let mut lumps = floor();
    let w = le(with);
    lumps[n][at..at + w.len()].copy_from_slice(&w);
    read(&ibsp(&lumps), "bad.bsp").unwrap_err().to_string()
}

#[test]
fn damaged_maps_are_one_clear_error() {
    let cases = [
        (damaged(3, 0, &[5]), "nodes 0 names plane 5 of 1"),
        (damaged(3, 4, &[9]), "nodes 0 has child 9"),
        (
            damaged(4, 32, &[0, 2]),
            "leafs 0 lists leafsurfaces 0..2 of 1",
        ),
        (damaged(4, 0, &[3]), "leafs 0 has cluster 3"),
        (damaged(5, 0, &[1]), "leafsurfaces 0 names surface 1 of 1"),
        (damaged(7, 24, &[0, 2]), "models 0 lists surfaces 0..2 of 1"),
        (damaged(13, 0, &[4]), "surfaces 0 names shader 4 of 1"),
        (damaged(13, 8, &[7]), "surface type 7"),
        (damaged(13, 12, &[2, 4]), "surfaces 0 lists vertices 2..6"),
        (damaged(13, 28, &[1]), "lightmap page 1 of 1"),
        (
            damaged(13, 8, &[2]),
            "is a patch of 0 × 0 control points over 4 vertices",
        ),
        (damaged(11, 8, &[4]), "not triangles of its 4 vertices"),
        (damaged(13, 12, &[-1]), "negative first index or count"),
        (
            damaged(16, 0, &[2, 1]),
            "holds 1 bytes of rows where its header says 2 clusters",
        ),
    ];
    for (err, expected) in cases {
        assert!(
            err.starts_with("bad.bsp: ") && err.contains(expected),
            "{err}\nexpected {expected:?}"
        );
    }
    // A fog the map does not have is none, as engines take it.
    let mut lumps = floor();
    lumps[13][4..8].copy_from_slice(&0i32.to_le_bytes());
    assert_eq!(read(&ibsp(&lumps), "fog.bsp").unwrap().surfaces[0].fog, -1);
    let mut file = ibsp(&floor());
    let past = (file.len() as i32).to_le_bytes();
    file[8 + 13 * 8..8 + 13 * 8 + 4].copy_from_slice(&past);
    let err = read(&file, "far.bsp").unwrap_err().to_string();
    assert!(
        err.contains("lump surfaces") && err.contains("outside the file"),
        "{err}"
    );
    let mut lumps = floor();
    lumps[2].pop();
    let err = read(&ibsp(&lumps), "cut.bsp").unwrap_err().to_string();
    assert!(
        err.contains("planes") && err.contains("16-byte records"),
        "{err}"
    );
    let err = read(b"IBSP\x26\0\0\0", "q2.bsp").unwrap_err().to_string();
    assert!(err.contains("truncated"), "{err}");
    let mut q2 = ibsp(&floor());
    q2[4] = 38;
    let err = read(&q2, "q2.bsp").unwrap_err().to_string();
    assert!(
        err.contains("version 38") && err.contains("Quake 3 maps"),
        "{err}"
    );
}

/// Random damage never panics, hangs or allocates past the file: it reads, or one error says
/// why.
#[test]
fn corrupted_maps_never_panic() {
    let good = ibsp(&floor());
    let mut rng = lanthorn_geom::rng::XorShift::seeded(3);
    for _ in 0..2000 {
        let mut bytes = good.clone();
        for _ in 0..1 + rng.below(6) {
            let i = rng.below(bytes.len());
            bytes[i] = rng.below(256) as u8;
        }
        let _ = read(&bytes, "mutant.bsp");
    }
    for len in 0..good.len() {
        let _ = read(&good[..len], "cut.bsp");
    }
}

/// Leaves reached from node 0, each counted.
fn leaves_reached(map: &Ibsp) -> Vec<u32> {
    let mut seen = vec![0u32; map.leaves.len()];
    let mut stack = vec![0i32];
    let mut steps = 0;
    while let Some(c) = stack.pop() {
        steps += 1;
        assert!(
            steps <= 2 * (map.nodes.len() + map.leaves.len()),
            "the tree has a cycle"
        );
        match c >= 0 {
            true => stack.extend(map.nodes[c as usize].children),
            false => seen[(-c - 1) as usize] += 1,
        }
    }
    seen
}

/// OpenArena's maps from Debian's pk3 files: each reads, and holds what q3map2 writes.
#[test]
fn openarenas_maps_read_and_hold_what_q3map2_writes() {
    let base = std::path::Path::new(lanthorn_testdata::OPENARENA_BASEOA);
    let mut pk3s: Vec<std::path::PathBuf> = match std::fs::read_dir(base) {
        Ok(dir) => dir.flatten().map(|e| e.path()).collect(),
        Err(_) => return lanthorn_testdata::missing_realdata(base),
    };
    pk3s.retain(|p| {
        p.file_name().is_some_and(|n| {
            lanthorn_testdata::OPENARENA_DEVELOPMENT_PK3S
                .iter()
                .any(|d| n == *d)
        })
    });
    let (mut maps, mut surfaces, mut patches, mut with_vis) = (0, 0, 0, 0);
    for path in &pk3s {
        let pk3 = Pk3::open(path).unwrap();
        for e in pk3
            .entries
            .iter()
            .filter(|e| e.name.starts_with("maps/") && e.name.ends_with(".bsp"))
        {
            let origin = format!("{}:{}", path.display(), e.name);
            let map = read(&pk3.read(e).unwrap(), &origin).unwrap_or_else(|err| panic!("{err}"));
            // The models cover the surfaces in order, the world's first.
            let mut next = 0;
            for m in &map.models {
                assert_eq!(m.surfaces.start, next, "{origin}");
                next = m.surfaces.end;
            }
            assert_eq!(next as usize, map.surfaces.len(), "{origin}");
            // A tree: no leaf twice from the root; those it does not reach are at most one a
            // model (q3map2 writes a leaf for each brush model outside the world's tree).
            let reached = leaves_reached(&map);
            assert!(reached.iter().all(|&n| n <= 1), "{origin}");
            let unreached = reached.iter().filter(|&&n| n == 0).count();
            assert!(
                unreached <= map.models.len(),
                "{origin}: {unreached} leaves unreached"
            );
            with_vis += map.visibility.is_some() as usize;
            surfaces += map.surfaces.len();
            patches += map
                .surfaces
                .iter()
                .filter(|s| s.kind == SurfaceType::Patch)
                .count();
            maps += 1;
        }
    }
    eprintln!("{maps} maps ({with_vis} with visibility), {surfaces} surfaces, {patches} patches");
    assert!(maps >= 60 && patches > 0, "{maps} maps, {patches} patches");
}

/// Two rooms and the area-portal leaf between them, a door filling it: x < −8 is leaf A (area
/// 0), −8..8 leaf P (the area-portal brush's: cluster 2, area −1), x > 8 leaf B (area 1), all
/// in the tree's box ±64; the door (model 1, `func_door` with `spawnflags`) is one face at
/// x = −8 over the box's section.
fn door_map(spawnflags: u32) -> [Vec<u8>; 17] {
    let mut shader = b"textures/door".to_vec();
    shader.resize(64, 0);
    shader.extend(le(&[0, 1]));
    let vertex = |y: f32, z: f32| {
        let mut v = lef(&[-8.0, y, z, y / 64.0, z / 64.0, 0.0, 0.0, -1.0, 0.0, 0.0]);
        v.extend([255, 255, 255, 255]);
        v
    };
    let mut surface = le(&[0, -1, 1, 0, 4, 0, 6, -1, 0, 0, 0, 0]);
    surface.extend(lef(&[0.0; 9]));
    surface.extend(lef(&[-1.0, 0.0, 0.0]));
    surface.extend(le(&[0, 0]));
    let leaf = |cluster: i32, area: i32, x0: i32, x1: i32| {
        le(&[cluster, area, x0, -64, -64, x1, 64, 64, 0, 0, 0, 0])
    };
    let model = |x0: f32, x1: f32, surfaces: [i32; 2]| {
        [
            lef(&[x0, -64.0, -64.0, x1, 64.0, 64.0]),
            le(&[surfaces[0], surfaces[1], 0, 0]),
        ]
        .concat()
    };
    let entities = format!(
        "{{\n\"classname\" \"worldspawn\"\n}}\n{{\n\"classname\" \"func_door\"\n\"model\" \"*1\"\n\"angle\" \"-1\"\n\"spawnflags\" \"{spawnflags}\"\n}}\n\0"
    );
    [
        entities.into_bytes(),
        shader,
        [lef(&[1.0, 0.0, 0.0, -8.0]), lef(&[1.0, 0.0, 0.0, 8.0])].concat(),
        [
            le(&[0, 1, -1, -64, -64, -64, 64, 64, 64]),
            le(&[1, -2, -3, -8, -64, -64, 64, 64, 64]),
        ]
        .concat(),
        [leaf(0, 0, -64, -8), leaf(1, 1, 8, 64), leaf(2, -1, -8, 8)].concat(),
        Vec::new(),
        Vec::new(),
        [model(-64.0, 64.0, [0, 0]), model(-8.0, 8.0, [0, 1])].concat(),
        Vec::new(),
        Vec::new(),
        quad_vertices(vertex),
        le(&[0, 1, 2, 0, 2, 3]),
        Vec::new(),
        surface,
        Vec::new(),
        Vec::new(),
        [le(&[3, 1]), vec![7, 7, 7]].concat(),
    ]
}

/// The door closes both portals of the area-portal leaf, so no open portal joins the two
/// areas; spawned open (`spawnflags 1`), it closes none.
#[test]
fn a_door_in_an_area_portal_shuts_the_way_between_the_areas() {
    use lanthorn_level::spawn::{apply, SpawnRules};
    let map = read(&ibsp(&door_map(0)), "door.bsp").unwrap();
    let (mut level, _) = to_level(&map, "door.bsp", &NoFiles).unwrap();
    lanthorn_level::validate::validate(&level).unwrap();
    assert_eq!(
        (level.cells.len(), level.portals.len()),
        (3, 2),
        "A–P and P–B"
    );
    let cell_of_x = |x: f32| level.locate(glam::Vec3::new(x, 0.0, 0.0)).unwrap();
    let (a, p, b) = (cell_of_x(-40.0), cell_of_x(0.0), cell_of_x(40.0));
    let mut of_p = level.cells[p as usize].portals.clone();
    of_p.sort_unstable();
    assert_eq!(level.objects.len(), 1);
    assert_eq!(level.objects[0].closes, of_p);
    // Past the shut portals A reaches nothing, and never B.
    let open = |c: u32| {
        let portals = level.cells[c as usize].portals.iter();
        portals
            .filter(|q| !level.objects[0].closes.contains(q))
            .count()
    };
    assert_eq!((open(a), open(b)), (0, 0));
    apply(&mut level, SpawnRules::default());
    assert!(!level.objects[0].closes.is_empty(), "shut as it spawns");
    let map = read(&ibsp(&door_map(1)), "door.bsp").unwrap();
    let (mut level, _) = to_level(&map, "door.bsp", &NoFiles).unwrap();
    apply(&mut level, SpawnRules::default());
    assert!(
        level.objects[0].closes.is_empty(),
        "spawned open, it shuts nothing"
    );
}
