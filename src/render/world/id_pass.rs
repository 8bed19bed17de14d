//! Surface-id frames: the vis-check ground truth. Each pixel holds the id + 1 of the surface that
//! covers it (0 = nothing). Liquids do not hide what is behind them, so they go to a second
//! target, depth-tested against the solid surfaces.

use super::draws::ViewClass;
use super::mesh::SurfaceKind;
use super::pipelines::make_pipeline;
use super::WorldPass;
use crate::render::gpu::Gpu;
use crate::render::pass::{
    begin, Attachment, FrameInputs, Load, Pass, PassAttachments, PassStats, PassTarget, Scope,
};
use crate::render::target::read_ids;
use crate::render::DEPTH_FORMAT;

/// The id targets of one frame: solid ids, liquid ids and the depth both test against.
pub struct IdFrame {
    pub size: (u32, u32),
    solid: wgpu::Texture,
    liquid: wgpu::Texture,
    solid_view: wgpu::TextureView,
    liquid_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
}

/// The two id images of one frame, row-major, top row first.
pub struct IdImages {
    pub solid: Vec<u32>,
    pub liquid: Vec<u32>,
}

impl IdFrame {
    pub fn create(gpu: &Gpu, size: (u32, u32)) -> IdFrame {
        let tex = |label, format, usage| {
            crate::render::target::target_texture(gpu, label, size, format, usage)
        };
        let ids = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
        let solid = tex("ids solid", wgpu::TextureFormat::R32Uint, ids);
        let liquid = tex("ids liquid", wgpu::TextureFormat::R32Uint, ids);
        let depth = tex(
            "ids depth",
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        IdFrame {
            size,
            solid_view: solid.create_view(&Default::default()),
            liquid_view: liquid.create_view(&Default::default()),
            depth_view: depth.create_view(&Default::default()),
            solid,
            liquid,
        }
    }

    /// Draws what `world` has prepared (its visible set and octagons) as ids — the solid
    /// pass, then the liquid pass — submits, and reads both images back.
    pub fn render(&self, gpu: &Gpu, world: &WorldPass) -> IdImages {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        for layer in [IdLayer::Solid, IdLayer::Liquid] {
            let pass = IdPass {
                world,
                layer,
                device: &gpu.device,
            };
            let scope = pass.scope();
            let mut render_pass = begin(&mut enc, scope.name, &pass.attachments(), self, None);
            pass.record(&mut render_pass);
        }
        gpu.queue.submit([enc.finish()]);
        IdImages {
            solid: read_ids(gpu, &self.solid),
            liquid: read_ids(gpu, &self.liquid),
        }
    }
}

impl PassTarget for IdFrame {
    fn view(&self, attachment: Attachment) -> &wgpu::TextureView {
        match attachment {
            Attachment::LiquidIds => &self.liquid_view,
            Attachment::IdDepth | Attachment::FrameDepth => &self.depth_view,
            _ => &self.solid_view,
        }
    }

    /// 0: no surface.
    fn clear_color(&self, _: Attachment) -> wgpu::Color {
        wgpu::Color::TRANSPARENT
    }
}

/// One id layer of what the world pass prepared, drawn into the id frame.
struct IdPass<'a> {
    world: &'a WorldPass,
    layer: IdLayer,
    /// The id pipelines are made on first use.
    device: &'a wgpu::Device,
}

impl Pass for IdPass<'_> {
    fn scope(&self) -> Scope {
        match self.layer {
            IdLayer::Solid => Scope {
                name: "ids solid",
                prepare: "ids solid prepare",
                record: "ids solid record",
            },
            IdLayer::Liquid => Scope {
                name: "ids liquid",
                prepare: "ids liquid prepare",
                record: "ids liquid record",
            },
        }
    }

    /// The solid layer starts the depth; the liquids test against it.
    fn attachments(&self) -> PassAttachments {
        match self.layer {
            IdLayer::Solid => PassAttachments {
                color: (Attachment::SolidIds, Load::Clear),
                depth: Some((Attachment::IdDepth, Load::Clear)),
            },
            IdLayer::Liquid => PassAttachments {
                color: (Attachment::LiquidIds, Load::Clear),
                depth: Some((Attachment::IdDepth, Load::Keep)),
            },
        }
    }

    /// The world pass prepared the draws.
    fn prepare(&mut self, _: &Gpu, _: &FrameInputs) -> PassStats {
        PassStats::Recorded
    }

    fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.world.record_ids(self.device, pass, self.layer);
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
        // [opaque, liquid] × [unmirrored, mirrored] (mirrored triangles wind the other way).
        let pipes = self.id_pipelines.get_or_init(|| {
            std::array::from_fn(|i| {
                let liquid = i % 2 == 1;
                make_pipeline(
                    device,
                    &self.pipeline_layout,
                    &self.module,
                    if liquid {
                        SurfaceKind::Liquid
                    } else {
                        SurfaceKind::Opaque
                    },
                    None,
                    if i < 2 {
                        ViewClass::Camera
                    } else {
                        ViewClass::Mirrored
                    },
                    self.back_faces_occlude && !liquid,
                    false,
                )
            })
        });
        pass.set_bind_group(0, &self.bind_groups[self.linear_filtering as usize], &[]);
        pass.set_vertex_buffer(0, self.vertex_buffer.slice(..));
        pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        let kinds: &[SurfaceKind] = match layer {
            IdLayer::Solid => &[SurfaceKind::Opaque, SurfaceKind::Sky],
            IdLayer::Liquid => &[SurfaceKind::Liquid],
        };
        let liquid = (layer == IdLayer::Liquid) as usize;
        // Every view: the camera's, the teleporters' and the mirrors'.
        for class in ViewClass::ALL {
            let mirrored = (class == ViewClass::Mirrored) as usize;
            pass.set_pipeline(&pipes[mirrored * 2 + liquid]);
            let list = self.draws.list();
            for &kind in kinds {
                let (first, count) = list.batches[class as usize * 3 + kind as usize];
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
}
