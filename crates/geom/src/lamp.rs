//! A lamp: a light marked `_lamp` (torches, lanterns, lit windows) whose glow the renderer
//! draws apart from the lightmaps, on the terrain's point light map and on moving objects.
//! The light layer finds them in a level; the terrain splats them.

use glam::Vec3;

/// Where a lamp is, its colour (brightest channel 1) and how far its glow reaches (units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lamp {
    /// Where it is.
    pub position: Vec3,
    /// Its colour, the brightest channel 1.
    pub color: Vec3,
    /// How far its glow reaches (units).
    pub radius: f32,
}
