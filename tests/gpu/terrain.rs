//! The terrain pass on the GPU against independent oracles: the CPU reference of the vertex
//! shader, a fresh full upload of the height windows, a golden image of ETOPO5, the draw-command
//! bound, and a brute-force full-resolution mesh (screen-space error).

#![allow(clippy::too_many_lines)] // scenario tests read best whole

use glam::{DVec2, Vec3, Vec4};
use lanthorn::geom::{Camera, CameraSpec, Octagon};
use lanthorn::level::Level;
use lanthorn::render::settings::FrameSettings;
use lanthorn::render::target::COLOR_FORMAT;
use lanthorn::render::terrain::{ReferenceVertex, Terrain, TerrainOverlay};
use lanthorn::render::Renderer;
use lanthorn::terrain::clipmap;
use lanthorn::terrain::vertex::vertex_position;
use lanthorn::terrain::{
    ClipmapConfig, ClipmapTerrain, DirectHeights, Heightmap, HeightmapOptions, HeightmapSpec,
    WindowTextureModel,
};
use lanthorn::vis::VisibleSet;
use wgpu::util::DeviceExt;

use crate::golden::check_golden;
use crate::support::gpu;

fn camera(x: f32, y: f32, z: f32, yaw: f32, pitch: f32, aspect: f32) -> Camera {
    Camera::new(
        CameraSpec {
            position: Vec3::new(x, y, z),
            yaw,
            pitch,
        },
        aspect,
    )
}

/// Deterministic xorshift.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.next()
    }
}

/// (1) Every vertex of every drawn instance, as the terrain pass's own vertex shader computes
/// it on the GPU (read back as one pixel per vertex), equals the CPU reference
/// `terrain::vertex::vertex_position` fed straight from the heightmap; so does its clip position
/// (`projection × view_rotation`, camera-relative, plus the frozen-culling eye offset).
#[test]
fn terrain_gpu_displacement_and_morph_match_cpu_reference() {
    let Some(gpu) = gpu() else { return };
    let hm = Heightmap::procedural(1 << 16, 3);
    let cfg = ClipmapConfig::new(6, 31, 32.0).unwrap();
    let mut terrain = Terrain::new(
        gpu,
        ClipmapTerrain::new(hm.clone(), cfg).unwrap(),
        COLOR_FORMAT,
    );
    let ground = |x: f32, y: f32| hm.height_at(x as f64, y as f64);
    let cams = [
        camera(1.0e6 + 13.7, 1.0e6 - 5.2, 2600.0, 30.0, -20.0, 1.5),
        camera(77.3, -9123.9, 2500.0, 200.0, -35.0, 1.5),
        camera(3.3e6, 2.9e6, 1800.0, 95.0, -10.0, 16.0 / 9.0),
        camera(
            500.5,
            700.25,
            ground(500.5, 700.25) + 40.0,
            300.0,
            -5.0,
            1.0,
        ),
        camera(
            -4.0e5,
            2.5e5,
            ground(-4.0e5, 2.5e5) + 900.0,
            45.0,
            -60.0,
            1.2,
        ),
    ];
    let (mut total, mut exact, mut morphed) = (0usize, 0usize, 0usize);
    let (mut worst_rel, mut worst_clip) = (0f32, 0f32);
    for (ci, cam) in cams.iter().enumerate() {
        // The last camera also checks the frozen-culling path: select (freeze) at this camera,
        // then look from a point 500 units away.
        let mut eye = *cam;
        let overlay = TerrainOverlay::default();
        terrain.select_and_upload(gpu, (cam, Octagon::FULL), &overlay, None);
        if ci == cams.len() - 1 {
            let frozen = TerrainOverlay {
                freeze_culling: true,
                ..Default::default()
            };
            terrain.select_and_upload(gpu, (cam, Octagon::FULL), &frozen, None);
            eye.position += Vec3::new(500.0, -250.0, 120.0);
            terrain.select_and_upload(gpu, (&eye, Octagon::FULL), &frozen, None);
        }
        let sel = terrain.clipmap.selector.selection().clone();
        let rb = terrain.draw.read_vertex_positions(gpu);
        let direct = DirectHeights {
            hm: &terrain.clipmap.heightmap,
            cfg,
        };
        let vp = eye.projection() * eye.view_rotation();
        let offset = (cam.position.as_dvec3() - eye.position.as_dvec3()).as_vec3();
        let mut count = 0;
        for (kind, _, range) in sel.draws() {
            let mesh = terrain.clipmap.meshes.get(kind);
            for ii in range {
                let inst = sel.instances[ii as usize];
                for (vi, v) in mesh.vertices.iter().enumerate() {
                    let (rel, clip) = rb.at(ii, vi as u32);
                    let e = vertex_position(&sel.frame, &inst, *v, &direct);
                    let g = Vec3::new(rel[0], rel[1], rel[2]);
                    assert!(
                        g.is_finite(),
                        "camera {ci}: vertex {vi} of instance {ii} ({kind:?}) was not written"
                    );
                    let d = (g - e).abs().max_element() / e.abs().max_element().max(1.0);
                    worst_rel = worst_rel.max(d);
                    exact += (g == e) as usize;
                    morphed += (rel[3] > 0.0) as usize;
                    let ec = vp * (e + offset).extend(1.0);
                    let gc = Vec4::from(clip);
                    let dc = (gc - ec).abs().max_element() / ec.abs().max_element().max(1.0);
                    worst_clip = worst_clip.max(dc);
                    count += 1;
                }
            }
        }
        assert!(count > 1000, "camera {ci}: only {count} vertices drawn");
        total += count;
    }
    println!(
        "terrain GPU vs CPU reference: {total} vertices over {} cameras, {exact} bit-exact, \
         {morphed} in a morph band, worst relative difference: position {worst_rel:e}, clip {worst_clip:e}",
        cams.len()
    );
    assert!(morphed > 1000, "the morph band was never exercised");
    assert!(worst_rel < 1e-6, "positions differ: {worst_rel}");
    assert!(worst_clip < 1e-5, "clip positions differ: {worst_clip}");
}

/// (2) After a long random flight (small steps, fast dashes, teleports, climbs that drop the
/// fine levels and dives that bring them back), each level's layer of the GPU texture array
/// equals a fresh full upload of that level's window.
#[test]
fn terrain_gpu_toroidal_windows_equal_fresh_upload_after_random_flight() {
    let Some(gpu) = gpu() else { return };
    let hm = Heightmap::procedural(1 << 20, 9);
    let cfg = ClipmapConfig::new(8, 63, 32.0).unwrap();
    let mut terrain = Terrain::new(
        gpu,
        ClipmapTerrain::new(hm.clone(), cfg).unwrap(),
        COLOR_FORMAT,
    );
    let mut rng = Rng(0x5eed_1234_abcd);
    let mut p = DVec2::new(1.0e6, 2.0e6);
    let mut above = 200.0;
    let (mut bytes, mut frames_with_updates) = (0usize, 0usize);
    let mut first_levels = std::collections::BTreeSet::new();
    let frames = 400;
    for i in 0..frames {
        let r = rng.next();
        let step = if r < 0.6 {
            rng.range(0.0, 60.0)
        } else if r < 0.9 {
            rng.range(60.0, 3000.0)
        } else if r < 0.97 {
            rng.range(3000.0, 60_000.0)
        } else {
            rng.range(1.0e5, 1.0e7) // teleport: every window refills
        };
        let a = rng.range(0.0, std::f64::consts::TAU);
        p += DVec2::new(a.cos(), a.sin()) * step;
        if rng.next() < 0.05 {
            above = if above < 1000.0 {
                rng.range(3000.0, 60_000.0)
            } else {
                rng.range(20.0, 400.0)
            };
        }
        let z = hm.height_at(p.x, p.y) as f64 + above;
        let cam = camera(
            p.x as f32,
            p.y as f32,
            z as f32,
            rng.range(0.0, 360.0) as f32,
            -20.0,
            1.5,
        );
        let s =
            terrain.select_and_upload(gpu, (&cam, Octagon::FULL), &TerrainOverlay::default(), None);
        first_levels.insert(s.first_level);
        if i > 0 && s.upload_bytes > 0 {
            frames_with_updates += 1;
            bytes += s.upload_bytes;
        }
    }
    let layers = terrain.draw.read_heights(gpu);
    let cam = p; // the last camera's xy
    let cam_xy = DVec2::new(cam.x as f32 as f64, cam.y as f32 as f64);
    let fresh = WindowTextureModel::full_fill(&cfg, &hm, cam_xy);
    let origins = terrain.clipmap.streamer.origins().to_vec();
    let mut compared = 0;
    for (l, o) in origins.iter().enumerate() {
        if o.is_none() {
            continue; // a fine level inactive at this height (refilled when it comes back)
        }
        let bad = layers[l]
            .iter()
            .zip(&fresh.layers[l])
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .count();
        assert_eq!(bad, 0, "level {l}: {bad} texels differ from a fresh upload");
        compared += 1;
    }
    let full = terrain.clipmap.window_bytes();
    println!(
        "terrain toroidal GPU check: {frames} frames, first levels seen {first_levels:?}, {compared} layers \
         compared bit for bit; {frames_with_updates} frames uploaded {bytes} bytes in all \
         (a full refill is {full} bytes)"
    );
    assert!(compared >= 2);
    assert!(
        first_levels.len() >= 2,
        "the flight never changed the finest level"
    );
    assert!(
        bytes < frames_with_updates * full / 3,
        "uploads look like full refills"
    );
}

/// The ETOPO5 heightmap, or a loud skip (a failure under CI).
fn etopo5() -> Option<HeightmapSpec> {
    let path = lanthorn::realdata_dir().join("terrain/etopo5_4320x2161.png");
    if !path.exists() {
        return crate::support::unavailable(
            "../shared/realdata",
            &format!("{} is missing", path.display()),
        );
    }
    Some(HeightmapSpec::Png(path))
}

/// (3) ETOPO5 from a fixed camera south of the Himalaya: Bay of Bengal, Ganges plain, the
/// mountain front and the Tibetan plateau.
#[test]
fn terrain_etopo5_matches_golden() {
    let Some(gpu) = gpu() else { return };
    let Some(spec) = etopo5() else { return };
    let hm = Heightmap::open(&spec, HeightmapOptions::default()).unwrap();
    let cfg = ClipmapConfig::for_heightmap(&hm);
    let terrain = ClipmapTerrain::new(hm, cfg).unwrap();
    let cam = CameraSpec {
        position: Vec3::new(66750.0, 82000.0, 1400.0),
        yaw: 90.0,
        pitch: -8.0,
    };
    let (img, stats) = lanthorn::app::capture::capture_with_terrain(
        gpu,
        &Level::default(),
        Some(terrain),
        cam,
        (480, 270),
        lanthorn::vis::CullMode::Portal,
        &FrameSettings::default(),
        &Default::default(),
    );
    assert!(stats.terrain.triangles > 0);
    assert!(stats.terrain.draw_calls as usize <= clipmap::MAX_DRAWS + 1);
    check_golden("etopo5", &img);
}

/// (4) L = 10: draw commands bounded whatever the levels — one per mesh kind and run of its
/// parts the frustum sees (`clipmap::MAX_DRAWS`) and the sky — from every camera, with every
/// level drawn; the overlays add their own draws but leave the terrain's count alone.
#[test]
fn terrain_draw_commands_bounded_for_ten_levels() {
    let Some(gpu) = gpu() else { return };
    let hm = Heightmap::procedural(1 << 16, 4);
    let cfg = ClipmapConfig::new(10, 255, 32.0).unwrap();
    let mut r = Renderer::new(gpu, &Level::default(), (320, 180));
    r.set_terrain(gpu, ClipmapTerrain::new(hm.clone(), cfg).unwrap());
    let c = 1.0e6f32;
    let g = hm.height_at(c as f64, c as f64);
    let cams = [
        camera(c, c, g + 30.0, 0.0, 0.0, 16.0 / 9.0),
        camera(c, c, g + 300.0, 120.0, -30.0, 16.0 / 9.0),
        camera(c, c, g + 300.0, 45.0, -89.0, 16.0 / 9.0),
        camera(c, c, g + 20_000.0, 200.0, -40.0, 16.0 / 9.0),
        camera(c, c, g + 100.0, 10.0, 60.0, 16.0 / 9.0),
    ];
    let mut max_levels = 0;
    for (i, cam) in cams.iter().enumerate() {
        let mut settings = FrameSettings::default();
        if i == 1 {
            settings.terrain = TerrainOverlay {
                level_colors: true,
                wireframe: true,
                tile_bounds: true,
                culled_tiles: true,
                freeze_culling: false,
            };
        }
        let s = r
            .render(gpu, cam, &VisibleSet::default(), &settings)
            .terrain;
        println!(
            "camera {i}: {} draw calls (+{} overlay), {} instances, levels {}..{}, {} triangles",
            s.draw_calls,
            s.overlay_draw_calls,
            s.instances,
            s.first_level,
            s.first_level + s.levels_drawn,
            s.triangles
        );
        assert!(
            s.draw_calls as usize <= clipmap::MAX_DRAWS + 1,
            "camera {i}: {} draw calls",
            s.draw_calls
        );
        assert!(s.draw_calls >= 1);
        max_levels = max_levels.max(s.levels_drawn);
        if i == 1 {
            assert!(s.overlay_draw_calls >= 1);
            let img = r.read_color(gpu);
            if std::env::var("LANTHORN_TERRAIN_SSE_IMAGES").is_ok() {
                let _ = img.save("/tmp/terrain_overlays.png");
            }
            // The yellow tile boxes (sRGB-encoded 255, 230, 40).
            let boxes = img
                .pixels()
                .filter(|p| p[0] > 220 && p[1] > 200 && p[2] < 150)
                .count();
            assert!(boxes > 50, "no tile boxes drawn ({boxes} pixels)");
        }
    }
    assert_eq!(max_levels, 10);
}

/// (5) Screen-space error: the clipmap against a brute-force mesh of every sample of a 1k²
/// heightmap (same shading, same cameras), compared on the pixels the full mesh covers.
#[test]
fn terrain_screen_space_error_against_full_resolution_mesh() {
    let Some(gpu) = gpu() else { return };
    let size = (640u32, 360u32);
    let n = 1024u32;
    let hm = Heightmap::procedural(n as u64, 11);
    let s = hm.horizontal_scale;
    let cfg = ClipmapConfig::for_heightmap(&hm);
    let mut r = Renderer::new(gpu, &Level::default(), size);
    r.set_terrain(gpu, ClipmapTerrain::new(hm.clone(), cfg).unwrap());

    // Index buffer of the full grid (CCW from above, like the clipmap meshes).
    let mut indices: Vec<u32> = Vec::with_capacity(((n - 1) * (n - 1) * 6) as usize);
    for y in 0..n - 1 {
        for x in 0..n - 1 {
            let a = y * n + x;
            indices.extend_from_slice(&[a, a + 1, a + n + 1, a, a + n + 1, a + n]);
        }
    }
    let ib = gpu
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("full mesh indices"),
            contents: bytemuck::cast_slice(&indices),
            usage: wgpu::BufferUsages::INDEX,
        });
    let h = |x: i64, y: i64| hm.sample(x, y);
    let mid = (n as f32 - 1.0) * s as f32 * 0.5;
    let at = |x: f32, y: f32, up: f32| hm.height_at(x as f64, y as f64) + up;
    let aspect = size.0 as f32 / size.1 as f32;
    let cams = [
        camera(mid, mid, at(mid, mid, 300.0), 30.0, -15.0, aspect),
        camera(
            mid * 0.5,
            mid * 1.3,
            at(mid * 0.5, mid * 1.3, 1500.0),
            -20.0,
            -25.0,
            aspect,
        ),
        camera(
            mid * 1.5,
            mid * 0.5,
            at(mid * 1.5, mid * 0.5, 80.0),
            135.0,
            -5.0,
            aspect,
        ),
        camera(mid, mid, at(mid, mid, 6000.0), 200.0, -50.0, aspect),
    ];
    let (mut sum, mut pixels, mut max, mut bad) = (0f64, 0usize, 0u8, 0usize);
    for (ci, cam) in cams.iter().enumerate() {
        let clip = r.render(gpu, cam, &VisibleSet::default(), &FrameSettings::default());
        assert!(clip.terrain.triangles > 0);
        let clip_img = r.read_color(gpu);
        // The full mesh, eye-relative (f64 → f32), normals from the same central differences.
        let e = cam.position.as_dvec3();
        let mut verts = Vec::with_capacity((n * n) as usize);
        for y in 0..n as i64 {
            for x in 0..n as i64 {
                let z = h(x, y);
                let dx = h(x + 1, y) - h(x - 1, y);
                let dy = h(x, y + 1) - h(x, y - 1);
                let nn = Vec3::new(-dx / (2.0 * s as f32), -dy / (2.0 * s as f32), 1.0).normalize();
                verts.push(ReferenceVertex {
                    rel: [
                        (x as f64 * s - e.x) as f32,
                        (y as f64 * s - e.y) as f32,
                        (z as f64 - e.z) as f32,
                    ],
                    height: z,
                    normal: nn.to_array(),
                    _pad: 0.0,
                });
            }
        }
        let vb = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("full mesh vertices"),
                contents: bytemuck::cast_slice(&verts),
                usage: wgpu::BufferUsages::VERTEX,
            });
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("full mesh"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &r.target.color_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &r.target.depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            let t = r.terrain.as_ref().unwrap();
            t.draw
                .record_reference(&gpu.device, &mut pass, &vb, &ib, indices.len() as u32);
        }
        gpu.queue.submit([enc.finish()]);
        r.depth_written();
        let full_img = r.read_color(gpu);
        let (mut cs, mut cp, mut cm, mut cb) = (0f64, 0usize, 0u8, 0usize);
        for (a, b) in full_img.pixels().zip(clip_img.pixels()) {
            if a[3] != 255 {
                continue; // the full mesh does not cover this pixel (sky, or past the map)
            }
            let d = (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap();
            cs += (0..3).map(|c| a[c].abs_diff(b[c]) as f64).sum::<f64>() / 3.0;
            cp += 1;
            cm = cm.max(d);
            cb += (d > 32) as usize;
        }
        assert!(
            cp > 10_000,
            "camera {ci}: the full mesh covers only {cp} pixels"
        );
        println!(
            "terrain screen-space error, camera {ci}: {cp} pixels, mean {:.2}/255, max {cm}/255, \
             {:.3} % of pixels off by > 32; clipmap {} triangles vs full {}",
            cs / cp as f64,
            100.0 * cb as f64 / cp as f64,
            clip.terrain.triangles,
            indices.len() / 3
        );
        if std::env::var("LANTHORN_TERRAIN_SSE_IMAGES").is_ok() {
            let _ = full_img.save(format!("/tmp/terrain_sse_full_{ci}.png"));
            let _ = clip_img.save(format!("/tmp/terrain_sse_clip_{ci}.png"));
        }
        sum += cs;
        pixels += cp;
        max = max.max(cm);
        bad += cb;
    }
    let mean = sum / pixels as f64;
    let bad_fraction = bad as f64 / pixels as f64;
    println!(
        "terrain screen-space error, all cameras: mean {mean:.2}/255, max {max}/255, {:.3} % of pixels off by > 32",
        100.0 * bad_fraction
    );
    assert!(mean < 2.0, "mean pixel difference {mean:.2} too large");
    assert!(
        bad_fraction < 0.01,
        "{bad_fraction} of pixels differ by > 32"
    );
}

/// The command line: `bench --terrain … --json` keeps the existing keys and adds the terrain's;
/// a missing heightmap is one clear error naming the file.
#[test]
fn terrain_cli_bench_json_and_bad_heightmap() {
    let Some(_) = gpu() else { return };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lanthorn"))
        .args([
            "bench",
            "--terrain",
            "procedural:256",
            "--frames",
            "4",
            "--warmup",
            "1",
            "--size",
            "160x90",
            "--json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    for key in [
        "frames",
        "frame_ms_median",
        "draw_calls_max",
        "clipmap_select_us_median",
        "terrain_triangles_median",
        "terrain_draw_calls_max",
        "upload_bytes_per_frame_median",
        "upload_bytes_per_unit_moved",
        "camera_units_per_frame_median",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {v}");
    }
    let draws = v["terrain_draw_calls_max"].as_u64().unwrap();
    assert!((1..=clipmap::MAX_DRAWS as u64 + 1).contains(&draws), "{v}");
    assert!(v["terrain_triangles_median"].as_u64().unwrap() > 0);
    assert!(
        v["camera_units_per_frame_median"].as_f64().unwrap() > 0.0,
        "{v}"
    );

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lanthorn"))
        .args([
            "capture",
            "--terrain",
            "/nonexistent/heights.png",
            "-o",
            "/tmp/lanthorn-never-written.png",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("/nonexistent/heights.png"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!std::path::Path::new("/tmp/lanthorn-never-written.png").exists());
}

/// The unit direction from `cam` through the centre of pixel (x, y) of a `size` frame.
pub(crate) fn pixel_direction(cam: &Camera, size: (u32, u32), x: u32, y: u32) -> Vec3 {
    let ndc = glam::Vec2::new(
        (x as f32 + 0.5) / size.0 as f32 * 2.0 - 1.0,
        1.0 - (y as f32 + 0.5) / size.1 as f32 * 2.0,
    );
    let near = cam.view_proj().inverse().project_point3(ndc.extend(1.0));
    (near - cam.position).normalize()
}

/// With a level skybox the terrain's sky is that cubemap: every pixel of an all-sky view equals
/// the procedural dusk sky evaluated on the CPU for that pixel's direction (sRGB bytes, within
/// the bilinear filtering of a 128² cube).
#[test]
fn terrain_sky_shows_the_level_skybox() {
    use lanthorn::render::materials::procedural_sky;
    let Some(gpu) = gpu() else { return };
    let mut level = Level::default();
    level.sky = Some(lanthorn::level::Sky {
        material: None,
        cubemap: Some("procedural:dusk".into()),
        faces: None,
        clouds: None,
    });
    let size = (160u32, 90u32);
    let mut r = Renderer::new(gpu, &level, size);
    let hm = Heightmap::procedural(1024, 3);
    r.set_terrain(
        gpu,
        ClipmapTerrain::new(hm, ClipmapConfig::new(6, 63, 32.0).unwrap()).unwrap(),
    );
    // Looking up and away from the sun: nothing but sky.
    let cam = camera(16000.0, 16000.0, 9000.0, 200.0, 55.0, 16.0 / 9.0);
    r.render(gpu, &cam, &VisibleSet::default(), &FrameSettings::default());
    let img = r.read_color(gpu);
    let mut worst = 0i32;
    for (x, y, p) in img.enumerate_pixels() {
        let d = pixel_direction(&cam, size, x, y);
        let want = procedural_sky(d).map(|v| (v * 255.0).round() as i32);
        for k in 0..3 {
            worst = worst.max((p[k] as i32 - want[k]).abs());
        }
    }
    println!("terrain sky vs CPU dusk sky: worst channel difference {worst}");
    assert!(worst <= 6, "terrain sky differs from the skybox by {worst}");
}

/// With `--sky scattering` the terrain's sky is the daylight model for the level's sun: every
/// pixel of all-sky views equals `ScatteringSky::color` (the CPU twin, itself checked against
/// the paper's zenith and horizon values) in its direction — a high and a low sun, each seen
/// looking up away from it and along the horizon towards it.
#[test]
fn terrain_scattering_sky_matches_the_daylight_model() {
    use lanthorn::render::settings::SkyMode;
    use lanthorn::terrain::{sky::TURBIDITY, ScatteringSky};
    let Some(gpu) = gpu() else { return };
    let size = (160u32, 90u32);
    for elevation in [60.0f32, 20.0] {
        let mut level = Level::default();
        level.entities.push(lanthorn::level::Entity {
            pairs: vec![
                ("classname".into(), "worldspawn".into()),
                ("_sunlight".into(), "200".into()),
                // Light travelling towards +x, `elevation` down: the sun stands in -x.
                ("_sun_mangle".into(), format!("0 -{elevation} 0")),
            ],
        });
        let mut r = Renderer::new(gpu, &level, size);
        let hm = Heightmap::procedural(1024, 3);
        r.set_terrain(
            gpu,
            ClipmapTerrain::new(hm, ClipmapConfig::new(6, 63, 32.0).unwrap()).unwrap(),
        );
        let e = elevation.to_radians();
        let sky = ScatteringSky::new(Vec3::new(-e.cos(), 0.0, e.sin()), TURBIDITY);
        let settings = FrameSettings {
            sky: SkyMode::Scattering,
            ..Default::default()
        };
        for (yaw, pitch) in [(0.0, 55.0), (180.0, 12.0)] {
            // High above the hills: nothing but sky above the horizon.
            let cam = camera(16000.0, 16000.0, 30000.0, yaw, pitch, 16.0 / 9.0);
            r.render(gpu, &cam, &VisibleSet::default(), &settings);
            let img = r.read_color(gpu);
            let mut worst = 0i32;
            for (x, y, p) in img.enumerate_pixels() {
                let d = pixel_direction(&cam, size, x, y);
                if d.z < 0.02 {
                    continue; // the hills and their fog
                }
                let [cr, cg, cb] = sky.color(d);
                let c = lanthorn::render::target::encode_srgb(wgpu::Color {
                    r: cr as f64,
                    g: cg as f64,
                    b: cb as f64,
                    a: 1.0,
                });
                let want = [c.r, c.g, c.b].map(|v| (v * 255.0).round() as i32);
                for k in 0..3 {
                    worst = worst.max((p[k] as i32 - want[k]).abs());
                }
            }
            println!("sun {elevation}°, view {yaw}/{pitch}: worst channel difference {worst}");
            assert!(worst <= 2, "sun {elevation}°, view {yaw}/{pitch}: {worst}");
        }
    }
}

/// The point light map and the night: over flat ground seen straight down, a lamp (`_lamp` "1",
/// reach 400) brightens the ground within its reach, more near its foot than at half its reach,
/// and leaves every pixel whose ground lies past its reach (and the map's texel) untouched; at
/// night the ground's light is 4 % of the day's.
#[test]
fn lamps_light_the_terrain_within_their_reach_and_night_dims_the_sun() {
    use lanthorn::render::settings::TimeOfDay;
    let Some(gpu) = gpu() else { return };
    let size = (161u32, 91u32);
    let mut level = Level::default();
    let lamp = Vec3::new(2048.0, 2048.0, 60.0);
    level.entities.push(lanthorn::level::Entity {
        pairs: [
            ("classname", "light"),
            ("origin", "2048 2048 60"),
            ("light", "400"),
            ("_lamp", "1"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    });
    let mut r = Renderer::new(gpu, &level, size);
    let n = 129u32;
    let hm = Heightmap::from_f32(n, n, vec![0.0; (n * n) as usize])
        .unwrap()
        .with_scales(32.0, 1.0);
    r.set_terrain(
        gpu,
        ClipmapTerrain::new(hm, ClipmapConfig::new(4, 63, 32.0).unwrap()).unwrap(),
    );
    let cam = camera(
        lamp.x,
        lamp.y,
        1200.0,
        0.0,
        -89.9,
        size.0 as f32 / size.1 as f32,
    );
    let mut shot = |point_lights: bool, time_of_day: TimeOfDay| {
        let settings = FrameSettings {
            point_lights,
            time_of_day,
            ..Default::default()
        };
        r.render(gpu, &cam, &VisibleSet::default(), &settings);
        r.read_color(gpu)
    };
    let day = shot(false, TimeOfDay::Day);
    let night = shot(false, TimeOfDay::Night);
    let lit = shot(true, TimeOfDay::Night);
    let linear = |v: u8| {
        let c = v as f32 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let (mut near, mut mid, mut far_changed, mut far) = (Vec::new(), Vec::new(), 0, 0);
    let (mut day_sum, mut night_sum) = (0.0f64, 0.0f64);
    for (x, y, p) in lit.enumerate_pixels() {
        let d = pixel_direction(&cam, size, x, y);
        let ground = cam.position + d * (-cam.position.z / d.z);
        let dist = ground.truncate().distance(lamp.truncate());
        let dark = night.get_pixel(x, y);
        let gain = (0..3).map(|c| linear(p[c]) - linear(dark[c])).sum::<f32>();
        if dist > 400.0 + 16.0 {
            far += 1;
            far_changed += (p != dark) as u32;
        } else if dist < 60.0 {
            near.push(gain);
        } else if (180.0..220.0).contains(&dist) {
            mid.push(gain);
        }
        day_sum += (0..3)
            .map(|c| linear(day.get_pixel(x, y)[c]) as f64)
            .sum::<f64>();
        night_sum += (0..3).map(|c| linear(dark[c]) as f64).sum::<f64>();
    }
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len().max(1) as f32;
    println!(
        "lamp: near gain {:.3} ({} px), half-reach gain {:.3} ({} px), {far_changed} of {far} beyond changed; night/day {:.4}",
        mean(&near), near.len(), mean(&mid), mid.len(), night_sum / day_sum
    );
    assert!(
        far > 2000 && far_changed == 0,
        "{far_changed} of {far} pixels past the reach changed"
    );
    assert!(near.len() > 20 && mid.len() > 20);
    // (1 − d/r)²: about 0.87 on average within 60 of the foot, 0.25 at half the reach.
    let falloff = mean(&mid) / mean(&near);
    assert!(
        mean(&near) > 0.1 && (0.2..0.4).contains(&falloff),
        "falloff {falloff}"
    );
    let ratio = night_sum / day_sum;
    assert!((0.03..0.05).contains(&ratio), "night/day {ratio}");
}

/// The fog cut is invisible: the keep's terrain (procedural 1024² at 32 units, as the keep
/// places it) from the hills, drawn with the pieces the fog hides wholly dropped and with them
/// drawn, differs by at most one 8-bit step anywhere, while the cut draws far fewer triangles.
#[test]
fn terrain_fog_cut_changes_no_pixel_and_drops_triangles() {
    let Some(gpu) = gpu() else { return };
    let hm = Heightmap::procedural(1024, 0);
    let cfg = ClipmapConfig::for_heightmap(&hm);
    let ground = hm.height_at(4500.0, 4500.0);
    let cam = camera(4500.0, 4500.0, ground + 900.0, 232.0, -18.0, 16.0 / 9.0);
    let mut r = Renderer::new(gpu, &Level::default(), (640, 360));
    r.set_terrain(gpu, ClipmapTerrain::new(hm, cfg).unwrap());
    let mut frame = |cut: bool| {
        r.terrain.as_mut().unwrap().cull_fogged = cut;
        let settings = FrameSettings::default();
        let stats = r
            .render(gpu, &cam, &VisibleSet::default(), &settings)
            .terrain;
        (r.read_color(gpu), stats)
    };
    let (full, full_stats) = frame(false);
    let (cut, cut_stats) = frame(true);
    assert_eq!(full_stats.pieces_fogged, 0);
    assert!(cut_stats.pieces_fogged > 0);
    assert!(
        cut_stats.triangles * 10 < full_stats.triangles * 7,
        "{} of {} triangles drawn with the cut",
        cut_stats.triangles,
        full_stats.triangles
    );
    let worst = full
        .pixels()
        .zip(cut.pixels())
        .flat_map(|(a, b)| (0..3).map(move |i| a[i].abs_diff(b[i])))
        .max()
        .unwrap();
    assert!(worst <= 1, "a pixel changed by {worst} steps");
}
