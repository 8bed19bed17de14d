//! A moving object lit by the light grid: a grey slab slides from under a shelf's shadow into
//! the light of a lamp above. Its top face is drawn with the grid's light at its normal (the
//! shader reading the object light buffer), which the CPU works out independently of the GPU;
//! the floor beside it, the same grey, is drawn with its lightmap. Oracles: the ratio of the
//! two faces' pixel values equals the ratio of the two lights, and the grid's light
//! equals the lightmap's under the slab within the order-2 truncation of the lamp's lobe.

use glam::{Vec2, Vec3};
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::level::{styles, Level};
use lanthorn::render::settings::FrameSettings;

use crate::golden::check_golden;
use crate::support::{capture, gpu};

const SIZE: (u32, u32) = (320, 180);

const SCENE: &str = r#"Scene(
    materials: [(name: "grey", source: Color((0.5, 0.5, 0.5)))],
    ops: [
        (brush: Box(min: (0, 0, 0), max: (1024, 1024, 512)), medium: Air, material: Some("grey")),
        (brush: Box(min: (0, 0, 300), max: (560, 1024, 320)), medium: Solid, material: Some("grey")),
    ],
    objects: [(name: "slab", brushes: [(brush: Box(min: (236, 448, 16), max: (364, 576, 32)), material: Some("grey"))],
        motion: Some(Path(points: [(0, 0, 0), (400, 0, 0)], speed: 100, wait: 2)))],
    entities: [
        [("classname", "worldspawn"), ("light", "48")],
        [("classname", "light"), ("origin", "620 512 440"), ("light", "160"), ("delay", "3")],
    ],
)"#;

fn level() -> Level {
    let scene = lanthorn::compile::scene::parse(SCENE).unwrap();
    lanthorn::compile::scene::compile_scene(&scene, &Default::default())
        .unwrap()
        .0
}

/// The level drawn from `spec` at `time` seconds, and the camera.
fn frame(level: &Level, spec: CameraSpec, time: f32) -> (image::RgbaImage, Camera) {
    let settings = FrameSettings {
        time,
        ..Default::default()
    };
    let img = capture(
        level,
        spec,
        SIZE,
        lanthorn::vis::CullMode::Portal,
        &settings,
    );
    (img, Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32))
}

/// The mean red value of the 25 × 25 pixels around `p`'s image (several periods of the flat
/// material's faint checks): texel times light, as the
/// world pass multiplies them (in gamma space, as Quake does).
fn value_at(img: &image::RgbaImage, camera: &Camera, p: Vec3) -> f32 {
    let ndc = camera.world_to_ndc(p).unwrap();
    let px = Camera::ndc_to_pixel(Vec2::new(ndc.x, ndc.y), SIZE);
    let mut sum = 0.0;
    for dy in -12..=12 {
        for dx in -12..=12 {
            let x = (px.x as i32 + dx) as u32;
            let y = (px.y as i32 + dy) as u32;
            sum += img.get_pixel(x, y)[0] as f32 / 255.0;
        }
    }
    sum / 625.0
}

#[test]
fn a_moving_object_is_lit_by_the_grid_in_light_and_in_shadow() {
    let Some(_) = gpu() else { return };
    let level = level();
    let grid = level
        .light_grid
        .as_ref()
        .expect("the slab moves: a light grid");
    let mut frames = Vec::new();
    let mut lights = Vec::new();
    // At rest under the shelf (0-2 s), then at the far end in the lamp's light (6-8 s).
    for (time, x) in [(1.0, 300.0), (7.0, 700.0)] {
        let spec = CameraSpec {
            position: Vec3::new(x, 512.0, 260.0),
            yaw: 0.0,
            pitch: -89.0,
        };
        let (img, camera) = frame(&level, spec, time);
        // The style brightnesses the frame used (style 0's "m" is a little over 1).
        let scales = styles::scales(time as f64, Default::default(), 0);
        let top = Vec3::new(x, 512.0, 32.0);
        let floor = Vec3::new(x, 512.0 + 130.0, 0.0);
        let bounds = lanthorn::geom::Aabb::new(
            Vec3::new(x - 64.0, 448.0, 16.0),
            Vec3::new(x + 64.0, 576.0, 32.0),
        );
        let sh = lanthorn::light::grid::light_over(grid, bounds, &scales)
            .expect("the slab lies in the grid");
        // The minimum light scales with style 0's brightness, as in a lightmap.
        let minlight = grid.minlight * scales[0];
        let slab_light = lanthorn::light::grid::surface_light(&sh, Vec3::Z, minlight, 2.0)[0];
        let floor_light =
            lanthorn::light::point::light_below(&level, floor + Vec3::Z, &scales, 2.0).unwrap()[0];
        let under = lanthorn::light::point::light_below(&level, top - Vec3::Z * 8.0, &scales, 2.0)
            .unwrap()[0];
        let (slab_px, floor_px) = (value_at(&img, &camera, top), value_at(&img, &camera, floor));
        eprintln!(
            "t {time}: slab light {slab_light:.3} (lightmap under it {under:.3}), floor {floor_light:.3}; \
             pixels {slab_px:.4} / {floor_px:.4}"
        );
        // The GPU draws the CPU's light: the faces' pixel ratio is the lights' ratio (within
        // the 8-bit frame's steps and the material's faint checks).
        let (want, got) = (slab_light / floor_light, slab_px / floor_px);
        assert!(
            (got - want).abs() < 0.03 * want,
            "t {time}: pixel ratio {got} vs {want}"
        );
        // The grid agrees with the lightmap under the slab: the truncated `0.5 + 0.5 cos` lobe
        // overshoots by up to 15.6 % towards a single light, and the blend spans a spacing.
        assert!(
            (slab_light - under).abs() <= 0.2 * under + 0.01,
            "t {time}: grid {slab_light} vs lightmap {under}"
        );
        lights.push(slab_light);
        frames.push(img);
    }
    // In the shadow only the minimum light; in the lamp's light much brighter.
    let steady = styles::scales(1.0, Default::default(), 0)[0];
    assert!(
        (lights[0] - 48.0 / 255.0 * 2.0 * steady).abs() < 0.01,
        "{lights:?}"
    );
    assert!(lights[1] > 1.6 * lights[0], "{lights:?}");
    let mut both = image::RgbaImage::new(SIZE.0 * 2, SIZE.1);
    image::imageops::replace(&mut both, &frames[0], 0, 0);
    image::imageops::replace(&mut both, &frames[1], SIZE.0 as i64, 0);
    check_golden("object_light", &both);
}

/// A lamp (`_lamp` "1") over a grey slab and floor, no other light: the grid leaves the lamp out
/// and the slab takes it per pixel. Oracle: Quake's `(light − d) · (0.5 + 0.5 cos)` written out
/// at every pixel's point (the ray from the eye to the slab's top, or to the floor), averaged
/// over the same patches the pixels are: two patches of the slab's top as far apart as its
/// light varies, and one of the lightmapped floor beside it — their pixel ratios are the
/// formula's.
#[test]
fn a_moving_object_takes_its_lamp_per_pixel() {
    let Some(_) = gpu() else { return };
    let scene = lanthorn::compile::scene::parse(
        r#"Scene(
        materials: [(name: "grey", source: Color((0.5, 0.5, 0.5)))],
        ops: [(brush: Box(min: (0, 0, 0), max: (1024, 1024, 512)), medium: Air, material: Some("grey"))],
        objects: [(name: "slab", brushes: [(brush: Box(min: (384, 384, 16), max: (640, 640, 32)), material: Some("grey"))],
            motion: Some(Path(points: [(0, 0, 0), (0, 300, 0)], speed: 50, wait: 5)))],
        entities: [[("classname", "light"), ("origin", "512 560 150"), ("light", "300"), ("_lamp", "1")]],
    )"#,
    )
    .unwrap();
    let (level, _) = lanthorn::compile::scene::compile_scene(&scene, &Default::default()).unwrap();
    let grid = level
        .light_grid
        .as_ref()
        .expect("the slab moves: a light grid");
    let scales = styles::scales(0.0, Default::default(), 0);
    let b = lanthorn::geom::Aabb::new(Vec3::new(384.0, 384.0, 16.0), Vec3::new(640.0, 640.0, 32.0));
    let l = lanthorn::light::grid::light_over(grid, b, &scales).unwrap();
    assert!(
        l.eval(Vec3::Z).length() < 1e-3,
        "the grid leaves the lamp out: {l:?}"
    );
    let spec = CameraSpec {
        position: Vec3::new(512.0, 512.0, 400.0),
        yaw: 0.0,
        pitch: -89.0,
    };
    let (img, camera) = frame(&level, spec, 0.0);
    let lamp = Vec3::new(512.0, 560.0, 150.0);
    // The formula at the mean of a patch's points, as the pixels are averaged.
    let formula = |centre: Vec3| patch_mean(&camera, centre, &|p| lamp_up((lamp, 300.0), p));
    let (near, far, floor) = (
        Vec3::new(512.0, 560.0, 32.0),
        Vec3::new(512.0, 420.0, 32.0),
        Vec3::new(512.0, 740.0, 0.0),
    );
    let (pn, pf, pg) = (
        value_at(&img, &camera, near),
        value_at(&img, &camera, far),
        value_at(&img, &camera, floor),
    );
    let (wn, wf, wg) = (formula(near), formula(far), formula(floor));
    println!("lamp: slab {pn:.4} / {pf:.4} (formula {wn:.1} / {wf:.1}), floor {pg:.4} ({wg:.1})");
    let ratio = |a: f32, b: f32| a / b;
    assert!(
        (ratio(pn, pf) - ratio(wn, wf)).abs() < 0.04 * ratio(wn, wf),
        "across the slab"
    );
    assert!(
        (ratio(pn, pg) - ratio(wn, wg)).abs() < 0.06 * ratio(wn, wg),
        "slab vs floor"
    );
    assert!(ratio(wn, wf) > 1.3, "the light varies across the slab");
}

/// Quake's lamp formula `(light − d) · (0.5 + 0.5·cos)` at `p` on a face facing up.
fn lamp_up(lamp: (Vec3, f32), p: Vec3) -> f32 {
    let d = lamp.0.distance(p);
    let cos = (lamp.0.z - p.z) / d.max(1e-3);
    (lamp.1 - d).max(0.0) * if cos > 0.0 { 0.5 + 0.5 * cos } else { 0.0 }
}

/// `f` averaged over the points of the 25 × 25 pixels around `centre`'s image, on the
/// horizontal plane through `centre` (as `value_at` averages the pixels).
fn patch_mean(camera: &Camera, centre: Vec3, f: &dyn Fn(Vec3) -> f32) -> f32 {
    let ndc = camera.world_to_ndc(centre).unwrap();
    let px = Camera::ndc_to_pixel(Vec2::new(ndc.x, ndc.y), SIZE);
    let mut sum = 0.0;
    for dy in -12..=12 {
        for dx in -12..=12 {
            let (x, y) = (px.x as i32 + dx, px.y as i32 + dy);
            let ndc = Vec2::new(
                (x as f32 + 0.5) / SIZE.0 as f32 * 2.0 - 1.0,
                1.0 - (y as f32 + 0.5) / SIZE.1 as f32 * 2.0,
            );
            let far = camera.view_proj().inverse().project_point3(ndc.extend(0.5));
            let dir = (far - camera.position).normalize();
            sum += f(camera.position + dir * ((centre.z - camera.position.z) / dir.z));
        }
    }
    sum / 625.0
}

/// Lamps and their light (`tiered_lamps`' groups).
type Lamps = [((f32, f32, f32), f32); 4];

/// The slab under its ten lamps (`a_moving_objects_lamps_are_tiered…`): the level, and the
/// lamps of its `v` and `r` groups.
fn tiered_lamps() -> (Level, Lamps, [((f32, f32, f32), f32); 2]) {
    let lamp = |at: (f32, f32, f32), light: f32, group: &str| {
        format!(
            r#"[("classname", "light"), ("origin", "{} {} {}"), ("light", "{light}"), ("_lamp", "1"), ("targetname", "{group}"), ("spawnflags", "1")],"#,
            at.0, at.1, at.2
        )
    };
    let v_lamps = [
        ((512.0, 512.0, 100.0), 300.0),
        ((250.0, 512.0, 40.0), 300.0),
        ((774.0, 512.0, 40.0), 300.0),
        ((512.0, 250.0, 40.0), 300.0),
    ];
    let r_lamps = [
        ((512.0, 512.0, 450.0), 500.0),
        ((512.0, 512.0, 470.0), 480.0),
    ];
    let mut entities = String::new();
    for (x, y) in [
        (450.0, 450.0),
        (580.0, 450.0),
        (450.0, 580.0),
        (580.0, 580.0),
    ] {
        entities += &lamp((x, y, 92.0), 1000.0, "p");
    }
    for (at, light) in v_lamps {
        entities += &lamp(at, light, "v");
    }
    for (at, light) in r_lamps {
        entities += &lamp(at, light, "r");
    }
    let source = format!(
        r#"Scene(
        materials: [(name: "grey", source: Color((0.5, 0.5, 0.5)))],
        ops: [(brush: Box(min: (0, 0, 0), max: (1024, 1024, 512)), medium: Air, material: Some("grey"))],
        objects: [(name: "slab", brushes: [(brush: Box(min: (384, 384, 16), max: (640, 640, 32)), material: Some("grey"))],
            motion: Some(Path(points: [(0, 0, 0), (0, 300, 0)], speed: 50, wait: 5)))],
        entities: [{entities}],
    )"#
    );
    let scene = lanthorn::compile::scene::parse(&source).unwrap();
    let (level, _) = lanthorn::compile::scene::compile_scene(&scene, &Default::default()).unwrap();
    (level, v_lamps, r_lamps)
}

/// Ten lamps over a sliding slab, ranked by their light at its box: four very strong ones
/// (`p`, off here: the per-pixel tier), four next (`v`: per vertex), two weak ones high above
/// (`r`: folded into a harmonic at the box's centre). Each group is switched on alone — a
/// switched-off lamp keeps its rank, so the tiers stay — and the slab's top is measured
/// against the floor beside it (lightmapped: Quake's formula per luxel) and against itself.
/// Oracles: with `v` on, the top is the vertices' light interpolated across the face (the
/// lamps are placed so that both diagonals interpolate alike: linearly in y), not the
/// per-pixel light, which is 1.8 times brighter at its centre; with `r` on, the top is the
/// two lamps' light at the box's centre as an L2 harmonic at the top's normal.
#[test]
fn a_moving_objects_lamps_are_tiered_per_pixel_per_vertex_and_folded() {
    let Some(_) = gpu() else { return };
    let (level, v_lamps, r_lamps) = tiered_lamps();
    let spec = CameraSpec {
        position: Vec3::new(512.0, 512.0, 400.0),
        yaw: 0.0,
        pitch: -89.0,
    };
    let frame_with = |group: &str| {
        let settings = FrameSettings {
            switched: styles::switch_mask(&level.entities, &[group.to_string()]).unwrap(),
            ..Default::default()
        };
        capture(
            &level,
            spec,
            SIZE,
            lanthorn::vis::CullMode::Portal,
            &settings,
        )
    };
    let camera = Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
    let (top, floor) = (Vec3::new(512.0, 512.0, 32.0), Vec3::new(512.0, 720.0, 0.0));
    let sum = |lamps: &[((f32, f32, f32), f32)], p: Vec3| -> f32 {
        lamps
            .iter()
            .map(|&(at, l)| lamp_up((Vec3::from(at), l), p))
            .sum()
    };
    // Per vertex: the corners' light, linear in y across the top (both diagonals alike).
    let corner = |x: f32, y: f32| sum(&v_lamps, Vec3::new(x, y, 32.0));
    let (south, north) = (corner(384.0, 384.0), corner(384.0, 640.0));
    assert!(
        (corner(640.0, 384.0) - south).abs() < 1e-3 && (corner(640.0, 640.0) - north).abs() < 1e-3
    );
    let interpolated = |p: Vec3| south + (north - south) * (p.y - 384.0) / 256.0;
    let per_vertex = patch_mean(&camera, top, &interpolated);
    let per_pixel = patch_mean(&camera, top, &|p| sum(&v_lamps, p));
    let on_floor = patch_mean(&camera, floor, &|p| sum(&v_lamps, p));
    let v = frame_with("v");
    let (slab_v, floor_v) = (value_at(&v, &camera, top), value_at(&v, &camera, floor));
    println!(
        "per vertex: slab / floor {:.3} (interpolated {:.3}, per pixel {:.3})",
        slab_v / floor_v,
        per_vertex / on_floor,
        per_pixel / on_floor
    );
    assert!(per_pixel > 1.5 * per_vertex, "the tiers differ here");
    assert!((slab_v / floor_v - per_vertex / on_floor).abs() < 0.06 * per_vertex / on_floor);
    // Folded: the r lamps' light at the box's centre as a harmonic at the top's normal.
    let centre = Vec3::new(512.0, 512.0, 24.0);
    let mut sh = lanthorn::geom::sh::Sh9::ZERO;
    for (at, light) in r_lamps {
        let to = Vec3::from(at) - centre;
        sh.add_light(
            to.normalize(),
            Vec3::ONE * (light - to.length()).max(0.0),
            0.5,
        );
    }
    let folded = sh.eval(Vec3::Z).x;
    let r = frame_with("r");
    let slab_r = value_at(&r, &camera, top);
    println!(
        "folded: slab r / slab v {:.3} (harmonic {:.3})",
        slab_r / slab_v,
        folded / per_vertex
    );
    assert!(folded > 50.0, "the folded lamps light the slab: {folded}");
    assert!((slab_r / slab_v - folded / per_vertex).abs() < 0.06 * folded / per_vertex);
}
