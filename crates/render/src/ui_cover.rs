//! The UI cover (seed 003's scissor under the UI): before the world and the terrain, the opaque
//! UI panels' rectangles go into the frame's depth at the nearest depth, so every fragment under
//! them fails the depth test before it is shaded. A scissor would only cut a bar along an edge;
//! the demo's panels float. The pass clears the frame's colour and depth itself and the world
//! then keeps them; with no rectangles it does not run and the world clears as before.

use crate::bindings::uniform_entry;
use crate::gpu::Gpu;
use crate::pass::{Attachment, FrameInputs, Load, Pass, PassAttachments, Prepared, Scope};
use crate::shaders;
use crate::DEPTH_FORMAT;

/// Rectangles the shader takes at once (the demo has two panels).
pub const MAX_RECTS: usize = 8;

pub use crate::pass::PixelRect;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct CoverUniform {
    /// NDC (min x, min y, max x, max y) per rectangle.
    pub(crate) rects: [[f32; 4]; MAX_RECTS],
}

/// Writes the opaque UI panels' rectangles into the frame's depth at the nearest depth,
/// so nothing under them is shaded.
pub struct UiCoverPass {
    pipeline: wgpu::RenderPipeline,
    uniform: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// The scene colour format it was made for (the world's: `target::SceneFormats`).
    pub format: wgpu::TextureFormat,
    drawn: u32,
}

/// `r` in NDC (y up) for a `viewport`-sized frame, clamped to it.
fn ndc(r: PixelRect, viewport: (u32, u32)) -> [f32; 4] {
    let (w, h) = (viewport.0 as f32, viewport.1 as f32);
    let x = |px: f32| (px.clamp(0.0, w) / w) * 2.0 - 1.0;
    let y = |px: f32| 1.0 - (px.clamp(0.0, h) / h) * 2.0;
    [x(r[0]), y(r[1] + r[3]), x(r[0] + r[2]), y(r[1])]
}

impl UiCoverPass {
    /// For a scene whose world draws in `format` (the pass clears that attachment).
    pub fn create(gpu: &Gpu, format: wgpu::TextureFormat) -> UiCoverPass {
        let device = &gpu.device;
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ui cover"),
            size: std::mem::size_of::<CoverUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("ui cover"),
            entries: &[uniform_entry(0, wgpu::ShaderStages::VERTEX)],
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("ui cover"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }],
        });
        UiCoverPass {
            pipeline: create_pipeline(device, &layout, format),
            uniform,
            bind_group,
            format,
            drawn: 0,
        }
    }
}

fn create_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("ui_cover.wgsl"),
        source: wgpu::ShaderSource::Wgsl(shaders::ui_cover().into()),
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("ui cover"),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("ui cover"),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_cover"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: Default::default(),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Always),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_cover"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format,
                blend: None,
                write_mask: wgpu::ColorWrites::empty(),
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

impl Pass for UiCoverPass {
    fn scope(&self) -> Scope {
        Scope {
            name: "ui cover",
            prepare: "ui cover prepare",
            record: "ui cover record",
        }
    }

    fn attachments(&self) -> PassAttachments {
        PassAttachments {
            color: (Attachment::SceneColorGamma, Load::Clear),
            depth: Some((Attachment::FrameDepth, Load::Clear)),
        }
    }

    /// Uploads the frame's panels (`FrameInputs::ui_cover`: the first [`MAX_RECTS`]).
    fn prepare(&mut self, gpu: &Gpu, inputs: &FrameInputs) -> Prepared {
        let mut uniform = CoverUniform {
            rects: [[0.0; 4]; MAX_RECTS],
        };
        let rects = inputs.ui_cover.iter().take(MAX_RECTS);
        for (slot, r) in uniform.rects.iter_mut().zip(rects) {
            *slot = ndc(*r, inputs.viewport);
        }
        self.drawn = inputs.ui_cover.len().min(MAX_RECTS) as u32;
        if self.drawn == 0 {
            return Prepared::Skipped;
        }
        gpu.queue
            .write_buffer(&self.uniform, 0, bytemuck::bytes_of(&uniform));
        Prepared::Recorded
    }

    fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.draw(0..6 * self.drawn, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pixel rectangles map to NDC with y up, clamped to the frame: the whole frame is
    /// (-1, -1, 1, 1); a rectangle at the top left is its top-left corner.
    #[test]
    fn pixel_rects_map_to_ndc() {
        assert_eq!(
            ndc([0.0, 0.0, 200.0, 100.0], (200, 100)),
            [-1.0, -1.0, 1.0, 1.0]
        );
        assert_eq!(
            ndc([0.0, 0.0, 50.0, 25.0], (200, 100)),
            [-1.0, 0.5, -0.5, 1.0]
        );
        let clamped = ndc([-10.0, 90.0, 500.0, 50.0], (200, 100));
        for (got, want) in clamped.iter().zip([-1.0, -1.0, 1.0, -0.8]) {
            assert!((got - want).abs() < 1e-6, "{clamped:?}");
        }
    }
}
