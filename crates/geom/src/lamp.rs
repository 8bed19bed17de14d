//! A lamp: a light marked `_lamp` (torches, lanterns, lit windows; linear falloff, not a
//! spotlight) whose glow the renderer draws apart from the lightmaps, on the terrain's point
//! light map and on moving objects. The light layer finds them among a level's lights
//! (`light::lights::LevelLights::lamps`); the terrain splats them, moving objects take them
//! per pixel, per vertex or folded into a harmonic.

use glam::Vec3;

/// One lamp: Quake's linear light `light − wait·d`, its colour, style and share.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lamp {
    /// Where it is.
    pub position: Vec3,
    /// Its colour, the brightest channel 1.
    pub color: Vec3,
    /// Quake's `light`: its value at distance 0.
    pub light: f32,
    /// Quake's `wait`: how much faster than one a unit the value falls (default 1).
    pub wait: f32,
    /// `_anglescale`: how much the angle of incidence dims it, `(1 − s) + s·cos`.
    pub angle_scale: f32,
    /// The light style that scales it (0 steady).
    pub style: u8,
    /// Its share of its entity's light: `1/_samples` for one of the points a `_deviance` light
    /// is spread over, else 1.
    pub weight: f32,
}

impl Lamp {
    /// A steady lamp of `light` at `position` in `color` (wait 1, angle scale 0.5, its whole
    /// entity's light).
    pub fn new(position: Vec3, color: Vec3, light: f32) -> Lamp {
        Lamp {
            position,
            color,
            light,
            wait: 1.0,
            angle_scale: 0.5,
            style: 0,
            weight: 1.0,
        }
    }

    /// How far its glow reaches (units): where its value falls to 0.
    pub fn radius(&self) -> f32 {
        self.light / self.wait
    }

    /// Its value at distance `d`, before the angle of incidence (`light − wait·d`, not below 0).
    pub fn value_at(&self, d: f32) -> f32 {
        (self.light - self.wait * d).max(0.0)
    }
}
