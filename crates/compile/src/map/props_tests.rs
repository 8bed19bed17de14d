use super::*;
use proptest::prelude::*;

pub(crate) fn box_text(a: [i32; 3], b: [i32; 3], tex: &str) -> String {
    lanthorn_testdata::box_brush(a, b, tex)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// A sealed hull with random solid and water boxes inside: at random points, the
    /// compiled level's cell (or its absence) agrees with the brushes themselves.
    #[test]
    fn cells_match_the_brushes(
        boxes in prop::collection::vec((prop::array::uniform3(0i32..16), prop::array::uniform3(1i32..6), 0u8..4), 0..12),
        max_cell in prop_oneof![Just(128.0), Just(512.0)],
    ) {
        let n = 1024;
        let mut text = String::from("{\n\"classname\" \"worldspawn\"\n");
        for k in 0..3 {
            let (mut lo, mut hi) = ([-16; 3], [n + 16; 3]);
            hi[k] = 0;
            text += &box_text(lo, hi, "wall");
            lo[k] = n;
            hi[k] = n + 16;
            text += &box_text(lo, hi, "wall");
        }
        let mut brushes = Vec::new();
        for (lo, size, kind) in &boxes {
            let a = [lo[0] * 64, lo[1] * 64, lo[2] * 64];
            let b = [(a[0] + size[0] * 48).min(n), (a[1] + size[1] * 48).min(n), (a[2] + size[2] * 48).min(n)];
            if (0..3).any(|k| b[k] <= a[k]) {
                continue;
            }
            let tex = if *kind == 0 { "*water1" } else { "rock" };
            text += &box_text(a, b, tex);
            brushes.push((a, b, *kind == 0));
        }
        text += "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"-8 -8 -8\"\n}\n";
        let options = CompileOptions { max_cell_size: max_cell, leak_file: Some(std::env::temp_dir().join("lanthorn-prop.pts")), ..Default::default() };
        let (level, stats) = compile_map_text(&text, &options).unwrap();
        prop_assert_eq!(stats.failed_brushes, 0);
        lanthorn_level::file::validate(&level).unwrap();
        for c in &level.cells {
            prop_assert!(c.aabb.size().max_element() <= max_cell as f32 + 1e-3);
        }
        let mut s = 12345u64 + boxes.len() as u64;
        let mut rnd = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); ((s >> 33) % 10000) as f32 / 10000.0 };
        for _ in 0..300 {
            let p = Vec3::new(rnd(), rnd(), rnd()) * (n as f32) + Vec3::splat(0.37);
            let inside = |&(a, b, _): &([i32; 3], [i32; 3], bool)| (0..3).all(|k| p[k] > a[k] as f32 && p[k] < b[k] as f32);
            let near = brushes.iter().any(|&(a, b, _)| (0..3).any(|k| (p[k] - a[k] as f32).abs() < 0.01 || (p[k] - b[k] as f32).abs() < 0.01));
            if near { continue; }
            let solid = brushes.iter().filter(|b| !b.2).any(inside);
            let water = brushes.iter().filter(|b| b.2).any(inside);
            let cell = level.locate(p).filter(|&c| level.cells[c as usize].contains(p, 0.01));
            match cell {
                None => prop_assert!(solid, "no cell at open point {}", p),
                Some(c) => {
                    prop_assert!(!solid, "cell {} at solid point {}", c, p);
                    let want = if water { Medium::Water } else { Medium::Air };
                    prop_assert_eq!(level.cells[c as usize].medium, want, "at {}", p);
                }
            }
        }
        super::tests::check_portals_and_locate(&level);
    }

    /// Mangled map text never panics the compiler: it compiles, or it is an error.
    #[test]
    fn mangled_maps_never_panic(cut in 0usize..4000, flips in prop::collection::vec((0usize..4000, 0u8..128), 0..6)) {
        let mut bytes = super::tests::room_map(None).into_bytes();
        for (at, b) in flips {
            let i = at % bytes.len();
            bytes[i] = b;
        }
        bytes.truncate(cut.max(1).min(bytes.len()));
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let options = CompileOptions { leak_file: Some(std::env::temp_dir().join("lanthorn-prop2.pts")), ..Default::default() };
        let _ = compile_map_text(&text, &options);
    }
}
