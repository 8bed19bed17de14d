//! Compile time of the level compiler on e1m1.map (goal: at most half of ericw-tools' qbsp,
//! 2.18 s on this machine), of the ordered CSG on many random boxes, and of e1m1's light bake.

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

/// The light bake of e1m1 alone: one sample a luxel (Quake's `light`, ericw-tools' plain `light`
/// 0.22 s here), 4×4 (ericw-tools' `light -extra4 -soft`: 1.07 s here), and 4×4 with a bounce
/// (`cargo bench --bench compile -- light`).
fn light_e1m1(c: &mut Criterion) {
    let path = realdata_dir().join("quake/maps/e1m1.map");
    if !path.exists() {
        eprintln!("*** SKIPPED: {} is missing ***", path.display());
        return;
    }
    let (level, _) = lanthorn::compile::compile(&path, &Default::default()).expect("e1m1 compiles");
    let lights = lanthorn::light::lights::level_lights(&level);
    let mut group = c.benchmark_group("light");
    group.sample_size(10);
    for (samples, bounces) in [(1, 0), (4, 0), (4, 1)] {
        group.bench_function(format!("e1m1 {samples}x{samples} bounces {bounces}"), |b| {
            b.iter(|| {
                lanthorn::light::bake::bake(
                    &level,
                    &lights,
                    samples,
                    bounces,
                    &lanthorn::light::parallel::Progress::silent(),
                )
                .2
                .rays
            })
        });
    }
    group.finish();
}

criterion_group!(benches, compile_e1m1, compile_boxes, light_e1m1);
criterion_main!(benches);

/// The shared real data (../shared/realdata beside the crate, or `LANTHORN_REALDATA`): the
/// benches' input, not the program's.
fn realdata_dir() -> std::path::PathBuf {
    match std::env::var_os("LANTHORN_REALDATA") {
        Some(p) => p.into(),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata"),
    }
}
