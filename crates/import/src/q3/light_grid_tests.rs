use glam::Vec3;

use super::super::{Ibsp, LightGridPoint, Model};
use super::*;
use lanthorn_geom::rng::XorShift;
use lanthorn_level::light_grid::MAX_POINTS;

/// Most a clamped cosine truncated to order-2 harmonics is off anywhere, per unit of the
/// light: its Legendre series is 1/4 + t/2 + (5/16)·P₂(t) + …, which at t = 0 gives
/// 1/4 − 5/32 = 3/32 where the lobe is 0, and is nearer elsewhere (1/16 at t = ±1).
const LOBE_ERROR: f32 = 3.0 / 32.0;

/// What the game gives a model facing `n` at a point, in byte units before its clamp at 255
/// (ioquake3's `R_SetupEntityLighting` and `RB_CalcDiffuseColor`: `r_ambientScale` 0.6, a
/// minimum of 32, `r_directedScale` 1).
fn game_light(p: &LightGridPoint, n: Vec3) -> Option<Vec3> {
    let (ambient, directed) = shifted(p)?;
    let lit = n.dot(direction(p)).max(0.0);
    Some(ambient * 0.6 + Vec3::splat(32.0) + directed * lit)
}

/// A map whose world spans `mins..maxs` with `points` in its light grid.
fn map(mins: [f32; 3], maxs: [f32; 3], points: Vec<LightGridPoint>) -> Ibsp {
    Ibsp {
        models: vec![Model {
            mins,
            maxs,
            surfaces: 0..0,
            brushes: 0..0,
        }],
        light_grid: points,
        ..Default::default()
    }
}

fn worldspawn(gridsize: &str) -> Entity {
    Entity::from_pairs(&[("classname", "worldspawn"), ("gridsize", gridsize)])
}

/// The game's grid box: inward to the spacing's multiples, counting both ends.
#[test]
fn the_grid_spans_the_world_box_rounded_inward() {
    let m = map([-100.0, -64.0, -10.0], [100.0, 130.0, 300.0], Vec::new());
    let (origin, spacing, size) = geometry(&m, None).unwrap();
    assert_eq!(origin, Vec3::new(-64.0, -64.0, 0.0));
    assert_eq!(spacing, Vec3::new(64.0, 64.0, 128.0));
    // x: −64, 0, 64; y: −64 … 128; z: 0, 128, 256.
    assert_eq!(size, [3, 4, 3]);
    let w = worldspawn("32 32 64");
    let (origin, spacing, size) = geometry(&m, Some(&w)).unwrap();
    assert_eq!(
        (origin, spacing),
        (Vec3::new(-96.0, -64.0, 0.0), Vec3::new(32.0, 32.0, 64.0))
    );
    assert_eq!(size, [7, 7, 5]);
}

/// Each point lands where the game reads it (x fastest), solid points hold nothing, and the
/// harmonics give what the game gives a model there (halved, as the level's luxels are),
/// within the order-2 truncation of the directed light's lobe.
#[test]
fn points_light_as_the_game_lights_a_model() {
    let mut rng = XorShift::seeded(46);
    let mut points: Vec<LightGridPoint> = (0..3 * 2 * 2)
        .map(|_| std::array::from_fn(|_| (rng.next_u64() & 0xff) as u8))
        .collect();
    points[5][..3].fill(0);
    let m = map([0.0; 3], [128.0, 64.0, 128.0], points.clone());
    let grid = read(&m, None).unwrap();
    assert_eq!(grid.size, [3, 2, 2]);
    for (at, p) in points.iter().enumerate() {
        let slots: Vec<_> = grid.point_slots(at).collect();
        let Some(game) = shifted(p) else {
            assert!(slots.is_empty(), "point {at} is in solid");
            continue;
        };
        assert_eq!(slots.len(), 1);
        let (style, sh) = slots[0];
        assert_eq!(style, 0);
        for _ in 0..200 {
            let n = (Vec3::new(rng.unit_f32(), rng.unit_f32(), rng.unit_f32()) * 2.0 - 1.0)
                .normalize_or(Vec3::Z);
            let ours = sh.eval(n) * 2.0;
            let want = game_light(p, n).unwrap();
            let bound = game.1 * LOBE_ERROR + Vec3::splat(0.01);
            assert!(
                (ours - want).abs().cmple(bound).all(),
                "point {at} at {n}: {ours} against the game's {want}"
            );
        }
    }
}

/// The direction bytes as the game decodes them: byte 6 from +z, byte 7 around it.
#[test]
fn directions_decode_as_the_game_decodes_them() {
    let at = |from_up: u8, around: u8| {
        let mut p = [1u8; 8];
        (p[6], p[7]) = (from_up, around);
        direction(&p)
    };
    assert!(at(0, 99).abs_diff_eq(Vec3::Z, 1e-6));
    assert!(at(64, 0).abs_diff_eq(Vec3::X, 1e-6));
    assert!(at(64, 64).abs_diff_eq(Vec3::Y, 1e-6));
    assert!(at(128, 7).abs_diff_eq(Vec3::NEG_Z, 1e-6));
}

/// A lump of the wrong size is left out, as the game leaves it, and says why; so is none.
#[test]
fn a_grid_that_does_not_fit_the_world_is_left_out() {
    let m = map([0.0; 3], [128.0, 64.0, 128.0], vec![[9; 8]; 11]);
    let why = read(&m, None).unwrap_err();
    assert!(why.contains("11 points") && why.contains("12"), "{why}");
    assert!(read(&map([0.0; 3], [64.0; 3], Vec::new()), None).is_err());
}

/// A grid larger than Lanthorn's keeps every `stride`th point, the spacing widened to match.
#[test]
fn a_large_grid_keeps_every_stride_th_point() {
    let size = [80u32, 80, 12];
    let n = size.iter().product::<u32>() as usize;
    let points: Vec<LightGridPoint> = (0..n)
        .map(|i| [(i % 251) as u8 + 1, 0, 0, 0, 0, 0, 0, 0])
        .collect();
    let maxs = [79.0 * 64.0, 79.0 * 64.0, 11.0 * 128.0];
    let grid = read(&map([0.0; 3], maxs, points.clone()), None).unwrap();
    assert!(grid.point_count() <= MAX_POINTS);
    let stride = (grid.spacing.x / 64.0) as usize;
    assert!(stride >= 2 && grid.size == size.map(|s| s.div_ceil(stride as u32)));
    let [nx, ny, _] = grid.size;
    for (ours, [i, j, k]) in [
        (0, [0, 0, 0]),
        (grid.point_count() - 1, [nx - 1, ny - 1, grid.size[2] - 1]),
    ] {
        let [x, y, z] = [i, j, k].map(|c| c as usize * stride);
        let theirs = &points[(z * 80 + y) * 80 + x];
        let (_, sh) = grid.point_slots(ours).next().unwrap();
        let want = game_light(theirs, Vec3::Z).unwrap();
        assert!((sh.eval(Vec3::Z) * 2.0 - want).abs().max_element() < 0.01);
        assert_eq!(
            grid.position([i, j, k]),
            Vec3::new(x as f32 * 64.0, y as f32 * 64.0, z as f32 * 128.0)
        );
    }
}
