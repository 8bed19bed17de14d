//! Small `.map` texts for tests, here and in the crates above (feature `test-hooks`).

/// An axis-aligned box brush from `a` to `b` in standard `.map` syntax, every face `tex`.
pub(crate) fn box_brush(a: [f64; 3], b: [f64; 3], tex: &str) -> String {
    lanthorn_testdata::box_brush(a, b, tex)
}

/// A sealed two-room map written as `.map` text: a 1024×512×256 box of six walls, a
/// pool of water, a sky ceiling patch, a detail pillar, a door and a light.
pub fn room_map(skip_wall: Option<usize>) -> String {
    let boxb = box_brush;
    let (t, x, y, z) = (16.0, 1024.0, 512.0, 256.0);
    let walls = [
        boxb([-t, -t, -t], [0.0, y + t, z + t], "wall"),
        boxb([x, -t, -t], [x + t, y + t, z + t], "wall"),
        boxb([-t, -t, -t], [x + t, 0.0, z + t], "wall"),
        boxb([-t, y, -t], [x + t, y + t, z + t], "wall"),
        boxb([-t, -t, -t], [x + t, y + t, 0.0], "floor"),
        boxb([-t, -t, z], [x + t, y + t, z + t], "sky1"),
    ];
    let mut s = String::from("{\n\"classname\" \"worldspawn\"\n\"wad\" \"gfx/base.wad\"\n");
    for (i, w) in walls.iter().enumerate() {
        if Some(i) != skip_wall {
            s += w;
        }
    }
    s += &boxb([600.0, 100.0, 0.0], [900.0, 400.0, 64.0], "*water0");
    s += "}\n{\n\"classname\" \"func_detail\"\n";
    s += &boxb([200.0, 200.0, 0.0], [232.0, 232.0, 256.0], "pillar");
    s += "}\n{\n\"classname\" \"func_door\"\n\"targetname\" \"d1\"\n";
    s += &boxb([500.0, 0.0, 0.0], [508.0, 128.0, 128.0], "door");
    s += "}\n{\n\"classname\" \"trigger_once\"\n";
    s += &boxb([10.0, 10.0, 10.0], [50.0, 50.0, 50.0], "trigger");
    s += "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"64 64 24\"\n}\n";
    s += "{\n\"classname\" \"light\"\n\"origin\" \"700 200 200\"\n}\n";
    s
}
