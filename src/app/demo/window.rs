//! The window side of the demo: its surface, frames acquired and presented, egui drawn over.

use super::*;

impl Running {
    pub(super) fn aspect(&self) -> f32 {
        self.config.width as f32 / self.config.height as f32
    }

    /// Draws the panel (when shown) and the frame with egui into `view`, submits, and reads
    /// the GPU times. With a screenshot requested, returns the frame (with the panel: drawn a
    /// second time into a texture to read).
    pub(super) fn submit(
        &mut self,
        mut enc: wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        panel: Option<&PanelStatus<'_>>,
        screenshot: Option<bool>,
        stats: &mut FrameStats,
    ) -> Option<image::RgbaImage> {
        let raw = self.egui_state.take_egui_input(&self.window);
        let session = &mut self.session;
        let mut rects = Vec::new();
        let out = self.egui_state.egui_ctx().run_pass(raw, |ctx| {
            if let Some(status) = panel {
                rects.extend(status.show(ctx, &mut session.settings, &mut session.culler));
                rects.extend(status.overlay_window(ctx, &mut session.overlays, status.camera));
            }
        });
        self.note_panels(&rects);
        let with_panel = (screenshot == Some(true)).then(|| self.panel_target());
        let mut views = vec![view];
        if let Some((_, v)) = &with_panel {
            views.push(v);
        }
        self.encode_present_and_egui(&mut enc, &views, out);
        stats.submitted = Some(Instant::now());
        self.gpu.queue.submit([enc.finish()]);
        let img = screenshot.map(|_| match &with_panel {
            Some((texture, _)) => self.read_surface_texture(texture),
            None => self.session.read_color(&self.gpu),
        });
        self.session.renderer.read_timers(&self.gpu, stats);
        img
    }

    /// Keeps where the panels were drawn (pixels, inset by the windows' rounded corners) for
    /// the next frames' UI cover, and whether the pointer was busy (dragging, resizing,
    /// clicking: the panels may move or fold).
    fn note_panels(&mut self, rects: &[egui::Rect]) {
        let ctx = self.egui_state.egui_ctx();
        let ppp = ctx.pixels_per_point();
        let corner = ctx.global_style().visuals.window_corner_radius.ne as f32;
        let busy = ctx.egui_is_using_pointer() || ctx.input(|i| i.pointer.any_down());
        let pixels = rects
            .iter()
            .map(|r| r.shrink(corner))
            .map(|r| {
                [
                    r.min.x * ppp,
                    r.min.y * ppp,
                    r.width() * ppp,
                    r.height() * ppp,
                ]
            })
            .collect();
        let last = std::mem::take(&mut self.panels[1]);
        self.panels = [last, Panels { pixels, busy }];
    }

    /// The panels the next frame may skip under: each panel's overlap of where the last two
    /// egui passes drew it (a panel growing and shrinking with its text keeps that), and none
    /// while the pointer is busy (a dragged panel would leave a hole), the user turned it off
    /// or the frame is saved without the panel.
    pub(super) fn ui_cover(
        &self,
        screenshot: Option<bool>,
    ) -> Vec<crate::render::ui_cover::PixelRect> {
        let [a, b] = &self.panels;
        let off = !self.session.settings.ui_cover || screenshot == Some(false);
        if off || a.busy || b.busy || a.pixels.len() != b.pixels.len() {
            return Vec::new();
        }
        a.pixels
            .iter()
            .zip(&b.pixels)
            .filter_map(|(p, q)| overlap(*p, *q))
            .collect()
    }

    /// A texture like the window's surface, to draw the frame with the panel into and save.
    pub(super) fn panel_target(&self) -> (wgpu::Texture, wgpu::TextureView) {
        let texture = self.gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("frame with the panel"),
            size: wgpu::Extent3d {
                width: self.config.width,
                height: self.config.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: self.config.format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        (texture, view)
    }

    /// Reads a texture of the surface's format as RGBA.
    pub(super) fn read_surface_texture(&self, texture: &wgpu::Texture) -> image::RgbaImage {
        let mut bytes = crate::render::target::read_texture_bytes(&self.gpu, texture);
        if matches!(
            self.config.format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        ) {
            for px in bytes.chunks_exact_mut(4) {
                px.swap(0, 2);
            }
        }
        image::RgbaImage::from_raw(texture.width(), texture.height(), bytes)
            .unwrap_or_else(|| image::RgbaImage::new(1, 1))
    }

    /// A lost surface: make a new one for the same window and configure it.
    pub(super) fn recreate_surface(&mut self) {
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
    pub(super) fn acquire_frame(&mut self) -> Option<wgpu::SurfaceTexture> {
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

    /// Uploads egui's output and records the blit of the frame with the panels on top into
    /// each of `views`.
    pub(super) fn encode_present_and_egui(
        &mut self,
        enc: &mut wgpu::CommandEncoder,
        views: &[&wgpu::TextureView],
        out: egui::FullOutput,
    ) {
        self.egui_state
            .handle_platform_output(&self.window, out.platform_output);
        let ppp = out.pixels_per_point;
        let jobs = self.egui_state.egui_ctx().tessellate(out.shapes, ppp);
        self.ui_painter.set_textures(&self.gpu, &out.textures_delta);
        let size = (self.config.width, self.config.height);
        self.ui_painter.prepare(&self.gpu, &jobs, size, ppp);
        for view in views {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("present + ui"),
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
            });
            self.present.record(&mut pass);
            self.ui_painter.record(&mut pass);
        }
        self.ui_painter.free_textures(&out.textures_delta);
    }
}

/// Where the panels were drawn in one egui pass.
#[derive(Default)]
pub(super) struct Panels {
    /// x, y, width, height in pixels.
    pixels: Vec<crate::render::ui_cover::PixelRect>,
    /// The pointer was held or dragging.
    busy: bool,
}

/// The overlap of two pixel rectangles, if any.
fn overlap(a: [f32; 4], b: [f32; 4]) -> Option<[f32; 4]> {
    let (x0, y0) = (a[0].max(b[0]), a[1].max(b[1]));
    let (x1, y1) = (
        (a[0] + a[2]).min(b[0] + b[2]),
        (a[1] + a[3]).min(b[1] + b[3]),
    );
    (x1 > x0 && y1 > y0).then_some([x0, y0, x1 - x0, y1 - y0])
}
