//! Coloured light reaches the frame: dm3 with every light coloured, compiled and lit by
//! ericw-tools with a `.lit` beside it, drawn with and without that `.lit` at its start.

use crate::support::{capture, gpu};
use lanthorn::render::settings::FrameSettings;
use lanthorn_testdata::{ericw_tool, run_ericw};

/// A pixel is its texel times its light (in the frame's gamma values), so between the frame lit
/// in colour and the one lit grey, per pixel the green ratio over the red ratio is the light's
/// own green over red, whatever the texture: for `_color` 255 128 64, 0.5, and blue 0.25. The
/// medians over the well-lit pixels are within 0.05 of those.
#[test]
fn coloured_light_reaches_the_frame_with_its_hue() {
    if gpu().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("lanthorn-coloured-frame-{}", std::process::id()));
    let Some(map) = lanthorn_testdata::id_map_in(&dir, "dm3") else {
        return;
    };
    let text = std::fs::read_to_string(&map).unwrap().replace(
        "\"classname\"\t\"light",
        "\"_color\" \"255 128 64\"\n\"classname\" \"light",
    );
    std::fs::write(&map, text).unwrap();
    let (Some(qbsp), Some(light)) = (ericw_tool("qbsp"), ericw_tool("light")) else {
        return;
    };
    let bsp = dir.join("dm3.bsp");
    run_ericw(&qbsp, &[map.as_os_str(), bsp.as_os_str()]);
    run_ericw(&light, &["-lit".as_ref(), bsp.as_os_str()]);
    let coloured = lanthorn::load::load(&bsp).unwrap();
    std::fs::remove_file(dir.join("dm3.lit")).unwrap();
    let grey = lanthorn::load::load(&bsp).unwrap();
    let spec = coloured.player_start().unwrap();
    let size = (480, 270);
    let frame = |level| {
        let cull = lanthorn::vis::CullMode::Portal;
        capture(level, spec, size, cull, &FrameSettings::default())
    };
    let (c, g) = (frame(&coloured), frame(&grey));
    let (mut green, mut blue) = (Vec::new(), Vec::new());
    for (pc, pg) in c.pixels().zip(g.pixels()) {
        let [cr, cg, cb] = [0, 1, 2].map(|k| pc.0[k] as f32);
        let [gr, gg, gb] = [0, 1, 2].map(|k| pg.0[k] as f32);
        // Well lit in both, below the clamp, channels with something to divide.
        if gr.min(gg).min(gb) < 24.0 || cr > 250.0 || cr.min(cg).min(cb) < 6.0 {
            continue;
        }
        let red = cr / gr;
        green.push(cg / gg / red);
        blue.push(cb / gb / red);
    }
    let median = |v: &mut Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    };
    let n = green.len();
    let (mg, mb) = (median(&mut green), median(&mut blue));
    println!("{n} pixels: green/red {mg:.3}, blue/red {mb:.3} (the light's: 0.502, 0.251)");
    assert!(n > 5000, "{n}");
    assert!(
        (mg - 0.502).abs() < 0.05 && (mb - 0.251).abs() < 0.05,
        "{mg} {mb}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
