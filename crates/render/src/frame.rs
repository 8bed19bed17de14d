//! One frame: the passes in order into the offscreen target, with CPU and GPU timings.

use std::time::Instant;

use super::bloom::{BloomParams, BloomPass};
use super::depth_bands::{DepthBand, DepthBands};
use super::gpu::Gpu;
use super::overlay::heatmap::HeatmapPass;
use super::overlay::{OverlayPass, OverlayVertex};
use super::pass::{run_pass, Attachment, CpuSpan, FrameInputs, Pass, PassTarget, StageLog};
use super::profiler::GpuTimer;
use super::settings::FrameSettings;
use super::shadow::{SunCaster, SunShadows};
use super::sun_cascades::SunCascadesPass;
use super::target::{self, FrameTarget};
use super::terrain::{Terrain, TerrainPlacement, TerrainStats};
use super::tonemap::ToneMapPass;
use super::ui_cover::UiCoverPass;
use super::world::{
    CountDraw, CountTarget, FragmentCountPass, FrameCount, OctagonClip, Wireframe, WireframePass,
    WorldPass, WorldStats,
};
use lanthorn_geom::cascades::CascadeConfig;
use lanthorn_geom::Camera;
use lanthorn_level::Level;
use lanthorn_vis::VisibleSet;

/// The CPU stages of a frame besides the passes' own ("world prepare", "world record", …):
/// every command's frames use these names (traces and tables compare across commands).
pub mod stage {
    /// Animating the level's movers and running the culling method (and the overlays' lines).
    pub const CULLING: &str = "culling";
    /// Submitting the frame and waiting for the GPU (headless commands).
    pub const SUBMIT: &str = "submit + wait";
    /// Reading the GPU timestamp queries back (in the demo, also the wait for the GPU).
    pub const READBACK: &str = "readback";
}

/// What one frame cost and submitted.
#[derive(Clone, Debug, Default)]
pub struct FrameStats {
    /// CPU milliseconds per stage, in order.
    pub cpu_ms: Vec<(&'static str, f64)>,
    /// The same stages with their start and end (the trace).
    pub cpu_spans: Vec<CpuSpan>,
    /// The GPU passes' begin and end on the GPU's clock (seconds), when timestamp queries are
    /// granted.
    pub gpu_scopes: Vec<(&'static str, f64, f64)>,
    /// When the frame was submitted…
    pub submitted: Option<Instant>,
    /// …and when its readback finished (the GPU's work lies in between).
    pub read_back: Option<Instant>,
    /// GPU milliseconds per pass (empty without timestamp queries).
    pub gpu_ms: Vec<(&'static str, f64)>,
    /// The world pass: what it drew.
    pub world: WorldStats,
    /// The terrain pass (all zero without a terrain).
    pub terrain: TerrainStats,
}

impl FrameStats {
    /// Records a CPU stage that ran from `start` until now: its milliseconds and its span.
    pub fn stage(&mut self, name: &'static str, start: Instant) {
        let end = Instant::now();
        self.cpu_ms.push((name, (end - start).as_secs_f64() * 1e3));
        self.cpu_spans.push(CpuSpan { name, start, end });
    }
}

impl StageLog for FrameStats {
    fn stage(&mut self, name: &'static str, start: Instant) {
        FrameStats::stage(self, name, start);
    }
}

/// The passes of a frame, in order, into one offscreen target: the UI cover when panels cover
/// the frame (then it clears colour and depth), the world (clears them otherwise), then the
/// terrain (keeps both) when there is one, bloom — or with HDR on the tone map from the float
/// scene into the frame (bloom's chain its offscreen steps) — the heatmap and the overlay
/// lines.
pub struct Renderer {
    /// The offscreen frame the passes draw into (`color_view` is what a window shows).
    pub target: FrameTarget,
    /// The world pass.
    pub world: WorldPass,
    timer: Option<GpuTimer>,
    /// Time the passes on the GPU (timestamp queries, where granted; on by default). On
    /// lavapipe a timed pass costs the frame about 0.3 ms (a flush and a wait, docs/
    /// performance.md): the demo times them while its panel shows them.
    pub gpu_timers: bool,
    /// Whether the frame last encoded was timed (its timers are read after its submit).
    timed: bool,
    /// What the frame is cleared to (linear).
    pub clear_color: wgpu::Color,
    /// Where the frames are in the cycle of depth bands.
    depth_bands: DepthBands,
    /// The clipmap terrain, drawn after the world into the same target (see `set_terrain`).
    pub terrain: Option<Terrain>,
    /// Per cell: open to the terrain (`cell_flags::OUTDOOR`). A level with cells shows the
    /// terrain only through its visible outdoor cells; a level without cells shows all of it.
    outdoor: Vec<bool>,
    any_outdoor: bool,
    /// Where the level places the terrain (`TerrainRef.origin`).
    terrain_origin: glam::Vec3,
    /// The level's cubemap skybox: the world's sky surfaces and the terrain's sky show it.
    skybox: crate::skybox::Skybox,
    /// The level's sun (`_sunlight`, `_sun_mangle`): the terrain is lit from the same side.
    sun_direction: Option<glam::Vec3>,
    /// The sun's shadow cascades while shadows are on in a level with a sun: fitted and drawn
    /// first each frame, sampled by the world's moving objects and the terrain.
    sun_shadows: Option<SunShadows>,
    /// The level's lamps splatted for the terrain (`terrain::lamps`).
    lamp_map: Option<lanthorn_terrain::lamps::LampMap>,
    /// The overdraw overlay's count of the world's fragments and its heatmap, while it is on.
    fragment_count: Option<FrameCount>,
    heatmap: Option<HeatmapPass>,
    /// The wireframe's pipelines (made on first use).
    wireframe: Wireframe,
    /// Made on first use.
    overlay: Option<OverlayPass>,
    bloom: Option<BloomPass>,
    /// With HDR on: the tone map from the float scene into the frame.
    tone_map: Option<ToneMapPass>,
    cover: Option<UiCoverPass>,
}

/// The frame target with its clear colour and this frame's depth band, as the passes see it.
struct FrameAttachments<'a> {
    target: &'a FrameTarget,
    clear: wgpu::Color,
    depth: DepthBand,
    /// The world draws every pixel of the scene's colour this frame (`covers_the_view`).
    covered: bool,
}

impl PassTarget for FrameAttachments<'_> {
    fn view(&self, attachment: Attachment) -> &wgpu::TextureView {
        match attachment {
            Attachment::FrameDepth => &self.target.depth_view,
            Attachment::SceneColor | Attachment::SceneColorGamma if self.target.hdr.is_some() => {
                self.target.hdr.as_ref().expect("checked")
            }
            Attachment::SceneColorGamma => &self.target.color_gamma_view,
            _ => &self.target.color_view,
        }
    }

    fn depth_band(&self, attachment: Attachment) -> Option<(DepthBand, (u32, u32))> {
        (attachment == Attachment::FrameDepth).then_some((self.depth, self.target.size))
    }

    fn color_covered(&self, attachment: Attachment) -> bool {
        self.covered && attachment == Attachment::SceneColorGamma
    }

    /// The clear colour is linear; the raw view stores it encoded.
    fn clear_color(&self, attachment: Attachment) -> wgpu::Color {
        match attachment {
            Attachment::SceneColorGamma if self.target.hdr.is_none() => {
                target::encode_srgb(self.clear)
            }
            _ => self.clear,
        }
    }
}

/// Everything one frame draws: what the Renderer is handed, whole, for each frame.
#[derive(Clone, Copy)]
pub struct Frame<'a> {
    /// The eye.
    pub camera: &'a Camera,
    /// What culling kept (cells per view with their octagons, objects, views).
    pub visible: &'a VisibleSet,
    /// What the user switched.
    pub settings: &'a FrameSettings,
    /// Culling frozen at this camera (see `FrameInputs::culling`); `None`: it ran from `camera`.
    pub culling: Option<&'a Camera>,
    /// The culling overlays' lines (clip space), drawn over everything.
    pub overlay_lines: &'a [OverlayVertex],
    /// The opaque UI panels over the frame (pixels): the world and the terrain skip what lies
    /// under them (`render::ui_cover`).
    pub ui_cover: &'a [crate::ui_cover::PixelRect],
}

impl<'a> Frame<'a> {
    /// A frame of `visible` from `camera`, with no overlay lines and no panels over it.
    pub fn new(camera: &'a Camera, visible: &'a VisibleSet, settings: &'a FrameSettings) -> Self {
        Frame {
            camera,
            visible,
            settings,
            culling: None,
            overlay_lines: &[],
            ui_cover: &[],
        }
    }
}

impl Renderer {
    /// A renderer for `level` drawing frames of `size` pixels.
    pub fn new(gpu: &Gpu, level: &Level, size: (u32, u32)) -> Renderer {
        // The level's light model, read from its entities once for every pass.
        let lights = lanthorn_light::lights::level_lights(level);
        let skybox = crate::skybox::Skybox::load(gpu, level);
        let clip_distances = gpu.features.clip_distances;
        Renderer {
            target: FrameTarget::create(gpu, size),
            world: WorldPass::create_lit(
                gpu,
                (level, &lights, &skybox),
                target::GAMMA_COLOR_FORMAT,
                clip_distances,
            ),
            timer: GpuTimer::create(gpu),
            gpu_timers: true,
            timed: false,
            clear_color: wgpu::Color {
                r: 0.02,
                g: 0.02,
                b: 0.03,
                a: 1.0,
            },
            depth_bands: DepthBands::default(),
            terrain: None,
            outdoor: level
                .cells
                .iter()
                .map(|c| c.flags & lanthorn_level::cell_flags::OUTDOOR != 0)
                .collect(),
            any_outdoor: level
                .cells
                .iter()
                .any(|c| c.flags & lanthorn_level::cell_flags::OUTDOOR != 0),
            terrain_origin: level.terrain.as_ref().map(|t| t.origin).unwrap_or_default(),
            sun_direction: lights.sun.map(|s| s.direction),
            sun_shadows: None,
            skybox,
            lamp_map: lanthorn_terrain::lamps::LampMap::splat(&lights.lamps),
            fragment_count: None,
            heatmap: None,
            wireframe: Wireframe::default(),
            overlay: None,
            bloom: None,
            tone_map: None,
            cover: None,
        }
    }

    /// The last frame's overdraw (fragments per covered pixel) when the overdraw overlay is on.
    pub fn overlay_overdraw(&self) -> Option<f64> {
        self.heatmap.as_ref().map(|h| h.overdraw)
    }

    /// Adds (or replaces) the clipmap terrain drawn with the world, placed as the level
    /// says: its origin, the level's sun and skybox.
    pub fn set_terrain(&mut self, gpu: &Gpu, clipmap: lanthorn_terrain::ClipmapTerrain) {
        // The world takes the terrain's fog.
        self.world.use_aerial_fog(gpu);
        let placement = TerrainPlacement {
            origin: self.terrain_origin,
            sun_direction: self.sun_direction,
            skybox: self.skybox.active.then_some(&self.skybox.linear_view),
            lamps: self.lamp_map.as_ref(),
        };
        let mut terrain = Terrain::in_level(gpu, clipmap, target::COLOR_FORMAT, &placement);
        terrain.use_sun_shadows(gpu, self.sun_shadows.as_mut());
        self.terrain = Some(terrain);
    }

    /// The screen region the terrain shows through: the union of the octagons of the visible
    /// outdoor cells (camera view), the full screen for a level without cells or with the eye
    /// outside every cell of a level that has outdoor cells (flying over the terrain beyond
    /// them), `None` when no outdoor cell is visible.
    pub fn terrain_octagon(&self, visible: &VisibleSet) -> Option<lanthorn_geom::Octagon> {
        if self.outdoor.is_empty() || (visible.eye_outside && self.any_outdoor) {
            return Some(lanthorn_geom::Octagon::FULL);
        }
        let mut oct = lanthorn_geom::Octagon::EMPTY;
        for c in visible.cells.iter().filter(|c| c.view == 0) {
            if self.outdoor.get(c.cell as usize).copied().unwrap_or(false) {
                oct = oct.union(&c.octagon);
            }
        }
        (!oct.is_empty()).then_some(oct)
    }

    /// The overdraw overlay on (with its octagon clipping) or off: the world pass counts its
    /// fragments as an offscreen pass and the heatmap draws them.
    fn count_fragments(&mut self, gpu: &Gpu, clip: Option<OctagonClip>) {
        let Some(mut clip) = clip else {
            self.fragment_count = None;
            self.heatmap = None;
            return;
        };
        if clip == OctagonClip::ClipDistances && !gpu.features.clip_distances {
            clip = OctagonClip::Discard;
        }
        let size = self.target.size;
        match &mut self.fragment_count {
            Some(count) if count.target.size == size && self.heatmap.is_some() => count.clip = clip,
            slot => {
                let target = CountTarget::create(gpu, size);
                self.heatmap = Some(HeatmapPass::create(gpu, &target, target::COLOR_FORMAT));
                let draw = CountDraw::new(gpu);
                *slot = Some(FrameCount { target, clip, draw });
            }
        }
    }

    /// Shadows on (the cascades made for the level's sun on first use, the terrain casting
    /// into them when there is one) or off (none kept). A level without a sun has none.
    fn switch_shadows(&mut self, gpu: &Gpu, on: bool) {
        let Some(sun) = self.sun_direction.filter(|_| on) else {
            if self.sun_shadows.take().is_some() {
                if let Some(terrain) = &mut self.terrain {
                    terrain.use_sun_shadows(gpu, None);
                }
            }
            return;
        };
        if self.sun_shadows.is_some() {
            return;
        }
        let casters = self.world.sun_casters(&self.casting_cells());
        let config = CascadeConfig::default();
        let mut shadows = SunShadows::new(gpu, sun, config, casters);
        if let Some(terrain) = &mut self.terrain {
            terrain.use_sun_shadows(gpu, Some(&mut shadows));
        }
        self.sun_shadows = Some(shadows);
    }

    /// The cells whose walls may shadow what the sun reaches: the outdoor ones, or every cell
    /// of a level that marks none outdoor (a sunlit Quake map: its open-air leaves are not
    /// marked).
    fn casting_cells(&self) -> Vec<bool> {
        if self.any_outdoor {
            self.outdoor.clone()
        } else {
            vec![true; self.outdoor.len()]
        }
    }

    /// Bloom on the LDR frame on (a pass made for the target's size) or off (none kept); with
    /// HDR on, the tone map runs bloom's chain instead.
    fn switch_bloom(&mut self, gpu: &Gpu, on: bool) {
        let fits = self
            .bloom
            .as_ref()
            .is_some_and(|b| b.size == self.target.size);
        if !on || self.target.hdr.is_some() {
            self.bloom = None;
        } else if !fits {
            let frame = &self.target.color_view;
            let params = BloomParams::default();
            self.bloom = Some(BloomPass::create(gpu, frame, self.target.size, params));
        }
    }

    /// HDR on (the float scene, the scene passes' pipelines for it, the tone map with bloom's
    /// chain when bloom is on) or off (the LDR frame, nothing of HDR kept).
    fn switch_hdr(&mut self, gpu: &Gpu, on: bool, bloom: bool) {
        self.target.use_hdr(gpu, on);
        let formats = self.target.scene_formats();
        self.world.set_scene_format(gpu, formats.world);
        if let Some(terrain) = &mut self.terrain {
            terrain.draw.set_color_format(gpu, formats.linear);
        }
        if self
            .cover
            .as_ref()
            .is_some_and(|c| c.format != formats.world)
        {
            self.cover = None;
        }
        let Some(scene) = &self.target.hdr else {
            self.tone_map = None;
            return;
        };
        let fits = (self.tone_map.as_ref())
            .is_some_and(|t| t.size == self.target.size && t.blooms() == bloom);
        if !fits {
            self.tone_map = Some(ToneMapPass::create(gpu, scene, self.target.size, bloom));
        }
    }

    /// Whether the world draws every pixel of `frame`, so the last frame's colours never show:
    /// the eye is in a cell of a level (closed: Quake's levels are sealed, and a leak shows
    /// as in Quake, the last frame's pixels), culled from the eye itself (not frozen
    /// elsewhere), with no terrain (drawn through outdoor cells only) and no panels over it.
    fn covers_the_view(&self, frame: &Frame) -> bool {
        let v = frame.visible;
        !v.cells.is_empty()
            && !v.eye_outside
            && frame.culling.is_none()
            && frame.ui_cover.is_empty()
            && self.terrain.is_none()
    }

    /// Something other than the renderer's passes drew into `target.depth` (a test's
    /// reference pass): the next frame clears it (its depths lie outside the frames' bands,
    /// `depth_bands`).
    pub fn depth_written(&mut self) {
        self.depth_bands.restart();
    }

    /// Frames of `size` pixels from now on (the target is made again).
    pub fn resize(&mut self, gpu: &Gpu, size: (u32, u32)) {
        let size = (size.0.max(1), size.1.max(1));
        if size != self.target.size {
            // The HDR scene is made again at the new size by the next frame's `switch_hdr`.
            self.target = FrameTarget::create(gpu, size);
            self.depth_bands.restart();
        }
    }

    /// Prepares and records every pass into the offscreen target. The caller may add passes
    /// (present, egui) to `enc` before submitting.
    pub fn encode(
        &mut self,
        gpu: &Gpu,
        enc: &mut wgpu::CommandEncoder,
        frame: &Frame,
        stats: &mut FrameStats,
    ) {
        let settings = frame.settings;
        self.count_fragments(gpu, settings.overdraw);
        self.switch_hdr(gpu, settings.hdr, settings.bloom);
        self.switch_bloom(gpu, settings.bloom);
        self.switch_shadows(gpu, settings.shadows);
        if !frame.ui_cover.is_empty() {
            let format = self.target.scene_formats().world;
            self.cover
                .get_or_insert_with(|| UiCoverPass::create(gpu, format));
        }
        if !frame.overlay_lines.is_empty() {
            self.overlay
                .get_or_insert_with(|| OverlayPass::create(gpu, target::COLOR_FORMAT));
        }
        let mut inputs = FrameInputs {
            camera: frame.camera,
            visible: frame.visible,
            settings,
            terrain_octagon: self.terrain_octagon(frame.visible),
            culling: frame.culling,
            overlay_lines: frame.overlay_lines,
            ui_cover: frame.ui_cover,
            viewport: self.target.size,
            fog: self.world_fog(settings),
            sun: None,
        };
        let target = FrameAttachments {
            target: &self.target,
            clear: self.clear_color,
            depth: self.depth_bands.next_frame(settings.depth_bands),
            covered: self.covers_the_view(frame),
        };
        self.timed = self.gpu_timers && self.timer.is_some();
        let timed = self.timed;
        if let Some(timer) = self.timer.as_mut().filter(|_| timed) {
            timer.begin_frame();
        }
        let timer = &mut self.timer;
        let mut run = |pass: &mut dyn Pass, inputs: &FrameInputs| {
            let timer = timer.as_mut().filter(|_| timed);
            run_pass(gpu, enc, pass, inputs, &target, timer, stats);
        };
        // The sun's cascades first: the world and the terrain sample this frame's.
        if let Some(sun) = &mut self.sun_shadows {
            let terrain = self.terrain.as_mut().map(|t| t as &mut dyn SunCaster);
            run(&mut SunCascadesPass { sun, terrain }, &inputs);
        }
        inputs.sun = self.sun_shadows.as_ref();
        // The UI cover (when panels cover the frame; the world then keeps what it cleared),
        // the world; what draws it again: the overdraw overlay's count, the wireframe.
        let cover = self.cover.as_mut().filter(|_| !frame.ui_cover.is_empty());
        if let Some(cover) = cover {
            run(cover, &inputs);
        }
        run(&mut self.world, &inputs);
        let world = &self.world;
        if let Some(count) = &self.fragment_count {
            run(&mut FragmentCountPass { count, world }, &inputs);
        }
        let wireframe = &mut self.wireframe;
        run(&mut WireframePass { wireframe, world }, &inputs);
        // The terrain; what finishes the frame: bloom on the LDR frame, or the tone map of
        // the HDR scene; then the overdraw heatmap and the overlay lines.
        let overlay = self
            .overlay
            .as_mut()
            .filter(|_| !frame.overlay_lines.is_empty());
        let passes: [Option<&mut dyn Pass>; 5] = [
            self.terrain.as_mut().map(|p| p as &mut dyn Pass),
            self.bloom.as_mut().map(|p| p as &mut dyn Pass),
            self.tone_map.as_mut().map(|p| p as &mut dyn Pass),
            self.heatmap.as_mut().map(|p| p as &mut dyn Pass),
            overlay.map(|p| p as &mut dyn Pass),
        ];
        for pass in passes.into_iter().flatten() {
            run(pass, &inputs);
        }
        stats.world = self.world.stats;
        stats.terrain = self.terrain.as_ref().map(|t| t.stats).unwrap_or_default();
        if let Some(timer) = self.timer.as_mut().filter(|_| timed) {
            timer.resolve(enc);
        }
    }

    /// The fog the world takes this frame: the terrain's aerial fog; without a terrain, only
    /// the sun's side (the cascades' lookup leans towards it).
    fn world_fog(&mut self, settings: &FrameSettings) -> crate::fog::WorldFog {
        match &mut self.terrain {
            Some(terrain) => terrain.world_fog(settings),
            None => crate::fog::WorldFog {
                sun: (-self.sun_direction.unwrap_or_default().normalize_or_zero())
                    .extend(0.0)
                    .to_array(),
                ..Default::default()
            },
        }
    }

    /// Renders one frame headless, submits it and waits for the GPU; fills GPU times.
    pub fn render(
        &mut self,
        gpu: &Gpu,
        camera: &Camera,
        visible: &VisibleSet,
        settings: &FrameSettings,
    ) -> FrameStats {
        let mut stats = FrameStats::default();
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        let frame = Frame::new(camera, visible, settings);
        self.encode(gpu, &mut enc, &frame, &mut stats);
        self.submit(gpu, enc, &mut stats);
        stats
    }

    /// Submits a frame `encode` recorded, waits for the GPU and reads the pass times.
    pub fn submit(&mut self, gpu: &Gpu, enc: wgpu::CommandEncoder, stats: &mut FrameStats) {
        let t = Instant::now();
        gpu.queue.submit([enc.finish()]);
        stats.submitted = Some(t);
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
        stats.stage(stage::SUBMIT, t);
        self.read_timers(gpu, stats);
    }

    /// After the frame's submit: the GPU pass times (waiting for the GPU to finish them).
    pub fn read_timers(&mut self, gpu: &Gpu, stats: &mut FrameStats) {
        let timed = self.timed;
        if let Some(timer) = self.timer.as_mut().filter(|_| timed) {
            let t = Instant::now();
            stats.gpu_scopes = timer.read(gpu);
            stats.gpu_ms = GpuTimer::to_ms(&stats.gpu_scopes);
            stats.stage(stage::READBACK, t);
        }
        stats.read_back = Some(Instant::now());
    }

    /// Reads back the last rendered frame.
    pub fn read_color(&self, gpu: &Gpu) -> image::RgbaImage {
        target::read_rgba(gpu, &self.target.color)
    }
}
