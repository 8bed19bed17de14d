//! Views through transformed portals: a mirror shows the reflected level (oracle: the level
//! rendered from the reflected camera, flipped left–right), a teleporter shows the room it leads
//! to.

use glam::{Mat4, Vec2, Vec3};
use lanthorn::geom::{Camera, CameraSpec, Octagon};
use lanthorn::level::{portal_flags, Level, Portal};
use lanthorn::scenes::builtin::portals_scene;
use lanthorn::vis::{CullMode, Culler, VisibleSet};

use crate::support::gpu;

const SIZE: (u32, u32) = (320, 180);

fn transform(p: &Portal) -> Option<Mat4> {
    p.transform.map(|m| Mat4::from_cols_array(&m))
}

/// The level's mirror portals (a transform that reflects), looked up: the compiled yard may
/// cut its mirror into one portal per cell its wall spans.
fn mirrors(level: &Level) -> Vec<&Portal> {
    let reflects = |p: &&Portal| transform(p).is_some_and(|m| m.determinant() < 0.0);
    level.portals.iter().filter(reflects).collect()
}

#[test]
fn mirror_shows_the_reflected_yard() {
    let Some(gpu) = gpu() else { return };
    let mut level = portals_scene();
    // Close the teleporter (the portals that move without reflecting) so the mirror shows
    // only the yard.
    for p in level.portals.iter_mut() {
        if transform(p).is_some_and(|m| m.determinant() > 0.0) {
            p.flags |= portal_flags::CLOSED;
        }
    }
    let mirror = mirrors(&level);
    assert!(!mirror.is_empty());
    let reflect = transform(mirror[0]).unwrap();
    assert!(mirror
        .iter()
        .all(|p| transform(p).unwrap().abs_diff_eq(reflect, 1e-4)));
    // In the open yard east of the big crate (the hand-built yard's camera stood inside it,
    // which a compiled level's solid does not allow).
    let spec = CameraSpec {
        position: Vec3::new(100.0, 30.0, 100.0),
        yaw: 5.0,
        pitch: 0.0,
    };
    let cam = Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
    // The flow opens a mirrored view per mirror portal it sees, each matrix the camera's
    // times the reflection.
    let mut vis = VisibleSet::default();
    Culler::new(&level, CullMode::Portal).cull(&level, &cam, &mut vis);
    assert!(!vis.views.is_empty() && vis.views.len() <= mirror.len());
    for v in &vis.views {
        assert!(v.mirrored);
        assert!(v.view_proj.abs_diff_eq(cam.view_proj() * reflect, 1e-4));
    }
    let (img, stats) = lanthorn::app::capture::capture(gpu, &level, spec, SIZE, CullMode::Portal);
    assert_eq!(stats.world.views as usize, 1 + vis.views.len());
    // Oracle: the reflected camera (the eye reflected, yaw 180 − yaw: the mirror faces −x),
    // no portals, flipped left–right.
    assert!(mirror[0].plane.normal.abs_diff_eq(-Vec3::X, 1e-5));
    let mirrored = CameraSpec {
        position: reflect.transform_point3(spec.position),
        yaw: 180.0 - spec.yaw,
        pitch: 0.0,
    };
    let (oracle, _) = lanthorn::app::capture::capture(gpu, &level, mirrored, SIZE, CullMode::None);
    let oracle = image::imageops::flip_horizontal(&oracle);
    // Compare inside the mirror's screen rectangle (all its portals), two pixels in from its
    // edges.
    let corners: Vec<Vec2> = mirror
        .iter()
        .flat_map(|p| p.polygon.iter())
        .map(|p| cam.world_to_ndc(*p).unwrap().truncate())
        .collect();
    let oct = Octagon::from_points(corners.iter().copied());
    let (mut sum, mut n) = (0u64, 0u64);
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let ndc = Vec2::new(
                (x as f32 + 0.5) / SIZE.0 as f32 * 2.0 - 1.0,
                1.0 - (y as f32 + 0.5) / SIZE.1 as f32 * 2.0,
            );
            let inner = (0..4).all(|i| {
                let a = [ndc.x, ndc.y, ndc.x + ndc.y, ndc.x - ndc.y][i];
                a > oct.min[i] + 0.03 && a < oct.max[i] - 0.03
            });
            if !inner {
                continue;
            }
            let (p, q) = (img.get_pixel(x, y), oracle.get_pixel(x, y));
            sum += (0..3).map(|c| p[c].abs_diff(q[c]) as u64).sum::<u64>();
            n += 1;
        }
    }
    assert!(
        n > 2000,
        "the mirror should cover part of the frame ({n} px)"
    );
    let mean = sum as f64 / (3 * n) as f64;
    assert!(
        mean < 3.0,
        "mirror differs from the reflected render: mean {mean:.2}"
    );
}

#[test]
fn teleporter_shows_the_room_it_leads_to() {
    let Some(gpu) = gpu() else { return };
    let level = portals_scene();
    // The green room, found by a point inside it, and the teleporter's face in the yard's west
    // wall: the portals that move without reflecting and lead into the room.
    let room = level
        .locate(Vec3::new(2192.0, 0.0, 128.0))
        .expect("the green room");
    let from: Vec<&Portal> = level
        .portals
        .iter()
        .filter(|p| transform(p).is_some_and(|m| m.determinant() > 0.0) && p.back == room)
        .collect();
    assert!(!from.is_empty());
    // Between the big crate and the west wall, facing the teleporter (the hand-built yard's
    // camera stood inside the crate).
    let spec = CameraSpec {
        position: Vec3::new(-200.0, 0.0, 96.0),
        yaw: 180.0,
        pitch: 0.0,
    };
    let cam = Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
    let mut vis = VisibleSet::default();
    Culler::new(&level, CullMode::Portal).cull(&level, &cam, &mut vis);
    assert!(vis.views.iter().any(|v| !v.mirrored));
    assert!(
        vis.cells.iter().any(|c| c.cell == room && c.view > 0),
        "the green room is drawn in a teleporter view"
    );
    assert!(!vis.cells.iter().any(|c| c.cell == room && c.view == 0));
    let (img, _) = lanthorn::app::capture::capture(gpu, &level, spec, SIZE, CullMode::Portal);
    // The middle of the teleporter's face shows the green room's back wall.
    let corners = from.iter().flat_map(|p| p.polygon.iter());
    let (lo, hi) = corners.fold((Vec3::MAX, Vec3::MIN), |(a, b), &p| (a.min(p), b.max(p)));
    let centre = cam.world_to_ndc((lo + hi) * 0.5).unwrap();
    let px = lanthorn::geom::Camera::ndc_to_pixel(centre.truncate(), SIZE);
    let p = img.get_pixel(px.x as u32, px.y as u32);
    assert!(
        p[1] > p[0] + 30 && p[1] > p[2] + 30,
        "expected green, got {p:?}"
    );
}

/// The terrain under a level shows only through the visible outdoor cells: every pixel the
/// terrain changes lies inside the octagon of the outdoor cell it is seen through.
/// With clip distances and with the fragment-discard fallback alike.
#[test]
fn terrain_shows_only_through_outdoor_cells() {
    let Some(gpu) = gpu() else { return };
    terrain_through_outdoor_cells(gpu);
    let Some(fallbacks) = crate::support::gpu_fallbacks() else {
        return;
    };
    assert!(!fallbacks.features.clip_distances);
    terrain_through_outdoor_cells(fallbacks);
}

fn terrain_through_outdoor_cells(gpu: &lanthorn::render::Gpu) {
    use lanthorn::render::settings::FrameSettings;
    use lanthorn::render::Renderer;
    use lanthorn::vis::VisibleCell;
    let mut level = lanthorn::scenes::builtin::scene();
    // Open the yard's floor (every surface facing up at z = 0, found by its plane: the
    // compiled yard has several) onto a terrain far below; the yard's cells are outdoor.
    let mut floors = 0;
    for s in level.surfaces.iter_mut() {
        if s.normal.z > 0.999 && s.vertices.iter().all(|v| v.position.z.abs() < 1e-3) {
            s.indices.clear();
            floors += 1;
        }
    }
    assert!(floors > 0);
    let outdoor = lanthorn::level::cell_flags::OUTDOOR;
    assert!(level.cells.iter().all(|c| c.flags & outdoor != 0));
    level.terrain = Some(lanthorn::level::TerrainRef {
        heightmap: "procedural:1024".into(),
        origin: Vec3::new(0.0, 0.0, -4000.0),
        horizontal_scale: 32.0,
        vertical_scale: 1.0,
    });
    let load = || {
        lanthorn::app::terrain::load(&lanthorn::app::terrain::TerrainOptions {
            heightmap: "procedural:1024".parse().unwrap(),
            spacing: Some(32.0),
            vertical_scale: Some(1.0),
            levels: Some(8),
            grid: Some(63),
        })
        .unwrap()
    };
    let spec = CameraSpec {
        position: Vec3::new(-300.0, 0.0, 250.0),
        yaw: 0.0,
        pitch: -45.0,
    };
    let cam = Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
    // The yard (all its cells) seen only through the left half of the screen.
    let mut left = Octagon::FULL;
    left.max[0] = 0.0;
    let visible = VisibleSet {
        cells: (0..level.cells.len() as u32)
            .map(|cell| VisibleCell {
                cell,
                octagon: left,
                view: 0,
            })
            .collect(),
        objects: vec![],
        views: vec![],
        flow_depth: Vec::new(),
        eye_outside: false,
        nothing_under_liquids: false,
    };
    let settings = FrameSettings::default();
    let mut plain = Renderer::new(gpu, &level, SIZE);
    plain.render(gpu, &cam, &visible, &settings);
    let without = plain.read_color(gpu);
    let mut with = Renderer::new(gpu, &level, SIZE);
    with.set_terrain(gpu, load());
    let stats = with.render(gpu, &cam, &visible, &settings);
    assert!(stats.terrain.triangles > 0);
    let img = with.read_color(gpu);
    let (mut changed, mut outside) = (0, 0);
    for (x, y, p) in img.enumerate_pixels() {
        if p != without.get_pixel(x, y) {
            changed += 1;
            if x > SIZE.0 / 2 {
                outside += 1;
            }
        }
    }
    assert!(
        changed > 500,
        "the terrain should show through the open floor ({changed} px)"
    );
    assert_eq!(
        outside, 0,
        "terrain drawn outside the outdoor cell's octagon"
    );
    // With no outdoor cell visible, no terrain at all.
    let none = VisibleSet {
        cells: vec![],
        objects: vec![],
        views: vec![],
        flow_depth: Vec::new(),
        eye_outside: false,
        nothing_under_liquids: false,
    };
    let mut r = Renderer::new(gpu, &level, SIZE);
    r.set_terrain(gpu, load());
    let s = r.render(gpu, &cam, &none, &settings);
    assert_eq!(s.terrain.triangles, 0);
}

/// docs/formats.md's compiled scene end to end: a hall, a doorway, an outdoor terrace over a
/// terrain. The terrain changes the frame only inside the union of the visible outdoor cells'
/// octagons (through the doorway from the hall), and from the terrace it fills the open sides
/// and the sky — what the compiler left open because nothing was built there.
#[test]
fn compiled_outdoor_scene_shows_the_terrain() {
    use lanthorn::render::settings::FrameSettings;
    use lanthorn::render::Renderer;
    let Some(gpu) = gpu() else { return };
    let level = crate::support::readme_scene();
    let t = level.terrain.clone().expect("the example names a terrain");
    let clipmap = || {
        lanthorn::app::terrain::load(&lanthorn::app::terrain::TerrainOptions {
            heightmap: t.heightmap.parse().unwrap(),
            spacing: Some(t.horizontal_scale as f64),
            vertical_scale: Some(t.vertical_scale),
            levels: Some(8),
            grid: Some(63),
        })
        .unwrap()
    };
    let settings = FrameSettings::default();
    // (camera, least share of the frame the terrain and its sky must change)
    let views = [
        ((Vec3::new(700.0, 256.0, 120.0), 0.0, 0.0), 0.02),
        ((Vec3::new(1100.0, 300.0, 150.0), -20.0, -10.0), 0.3),
        // Out over the terrain beyond every cell, looking away from the level: all terrain.
        ((Vec3::new(3000.0, 256.0, 300.0), 0.0, -10.0), 0.95),
    ];
    for ((position, yaw, pitch), least) in views {
        let spec = CameraSpec {
            position,
            yaw,
            pitch,
        };
        let cam = Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
        let mut vis = VisibleSet::default();
        Culler::new(&level, CullMode::Portal).cull(&level, &cam, &mut vis);
        let mut plain = Renderer::new(gpu, &level, SIZE);
        plain.render(gpu, &cam, &vis, &settings);
        let without = plain.read_color(gpu);
        let mut with = Renderer::new(gpu, &level, SIZE);
        with.set_terrain(gpu, clipmap());
        let octagon = with
            .terrain_octagon(&vis)
            .expect("an outdoor cell is visible");
        let stats = with.render(gpu, &cam, &vis, &settings);
        assert!(stats.terrain.triangles > 0);
        let img = with.read_color(gpu);
        let (mut changed, mut outside) = (0u32, 0u32);
        for (x, y, p) in img.enumerate_pixels() {
            if p == without.get_pixel(x, y) {
                continue;
            }
            changed += 1;
            // Pixel centre in NDC, with a pixel of slack for rasterization at the edges.
            let ndc = |dx: f32, dy: f32| {
                Vec2::new(
                    (x as f32 + 0.5 + dx) / SIZE.0 as f32 * 2.0 - 1.0,
                    1.0 - (y as f32 + 0.5 + dy) / SIZE.1 as f32 * 2.0,
                )
            };
            if ![(0.0, 0.0), (-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0)]
                .iter()
                .any(|&(dx, dy)| octagon.contains(ndc(dx, dy)))
            {
                outside += 1;
            }
        }
        let share = changed as f32 / (SIZE.0 * SIZE.1) as f32;
        eprintln!("outdoor scene from {position}: terrain changed {share:.3} of the frame");
        assert!(
            share >= least,
            "from {position}: only {share:.3} of the frame shows terrain"
        );
        assert_eq!(
            outside, 0,
            "from {position}: terrain outside the outdoor octagon"
        );
        if least < 0.1 {
            // From the hall the terrace is seen only through the doorway.
            assert!(octagon.area() < 0.5, "octagon area {}", octagon.area());
        }
    }
}

/// docs/formats.md's scene end to end as a picture: compiled outdoor cells, baked light and sun
/// shadows, the terrain through the OUTSIDE cell, the level's dusk skybox as the terrain's sky.
#[test]
fn readme_terrace_matches_golden() {
    let Some(gpu) = gpu() else { return };
    let level = crate::support::readme_scene();
    let t = level.terrain.clone().unwrap();
    let terrain = lanthorn::app::terrain::load(&lanthorn::app::terrain::TerrainOptions {
        heightmap: t.heightmap.parse().unwrap(),
        spacing: Some(t.horizontal_scale as f64),
        vertical_scale: Some(t.vertical_scale),
        levels: Some(10),
        grid: Some(127),
    })
    .unwrap();
    let spec = CameraSpec {
        position: Vec3::new(1130.0, 330.0, 160.0),
        yaw: -25.0,
        pitch: -8.0,
    };
    let (img, stats) = lanthorn::app::capture::capture_with_terrain(
        gpu,
        &level,
        Some(terrain),
        spec,
        (480, 270),
        CullMode::Portal,
        &lanthorn::render::settings::FrameSettings::default(),
        &Default::default(),
    );
    assert!(stats.terrain.triangles > 0 && stats.world.triangles > 0);
    crate::golden::check_golden("readme_terrace", &img);
}
