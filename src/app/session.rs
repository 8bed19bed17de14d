//! One frame driver for every command: a level (and its terrain) on a [`Renderer`], culled
//! by one method with the user's overlays and settings, frame by frame. The demo records the
//! frame into its window's encoder ([`Session::cull`], [`Session::encode`]); capture and
//! bench render headless ([`Session::frame`]); all of them name their stages the same way
//! (`render::frame::stage`), trace the same way and capture under RenderDoc the same way.

use std::borrow::Cow;
use std::time::Instant;

use super::overlays::Overlays;
use super::trace::Trace;
use crate::geom::Camera;
use crate::level::Level;
use crate::render::frame::Frame;
use crate::render::overlay::lines::{culled_surface_lines, overlay_lines, wireframe_lines};
use crate::render::overlay::OverlayVertex;
use crate::render::overlay::OverlayView;
use crate::render::renderdoc::RenderDoc;
use crate::render::settings::FrameSettings;
use crate::render::ui_cover::PixelRect;
use crate::render::{stage, FrameStats, Gpu, Renderer};
use crate::terrain::ClipmapTerrain;
use crate::vis::{CullMode, Culler, VisibleSet};

/// A level being drawn: what each frame culls and renders.
pub struct Session<'l> {
    /// Borrowed by headless commands and tests, owned by the demo.
    pub level: Cow<'l, Level>,
    pub renderer: Renderer,
    pub culler: Culler,
    /// What the last frame's culling found.
    pub visible: VisibleSet,
    pub overlays: Overlays,
    /// What the user switched; each frame sets its time and its method's surface tests.
    pub settings: FrameSettings,
    /// Opaque panels over every headless frame (`bench --ui-cover`; the demo hands its own
    /// to each frame).
    pub ui_cover: Vec<PixelRect>,
    /// The culling overlays' lines for the frame `cull` started (clip space).
    overlay_lines: Vec<OverlayVertex>,
    /// Culling frozen at this camera for the frame `cull` started (`Overlays::cull_camera`).
    culling: Option<Camera>,
    trace: Option<Trace>,
    traced: usize,
    /// RenderDoc's API when the program runs under it.
    pub renderdoc: Option<RenderDoc>,
}

impl<'l> Session<'l> {
    /// `level` (with `terrain` drawn under it) on a renderer of `size`, culled by `cull`.
    pub fn new(
        gpu: &Gpu,
        level: impl Into<Cow<'l, Level>>,
        terrain: Option<ClipmapTerrain>,
        size: (u32, u32),
        cull: CullMode,
    ) -> Session<'l> {
        let level = level.into();
        let mut renderer = Renderer::new(gpu, &level, size);
        if let Some(t) = terrain {
            renderer.set_terrain(gpu, t);
        }
        Session {
            culler: Culler::new(&level, cull),
            level,
            renderer,
            visible: VisibleSet::default(),
            overlays: Overlays::default(),
            settings: FrameSettings::default(),
            ui_cover: Vec::new(),
            overlay_lines: Vec::new(),
            culling: None,
            trace: None,
            traced: 0,
            renderdoc: None,
        }
    }

    /// Swaps in a new `level` (and `terrain`) at the same size and culling method, keeping
    /// the overlays, settings, trace and RenderDoc (`demo --watch` after a save). Returns the
    /// seconds the upload took.
    pub fn replace_level(
        &mut self,
        gpu: &Gpu,
        level: impl Into<Cow<'l, Level>>,
        terrain: Option<ClipmapTerrain>,
    ) -> f64 {
        let start = Instant::now();
        let fresh = Session::new(
            gpu,
            level,
            terrain,
            self.renderer.target.size,
            self.culler.mode,
        );
        self.level = fresh.level;
        self.renderer = fresh.renderer;
        self.culler = fresh.culler;
        self.visible = VisibleSet::default();
        start.elapsed().as_secs_f64()
    }

    /// The user's frame settings and overlays.
    pub fn with(mut self, settings: FrameSettings, overlays: Overlays) -> Self {
        self.settings = settings;
        self.overlays = overlays;
        self
    }

    /// Keeps a Chrome trace of the frames passed to [`Session::record`].
    pub fn traced(mut self, on: bool) -> Self {
        self.trace = on.then(Trace::new);
        self
    }

    /// Starts a frame drawn from `camera` at `time`: animates and culls the level (from the
    /// frozen culling camera when there is one) and hands the renderer the overlays' lines.
    /// The returned stats hold the culling stage; the passes add theirs.
    pub fn cull(&mut self, camera: &Camera, time: f32) -> FrameStats {
        let start = Instant::now();
        self.settings.time = time;
        self.settings.surface_tests = super::surface_tests(self.culler.mode);
        let culling = self
            .overlays
            .cull_camera
            .map(|spec| Camera::new(spec, camera.aspect))
            .unwrap_or(*camera);
        if self.overlays.set.needs_trace() {
            self.culler.flow.trace.get_or_insert_with(Vec::new);
        } else {
            self.culler.flow.trace = None;
        }
        let (level, settings) = (&self.level, &self.settings);
        super::cull_view(
            level,
            &mut self.culler,
            &culling,
            settings,
            &mut self.visible,
        );
        self.culling = self.overlays.cull_camera.is_some().then_some(culling);
        self.overlay_lines(camera, &culling);
        let mut stats = FrameStats::default();
        stats.stage(stage::CULLING, start);
        stats
    }

    /// What the overlays draw over the frame, and the settings they switch.
    fn overlay_lines(&mut self, camera: &Camera, culling: &Camera) {
        let set = &self.overlays.set;
        let view = OverlayView {
            camera,
            culling,
            visible: &self.visible,
        };
        let trace = self.culler.flow.trace.as_deref().unwrap_or(&[]);
        let mut lines = overlay_lines(&self.level, set, &view, trace);
        let world = &self.renderer.world;
        if set.culled_surfaces {
            let culled = world.culled_surfaces(&self.visible, culling, self.settings.surface_tests);
            culled_surface_lines(world.mesh(), &culled, &view, &mut lines);
        }
        // Wireframe: polygon-mode lines where the adapter has them, triangle edges as lines
        // otherwise.
        self.settings.wireframe = set.wireframe && world.can_draw_wireframe();
        if set.wireframe && !self.settings.wireframe {
            wireframe_lines(world.mesh(), &view, &mut lines);
        }
        self.overlay_lines = lines;
        self.settings.tint = set.tint();
        self.settings.overdraw = set.overdraw.then_some(self.overlays.overdraw_clip);
    }

    /// Records the passes of the frame [`Session::cull`] started into `enc`, with `ui_cover`'s
    /// panels over it (pixels; empty: none).
    pub fn encode(
        &mut self,
        gpu: &Gpu,
        enc: &mut wgpu::CommandEncoder,
        (camera, ui_cover): (&Camera, &[PixelRect]),
        stats: &mut FrameStats,
    ) {
        let frame = Frame {
            culling: self.culling.as_ref(),
            overlay_lines: &self.overlay_lines,
            ui_cover,
            ..Frame::new(camera, &self.visible, &self.settings)
        };
        self.renderer.encode(gpu, enc, &frame, stats);
    }

    /// One headless frame: culled, recorded, submitted, waited for, its GPU times read.
    pub fn frame(&mut self, gpu: &Gpu, camera: &Camera, time: f32) -> FrameStats {
        let mut stats = self.cull(camera, time);
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        let frame = Frame {
            culling: self.culling.as_ref(),
            overlay_lines: &self.overlay_lines,
            ui_cover: &self.ui_cover,
            ..Frame::new(camera, &self.visible, &self.settings)
        };
        self.renderer.encode(gpu, &mut enc, &frame, &mut stats);
        self.renderer.submit(gpu, enc, &mut stats);
        stats
    }

    /// Renders until the surface cache holds the view (it bakes what a frame drew directly
    /// for the frames after it; a few frames at most), so the next frame is the one a user
    /// sees once the view has settled.
    pub fn settle(&mut self, gpu: &Gpu, camera: &Camera, time: f32) {
        for _ in 0..16 {
            if self.frame(gpu, camera, time).world.baking == 0 {
                break;
            }
        }
    }

    /// Adds a frame to the trace (when tracing); frames are numbered in the order recorded.
    pub fn record(&mut self, stats: &FrameStats) {
        if let Some(trace) = &mut self.trace {
            trace.frame(self.traced, stats);
        }
        self.traced += 1;
    }

    /// The trace so far, to write.
    pub fn take_trace(&mut self) -> Option<Trace> {
        self.trace.take()
    }

    /// Under RenderDoc: starts capturing the frame about to be recorded. False when RenderDoc
    /// is not attached.
    pub fn begin_capture(&self) -> bool {
        self.renderdoc
            .as_ref()
            .inspect(|rd| rd.start_frame())
            .is_some()
    }

    /// Ends the capture [`Session::begin_capture`] started: what happened, for the user.
    pub fn end_capture(&self, frame: u64) -> Option<String> {
        let rd = self.renderdoc.as_ref()?;
        let written = rd.end_frame();
        Some(format!(
            "RenderDoc: frame {frame} {} ({} captures)",
            if written { "captured" } else { "not captured" },
            rd.captures()
        ))
    }

    /// The last frame, read back.
    pub fn read_color(&self, gpu: &Gpu) -> image::RgbaImage {
        self.renderer.read_color(gpu)
    }
}
