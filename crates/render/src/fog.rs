//! The aerial-perspective fog the world's surfaces take in a level under a terrain: the
//! terrain's exp² fog and sky colour (`render::terrain::Terrain::world_fog`, handed to the world pass in `FrameInputs::fog`), so the keep seen
//! from the hills fades with the ground around it. The shader variant `AERIAL_FOG` applies it
//! per vertex, as the terrain does.

use bytemuck::{Pod, Zeroable};

/// How the fog's colour is found: the sky's in each direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FogSky {
    /// The terrain's horizon-to-zenith gradient.
    Gradient = 0,
    /// The level's cubemap skybox.
    Skybox = 1,
    /// Preetham's daylight model (`--sky scattering`).
    Scattering = 2,
}

/// The fog as the world shader reads it (WGSL `WorldFog`); all zero: no fog.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct WorldFog {
    /// x: the distance where the fog reaches 63 %, y: its strength (0: none), z: daylight (the
    /// sky's colour dimmed by it), w: the [`FogSky`].
    pub params: [f32; 4],
    /// xyz: unit vector towards the sun.
    pub sun: [f32; 4],
    /// rgb: the gradient's linear colour straight up ([`FogSky::Gradient`]); w: unused.
    pub zenith: [f32; 4],
    /// rgb: the gradient's linear colour at the horizon and below it; w: unused.
    pub horizon: [f32; 4],
    /// The daylight model's uniform (`terrain::ScatteringSky::uniform`).
    pub sky: [[f32; 4]; 6],
}
