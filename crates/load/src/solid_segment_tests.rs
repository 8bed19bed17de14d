//! `Level::segment_crosses_solid` against point location, on levels of both sources (a
//! compiled generated level, an imported id map): here because the level model's crate
//! builds neither.

use glam::Vec3;

/// The oracle: point location every eighth of a unit along the segment, with a run of
/// points in solid longer than the threshold.
fn sampled(level: &lanthorn_level::Level, a: Vec3, b: Vec3) -> Option<bool> {
    let n = (a.distance(b) * 8.0).ceil() as usize;
    let mut run = 0.0f32;
    let mut worst = 0.0f32;
    for k in 0..=n {
        let p = a.lerp(b, k as f32 / n.max(1) as f32);
        if level.locate(p).is_none() {
            run += 1.0 / 8.0;
            worst = worst.max(run);
        } else {
            run = 0.0;
        }
    }
    // Runs near the threshold are left undecided (sampling error).
    if worst > lanthorn_level::GRAZE + 0.5 {
        Some(true)
    } else if worst == 0.0 {
        Some(false)
    } else {
        None
    }
}

/// Random segments between open points of `level` agree with the oracle; returns how
/// many crossed solid and how many did not.
fn agree_with_sampling(level: &lanthorn_level::Level, seed: u64) -> (usize, usize) {
    let b = level.bounds();
    let mut rng = lanthorn_geom::rng::XorShift::seeded(seed);
    let mut point = || loop {
        let t = Vec3::new(rng.unit_f32(), rng.unit_f32(), rng.unit_f32());
        let p = b.min + (b.max - b.min) * t;
        if level.locate(p).is_some() {
            return p;
        }
    };
    let (mut crossing, mut clear) = (0, 0);
    for _ in 0..300 {
        let (a, c) = (point(), point());
        // Short segments too: most long ones cross some wall.
        let c = if clear < crossing { a.lerp(c, 0.1) } else { c };
        let Some(want) = sampled(level, a, c) else {
            continue;
        };
        assert_eq!(
            level.segment_crosses_solid(a, c, lanthorn_level::GRAZE),
            want,
            "{a} → {c}"
        );
        crossing += want as usize;
        clear += !want as usize;
    }
    (crossing, clear)
}

#[test]
fn segments_through_walls_cross_solid_and_those_in_open_space_do_not() {
    // A generated level compiled by Lanthorn (walls 16 units thick and more, stairs, pits).
    let text = lanthorn_compile::scenes::generated::generate(5, &Default::default());
    let options = lanthorn_compile::CompileOptions {
        light: false,
        ..Default::default()
    };
    let (level, _) = lanthorn_compile::compile_map_text(&text, &options).unwrap();
    let (crossing, clear) = agree_with_sampling(&level, 7);
    assert!(
        crossing > 30 && clear > 30,
        "generated: {crossing} crossing, {clear} clear"
    );
    let e1m1 = lanthorn_testdata::realdata_dir().join("quake/bsp/e1m1.bsp");
    if !e1m1.is_file() {
        lanthorn_testdata::missing_realdata(&e1m1);
        return;
    }
    let level = lanthorn_import::q1::load(&e1m1).unwrap();
    let (crossing, clear) = agree_with_sampling(&level, 8);
    assert!(
        crossing > 30 && clear > 30,
        "e1m1: {crossing} crossing, {clear} clear"
    );
}
