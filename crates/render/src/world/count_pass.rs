//! The world pass drawn as a fragment count: what the colour pass draws, in its order and depth
//! state, each fragment that passes the depth test when it is drawn adding one to an R8 target
//! (additive blending, 1/255 a fragment). That is the fragment shading an early-depth-test GPU
//! does; a software rasterizer's pipeline statistics cannot show it (they count every
//! rasterized fragment, see `render::overdraw`).

use std::cell::RefCell;
use std::collections::HashMap;

use super::draws::ViewClass;
use super::mesh::SurfaceKind;
use super::pipelines::{world_primitive, world_vertex_state};
use super::WorldPass;
use crate::gpu::Gpu;
use crate::pass::{Attachment, Offscreen, PassTarget};
use crate::{shaders, DEPTH_FORMAT};
use lanthorn_geom::Octagon;

pub use crate::settings::OctagonClip;

/// The count target's format: one unorm byte a pixel, up to 255 fragments.
pub const COUNT_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R8Unorm;

/// Where a fragment count draws: the count (`COUNT_FORMAT`) and a depth buffer of its own,
/// cleared to no fragments and far.
pub struct CountTarget {
    pub count: wgpu::Texture,
    pub count_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
    pub size: (u32, u32),
}

impl CountTarget {
    pub fn create(gpu: &Gpu, size: (u32, u32)) -> CountTarget {
        let tex =
            |label, format, usage| crate::target::target_texture(gpu, label, size, format, usage);
        let count = tex(
            "fragment count",
            COUNT_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::TEXTURE_BINDING,
        );
        let depth = tex(
            "fragment count depth",
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        CountTarget {
            count_view: count.create_view(&Default::default()),
            depth_view: depth.create_view(&Default::default()),
            count,
            size,
        }
    }

    /// The count as an offscreen pass (cleared first).
    pub(crate) fn offscreen(&self) -> Offscreen<'_> {
        Offscreen {
            label: "world fragment count",
            color: Some(&self.count_view),
            depth: Some(&self.depth_view),
            clear: Some(wgpu::Color::TRANSPARENT),
        }
    }
}

impl PassTarget for CountTarget {
    fn view(&self, attachment: Attachment) -> &wgpu::TextureView {
        match attachment {
            Attachment::FrameDepth | Attachment::IdDepth => &self.depth_view,
            _ => &self.count_view,
        }
    }

    fn clear_color(&self, _: Attachment) -> wgpu::Color {
        wgpu::Color::TRANSPARENT
    }
}

/// The world's fragments counted in the frame (the overdraw overlay): an offscreen pass of
/// the world pass into `target`, with octagon clipping `clip`.
pub struct FrameCount {
    pub target: CountTarget,
    pub clip: OctagonClip,
}

/// One counting pipeline: which shader variant, which entry, and what it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct CountKey {
    clip_distances: bool,
    /// `fs_count` (octagon discard where the variant has no clip distances) or
    /// `fs_count_unclipped` (the whole triangle).
    unclipped: bool,
    mirrored: bool,
    depth_write: bool,
    /// Adds to the count (else writes depth only).
    count: bool,
}

/// The counting pipelines and the shader variants (by clip distances), made on first use.
#[derive(Default)]
pub(super) struct CountPipelines {
    modules: HashMap<bool, wgpu::ShaderModule>,
    pipelines: HashMap<CountKey, wgpu::RenderPipeline>,
}

impl WorldPass {
    /// Records the prepared draws as a fragment count (`COUNT_FORMAT` target, with a depth
    /// attachment cleared like the colour pass's) with octagon clipping `clip`. For
    /// `OctagonClip::Off`, call `open_octagons` first (before the submit). `ClipDistances`
    /// needs the device's clip distances (`None` otherwise).
    pub fn record_fragment_count(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        clip: OctagonClip,
    ) -> Option<()> {
        if clip == OctagonClip::ClipDistances && !self.shading.device_clip_distances {
            return None;
        }
        let device = &self.device;
        let mut cache = self.debug.count_pipelines.borrow_mut();
        let bind_group = match clip {
            OctagonClip::Off => &self.buffers.open_octagons.1,
            _ => &self.shading.bind_groups[self.shading.linear_filtering as usize],
        };
        pass.set_bind_group(0, bind_group, &[]);
        pass.set_vertex_buffer(0, self.buffers.vertex_buffer.slice(..));
        pass.set_index_buffer(
            self.buffers.index_buffer.slice(..),
            wgpu::IndexFormat::Uint32,
        );
        let list = self.draws.list();
        for (batch, (first, count)) in list.batches_in_order() {
            let (class, kind) = super::draws::batch_class_kind(batch);
            let mirrored = class == ViewClass::Mirrored;
            let depth_write = kind != SurfaceKind::Liquid;
            let commands = &list.commands[first as usize..(first + count) as usize];
            let key = |unclipped, count| CountKey {
                clip_distances: match clip {
                    OctagonClip::ClipDistances => true,
                    OctagonClip::Discard => false,
                    OctagonClip::Off => self.shading.clip_distances,
                },
                unclipped,
                mirrored,
                depth_write: depth_write && !(unclipped && clip == OctagonClip::Discard),
                count,
            };
            if clip == OctagonClip::Discard {
                // Each sub-draw twice: its whole triangles counted against the depth so far,
                // then its octagon's part writing depth. Exact where a sub-draw's triangles do
                // not overlap on screen (the faces of a convex cell do not).
                for c in commands {
                    for k in [key(true, true), key(false, false)] {
                        pass.set_pipeline(self.count_pipeline(device, &mut cache, k));
                        draw(pass, c);
                    }
                }
            } else {
                pass.set_pipeline(self.count_pipeline(device, &mut cache, key(false, true)));
                for c in commands {
                    draw(pass, c);
                }
            }
        }
        Some(())
    }

    /// Uploads this frame's records with the whole screen as every octagon into the records
    /// a count with `OctagonClip::Off` draws with (the frame's own stay as prepared).
    pub fn open_octagons(&self, queue: &wgpu::Queue) {
        self.write_open_records(queue, &self.buffers.open_octagons.0);
    }

    /// Writes this frame's records into `buffer` with the whole screen as every octagon.
    pub(super) fn write_open_records(&self, queue: &wgpu::Queue, buffer: &wgpu::Buffer) {
        let mut records = self.draws.list().records.clone();
        for r in &mut records {
            r.octagon = Octagon::FULL;
        }
        if !records.is_empty() {
            queue.write_buffer(buffer, 0, bytemuck::cast_slice(&records));
        }
    }

    fn count_pipeline<'c>(
        &self,
        device: &wgpu::Device,
        cache: &'c mut CountPipelines,
        key: CountKey,
    ) -> &'c wgpu::RenderPipeline {
        let module = cache
            .modules
            .entry(key.clip_distances)
            .or_insert_with(|| {
                if key.clip_distances == self.shading.clip_distances {
                    self.shading.module.clone()
                } else {
                    device.create_shader_module(wgpu::ShaderModuleDescriptor {
                        label: Some("world.wgsl (fragment count)"),
                        source: wgpu::ShaderSource::Wgsl(
                            shaders::world(shaders::WorldVariant::clipped(key.clip_distances))
                                .into(),
                        ),
                    })
                }
            })
            .clone();
        cache
            .pipelines
            .entry(key)
            .or_insert_with(|| count_pipeline(device, &self.shading.pipeline_layout, &module, key))
    }
}

fn draw(pass: &mut wgpu::RenderPass<'_>, c: &super::draws::DrawCommand) {
    pass.draw_indexed(
        c.first_index..c.first_index + c.index_count,
        0,
        c.first_instance..c.first_instance + 1,
    );
}

fn count_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    key: CountKey,
) -> wgpu::RenderPipeline {
    let add = wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("world fragment count"),
        layout: Some(layout),
        vertex: world_vertex_state(module),
        primitive: world_primitive(key.mirrored, true),
        // The colour pass's depth state (reverse-Z, equal passes).
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(key.depth_write),
            depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(if key.unclipped {
                "fs_count_unclipped"
            } else {
                "fs_count"
            }),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: COUNT_FORMAT,
                blend: Some(wgpu::BlendState {
                    color: add,
                    alpha: add,
                }),
                write_mask: if key.count {
                    wgpu::ColorWrites::ALL
                } else {
                    wgpu::ColorWrites::empty()
                },
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// Keeps `RefCell` out of the pass's public shape.
pub(super) type CountCache = RefCell<CountPipelines>;
