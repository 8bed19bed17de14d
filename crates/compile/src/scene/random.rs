//! A seeded generator of scenes made of random overlapping boxes: the input of the ordered-CSG
//! bench and of the tests that check the CSG against point sampling. The boxes fill a cube
//! whose volume grows with their number, so the overlap per box stays the same at any count:
//! mostly air carved out of the solid, with solid boxes built back and water poured into air.

use super::scene_file::{Scene, SceneBrush, SceneMedium, SceneOp};

/// A small deterministic generator (PCG-style LCG): the same seed gives the same scene on
/// every machine, with no dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    /// A multiple of 8 in `[lo, hi)`: grid-aligned boxes, as authors build.
    fn snapped(&mut self, lo: f64, hi: f64) -> f64 {
        ((lo + self.next() * (hi - lo)) / 8.0).floor() * 8.0
    }
}

/// `count` boxes, 32 to 256 units a side, in a cube of side 192 · ∛count (about three boxes
/// overlap any point); one in 6 builds solid, one in 6 pours water into air only, the rest
/// carve air.
pub fn random_boxes(count: usize, seed: u64) -> Scene {
    let mut rng = Lcg(seed ^ 0x9e37_79b9_7f4a_7c15);
    let side = 192.0 * (count.max(1) as f64).cbrt();
    let mut ops = Vec::with_capacity(count);
    for _ in 0..count {
        let mut min = [0.0; 3];
        let mut max = [0.0; 3];
        for k in 0..3 {
            let size = rng.snapped(32.0, 256.0).max(32.0);
            min[k] = rng.snapped(0.0, side);
            max[k] = min[k] + size;
        }
        let kind = rng.next();
        let (medium, only, material) = if kind < 1.0 / 6.0 {
            (SceneMedium::Solid, None, "brick")
        } else if kind < 2.0 / 6.0 {
            (SceneMedium::Water, Some(vec![SceneMedium::Air]), "*water")
        } else {
            (SceneMedium::Air, None, "stone")
        };
        ops.push(SceneOp {
            brush: SceneBrush::Box {
                min: (min[0], min[1], min[2]),
                max: (max[0], max[1], max[2]),
            },
            medium,
            only,
            material: Some(material.to_string()),
            texture: None,
        });
    }
    Scene {
        ops,
        ..Default::default()
    }
}
