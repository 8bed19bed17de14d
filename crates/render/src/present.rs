//! Presents the offscreen frame on a window surface (a full-screen blit); egui draws on top.

use super::bindings::{sampler_entry, texture_entry};
use super::gpu::Gpu;
use super::shaders;

/// The blit of the renderer's offscreen frame onto a window's surface.
pub struct PresentPass {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    bind_group: Option<wgpu::BindGroup>,
}

impl PresentPass {
    /// A blit into surfaces of `surface_format` (sRGB or linear: it encodes where needed).
    pub fn create(gpu: &Gpu, surface_format: wgpu::TextureFormat) -> PresentPass {
        let device = &gpu.device;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("present"),
            entries: &[
                texture_entry(0, wgpu::TextureViewDimension::D2),
                sampler_entry(1),
            ],
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("blit.wgsl"),
            source: wgpu::ShaderSource::Wgsl(shaders::blit().into()),
        });
        let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("present"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        // The offscreen frame is sRGB (sampling decodes it); a linear surface needs the
        // encoding done in the shader.
        let fragment = if surface_format.is_srgb() {
            "fs_main"
        } else {
            "fs_encode_srgb"
        };
        let pipeline = super::pass::fullscreen_pipeline(
            device,
            "present",
            &pl,
            &module,
            ("vs_fullscreen", fragment),
            surface_format.into(),
        );
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        PresentPass {
            pipeline,
            layout,
            sampler,
            bind_group: None,
        }
    }

    /// Points the blit at a (new) frame colour view; call after the frame target is recreated.
    pub fn prepare(&mut self, gpu: &Gpu, frame_color: &wgpu::TextureView) {
        self.bind_group = Some(gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("present"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(frame_color),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
            ],
        }));
    }

    /// The blit, into a render pass on the surface's view (after `prepare`).
    pub fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        if let Some(bg) = &self.bind_group {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, bg, &[]);
            pass.draw(0..3, 0..1);
        }
    }
}
