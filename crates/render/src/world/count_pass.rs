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
use crate::pass::{
    Attachment, FrameInputs, Load, Offscreen, Pass, PassAttachments, PassTarget, Prepared, Scope,
};
use crate::{shaders, DEPTH_FORMAT};
use lanthorn_geom::Octagon;

pub use crate::settings::OctagonClip;

/// The count target's format: one unorm byte a pixel, up to 255 fragments.
pub const COUNT_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R8Unorm;

/// Where a fragment count draws: the count (`COUNT_FORMAT`) and a depth buffer of its own,
/// cleared to no fragments and far.
pub struct CountTarget {
    /// The count per pixel, one unorm byte each (1/255 a fragment).
    pub count: wgpu::Texture,
    /// `count` as the count pass's colour attachment.
    pub count_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
    /// Width and height in pixels.
    pub size: (u32, u32),
}

impl CountTarget {
    /// A count target and its depth for frames of `size` pixels.
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

/// The world's fragments counted in the frame (the overdraw overlay): into `target`, with
/// octagon clipping `clip`, by [`FragmentCountPass`] after the world pass.
pub struct FrameCount {
    /// The count and its depth.
    pub target: CountTarget,
    /// How the count clips to the cells' octagons.
    pub clip: OctagonClip,
    /// Its pipelines.
    pub draw: CountDraw,
}

/// The overdraw overlay's count of what `world` prepared this frame: an offscreen pass into
/// the count's own target (the heatmap draws it later in the frame).
pub struct FragmentCountPass<'a> {
    /// The count.
    pub count: &'a FrameCount,
    /// The world pass, prepared this frame.
    pub world: &'a WorldPass,
}

impl Pass for FragmentCountPass<'_> {
    fn scope(&self) -> Scope {
        Scope {
            name: "world fragment count",
            prepare: "fragment count prepare",
            record: "fragment count record",
        }
    }

    /// None on the frame (`Prepared::OffscreenOnly`).
    fn attachments(&self) -> PassAttachments {
        PassAttachments {
            color: (Attachment::FrameColor, Load::Keep),
            depth: None,
        }
    }

    /// With octagons off, this frame's records with every octagon open.
    fn prepare(&mut self, gpu: &Gpu, _: &FrameInputs) -> Prepared {
        if self.count.clip == OctagonClip::Off {
            self.world.open_octagons(&gpu.queue);
        }
        Prepared::OffscreenOnly
    }

    fn record(&self, _: &mut wgpu::RenderPass<'_>) {}

    fn offscreen(&self) -> Vec<Offscreen<'_>> {
        vec![self.count.target.offscreen()]
    }

    fn record_offscreen(&self, _: usize, pass: &mut wgpu::RenderPass<'_>) {
        (self.count.draw).record(self.world, pass, self.count.clip);
    }
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

/// The counting pipelines and the shader variants (by clip distances), made on first use for
/// one world's shading (again for another's).
struct CountPipelines {
    stamp: u64,
    modules: HashMap<bool, wgpu::ShaderModule>,
    pipelines: HashMap<CountKey, wgpu::RenderPipeline>,
}

/// Draws what the world prepared as a fragment count; its pipelines made on first use.
pub struct CountDraw {
    device: wgpu::Device,
    pipelines: RefCell<CountPipelines>,
}

impl CountDraw {
    /// Nothing made yet.
    pub fn new(gpu: &Gpu) -> CountDraw {
        CountDraw {
            device: gpu.device.clone(),
            pipelines: RefCell::new(CountPipelines {
                stamp: 0,
                modules: HashMap::new(),
                pipelines: HashMap::new(),
            }),
        }
    }

    /// Records what `world` prepared as a fragment count (`COUNT_FORMAT` target, with a depth
    /// attachment cleared like the colour pass's) with octagon clipping `clip`. For
    /// `OctagonClip::Off`, call `WorldPass::open_octagons` first (before the submit).
    /// `ClipDistances` needs the device's clip distances (`None` otherwise).
    pub fn record(
        &self,
        world: &WorldPass,
        pass: &mut wgpu::RenderPass<'_>,
        clip: OctagonClip,
    ) -> Option<()> {
        let (module_clips, device_clips) = world.clip_distances();
        if clip == OctagonClip::ClipDistances && !device_clips {
            return None;
        }
        let mut cache = self.pipelines.borrow_mut();
        if cache.stamp != world.shading_stamp() {
            cache.stamp = world.shading_stamp();
            cache.modules.clear();
            cache.pipelines.clear();
        }
        world.bind_mesh(pass, clip == OctagonClip::Off);
        let list = world.draw_list();
        let covering = world.liquids_cover();
        for (batch, (first, count)) in list.batches_in_order(world.liquids_first()) {
            let (class, kind) = super::draws::batch_class_kind(batch);
            let mirrored = class == ViewClass::Mirrored;
            // Liquids write depth only where they cover, as the frame's do.
            let depth_write =
                kind != SurfaceKind::Liquid || (covering && class == ViewClass::Camera);
            let commands = &list.commands[first as usize..(first + count) as usize];
            let key = |unclipped, count| CountKey {
                clip_distances: match clip {
                    OctagonClip::ClipDistances => true,
                    OctagonClip::Discard => false,
                    OctagonClip::Off => module_clips,
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
                        pass.set_pipeline(self.count_pipeline(world, &mut cache, k));
                        draw(pass, c);
                    }
                }
            } else {
                pass.set_pipeline(self.count_pipeline(world, &mut cache, key(false, true)));
                for c in commands {
                    draw(pass, c);
                }
            }
        }
        Some(())
    }

    fn count_pipeline<'c>(
        &self,
        world: &WorldPass,
        cache: &'c mut CountPipelines,
        key: CountKey,
    ) -> &'c wgpu::RenderPipeline {
        let (world_module, layout) = world.shader();
        let device = &self.device;
        let module = cache
            .modules
            .entry(key.clip_distances)
            .or_insert_with(|| {
                if key.clip_distances == world.clip_distances().0 {
                    world_module.clone()
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
            .or_insert_with(|| count_pipeline(device, layout, &module, key))
    }
}

impl WorldPass {
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
