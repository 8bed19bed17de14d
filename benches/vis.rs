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
    use lanthorn::render::world::{DrawBuilder, DrawInputs, SurfaceTests, WorldMesh};
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
            let inputs = DrawInputs {
                visible: &vis,
                camera,
                max_records: usize::MAX,
                multi_draw: true,
                tests: SurfaceTests::ALL,
                cache_states: &[],
            };
            draws.build(&mesh, &inputs).stats.triangles
        })
    });
}

criterion_group!(benches, bench_flow, bench_e1m1, bench_e1m1_views);
criterion_main!(benches);

/// The shared real data (../shared/realdata beside the crate, or `LANTHORN_REALDATA`): the
/// benches' input, not the program's.
fn realdata_dir() -> std::path::PathBuf {
    match std::env::var_os("LANTHORN_REALDATA") {
        Some(p) => p.into(),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata"),
    }
}
