//! The point light map (seed 003's Company of Heroes frame): lights marked as lamps (`_lamp`
//! "1" on a light entity: torches, lanterns, lit windows) splatted as glows into one top-down
//! texture over the ground they reach, which the terrain adds to its light — many lamps for the
//! price of one fetch per pixel, the main light of a night scene. Lamps do not move, so the map
//! is splatted once per level, on the CPU (CoH splats sprites every frame because its lights
//! move); a lamp still bakes into the lightmaps like any light. Which lights are lamps the
//! renderer reads from the level (`light::lights::lamps`, in `LevelLights::lamps`).

use glam::{Vec2, Vec3};
/// Texels per side of the map, at most.
pub const MAX_TEXELS: u32 = 512;
/// World units per texel, at least (the map's finest detail).
pub const MIN_TEXEL: f32 = 8.0;
/// The light a lamp adds at its own foot, times its colour.
pub const STRENGTH: f32 = 1.5;
/// Texels hold light / RANGE in 8 bits (the shader multiplies back).
pub const RANGE: f32 = 2.0;

pub use lanthorn_geom::Lamp;

/// The light `lamp` adds at ground point `p` (x, y): `STRENGTH · colour · share · (1 − d/r)²`
/// (`r` its radius, `share` its part of its entity's light).
pub fn glow_at(lamp: &Lamp, p: Vec2) -> Vec3 {
    let d = p.distance(lamp.position.truncate());
    let k = (1.0 - d / lamp.radius()).max(0.0);
    lamp.color * (STRENGTH * lamp.weight * k * k)
}

/// The lamps' glow as an RGBA8 texture over the ground they reach.
#[derive(Clone, Debug, PartialEq)]
pub struct LampMap {
    /// The world (x, y) of texel (0, 0)'s outer corner, and the map's size in world units.
    pub origin: Vec2,
    /// The map's size in world units.
    pub size: Vec2,
    /// Texels across.
    pub width: u32,
    /// Texels down.
    pub height: u32,
    /// Row-major, row 0 at `origin.y`; each texel the light at its centre / RANGE.
    pub texels: Vec<[u8; 4]>,
}

impl LampMap {
    /// Splats `lamps` into a map over their reach with a one-texel dark border (so clamped
    /// samples past the map add nothing); `None` without lamps.
    pub fn splat(lamps: &[Lamp]) -> Option<LampMap> {
        let lo = lamps
            .iter()
            .map(|l| l.position.truncate() - l.radius())
            .reduce(Vec2::min)?;
        let hi = lamps
            .iter()
            .map(|l| l.position.truncate() + l.radius())
            .reduce(Vec2::max)?;
        let extent = (hi - lo).max_element();
        // One texel of slack under the cap, so rounding never cuts the last lamp's edge.
        let texel = (extent / (MAX_TEXELS - 3) as f32).max(MIN_TEXEL);
        let inner = ((hi - lo) / texel)
            .ceil()
            .as_uvec2()
            .min(glam::UVec2::splat(MAX_TEXELS - 2));
        let (width, height) = (inner.x + 2, inner.y + 2);
        let origin = lo - Vec2::splat(texel);
        let mut light = vec![Vec3::ZERO; (width * height) as usize];
        for lamp in lamps {
            let (a, b) = (
                lamp.position.truncate() - lamp.radius(),
                lamp.position.truncate() + lamp.radius(),
            );
            let first = ((a - origin) / texel).floor().max(Vec2::ONE).as_uvec2();
            let last = ((b - origin) / texel)
                .ceil()
                .as_uvec2()
                .min(glam::UVec2::new(width - 2, height - 2));
            for y in first.y..=last.y {
                for x in first.x..=last.x {
                    let centre = origin + (Vec2::new(x as f32, y as f32) + 0.5) * texel;
                    light[(y * width + x) as usize] += glow_at(lamp, centre);
                }
            }
        }
        let texels = light
            .iter()
            .map(|l| {
                let c = (*l / RANGE).clamp(Vec3::ZERO, Vec3::ONE) * 255.0;
                [c.x.round() as u8, c.y.round() as u8, c.z.round() as u8, 255]
            })
            .collect();
        Some(LampMap {
            origin,
            size: Vec2::new(width as f32, height as f32) * texel,
            width,
            height,
            texels,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every texel holds the sum of the lamps' glows at its centre (brute force over all lamps,
    /// to one 8-bit step), the border is dark, and the map covers every lamp's reach.
    #[test]
    fn the_map_is_the_sum_of_the_glows_at_texel_centres() {
        let lamps = [
            Lamp::new(
                Vec3::new(100.0, 50.0, 80.0),
                Vec3::new(1.0, 0.6, 0.3),
                300.0,
            ),
            Lamp::new(Vec3::new(350.0, 120.0, 10.0), Vec3::ONE, 200.0),
            Lamp::new(
                Vec3::new(-4000.0, 900.0, 0.0),
                Vec3::new(0.2, 0.4, 1.0),
                500.0,
            ),
        ];
        let map = LampMap::splat(&lamps).unwrap();
        let texel = map.size.x / map.width as f32;
        assert!((map.size.y / map.height as f32 - texel).abs() < 1e-3);
        for l in &lamps {
            let (a, b) = (
                l.position.truncate() - l.radius(),
                l.position.truncate() + l.radius(),
            );
            assert!(
                a.cmpge(map.origin + texel).all() && b.cmple(map.origin + map.size - texel).all()
            );
        }
        let mut lit = 0;
        for y in 0..map.height {
            for x in 0..map.width {
                let t = map.texels[(y * map.width + x) as usize];
                if x == 0 || y == 0 || x == map.width - 1 || y == map.height - 1 {
                    assert_eq!(&t[..3], &[0, 0, 0], "border ({x}, {y})");
                    continue;
                }
                let centre = map.origin + (Vec2::new(x as f32, y as f32) + 0.5) * texel;
                let want: Vec3 = lamps.iter().map(|l| glow_at(l, centre)).sum();
                let want = (want / RANGE).clamp(Vec3::ZERO, Vec3::ONE) * 255.0;
                for c in 0..3 {
                    assert!(
                        (t[c] as f32 - want[c]).abs() <= 0.51,
                        "({x}, {y}) {t:?} {want}"
                    );
                }
                lit += (t[0] > 0) as u32;
            }
        }
        assert!(lit > 100);
        assert!(LampMap::splat(&[]).is_none());
    }
}
