//! The terrain pass: the geometry-clipmap rings of [`lanthorn_terrain::ClipmapTerrain`] drawn with
//! one static mesh per kind (tile, filler, trim, seam, centre cross), instanced: at most five mesh
//! draws plus the sky, whatever the level count.
//!
//! - `create`: the meshes go up once into one vertex and one index buffer; the per-level height
//!   windows live in one R32Float 2D texture array (one `window_size`² layer per level, addressed
//!   toroidally by the vertex shader).
//! - `prepare` (per frame): the 48-byte [`TerrainFrame`](lanthorn_terrain::TerrainFrame), the
//!   instance records of the selection, the view/shading uniform, and the height updates —
//!   `queue.write_texture` per [`UpdateRect`](lanthorn_terrain::UpdateRect), i.e. only the rows and
//!   columns that entered a window.
//! - `record`: one instanced `draw_indexed` per non-empty mesh kind (the seam with no culling),
//!   the optional wireframe overlay, the sky (a full-screen triangle at the far depth) and the
//!   optional debug boxes.
//!
//! Positions are camera-relative: the vertex shader works relative to the selection camera
//! (`TerrainFrame::camera_offset`), multiplies by `projection × view_rotation` and never sees a
//! large world coordinate, so a planet-sized heightmap keeps its precision; depth is reverse-Z.
//!
//! [`Terrain`] ties a [`ClipmapTerrain`] (selection, streaming) to its [`TerrainDraw`]; the
//! [`super::Renderer`] owns one when a terrain is loaded.

mod casters;
mod debug;
mod draw;
mod sky_cube;

use std::time::Instant;

use glam::{DVec2, Vec3};

use self::debug::tile_boxes;
use super::gpu::Gpu;
use super::pass::{
    Attachment, FrameInputs, Load, Offscreen, Pass, PassAttachments, Prepared, Scope,
};
use super::settings::{FrameSettings, SkyMode, TerrainLighting};
use super::shadow::{SunCaster, SunShadows, CASCADES};
use crate::fog::{FogSky, WorldFog};
use lanthorn_geom::{Camera, Octagon};
use lanthorn_terrain::clipmap::{instance_aabb, ClipmapSelector};
use lanthorn_terrain::{
    ClipmapConfig, ClipmapFrame, ClipmapTerrain, HeightUpdates, Heightmap, MinMaxPyramid,
    Selection, TerrainShading,
};

pub(crate) use self::debug::LineVertex;
#[cfg(test)]
pub(crate) use self::draw::INSTANCE_ATTRIBUTES;
#[cfg(feature = "test-hooks")]
pub use self::draw::{ReferenceVertex, VertexReadback};
pub use self::draw::{TerrainDraw, TerrainUpload, TerrainView};

pub use crate::settings::TerrainOverlay;

/// What the terrain cost and submitted in one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct TerrainStats {
    /// CPU: ring selection (with frustum culling), µs.
    pub select_us: f64,
    /// CPU: producing the height rows/columns that entered the windows, µs.
    pub stream_us: f64,
    /// CPU: picking the shadow casters and writing uniforms, instances and height updates to
    /// the queue, µs.
    pub upload_us: f64,
    /// The finest clipmap level drawn (finer levels' windows need no streaming).
    pub first_level: u32,
    /// Clipmap levels drawn.
    pub levels_drawn: u32,
    /// Instances drawn: tiles, fillers, trims, seams and the centre cross.
    pub instances: u32,
    /// Pieces culled by the frustum, the octagon or the fog.
    pub pieces_culled: u32,
    /// Of those, the pieces the fog hides wholly.
    pub pieces_fogged: u32,
    /// Triangles drawn, seams included.
    pub triangles: u64,
    /// Draw commands of the terrain itself: one per non-empty mesh kind plus the sky (≤ 6).
    pub draw_calls: u32,
    /// Extra draw commands of the debug overlays (wireframe, boxes).
    pub overlay_draw_calls: u32,
    /// Height bytes written to the texture array this frame.
    pub upload_bytes: usize,
    /// Height window writes this frame (one `write_texture` each).
    pub upload_rects: usize,
    /// GPU memory held by the pass (height windows, meshes, instance buffer), independent of
    /// the heightmap's size.
    pub gpu_bytes: usize,
}

/// A loaded terrain: the CPU clipmap state and its GPU pass. Per frame [`Terrain::prepare`]
/// selects, streams and uploads; [`Terrain::record`] draws.
pub struct Terrain {
    /// The CPU side: heightmap, min/max pyramid, selection and height windows.
    pub clipmap: ClipmapTerrain,
    /// The GPU side: pipelines, buffers and uniforms.
    pub draw: TerrainDraw,
    updates: HeightUpdates,
    frozen: Option<Camera>,
    lines: Vec<LineVertex>,
    /// Per instance of this frame's selection: a brush's shadow may fall on it.
    world_shadowed: Vec<bool>,
    /// What the last prepared frame cost and submitted.
    pub stats: TerrainStats,
    /// Where the terrain's origin sits in the level (a level's `TerrainRef.origin`).
    origin: Vec3,
    /// Drop the pieces the fog hides wholly (on; off only to check that nothing changes).
    pub cull_fogged: bool,
    /// Selects the casters: every piece, not only those in the camera's frustum (a hill behind
    /// the camera shadows the valley in front of it); each cascade keeps those in its box.
    caster_selectors: Option<[ClipmapSelector; CASCADES]>,
    /// Microseconds picking this frame's casters took (before the pass's prepare; counted in
    /// its upload).
    casters_us: f64,
}

/// What a level fixes about the terrain under it, given when the terrain is created.
#[derive(Clone, Copy, Default)]
pub struct TerrainPlacement<'a> {
    /// Where the terrain's sample (0, 0) sits in the level (`TerrainRef.origin`).
    pub origin: Vec3,
    /// The direction the level's sunlight travels (`_sun_mangle`): the terrain is lit from the
    /// same side.
    pub sun_direction: Option<Vec3>,
    /// The level's cubemap skybox (a `Cube` view decoding its sRGB texels): the terrain's sky
    /// and fog show it.
    pub skybox: Option<&'a wgpu::TextureView>,
    /// The level's lamps splatted (`terrain::lamps`): the terrain's point light map.
    pub lamps: Option<&'a lanthorn_terrain::lamps::LampMap>,
}

impl Terrain {
    /// The pass for `clipmap`, shaded as its heightmap suggests, drawing into
    /// `color_format`.
    pub fn new(gpu: &Gpu, clipmap: ClipmapTerrain, color_format: wgpu::TextureFormat) -> Terrain {
        let shading = TerrainShading::for_heightmap(&clipmap.heightmap, clipmap.config());
        let draw = TerrainDraw::create(
            gpu,
            clipmap.config(),
            &clipmap.meshes,
            shading,
            color_format,
        );
        Terrain {
            clipmap,
            draw,
            updates: HeightUpdates::default(),
            frozen: None,
            lines: Vec::new(),
            world_shadowed: Vec::new(),
            stats: TerrainStats::default(),
            origin: Vec3::ZERO,
            cull_fogged: true,
            caster_selectors: None,
            casters_us: 0.0,
        }
    }

    /// A terrain placed in a level: its origin, the level's sun and skybox.
    pub fn in_level(
        gpu: &Gpu,
        clipmap: ClipmapTerrain,
        color_format: wgpu::TextureFormat,
        placement: &TerrainPlacement,
    ) -> Terrain {
        let mut terrain = Terrain::new(gpu, clipmap, color_format);
        terrain.origin = placement.origin;
        if let Some(skybox) = placement.skybox {
            terrain.draw.set_skybox(gpu, skybox);
        }
        if let Some(d) = placement.sun_direction {
            terrain.draw.shading.sun = -d;
        }
        if let Some(map) = placement.lamps {
            terrain
                .draw
                .set_lamps(gpu, map, placement.origin.truncate());
        }
        terrain
    }

    /// The aerial fog the world's surfaces take this frame (`render::fog`): this
    /// terrain's fog distance and strength, and the sky its fog shows — the daylight model
    /// under `--sky scattering`, else the level's skybox or the gradient — dimmed at night.
    pub fn world_fog(&mut self, settings: &FrameSettings) -> WorldFog {
        let d = &mut self.draw;
        let s = &d.shading;
        let v4 = |v: [f32; 3]| [v[0], v[1], v[2], 1.0];
        let sky = if settings.sky == SkyMode::Scattering {
            FogSky::Scattering
        } else if d.skybox {
            FogSky::Skybox
        } else {
            FogSky::Gradient
        };
        let daylight = settings.time_of_day.daylight();
        let mut fog = WorldFog {
            params: [s.fog_distance, s.fog_strength, daylight, sky as u32 as f32],
            sun: s.sun.normalize_or_zero().extend(0.0).to_array(),
            zenith: v4(s.sky_zenith),
            horizon: v4(s.sky_horizon),
            sky: [[0.0; 4]; 6],
        };
        if sky == FogSky::Scattering {
            fog.sky = d.scattering_uniform();
        }
        fog
    }

    /// The sun's shadow cascades (the Renderer's): the terrain casts into them and is shaded
    /// with them on frames that hand them in (`FrameInputs::sun`); `None` drops them. The
    /// world's casters' bounds are cut to what lies above this terrain's ground.
    pub fn use_sun_shadows(&mut self, gpu: &Gpu, shadows: Option<&mut SunShadows>) {
        let Some(s) = shadows else {
            self.caster_selectors = None;
            return;
        };
        self.draw.set_shadows(gpu, s);
        let (origin, c) = (self.origin, &mut self.clipmap);
        let pyramid = std::cell::RefCell::new(&mut c.pyramid);
        s.set_ground(|b| {
            let local = b.translated(-origin);
            let parts = ground_parts(&c.heightmap, &mut pyramid.borrow_mut(), &local, 16);
            parts.iter().map(|p| p.min.z).fold(f32::INFINITY, f32::min) + origin.z
        });
        let selector = |coarsen| {
            let mut selector = ClipmapSelector::new(*self.clipmap.config()).ok()?;
            selector.cull = false;
            selector.coarsen = coarsen;
            Some(selector)
        };
        self.caster_selectors = (|| Some([selector(0)?, selector(FAR_CASTERS_COARSER)?]))();
    }

    /// The camera the rings are selected from, in the terrain's frame: `camera`'s, or the
    /// frozen one while the overlay freezes culling.
    fn selection_camera(&mut self, camera: &Camera, freeze: bool) -> Camera {
        let local = Camera {
            position: camera.position - self.origin,
            ..*camera
        };
        if freeze {
            *self.frozen.get_or_insert(local)
        } else {
            self.frozen = None;
            local
        }
    }

    /// Selects the rings for `camera` (or the frozen camera) as seen through `octagon`,
    /// streams the new height rows and columns, builds the overlay boxes and writes everything
    /// to the GPU; with `sun`, marks the pieces a brush's shadow may fall on.
    pub fn select_and_upload(
        &mut self,
        gpu: &Gpu,
        (camera, octagon): (&Camera, Octagon),
        overlay: &TerrainOverlay,
        sun: Option<&SunShadows>,
    ) -> TerrainStats {
        // The terrain lives at `origin` in the level: select and draw in its own frame.
        let sel_cam = self.selection_camera(camera, overlay.freeze_culling);
        let local = Camera {
            position: camera.position - self.origin,
            ..*camera
        };
        let camera = &local;
        self.draw.view_octagon = octagon;
        let c = &mut self.clipmap;
        // Cull to the frustum behind the outdoor cells' octagon (a frozen camera: all of it).
        c.selector.screen = if self.frozen.is_some() {
            Octagon::FULL
        } else {
            octagon
        };
        c.selector.fogged_out = self
            .cull_fogged
            .then(|| self.draw.shading.fogged_out_distance());
        let t = Instant::now();
        let selection = c.selector.select(&sel_cam, &c.heightmap, &mut c.pyramid);
        let select_us = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        self.updates.clear();
        let p = sel_cam.position.as_dvec3();
        c.streamer.update_from(
            &c.heightmap,
            DVec2::new(p.x, p.y),
            selection.first_level,
            &mut self.updates,
        );
        let stream_us = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        self.lines.clear();
        let cfg = c.streamer.cfg;
        let (heightmap, pyramid) = (&c.heightmap, &mut c.pyramid);
        let eye = camera.position.as_dvec3();
        tile_boxes(
            overlay,
            selection,
            (&cfg, heightmap, pyramid),
            eye,
            &mut self.lines,
        );
        let vertex_lit = self.draw.lighting == TerrainLighting::Vertex;
        world_shadowed(
            sun.filter(|_| vertex_lit),
            (&cfg, &c.heightmap, &mut c.pyramid),
            selection,
            self.origin,
            &mut self.world_shadowed,
        );
        // The reflection is drawn only when a piece in view reaches under the sea.
        if self.draw.reflecting {
            let sea = self.draw.shading.sea_level;
            let pieces = (&cfg, &c.heightmap, &mut c.pyramid);
            self.draw.reflecting = reaches_under(pieces, selection, sea);
        }
        let frame = ClipmapFrame {
            selection,
            updates: &self.updates,
        };
        let upload = TerrainUpload {
            camera,
            selection_camera: self.frozen.as_ref(),
            frame: &frame,
            overlay,
            lines: &self.lines,
            world_shadowed: &self.world_shadowed,
        };
        let bytes = self.draw.upload(gpu, &upload);
        let upload_us = std::mem::take(&mut self.casters_us) + t.elapsed().as_secs_f64() * 1e6;
        self.stats = TerrainStats {
            select_us,
            stream_us,
            upload_us,
            first_level: selection.first_level,
            levels_drawn: selection.stats.levels,
            instances: selection.instances.len() as u32,
            pieces_culled: selection.stats.pieces_culled,
            pieces_fogged: selection.stats.pieces_fogged,
            triangles: selection.stats.triangles,
            draw_calls: self.draw.draw_calls(),
            overlay_draw_calls: self.draw.overlay_draw_calls(),
            upload_bytes: bytes,
            upload_rects: self.updates.rects.len(),
            gpu_bytes: self.draw.gpu_bytes(),
        };
        self.stats
    }
}

/// The far cascade's terrain casters leave out this many of the finest levels, the next
/// level's tiles drawn in their place (its receivers lie past the near cascade, where the
/// finest level's detail is a fraction of a pixel): at the keep's outside camera 57,096 →
/// 43,016 caster triangles and the same picture. Two levels failed the hills test (the
/// valleys' shadows no longer matched the heightmap's rays).
const FAR_CASTERS_COARSER: u32 = 1;

/// Whether a piece of `selection` reaches under the sea at `sea`.
fn reaches_under(
    (cfg, heightmap, pyramid): (&ClipmapConfig, &Heightmap, &mut MinMaxPyramid),
    selection: &Selection,
    sea: f32,
) -> bool {
    selection.draws().any(|(kind, _, range)| {
        selection.instances[range.start as usize..range.end as usize]
            .iter()
            .any(|inst| instance_aabb(cfg, kind, inst, heightmap, pyramid).min.z < sea)
    })
}

/// Per instance of `selection` (into `out`; none without `shadows`): whether a shadow of the
/// world may fall on it (`SunShadows::world_shadow_may_fall_on`, its bounds placed at `origin`
/// in the level).
fn world_shadowed(
    shadows: Option<&SunShadows>,
    (cfg, heightmap, pyramid): (&ClipmapConfig, &Heightmap, &mut MinMaxPyramid),
    selection: &Selection,
    origin: Vec3,
    out: &mut Vec<bool>,
) {
    out.clear();
    let Some(shadows) = shadows else { return };
    for (kind, _, range) in selection.draws() {
        for inst in &selection.instances[range.start as usize..range.end as usize] {
            let b = instance_aabb(cfg, kind, inst, heightmap, pyramid);
            // The parts only where the whole piece may be shadowed (they lie inside it): most
            // pieces are ruled out by their box alone, each frame.
            let shadowed = shadows.world_shadow_may_fall_on(&b.translated(origin))
                && ground_parts(heightmap, pyramid, &b, 8)
                    .iter()
                    .any(|part| shadows.world_shadow_may_fall_on(&part.translated(origin)));
            out.push(shadowed);
        }
    }
}

/// The ground under `b`'s rectangle (terrain coordinates) as boxes of parts of it, at most
/// `most`² of them, each about as wide as the height pyramid's finest blocks: a piece's whole
/// box holds its deepest valley and highest hill, and seen along a low sun a tall box reaches
/// far; its parts' boxes keep to the ground.
fn ground_parts(
    heightmap: &Heightmap,
    pyramid: &mut MinMaxPyramid,
    b: &lanthorn_geom::Aabb,
    most: usize,
) -> Vec<lanthorn_geom::Aabb> {
    let (lo, hi) = (b.min.truncate().as_dvec2(), b.max.truncate().as_dvec2());
    let leaf = lanthorn_terrain::pyramid::LEAF as f64 * heightmap.horizontal_scale;
    let split = |w: f64| ((w / leaf).ceil() as usize).clamp(1, most);
    let (nx, ny) = (split(hi.x - lo.x), split(hi.y - lo.y));
    let step = (hi - lo) / DVec2::new(nx as f64, ny as f64);
    (0..nx * ny)
        .map(|k| {
            let a = lo + step * DVec2::new((k % nx) as f64, (k / nx) as f64);
            let (zlo, zhi) = pyramid.bounds_world(heightmap, a.to_array(), (a + step).to_array());
            lanthorn_geom::Aabb::new(a.as_vec2().extend(zlo), (a + step).as_vec2().extend(zhi))
        })
        .collect()
}

/// The terrain draws into the frame after the world, where the world left no depth.
impl Pass for Terrain {
    fn scope(&self) -> Scope {
        Scope {
            name: "terrain",
            prepare: "terrain prepare",
            record: "terrain record",
        }
    }

    fn attachments(&self) -> PassAttachments {
        PassAttachments {
            color: (Attachment::SceneColor, Load::Keep),
            depth: Some((Attachment::FrameDepth, Load::Keep)),
        }
    }

    /// Skipped when no outdoor cell is visible (`FrameInputs::terrain_octagon` is `None`).
    fn prepare(&mut self, gpu: &Gpu, inputs: &FrameInputs) -> Prepared {
        let Some(octagon) = inputs.terrain_octagon else {
            self.stats = TerrainStats::default();
            return Prepared::Skipped;
        };
        let overlay = &inputs.settings.terrain;
        let settings = inputs.settings;
        self.draw.scattering = settings.sky == SkyMode::Scattering;
        self.draw.point_lights = settings.point_lights;
        self.draw.daylight = settings.time_of_day.daylight();
        self.draw.lighting = settings.terrain_lighting;
        let reflect = settings.reflections && self.draw.shading.flat_water;
        self.draw
            .set_reflection(gpu, reflect.then_some(inputs.viewport));
        self.draw.reflecting = reflect;
        self.draw.water_time = settings.time;
        self.draw.shadow_receiver = inputs.sun.and_then(SunShadows::receiver);
        let view = (inputs.camera, octagon);
        self.stats = self.select_and_upload(gpu, view, overlay, inputs.sun);
        Prepared::Recorded
    }

    fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.draw.record(pass);
    }

    /// The water reflection when the sea reflects.
    fn offscreen(&self) -> Vec<Offscreen<'_>> {
        let reflection = self.draw.reflection_target();
        let reflection = reflection.map(|(color, depth)| Offscreen {
            label: "water reflection",
            color: Some(color),
            depth: Some(depth),
            clear: Some(wgpu::Color::BLACK),
        });
        reflection.into_iter().collect()
    }

    fn record_offscreen(&self, _index: usize, pass: &mut wgpu::RenderPass<'_>) {
        self.draw.record_reflection(pass);
    }
}

/// The terrain casts into the sun's cascades: per cascade the pieces of a selection that
/// ignores the frustum (a hill behind the camera shadows the valley in front of it), those in
/// the cascade's box.
impl SunCaster for Terrain {
    fn pick_casters(
        &mut self,
        gpu: &Gpu,
        sun: &SunShadows,
        camera: &Camera,
        settings: &FrameSettings,
    ) {
        let t = Instant::now();
        let sel_cam = self.selection_camera(camera, settings.terrain.freeze_culling);
        let c = &mut self.clipmap;
        let casters = match &mut self.caster_selectors {
            Some(selectors) => casters::caster_instances(
                sun.cascades.as_ref(),
                (&c.streamer.cfg, &c.heightmap, &mut c.pyramid),
                (selectors, &c.meshes),
                &sel_cam,
                self.origin,
            ),
            None => Default::default(),
        };
        self.draw.upload_casters(gpu, &casters);
        self.casters_us = t.elapsed().as_secs_f64() * 1e6;
    }

    fn record_casters(&self, index: usize, pass: &mut wgpu::RenderPass<'_>) {
        self.draw.record_casters(index, pass);
    }
}
