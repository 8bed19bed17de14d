//! The overlay lines over the frame: one line list (clip-space vertices built on the CPU,
//! `FrameInputs::overlay`), no depth test, drawn last.

use super::lines::OverlayVertex;
use crate::gpu::Gpu;
use crate::pass::{Attachment, FrameInputs, Load, Pass, PassAttachments, Prepared, Scope};
use crate::shaders;

/// The culling overlays' lines over the frame.
pub struct OverlayPass {
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
    /// Vertices uploaded this frame.
    count: u32,
}

impl OverlayPass {
    /// A line pass into frames of `color_format`.
    pub fn create(gpu: &Gpu, color_format: wgpu::TextureFormat) -> OverlayPass {
        let device = &gpu.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("overlay.wgsl"),
            source: wgpu::ShaderSource::Wgsl(shaders::overlay().into()),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("overlay lines"),
            bind_group_layouts: &[],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("overlay lines"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_lines"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<OverlayVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &OverlayVertex::ATTRIBUTES,
                })],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::LineList,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_lines"),
                compilation_options: Default::default(),
                targets: &[Some(color_format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        OverlayPass {
            pipeline,
            vertices: vertex_buffer(device, 4096),
            count: 0,
        }
    }
}

fn vertex_buffer(device: &wgpu::Device, vertices: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("overlay lines"),
        size: (vertices * std::mem::size_of::<OverlayVertex>()) as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl Pass for OverlayPass {
    fn scope(&self) -> Scope {
        Scope {
            name: "overlay",
            prepare: "overlay prepare",
            record: "overlay record",
        }
    }

    fn attachments(&self) -> PassAttachments {
        PassAttachments {
            color: (Attachment::FrameColor, Load::Keep),
            depth: None,
        }
    }

    /// Uploads the frame's lines (`FrameInputs::overlay_lines`; none: skipped).
    fn prepare(&mut self, gpu: &Gpu, inputs: &FrameInputs) -> Prepared {
        let lines = inputs.overlay_lines;
        if lines.is_empty() {
            self.count = 0;
            return Prepared::Skipped;
        }
        let bytes = std::mem::size_of_val(lines) as u64;
        if bytes > self.vertices.size() {
            self.vertices = vertex_buffer(&gpu.device, lines.len().next_power_of_two());
        }
        gpu.queue
            .write_buffer(&self.vertices, 0, bytemuck::cast_slice(lines));
        self.count = lines.len() as u32;
        Prepared::Recorded
    }

    fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.draw(0..self.count, 0..1);
    }
}
