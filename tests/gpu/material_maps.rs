//! Materials with normal and specular maps (`Scene` materials' `normal` and `specular`): a
//! moving object's lamps light it by the normal map and make highlights by the specular map.
//! Oracles: Quake's lamp formula at the mapped normal against the lightmapped floor of the
//! same texture, and Blinn-Phong against the same slab drawn without the specular map.

use glam::{Vec2, Vec3};
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::level::Level;
use lanthorn::render::settings::FrameSettings;

use crate::support::gpu;

const SIZE: (u32, u32) = (320, 180);
/// The texture's grey (gamma) and the tilted normal map's texel: 40° towards +u.
const GREY: u8 = 128;
const TILT: [u8; 3] = [210, 128, 225];
/// The specular map's colour and gloss (the exponent 2^(1 + 10·0.5) = 64).
const SHINE: [u8; 4] = [100, 100, 100, 128];

/// The normal map's texel as a vector in the face's texture frame.
fn tilt() -> Vec3 {
    Vec3::from_array(TILT.map(|b| b as f32 / 255.0 * 2.0 - 1.0))
}

/// A room floored with the grey texture and a sliding slab of `slab` (a material of the
/// scene: `plain`, `bumped` or `shiny`) under one lamp at `lamp`.
fn level(slab: &str, lamp: Vec3) -> Level {
    let dir = std::env::temp_dir().join(format!("lanthorn-maps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = |name: &str, texel: [u8; 4]| {
        image::RgbaImage::from_pixel(16, 16, image::Rgba(texel))
            .save(dir.join(name))
            .unwrap();
    };
    png("grey.png", [GREY, GREY, GREY, 255]);
    png("tilt.png", [TILT[0], TILT[1], TILT[2], 255]);
    png("shine.png", SHINE);
    let source = format!(
        r#"Scene(
        materials: [
            (name: "plain", source: Png("grey.png")),
            (name: "bumped", source: Png("grey.png"), normal: Some("tilt.png")),
            (name: "shiny", source: Png("grey.png"), specular: Some("shine.png")),
        ],
        ops: [(brush: Box(min: (0, 0, 0), max: (1024, 1024, 512)), medium: Air, material: Some("plain"))],
        objects: [(name: "slab", brushes: [(brush: Box(min: (384, 384, 16), max: (640, 640, 32)), material: Some("{slab}"))],
            motion: Some(Path(points: [(0, 0, 0), (0, 300, 0)], speed: 50, wait: 5)))],
        entities: [[("classname", "light"), ("origin", "{} {} {}"), ("light", "300"), ("_lamp", "1")]],
    )"#,
        lamp.x, lamp.y, lamp.z
    );
    let scene = lanthorn::compile::scene::parse(&source).unwrap();
    let files = lanthorn::compile::scene::SceneFiles::Dir(dir);
    lanthorn::compile::scene::compile_scene_with(&scene, &files, &Default::default())
        .unwrap()
        .0
}

fn frame(level: &Level, spec: CameraSpec) -> image::RgbaImage {
    let settings = FrameSettings::default();
    crate::support::capture(
        level,
        spec,
        SIZE,
        lanthorn::vis::CullMode::Portal,
        &settings,
    )
}

/// Where the ray through pixel (x, y) meets the plane z = `z`.
fn on_plane(camera: &Camera, x: f32, y: f32, z: f32) -> Vec3 {
    let ndc = Vec2::new(x / SIZE.0 as f32 * 2.0 - 1.0, 1.0 - y / SIZE.1 as f32 * 2.0);
    let far = camera.view_proj().inverse().project_point3(ndc.extend(0.5));
    let dir = (far - camera.position).normalize();
    camera.position + dir * ((z - camera.position.z) / dir.z)
}

/// The mean red value of 15 × 15 pixels around `p`'s image, and Quake's lamp formula at the
/// normal `n` averaged over the same pixels' points.
fn patch(img: &image::RgbaImage, camera: &Camera, p: Vec3, n: Vec3, lamp: Vec3) -> (f32, f32) {
    let ndc = camera.world_to_ndc(p).unwrap();
    let px = Camera::ndc_to_pixel(Vec2::new(ndc.x, ndc.y), SIZE);
    let (mut value, mut formula) = (0.0, 0.0);
    for dy in -7..=7 {
        for dx in -7..=7 {
            let (x, y) = ((px.x as i32 + dx) as u32, (px.y as i32 + dy) as u32);
            value += img.get_pixel(x, y)[0] as f32;
            let q = on_plane(camera, x as f32 + 0.5, y as f32 + 0.5, p.z);
            let d = lamp.distance(q);
            let cos = n.dot((lamp - q) / d);
            formula += (300.0 - d).max(0.0) * if cos > 0.0 { 0.5 + 0.5 * cos } else { 0.0 };
        }
    }
    (value / 225.0, formula / 225.0)
}

/// The slab's top wears a normal map tilted 40° towards +u (+x on a floor, Quake's axes): its
/// light is the lamp's at the tilted normal — against the floor (the same texture, its
/// lightmap at the true normal) and across the top — not at the face's own normal.
#[test]
fn a_normal_map_turns_a_moving_objects_lamp_light() {
    let Some(_) = gpu() else { return };
    let lamp = Vec3::new(512.0, 512.0, 150.0);
    let level = level("bumped", lamp);
    let spec = CameraSpec {
        position: Vec3::new(512.0, 512.0, 400.0),
        yaw: 0.0,
        pitch: -89.0,
    };
    let img = frame(&level, spec);
    let camera = Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
    let t = tilt();
    let mapped = Vec3::new(t.x, -t.y, t.z).normalize();
    let (east, west, floor) = (
        Vec3::new(600.0, 512.0, 32.0),
        Vec3::new(424.0, 512.0, 32.0),
        Vec3::new(512.0, 720.0, 0.0),
    );
    let (pe, we) = patch(&img, &camera, east, mapped, lamp);
    let (pw, ww) = patch(&img, &camera, west, mapped, lamp);
    let (pf, wf) = patch(&img, &camera, floor, Vec3::Z, lamp);
    let flat =
        patch(&img, &camera, east, Vec3::Z, lamp).1 / patch(&img, &camera, west, Vec3::Z, lamp).1;
    println!(
        "normal map: east / west {:.3} (mapped {:.3}, flat {flat:.3}), east / floor {:.3} ({:.3})",
        pe / pw,
        we / ww,
        pe / pf,
        we / wf
    );
    assert!((we / ww - flat).abs() > 0.3, "the tilt matters here");
    assert!((pe / pw - we / ww).abs() < 0.05 * we / ww, "across the top");
    assert!(
        (pe / pf - we / wf).abs() < 0.06 * we / wf,
        "top against floor"
    );
}

/// The slab's top wears a specular map: the frame with it minus the frame without it is the
/// lamp's Blinn-Phong highlight, scaled by the specular colour (its diffuse light, read off the
/// plain frame, gives the lamp's brightness).
#[test]
fn a_specular_map_adds_a_moving_objects_lamp_highlight() {
    let Some(_) = gpu() else { return };
    let lamp = Vec3::new(512.0, 560.0, 150.0);
    let spec = CameraSpec {
        position: Vec3::new(512.0, 240.0, 260.0),
        yaw: 90.0,
        pitch: -45.0,
    };
    let plain = frame(&level("plain", lamp), spec);
    let shiny = frame(&level("shiny", lamp), spec);
    let camera = Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
    let (ks, exponent) = (
        SHINE[0] as f32 / 255.0,
        2f32.powf(1.0 + 10.0 * SHINE[3] as f32 / 255.0),
    );
    let (mut checked, mut off, mut peak) = (0, 0, 0.0f32);
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let p = on_plane(&camera, x as f32 + 0.5, y as f32 + 0.5, 32.0);
            if !(400.0..624.0).contains(&p.x) || !(400.0..624.0).contains(&p.y) {
                continue;
            }
            let (base, got) = (
                plain.get_pixel(x, y)[0] as f32,
                shiny.get_pixel(x, y)[0] as f32,
            );
            if got >= 254.0 {
                continue;
            }
            let l = (lamp - p).normalize();
            let h = (l + (camera.position - p).normalize()).normalize();
            let response = 0.5 + 0.5 * l.z;
            // base = grey × light; the highlight is light's lamp brightness × ks × (n·h)^e.
            let expected =
                base / (GREY as f32 / 255.0) / response * ks * h.z.max(0.0).powf(exponent);
            checked += 1;
            off += ((got - base - expected).abs() > 3.0) as usize;
            peak = peak.max(got - base);
        }
    }
    println!("specular: {checked} pixels, {off} over 3 steps from Blinn-Phong, peak {peak}");
    assert!(
        checked > 2000 && peak > 20.0,
        "a highlight on the top: {checked} pixels, peak {peak}"
    );
    assert!(off * 50 < checked, "{off} pixels off");
}
