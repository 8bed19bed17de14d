//! What the tests of every Lanthorn crate share: where the real data is, a loud skip when it
//! is missing, and oracles over levels (triangulations, objects linked where they are seen).
//! A development dependency only: nothing that ships depends on it.

/// Where the shared real data lives (../shared/realdata relative to the workspace), overridable
/// with `LANTHORN_REALDATA`: the tests' data, never a user's (their files come from their
/// arguments and a game's search path).
pub fn realdata_dir() -> std::path::PathBuf {
    if let Ok(p) = std::env::var("LANTHORN_REALDATA") {
        return p.into();
    }
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realdata")
}

/// Real data is missing: skip loudly, or fail when the environment says it must be there.
pub fn missing_realdata(path: &std::path::Path) {
    let required = std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("LANTHORN_REQUIRE_GPU").is_ok_and(|v| v == "1");
    if required {
        panic!(
            "real data missing at {} (required because CI=true or LANTHORN_REQUIRE_GPU=1)",
            path.display()
        );
    }
    eprintln!(
        "\n*** SKIPPED: real data missing at {} ***\n",
        path.display()
    );
}

/// Why a surface's triangles are not a clean triangulation of its outline: a flat triangle
/// (under 0.001 units high: ten times the float error of a Quake coordinate, so the three
/// points are really collinear), one that winds against the surface's normal (it overlaps its
/// neighbours), or triangles whose area, projected on the surface's plane, is not the
/// outline's (a gap). `None` when clean.
pub fn bad_triangulation(s: &lanthorn_level::Surface) -> Option<String> {
    use lanthorn_geom::triangulate::triangle_height;
    let p = |i: u32| s.vertices[i as usize].position.as_dvec3();
    let normal = s.normal.as_dvec3().normalize_or_zero();
    let mut area = 0.0;
    for t in s.indices.chunks(3) {
        let h = triangle_height(p(t[0]), p(t[1]), p(t[2]));
        if !(h >= 1e-3) {
            return Some(format!("triangle {t:?} has height {h:.2e}"));
        }
        let signed = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])).dot(normal) * 0.5;
        if signed <= 0.0 {
            return Some(format!("triangle {t:?} winds against the surface"));
        }
        area += signed;
    }
    // The outline: the boundary vertices in order (a fan centre lies on no boundary edge).
    let outline: Vec<glam::DVec3> = lanthorn_level::tjunctions::outline(s)
        .iter()
        .map(|v| v.position.as_dvec3())
        .collect();
    let polygon = lanthorn_geom::DPolygon::new(outline)
        .area_vector()
        .dot(normal);
    if (area - polygon).abs() > 1e-3 * polygon.abs().max(1.0) {
        return Some(format!(
            "triangles cover {area:.3}, the outline {polygon:.3}"
        ));
    }
    None
}

/// The first object surface that faces open space but is linked to no cell holding a point in
/// front of it, at spawn and at eight moments of its motion: `None` when every object is
/// linked where it can be seen. The oracle is point location (`Level::locate`), independent
/// of how `vis::objects` links: points 0.5 units in front of each triangle's centre and of
/// points near its corners, each in an open cell, must be in a cell the object is linked to.
pub fn object_seen_from_an_unlinked_cell(level: &lanthorn_level::Level) -> Option<String> {
    use glam::Vec3;
    use lanthorn_vis::objects::ObjectLinks;
    let mut links = ObjectLinks::new(level);
    for (i, o) in level.objects.iter().enumerate() {
        let times: Vec<f64> = match &o.motion {
            Some(m) => (0..8).map(|k| m.period() as f64 * k as f64 / 8.0).collect(),
            None => vec![0.0],
        };
        for t in times {
            let origin = o.origin + o.motion.as_ref().map_or(Vec3::ZERO, |m| m.offset(t));
            links.place(level, i as u32, origin);
            for &s in &o.surfaces {
                let surf = &level.surfaces[s as usize];
                for (q, n) in surface_samples(surf, origin, 0.9) {
                    let Some(cell) = level.locate(q + n * 0.5) else {
                        continue;
                    };
                    if !links.cells_of[i].contains(&cell) {
                        return Some(format!(
                            "object {i} ({}) at {origin}: surface {s} is seen from cell {cell} (at {}), which it is not linked to (its cells {:?})",
                            o.name,
                            q + n * 0.5,
                            links.cells_of[i]
                        ));
                    }
                }
            }
        }
    }
    None
}

/// A seeded stream of numbers in [0, 1) (a 64-bit LCG's high bits): tests that sample eyes
/// get the same ones every run.
pub fn unit_random(mut seed: u64) -> impl FnMut() -> f32 {
    move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as f32 / (1u64 << 31) as f32
    }
}

/// A point in the box of a cell of `level` picked by `rnd` ([`unit_random`]).
pub fn point_in_a_cell(level: &lanthorn_level::Level, rnd: &mut impl FnMut() -> f32) -> glam::Vec3 {
    let n = level.cells.len();
    let cell = &level.cells[(rnd() * n as f32) as usize % n];
    cell.aabb.min + glam::Vec3::new(rnd(), rnd(), rnd()) * cell.aabb.size()
}

/// Points of a surface (moved by `origin`) with their triangle's normal: each triangle's
/// centre and the points `toward` of the way from it to each corner.
pub fn surface_samples(
    s: &lanthorn_level::Surface,
    origin: glam::Vec3,
    toward: f32,
) -> Vec<(glam::Vec3, glam::Vec3)> {
    let mut out = Vec::new();
    for tri in s.indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|k| s.vertices[tri[k] as usize].position + origin);
        let n = (b - a).cross(c - a).normalize_or_zero();
        let centre = (a + b + c) / 3.0;
        for q in [
            centre,
            centre.lerp(a, toward),
            centre.lerp(b, toward),
            centre.lerp(c, toward),
        ] {
            out.push((q, n));
        }
    }
    out
}

/// An ericw-tools program (`qbsp`, `vis`, `light`, …) from the shared tools
/// (../shared/tools/ericw/bin): the compiler community maps are made with, a test oracle that
/// writes every Quake BSP format. `None` after a loud skip when it is missing (a failure
/// where real data is required: `missing_realdata`).
pub fn ericw_tool(name: &str) -> Option<std::path::PathBuf> {
    let path = realdata_dir().join("../tools/ericw/bin").join(name);
    if path.is_file() {
        return Some(path);
    }
    missing_realdata(&path);
    None
}

/// Runs an ericw-tools program on `args` (quietly, without progress bars); panics with its
/// output when it fails.
pub fn run_ericw(tool: &std::path::Path, args: &[&std::ffi::OsStr]) {
    let out = std::process::Command::new(tool)
        .arg("-noprogress")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", tool.display()));
    assert!(
        out.status.success(),
        "{} {args:?} failed:\n{}{}",
        tool.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One of the id maps' sources (`quake/maps/NAME.map`) copied into `dir` with the wads its
/// `"wad"` key names (`gfx/*.wad`, relative to the map, as ericw-tools reads them) and the
/// palette; the copy's path. `None` after a loud skip when the real data is missing.
pub fn id_map_in(dir: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
    let quake = realdata_dir().join("quake");
    let source = quake.join("maps").join(format!("{name}.map"));
    if !source.is_file() {
        missing_realdata(&source);
        return None;
    }
    std::fs::create_dir_all(dir.join("gfx")).unwrap();
    for wad in std::fs::read_dir(quake.join("wads")).unwrap().flatten() {
        std::fs::copy(wad.path(), dir.join("gfx").join(wad.file_name())).unwrap();
    }
    std::fs::copy(quake.join("palette.lmp"), dir.join("palette.lmp")).unwrap();
    let map = dir.join(format!("{name}.map"));
    std::fs::copy(&source, &map).unwrap();
    Some(map)
}

/// A Quake WAD2 texture file rewritten as Half-Life's WAD3 with `palette` appended to every
/// texture (its colour count, 256, the 768 colour bytes, two bytes of padding), as Half-Life's
/// tools write textures: what ericw-tools' `qbsp -hlbsp` embeds, palettes and all.
pub fn wad3_from_wad2(wad2: &[u8], palette: &[u8; 768]) -> Vec<u8> {
    let int = |o: usize| i32::from_le_bytes(wad2[o..o + 4].try_into().unwrap());
    let (count, table) = (int(4) as usize, int(8) as usize);
    let mut out = b"WAD3".to_vec();
    out.extend_from_slice(&[0; 8]);
    let mut entries = Vec::new();
    for k in 0..count {
        let e = table + 32 * k;
        let (pos, size) = (int(e) as usize, int(e + 4) as usize);
        let (mut kind, name) = (wad2[e + 12], &wad2[e + 16..e + 32]);
        let mut data = wad2[pos..pos + size].to_vec();
        if kind == 0x44 {
            // A WAD2 miptex (0x44) becomes a WAD3 one (0x43), its palette after it.
            data.extend_from_slice(&256u16.to_le_bytes());
            data.extend_from_slice(palette);
            data.extend_from_slice(&[0, 0]);
            kind = 0x43;
        }
        let at = out.len();
        out.extend_from_slice(&data);
        out.resize(out.len().next_multiple_of(4), 0);
        entries.push((at, data.len(), kind, name));
    }
    let table = out.len();
    for (at, len, kind, name) in &entries {
        for v in [*at as i32, *len as i32, *len as i32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&[*kind, 0, 0, 0]);
        out.extend_from_slice(name);
    }
    out[4..8].copy_from_slice(&(entries.len() as i32).to_le_bytes());
    out[8..12].copy_from_slice(&(table as i32).to_le_bytes());
    out
}

/// An axis-aligned box brush from corner `a` to corner `b` in Quake `.map` syntax, every face
/// `tex` (the coordinates as written: numbers, or text a test damages on purpose).
pub fn box_brush<T: std::fmt::Display>(a: [T; 3], b: [T; 3], tex: &str) -> String {
    let ([x0, y0, z0], [x1, y1, z1]) = (a, b);
    format!(
        "{{\n( {x0} {y0} {z0} ) ( {x0} {y1} {z0} ) ( {x0} {y0} {z1} ) {tex} 0 0 0 1 1\n\
         ( {x1} {y0} {z0} ) ( {x1} {y0} {z1} ) ( {x1} {y1} {z0} ) {tex} 0 0 0 1 1\n\
         ( {x0} {y0} {z0} ) ( {x0} {y0} {z1} ) ( {x1} {y0} {z0} ) {tex} 0 0 0 1 1\n\
         ( {x0} {y1} {z0} ) ( {x1} {y1} {z0} ) ( {x0} {y1} {z1} ) {tex} 0 0 0 1 1\n\
         ( {x0} {y0} {z0} ) ( {x1} {y0} {z0} ) ( {x0} {y1} {z0} ) {tex} 0 0 0 1 1\n\
         ( {x0} {y0} {z1} ) ( {x0} {y1} {z1} ) ( {x1} {y0} {z1} ) {tex} 0 0 0 1 1\n}}\n"
    )
}

/// Where Debian installs OpenArena's game folder.
pub const OPENARENA_BASEOA: &str = "/usr/share/games/openarena/baseoa";

/// OpenArena's archives from the Debian packages maps are developed and tested with
/// (`openarena-data`, `openarena-081-*`, `openarena-085-data`): the maps that later packages
/// add (`openarena-088-data`, `openarena-oacmp1`) are held out for checking afterwards.
pub const OPENARENA_DEVELOPMENT_PK3S: [&str; 8] = [
    "pak0.pk3",
    "pak1-maps.pk3",
    "pak2-players-mature.pk3",
    "pak2-players.pk3",
    "pak4-textures.pk3",
    "pak5-TA.pk3",
    "pak6-misc.pk3",
    "pak6-patch085.pk3",
];

/// Pearson's correlation of the pairs (NaN for fewer than two or no spread).
pub fn correlation(pairs: &[(f64, f64)]) -> f64 {
    let n = pairs.len() as f64;
    let (mx, my) = pairs
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let cov: f64 = pairs.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let vx: f64 = pairs.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    let vy: f64 = pairs.iter().map(|(_, y)| (y - my).powi(2)).sum();
    cov / (vx * vy).sqrt()
}
