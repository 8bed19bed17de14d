//! A small map written here by the format's public layout, each way a damaged one fails (one
//! error naming the lump and record), random damage, and OpenArena's 62 maps where Debian
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
        [
            vertex(-64.0, -64.0),
            vertex(64.0, -64.0),
            vertex(64.0, 64.0),
            vertex(-64.0, 64.0),
        ]
        .concat(),
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
