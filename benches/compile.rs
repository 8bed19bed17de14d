//! Compile time of the level compiler on e1m1.map (goal: at most half of ericw-tools' qbsp,
//! 2.18 s on this machine), and of the ordered CSG on many random boxes.

use criterion::{criterion_group, criterion_main, Criterion};

fn compile_e1m1(c: &mut Criterion) {
    let path = realdata_dir().join("quake/maps/e1m1.map");
    if !path.exists() {
        eprintln!("*** SKIPPED: {} is missing ***", path.display());
        return;
    }
    let options = lanthorn::compile::CompileOptions::default();
    let mut group = c.benchmark_group("compile");
    group.sample_size(10);
    group.bench_function("e1m1.map", |b| {
        b.iter(|| {
            let (level, _) = lanthorn::compile::compile(&path, &options).expect("e1m1 compiles");
            level.cells.len()
        })
    });
    group.finish();
}

/// Ordered CSG of the seeded random overlapping boxes (`compile::scene::random_boxes`):
/// 1k, 10k and 100k operations, light off (`cargo bench --bench compile -- csg_boxes`).
fn compile_boxes(c: &mut Criterion) {
    let options = lanthorn::compile::CompileOptions {
        light: false,
        ..Default::default()
    };
    let mut group = c.benchmark_group("csg_boxes");
    group.sample_size(10);
    for count in [1_000, 10_000, 100_000] {
        let scene = lanthorn::compile::scene::random_boxes(count, 1);
        group.bench_function(format!("{count}"), |b| {
            b.iter(|| {
                let (level, _) = lanthorn::compile::scene::compile_scene(&scene, &options)
                    .expect("random boxes compile");
                level.cells.len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, compile_e1m1, compile_boxes);
criterion_main!(benches);

/// The shared real data (../shared/realdata beside the crate, or `LANTHORN_REALDATA`): the
/// benches' input, not the program's.
fn realdata_dir() -> std::path::PathBuf {
    match std::env::var_os("LANTHORN_REALDATA") {
        Some(p) => p.into(),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata"),
    }
}
