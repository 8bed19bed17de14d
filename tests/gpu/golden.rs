//! Golden images through the capture path, compared with a tolerance (lavapipe differs slightly
//! between CPUs). On failure the actual image and a difference image are written next to the
//! reference; `LANTHORN_UPDATE_GOLDEN=1` rewrites the references.

use std::path::{Path, PathBuf};

use glam::Vec3;
use lanthorn::geom::CameraSpec;

use crate::support::gpu;

/// Result of comparing two images.
#[derive(Debug)]
pub(crate) struct Diff {
    /// Mean absolute difference per channel, 0..255.
    pub mean: f64,
    /// Fraction of pixels whose largest channel difference exceeds `PIXEL_THRESHOLD`.
    pub bad_fraction: f64,
}

pub(crate) const PIXEL_THRESHOLD: u8 = 32;
pub(crate) const MAX_MEAN: f64 = 1.5;
pub(crate) const MAX_BAD_FRACTION: f64 = 0.005;

pub(crate) fn diff(a: &image::RgbaImage, b: &image::RgbaImage) -> (Diff, image::RgbaImage) {
    assert_eq!(a.dimensions(), b.dimensions(), "image sizes differ");
    let mut sum = 0u64;
    let mut bad = 0usize;
    let mut img = image::RgbaImage::new(a.width(), a.height());
    for (x, y, pa) in a.enumerate_pixels() {
        let pb = b.get_pixel(x, y);
        let d: Vec<u8> = (0..3).map(|c| pa[c].abs_diff(pb[c])).collect();
        sum += d.iter().map(|v| *v as u64).sum::<u64>();
        let m = *d.iter().max().unwrap();
        if m > PIXEL_THRESHOLD {
            bad += 1;
        }
        img.put_pixel(
            x,
            y,
            image::Rgba([
                m.saturating_mul(4),
                if m > PIXEL_THRESHOLD { 255 } else { 0 },
                0,
                255,
            ]),
        );
    }
    let n = (a.width() * a.height()) as f64;
    (
        Diff {
            mean: sum as f64 / (n * 3.0),
            bad_fraction: bad as f64 / n,
        },
        img,
    )
}

/// The sum of every pixel's R, G and B (which of two frames is brighter).
pub(crate) fn luma(i: &image::RgbaImage) -> u64 {
    i.pixels()
        .map(|p| p[0] as u64 + p[1] as u64 + p[2] as u64)
        .sum()
}

pub(crate) fn passes(d: &Diff) -> bool {
    d.mean <= MAX_MEAN && d.bad_fraction <= MAX_BAD_FRACTION
}

fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.png"))
}

/// Compares `actual` with the reference `name`, or rewrites it under LANTHORN_UPDATE_GOLDEN=1.
pub(crate) fn check_golden(name: &str, actual: &image::RgbaImage) {
    let path = golden_path(name);
    if std::env::var("LANTHORN_UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        actual.save(&path).expect("write golden");
        eprintln!("updated {}", path.display());
        return;
    }
    let expected = image::open(&path)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run with LANTHORN_UPDATE_GOLDEN=1 to create it",
                path.display()
            )
        })
        .to_rgba8();
    let (d, diff_img) = diff(&expected, actual);
    if !passes(&d) {
        let out = path.with_extension("actual.png");
        actual.save(&out).expect("write actual");
        let dp = path.with_extension("diff.png");
        diff_img.save(&dp).expect("write diff");
        panic!(
            "{name}: differs from {} (mean {:.3} > {MAX_MEAN} or {:.4} of pixels off > {MAX_BAD_FRACTION}); \
             wrote {} and {}; if the change is intended run with LANTHORN_UPDATE_GOLDEN=1",
            path.display(),
            d.mean,
            d.bad_fraction,
            out.display(),
            dp.display()
        );
    }
}

pub(crate) const BUILTIN_CAMERA: CameraSpec = CameraSpec {
    position: Vec3::new(-440.0, -300.0, 120.0),
    yaw: 35.0,
    pitch: -12.0,
};
const SIZE: (u32, u32) = (480, 270);

#[test]
fn builtin_scene_matches_golden() {
    let Some(gpu) = gpu() else { return };
    let level = lanthorn::scenes::builtin::scene();
    let (img, stats) = lanthorn::app::capture::capture(
        gpu,
        &level,
        BUILTIN_CAMERA,
        SIZE,
        lanthorn::vis::CullMode::Portal,
    );
    assert!(stats.world.triangles > 0);
    check_golden("builtin", &img);
}

#[test]
fn golden_comparison_catches_a_changed_scene() {
    let Some(gpu) = gpu() else { return };
    let level = lanthorn::scenes::builtin::scene();
    let (a, _) = lanthorn::app::capture::capture(
        gpu,
        &level,
        BUILTIN_CAMERA,
        SIZE,
        lanthorn::vis::CullMode::Portal,
    );
    // Same camera, one box moved: the comparison must fail. The box's faces are the surfaces
    // lying within its bounds (`BOXES[0]`, as the scene builds it), found by position.
    let mut moved = level.clone();
    let (lo, hi, _) = lanthorn::scenes::builtin::BOXES[0];
    let within = |p: Vec3| p.cmpge(lo - 0.01).all() && p.cmple(hi + 0.01).all();
    let mut faces = 0;
    for s in moved.surfaces.iter_mut() {
        if s.vertices.iter().all(|v| within(v.position)) {
            faces += 1;
            for v in s.vertices.iter_mut() {
                v.position.x += 48.0;
            }
        }
    }
    assert!(faces >= 5, "the box has {faces} faces");
    let (b, _) = lanthorn::app::capture::capture(
        gpu,
        &moved,
        BUILTIN_CAMERA,
        SIZE,
        lanthorn::vis::CullMode::Portal,
    );
    let (d, _) = diff(&a, &b);
    assert!(!passes(&d), "moving a box went unnoticed: {d:?}");
    // Rendering twice is within tolerance of itself.
    let (c, _) = lanthorn::app::capture::capture(
        gpu,
        &level,
        BUILTIN_CAMERA,
        SIZE,
        lanthorn::vis::CullMode::Portal,
    );
    assert!(passes(&diff(&a, &c).0));
}

/// A real id map from ../shared/realdata, or a loud skip (a failure under CI).
pub(crate) fn quake_level(name: &str) -> Option<lanthorn::level::Level> {
    let path = lanthorn::realdata_dir()
        .join("quake/bsp")
        .join(format!("{name}.bsp"));
    if !path.exists() {
        return crate::support::unavailable(
            "../shared/realdata",
            &format!("{} is missing", path.display()),
        );
    }
    Some(lanthorn::load::load(&path).unwrap_or_else(|e| panic!("{e}")))
}

fn quake_golden(map: &str, golden: &str, camera: Option<CameraSpec>) {
    let Some(gpu) = gpu() else { return };
    let Some(level) = quake_level(map) else {
        return;
    };
    let camera = camera
        .or_else(|| level.player_start())
        .expect("the map has a player start");
    let (img, stats) =
        lanthorn::app::capture::capture(gpu, &level, camera, SIZE, lanthorn::vis::CullMode::Portal);
    assert!(stats.world.triangles > 0);
    check_golden(golden, &img);
}

#[test]
fn e1m1_from_its_player_start_matches_golden() {
    quake_golden("e1m1", "e1m1_start", None);
}

#[test]
fn dm3_from_its_player_start_matches_golden() {
    quake_golden("dm3", "dm3_start", None);
}

/// dm3's skylights: the two-layer Quake sky.
#[test]
fn dm3_sky_matches_golden() {
    let cam = CameraSpec {
        position: Vec3::new(1024.0, 288.0, -30.0),
        yaw: 90.0,
        pitch: 35.0,
    };
    quake_golden("dm3", "dm3_sky", Some(cam));
}

/// e1m1's slime pool from below: warped liquid, opaque as Quake draws it by default.
#[test]
fn e1m1_liquid_matches_golden() {
    let cam = CameraSpec {
        position: Vec3::new(1328.0, 2536.0, -506.0),
        yaw: 240.0,
        pitch: 0.0,
    };
    quake_golden("e1m1", "e1m1_liquid", Some(cam));
}

/// A level that names a cubemap skybox shows it on its sky surfaces: pixels looking at the sky
/// match the skybox function evaluated for the direction through them (CPU oracle).
#[test]
fn named_cubemap_skybox_replaces_the_layered_sky() {
    let Some(gpu) = gpu() else { return };
    let mut level = lanthorn::scenes::builtin::scene();
    level.sky.as_mut().unwrap().cubemap = Some("procedural:dusk".into());
    let spec = CameraSpec {
        position: Vec3::new(0.0, 0.0, 200.0),
        yaw: 20.0,
        pitch: 60.0,
    };
    let size = (320u32, 180u32);
    let (img, _) =
        lanthorn::app::capture::capture(gpu, &level, spec, size, lanthorn::vis::CullMode::Portal);
    let cam = lanthorn::geom::Camera::new(spec, size.0 as f32 / size.1 as f32);
    let (tx, ty) = (
        (cam.fov_x.to_radians() * 0.5).tan(),
        (cam.fov_y() * 0.5).tan(),
    );
    let mut checked = 0;
    for (px, py) in [(160u32, 40u32), (100, 30), (220, 60), (160, 90)] {
        let ndc = glam::Vec2::new(
            (px as f32 + 0.5) / size.0 as f32 * 2.0 - 1.0,
            1.0 - (py as f32 + 0.5) / size.1 as f32 * 2.0,
        );
        let dir = (cam.forward() + cam.right() * ndc.x * tx + cam.up() * ndc.y * ty).normalize();
        // Only pixels that see the sky ceiling (z = 320) through the open yard.
        let t = (320.0 - spec.position.z) / dir.z;
        let hit = spec.position + dir * t;
        if hit.x.abs() > 500.0 || hit.y.abs() > 370.0 {
            continue;
        }
        let want = lanthorn::render::materials::procedural_sky(dir);
        let got = img.get_pixel(px, py);
        for c in 0..3 {
            let w = (want[c] * 255.0).round() as i32;
            assert!(
                (got[c] as i32 - w).abs() <= 8,
                "pixel {px},{py} channel {c}: got {} want {w}",
                got[c]
            );
        }
        checked += 1;
    }
    assert!(checked >= 3, "the camera should see the sky");
}

/// Fullbright (the demo's debug toggle) shows the textures unlit: the frame does not depend on
/// the lightmaps at all (oracle: the same frame with every luxel black), and it differs from
/// the lit frame. It goes through the tinted pipeline, since the camera's opaque shader has no
/// branch for it.
#[test]
fn fullbright_ignores_the_lightmaps() {
    let Some(gpu) = crate::support::gpu() else {
        return;
    };
    let level = lanthorn::scenes::builtin::scene();
    let mut dark = level.clone();
    dark.lightmaps.texels.fill(0);
    let spec = lanthorn::geom::CameraSpec {
        position: glam::Vec3::new(-440.0, -300.0, 56.0),
        yaw: 35.0,
        pitch: -5.0,
    };
    let size = (320, 180);
    let shot = |level: &lanthorn::level::Level, fullbright: bool| {
        let settings = lanthorn::render::settings::FrameSettings {
            fullbright,
            ..Default::default()
        };
        let cull = lanthorn::vis::CullMode::Portal;
        lanthorn::app::capture::capture_with(gpu, level, spec, size, cull, &settings).0
    };
    let (lit, full, full_dark) = (shot(&level, false), shot(&level, true), shot(&dark, true));
    let differ = |a: &image::RgbaImage, b: &image::RgbaImage| {
        a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count()
    };
    assert_eq!(
        differ(&full, &full_dark),
        0,
        "fullbright used the lightmaps"
    );
    let n = (size.0 * size.1) as usize;
    assert!(
        differ(&lit, &full) > n / 2,
        "fullbright looks like the lit frame"
    );
}
