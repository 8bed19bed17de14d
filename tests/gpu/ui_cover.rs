//! The UI cover: the world and the terrain skip the pixels under the UI panels' rectangles
//! (`render::ui_cover`), and nothing else of the frame changes.

use lanthorn::app::session::Session;
use lanthorn::geom::Camera;
use lanthorn::render::ui_cover::PixelRect;
use lanthorn::vis::CullMode;

use crate::support::gpu;

const SIZE: (u32, u32) = (480, 270);

/// The keep from the hills (its walls and the terrain) with `cover` over the frame.
fn outside(cover: Vec<PixelRect>) -> image::RgbaImage {
    let gpu = gpu().expect("checked by the caller");
    let spec = crate::support::KEEP_OUTSIDE;
    let world = crate::support::keep_world(spec);
    let mut session = Session::new(gpu, &world.level, world.terrain, SIZE, CullMode::Portal);
    session.ui_cover = cover;
    let camera = Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
    session.settle(gpu, &camera, 0.0);
    let stats = session.frame(gpu, &camera, 0.0);
    assert!(stats.world.triangles > 0 && stats.terrain.triangles > 0);
    session.read_color(gpu)
}

/// Under two panels (one over the keep, one over the terrain and sky) every pixel is the
/// cleared background; everywhere else the frame is the uncovered frame, bit for bit.
#[test]
fn the_ui_cover_skips_only_the_pixels_under_the_panels() {
    if gpu().is_none() {
        return;
    }
    let rects: Vec<PixelRect> = vec![[150.0, 40.0, 160.0, 180.0], [380.0, 10.0, 90.0, 60.0]];
    let (plain, covered) = (outside(Vec::new()), outside(rects.clone()));
    let under = |x: u32, y: u32, margin: f32| {
        let (x, y) = (x as f32 + 0.5, y as f32 + 0.5);
        rects.iter().any(|r| {
            x > r[0] - margin
                && x < r[0] + r[2] + margin
                && y > r[1] - margin
                && y < r[1] + r[3] + margin
        })
    };
    let background = *covered.get_pixel(rects[0][0] as u32 + 5, rects[0][1] as u32 + 5);
    let (mut inside, mut outside_px, mut drawn_under) = (0, 0, 0);
    for (x, y, p) in covered.enumerate_pixels() {
        if under(x, y, -1.0) {
            assert_eq!(*p, background, "({x}, {y}) under a panel was drawn");
            drawn_under += (*plain.get_pixel(x, y) != background) as u32;
            inside += 1;
        } else if !under(x, y, 1.0) {
            assert_eq!(
                p,
                plain.get_pixel(x, y),
                "({x}, {y}) outside the panels changed"
            );
            outside_px += 1;
        }
    }
    assert!(
        inside > 30_000 && outside_px > 90_000,
        "{inside} {outside_px}"
    );
    // Without the cover those pixels held the keep, the terrain and the sky.
    assert!(
        drawn_under as f64 > 0.95 * inside as f64,
        "{drawn_under} of {inside}"
    );
}

/// `bench --ui-cover` reaches the renderer: its pass is timed in the JSON; a malformed
/// rectangle is one error naming it.
#[test]
fn bench_ui_cover_runs_the_pass_or_names_the_bad_rectangle() {
    if gpu().is_none() {
        return;
    }
    let bench = |cover: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_lanthorn"))
            .args([
                "bench", "keep", "--frames", "2", "--warmup", "1", "--size", "160x90",
            ])
            .args(["--json", "--no-overdraw", "--ui-cover", cover])
            .output()
            .unwrap()
    };
    let out = bench("0,0,80,90;100,10,20,20");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let has_timer = v.get("gpu_world_ms_median").is_some();
    assert_eq!(v.get("gpu_ui_cover_ms_median").is_some(), has_timer, "{v}");
    let out = bench("1,2,3");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("\"1,2,3\""),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}
