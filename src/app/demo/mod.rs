//! The demo window: the offscreen frame blitted to the surface, egui on top, fly camera.

mod panel;
mod reload;
mod tools;
mod window;

use self::panel::*;
use self::tools::*;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::event::{DeviceEvent, ElementState, MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{CursorGrabMode, Window, WindowId};

use super::fly::{self, FlyKeys};
use super::keys::{Action, ScriptedKey};
use super::overlays::Overlays;
use crate::geom::{Camera, CameraSpec};
use crate::level::styles::StyleMode;
use crate::level::Level;
use crate::render::present::PresentPass;
use crate::render::settings::FrameSettings;
use crate::render::world::OctagonClip;
use crate::render::{FrameStats, Gpu, GpuOptions, TerrainOverlay};
use crate::vis::{CullMode, Culler};

use super::session::Session;

pub struct DemoOptions {
    pub level: Level,
    pub level_name: String,
    /// `--terrain`: drawn with the level (alone with an empty level).
    pub terrain: Option<crate::terrain::ClipmapTerrain>,
    pub camera: CameraSpec,
    pub gpu: GpuOptions,
    /// Exit after this many frames.
    pub frames: Option<u64>,
    /// Save the last frame here.
    pub screenshot: Option<PathBuf>,
    pub size: (u32, u32),
    /// Self-test: resize to 0×0 and 1×1, minimize and restore, and lose the surface on
    /// purpose during the first frames (CI runs this under Xvfb).
    pub stress_surface: bool,
    pub cull: crate::vis::CullMode,
    pub settings: FrameSettings,
    /// The overlays on at start (`--overlay`, `--cull-camera`).
    pub overlays: Overlays,
    /// Where F12 saves frames (default: the current folder).
    pub screenshot_dir: Option<PathBuf>,
    /// `--input-script`: timed key presses, applied as if typed.
    pub input_script: Vec<ScriptedKey>,
    /// RenderDoc's API when the demo runs under it, and `--renderdoc-frame N`.
    pub renderdoc: Option<crate::render::renderdoc::RenderDoc>,
    pub renderdoc_frame: Option<u64>,
    /// Write a Chrome trace of the frames here on exit.
    pub trace: Option<PathBuf>,
    /// `--time`: the clock held there (light styles, sky, liquids) instead of running.
    pub fixed_time: Option<f32>,
    /// `--watch`: the level loaded again when its files change.
    pub watch: Option<super::watch::Watch>,
    /// `--exit-after-reloads N`: exit (saving `screenshot`) a few frames after the Nth reload.
    pub exit_after_reloads: Option<u64>,
}

struct Running {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    gpu: Gpu,
    session: Session<'static>,
    present: PresentPass,
    egui_state: egui_winit::State,
    ui_painter: crate::render::ui_paint::UiPainter,
    /// Where the last two egui passes drew the panels (`Running::ui_cover`).
    panels: [window::Panels; 2],
}

struct Demo {
    opts: DemoOptions,
    running: Option<Running>,
    error: Option<anyhow::Error>,
    camera: CameraSpec,
    keys: FlyKeys,
    mouse: (f32, f32),
    looking: bool,
    frames: u64,
    /// Redraw requests handled, presented or not (drives the stress self-test).
    ticks: u64,
    start: Instant,
    last: Instant,
    /// Camera speed factor (mouse wheel, + and −).
    speed: f32,
    /// F12 was pressed (true: Shift+F12, with the panel); saved after this frame.
    screenshot_request: Option<bool>,
    /// F11 (or `--renderdoc-frame`): RenderDoc captures the next frame.
    renderdoc_request: bool,
    /// What the panel shows besides the session's own counters.
    shown: Shown,
    show_panel: bool,
    /// Fly speed multiplier: terrain maps are far larger than levels (sample spacing / 8).
    fly_scale: f32,
    /// The path being recorded (P toggles).
    recording: Option<super::path::PathRecorder>,
    /// The level's leak, its line's corners and the one the camera last stepped to.
    leak: Option<(crate::level::LeakPath, Vec<glam::Vec3>, usize)>,
    /// Levels swapped in by `--watch`.
    reloads: u64,
    /// A level swapped in whose first frame is not presented yet.
    swapped_in: Option<reload::SwappedIn>,
}

/// Opens the window and runs until it is closed (or `--frames` is reached).
pub fn run(opts: DemoOptions) -> anyhow::Result<()> {
    let event_loop = EventLoop::new().map_err(|e| {
        anyhow::anyhow!(
            "cannot open a window: {e}. On a machine without a display run under Xvfb: \
             xvfb-run -a -s \"-screen 0 1280x720x24\" lanthorn demo (apt-get install -y xvfb)"
        )
    })?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let camera = opts.camera;
    let fly_scale = opts.terrain.as_ref().map_or(1.0, |t| {
        (t.heightmap.horizontal_scale as f32 / 8.0).max(1.0)
    });
    let mut demo = Demo {
        opts,
        running: None,
        error: None,
        camera,
        keys: FlyKeys::default(),
        mouse: (0.0, 0.0),
        looking: false,
        frames: 0,
        ticks: 0,
        start: Instant::now(),
        last: Instant::now(),
        speed: 1.0,
        screenshot_request: None,
        renderdoc_request: false,
        shown: Shown::default(),
        show_panel: true,
        fly_scale,
        recording: None,
        leak: None,
        reloads: 0,
        swapped_in: None,
    };
    demo.shown.switchable = crate::level::styles::switchable(&demo.opts.level.entities);
    demo.set_leak(demo.opts.level.leak.clone());
    event_loop.run_app(&mut demo)?;
    let trace = demo.running.as_mut().and_then(|r| r.session.take_trace());
    if let (Some(trace), Some(path)) = (trace, &demo.opts.trace) {
        trace.write(path)?;
    }
    match demo.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

impl Demo {
    fn init(&mut self, el: &ActiveEventLoop) -> anyhow::Result<Running> {
        let attrs = Window::default_attributes()
            .with_title(format!("Lanthorn — {}", self.opts.level_name))
            .with_inner_size(winit::dpi::PhysicalSize::new(
                self.opts.size.0,
                self.opts.size.1,
            ));
        let window = Arc::new(el.create_window(attrs)?);
        let instance = Gpu::window_instance(Box::new(el.owned_display_handle()));
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| crate::render::GpuError::Surface(e.to_string()))?;
        let gpu = Gpu::for_surface(instance, &surface, &self.opts.gpu)?;
        gpu.exit_on_device_loss();
        let size = window.inner_size();
        let caps = surface.get_capabilities(&gpu.adapter);
        // egui blends in gamma space and wants a linear-format surface; the blit encodes sRGB.
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| !f.is_srgb())
            .unwrap_or(caps.formats[0]);
        let mut config = surface
            .get_default_config(&gpu.adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| {
                crate::render::GpuError::Surface("the adapter cannot present to this window".into())
            })?;
        config.format = format;
        config.present_mode = wgpu::PresentMode::AutoVsync;
        surface.configure(&gpu.device, &config);
        let o = &mut self.opts;
        let size = (config.width, config.height);
        let level = std::mem::take(&mut o.level);
        let mut session = Session::new(&gpu, level, o.terrain.take(), size, o.cull)
            .with(o.settings, o.overlays)
            .traced(o.trace.is_some());
        session.renderdoc = o.renderdoc.take();
        let mut present = PresentPass::create(&gpu, format);
        present.prepare(&gpu, &session.renderer.target.color_view);
        let ctx = egui::Context::default();
        let egui_state =
            egui_winit::State::new(ctx, egui::ViewportId::ROOT, &window, None, None, None);
        let ui_painter = crate::render::ui_paint::UiPainter::new(&gpu, format);
        log::info!("demo on {}", gpu.describe());
        Ok(Running {
            window,
            surface,
            config,
            gpu,
            session,
            present,
            egui_state,
            ui_painter,
            panels: Default::default(),
        })
    }

    fn resize(&mut self, width: u32, height: u32) {
        let Some(r) = &mut self.running else { return };
        // A minimized window reports 0×0: keep the old configuration until it comes back.
        if width == 0 || height == 0 {
            return;
        }
        r.config.width = width;
        r.config.height = height;
        r.surface.configure(&r.gpu.device, &r.config);
        r.session.renderer.resize(&r.gpu, (width, height));
        r.present
            .prepare(&r.gpu, &r.session.renderer.target.color_view);
    }

    /// The surface-stress self-test: what minimizing, tiny windows and driver surface loss do.
    fn stress_step(&mut self) {
        let n = self.ticks;
        let Some(r) = &self.running else { return };
        let window = r.window.clone();
        match n {
            5 => self.resize(0, 0),
            10 => window.set_minimized(true),
            15 => window.set_minimized(false),
            20 => {
                let _ = window.request_inner_size(winit::dpi::PhysicalSize::new(1, 1));
            }
            25 => self.resize(1, 1),
            30 => {
                let _ = window.request_inner_size(winit::dpi::PhysicalSize::new(640, 360));
            }
            35 => {
                if let Some(r) = &mut self.running {
                    r.recreate_surface();
                }
            }
            40 => {
                let s = window.inner_size();
                self.resize(s.width, s.height);
            }
            _ => {}
        }
    }

    fn redraw(&mut self, el: &ActiveEventLoop) {
        self.ticks += 1;
        if self.opts.stress_surface {
            self.stress_step();
        }
        for (key, down) in super::keys::events_at(&self.opts.input_script, self.frames) {
            self.key(el, key, down, false);
        }
        self.renderdoc_request |= self.opts.renderdoc_frame == Some(self.frames);
        self.fly_camera();
        if let Some(s) = self.take_reload() {
            self.swapped_in = Some(s);
        }
        let time = self
            .opts
            .fixed_time
            .unwrap_or_else(|| self.start.elapsed().as_secs_f32());
        let Some(r) = &mut self.running else { return };
        let Some(frame) = r.acquire_frame() else {
            return;
        };
        let capturing = self.renderdoc_request && r.session.begin_capture();
        let view = frame.texture.create_view(&Default::default());
        let camera = Camera::new(self.camera, r.aspect());
        let mut stats = r.session.cull(&camera, time);
        let mut enc = r.gpu.device.create_command_encoder(&Default::default());
        let screenshot = self.screenshot_request.take();
        // `--screenshot` saves a frame without the panel: nothing is skipped under it.
        let saved = screenshot.or(self.opts.screenshot.as_ref().map(|_| false));
        let cover = r.ui_cover(saved);
        // GPU pass times cost a frame on a CPU driver: taken while the panel or a trace
        // shows them.
        r.session.renderer.gpu_timers = self.show_panel || self.opts.trace.is_some();
        r.session
            .encode(&r.gpu, &mut enc, (&camera, &cover), &mut stats);
        let status = PanelStatus::new(&self.shown, self.camera, r);
        let panel = self.show_panel.then_some(&status);
        let img = r.submit(enc, &view, panel, screenshot, &mut stats);
        r.session.record(&stats);
        r.window.pre_present_notify();
        r.gpu.queue.present(frame);
        if let (Some(img), Some(with_panel)) = (img, screenshot) {
            self.shown.screenshot =
                save_timestamped(&img, self.opts.screenshot_dir.as_deref(), with_panel);
        }
        self.shown.first_frame.get_or_insert_with(|| {
            let s = super::started().elapsed().as_secs_f64();
            log::info!("first frame presented {s:.3} s after the start");
            s
        });
        if let Some(message) = r.session.end_capture(self.frames).filter(|_| capturing) {
            self.renderdoc_request = false;
            println!("{message}");
            self.shown.screenshot = message;
        }
        self.shown.last = stats;
        if let Some(s) = self.swapped_in.take() {
            self.report_reload(s);
        }
        self.frames += 1;
        if self.opts.frames.is_some_and(|n| self.frames >= n) {
            self.save_screenshot();
            el.exit();
        }
    }

    /// Starts recording the camera's path, or stops and writes it to `path-<unix time>.json`
    /// in the current folder (replay it with `bench --path`).
    fn toggle_recording(&mut self) {
        let Some(rec) = self.recording.take() else {
            self.recording = Some(super::path::PathRecorder::default());
            self.shown.path = "recording a path (P stops)".into();
            return;
        };
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let name = std::path::PathBuf::from(format!("path-{secs}.json"));
        let path = rec.path(8.0);
        self.shown.path = match path.save(&name) {
            Ok(()) => format!("wrote {} ({} keys)", name.display(), path.keys.len()),
            Err(e) => format!("could not write the path: {e:#}"),
        };
    }

    /// Advances the frame clock and flies the camera by this frame's keys and mouse motion.
    fn fly_camera(&mut self) {
        let now = Instant::now();
        let real = (now - self.last).as_secs_f32();
        // The panel shows the real frame time; the camera's step is clamped so a slow frame
        // does not jump it.
        self.shown.frame_ms = self.shown.frame_ms * 0.9 + real * 1000.0 * 0.1;
        let dt = real.min(0.1);
        self.last = now;
        fly::update_turning(
            &mut self.camera,
            &self.keys,
            self.mouse,
            dt * self.fly_scale * self.speed,
            dt,
        );
        self.mouse = (0.0, 0.0);
        if let Some(rec) = &mut self.recording {
            rec.observe(self.camera, 8.0);
        }
    }

    /// A key going down or up (from the window or the input script), by the key map.
    fn key(&mut self, el: &ActiveEventLoop, code: KeyCode, down: bool, repeat: bool) {
        let Some(action) = super::keys::action(code) else {
            return;
        };
        let k = &mut self.keys;
        let held = match action {
            Action::Forward => &mut k.forward,
            Action::Back => &mut k.back,
            Action::Left => &mut k.left,
            Action::Right => &mut k.right,
            Action::Up => &mut k.up,
            Action::Down => &mut k.down,
            Action::Fast => &mut k.fast,
            Action::YawLeft => &mut k.yaw_left,
            Action::YawRight => &mut k.yaw_right,
            Action::PitchUp => &mut k.pitch_up,
            Action::PitchDown => &mut k.pitch_down,
            _ => {
                if down && !repeat {
                    self.press(el, action);
                }
                return;
            }
        };
        *held = down;
    }

    /// A key of the map that acts once per press.
    fn press(&mut self, el: &ActiveEventLoop, action: Action) {
        match action {
            Action::Faster => self.speed = (self.speed * 1.25).min(64.0),
            Action::Slower => self.speed = (self.speed / 1.25).max(1.0 / 64.0),
            Action::Overlay(i) => {
                if let Some(r) = &mut self.running {
                    let overlays = &mut r.session.overlays;
                    let on = !*overlays.set.flags_mut()[i];
                    *overlays.set.flags_mut()[i] = on;
                    overlays.freeze(self.camera);
                }
            }
            Action::OverdrawOctagons => {
                if let Some(r) = &mut self.running {
                    r.session.overlays.toggle_overdraw_octagons();
                }
            }
            Action::Panel => self.show_panel = !self.show_panel,
            Action::RecordPath => self.toggle_recording(),
            Action::Screenshot => self.screenshot_request = Some(self.keys.fast),
            Action::RenderDocCapture => {
                match self
                    .running
                    .as_ref()
                    .and_then(|r| r.session.renderdoc.as_ref())
                {
                    Some(_) => self.renderdoc_request = true,
                    None => self.shown.screenshot = crate::render::renderdoc::NOT_ATTACHED.into(),
                }
            }
            Action::LeakStep(d) => self.step_leak(d),
            Action::Quit => el.exit(),
            _ => {}
        }
    }

    /// The level's leak to walk, from its first corner (none: nothing to walk).
    fn set_leak(&mut self, leak: Option<crate::level::LeakPath>) {
        self.shown.leak.clear();
        self.leak = leak.map(|leak| {
            let corners = super::leak_walk::corners(&leak);
            self.shown.leak = super::leak_walk::describe(&leak, 0, corners.len());
            (leak, corners, 0)
        });
    }

    /// `[` / `]`: the camera to the next or previous corner of the leak line, looking along it.
    fn step_leak(&mut self, d: i32) {
        let Some((leak, corners, at)) = &mut self.leak else {
            return;
        };
        *at = super::leak_walk::step(corners.len(), *at, d);
        if let Some(camera) = super::leak_walk::camera_at(corners, *at) {
            self.camera = camera;
        }
        self.shown.leak = super::leak_walk::describe(leak, *at, corners.len());
    }

    /// `--screenshot`: the last frame to a PNG.
    fn save_screenshot(&mut self) {
        let (Some(r), Some(path)) = (&self.running, &self.opts.screenshot) else {
            return;
        };
        let img = r.session.read_color(&r.gpu);
        if let Err(e) = super::capture::save_png(&img, path) {
            self.error = Some(e);
        } else {
            let c = self.camera;
            println!(
                "saved {} (camera {},{},{},{},{})",
                path.display(),
                c.position.x,
                c.position.y,
                c.position.z,
                c.yaw,
                c.pitch
            );
        }
    }
}

impl ApplicationHandler for Demo {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        match self.init(el) {
            Ok(r) => self.running = Some(r),
            Err(e) => {
                self.error = Some(e);
                el.exit();
            }
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if let Some(r) = &mut self.running {
            let resp = r.egui_state.on_window_event(&r.window, &event);
            if resp.consumed
                && !matches!(
                    event,
                    WindowEvent::RedrawRequested | WindowEvent::Resized(_)
                )
            {
                return;
            }
        }
        match event {
            WindowEvent::CloseRequested => el.exit(),
            WindowEvent::Resized(size) => self.resize(size.width, size.height),
            WindowEvent::RedrawRequested => self.redraw(el),
            WindowEvent::KeyboardInput { event, .. } => {
                if let PhysicalKey::Code(code) = event.physical_key {
                    let down = event.state == ElementState::Pressed;
                    self.key(el, code, down, event.repeat);
                }
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let steps = match delta {
                    winit::event::MouseScrollDelta::LineDelta(_, y) => y,
                    winit::event::MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.speed = (self.speed * 1.25f32.powf(steps)).clamp(1.0 / 64.0, 64.0);
            }
            WindowEvent::MouseInput {
                button: MouseButton::Right,
                state,
                ..
            } => {
                self.looking = state == ElementState::Pressed;
                if let Some(r) = &self.running {
                    let mode = if self.looking {
                        CursorGrabMode::Confined
                    } else {
                        CursorGrabMode::None
                    };
                    let _ = r.window.set_cursor_grab(mode);
                    r.window.set_cursor_visible(!self.looking);
                }
            }
            _ => {}
        }
    }

    fn device_event(
        &mut self,
        _el: &ActiveEventLoop,
        _id: winit::event::DeviceId,
        event: DeviceEvent,
    ) {
        if let DeviceEvent::MouseMotion { delta } = event {
            if self.looking {
                self.mouse.0 += delta.0 as f32;
                self.mouse.1 += delta.1 as f32;
            }
        }
    }

    fn about_to_wait(&mut self, _el: &ActiveEventLoop) {
        if let Some(r) = &self.running {
            r.window.request_redraw();
        }
    }
}
