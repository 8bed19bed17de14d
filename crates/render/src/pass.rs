//! The shape every render pass has. A pass is created with everything its level fixes
//! (meshes, materials, sun, skybox, terrain origin); per frame it is handed one `FrameInputs`,
//! uploads what it needs in `prepare`, and records commands into a render pass begun on the
//! attachments it declares — it never begins a pass, submits or picks a target itself.

use super::depth_bands::DepthBand;
use super::gpu::Gpu;
use super::profiler::GpuTimer;
use super::settings::FrameSettings;
use lanthorn_geom::{Camera, Octagon};
use lanthorn_vis::VisibleSet;

/// What one frame hands every pass.
#[derive(Clone, Copy)]
pub struct FrameInputs<'a> {
    /// The eye.
    pub camera: &'a Camera,
    /// Cells (per view) and objects with their octagons; `views` are mirrors and teleporters.
    pub visible: &'a VisibleSet,
    /// Time, light scale, fullbright, filtering, terrain overlays.
    pub settings: &'a FrameSettings,
    /// Where the terrain shows this frame (the union of the visible outdoor cells' octagons,
    /// or the full screen); `None`: it does not.
    pub terrain_octagon: Option<Octagon>,
    /// Culling is frozen at this camera (`visible` is what it kept): per-surface tests run
    /// from it, and its octagons, in its screen space, do not clip the frame drawn from
    /// `camera`. `None`: culling ran from `camera`.
    pub culling: Option<&'a Camera>,
    /// The culling overlays' lines (clip space), drawn over everything; empty: none.
    pub overlay_lines: &'a [OverlayVertex],
    /// The opaque UI panels over the frame (pixels): the world and the terrain skip what lies
    /// under them (`render::ui_cover`). Empty: nothing is covered.
    pub ui_cover: &'a [PixelRect],
    /// The frame's size in pixels.
    pub viewport: (u32, u32),
    /// The terrain's aerial fog the world's open-air surfaces take (all zero: none).
    pub fog: crate::fog::WorldFog,
    /// The sun's shadow cascades fitted to this frame's camera and drawn before the scene
    /// passes (`render::sun_cascades`); `None`: shadows are off or the level has no sun.
    pub sun: Option<&'a crate::shadow::SunShadows>,
}

impl<'a> FrameInputs<'a> {
    /// The inputs of one view of `viewport` pixels drawn alone: no terrain, no frozen
    /// culling, overlays, panels, fog or sun (a world pass prepared by hand, the checks').
    pub fn view(
        (camera, viewport): (&'a Camera, (u32, u32)),
        visible: &'a VisibleSet,
        settings: &'a FrameSettings,
    ) -> Self {
        FrameInputs {
            camera,
            visible,
            settings,
            terrain_octagon: None,
            culling: None,
            overlay_lines: &[],
            ui_cover: &[],
            viewport,
            fog: Default::default(),
            sun: None,
        }
    }
}

/// One overlay line vertex: clip-space position and colour (`render::overlay` draws them).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct OverlayVertex {
    /// Clip-space position.
    pub clip: [f32; 4],
    /// sRGB colour and alpha.
    pub color: [u8; 4],
}

/// A rectangle of the frame in pixels: x, y (from the top left), width, height.
pub type PixelRect = [f32; 4];

/// An attachment by what it holds; a target hands out the view for each role it owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attachment {
    /// The frame's colour (the window, `capture` and the tests read it; the overlays draw on
    /// it after the tone map).
    FrameColor,
    /// The scene's colour in linear light: the frame's colour, or with HDR on the float scene
    /// the tone map reads (`target::FrameTarget::hdr`).
    SceneColor,
    /// The scene's colour as the world writes it: the frame's colour seen raw, gamma-encoded
    /// (`target::GAMMA_COLOR_FORMAT`), or the float scene (then the world writes linear).
    SceneColorGamma,
    /// The frame's reverse-Z depth.
    FrameDepth,
    /// Surface ids (R32Uint) of the solid surfaces…
    SolidIds,
    /// …and of the liquids.
    LiquidIds,
    /// The depth the id passes test against.
    IdDepth,
}

/// Whether a pass starts its attachment afresh (at the target's clear value) or draws over
/// what the passes before it left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// Start afresh.
    Clear,
    /// Draw over what is there.
    Keep,
}

/// The colour and depth attachments a pass draws into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassAttachments {
    /// The colour attachment and how it starts.
    pub color: (Attachment, Load),
    /// The depth attachment and how it starts (`None`: none).
    pub depth: Option<(Attachment, Load)>,
}

/// Whether a prepared pass draws this frame. What it submitted, a pass keeps in its own typed
/// stats, which the Renderer reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prepared {
    /// Nothing to draw this frame (the pass is not recorded).
    Skipped,
    /// It draws: record it.
    Recorded,
    /// Only its offscreen passes draw (the sun's cascades): it has no pass on the frame's
    /// attachments.
    OffscreenOnly,
}

/// A pass's names: its GPU scope (GPU timings in the panel, `gpu_NAME_ms` in the bench JSON,
/// trace and capture markers) and its two CPU stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The GPU scope's name.
    pub name: &'static str,
    /// The CPU stage of its prepare.
    pub prepare: &'static str,
    /// The CPU stage of its record.
    pub record: &'static str,
}

/// A pass of the frame: created with what its level fixes, prepared each frame from the
/// frame's inputs, then recorded into a render pass on the attachments it declares.
pub trait Pass {
    /// Its names: GPU scope and CPU stages.
    fn scope(&self) -> Scope;
    /// The attachments it draws into, each cleared or kept.
    fn attachments(&self) -> PassAttachments;
    /// Per-frame uploads (uniforms, draw records, indirect commands, streamed data).
    fn prepare(&mut self, gpu: &Gpu, inputs: &FrameInputs) -> Prepared;
    /// Commands into a render pass begun on `attachments()`.
    fn record(&self, pass: &mut wgpu::RenderPass<'_>);
    /// The render passes into textures this pass owns that this frame needs before its own
    /// (the surface cache's bake into its atlas), as `prepare` left them; none by default.
    fn offscreen(&self) -> Vec<Offscreen<'_>> {
        Vec::new()
    }
    /// Commands into the render pass begun on `offscreen()[index]`.
    fn record_offscreen(&self, _index: usize, _pass: &mut wgpu::RenderPass<'_>) {}
    /// Copies out of what the pass drew (readbacks the pass maps in a later frame), recorded
    /// into the frame's encoder after the pass.
    fn copy_out(&self, _enc: &mut wgpu::CommandEncoder) {}
}

/// A render pass into a texture its pass owns: the colour view drawn into, and a depth.
pub struct Offscreen<'a> {
    /// The render pass's label (and GPU scope).
    pub label: &'static str,
    /// `None`: a depth-only pass (the sun's shadow cascades).
    pub color: Option<&'a wgpu::TextureView>,
    /// A depth attachment (reverse-Z) of the pass's own.
    pub depth: Option<&'a wgpu::TextureView>,
    /// Cleared to this colour (and depth to far) first; `None` keeps what is there.
    pub clear: Option<wgpu::Color>,
}

/// Where passes draw: the views of the attachments a target owns, and their clear values.
pub trait PassTarget {
    /// The view of `attachment`.
    fn view(&self, attachment: Attachment) -> &wgpu::TextureView;
    /// The colour `attachment` clears to.
    fn clear_color(&self, attachment: Attachment) -> wgpu::Color;
    /// Whether this depth attachment has a stencil (cleared to 0 and kept like the depth).
    fn has_stencil(&self, _attachment: Attachment) -> bool {
        false
    }
    /// The frame's band of this depth attachment and the viewport's size (pixels), where its
    /// depth is cleared once a cycle of bands (`depth_bands`); `None`: cleared when a pass
    /// asks, over the whole range.
    fn depth_band(&self, _attachment: Attachment) -> Option<(DepthBand, (u32, u32))> {
        None
    }
    /// Whether this frame's passes draw every pixel of this colour attachment, so that a pass
    /// which would clear it may keep it where the depth is kept too (`depth_band`): on
    /// llvmpipe a pass that clears anything costs the frame ~4 %.
    fn color_covered(&self, _attachment: Attachment) -> bool {
        false
    }
}

/// One CPU stage of a frame as it ran: its name and when it started and ended (the trace).
#[derive(Clone, Copy, Debug)]
pub struct CpuSpan {
    /// The stage.
    pub name: &'static str,
    /// When it started…
    pub start: std::time::Instant,
    /// …and ended.
    pub end: std::time::Instant,
}

/// Where a frame's CPU stages are written down (the frame's stats).
pub trait StageLog {
    /// Records a CPU stage that ran from `start` until now.
    fn stage(&mut self, name: &'static str, start: std::time::Instant);
}

/// Prepares `pass` and, unless it has nothing to draw, records it on its attachments of
/// `target` (GPU-timed under its scope when `timer` is given).
pub fn run_pass(
    gpu: &Gpu,
    enc: &mut wgpu::CommandEncoder,
    pass: &mut dyn Pass,
    inputs: &FrameInputs,
    target: &dyn PassTarget,
    timer: Option<&mut GpuTimer>,
    cpu: &mut dyn StageLog,
) -> Prepared {
    let scope = pass.scope();
    let t = std::time::Instant::now();
    let stats = pass.prepare(gpu, inputs);
    cpu.stage(scope.prepare, t);
    if stats == Prepared::Skipped {
        return stats;
    }
    let t = std::time::Instant::now();
    let mut timer = timer;
    // Each offscreen pass is timed under its own label (the bloom's steps, the bake).
    for (index, offscreen) in pass.offscreen().iter().enumerate() {
        let timestamp_writes = timer
            .as_deref_mut()
            .and_then(|t| t.pass(offscreen.label, enc));
        let mut render_pass = begin_offscreen(enc, offscreen, timestamp_writes);
        pass.record_offscreen(index, &mut render_pass);
    }
    if stats == Prepared::OffscreenOnly {
        cpu.stage(scope.record, t);
        return stats;
    }
    let timestamp_writes = timer.and_then(|t| t.pass(scope.name, enc));
    let mut render_pass = begin(
        enc,
        scope.name,
        &pass.attachments(),
        target,
        timestamp_writes,
    );
    pass.record(&mut render_pass);
    drop(render_pass);
    pass.copy_out(enc);
    cpu.stage(scope.record, t);
    stats
}

/// Begins a render pass on `attachments` of `target`.
pub fn begin<'e>(
    enc: &'e mut wgpu::CommandEncoder,
    label: &str,
    attachments: &PassAttachments,
    target: &dyn PassTarget,
    timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
) -> wgpu::RenderPass<'e> {
    let (color, color_load) = attachments.color;
    let band = attachments
        .depth
        .and_then(|(depth, _)| target.depth_band(depth));
    let keeps_depth = band.is_some_and(|(b, _)| !b.clear);
    let depth_stencil_attachment =
        attachments
            .depth
            .map(|(depth, load)| wgpu::RenderPassDepthStencilAttachment {
                view: target.view(depth),
                depth_ops: Some(wgpu::Operations {
                    // Reverse-Z: cleared to 0, nearer is larger. In a band past the cycle's
                    // first, what is there lies below every depth this frame writes.
                    load: match (load, band) {
                        (Load::Clear, Some((b, _))) if !b.clear => wgpu::LoadOp::Load,
                        (Load::Clear, _) => wgpu::LoadOp::Clear(0.0),
                        (Load::Keep, _) => wgpu::LoadOp::Load,
                    },
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: target.has_stencil(depth).then_some(wgpu::Operations {
                    load: match load {
                        Load::Clear => wgpu::LoadOp::Clear(0),
                        Load::Keep => wgpu::LoadOp::Load,
                    },
                    store: wgpu::StoreOp::Store,
                }),
            });
    let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: target.view(color),
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: match color_load {
                    Load::Clear if keeps_depth && target.color_covered(color) => wgpu::LoadOp::Load,
                    Load::Clear => wgpu::LoadOp::Clear(target.clear_color(color)),
                    Load::Keep => wgpu::LoadOp::Load,
                },
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment,
        timestamp_writes,
        occlusion_query_set: None,
        multiview_mask: None,
    });
    if let Some((b, (width, height))) = band {
        pass.set_viewport(
            0.0,
            0.0,
            width as f32,
            height as f32,
            b.range[0],
            b.range[1],
        );
    }
    pass
}

/// Begins a render pass on `offscreen`'s views, cleared or kept as it says.
fn begin_offscreen<'e>(
    enc: &'e mut wgpu::CommandEncoder,
    offscreen: &Offscreen<'_>,
    timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
) -> wgpu::RenderPass<'e> {
    let color = offscreen.color.map(|view| wgpu::RenderPassColorAttachment {
        view,
        depth_slice: None,
        resolve_target: None,
        ops: wgpu::Operations {
            load: offscreen
                .clear
                .map_or(wgpu::LoadOp::Load, wgpu::LoadOp::Clear),
            store: wgpu::StoreOp::Store,
        },
    });
    // A depth-only pass has no colour attachment at all (not an empty slot).
    let colors = [color];
    let count = colors[0].is_some() as usize;
    enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(offscreen.label),
        color_attachments: &colors[..count],
        depth_stencil_attachment: offscreen.depth.map(|view| {
            wgpu::RenderPassDepthStencilAttachment {
                view,
                depth_ops: Some(wgpu::Operations {
                    load: match offscreen.clear {
                        Some(_) => wgpu::LoadOp::Clear(0.0),
                        None => wgpu::LoadOp::Load,
                    },
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }
        }),
        timestamp_writes,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// A pipeline drawing one full-screen triangle (no vertex buffer, no depth) with `vertex` and
/// `fragment` of `module` into `target`: the present blit, the overdraw heatmap, bloom.
pub(crate) fn fullscreen_pipeline(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    (vertex, fragment): (&str, &str),
    target: wgpu::ColorTargetState,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(vertex),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: Default::default(),
        depth_stencil: None,
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(fragment),
            compilation_options: Default::default(),
            targets: &[Some(target)],
        }),
        multiview_mask: None,
        cache: None,
    })
}
