//! The sea's reflection (seed 003's water pass, for the terrain's flat sea): the land and the
//! sky mirrored in the sea's plane, drawn from the eye at half the frame's size into a texture
//! the terrain owns — an offscreen pass of the terrain pass, `water reflection` — which the sea
//! samples where it is drawn (`water_surface` in terrain.wgsl). Drawing the mirrored land from
//! the eye, rather than the land from a mirrored eye, keeps the reflection aligned with the sea
//! pixel for pixel; it is the mirrored eye's frame turned upside down (a test checks that).
//!
//! The pass draws with a group of its own: the main group holds the reflection texture, which
//! may not be bound while it is drawn into.

use super::pipelines::{create_sky_pipeline_with, fill_and_seam};
use crate::DEPTH_FORMAT;

/// The reflection's size against the frame's: half on each side (a quarter of the pixels; the
/// waves blur it anyway).
pub(in crate::terrain) const SCALE: u32 = 2;

pub(in crate::terrain) struct WaterReflection {
    pub(in crate::terrain) size: (u32, u32),
    #[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
    pub(in crate::terrain) color_texture: wgpu::Texture,
    pub(in crate::terrain) color: wgpu::TextureView,
    pub(in crate::terrain) depth: wgpu::TextureView,
    /// The group's layout (the main one without the reflection) and the group.
    pub(in crate::terrain) layout: wgpu::BindGroupLayout,
    pub(in crate::terrain) group: Option<wgpu::BindGroup>,
    pub(in crate::terrain) fill: wgpu::RenderPipeline,
    pub(in crate::terrain) seam: wgpu::RenderPipeline,
    pub(in crate::terrain) sky: wgpu::RenderPipeline,
}

impl WaterReflection {
    /// A reflection `size` texels large (in `color_format`), its pipelines from `module`.
    pub(in crate::terrain) fn new(
        device: &wgpu::Device,
        size: (u32, u32),
        module: &wgpu::ShaderModule,
        color_format: wgpu::TextureFormat,
    ) -> WaterReflection {
        let layout = super::uniforms::create_bind_group_layout(device, false);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("terrain water reflection"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        // Mirrored, the faces wind the other way.
        let [fill, seam] = fill_and_seam(
            device,
            &pipeline_layout,
            module,
            ("vs_reflected", "fs_reflected"),
            wgpu::Face::Front,
            color_format,
        );
        let sky = create_sky_pipeline_with(
            device,
            &pipeline_layout,
            module,
            color_format,
            ("vs_sky", "fs_sky_reflected"),
        );
        let color_texture = target(device, size, color_format, "terrain water reflection");
        let depth = target(device, size, DEPTH_FORMAT, "terrain water reflection depth");
        WaterReflection {
            size,
            color: color_texture.create_view(&Default::default()),
            color_texture,
            depth: depth.create_view(&Default::default()),
            layout,
            group: None,
            fill,
            seam,
            sky,
        }
    }
}

fn target(
    device: &wgpu::Device,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    label: &str,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT
            | wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}
