//! The level's cubemap skybox, loaded once by the Renderer: the world's sky surfaces show it
//! and the terrain's sky and fog sample it.

use crate::gpu::Gpu;
use lanthorn_level::Level;

/// The level's cubemap skybox.
pub struct Skybox {
    /// The level names a cubemap skybox and it loaded: sky surfaces show it.
    pub active: bool,
    /// The skybox cube (a 1×1 black placeholder when none loaded).
    pub view: wgpu::TextureView,
    /// The same cube decoding its sRGB texels as the sampler reads them (the terrain's sky).
    pub linear_view: wgpu::TextureView,
}

impl Skybox {
    /// The sky box `level` carries or the cubemap it names, as a cube view of its sRGB-encoded texels and as one the
    /// sampler decodes (a placeholder where it has none).
    pub fn load(gpu: &Gpu, level: &Level) -> Skybox {
        let (skybox, active) = crate::materials::skybox_texture(gpu, level);
        let view = |format| {
            skybox.create_view(&wgpu::TextureViewDescriptor {
                format,
                dimension: Some(wgpu::TextureViewDimension::Cube),
                ..Default::default()
            })
        };
        Skybox {
            active,
            view: view(None),
            linear_view: view(Some(wgpu::TextureFormat::Rgba8UnormSrgb)),
        }
    }
}
