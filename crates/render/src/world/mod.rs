//! The world pass: every world surface in one vertex and one index buffer, indices grouped by
//! cell (a surface listed by several cells has its indices in each), one per-draw record per
//! visible cell or object, one indexed indirect sub-draw per record, and one
//! `multi_draw_indexed_indirect` per pipeline (opaque, sky, liquid).

mod batches;
mod borrowed;
mod clouds;
mod count_pass;
mod create;
use self::create::world_module;
mod draws;
use crate::fog;
mod id_pass;
pub mod light_atlas;
mod mesh;
pub(crate) mod object_lamps;
mod object_light;
pub use self::object_light::{OBJECT_LIGHT_UNIT, OBJECT_LIGHT_WORDS};
mod pipelines;
mod shadows;
pub mod surface_cache;
mod wireframe;

use bytemuck::{Pod, Zeroable};

use self::pipelines::{
    create_bind_group_layout, create_bind_groups, create_color_pipelines, create_draw_buffers,
    create_mesh_buffers, BindGroupResources, SkyShading,
};
use super::gpu::Gpu;
use super::materials::MaterialArray;
use super::pass::{
    Attachment, FrameInputs, Load, Offscreen, Pass, PassAttachments, Prepared, Scope,
};
use super::shaders;
use lanthorn_geom::Camera;
use lanthorn_level::Level;
use lanthorn_vis::VisibleSet;

pub use self::clouds::SkyClouds;
pub use self::count_pass::{
    CountDraw, CountTarget, FragmentCountPass, FrameCount, OctagonClip, COUNT_FORMAT,
};
pub use self::draws::{
    build_draws, culled_surfaces, pack_light, CacheStates, CullReason, DrawBuilder, DrawCommand,
    DrawInputs, DrawList, DrawRecord, SurfaceTests, WorldStats, BATCHES, CACHED_BATCH,
    CACHED_BATCHES, GRID_LIT, LIGHT_ONE, LIGHT_UNIT, MAGNIFIED_BATCH, TWO_LEVELS_BATCH,
};
pub use self::id_pass::{IdFrame, IdImages, IdLayer};
pub use self::mesh::{
    IndexRange, SurfaceKind, WorldMesh, WorldVertex, KINDS, VERTEX_MAPPED, VERTEX_NO_LIGHTMAP,
    VERTEX_OUTDOOR, VERTEX_PACKED_STYLES, VERTEX_WATER_TOP,
};
pub use self::wireframe::{Wireframe, WireframePass};

/// The world shader's per-frame uniform (WGSL `WorldFrame`): the camera, the styles'
/// brightnesses, the views, the fog and the sun's shadows.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct WorldFrame {
    /// The camera's world-to-clip transform.
    pub view_proj: [[f32; 4]; 4],
    /// xyz: the camera's position in world units; w: 1.
    pub eye: [f32; 4],
    /// x: seconds, y: lightmap scale, z: fullbright debug.
    pub params: [f32; 4],
    /// Every light style's brightness this frame (`level::styles::scales`), four a vector.
    pub styles: [[f32; 4]; lanthorn_level::styles::MAX_STYLES / 4],
    /// View 0 is the camera; mirrors and teleporters add views (`vis::View`).
    pub views: [WorldView; MAX_VIEWS],
    /// The aerial fog of a level under a terrain (all zero: none).
    pub fog: fog::WorldFog,
    /// Level coordinates → each sun shadow cascade's clip space (`shadows`; zero without).
    pub shadow_to_light: [[[f32; 4]; 4]; crate::shadow::CASCADES],
    /// Texels of the cascades (x, y) and the shadows' fade (z, w).
    pub shadow: [f32; 4],
    /// x: 1 where the tops of water show the reflection the flow opened for them this frame
    /// (blended over it by Schlick's Fresnel term, F0 = 0.02); y, z, w: 0.
    pub water: [f32; 4],
    /// Quake 3's cloud layers over the sky (none: zero layers).
    pub clouds: SkyClouds,
}

/// One view as the shader sees it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct WorldView {
    /// This view's world-to-clip transform.
    pub view_proj: [[f32; 4]; 4],
    /// Fragments with `clip_plane · (p, 1) < 0` are discarded (the near side of the portal).
    pub clip_plane: [f32; 4],
    /// The eye in this view's space (sky directions).
    pub eye: [f32; 4],
}

/// Views a frame holds at most: the camera's and those of the mirrors and teleporters it
/// sees (the portal flow's limit).
pub const MAX_VIEWS: usize = lanthorn_vis::portal_flow::MAX_VIEWS;

/// The world pass: a per-draw record for each visible cell and object, and indexed
/// indirect sub-draws batched by view class and surface kind.
pub struct WorldPass {
    /// The mesh and the per-frame buffers the world draws from.
    buffers: WorldBuffers,
    /// How the world shades: its shader module and variant, pipelines and group 0.
    shading: WorldPipelines,
    /// What the debug views take of the world: tints, the wireframe's means, the portals'
    /// triangles the id pass marks.
    debug: DebugDraws,
    /// The level's light as the world draws it: styles, moving objects' light and lamps, their shadows.
    lighting: WorldLighting,
    /// The level has a cubemap skybox (`render::skybox`): sky surfaces show it.
    skybox_active: bool,
    /// The level's cloud layers over its sky.
    clouds: SkyClouds,
    mesh: WorldMesh,
    use_indirect: bool,
    /// Records that fit the records buffer.
    max_records: usize,
    /// This frame's draws (records, sub-draws per batch), built on the CPU.
    draws: DrawBuilder,
    /// What the last prepared frame submitted.
    pub stats: WorldStats,
    /// Microseconds the per-surface tests and draw building took this frame (part of the
    /// pass's prepare).
    pub surface_culling_us: f64,
    /// The surface cache (its atlas is made on the first frame that uses it).
    cache: SurfaceCache,
    /// This frame the UI cover drew first and cleared the colour and depth: keep them.
    after_cover: bool,
}

/// The mesh and the per-frame buffers the world draws from.
struct WorldBuffers {
    vertex_buffer: wgpu::Buffer,
    index_buffer: wgpu::Buffer,
    frame_buffer: wgpu::Buffer,
    records: wgpu::Buffer,
    indirect: wgpu::Buffer,
    /// The records with every octagon open, and the group 0 that draws with them (a fragment
    /// count with `OctagonClip::Off`).
    open_octagons: (wgpu::Buffer, wgpu::BindGroup),
}

/// How the world shades: its shader module and variant, pipelines and group 0.
struct WorldPipelines {
    module: wgpu::ShaderModule,
    pipeline_layout: wgpu::PipelineLayout,
    /// [view class (`ViewClass`)] × [opaque, sky, fence, liquid].
    pipelines: [wgpu::RenderPipeline; 3 * KINDS],
    /// The world's group 0 layout and material samplers (the cache's pipelines share them).
    layout: wgpu::BindGroupLayout,
    samplers: [wgpu::Sampler; 2],
    /// The material layers' edge in texels (`materials::layer_size`).
    layer_size: u32,
    /// [nearest, linear] texture filtering.
    bind_groups: [wgpu::BindGroup; 2],
    color_format: wgpu::TextureFormat,
    /// `module` clips octagons with clip distances (else by discard).
    clip_distances: bool,
    /// The device has clip distances (the fragment count can use them whatever `module` does).
    device_clip_distances: bool,
    /// `module` is the `AERIAL_FOG` variant (a level under a terrain).
    aerial_fog: bool,
    /// `module` is the `UNLIT_LIQUIDS` variant (no liquid of the level has a lightmap).
    unlit_liquids: bool,
    /// `module` is the `LINEAR_OUTPUT` variant: the pass draws into the HDR scene
    /// (`set_scene_format`).
    linear_output: bool,
    /// Which of `bind_groups` draws (`FrameSettings::linear_filtering`).
    linear_filtering: bool,
    /// The camera's pipelines other than each kind's own, made on first use.
    camera: CameraPipelines,
    /// Unique to this world and its variant (`shading_stamp`).
    stamp: u64,
}

/// The camera's pipelines a frame may draw with instead of each kind's own (`WorldPipelines::
/// pipelines`), made on first use and dropped with the module they use.
struct CameraPipelines {
    /// By surface kind, the camera's surfaces through `fs_main`, made on first use:
    /// `fs_opaque`, `fs_sky` and `fs_liquid` have no branch for tints, fullbright or the
    /// Fresnel blend over a reflection, which a software rasterizer would run for every
    /// fragment of every frame (fences keep `fs_fence`).
    full: [std::cell::OnceCell<wgpu::RenderPipeline>; KINDS],
    /// By surface kind, whether this frame draws the camera's surfaces with `full`: all but
    /// fences in a frame that tints or is fullbright, liquids in one that reflects water.
    full_kinds: [bool; KINDS],
    /// The level has liquids and none is a glow: they cover what is under them, and a frame
    /// that neither tints nor reflects draws them unblended, writing depth
    /// (`WorldPass::liquids_cover`; first or last: `WorldPass::liquids_first`).
    liquids_can_cover: bool,
    /// That frame's camera liquids (`pipelines::covering_liquid_pipeline`), made on first use.
    covering_liquids: std::cell::OnceCell<wgpu::RenderPipeline>,
}

impl CameraPipelines {
    fn new(liquids_can_cover: bool) -> CameraPipelines {
        CameraPipelines {
            full: Default::default(),
            full_kinds: [false; KINDS],
            liquids_can_cover,
            covering_liquids: Default::default(),
        }
    }

    /// Drops the pipelines made with a module that is gone (they are made again on use).
    fn forget(&mut self) {
        self.full = Default::default();
        self.covering_liquids = Default::default();
    }
}

/// What the debug views take of the world: the tint, the wireframe's means, the portals the id
/// pass marks.
struct DebugDraws {
    /// The mirrors' and teleporters' polygons, which the id pass marks.
    portal_triangles: id_pass::PortalTriangles,
    /// This frame tints (`FrameSettings::tint`) or is fullbright: its camera surfaces go
    /// through `WorldPipelines::full`.
    tinted: bool,
    /// `FrameSettings::magnified_fetch`, `FrameSettings::two_level_blend`.
    magnified_fetch: bool,
    two_level_blend: bool,
    polygon_mode_line: bool,
    /// The id pass draws back faces as occluders: only in levels with outdoor cells, whose
    /// unbuilt exteriors can be seen from outside (a sealed level's never are; its one-sided
    /// faces seen from behind through cracks would only add noise).
    back_faces_occlude: bool,
}

/// The level's light as the world draws it: styles, moving objects' light and lamps, their shadows.
struct WorldLighting {
    /// Switchable light styles whose lights start off (`level::styles::switched_off`).
    styles_off: u32,
    /// This frame's light style brightnesses.
    style_scales: [f32; lanthorn_level::styles::MAX_STYLES],
    /// The style the level baked its sun and sky light under (`_sun_style`; 0: with the steady
    /// light, which night leaves as it is).
    sun_style: u8,
    /// Moving objects' faces lit by the light grid (group 0's per-surface light).
    object_light: object_light::ObjectLight,
    /// Their lamps per pixel (group 0's per-object lamps), in the `OBJECT_LAMPS` variant.
    object_lamps: object_lamps::ObjectLamps,
    /// Moving objects sample the sun's shadow cascades (`module` is the `SUN_SHADOWS`
    /// variant); see `set_sun_shadows`.
    shadows: Option<shadows::WorldShadows>,
}

/// The surface cache's plan and its atlas on the GPU.
struct SurfaceCache {
    plan: surface_cache::SurfacePlan,
    atlas: Option<surface_cache::atlas::CacheAtlas>,
}

impl WorldPass {
    /// Switches to the `AERIAL_FOG` variant (a terrain was added under a level that placed
    /// none).
    pub fn use_aerial_fog(&mut self, gpu: &Gpu) {
        if !self.shading.aerial_fog {
            self.shading.aerial_fog = true;
            self.make_variant(gpu);
        }
    }

    /// Draws into a scene of `format`: the LDR frame's raw gamma view (`GAMMA_COLOR_FORMAT`,
    /// Quake's gamma-space light, clamped) or the HDR scene (linear, unclamped light: the
    /// `LINEAR_OUTPUT` variant).
    pub fn set_scene_format(&mut self, gpu: &Gpu, format: wgpu::TextureFormat) {
        if format != self.shading.color_format {
            self.shading.color_format = format;
            self.shading.linear_output = format == crate::target::HDR_FORMAT;
            // The atlas holds colour baked for the other output's range.
            self.cache.plan.forget();
            self.make_variant(gpu);
        }
    }

    /// Moving objects sample this frame's sun cascades (`None`: shadows are off, or the level
    /// has no sun): the `SUN_SHADOWS` variant while they do. Other cascades than those the
    /// group holds (shadows switched off and on) make the group again.
    fn use_sun_shadows(&mut self, gpu: &Gpu, sun: Option<&crate::shadow::SunShadows>) {
        match (sun, &mut self.lighting.shadows) {
            (Some(sun), Some(s)) if s.samples(sun) => s.update(sun),
            (Some(sun), _) => {
                let layout = &self.shading.layout;
                let shadows = shadows::WorldShadows::new(&gpu.device, layout, sun);
                self.lighting.shadows = Some(shadows);
                self.make_variant(gpu);
            }
            (None, Some(_)) => {
                self.lighting.shadows = None;
                self.make_variant(gpu);
            }
            (None, None) => {}
        }
    }

    /// The layout of the colour pipelines (with the cascades' group in `SUN_SHADOWS`).
    fn color_layout(&self) -> &wgpu::PipelineLayout {
        self.lighting
            .shadows
            .as_ref()
            .map_or(&self.shading.pipeline_layout, |s| &s.pipeline_layout)
    }

    /// The module and its colour pipelines made again for this variant (aerial fog, shadows);
    /// those made on first use dropped.
    fn make_variant(&mut self, gpu: &Gpu) {
        let variant = shaders::WorldVariant {
            clip_distances: self.shading.clip_distances,
            aerial_fog: self.shading.aerial_fog,
            unlit_liquids: self.shading.unlit_liquids,
            sun_shadows: self.lighting.shadows.is_some(),
            object_lamps: self.lighting.object_lamps.variant,
            linear_output: self.shading.linear_output,
            material_maps: self.lighting.object_lamps.maps,
        };
        self.shading.module = world_module(&gpu.device, variant);
        let (layout, module) = (self.color_layout(), &self.shading.module);
        self.shading.pipelines = create_color_pipelines(
            &gpu.device,
            layout,
            module,
            self.shading.color_format,
            SkyShading {
                skybox: self.skybox_active,
                clouds: self.clouds.any(),
            },
        );
        self.shading.camera.forget();
        self.shading.stamp = next_stamp();
        // The cache keeps what it baked (its plan knows it): only its pipelines change.
        if let Some(atlas) = &mut self.cache.atlas {
            let shading = surface_cache::atlas::WorldShading {
                module: &self.shading.module,
                layout: &self.shading.layout,
                samplers: &self.shading.samplers,
                color_format: self.shading.color_format,
                layer_size: self.shading.layer_size,
            };
            atlas.use_module(&gpu.device, &shading);
        }
    }

    /// The opaque surfaces of the `casting` cells as the sun's cascades draw them: from the
    /// world's own buffers, a range per cell with its bounds.
    pub fn sun_casters(&self, casting: &[bool]) -> crate::shadow::WorldCasters {
        let opaque = &self.mesh.cell_ranges[SurfaceKind::Opaque as usize];
        let cells = opaque
            .iter()
            .enumerate()
            .filter(|&(c, r)| r.count > 0 && casting.get(c).copied().unwrap_or(false))
            .map(|(_, r)| {
                let range = r.first..r.first + r.count;
                let points = self.mesh.indices[range.start as usize..range.end as usize]
                    .iter()
                    .map(|&i| glam::Vec3::from(self.mesh.vertices[i as usize].position));
                (range, lanthorn_geom::Aabb::from_points(points))
            })
            .collect();
        crate::shadow::WorldCasters {
            vertices: self.buffers.vertex_buffer.clone(),
            indices: self.buffers.index_buffer.clone(),
            stride: std::mem::size_of::<WorldVertex>() as u64,
            cells,
        }
    }

    /// The world geometry as uploaded.
    pub fn mesh(&self) -> &WorldMesh {
        &self.mesh
    }

    /// Whether the wireframe overlay can use polygon-mode lines.
    pub fn can_draw_wireframe(&self) -> bool {
        self.debug.polygon_mode_line
    }

    /// The visible cells' surfaces the per-surface tests drop for `visible` seen by `camera`
    /// (the culled-surfaces overlay).
    pub fn culled_surfaces(
        &self,
        visible: &VisibleSet,
        camera: &Camera,
        tests: SurfaceTests,
    ) -> Vec<(u32, CullReason)> {
        let inputs = DrawInputs {
            visible,
            camera,
            max_records: self.max_records,
            multi_draw: self.use_indirect,
            tests: SurfaceTests {
                back_faces: tests.back_faces && !self.debug.back_faces_occlude,
                ..tests
            },
            cache: None,
        };
        culled_surfaces(&self.mesh, &inputs)
    }

    /// The surfaces the last prepared frame draws (with repeats: a surface in several
    /// sub-draws comes once per triangle of each).
    pub fn drawn_surfaces(&self) -> impl Iterator<Item = u32> + '_ {
        let list = self.draws.list();
        list.commands.iter().flat_map(move |c| {
            let range = c.first_index as usize..(c.first_index + c.index_count) as usize;
            self.mesh.indices[range]
                .iter()
                .step_by(3)
                .map(move |&i| self.mesh.vertices[i as usize].surface)
        })
    }

    /// Writes this frame's uniforms, and uploads the draw list `build_draws` makes for
    /// `visible` (per-draw records and indirect commands).
    fn prepare_frame(
        &mut self,
        gpu: &Gpu,
        frame: &FrameInputs,
        params: [f32; 4],
        tests: SurfaceTests,
    ) {
        let (camera, visible) = (frame.camera, frame.visible);
        self.write_frame_uniform(gpu, frame, params);
        let light_scale = frame.settings.light_scale;
        (self.lighting.object_lamps).update(visible, &self.lighting.style_scales, light_scale);
        let lights = (light_scale, self.lighting.style_scales[0]);
        let folded = &self.lighting.object_lamps.folded;
        (self.lighting.object_light).update(
            visible,
            lights,
            folded,
            self.lighting.shadows.is_some(),
        );
        self.lighting.object_lamps.upload(&gpu.queue);
        self.lighting.object_light.upload(&gpu.queue);
        let tests = SurfaceTests {
            // Where the id pass keeps back faces as occluders, so must every draw.
            back_faces: tests.back_faces && !self.debug.back_faces_occlude,
            ..tests
        };
        let t = std::time::Instant::now();
        let caching =
            frame.settings.surface_cache && !self.debug.tinted && self.cache.plan.cacheable() > 0;
        if caching {
            self.cache.atlas.get_or_insert_with(|| {
                let shading = surface_cache::atlas::WorldShading {
                    module: &self.shading.module,
                    layout: &self.shading.layout,
                    samplers: &self.shading.samplers,
                    color_format: self.shading.color_format,
                    layer_size: self.shading.layer_size,
                };
                surface_cache::atlas::CacheAtlas::create(
                    gpu,
                    &shading,
                    self.mesh.surface_cull.len(),
                )
            });
            // Pixels per world unit at distance 1 across the frame's height.
            let focal = camera.projection().col(1).y * frame.viewport.1 as f32 * 0.5;
            let mode = frame.settings.light_styles;
            let scales = &self.lighting.style_scales;
            (self.cache.plan).begin_frame(camera.position, focal, scales, mode);
            (self.cache.plan).look_along(camera.forward(), camera.right(), camera.up());
        }
        let inputs = DrawInputs {
            visible,
            // Frozen culling: the surfaces its camera kept.
            camera: frame.culling.unwrap_or(camera),
            max_records: self.max_records,
            multi_draw: self.use_indirect,
            tests,
            cache: caching.then_some(&self.cache.plan),
        };
        let list = self.draws.build(&self.mesh, &inputs);
        self.surface_culling_us = t.elapsed().as_secs_f64() * 1e6;
        if let Some(atlas) = &mut self.cache.atlas {
            let bakes = match caching {
                true => self
                    .cache
                    .plan
                    .plan(&list.cached_surfaces, &list.bake_surfaces),
                false => Vec::new(),
            };
            atlas.prepare_bake(gpu, &self.cache.plan, &bakes);
        }
        if !list.records.is_empty() {
            gpu.queue.write_buffer(
                &self.buffers.records,
                0,
                bytemuck::cast_slice(&list.records),
            );
        }
        if self.use_indirect && !list.commands.is_empty() {
            gpu.queue.write_buffer(
                &self.buffers.indirect,
                0,
                bytemuck::cast_slice(&list.commands),
            );
        }
        self.stats = list.stats;
        if frame.culling.is_some() {
            // Its octagons are in the frozen camera's screen: they must not clip this frame.
            self.write_open_records(&gpu.queue, &self.buffers.records);
        }
    }

    /// The frame uniform: the camera, `params` (w: the skybox is shown) and every view's
    /// transform and clip plane.
    fn write_frame_uniform(&self, gpu: &Gpu, frame: &FrameInputs, params: [f32; 4]) {
        let (camera, visible) = (frame.camera, frame.visible);
        let params = [
            params[0],
            params[1],
            params[2],
            if self.skybox_active { 1.0 } else { 0.0 },
        ];
        let mut views = [WorldView {
            view_proj: camera.view_proj().to_cols_array_2d(),
            clip_plane: [0.0, 0.0, 0.0, 1.0],
            eye: camera.position.extend(1.0).to_array(),
        }; MAX_VIEWS];
        for (i, v) in visible.views.iter().take(MAX_VIEWS - 1).enumerate() {
            views[i + 1] = WorldView {
                view_proj: v.view_proj.to_cols_array_2d(),
                clip_plane: v.clip_plane.to_array(),
                eye: v.eye.extend(1.0).to_array(),
            };
        }
        let s = &self.lighting.style_scales;
        let frame = WorldFrame {
            view_proj: camera.view_proj().to_cols_array_2d(),
            eye: camera.position.extend(1.0).to_array(),
            params,
            styles: std::array::from_fn(|i| [s[4 * i], s[4 * i + 1], s[4 * i + 2], s[4 * i + 3]]),
            views,
            fog: frame.fog,
            shadow_to_light: self
                .lighting
                .shadows
                .as_ref()
                .map_or([[[0.0; 4]; 4]; 2], |s| s.to_light),
            shadow: self
                .lighting
                .shadows
                .as_ref()
                .map_or([0.0; 4], |s| s.params),
            water: [
                visible.views.iter().any(|v| v.reflection) as u32 as f32,
                0.0,
                0.0,
                0.0,
            ],
            clouds: self.clouds,
        };
        gpu.queue
            .write_buffer(&self.buffers.frame_buffer, 0, bytemuck::bytes_of(&frame));
    }
}

impl Pass for WorldPass {
    fn scope(&self) -> Scope {
        Scope {
            name: "world",
            prepare: "world prepare",
            record: "world record",
        }
    }

    fn attachments(&self) -> PassAttachments {
        // After the UI cover (which cleared them) the world keeps its depth and colour.
        let load = if self.after_cover {
            Load::Keep
        } else {
            Load::Clear
        };
        PassAttachments {
            color: (Attachment::SceneColorGamma, load),
            depth: Some((Attachment::FrameDepth, load)),
        }
    }

    fn prepare(&mut self, gpu: &Gpu, inputs: &FrameInputs) -> Prepared {
        let s = inputs.settings;
        self.use_sun_shadows(gpu, inputs.sun);
        // The UI cover, drawn before whenever there are panels, cleared the colour and depth.
        self.after_cover = !inputs.ui_cover.is_empty();
        // z: 1 fullbright, 2 tint by cell, 3 tint by flow depth (the overlays).
        let mode = match s.tint {
            crate::settings::OverlayTint::Cells => 2.0,
            crate::settings::OverlayTint::Depth => 3.0,
            crate::settings::OverlayTint::None => s.fullbright as u32 as f32,
        };
        let params = [s.time, s.light_scale, mode, 0.0];
        self.shading.linear_filtering = s.linear_filtering;
        // Fullbright and the tints go through `fs_main` (`fs_opaque` has no branch for them).
        self.debug.tinted = s.tint != crate::settings::OverlayTint::None || s.fullbright;
        self.debug.magnified_fetch = s.magnified_fetch;
        self.debug.two_level_blend = s.two_level_blend;
        let reflects = inputs.visible.views.iter().any(|v| v.reflection);
        self.use_full_shading(gpu, reflects);
        self.lighting.style_scales = lanthorn_level::styles::scales(
            s.time as f64,
            s.light_styles,
            self.lighting.styles_off ^ s.switched,
        );
        // Daylight baked under its own style dims with the terrain's at night.
        if self.lighting.sun_style != 0 {
            self.lighting.style_scales[self.lighting.sun_style as usize] *=
                s.time_of_day.daylight();
        }
        self.prepare_frame(gpu, inputs, params, s.surface_tests);
        Prepared::Recorded
    }

    /// The surface cache's bake into its atlas, before the world draws from it.
    fn offscreen(&self) -> Vec<Offscreen<'_>> {
        self.bake_passes()
    }

    fn record_offscreen(&self, index: usize, pass: &mut wgpu::RenderPass<'_>) {
        if let Some(atlas) = &self.cache.atlas {
            atlas.record_bake(index, pass, &self.shading.bind_groups[0]);
        }
    }

    /// Records the prepared draws.
    fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_bind_group(
            0,
            &self.shading.bind_groups[self.shading.linear_filtering as usize],
            &[],
        );
        if let Some(s) = &self.lighting.shadows {
            pass.set_bind_group(2, &s.group, &[]);
        }
        pass.set_vertex_buffer(0, self.buffers.vertex_buffer.slice(..));
        pass.set_index_buffer(
            self.buffers.index_buffer.slice(..),
            wgpu::IndexFormat::Uint32,
        );
        let list = self.draws.list();
        for (batch, (first, count)) in list.batches_in_order(self.liquids_first()) {
            if count == 0 {
                continue;
            }
            if CACHED_BATCHES.contains(&batch) {
                let Some(atlas) = &self.cache.atlas else {
                    continue;
                };
                pass.set_pipeline(&atlas.pipelines[self.cached_pipeline(batch)]);
                pass.set_bind_group(
                    1,
                    &atlas.bind_groups[self.shading.linear_filtering as usize],
                    &[],
                );
                self.draw_batch(pass, first, count);
                continue;
            }
            pass.set_pipeline(self.batch_pipeline(batch));
            self.draw_batch(pass, first, count);
        }
    }
}

/// A stamp no world's shading has had (`WorldPass::shading_stamp`).
fn next_stamp() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
