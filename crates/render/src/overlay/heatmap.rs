//! The overdraw overlay: the world pass's fragments per pixel (`render::overdraw`'s count,
//! with or without octagon clipping) drawn over the frame as a colour ramp.

use crate::gpu::Gpu;
use crate::overdraw::FragmentCount;
use crate::pass::{Attachment, FrameInputs, Load, Pass, PassAttachments, Prepared, Scope};
use crate::shaders;
use crate::target::Readback;
use crate::world::CountTarget;

/// The ramp's colours (linear RGB) for 0, 1, 2, 3, 4 and 5+ fragments (shaders/overlay.wgsl).
pub const RAMP: [[f32; 3]; 6] = [
    [0.0, 0.0, 0.0],
    [0.05, 0.15, 0.9],
    [0.1, 0.8, 0.2],
    [0.95, 0.9, 0.1],
    [1.0, 0.5, 0.05],
    [0.9, 0.05, 0.05],
];

/// Draws the count the world pass made this frame (`WorldPass::frame_count`) as the ramp,
/// and reads it back a few frames behind for the panel's number.
pub struct HeatmapPass {
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
    readback: Readback,
    /// Fragments per covered pixel, of the last count read back.
    pub overdraw: f64,
}

impl HeatmapPass {
    /// The heatmap of the counts in `count`.
    pub fn create(
        gpu: &Gpu,
        count: &CountTarget,
        color_format: wgpu::TextureFormat,
    ) -> HeatmapPass {
        let device = &gpu.device;
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
                resource: wgpu::BindingResource::TextureView(&count.count_view),
            }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("overdraw heatmap"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = crate::pass::fullscreen_pipeline(
            device,
            "overdraw heatmap",
            &pipeline_layout,
            &module,
            ("vs_fullscreen", "fs_heatmap"),
            color_format.into(),
        );
        HeatmapPass {
            pipeline,
            bind_group,
            readback: Readback::new(gpu, &count.count, 1),
            overdraw: 0.0,
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

    /// Takes up the count an earlier frame copied, if the GPU has made it readable.
    fn prepare(&mut self, gpu: &Gpu, _: &FrameInputs) -> Prepared {
        if let Some(pixels) = self.readback.poll(gpu) {
            self.overdraw = FragmentCount::of(&pixels).overdraw();
        }
        Prepared::Recorded
    }

    fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.draw(0..3, 0..1);
    }

    fn copy_out(&self, enc: &mut wgpu::CommandEncoder) {
        self.readback.copy(enc);
    }
}
