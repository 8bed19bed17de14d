//! Surface-id frames: the vis-check ground truth. Each pixel holds the id + 1 of the surface that
//! covers it (0 = nothing). Liquids do not hide what is behind them, so they go to a second
//! target, depth-tested against the solid surfaces.

use super::draws::ViewClass;
use super::mesh::SurfaceKind;
use super::pipelines::make_pipeline;
use super::WorldPass;
use crate::render::gpu::Gpu;
use crate::render::target::read_ids;
use crate::render::DEPTH_FORMAT;

pub struct IdFrame {
    pub size: (u32, u32),
    solid: wgpu::Texture,
    liquid: wgpu::Texture,
    depth: wgpu::Texture,
}

/// The two id images of one frame, row-major, top row first.
pub struct IdImages {
    pub solid: Vec<u32>,
    pub liquid: Vec<u32>,
}

impl IdFrame {
    pub fn create(gpu: &Gpu, size: (u32, u32)) -> IdFrame {
        let tex = |label, format, usage| {
            gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width: size.0,
                    height: size.1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let ids = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
        IdFrame {
            size,
            solid: tex("ids solid", wgpu::TextureFormat::R32Uint, ids),
            liquid: tex("ids liquid", wgpu::TextureFormat::R32Uint, ids),
            depth: tex(
                "ids depth",
                DEPTH_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            ),
        }
    }

    /// Draws what `world` has prepared (its visible set and octagons) as ids, and reads back.
    pub fn render(&self, gpu: &Gpu, world: &WorldPass) -> IdImages {
        let depth_view = self.depth.create_view(&Default::default());
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        for (layer, texture) in [
            (IdLayer::Solid, &self.solid),
            (IdLayer::Liquid, &self.liquid),
        ] {
            let view = texture.create_view(&Default::default());
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("ids"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: if layer == IdLayer::Solid {
                            wgpu::LoadOp::Clear(0.0)
                        } else {
                            wgpu::LoadOp::Load
                        },
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            world.record_ids(&gpu.device, &mut pass, layer);
        }
        gpu.queue.submit([enc.finish()]);
        IdImages {
            solid: read_ids(gpu, &self.solid),
            liquid: read_ids(gpu, &self.liquid),
        }
    }
}

/// Which surfaces the id pass draws: liquids do not hide what is behind them, so they get a
/// target of their own (depth-tested against, but never writing, the opaque depth).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdLayer {
    Solid,
    Liquid,
}

impl WorldPass {
    /// Records the prepared draws into an R32Uint id target (surface id + 1 per pixel).
    pub fn record_ids(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::RenderPass<'_>,
        layer: IdLayer,
    ) {
        let pipes = self.id_pipelines.get_or_init(|| {
            [
                make_pipeline(
                    device,
                    &self.pipeline_layout,
                    &self.module,
                    SurfaceKind::Opaque,
                    None,
                    ViewClass::Camera,
                    self.back_faces_occlude,
                ),
                make_pipeline(
                    device,
                    &self.pipeline_layout,
                    &self.module,
                    SurfaceKind::Liquid,
                    None,
                    ViewClass::Camera,
                    false,
                ),
            ]
        });
        pass.set_bind_group(0, &self.bind_groups[self.linear_filtering as usize], &[]);
        pass.set_vertex_buffer(0, self.vertex_buffer.slice(..));
        pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        let kinds: &[SurfaceKind] = match layer {
            IdLayer::Solid => &[SurfaceKind::Opaque, SurfaceKind::Sky],
            IdLayer::Liquid => &[SurfaceKind::Liquid],
        };
        pass.set_pipeline(&pipes[if layer == IdLayer::Solid { 0 } else { 1 }]);
        // The camera's and the unmirrored portal views' draws (ids take no winding flip).
        for (class, &kind) in [ViewClass::Camera, ViewClass::Portal]
            .iter()
            .flat_map(|c| kinds.iter().map(move |k| (c, k)))
        {
            let list = self.draws.list();
            let (first, count) = list.batches[*class as usize * 3 + kind as usize];
            for c in &list.commands[first as usize..(first + count) as usize] {
                pass.draw_indexed(
                    c.first_index..c.first_index + c.index_count,
                    0,
                    c.first_instance..c.first_instance + 1,
                );
            }
        }
    }
}
