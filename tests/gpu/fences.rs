//! Fence textures (Quake's `{` names, palette index 255 a hole): a map with a red grate in front
//! of blue walls, compiled by ericw-tools (the map's own WAD2 written here), drawn at three
//! distances and checked pixel by pixel against the texels the rays meet, mip levels and all.

use glam::Vec3;

use crate::support::{capture, gpu};
use crate::terrain::pixel_direction;
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::render::settings::FrameSettings;
use lanthorn_testdata::{ericw_tool, run_ericw};

/// Texels across the textures.
const SIDE: usize = 64;
/// The grate's bars: centred on every 16th texel, 4 texels wide (both axes; the pattern reads
/// the same from either side).
fn bar(u: usize) -> bool {
    let m = u % 16;
    m.min(16 - m) < 2
}

/// The palette index nearest a colour, among those that are not fullbright.
fn index_of(palette: &[u8; 768], score: impl Fn([u8; 3]) -> i32) -> u8 {
    (0..224)
        .max_by_key(|&i| score([palette[3 * i], palette[3 * i + 1], palette[3 * i + 2]]))
        .unwrap() as u8
}

/// A WAD2 holding `textures` (name, 64×64 palette indices), each with its four mip levels.
fn wad2(textures: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = b"WAD2".to_vec();
    out.extend_from_slice(&[0; 8]);
    let mut entries = Vec::new();
    for (name, texels) in textures {
        let at = out.len();
        let mut name16 = [0u8; 16];
        name16[..name.len()].copy_from_slice(name.as_bytes());
        out.extend_from_slice(&name16);
        out.extend_from_slice(&(SIDE as u32).to_le_bytes());
        out.extend_from_slice(&(SIDE as u32).to_le_bytes());
        let mut offset = 40u32;
        for k in 0..4 {
            out.extend_from_slice(&offset.to_le_bytes());
            offset += ((SIDE >> k) * (SIDE >> k)) as u32;
        }
        for k in 0..4 {
            let side = SIDE >> k;
            for y in 0..side {
                out.extend((0..side).map(|x| texels[(y << k) * SIDE + (x << k)]));
            }
        }
        entries.push((at, out.len() - at, name16));
    }
    let table = out.len();
    for (at, len, name) in &entries {
        for v in [*at as i32, *len as i32, *len as i32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&[0x44, 0, 0, 0]);
        out.extend_from_slice(name);
    }
    out[4..8].copy_from_slice(&(entries.len() as i32).to_le_bytes());
    out[8..12].copy_from_slice(&(table as i32).to_le_bytes());
    out
}

/// The level: a long blue room, lit evenly (minlight only), a red grate across it at x = 256
/// (a `func_wall`, as fences are built).
fn fence_level(dir: &std::path::Path) -> Option<lanthorn::level::Level> {
    let palette =
        lanthorn::import::q1::read_palette(&lanthorn::realdata_dir().join("quake/palette.lmp"))?;
    let red = index_of(&palette, |[r, g, b]| r as i32 * 2 - g as i32 - b as i32);
    let blue = index_of(&palette, |[r, g, b]| b as i32 * 2 - g as i32 - r as i32);
    let grate = (0..SIDE * SIDE)
        .map(|i| {
            if bar(i % SIDE) || bar(i / SIDE) {
                red
            } else {
                255
            }
        })
        .collect();
    std::fs::create_dir_all(dir).unwrap();
    let wad = wad2(&[("{grate", grate), ("wallblue", vec![blue; SIDE * SIDE])]);
    std::fs::write(dir.join("fence.wad"), wad).unwrap();
    std::fs::write(dir.join("palette.lmp"), palette).unwrap();
    let (lo, hi, t) = ([-1024, 0, 0], [512, 512, 256], 16);
    let mut map =
        String::from("{\n\"classname\" \"worldspawn\"\n\"wad\" \"fence.wad\"\n\"light\" \"128\"\n");
    for k in 0..3 {
        let (mut a, mut b) = (lo.map(|v| v - t), hi.map(|v| v + t));
        b[k] = lo[k];
        map += &lanthorn_testdata::box_brush(a, b, "wallblue");
        (a, b) = (lo.map(|v| v - t), hi.map(|v| v + t));
        a[k] = hi[k];
        map += &lanthorn_testdata::box_brush(a, b, "wallblue");
    }
    map += "}\n{\n\"classname\" \"func_wall\"\n";
    map += &lanthorn_testdata::box_brush([256, 0, 0], [258, 512, 256], "{grate");
    map += "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 256 24\"\n}\n";
    let path = dir.join("fence.map");
    std::fs::write(&path, map).unwrap();
    let (qbsp, light) = (ericw_tool("qbsp")?, ericw_tool("light")?);
    let bsp = dir.join("fence.bsp");
    run_ericw(&qbsp, &[path.as_os_str(), bsp.as_os_str()]);
    run_ericw(&light, &[bsp.as_os_str()]);
    Some(lanthorn::load::load(&dir.join("fence.bsp")).unwrap())
}

/// The grate's alpha as the renderer's texture holds it: the 64² texture resampled to the
/// layer's 256², then each mip level the 2×2 mean of the one above, rounded as it rounds.
fn alpha_mips() -> Vec<Vec<u8>> {
    let n = lanthorn::render::materials::LAYER_SIZE as usize;
    let scale = n / SIDE;
    let base = (0..n * n)
        .map(|i| match bar(i % n / scale) || bar(i / n / scale) {
            true => 255u8,
            false => 0,
        })
        .collect::<Vec<_>>();
    let mut mips = vec![base];
    while mips.last().unwrap().len() > 1 {
        let (src, side) = (
            mips.last().unwrap(),
            (mips.last().unwrap().len() as f64).sqrt() as usize,
        );
        let half = side / 2;
        let next = (0..half * half)
            .map(|i| {
                let (x, y) = (2 * (i % half), 2 * (i / half));
                let s: u32 = [(0, 0), (1, 0), (0, 1), (1, 1)]
                    .iter()
                    .map(|(dx, dy)| src[(y + dy) * side + x + dx] as u32)
                    .sum();
                ((s + 2) / 4) as u8
            })
            .collect();
        mips.push(next);
    }
    mips
}

/// What pixel (x, y) should show, from where its ray meets the grate's plane: `Some(true)`
/// the grate, `Some(false)` the wall behind, `None` off the grate or too near a texel's edge
/// or a coverage of one half to say.
fn expected(cam: &Camera, size: (u32, u32), (x, y): (u32, u32), mips: &[Vec<u8>]) -> Option<bool> {
    let hit = |x: u32, y: u32| {
        let d = pixel_direction(cam, size, x, y);
        cam.position + d * ((256.0 - cam.position.x) / d.x)
    };
    let p = hit(x, y);
    if !(2.0..510.0).contains(&p.y) || !(2.0..254.0).contains(&p.z) {
        return None;
    }
    // Layer texels per pixel (texture s along +y, t along −z, 4 layer texels a unit) and the
    // level the sampler picks: nearest in each of two levels, blended.
    let step = (hit(x + 1, y) - p)
        .length()
        .max((hit(x, y + 1) - p).length())
        * 4.0;
    let lod = step.log2().clamp(0.0, (mips.len() - 1) as f32);
    let (level, blend) = (lod.floor() as usize, lod.fract());
    let sample = |l: usize| {
        let side = (mips[l].len() as f64).sqrt() as usize;
        let (u, v) = (p.y * 4.0 / (1 << l) as f32, -p.z * 4.0 / (1 << l) as f32);
        let near_edge = |c: f32| (c - c.round()).abs() < 0.05;
        let (ui, vi) = (
            (u.floor() as i64).rem_euclid(side as i64),
            (v.floor() as i64).rem_euclid(side as i64),
        );
        (
            mips[l][vi as usize * side + ui as usize] as f32 / 255.0,
            near_edge(u) || near_edge(v),
        )
    };
    let (a0, edge0) = sample(level);
    let (a1, edge1) = sample((level + 1).min(mips.len() - 1));
    let alpha = a0 + (a1 - a0) * blend;
    let doubtful = (alpha - 0.5).abs() < 0.1 || (edge0 && a0 != a1) || edge1 && blend > 0.0;
    (!doubtful).then_some(alpha >= 0.5)
}

/// Near (each texel several pixels), middling and far (several texels a pixel, mip levels):
/// the wall shows exactly through the grate's holes — every pixel the oracle is sure of shows
/// red where the grate's texel there is solid and blue where it is a hole (at most 0.5 % off,
/// the rasterizer's rounding) — and no pixel is darker than either colour (no fringe bled
/// from the holes).
#[test]
fn a_fence_shows_the_wall_exactly_through_its_holes_at_every_distance() {
    if gpu().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("lanthorn-fence-{}", std::process::id()));
    let Some(level) = fence_level(&dir) else {
        return;
    };
    let mips = alpha_mips();
    let size = (320u32, 240u32);
    for d in [40.0f32, 300.0, 600.0] {
        let spec = CameraSpec {
            position: Vec3::new(256.0 - d, 256.0, 128.0),
            yaw: 0.0,
            pitch: 0.0,
        };
        let cam = Camera::new(spec, size.0 as f32 / size.1 as f32);
        let img = capture(
            &level,
            spec,
            size,
            lanthorn::vis::CullMode::Portal,
            &FrameSettings::default(),
        );
        let (mut checked, mut wrong, mut dark) = (0, 0, 0);
        let (mut grate, mut holes) = (0, 0);
        for (x, y, px) in img.enumerate_pixels() {
            let [r, _, b, _] = px.0;
            dark += usize::from(r.max(b) < 40);
            let Some(solid) = expected(&cam, size, (x, y), &mips) else {
                continue;
            };
            checked += 1;
            (grate, holes) = (grate + solid as usize, holes + !solid as usize);
            wrong += usize::from((r > b) != solid);
        }
        println!("distance {d}: {checked} pixels sure ({grate} grate, {holes} holes), {wrong} wrong, {dark} dark");
        assert!(grate > 500 && holes > 500, "{grate} {holes}");
        assert!(wrong * 200 <= checked, "{wrong} of {checked} wrong at {d}");
        assert_eq!(dark, 0, "dark pixels at {d}");
    }
    // LANTHORN_KEEP_FENCE=1 keeps the map and its BSP (to draw them in quakespasm).
    if std::env::var_os("LANTHORN_KEEP_FENCE").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
