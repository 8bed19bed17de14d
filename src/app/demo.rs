//! The demo window: the offscreen frame blitted to the surface, egui on top, fly camera.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::event::{DeviceEvent, ElementState, MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{CursorGrabMode, Window, WindowId};

use super::fly::{self, FlyKeys};
use crate::geom::{Camera, CameraSpec};
use crate::level::Level;
use crate::render::frame::FrameSettings;
use crate::render::present::PresentPass;
use crate::render::{FrameStats, Gpu, GpuOptions, Renderer, TerrainOverlay};
use crate::vis::{CullMode, Culler, VisibleSet};

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
}

struct Running {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    gpu: Gpu,
    renderer: Renderer,
    present: PresentPass,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
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
    frame_ms: f32,
    stats: FrameStats,
    settings: FrameSettings,
    show_panel: bool,
    culler: Culler,
    visible: VisibleSet,
    /// Fly speed multiplier: terrain maps are far larger than levels (sample spacing / 8).
    fly_scale: f32,
    /// The path being recorded (R toggles), and what the last recording became.
    recording: Option<super::path::PathRecorder>,
    path_status: String,
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
    let settings = opts.settings;
    let culler = Culler::new(&opts.level, opts.cull);
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
        frame_ms: 0.0,
        stats: FrameStats::default(),
        settings,
        show_panel: true,
        culler,
        visible: VisibleSet::default(),
        fly_scale,
        recording: None,
        path_status: "R records a camera path".into(),
    };
    event_loop.run_app(&mut demo)?;
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
        let mut renderer = Renderer::new(&gpu, &self.opts.level, (config.width, config.height));
        if let Some(t) = self.opts.terrain.take() {
            renderer.set_terrain(&gpu, t);
        }
        let mut present = PresentPass::create(&gpu, format);
        present.prepare(&gpu, &renderer.target.color_view);
        let ctx = egui::Context::default();
        let egui_state =
            egui_winit::State::new(ctx, egui::ViewportId::ROOT, &window, None, None, None);
        let egui_renderer = egui_wgpu::Renderer::new(&gpu.device, format, Default::default());
        log::info!("demo on {}", gpu.describe());
        Ok(Running {
            window,
            surface,
            config,
            gpu,
            renderer,
            present,
            egui_state,
            egui_renderer,
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
        r.renderer.resize(&r.gpu, (width, height));
        r.present.prepare(&r.gpu, &r.renderer.target.color_view);
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
        self.fly_camera();
        let Some(r) = &mut self.running else { return };
        let Some(frame) = r.acquire_frame() else {
            return;
        };
        let view = frame.texture.create_view(&Default::default());
        let aspect = r.config.width as f32 / r.config.height as f32;
        let camera = Camera::new(self.camera, aspect);
        self.culler
            .cull(&self.opts.level, &camera, &mut self.visible);
        let visible = &self.visible;
        self.settings.time = self.start.elapsed().as_secs_f32();
        self.settings.surface_tests = super::surface_tests(self.culler.mode);
        let mut stats = FrameStats::default();
        let mut enc = r.gpu.device.create_command_encoder(&Default::default());
        r.renderer.encode(
            &r.gpu,
            &mut enc,
            &camera,
            visible,
            &self.settings,
            &mut stats,
        );

        // egui
        let raw = r.egui_state.take_egui_input(&r.window);
        let status = PanelStatus {
            frame_ms: self.frame_ms,
            adapter: r.gpu.describe(),
            prev: &self.stats,
            camera: self.camera,
            cells_visible: visible.cells.len(),
            cells_total: self.opts.level.cells.len(),
            has_pvs: self.opts.level.pvs.is_some(),
            has_terrain: r.renderer.terrain.is_some(),
            can_wire: r.gpu.features.polygon_mode_line,
            path_status: self.path_status.clone(),
        };
        let show = self.show_panel;
        let settings = &mut self.settings;
        let culler = &mut self.culler;
        let out = r.egui_state.egui_ctx().run_pass(raw, |ctx| {
            if show {
                status.show(ctx, settings, culler);
            }
        });
        let extra = r.encode_present_and_egui(&mut enc, &view, out);
        r.gpu.queue.submit(extra.into_iter().chain([enc.finish()]));
        if let Some(timer) = r.renderer.timer() {
            stats.gpu_ms = timer.read(&r.gpu);
        }
        r.window.pre_present_notify();
        r.gpu.queue.present(frame);
        self.stats = stats;
        self.frames += 1;
        if self.opts.frames.is_some_and(|n| self.frames >= n) {
            self.save_screenshot();
            el.exit();
        }
    }

    /// Advances the frame clock and flies the camera by this frame's keys and mouse motion.
    /// Starts recording the camera's path, or stops and writes it to `path-<unix time>.json`
    /// in the current folder (replay it with `bench --path`).
    fn toggle_recording(&mut self) {
        let Some(rec) = self.recording.take() else {
            self.recording = Some(super::path::PathRecorder::default());
            self.path_status = "recording a path (R stops)".into();
            return;
        };
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let name = std::path::PathBuf::from(format!("path-{secs}.json"));
        let path = rec.path(8.0);
        self.path_status = match path.save(&name) {
            Ok(()) => format!("wrote {} ({} keys)", name.display(), path.keys.len()),
            Err(e) => format!("could not write the path: {e:#}"),
        };
    }

    fn fly_camera(&mut self) {
        let now = Instant::now();
        let dt = (now - self.last).as_secs_f32().min(0.1);
        self.frame_ms = self.frame_ms * 0.9 + dt * 1000.0 * 0.1;
        self.last = now;
        fly::update(
            &mut self.camera,
            &self.keys,
            self.mouse,
            dt * self.fly_scale,
        );
        self.mouse = (0.0, 0.0);
        if let Some(rec) = &mut self.recording {
            rec.observe(self.camera, 8.0);
        }
    }

    /// `--screenshot`: the last frame to a PNG.
    fn save_screenshot(&mut self) {
        let (Some(r), Some(path)) = (&self.running, &self.opts.screenshot) else {
            return;
        };
        let img = r.renderer.read_color(&r.gpu);
        if let Err(e) = super::capture::save_png(&img, path) {
            self.error = Some(e);
        } else {
            println!("saved {}", path.display());
        }
    }
}

/// What the panel shows of the last frame.
struct PanelStatus<'a> {
    frame_ms: f32,
    adapter: String,
    prev: &'a FrameStats,
    camera: CameraSpec,
    cells_visible: usize,
    cells_total: usize,
    has_pvs: bool,
    has_terrain: bool,
    can_wire: bool,
    path_status: String,
}

impl PanelStatus<'_> {
    /// The "Lanthorn" panel: frame and culling counters, culling mode and frame settings.
    fn show(&self, ctx: &egui::Context, settings: &mut FrameSettings, culler: &mut Culler) {
        let (frame_ms, prev, cam) = (self.frame_ms, self.prev, self.camera);
        egui::Window::new("Lanthorn")
            .default_pos([8.0, 8.0])
            .show(ctx, |ui| {
                ui.label(format!(
                    "{:.1} fps, {:.2} ms",
                    1000.0 / frame_ms.max(0.001),
                    frame_ms
                ));
                ui.label(format!("adapter: {}", self.adapter));
                ui.label(format!(
                    "world: {} draw calls, {} sub-draws, {} triangles",
                    prev.world.draw_calls, prev.world.sub_draws, prev.world.triangles
                ));
                for (name, ms) in &prev.gpu_ms {
                    ui.label(format!("GPU {name}: {ms:.2} ms"));
                }
                ui.label(format!(
                    "camera {:.0},{:.0},{:.0},{:.0},{:.0}",
                    cam.position.x, cam.position.y, cam.position.z, cam.yaw, cam.pitch
                ));
                ui.label(&self.path_status);
                ui.label(format!(
                    "cells {} / {} visible, culling {:.1} µs, eye cell {:?}",
                    self.cells_visible,
                    self.cells_total,
                    culler.micros,
                    culler.tracker.cell()
                ));
                ui.horizontal(|ui| {
                    ui.label("cull:");
                    for mode in [
                        CullMode::Portal,
                        CullMode::Pvs,
                        CullMode::PvsCells,
                        CullMode::Frustum,
                        CullMode::None,
                    ] {
                        if matches!(mode, CullMode::Pvs | CullMode::PvsCells) && !self.has_pvs {
                            continue;
                        }
                        ui.radio_value(&mut culler.mode, mode, mode.name());
                    }
                });
                ui.checkbox(&mut settings.fullbright, "fullbright");
                ui.checkbox(&mut settings.linear_filtering, "linear texture filtering");
                if self.has_terrain {
                    self.terrain_section(ui, &mut settings.terrain);
                }
                ui.label(
                    "WASD move, Shift fast, Space/C up/down, right mouse look, F1 panel, Esc quit",
                );
            });
    }

    /// The terrain's counters and debug overlays.
    fn terrain_section(&self, ui: &mut egui::Ui, o: &mut TerrainOverlay) {
        let t = &self.prev.terrain;
        ui.label(format!(
            "terrain: {} draw calls, {} triangles, levels {}..{}, select {:.0} µs, {} B uploaded",
            t.draw_calls,
            t.triangles,
            t.first_level,
            t.first_level + t.levels_drawn,
            t.select_us,
            t.upload_bytes
        ));
        ui.horizontal(|ui| {
            ui.checkbox(&mut o.level_colors, "level colours");
            ui.add_enabled(
                self.can_wire,
                egui::Checkbox::new(&mut o.wireframe, "wireframe"),
            );
            ui.checkbox(&mut o.tile_bounds, "tile bounds");
            ui.checkbox(&mut o.culled_tiles, "culled tiles");
            ui.checkbox(&mut o.freeze_culling, "freeze culling");
        });
    }
}

impl Running {
    /// A lost surface: make a new one for the same window and configure it.
    fn recreate_surface(&mut self) {
        match self.gpu.instance.create_surface(self.window.clone()) {
            Ok(s) => {
                self.surface = s;
                self.surface.configure(&self.gpu.device, &self.config);
            }
            Err(e) => log::error!("surface lost and not recreated: {e}"),
        }
    }

    /// This frame's surface texture; `None` (after reconfiguring or recreating the surface
    /// where that helps) when there is none to draw into.
    fn acquire_frame(&mut self) -> Option<wgpu::SurfaceTexture> {
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f)
            | wgpu::CurrentSurfaceTexture::Suboptimal(f) => Some(f),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => None,
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.surface.configure(&self.gpu.device, &self.config);
                None
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.recreate_surface();
                None
            }
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// Uploads egui's output and records the blit of the frame with egui on top into `view`.
    /// Returns egui's own command buffers, to submit before `enc`.
    fn encode_present_and_egui(
        &mut self,
        enc: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        out: egui::FullOutput,
    ) -> Vec<wgpu::CommandBuffer> {
        self.egui_state
            .handle_platform_output(&self.window, out.platform_output);
        let ppp = out.pixels_per_point;
        let jobs = self.egui_state.egui_ctx().tessellate(out.shapes, ppp);
        for (id, deltas) in &out.textures_delta.set {
            for delta in deltas {
                self.egui_renderer
                    .update_texture(&self.gpu.device, &self.gpu.queue, *id, delta);
            }
        }
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: ppp,
        };
        let extra = self.egui_renderer.update_buffers(
            &self.gpu.device,
            &self.gpu.queue,
            enc,
            &jobs,
            &screen,
        );
        {
            let mut pass = enc
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("present + egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                })
                .forget_lifetime();
            self.present.record(&mut pass);
            self.egui_renderer.render(&mut pass, &jobs, &screen);
        }
        for id in &out.textures_delta.free {
            self.egui_renderer.free_texture(id);
        }
        extra
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
                let down = event.state == ElementState::Pressed;
                if let PhysicalKey::Code(code) = event.physical_key {
                    match code {
                        KeyCode::KeyW | KeyCode::ArrowUp => self.keys.forward = down,
                        KeyCode::KeyS | KeyCode::ArrowDown => self.keys.back = down,
                        KeyCode::KeyA | KeyCode::ArrowLeft => self.keys.left = down,
                        KeyCode::KeyD | KeyCode::ArrowRight => self.keys.right = down,
                        KeyCode::Space => self.keys.up = down,
                        KeyCode::KeyC => self.keys.down = down,
                        KeyCode::ShiftLeft | KeyCode::ShiftRight => self.keys.fast = down,
                        KeyCode::F1 if down => self.show_panel = !self.show_panel,
                        KeyCode::KeyR if down && !event.repeat => self.toggle_recording(),
                        KeyCode::Escape if down => el.exit(),
                        _ => {}
                    }
                }
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
