//! Lanthorn's renderer in an application's own window, on the application's own wgpu device.
//!
//! The application makes the winit window, the wgpu instance, surface, adapter and device; it
//! hands Lanthorn the device (`Gpu::from_parts`), loads a level (`lanthorn_load`), culls it
//! every frame (`lanthorn_vis`) and has the renderer draw into its offscreen frame, which a
//! blit (`PresentPass`) puts on the application's surface.
//!
//! ```sh
//! cargo run --release --example embed                 # the built-in yard
//! cargo run --release --example embed -- e1m1.bsp     # any level Lanthorn loads
//! cargo run --release --example embed -- e1m1.bsp --frames 120   # closes after 120 frames
//! ```

use std::sync::Arc;

use lanthorn_geom::{Camera, CameraSpec};
use lanthorn_level::Level;
use lanthorn_render::frame::{Frame, FrameStats, Renderer};
use lanthorn_render::gpu::Gpu;
use lanthorn_render::present::PresentPass;
use lanthorn_render::settings::FrameSettings;
use lanthorn_vis::{CullMode, Culler, VisibleSet};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frames = args
        .iter()
        .position(|a| a == "--frames")
        .and_then(|i| args.get(i + 1))
        .map(|n| n.parse::<u64>())
        .transpose()?;
    let level = match args.first().filter(|a| !a.starts_with("--")) {
        Some(path) => lanthorn_load::load(std::path::Path::new(path))?,
        None => lanthorn_compile::scenes::builtin::load()?,
    };
    let mut app = App {
        level,
        frames,
        running: None,
        error: None,
    };
    EventLoop::new()?.run_app(&mut app)?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The application: a level, and once the window exists, everything that draws it.
struct App {
    level: Level,
    /// Close after this many frames (for a smoke run).
    frames: Option<u64>,
    running: Option<Running>,
    error: Option<Box<dyn std::error::Error>>,
}

/// The window, the application's device wrapped for Lanthorn, and Lanthorn's parts.
struct Running {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    gpu: Gpu,
    renderer: Renderer,
    present: PresentPass,
    culler: Culler,
    visible: VisibleSet,
    start: std::time::Instant,
    /// Where the camera stands: the level's player start, else its middle.
    eye: CameraSpec,
    drawn: u64,
}

impl App {
    fn start(&self, el: &ActiveEventLoop) -> Result<Running, Box<dyn std::error::Error>> {
        let attrs = Window::default_attributes().with_title("Lanthorn embedded");
        let window = Arc::new(el.create_window(attrs)?);
        // The application's own instance, surface, adapter and device.
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle(
            Box::new(el.owned_display_handle()),
        ));
        let surface = instance.create_surface(window.clone())?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        }))?;
        let (required_features, required_limits) = Gpu::wanted(&adapter);
        let (device, queue) =
            pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("embedding application"),
                required_features,
                required_limits,
                ..Default::default()
            }))?;
        let size = window.inner_size();
        let config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or("the adapter cannot present to this window")?;
        surface.configure(&device, &config);
        // From here on Lanthorn draws with the application's device.
        let gpu = Gpu::from_parts(instance, adapter, device, queue);
        let renderer = Renderer::new(&gpu, &self.level, (config.width, config.height));
        let mut present = PresentPass::create(&gpu, config.format);
        present.prepare(&gpu, &renderer.target.color_view);
        Ok(Running {
            window,
            surface,
            config,
            culler: Culler::new(&self.level, CullMode::Portal),
            visible: VisibleSet::default(),
            gpu,
            renderer,
            present,
            start: std::time::Instant::now(),
            eye: self.level.player_start().unwrap_or(CameraSpec {
                position: self.level.bounds().center(),
                yaw: 0.0,
                pitch: 0.0,
            }),
            drawn: 0,
        })
    }
}

impl Running {
    /// One frame: the camera turning slowly at the level's start, culled by the portal flow,
    /// drawn by Lanthorn, blitted to the window.
    fn draw(&mut self, level: &Level) {
        let t = self.start.elapsed().as_secs_f32();
        let spec = CameraSpec {
            yaw: self.eye.yaw + 20.0 * t,
            ..self.eye
        };
        let aspect = self.config.width as f32 / self.config.height as f32;
        let camera = Camera::new(spec, aspect);
        self.culler.cull(level, &camera, &mut self.visible);
        let surface_texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f)
            | wgpu::CurrentSurfaceTexture::Suboptimal(f) => f,
            // A surface gone stale (resized, minimized): configured again, drawn next time.
            _ => return self.surface.configure(&self.gpu.device, &self.config),
        };
        let view = surface_texture.texture.create_view(&Default::default());
        let gpu = &self.gpu;
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        let settings = FrameSettings {
            time: t,
            ..Default::default()
        };
        let mut stats = FrameStats::default();
        let frame = Frame::new(&camera, &self.visible, &settings);
        self.renderer.encode(gpu, &mut enc, &frame, &mut stats);
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("application's blit"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
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
            });
            self.present.record(&mut pass);
        }
        gpu.queue.submit([enc.finish()]);
        gpu.queue.present(surface_texture);
        self.drawn += 1;
    }

    fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return;
        }
        (self.config.width, self.config.height) = (width, height);
        self.surface.configure(&self.gpu.device, &self.config);
        self.renderer.resize(&self.gpu, (width, height));
        self.present
            .prepare(&self.gpu, &self.renderer.target.color_view);
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.running.is_none() {
            match self.start(el) {
                Ok(r) => self.running = Some(r),
                Err(e) => {
                    self.error = Some(e);
                    el.exit();
                }
            }
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(r) = &mut self.running else { return };
        match event {
            WindowEvent::CloseRequested => el.exit(),
            WindowEvent::Resized(size) => r.resize(size.width, size.height),
            WindowEvent::RedrawRequested => {
                r.draw(&self.level);
                if self.frames.is_some_and(|n| r.drawn >= n) {
                    el.exit();
                }
                r.window.request_redraw();
            }
            _ => {}
        }
    }
}
