//! Compile time of the level compiler on e1m1.map (goal: at most half of ericw-tools' qbsp,
//! 2.18 s on this machine).

use criterion::{criterion_group, criterion_main, Criterion};

fn compile_e1m1(c: &mut Criterion) {
    let path = lanthorn::realdata_dir().join("quake/maps/e1m1.map");
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

criterion_group!(benches, compile_e1m1);
criterion_main!(benches);
