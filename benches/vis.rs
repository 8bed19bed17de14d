//! Portal flow cost: it must grow with what is visible, not with the level. The same view in a
//! 1,024-room maze and a 99,856-room maze (same seed pattern around the eye) should cost the same.

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::scenes::synthetic::{maze, MazeSpec};
use lanthorn::vis::{PortalFlow, VisibleSet};

fn bench_flow(c: &mut Criterion) {
    let mut group = c.benchmark_group("portal_flow");
    for side in [32u32, 316] {
        let spec = MazeSpec {
            nx: side,
            ny: side,
            extra_doors: 0.6,
            surfaces: false,
            local_doors: true,
            ..Default::default()
        };
        let level = maze(&spec);
        let mut flow = PortalFlow::new(&level);
        let mut vis = VisibleSet::default();
        // A ring of views in the rooms around (8, 8).
        let cams: Vec<Camera> = (0..16)
            .map(|i| {
                let p = Vec3::new(8.5 * spec.room, 8.5 * spec.room, 48.0);
                Camera::new(
                    CameraSpec {
                        position: p,
                        yaw: i as f32 * 22.5,
                        pitch: 0.0,
                    },
                    16.0 / 9.0,
                )
            })
            .collect();
        let eye = level.locate(cams[0].position);
        let mut visible = 0;
        for cam in &cams {
            flow.run(&level, cam, eye, &mut vis);
            visible += vis.cells.len();
        }
        eprintln!(
            "maze {side}x{side}: {} cells, {:.1} visible per view",
            level.cells.len(),
            visible as f64 / 16.0
        );
        let mut i = 0;
        group.bench_function(format!("maze_{}_cells", level.cells.len()), |b| {
            b.iter(|| {
                i = (i + 1) % cams.len();
                flow.run(&level, &cams[i], eye, &mut vis);
                vis.cells.len()
            })
        });
    }
    group.finish();
}

/// Portal flow on e1m1 from random eyes inside open cells (the vis-check's view distribution).
fn bench_e1m1(c: &mut Criterion) {
    let path = realdata_dir().join("quake/bsp/e1m1.bsp");
    let Ok(level) = lanthorn::load::load(&path) else {
        eprintln!("SKIPPED: {} missing", path.display());
        return;
    };
    let mut seed = 12345u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut views = Vec::new();
    while views.len() < 256 {
        let ci = (rnd() * level.cells.len() as f32) as usize % level.cells.len();
        let cell = &level.cells[ci];
        let p = cell.aabb.min + Vec3::new(rnd(), rnd(), rnd()) * cell.aabb.size();
        if cell.planes.iter().all(|pl| pl.distance(p) >= 8.0) && level.locate(p) == Some(ci as u32)
        {
            let cam = Camera::new(
                CameraSpec {
                    position: p,
                    yaw: rnd() * 360.0,
                    pitch: (rnd() - 0.5) * 60.0,
                },
                16.0 / 9.0,
            );
            views.push((cam, ci as u32));
        }
    }
    let mut flow = PortalFlow::new(&level);
    let mut vis = VisibleSet::default();
    let mut i = 0;
    c.bench_function("portal_flow/e1m1_random_views", |b| {
        b.iter(|| {
            i = (i + 1) % views.len();
            flow.run(&level, &views[i].0, Some(views[i].1), &mut vis);
            vis.cells.len()
        })
    });
}

/// What the CPU does per frame to decide what is drawn, on e1m1's committed views
/// (tests/views/e1m1.json): the portal flow, then the per-surface tests and draw building.
fn bench_e1m1_views(c: &mut Criterion) {
    use lanthorn::render::world::{DrawBuilder, WorldMesh};
    let path = realdata_dir().join("quake/bsp/e1m1.bsp");
    let Ok(level) = lanthorn::load::load(&path) else {
        eprintln!("SKIPPED: {} missing", path.display());
        return;
    };
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/views/e1m1.json");
    let keys = lanthorn::app::path::CameraPath::load(&file, Some(&level), false)
        .expect("the committed views")
        .keys;
    let views: Vec<(Camera, Option<u32>)> = keys
        .iter()
        .map(|k| {
            let spec = k.camera();
            (Camera::new(spec, 16.0 / 9.0), level.locate(spec.position))
        })
        .collect();
    let mesh = WorldMesh::build(&level, &[]);
    let mut flow = PortalFlow::new(&level);
    let mut vis = VisibleSet::default();
    let mut draws = DrawBuilder::default();
    let mut i = 0;
    c.bench_function("portal_flow_and_surfaces/e1m1_committed_views", |b| {
        b.iter(|| {
            i = (i + 1) % views.len();
            let (camera, eye) = &views[i];
            flow.run(&level, camera, *eye, &mut vis);
            triangles_drawn(&mut draws, &mesh, &vis, camera)
        })
    });
}

/// The CPU's part of a frame at wide views, the slowest for it: the intermission cameras of
/// five id maps and one deathmatch map (the quakespasm comparison's cameras: 150–230 cells,
/// 300–450 surfaces), the portal flow then the per-surface tests and draw building, all 22
/// cameras per iteration (divide by 22 for one frame).
fn bench_wide_views(c: &mut Criterion) {
    use lanthorn::render::world::{DrawBuilder, WorldMesh};
    const CAMERAS: [(&str, [f32; 3], f32, f32); 22] = [
        ("e1m1", [-112.0, 704.0, 56.0], 45.0, -20.0),
        ("e1m1", [-208.0, 2736.0, 192.0], 225.0, -20.0),
        ("e1m1", [240.0, 2664.0, 104.0], 120.0, -20.0),
        ("e1m1", [1376.0, 1936.0, 64.0], 135.0, -20.0),
        ("e1m3", [-544.0, 24.0, 176.0], 225.0, -20.0),
        ("e1m3", [904.0, -216.0, 56.0], 305.0, -20.0),
        ("e1m3", [1112.0, 288.0, 680.0], 65.0, -12.0),
        ("e1m3", [-1448.0, -744.0, 64.0], 45.0, -15.0),
        ("e1m4", [384.0, 488.0, 1552.0], 310.0, -26.0),
        ("e1m4", [456.0, 2144.0, 568.0], 75.0, 20.0),
        ("e1m4", [464.0, 1032.0, 1000.0], 80.0, -10.0),
        ("e1m4", [1080.0, -752.0, 1008.0], 135.0, -20.0),
        ("e2m5", [416.0, -896.0, 144.0], 125.0, -20.0),
        ("e2m5", [256.0, 336.0, -96.0], 125.0, 40.0),
        ("e2m5", [-552.0, 928.0, 96.0], 125.0, -20.0),
        ("e2m5", [240.0, 1496.0, 320.0], 125.0, -20.0),
        ("e2m5", [608.0, 800.0, 304.0], 55.0, -20.0),
        ("start", [960.0, 776.0, 160.0], 120.0, -20.0),
        ("start", [824.0, 2320.0, 208.0], 0.0, -20.0),
        ("start", [-256.0, 2528.0, 336.0], 225.0, -20.0),
        ("start", [-304.0, 1720.0, -80.0], 45.0, -20.0),
        ("dm6", [864.0, -1088.0, 336.0], 0.0, -30.0),
    ];
    struct Map {
        level: lanthorn::level::Level,
        mesh: WorldMesh,
        flow: PortalFlow,
    }
    let mut maps: Vec<(&str, Map)> = Vec::new();
    for (name, ..) in CAMERAS {
        if maps.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let path = realdata_dir().join(format!("quake/bsp/{name}.bsp"));
        let Ok(level) = lanthorn::load::load(&path) else {
            eprintln!("SKIPPED: {} missing", path.display());
            return;
        };
        let (mesh, flow) = (WorldMesh::build(&level, &[]), PortalFlow::new(&level));
        maps.push((name, Map { level, mesh, flow }));
    }
    let views: Vec<(usize, Camera, Option<u32>)> = CAMERAS
        .iter()
        .map(|&(name, p, yaw, pitch)| {
            let m = maps.iter().position(|(n, _)| *n == name).unwrap_or(0);
            let position = Vec3::from(p);
            let spec = CameraSpec {
                position,
                yaw,
                pitch,
            };
            (
                m,
                Camera::new(spec, 16.0 / 9.0),
                maps[m].1.level.locate(position),
            )
        })
        .collect();
    let mut vis = VisibleSet::default();
    let mut draws = DrawBuilder::default();
    c.bench_function("portal_flow_and_surfaces/22_wide_views", |b| {
        b.iter(|| {
            let mut triangles = 0;
            for (m, camera, eye) in &views {
                let map = &mut maps[*m].1;
                map.flow.run(&map.level, camera, *eye, &mut vis);
                triangles += triangles_drawn(&mut draws, &map.mesh, &vis, camera);
            }
            triangles
        })
    });
}

/// The draw building of the frame that sees `visible` from `camera`, with every per-surface
/// test and no surface cache: its triangle count.
fn triangles_drawn(
    draws: &mut lanthorn::render::world::DrawBuilder,
    mesh: &lanthorn::render::world::WorldMesh,
    visible: &VisibleSet,
    camera: &Camera,
) -> u64 {
    use lanthorn::render::world::{DrawInputs, SurfaceTests};
    let inputs = DrawInputs {
        visible,
        camera,
        max_records: usize::MAX,
        multi_draw: true,
        tests: SurfaceTests::ALL,
        cache: None,
    };
    draws.build(mesh, &inputs).stats.triangles
}

criterion_group!(
    benches,
    bench_flow,
    bench_e1m1,
    bench_e1m1_views,
    bench_wide_views
);
criterion_main!(benches);

/// The shared real data (../shared/realdata beside the crate, or `LANTHORN_REALDATA`): the
/// benches' input, not the program's.
fn realdata_dir() -> std::path::PathBuf {
    match std::env::var_os("LANTHORN_REALDATA") {
        Some(p) => p.into(),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata"),
    }
}
