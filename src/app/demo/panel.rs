//! The demo's panel: culling counters, settings, the overlay window and its legends (egui).

use super::*;
use crate::render::settings::{SkyMode, TerrainLighting, TimeOfDay};

/// What the panel shows that the demo keeps between frames (the session keeps the rest).
#[derive(Default)]
pub(super) struct Shown {
    /// The real frame time, smoothed (the camera's step is clamped, this is not).
    pub(super) frame_ms: f32,
    /// The last frame's stats.
    pub(super) last: FrameStats,
    /// What the last path recording became.
    pub(super) path: String,
    /// What the last screenshot or RenderDoc capture became.
    pub(super) screenshot: String,
    /// Seconds from the program's start to the first presented frame.
    pub(super) first_frame: Option<f64>,
    /// Where the camera stands on the level's leak (empty: no leak).
    pub(super) leak: String,
    /// `--watch`: what the last reload did.
    pub(super) watch: String,
    /// The level's switchable light styles (`level::styles::switchable`), found once a level.
    pub(super) switchable: Vec<(u8, String, bool)>,
}

/// What the panel shows of the last frame.
pub(super) struct PanelStatus<'a> {
    pub(super) frame_ms: f32,
    pub(super) adapter: String,
    pub(super) prev: &'a FrameStats,
    pub(super) camera: CameraSpec,
    pub(super) cells_visible: usize,
    pub(super) cells_total: usize,
    pub(super) has_pvs: bool,
    pub(super) has_terrain: bool,
    pub(super) can_wire: bool,
    pub(super) path_status: String,
    pub(super) screenshot_status: String,
    pub(super) leak: &'a str,
    pub(super) watch: &'a str,
    pub(super) switchable: &'a [(u8, String, bool)],
    /// Views drawn: the camera and the mirrors and teleporters seen.
    pub(super) views: usize,
    /// The overdraw overlay's count (fragments per covered pixel), when it is on.
    pub(super) overdraw: Option<f64>,
    pub(super) surface_culling_us: f64,
    /// Seconds from the program's start to the first presented frame.
    pub(super) first_frame: Option<f64>,
}

impl<'a> PanelStatus<'a> {
    pub(super) fn new(shown: &'a Shown, camera: CameraSpec, r: &Running) -> PanelStatus<'a> {
        let or = |s: &str, default: &str| {
            if s.is_empty() {
                default.to_string()
            } else {
                s.to_string()
            }
        };
        let session = &r.session;
        PanelStatus {
            frame_ms: shown.frame_ms,
            adapter: r.gpu.describe(),
            prev: &shown.last,
            camera,
            cells_visible: session.visible.cells.len(),
            cells_total: session.level.cells.len(),
            has_pvs: session.level.pvs.is_some(),
            has_terrain: session.renderer.terrain.is_some(),
            can_wire: r.gpu.features.polygon_mode_line,
            path_status: or(&shown.path, "P records a camera path"),
            leak: &shown.leak,
            watch: &shown.watch,
            switchable: &shown.switchable,
            screenshot_status: or(&shown.screenshot, "F12 saves the frame"),
            views: session.visible.views.len() + 1,
            overdraw: session.renderer.overlay_overdraw(),
            surface_culling_us: session.renderer.world.surface_culling_us,
            first_frame: shown.first_frame,
        }
    }

    /// The "Lanthorn" panel: frame and culling counters, culling mode and frame settings.
    /// Returns where the panel lies (points).
    pub(super) fn show(
        &self,
        ctx: &egui::Context,
        settings: &mut FrameSettings,
        culler: &mut Culler,
    ) -> Option<egui::Rect> {
        let (frame_ms, cam) = (self.frame_ms, self.camera);
        egui::Window::new("Lanthorn")
            .default_pos([8.0, 8.0])
            .show(ctx, |ui| {
                ui.label(format!(
                    "{:.1} fps, {:.2} ms a frame",
                    1000.0 / frame_ms.max(0.001),
                    frame_ms
                ));
                ui.label(format!("adapter: {}", self.adapter));
                self.counters(ui, culler);
                ui.label(format!(
                    "camera {:.0},{:.0},{:.0},{:.0},{:.0}",
                    cam.position.x, cam.position.y, cam.position.z, cam.yaw, cam.pitch
                ));
                ui.label(&self.path_status);
                for line in [self.leak, self.watch] {
                    if !line.is_empty() {
                        ui.label(line);
                    }
                }
                ui.label(&self.screenshot_status);
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
                ui.checkbox(&mut settings.bloom, "bloom");
                ui.checkbox(&mut settings.hdr, "HDR (tone-mapped)");
                if settings.hdr {
                    ui.add(
                        egui::Slider::new(&mut settings.exposure, -4.0..=4.0)
                            .text("exposure (stops)"),
                    );
                }
                outdoor_section(ui, settings);
                ui.checkbox(&mut settings.ui_cover, "skip the pixels under the panels");
                let mut animated = settings.light_styles == StyleMode::Animated;
                if ui
                    .checkbox(&mut animated, "animated light styles")
                    .changed()
                {
                    settings.light_styles = if animated {
                        StyleMode::Animated
                    } else {
                        StyleMode::Normal
                    };
                }
                self.switch_section(ui, &mut settings.switched);
                if self.has_terrain {
                    self.terrain_section(ui, &mut settings.terrain);
                }
                egui::CollapsingHeader::new("keys").show(ui, |ui| {
                    for line in crate::app::keys::help_lines() {
                        ui.label(line);
                    }
                });
            })
            .map(|r| r.response.rect)
    }

    /// What the last frame cost and sent, stage by stage.
    pub(super) fn counters(&self, ui: &mut egui::Ui, culler: &Culler) {
        let (prev, flow) = (self.prev, &culler.flow.stats);
        let w = &prev.world;
        ui.label(format!(
            "world: {} draw commands, {} sub-draws, {} triangles, {} surfaces, {} views",
            w.draw_calls, w.sub_draws, w.triangles, w.surfaces, self.views
        ));
        if culler.mode == CullMode::Portal {
            ui.label(format!(
                "portals: {} tested, {} passed, {} covered by liquids",
                flow.portals_tested, flow.portals_passed, flow.portals_covered
            ));
        }
        if let Some(o) = self.overdraw {
            ui.label(format!("overdraw: {o:.2} fragments a covered pixel"));
        }
        let cpu: Vec<String> = prev
            .cpu_ms
            .iter()
            .map(|(name, ms)| format!("{name} {:.0}", ms * 1e3))
            .collect();
        let c = culler.stage_micros;
        ui.label(format!(
            "CPU µs: locate {:.0}, {} {:.0}, objects {:.0}, surface culling {:.0} (in world prepare); {}",
            c.locate,
            if culler.mode == CullMode::Portal { "flow" } else { "cells" },
            c.cells,
            c.objects,
            self.surface_culling_us,
            cpu.join(", ")
        ));
        for (name, ms) in &prev.gpu_ms {
            ui.label(format!("GPU {name}: {ms:.2} ms"));
        }
        if let Some(s) = self.first_frame {
            ui.label(format!("first frame {s:.2} s after the start"));
        }
    }

    /// The "overlays" window: a checkbox per overlay (keys 1–9) and the legends. Returns where
    /// it lies (points).
    pub(super) fn overlay_window(
        &self,
        ctx: &egui::Context,
        overlays: &mut Overlays,
        camera: CameraSpec,
    ) -> Option<egui::Rect> {
        egui::Window::new("overlays")
            .anchor(egui::Align2::RIGHT_TOP, [-8.0, 8.0])
            .show(ctx, |ui| {
                let names = crate::render::overlay::OVERLAY_NAMES;
                for (i, flag) in overlays.set.flags_mut().into_iter().enumerate() {
                    ui.checkbox(flag, format!("{} ({})", names[i], i + 1));
                }
                overlays.freeze(camera);
                let mut clipped = overlays.overdraw_clip != OctagonClip::Off;
                if ui
                    .checkbox(&mut clipped, "overdraw with octagon clipping (O)")
                    .changed()
                {
                    overlays.toggle_overdraw_octagons();
                }
                legends(ui, &overlays.set);
            })
            .map(|r| r.response.rect)
    }

    /// A checkbox per switchable light style, named by its lights' `targetname`: on or off,
    /// as a trigger in the game would switch it.
    fn switch_section(&self, ui: &mut egui::Ui, switched: &mut u32) {
        if self.switchable.is_empty() {
            return;
        }
        ui.label("switchable lights:");
        ui.horizontal_wrapped(|ui| {
            for (style, name, starts_off) in self.switchable {
                let bit = 1u32 << (style - crate::level::styles::FIRST_SWITCHABLE);
                let mut on = !starts_off ^ (*switched & bit != 0);
                if ui.checkbox(&mut on, format!("{name} ({style})")).changed() {
                    *switched ^= bit;
                }
            }
        });
    }

    /// The terrain's counters and debug overlays.
    pub(super) fn terrain_section(&self, ui: &mut egui::Ui, o: &mut TerrainOverlay) {
        let t = &self.prev.terrain;
        ui.label(format!(
            "terrain: {} draw calls, {} triangles, {} pieces culled ({} in the fog), levels {}..{}, select {:.0} µs, {} B uploaded",
            t.draw_calls,
            t.triangles,
            t.pieces_culled,
            t.pieces_fogged,
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

/// The legends of the overlays that are on.
pub(super) fn legends(ui: &mut egui::Ui, set: &crate::render::overlay::OverlaySet) {
    use crate::render::overlay::{heatmap::RAMP, tint_rgb, PortalColour};
    let swatch = |ui: &mut egui::Ui, rgb: [f32; 3], text: &str| {
        ui.horizontal(|ui| {
            let c = egui::Color32::from_rgb(
                (rgb[0] * 255.0) as u8,
                (rgb[1] * 255.0) as u8,
                (rgb[2] * 255.0) as u8,
            );
            let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
            ui.painter().rect_filled(rect, 2.0, c);
            ui.label(text);
        });
    };
    if set.portals {
        for (c, text) in [
            (PortalColour::Green, "passed"),
            (PortalColour::Yellow, "rejected, its cell seen another way"),
            (
                PortalColour::Red,
                "rejected (dashed: in a mirror or teleporter view)",
            ),
        ] {
            let [r, g, b, _] = c.rgba();
            swatch(
                ui,
                [r as f32 / 255.0, g as f32 / 255.0, b as f32 / 255.0],
                text,
            );
        }
    }
    if set.depth {
        for d in [0, 1, 2, 4, 7] {
            swatch(
                ui,
                tint_rgb(d, true),
                &format!("{d}{} portals from the eye", if d == 7 { "+" } else { "" }),
            );
        }
    } else if set.cells {
        ui.label("a colour per cell");
    }
    if set.overdraw {
        for (n, rgb) in RAMP.iter().enumerate() {
            let text = format!("{n}{} fragments", if n == 5 { "+" } else { "" });
            swatch(ui, *rgb, &text);
        }
    }
    if set.leak {
        let [r, g, b, _] = crate::render::overlay::lines::LEAK_RGBA;
        let rgb = [r as f32 / 255.0, g as f32 / 255.0, b as f32 / 255.0];
        swatch(ui, rgb, "the leak: from the entity (the cross) to the void");
    }
}

/// The outdoor frame's switches: the daylight sky, the lamps' point light map, night.
fn outdoor_section(ui: &mut egui::Ui, settings: &mut FrameSettings) {
    ui.checkbox(
        &mut settings.shadows,
        "sun shadows (cascades on the terrain)",
    );
    let mut scattering = settings.sky == SkyMode::Scattering;
    if ui.checkbox(&mut scattering, "scattering sky").changed() {
        settings.sky = if scattering {
            SkyMode::Scattering
        } else {
            SkyMode::Cubemap
        };
    }
    ui.checkbox(
        &mut settings.point_lights,
        "point lights (lamps on the terrain)",
    );
    ui.checkbox(
        &mut settings.reflections,
        "water reflections (the sea, the level's water)",
    );
    let mut per_pixel = settings.terrain_lighting == TerrainLighting::Pixel;
    if ui
        .checkbox(&mut per_pixel, "terrain lit per pixel")
        .changed()
    {
        settings.terrain_lighting = if per_pixel {
            TerrainLighting::Pixel
        } else {
            TerrainLighting::Vertex
        };
    }
    let mut night = settings.time_of_day == TimeOfDay::Night;
    if ui.checkbox(&mut night, "night").changed() {
        settings.time_of_day = if night {
            TimeOfDay::Night
        } else {
            TimeOfDay::Day
        };
    }
}
