//! What the terrain draws with: its pipelines, buffers and uniforms, the per-frame uploads
//! and the commands (`Terrain` is the pass; this is its GPU side).

mod buffers;
mod create;
#[cfg(feature = "test-hooks")]
mod hooks;
mod lighting;
mod pipelines;
mod reflection;
mod uniforms;

use std::ops::Range;

use bytemuck::Zeroable;
use glam::Vec3;

use crate::gpu::Gpu;
use crate::shaders;
use crate::terrain::debug::LineVertex;
use crate::terrain::TerrainOverlay;
use lanthorn_geom::Camera;
use lanthorn_terrain::{
    ClipmapConfig, ClipmapFrame, ClipmapMeshes, HeightUpdates, MeshKind, PartRun, TerrainInstance,
    TerrainShading,
};

use self::buffers::*;
use self::lighting::{arrange, SurfaceDraw, SurfaceShading};
use self::pipelines::*;
use self::uniforms::*;

#[cfg(feature = "test-hooks")]
pub use self::hooks::{ReferenceVertex, VertexReadback};
#[cfg(test)]
pub(crate) use self::pipelines::INSTANCE_ATTRIBUTES;
pub use self::uniforms::TerrainView;

/// The terrain's GPU side: the clipmap meshes and height windows, the pipelines, and the
/// uniforms and instances it uploads each frame.
pub struct TerrainDraw {
    pub(in crate::terrain) fill: wgpu::RenderPipeline,
    pub(in crate::terrain) seam: wgpu::RenderPipeline,
    pub(in crate::terrain) wire: Option<wgpu::RenderPipeline>,
    pub(in crate::terrain) sky: wgpu::RenderPipeline,
    pub(in crate::terrain) lines: wgpu::RenderPipeline,
    /// The test hooks' shader module and pipelines.
    #[cfg(feature = "test-hooks")]
    pub(in crate::terrain) hooks: self::hooks::TerrainHooks,
    pub(in crate::terrain) mesh_vertices: wgpu::Buffer,
    pub(in crate::terrain) mesh_indices: wgpu::Buffer,
    pub(in crate::terrain) kinds: [KindRange; 5],
    pub(in crate::terrain) instances: wgpu::Buffer,
    #[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
    pub(in crate::terrain) instance_count: u32,
    pub(in crate::terrain) frame_buffer: wgpu::Buffer,
    pub(in crate::terrain) view_buffer: wgpu::Buffer,
    pub(in crate::terrain) heights: wgpu::Texture,
    pub(in crate::terrain) heights_view: wgpu::TextureView,
    pub(in crate::terrain) bind_group_layout: wgpu::BindGroupLayout,
    pub(in crate::terrain) sky_sampler: wgpu::Sampler,
    /// The sky and the fog colour come from the level's cubemap skybox (`set_skybox`).
    pub(in crate::terrain) skybox: bool,
    /// The sky and the fog colour come from the daylight model for the terrain's sun
    /// (`terrain::ScatteringSky`), over the skybox (`FrameSettings::sky`).
    pub(in crate::terrain) scattering: bool,
    /// The daylight model's uniform and the sun it was made for.
    sky_model: Option<(Vec3, [[f32; 4]; 6])>,
    /// The sky cube and the point light map the bind group holds; the cube is the level's
    /// skybox (or a placeholder), or under the daylight sky its cube for the sun it was baked
    /// for (`baked_sky`).
    sky_view: wgpu::TextureView,
    level_sky: wgpu::TextureView,
    baked_sky: Option<(Vec3, wgpu::TextureView)>,
    lamp_view: wgpu::TextureView,
    /// The point light map's corner and size in the terrain's frame (`set_lamps`).
    lamp_window: Option<(glam::Vec2, glam::Vec2)>,
    /// This frame: point lights on (`FrameSettings::point_lights`) and the daylight factor.
    pub(in crate::terrain) point_lights: bool,
    pub(in crate::terrain) daylight: f32,
    pub(in crate::terrain) bind_group: wgpu::BindGroup,
    /// The sun's cascades as the bind group holds them (a placeholder until `set_shadows`).
    shadow_views: wgpu::TextureView,
    shadow_sampler: wgpu::Sampler,
    /// The casters' pipeline and group, made by `set_shadows`.
    casters: Option<(wgpu::RenderPipeline, wgpu::BindGroup)>,
    /// The instances each cascade draws (`upload_casters`), one cascade after the other, and
    /// per cascade its draws: a kind and its range in that buffer.
    caster_instances: Option<wgpu::Buffer>,
    caster_draws: [Vec<(MeshKind, PartRun, Range<u32>)>; 2],
    /// The fill and seam pipelines of the shading's variants and fragment stages (made on
    /// first use), by `TerrainVariant::bits` and stage (the plain variant lit per pixel is
    /// `fill` and `seam`).
    variants: std::collections::HashMap<(usize, SurfaceShading), [wgpu::RenderPipeline; 2]>,
    /// This frame's variant's `TerrainVariant::bits`.
    variant_bits: usize,
    /// The lean lit-per-vertex stages where they apply (`SurfaceShading::entries`); off only
    /// as their test's oracle (`use_full_stages`).
    lean_stages: bool,
    /// Where this frame lights the surface, and the instances as drawn (`lighting::arrange`).
    pub(in crate::terrain) lighting: crate::settings::TerrainLighting,
    arranged: Vec<TerrainInstance>,
    /// This frame tints the surface by level (the overlay).
    level_colors: bool,
    color_format: wgpu::TextureFormat,
    module: wgpu::ShaderModule,
    /// The sea's reflection (`set_reflection`) and what the main group holds without one.
    pub(in crate::terrain) reflection: Option<reflection::WaterReflection>,
    no_reflection: wgpu::TextureView,
    /// This frame draws the reflection and the sea shows it (`FrameSettings::reflections`, a
    /// sea, a reflection made); and the clock its waves move by.
    pub(in crate::terrain) reflecting: bool,
    pub(in crate::terrain) water_time: f32,
    /// This frame's cascades as the shading reads them; `None`: no shadows.
    pub(in crate::terrain) shadow_receiver: Option<crate::shadow::ShadowReceiver>,
    pub(in crate::terrain) line_buffer: Option<wgpu::Buffer>,
    pub(in crate::terrain) line_count: u32,
    pub(in crate::terrain) draws: Vec<SurfaceDraw>,
    pub(in crate::terrain) wireframe: bool,
    pub(in crate::terrain) view: TerrainView,
    /// Set by `Terrain::prepare` before the pass is prepared.
    pub(in crate::terrain) view_octagon: lanthorn_geom::Octagon,
    pub(in crate::terrain) levels: u32,
    pub(in crate::terrain) window: u32,
    pub(in crate::terrain) gpu_bytes: usize,
    /// How the surface is lit and coloured, which the view uniform is made from; adjustable
    /// after creation (the level's sun).
    pub shading: TerrainShading,
}

impl TerrainDraw {
    /// Draws the sky, and fades the distance into it, from the level's cubemap skybox (a
    /// `Cube` view that decodes its sRGB texels), so the terrain meets the sky the world's sky
    /// surfaces show.
    pub fn set_skybox(&mut self, gpu: &Gpu, skybox: &wgpu::TextureView) {
        self.level_sky = skybox.clone();
        self.skybox = true;
        self.bind_sky(gpu);
    }

    /// Binds the sky this frame shows: under the daylight sky its cube for the terrain's sun
    /// (baked when the sun moved), else the level's skybox.
    fn bind_sky(&mut self, gpu: &Gpu) {
        let sun = self.shading.sun;
        if self.scattering && self.baked_sky.as_ref().map(|(s, _)| *s) != Some(sun) {
            let sky = lanthorn_terrain::ScatteringSky::new(sun, lanthorn_terrain::sky::TURBIDITY);
            let cube = crate::terrain::sky_cube::bake(gpu, &sky);
            self.baked_sky = Some((sun, cube));
        }
        let view = match (&self.baked_sky, self.scattering) {
            (Some((_, cube)), true) => cube,
            _ => &self.level_sky,
        };
        if *view != self.sky_view {
            self.sky_view = view.clone();
            self.rebind(gpu);
        }
    }

    /// The lamps' point light map (`terrain::lamps`), its corner offset by `origin` (where the
    /// level places the terrain) into the terrain's frame.
    pub fn set_lamps(
        &mut self,
        gpu: &Gpu,
        map: &lanthorn_terrain::lamps::LampMap,
        origin: glam::Vec2,
    ) {
        let texture = wgpu::util::DeviceExt::create_texture_with_data(
            &gpu.device,
            &gpu.queue,
            &wgpu::TextureDescriptor {
                label: Some("terrain point light map"),
                size: wgpu::Extent3d {
                    width: map.width,
                    height: map.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8Unorm,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            bytemuck::cast_slice(&map.texels),
        );
        self.lamp_view = texture.create_view(&Default::default());
        self.lamp_window = Some((map.origin - origin, map.size));
        self.rebind(gpu);
    }

    /// The daylight model's uniform for the terrain's sun, made again only when the sun moves.
    pub(in crate::terrain) fn scattering_uniform(&mut self) -> [[f32; 4]; 6] {
        let sun = self.shading.sun;
        match self.sky_model {
            Some((at, uniform)) if at == sun => uniform,
            _ => {
                let sky =
                    lanthorn_terrain::ScatteringSky::new(sun, lanthorn_terrain::sky::TURBIDITY);
                self.sky_model = Some((sun, sky.uniform()));
                sky.uniform()
            }
        }
    }

    /// What the bind group holds.
    fn bindings(&self) -> TerrainBindings<'_> {
        TerrainBindings {
            frame: &self.frame_buffer,
            view: &self.view_buffer,
            heights: &self.heights_view,
            sky: &self.sky_view,
            sky_sampler: &self.sky_sampler,
            lamps: &self.lamp_view,
            shadow_maps: &self.shadow_views,
            shadow_sampler: &self.shadow_sampler,
            reflection: Some(
                self.reflection
                    .as_ref()
                    .map_or(&self.no_reflection, |r| &r.color),
            ),
        }
    }

    fn rebind(&mut self, gpu: &Gpu) {
        self.bind_group =
            terrain_bind_group(&gpu.device, &self.bind_group_layout, &self.bindings());
        if let Some(r) = &self.reflection {
            let without = TerrainBindings {
                reflection: None,
                ..self.bindings()
            };
            let group = terrain_bind_group(&gpu.device, &r.layout, &without);
            if let Some(r) = &mut self.reflection {
                r.group = Some(group);
            }
        }
    }

    /// The sea's reflection at `frame_size / reflection::SCALE` (made again when that
    /// changes), or none.
    pub fn set_reflection(&mut self, gpu: &Gpu, frame_size: Option<(u32, u32)>) {
        let size = frame_size.map(|(w, h)| {
            (
                (w / reflection::SCALE).max(1),
                (h / reflection::SCALE).max(1),
            )
        });
        if self.reflection.as_ref().map(|r| r.size) == size {
            return;
        }
        self.reflection = size.map(|size| {
            reflection::WaterReflection::new(&gpu.device, size, &self.module, self.color_format)
        });
        self.rebind(gpu);
    }

    /// The reflection's colour and depth views while this frame draws it.
    pub fn reflection_target(&self) -> Option<(&wgpu::TextureView, &wgpu::TextureView)> {
        self.reflection
            .as_ref()
            .filter(|_| self.reflecting)
            .map(|r| (&r.color, &r.depth))
    }

    /// Records the mirrored land and sky into the reflection (a pass on `reflection_target`).
    pub fn record_reflection(&self, pass: &mut wgpu::RenderPass<'_>) {
        let Some(r) = &self.reflection else { return };
        let Some(group) = &r.group else { return };
        pass.set_bind_group(0, group, &[]);
        if !self.draws.is_empty() {
            pass.set_vertex_buffer(0, self.mesh_vertices.slice(..));
            pass.set_vertex_buffer(1, self.instances.slice(..));
            pass.set_index_buffer(self.mesh_indices.slice(..), wgpu::IndexFormat::Uint32);
            for (kind, run, range, _) in &self.draws {
                pass.set_pipeline(if *kind == MeshKind::Seam {
                    &r.seam
                } else {
                    &r.fill
                });
                let k = self.kinds[*kind as usize];
                pass.draw_indexed(k.run(*run), k.base_vertex as i32, range.clone());
            }
        }
        pass.set_pipeline(&r.sky);
        pass.draw(0..3, 0..1);
    }

    /// The sun's shadow cascades: the shading samples them, and the terrain casts into them
    /// (`record_casters`).
    pub fn set_shadows(&mut self, gpu: &Gpu, shadows: &crate::shadow::SunShadows) {
        self.shadow_views = shadows.maps.clone();
        self.shadow_sampler = shadows.compare_sampler.clone();
        self.rebind(gpu);
        let layout = create_caster_layout(&gpu.device);
        let group = caster_bind_group(
            &gpu.device,
            &layout,
            &self.bindings(),
            &shadows.caster_buffer,
        );
        let pipeline = create_caster_pipeline(&gpu.device, &layout, &self.module);
        self.casters = Some((pipeline, group));
    }

    /// Draws into a scene of `format` (the LDR frame's sRGB colour or the HDR scene; the
    /// shading is linear either way): the surface, sky and debug pipelines made again, the
    /// variants' on their next use. The sea's reflection keeps its own target.
    pub fn set_color_format(&mut self, gpu: &Gpu, format: wgpu::TextureFormat) {
        if format == self.color_format {
            return;
        }
        let layout = gpu
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("terrain"),
                bind_group_layouts: &[Some(&self.bind_group_layout)],
                immediate_size: 0,
            });
        let pipelines = create_pipelines(gpu, &layout, &self.module, format);
        self.fill = pipelines.fill;
        self.seam = pipelines.seam;
        self.wire = pipelines.wire;
        self.sky = pipelines.sky;
        self.lines = pipelines.lines;
        self.variants = Default::default();
        self.color_format = format;
    }

    /// Writes this frame: the frame uniform and instances of `frame.selection`, the height
    /// updates, the view (the eye is `camera`; `selection_camera` is where the selection was made
    /// when that differs, e.g. frozen culling) and the debug boxes. Returns the bytes of height
    /// data written.
    pub fn upload(&mut self, gpu: &Gpu, upload: &TerrainUpload) -> usize {
        let TerrainUpload {
            camera,
            selection_camera,
            frame,
            overlay,
            lines,
            world_shadowed,
        } = *upload;
        let sel = frame.selection;
        arrange(
            sel,
            self.lighting,
            world_shadowed,
            &mut self.arranged,
            &mut self.draws,
        );
        let q = &gpu.queue;
        q.write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&sel.frame));
        let capacity =
            (self.instances.size() / std::mem::size_of::<TerrainInstance>() as u64) as usize;
        if sel.instances.len() > capacity {
            self.instances = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("terrain instances"),
                size: (sel.instances.len().next_power_of_two()
                    * std::mem::size_of::<TerrainInstance>()) as u64,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
        }
        if !self.arranged.is_empty() {
            q.write_buffer(&self.instances, 0, bytemuck::cast_slice(&self.arranged));
        }
        self.instance_count = sel.instances.len() as u32;

        let updates: &HeightUpdates = frame.updates;
        for r in &updates.rects {
            if r.layer >= self.levels || r.x + r.width > self.window || r.y + r.height > self.window
            {
                log::error!("terrain: height update {r:?} outside the texture array; skipped");
                continue;
            }
            q.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &self.heights,
                    mip_level: 0,
                    origin: wgpu::Origin3d {
                        x: r.x,
                        y: r.y,
                        z: r.layer,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                bytemuck::cast_slice(updates.rect_data(r)),
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(r.width * 4),
                    rows_per_image: Some(r.height),
                },
                wgpu::Extent3d {
                    width: r.width,
                    height: r.height,
                    depth_or_array_layers: 1,
                },
            );
        }

        let eye_offset = match selection_camera {
            Some(s) => (s.position.as_dvec3() - camera.position.as_dvec3()).as_vec3(),
            None => Vec3::ZERO,
        };
        self.fill_view(gpu, camera, eye_offset, overlay);
        q.write_buffer(&self.view_buffer, 0, bytemuck::bytes_of(&self.view));
        self.wireframe = overlay.wireframe && self.wire.is_some();

        self.line_count = lines.len() as u32;
        if !lines.is_empty() {
            let bytes = std::mem::size_of_val(lines) as u64;
            if self.line_buffer.as_ref().is_none_or(|b| b.size() < bytes) {
                self.line_buffer = Some(gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("terrain debug boxes"),
                    size: bytes.next_power_of_two().max(4096),
                    usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }));
            }
            if let Some(b) = &self.line_buffer {
                q.write_buffer(b, 0, bytemuck::cast_slice(lines));
            }
        }
        updates.bytes()
    }

    /// This frame's view uniform: the eye, the shading, the sky, the lamps, the cascades, the
    /// sea and the outdoor octagon.
    fn fill_view(
        &mut self,
        gpu: &Gpu,
        camera: &Camera,
        eye_offset: Vec3,
        overlay: &TerrainOverlay,
    ) {
        self.view = view_uniform(camera, eye_offset, &self.shading);
        self.level_colors = overlay.level_colors;
        self.bind_sky(gpu);
        self.view.flags[2] = (self.skybox || self.scattering) as u32;
        self.view.light[0] = self.daylight;
        if let (true, Some((corner, size))) = (self.point_lights, self.lamp_window) {
            let rel = corner - camera.position.truncate();
            self.view.lamps = [rel.x, rel.y, 1.0 / size.x, 1.0 / size.y];
            self.view.light[1] = lanthorn_terrain::lamps::RANGE;
        }
        if let Some(r) = &self.shadow_receiver {
            self.view.shadow_rel = r.rel_to_light;
            self.view.shadow = [r.texel[0], r.texel[1], r.fade[0], r.fade[1]];
        }
        self.make_variant(gpu);
        let s = &self.shading;
        let foam = (0.004 * s.height_span).max(2.0);
        self.view.water = [
            self.reflecting as u32 as f32,
            self.water_time,
            foam,
            camera.position.z - s.sea_level,
        ];
        self.view.oct_min = self.view_octagon.min;
        self.view.oct_max = self.view_octagon.max;
    }

    /// Draw commands of the surface and the sky in the last prepared frame.
    pub fn draw_calls(&self) -> u32 {
        self.draws.len() as u32 + 1
    }

    /// Extra draw commands of the overlays in the last prepared frame.
    pub fn overlay_draw_calls(&self) -> u32 {
        (if self.wireframe {
            self.draws.len() as u32
        } else {
            0
        }) + (self.line_count > 0) as u32
    }

    /// GPU memory the draw holds: height windows, meshes and instance buffer.
    pub fn gpu_bytes(&self) -> usize {
        self.gpu_bytes
    }

    /// Records the prepared frame into `pass` (colour + reverse-Z depth of the frame target).
    pub fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_bind_group(0, &self.bind_group, &[]);
        if !self.draws.is_empty() {
            pass.set_vertex_buffer(0, self.mesh_vertices.slice(..));
            pass.set_vertex_buffer(1, self.instances.slice(..));
            pass.set_index_buffer(self.mesh_indices.slice(..), wgpu::IndexFormat::Uint32);
            self.record_meshes(pass, None);
            if self.wireframe {
                self.record_meshes(pass, self.wire.as_ref());
            }
        }
        pass.set_pipeline(&self.sky);
        pass.draw(0..3, 0..1);
        if let (Some(b), true) = (&self.line_buffer, self.line_count > 0) {
            pass.set_pipeline(&self.lines);
            pass.set_vertex_buffer(0, b.slice(..));
            pass.draw(0..self.line_count, 0..1);
        }
    }

    /// Writes each cascade's caster instances (grouped by kind, as `Terrain` picked them) and
    /// keeps their draws.
    pub fn upload_casters(&mut self, gpu: &Gpu, lists: &[Vec<CasterPiece>; 2]) {
        let mut all: Vec<TerrainInstance> = Vec::new();
        for (list, draws) in lists.iter().zip(self.caster_draws.iter_mut()) {
            draws.clear();
            for &(kind, run, inst) in list {
                let at = all.len() as u32;
                match draws.last_mut() {
                    Some((k, r, range)) if (*k, *r) == (kind, run) && range.end == at => {
                        range.end += 1
                    }
                    _ => draws.push((kind, run, at..at + 1)),
                }
                all.push(inst);
            }
        }
        if all.is_empty() {
            return;
        }
        let bytes = std::mem::size_of_val(all.as_slice()) as u64;
        if self
            .caster_instances
            .as_ref()
            .is_none_or(|b| b.size() < bytes)
        {
            self.caster_instances = Some(gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("terrain caster instances"),
                size: bytes.next_power_of_two(),
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let Some(b) = &self.caster_instances {
            gpu.queue.write_buffer(b, 0, bytemuck::cast_slice(&all));
        }
    }

    /// Records the terrain's casters into shadow cascade `index` (a depth-only pass on its
    /// map), after `upload_casters`.
    pub fn record_casters(&self, index: usize, pass: &mut wgpu::RenderPass<'_>) {
        let (Some((pipeline, group)), Some(instances)) = (&self.casters, &self.caster_instances)
        else {
            return;
        };
        if self.caster_draws[index].is_empty() {
            return;
        }
        pass.set_pipeline(pipeline);
        let offset = crate::shadow::SunShadows::caster_offset(index);
        pass.set_bind_group(0, group, &[offset]);
        pass.set_vertex_buffer(0, self.mesh_vertices.slice(..));
        pass.set_vertex_buffer(1, instances.slice(..));
        pass.set_index_buffer(self.mesh_indices.slice(..), wgpu::IndexFormat::Uint32);
        for (kind, run, range) in &self.caster_draws[index] {
            let k = self.kinds[*kind as usize];
            pass.draw_indexed(k.run(*run), k.base_vertex as i32, range.clone());
        }
    }

    /// This frame's variant of the shading (an index into `variants`), `None` for the plain one.
    fn variant(&self, gpu: &Gpu) -> shaders::TerrainVariant {
        shaders::TerrainVariant {
            clip_distances: gpu.features.clip_distances,
            sun_shadows: self.shadow_receiver.is_some(),
            water_reflections: self.reflecting,
            point_lights: self.view.light[1] > 0.0,
            level_colors: self.level_colors,
        }
    }

    /// Makes the pipelines of this frame's variant and fragment stages if they are not yet,
    /// and keeps which variant it is.
    fn make_variant(&mut self, gpu: &Gpu) {
        let variant = self.variant(gpu);
        self.variant_bits = variant.bits();
        for i in 0..self.draws.len() {
            let shading = self.draws[i].3;
            let key = (self.variant_bits, shading);
            if key == (0, SurfaceShading::Pixel) || self.variants.contains_key(&key) {
                continue;
            }
            let pipelines = create_variant_pipelines(
                gpu,
                &self.bind_group_layout,
                self.color_format,
                variant,
                shading.entries(variant, self.lean_stages),
            );
            self.variants.insert(key, pipelines);
        }
    }

    /// The fill and seam pipelines of this frame's variant for `shading`.
    fn surface_pipelines(&self, shading: SurfaceShading) -> [&wgpu::RenderPipeline; 2] {
        match self.variants.get(&(self.variant_bits, shading)) {
            Some([fill, seam]) => [fill, seam],
            None => [&self.fill, &self.seam],
        }
    }

    fn record_meshes(&self, pass: &mut wgpu::RenderPass<'_>, only: Option<&wgpu::RenderPipeline>) {
        let mut current: Option<*const wgpu::RenderPipeline> = None;
        for (kind, run, range, shading) in &self.draws {
            let [fill, seam] = self.surface_pipelines(*shading);
            let pipe = only.unwrap_or(if *kind == MeshKind::Seam { seam } else { fill });
            if current != Some(pipe as *const _) {
                pass.set_pipeline(pipe);
                current = Some(pipe as *const _);
            }
            let k = self.kinds[*kind as usize];
            pass.draw_indexed(k.run(*run), k.base_vertex as i32, range.clone());
        }
    }
}

/// A piece casting into a cascade: its kind, the run of its mesh's parts that does, where.
pub(in crate::terrain) type CasterPiece = (MeshKind, PartRun, TerrainInstance);

/// What the terrain pass uploads for one frame.
#[derive(Clone, Copy)]
pub struct TerrainUpload<'a> {
    /// The eye.
    pub camera: &'a Camera,
    /// Where the selection was made when that is not the eye (frozen culling).
    pub selection_camera: Option<&'a Camera>,
    /// The clipmap selection to draw and the height updates to upload first.
    pub frame: &'a ClipmapFrame<'a>,
    /// The debug overlays switched on (wireframe, level tints, tile boxes).
    pub overlay: &'a TerrainOverlay,
    /// Debug boxes, eye-relative.
    pub lines: &'a [LineVertex],
    /// Per instance of the selection: a brush's shadow may fall on it (empty: on none).
    pub world_shadowed: &'a [bool],
}
