//! One frame: the passes in order into the offscreen target, with CPU and GPU timings.

use std::time::Instant;

use super::gpu::Gpu;
use super::profiler::GpuTimer;
use super::target::{self, FrameTarget};
use super::terrain::{Terrain, TerrainOverlay, TerrainStats};
use super::world::{WorldPass, WorldStats};
use crate::geom::Camera;
use crate::level::Level;
use crate::vis::VisibleSet;

/// What one frame cost and submitted.
#[derive(Clone, Debug, Default)]
pub struct FrameStats {
    /// CPU milliseconds per stage, in order.
    pub cpu_ms: Vec<(&'static str, f64)>,
    /// GPU milliseconds per pass (empty without timestamp queries).
    pub gpu_ms: Vec<(&'static str, f64)>,
    pub world: WorldStats,
    /// The terrain pass (all zero without a terrain).
    pub terrain: TerrainStats,
}

/// Per-frame settings a user can toggle.
#[derive(Clone, Copy, Debug)]
pub struct FrameSettings {
    /// Seconds since start (sky scroll, liquid warp).
    pub time: f32,
    /// Lightmap scale: 2 is Quake's overbright.
    pub light_scale: f32,
    pub fullbright: bool,
    /// Linear texture magnification instead of Quake's nearest.
    pub linear_filtering: bool,
    /// Terrain debug overlays.
    pub terrain: TerrainOverlay,
}

impl Default for FrameSettings {
    fn default() -> Self {
        FrameSettings {
            time: 0.0,
            light_scale: 2.0,
            fullbright: false,
            linear_filtering: false,
            terrain: TerrainOverlay::default(),
        }
    }
}

pub struct Renderer {
    pub target: FrameTarget,
    pub world: WorldPass,
    timer: Option<GpuTimer>,
    pub clear_color: wgpu::Color,
    /// The clipmap terrain, drawn after the world into the same target (see `set_terrain`).
    pub terrain: Option<Terrain>,
    /// Per cell: open to the terrain (`cell_flags::OUTDOOR`). A level with cells shows the
    /// terrain only through its visible outdoor cells; a level without cells shows all of it.
    outdoor: Vec<bool>,
    any_outdoor: bool,
    /// Where the level places the terrain (`TerrainRef.origin`).
    terrain_origin: glam::Vec3,
    /// The level's sun (`_sunlight`, `_sun_mangle`): the terrain is lit from the same side.
    sun_direction: Option<glam::Vec3>,
}

impl Renderer {
    pub fn new(gpu: &Gpu, level: &Level, size: (u32, u32)) -> Renderer {
        Renderer {
            target: FrameTarget::create(gpu, size),
            world: WorldPass::create(gpu, level, target::COLOR_FORMAT),
            timer: GpuTimer::create(gpu),
            clear_color: wgpu::Color {
                r: 0.02,
                g: 0.02,
                b: 0.03,
                a: 1.0,
            },
            terrain: None,
            outdoor: level
                .cells
                .iter()
                .map(|c| c.flags & crate::level::cell_flags::OUTDOOR != 0)
                .collect(),
            any_outdoor: level
                .cells
                .iter()
                .any(|c| c.flags & crate::level::cell_flags::OUTDOOR != 0),
            terrain_origin: level.terrain.as_ref().map(|t| t.origin).unwrap_or_default(),
            sun_direction: crate::light::entities::level_lights(level)
                .sun
                .map(|s| s.direction),
        }
    }

    /// Adds (or replaces) the clipmap terrain drawn with the world.
    pub fn set_terrain(&mut self, gpu: &Gpu, clipmap: crate::terrain::ClipmapTerrain) {
        let mut terrain = Terrain::new(gpu, clipmap, target::COLOR_FORMAT);
        terrain.origin = self.terrain_origin;
        if self.world.skybox_active {
            terrain.pass.set_skybox(gpu, &self.world.skybox_view);
        }
        if let Some(d) = self.sun_direction {
            terrain.pass.shading.sun = -d;
        }
        self.terrain = Some(terrain);
    }

    /// The screen region the terrain shows through: the union of the octagons of the visible
    /// outdoor cells (camera view), the full screen for a level without cells or with the eye
    /// outside every cell of a level that has outdoor cells (flying over the terrain beyond
    /// them), `None` when no outdoor cell is visible.
    pub fn terrain_octagon(&self, visible: &VisibleSet) -> Option<crate::geom::Octagon> {
        if self.outdoor.is_empty() || (visible.eye_outside && self.any_outdoor) {
            return Some(crate::geom::Octagon::FULL);
        }
        let mut oct = crate::geom::Octagon::EMPTY;
        for c in visible.cells.iter().filter(|c| c.view == 0) {
            if self.outdoor.get(c.cell as usize).copied().unwrap_or(false) {
                oct = oct.union(&c.octagon);
            }
        }
        (!oct.is_empty()).then_some(oct)
    }

    pub fn resize(&mut self, gpu: &Gpu, size: (u32, u32)) {
        let size = (size.0.max(1), size.1.max(1));
        if size != self.target.size {
            self.target = FrameTarget::create(gpu, size);
        }
    }

    /// Prepares and records the world into the offscreen target. The caller may add passes
    /// (present, egui) to `enc` before submitting.
    pub fn encode(
        &mut self,
        gpu: &Gpu,
        enc: &mut wgpu::CommandEncoder,
        camera: &Camera,
        visible: &VisibleSet,
        settings: &FrameSettings,
        stats: &mut FrameStats,
    ) {
        let t = Instant::now();
        let params = [
            settings.time,
            settings.light_scale,
            if settings.fullbright { 1.0 } else { 0.0 },
            0.0,
        ];
        self.world.linear_filtering = settings.linear_filtering;
        self.world.prepare(gpu, camera, visible, params);
        stats
            .cpu_ms
            .push(("world prepare", t.elapsed().as_secs_f64() * 1e3));
        let t = Instant::now();
        if let Some(timer) = &mut self.timer {
            timer.begin_frame();
        }
        {
            let timestamp_writes = self.timer.as_mut().and_then(|t| t.pass("world"));
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("world"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.target.color_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(self.clear_color),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.target.depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            self.world.record(&mut pass);
        }
        let world_record_ms = t.elapsed().as_secs_f64() * 1e3;
        // ---- terrain (render::terrain): a second pass into the same colour + depth ----
        let terrain_octagon = self.terrain_octagon(visible);
        if let (Some(terrain), Some(octagon)) = (&mut self.terrain, terrain_octagon) {
            terrain.octagon = octagon;
            let t = Instant::now();
            stats.terrain = terrain.prepare(gpu, camera, &settings.terrain);
            stats
                .cpu_ms
                .push(("terrain prepare", t.elapsed().as_secs_f64() * 1e3));
            let timestamp_writes = self.timer.as_mut().and_then(|t| t.pass("terrain"));
            let keep = wgpu::Operations {
                load: wgpu::LoadOp::Load,
                store: wgpu::StoreOp::Store,
            };
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("terrain"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.target.color_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: keep,
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.target.depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            terrain.record(&mut pass);
        }
        // ---- end terrain ----
        if let Some(timer) = &self.timer {
            timer.resolve(enc);
        }
        stats.cpu_ms.push(("world record", world_record_ms));
        stats.world = self.world.stats;
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
        self.encode(gpu, &mut enc, camera, visible, settings, &mut stats);
        let t = Instant::now();
        gpu.queue.submit([enc.finish()]);
        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
        stats
            .cpu_ms
            .push(("submit + wait", t.elapsed().as_secs_f64() * 1e3));
        if let Some(timer) = &self.timer {
            stats.gpu_ms = timer.read(gpu);
        }
        stats
    }

    /// Reads back the last rendered frame.
    pub fn read_color(&self, gpu: &Gpu) -> image::RgbaImage {
        target::read_rgba(gpu, &self.target.color)
    }

    /// The GPU timer, to time extra passes recorded by the caller.
    pub fn timer(&self) -> Option<&GpuTimer> {
        self.timer.as_ref()
    }
}
