//! The demo panels' painter (`render::ui_paint`) against egui's own wgpu renderer (egui-wgpu,
//! without dithering): the same panels, text, check boxes and clipped scroll area drawn over
//! the same background, pixel for pixel.

use lanthorn::render::ui_paint::UiPainter;
use lanthorn::render::Gpu;

use crate::support::gpu;

const SIZE: (u32, u32) = (480, 320);

/// egui's output for a frame of panels (the second pass: the first builds the font atlas),
/// with the texture changes of both passes.
fn panels() -> (Vec<egui::ClippedPrimitive>, Vec<egui::TexturesDelta>) {
    let ctx = egui::Context::default();
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(SIZE.0 as f32, SIZE.1 as f32),
        )),
        ..Default::default()
    };
    let mut deltas = Vec::new();
    let mut last = None;
    for _ in 0..2 {
        let out = ctx.run_ui(input(), |ui| {
            let ctx = ui.ctx().clone();
            egui::Window::new("Lanthorn")
                .default_pos([8.0, 8.0])
                .show(&ctx, |ui| {
                    ui.label("30.0 fps, 33.33 ms a frame");
                    ui.checkbox(&mut true, "bloom");
                    ui.checkbox(&mut false, "sun shadows (cascades on the terrain)");
                    ui.separator();
                    egui::ScrollArea::vertical()
                        .max_height(60.0)
                        .show(ui, |ui| {
                            for i in 0..12 {
                                ui.label(format!("GPU pass {i}: {:.2} ms", i as f32 * 0.37));
                            }
                        });
                });
            egui::Window::new("overlays")
                .default_pos([300.0, 40.0])
                .show(&ctx, |ui| {
                    let _ = ui.radio(true, "portal");
                    ui.colored_label(egui::Color32::from_rgb(230, 120, 40), "leak (9)");
                });
        });
        deltas.push(out.textures_delta.clone());
        last = Some(ctx.tessellate(out.shapes, out.pixels_per_point));
    }
    (last.unwrap_or_default(), deltas)
}

/// A target of `format` cleared to a dusk blue, drawn into by `draw`, read back.
fn render(
    gpu: &Gpu,
    format: wgpu::TextureFormat,
    draw: impl FnOnce(&mut wgpu::RenderPass<'static>),
) -> image::RgbaImage {
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("ui test"),
        size: wgpu::Extent3d {
            width: SIZE.0,
            height: SIZE.1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("ui test"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: 0.2,
                            g: 0.3,
                            b: 0.45,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            })
            .forget_lifetime();
        draw(&mut pass);
    }
    gpu.queue.submit([enc.finish()]);
    lanthorn::render::target::read_rgba(gpu, &texture)
}

/// On a linear-format target (the demo's surface: blending in gamma space) and on an sRGB one.
#[test]
fn the_ui_painter_draws_what_egui_wgpu_draws() {
    let Some(gpu) = gpu() else { return };
    let (primitives, deltas) = panels();
    for format in [
        wgpu::TextureFormat::Rgba8Unorm,
        wgpu::TextureFormat::Rgba8UnormSrgb,
    ] {
        let expected = reference(gpu, format, &primitives, &deltas);
        let mut painter = UiPainter::new(gpu, format);
        for delta in &deltas {
            painter.set_textures(gpu, delta);
        }
        painter.prepare(gpu, &primitives, SIZE, 1.0);
        let got = render(gpu, format, |pass| painter.record(pass));
        let background = expected.get_pixel(SIZE.0 - 1, SIZE.1 - 1).0;
        let (mut painted, mut differ, mut worst) = (0usize, 0usize, 0u8);
        for (a, b) in expected.pixels().zip(got.pixels()) {
            painted += (a.0 != background) as usize;
            let d = (0..4).map(|k| a[k].abs_diff(b[k])).max().unwrap_or(0);
            differ += (d > 0) as usize;
            worst = worst.max(d);
        }
        eprintln!(
            "{format:?}: ui painter vs egui-wgpu: {painted} pixels painted, {differ} differ, worst {worst}"
        );
        assert!(painted > 20_000, "only {painted} pixels of panels");
        assert!(
            worst <= 1 && differ * 1000 <= painted,
            "{format:?}: {differ} pixels differ, worst {worst}"
        );
    }
}

/// The same panels drawn by egui-wgpu (no dithering) onto a target of `format`.
fn reference(
    gpu: &Gpu,
    format: wgpu::TextureFormat,
    primitives: &[egui::ClippedPrimitive],
    deltas: &[egui::TexturesDelta],
) -> image::RgbaImage {
    let screen = egui_wgpu::ScreenDescriptor {
        size_in_pixels: [SIZE.0, SIZE.1],
        pixels_per_point: 1.0,
    };
    let options = egui_wgpu::RendererOptions {
        dithering: false,
        ..Default::default()
    };
    let mut renderer = egui_wgpu::Renderer::new(&gpu.device, format, options);
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    for delta in deltas {
        for (id, images) in &delta.set {
            for image in images {
                renderer.update_texture(&gpu.device, &gpu.queue, *id, image);
            }
        }
    }
    let extra = renderer.update_buffers(&gpu.device, &gpu.queue, &mut enc, primitives, &screen);
    gpu.queue.submit(extra.into_iter().chain([enc.finish()]));
    render(gpu, format, |pass| {
        renderer.render(pass, primitives, &screen)
    })
}
