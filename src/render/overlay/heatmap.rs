//! The overdraw overlay: the world pass's fragments per pixel (`render::overdraw`'s count,
//! with or without octagon clipping) drawn over the frame as a colour ramp.

use crate::render::gpu::Gpu;
use crate::render::overdraw::OverdrawCounter;
use crate::render::pass::{Attachment, FrameInputs, Load, Pass, PassAttachments, Prepared, Scope};
use crate::render::shaders;
use crate::render::world::{OctagonClip, WorldPass};

/// The ramp's colours (linear RGB) for 0, 1, 2, 3, 4 and 5+ fragments (shaders/overlay.wgsl).
pub const RAMP: [[f32; 3]; 6] = [
    [0.0, 0.0, 0.0],
    [0.05, 0.15, 0.9],
    [0.1, 0.8, 0.2],
    [0.95, 0.9, 0.1],
    [1.0, 0.5, 0.05],
    [0.9, 0.05, 0.05],
];

pub struct HeatmapPass {
    counter: OverdrawCounter,
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
    size: (u32, u32),
    /// Octagon clipping while counting (clip distances where the device has them, or off).
    pub clip: OctagonClip,
    /// The last frame's fragments per covered pixel.
    pub overdraw: f64,
}

impl HeatmapPass {
    pub fn create(gpu: &Gpu, size: (u32, u32), color_format: wgpu::TextureFormat) -> HeatmapPass {
        let device = &gpu.device;
        let counter = OverdrawCounter::create(gpu, size);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("overlay.wgsl (heatmap)"),
            source: wgpu::ShaderSource::Wgsl(shaders::overlay().into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("overdraw heatmap"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("overdraw heatmap"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(counter.count_view()),
            }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("overdraw heatmap"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = crate::render::pass::fullscreen_pipeline(
            device,
            "overdraw heatmap",
            &pipeline_layout,
            &module,
            ("vs_fullscreen", "fs_heatmap"),
            color_format,
        );
        HeatmapPass {
            counter,
            pipeline,
            bind_group,
            size,
            clip: if gpu.features.clip_distances {
                OctagonClip::ClipDistances
            } else {
                OctagonClip::Discard
            },
            overdraw: 0.0,
        }
    }

    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// Counts what `world` has prepared this frame (a submit of its own, before the frame's).
    pub fn count(&mut self, gpu: &Gpu, world: &WorldPass) {
        if let Some(n) = self.counter.count(gpu, world, self.clip) {
            self.overdraw = n.fragments as f64 / n.covered.max(1) as f64;
        }
    }
}

impl Pass for HeatmapPass {
    fn scope(&self) -> Scope {
        Scope {
            name: "overdraw heatmap",
            prepare: "overdraw heatmap prepare",
            record: "overdraw heatmap record",
        }
    }

    fn attachments(&self) -> PassAttachments {
        PassAttachments {
            color: (Attachment::FrameColor, Load::Keep),
            depth: None,
        }
    }

    fn prepare(&mut self, _: &Gpu, _: &FrameInputs) -> Prepared {
        Prepared::Recorded
    }

    fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.draw(0..3, 0..1);
    }
}
