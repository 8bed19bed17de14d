//! The terrain's sea reflects: its reflection (the land and sky mirrored in the sea's plane,
//! drawn from the eye) equals the frame of a camera at the eye's mirror image under the sea,
//! turned upside down; with reflections on, the sea and its shores change and the land does
//! not; and a golden view of a shore.

use glam::Vec3;
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::level::Level;
use lanthorn::render::settings::FrameSettings;
use lanthorn::render::Renderer;
use lanthorn::terrain::{ClipmapConfig, ClipmapTerrain, Heightmap, TerrainShading};
use lanthorn::vis::VisibleSet;

use crate::golden::check_golden;
use crate::support::gpu;

/// A shore of the procedural terrain: the eye `above` units over the sea at its lowest sample
/// of a coarse scan, looking at the highest sample within 6,000 units, slightly down.
fn shore_camera(hm: &Heightmap, sea: f32, above: f32) -> CameraSpec {
    let scan = |centre: glam::Vec2, half: f32, best: &dyn Fn(f32, f32) -> bool| {
        let mut pick = (centre, hm.height_at(centre.x as f64, centre.y as f64));
        for j in -20..=20 {
            for i in -20..=20 {
                let p = centre + glam::Vec2::new(i as f32, j as f32) * (half / 20.0);
                let h = hm.height_at(p.x as f64, p.y as f64);
                if best(h, pick.1) {
                    pick = (p, h);
                }
            }
        }
        pick.0
    };
    let low = scan(glam::Vec2::splat(16000.0), 12000.0, &|h, b| h < b);
    let high = scan(low, 6000.0, &|h, b| h > b);
    let to = high - low;
    CameraSpec {
        position: low.extend(sea + above),
        yaw: to.y.atan2(to.x).to_degrees(),
        pitch: -4.0,
    }
}

fn terrain(hm: &Heightmap) -> ClipmapTerrain {
    ClipmapTerrain::new(hm.clone(), ClipmapConfig::for_heightmap(hm)).unwrap()
}

/// The reflection against the mirrored eye's frame: both drawn unculled (the reflection sees
/// land the eye's frustum does not), the mirrored frame at the reflection's size, compared
/// upside down.
#[test]
fn the_sea_reflects_what_the_mirrored_eye_sees() {
    let Some(gpu) = gpu() else { return };
    let hm = Heightmap::procedural(1024, 0);
    let shading = TerrainShading::for_heightmap(&hm, &ClipmapConfig::for_heightmap(&hm));
    assert!(shading.flat_water);
    let sea = shading.sea_level;
    let spec = shore_camera(&hm, sea, 120.0);
    let size = (320u32, 180u32);
    let half = (size.0 / 2, size.1 / 2);
    let level = Level::default();
    let settings = FrameSettings {
        reflections: true,
        ..Default::default()
    };
    let mut r = Renderer::new(gpu, &level, size);
    r.set_terrain(gpu, terrain(&hm));
    r.terrain.as_mut().unwrap().clipmap.selector.cull = false;
    let cam = Camera::new(spec, size.0 as f32 / size.1 as f32);
    r.render(gpu, &cam, &VisibleSet::default(), &settings);
    let reflection = r
        .terrain
        .as_ref()
        .unwrap()
        .draw
        .read_reflection(gpu)
        .expect("the sea reflected");
    assert_eq!(reflection.dimensions(), half);
    let mirrored = CameraSpec {
        position: Vec3::new(
            spec.position.x,
            spec.position.y,
            2.0 * sea - spec.position.z,
        ),
        pitch: -spec.pitch,
        ..spec
    };
    let mut m = Renderer::new(gpu, &level, half);
    m.set_terrain(gpu, terrain(&hm));
    m.terrain.as_mut().unwrap().clipmap.selector.cull = false;
    let mcam = Camera::new(mirrored, half.0 as f32 / half.1 as f32);
    m.render(
        gpu,
        &mcam,
        &VisibleSet::default(),
        &FrameSettings::default(),
    );
    let oracle = image::imageops::flip_vertical(&m.read_color(gpu));
    if std::env::var("WATER_DEBUG").is_ok() {
        reflection.save("/tmp/sh/reflection.png").unwrap();
        oracle.save("/tmp/sh/oracle.png").unwrap();
        r.read_color(gpu).save("/tmp/sh/water_frame.png").unwrap();
    }
    let (mut sum, mut over) = (0u64, 0usize);
    let diff = |a: &image::Rgba<u8>, b: &image::Rgba<u8>| {
        (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap()
    };
    for (a, b) in reflection.pixels().zip(oracle.pixels()) {
        let d = diff(a, b);
        sum += d as u64;
        over += (d > 3) as usize;
    }
    // Land, not the smooth sky: pixels unlike their right-hand neighbour.
    let land = (0..half.1)
        .flat_map(|y| (0..half.0 - 1).map(move |x| (x, y)))
        .filter(|&(x, y)| diff(oracle.get_pixel(x, y), oracle.get_pixel(x + 1, y)) > 3)
        .count();
    let n = (half.0 * half.1) as usize;
    let mean = sum as f64 / n as f64;
    println!(
        "reflection vs mirrored eye: mean {mean:.3}, {over} of {n} pixels off by more than 3, {land} land pixels"
    );
    assert!(land > n / 50, "the mirrored view shows little land: {land}");
    assert!(
        mean < 0.5 && over * 100 < n,
        "mean {mean}, {over} pixels off"
    );
}

/// With reflections on, everything seen above the eye's level (sky, hills) is drawn as
/// without them, and most of the sea below it changes; the shore's golden view.
#[test]
fn reflections_change_the_sea_alone_and_match_golden() {
    let Some(gpu) = gpu() else { return };
    let hm = Heightmap::procedural(1024, 0);
    let sea = TerrainShading::for_heightmap(&hm, &ClipmapConfig::for_heightmap(&hm)).sea_level;
    let spec = shore_camera(&hm, sea, 120.0);
    let size = (480u32, 270u32);
    let mut r = Renderer::new(gpu, &Level::default(), size);
    r.set_terrain(gpu, terrain(&hm));
    let cam = Camera::new(spec, size.0 as f32 / size.1 as f32);
    let mut frame = |reflections: bool| {
        let settings = FrameSettings {
            reflections,
            time: 2.0,
            ..Default::default()
        };
        r.render(gpu, &cam, &VisibleSet::default(), &settings);
        r.read_color(gpu)
    };
    let (plain, reflecting) = (frame(false), frame(true));
    let (mut above, mut above_changed, mut below, mut below_changed) = (0, 0, 0, 0);
    for (x, y, p) in reflecting.enumerate_pixels() {
        let d = crate::terrain::pixel_direction(&cam, size, x, y);
        let changed = p != plain.get_pixel(x, y);
        if d.z > 0.0 {
            above += 1;
            above_changed += changed as usize;
        } else if d.z < -0.02 {
            below += 1;
            below_changed += changed as usize;
        }
    }
    println!(
        "above the eye: {above_changed} of {above} changed; below: {below_changed} of {below}"
    );
    assert_eq!(above_changed, 0);
    assert!(below_changed * 2 > below, "{below_changed} of {below}");
    check_golden("terrain_shore", &reflecting);
}
