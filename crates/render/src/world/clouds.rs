//! Quake 3's cloud layers as the world shader reads them (`SkyClouds` in the frame uniform):
//! the sky surfaces show them over the far box (or black), each layer's picture placed by the
//! direction's meeting with the cloud dome (`level::Clouds`).

use bytemuck::{Pod, Zeroable};
use lanthorn_level::{CloudBlend, Level, MAX_CLOUD_LAYERS};

/// The frame uniform's cloud layers (WGSL `SkyClouds`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct SkyClouds {
    /// x: layers (0: none), y: the dome's height over the eye, z: the sphere's radius.
    pub params: [f32; 4],
    /// Per layer: x: its picture's material layer, y: its blend (`blend_code`).
    pub kinds: [[f32; 4]; MAX_CLOUD_LAYERS],
    /// Per layer: xy: scale, zw: repeats a second.
    pub motion: [[f32; 4]; MAX_CLOUD_LAYERS],
}

/// The shader's number for a blend: 0 replace, 1 add, 2 multiply, 3 over by alpha.
fn blend_code(b: CloudBlend) -> f32 {
    match b {
        CloudBlend::Replace => 0.0,
        CloudBlend::Add => 1.0,
        CloudBlend::Multiply => 2.0,
        CloudBlend::Alpha => 3.0,
    }
}

impl SkyClouds {
    /// It has a layer.
    pub fn any(&self) -> bool {
        self.params[0] > 0.0
    }

    /// The level's cloud layers (none without).
    pub fn of(level: &Level) -> SkyClouds {
        let Some(c) = level.sky.as_ref().and_then(|s| s.clouds.as_ref()) else {
            return SkyClouds::default();
        };
        let layers = &c.layers[..c.layers.len().min(MAX_CLOUD_LAYERS)];
        let mut out = SkyClouds {
            params: [
                layers.len() as f32,
                c.height,
                lanthorn_level::CLOUD_SPHERE_RADIUS,
                0.0,
            ],
            ..Default::default()
        };
        for (k, l) in layers.iter().enumerate() {
            out.kinds[k] = [l.material as f32, blend_code(l.blend), 0.0, 0.0];
            out.motion[k] = [l.scale.x, l.scale.y, l.scroll.x, l.scroll.y];
        }
        out
    }
}
