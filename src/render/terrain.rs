//! The terrain pass: the geometry-clipmap rings of [`crate::terrain::ClipmapTerrain`] drawn with
//! one static mesh per kind (tile, filler, trim, seam, centre cross), instanced: at most five mesh
//! draws plus the sky, whatever the level count.
//!
//! - `create`: the meshes go up once into one vertex and one index buffer; the per-level height
//!   windows live in one R32Float 2D texture array (one `window_size`² layer per level, addressed
//!   toroidally by the vertex shader).
//! - `prepare` (per frame): the 48-byte [`FrameUniform`](crate::terrain::FrameUniform), the
//!   instance records of the selection, the view/shading uniform, and the height updates —
//!   `queue.write_texture` per [`UpdateRect`](crate::terrain::UpdateRect), i.e. only the rows and
//!   columns that entered a window.
//! - `record`: one instanced `draw_indexed` per non-empty mesh kind (the seam with no culling),
//!   the optional wireframe overlay, the sky (a full-screen triangle at the far depth) and the
//!   optional debug boxes.
//!
//! Positions are camera-relative: the vertex shader works relative to the selection camera
//! (`FrameUniform::camera_offset`), multiplies by `projection × view_rotation` and never sees a
//! large world coordinate, so a planet-sized heightmap keeps its precision; depth is reverse-Z.
//!
//! [`Terrain`] ties a [`ClipmapTerrain`] (selection, streaming) to its [`TerrainPass`]; the
//! [`super::Renderer`] owns one when a terrain is loaded.

use std::cell::OnceCell;
use std::ops::Range;
use std::time::Instant;

use bytemuck::{Pod, Zeroable};
use glam::{DVec2, DVec3, Vec3};
use wgpu::util::DeviceExt;

use super::gpu::Gpu;
use super::world::uniform_entry;
use super::{shaders, DEPTH_FORMAT};
use crate::geom::Camera;
use crate::terrain::clipmap::instance_aabb;
use crate::terrain::{
    ClipmapConfig, ClipmapMeshes, ClipmapTerrain, HeightUpdates, Heightmap, Instance, MeshKind,
    TerrainFrame,
};

/// Debug overlays of the terrain (the demo panel's checkboxes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TerrainOverlay {
    /// Tint every level with its own colour (blended across the morph band).
    pub level_colors: bool,
    /// Triangle edges on top of the surface (needs POLYGON_MODE_LINE; silently off without it).
    pub wireframe: bool,
    /// Boxes around the drawn tiles (x/y of the tile, z from the min/max pyramid).
    pub tile_bounds: bool,
    /// Boxes (red) around the tiles frustum culling removed.
    pub culled_tiles: bool,
    /// Keep selecting for the camera of the frame this was switched on, so the culled tiles
    /// and the ring layout can be inspected from elsewhere.
    pub freeze_culling: bool,
}

/// What the terrain cost and submitted in one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct TerrainStats {
    /// CPU: ring selection (with frustum culling), µs.
    pub select_us: f64,
    /// CPU: producing the height rows/columns that entered the windows, µs.
    pub stream_us: f64,
    /// CPU: writing uniforms, instances and height updates to the queue, µs.
    pub upload_us: f64,
    pub first_level: u32,
    pub levels_drawn: u32,
    pub instances: u32,
    pub pieces_culled: u32,
    pub triangles: u64,
    /// Draw commands of the terrain itself: one per non-empty mesh kind plus the sky (≤ 6).
    pub draw_calls: u32,
    /// Extra draw commands of the debug overlays (wireframe, boxes).
    pub overlay_draw_calls: u32,
    /// Height bytes written to the texture array this frame.
    pub upload_bytes: usize,
    pub upload_rects: usize,
    /// GPU memory held by the pass (height windows, meshes, instance buffer), independent of
    /// the heightmap's size.
    pub gpu_bytes: usize,
}

/// How the terrain is lit and coloured; derived from the heightmap by
/// [`TerrainShading::for_heightmap`], adjustable afterwards.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainShading {
    /// World height of the water surface (below it: water colours, flat lighting).
    pub sea_level: f32,
    /// Height where snow starts on gentle slopes.
    pub snow_line: f32,
    /// Total height range (tints water depth).
    pub height_span: f32,
    /// Beach width as a fraction of the sea-to-snow range.
    pub beach: f32,
    /// Distance where exp² fog reaches 63 %.
    pub fog_distance: f32,
    /// Fog strength (0 = no distance fog; the edge fade stays).
    pub fog_strength: f32,
    /// Distances where the fade to the horizon colour starts and completes (hides the
    /// clipmap's outer edge).
    pub edge_fade: (f32, f32),
    /// Draw the water as a flat surface at `sea_level` (the ground below only tints it).
    pub flat_water: bool,
    /// Towards the sun.
    pub sun: Vec3,
    pub ambient: f32,
    /// Linear RGB.
    pub sky_zenith: [f32; 3],
    pub sky_horizon: [f32; 3],
}

impl TerrainShading {
    /// Bands from a 128×128 sample of the heightmap: the sea at 0 when the source spans it
    /// (ETOPO5), at the 20th percentile for procedural terrain, none otherwise; the snow line at
    /// the 98.5th percentile of the land. Fog from the map's and the clipmap's extents.
    pub fn for_heightmap(hm: &Heightmap, cfg: &ClipmapConfig) -> TerrainShading {
        let (w, h) = hm.size();
        let n = 128u64;
        let mut s: Vec<f32> = Vec::with_capacity((n * n) as usize);
        for j in 0..n {
            for i in 0..n {
                let x = (i * (w - 1) / (n - 1)) as i64;
                let y = (j * (h - 1) / (n - 1)) as i64;
                s.push(hm.sample(x, y));
            }
        }
        s.sort_by(|a, b| a.total_cmp(b));
        let pct = |v: &[f32], q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        let (lo, hi) = (s[0], s[s.len() - 1]);
        let sea = if hm.is_procedural() {
            pct(&s, 0.2)
        } else if lo < 0.0 && hi > 0.0 {
            0.0
        } else {
            lo - 1.0
        };
        let land: Vec<f32> = s.iter().copied().filter(|&v| v >= sea).collect();
        let snow = if land.is_empty() {
            hi
        } else {
            pct(&land, 0.985)
        };
        let snow = if snow - sea < 1.0 { sea + 1.0 } else { snow };
        let t = cfg.tile_quads() as f64;
        let extent = (2.0 * t * cfg.spacing(cfg.levels - 1)) as f32;
        let (ww, wh) = hm.world_size();
        let map = ww.max(wh) as f32;
        let fog = (0.3 * map).clamp(2000.0, 0.5 * extent);
        TerrainShading {
            sea_level: sea,
            snow_line: snow,
            height_span: (hi - lo).max(1.0),
            beach: 0.015,
            fog_distance: fog,
            fog_strength: 1.0,
            edge_fade: (0.75 * extent, 0.95 * extent),
            flat_water: true,
            sun: Vec3::new(0.45, -0.35, 0.70).normalize(),
            ambient: 0.35,
            sky_zenith: [0.10, 0.24, 0.55],
            sky_horizon: [0.56, 0.66, 0.78],
        }
    }
}

/// The view/shading uniform (WGSL `TerrainView`, 272 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct TerrainView {
    pub view_proj: [[f32; 4]; 4],
    pub inv_view_proj: [[f32; 4]; 4],
    pub eye_offset: [f32; 4],
    pub sun: [f32; 4],
    pub sky_zenith: [f32; 4],
    pub sky_horizon: [f32; 4],
    pub bands: [f32; 4],
    pub fog: [f32; 4],
    pub misc: [f32; 4],
    pub flags: [u32; 4],
    /// Screen octagon the terrain is clipped to (the union of the visible outdoor cells'
    /// octagons; the full screen for a terrain-only scene): min and max of x, y, x+y, x−y.
    pub oct_min: [f32; 4],
    pub oct_max: [f32; 4],
}

const OVERLAY_LEVEL_COLORS: u32 = 1;

/// One vertex of the debug boxes: eye-relative position and colour.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct LineVertex {
    pub position: [f32; 3],
    pub color: [u8; 4],
}

/// One vertex of the brute-force reference mesh (`vs_reference`): eye-relative position, world
/// height, normal.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct ReferenceVertex {
    pub rel: [f32; 3],
    pub height: f32,
    pub normal: [f32; 3],
    pub _pad: f32,
}

/// Where one mesh kind sits in the shared vertex/index buffers.
#[derive(Clone, Copy, Debug, Default)]
struct KindRange {
    base_vertex: u32,
    vertex_count: u32,
    first_index: u32,
    index_count: u32,
}

/// Every vertex of every drawn instance as the vertex shader computed it (the test hook).
pub struct VertexReadback {
    /// Pixels per row (the largest mesh's vertex count); row = instance index.
    pub width: u32,
    pub height: u32,
    /// Camera-relative position (xyz) and morph alpha (w), row-major.
    pub rel: Vec<[f32; 4]>,
    /// Clip position of the surface pass.
    pub clip: Vec<[f32; 4]>,
}

impl VertexReadback {
    pub fn at(&self, instance: u32, vertex: u32) -> ([f32; 4], [f32; 4]) {
        let i = (instance * self.width + vertex) as usize;
        (self.rel[i], self.clip[i])
    }
}

pub struct TerrainPass {
    fill: wgpu::RenderPipeline,
    seam: wgpu::RenderPipeline,
    wire: Option<wgpu::RenderPipeline>,
    sky: wgpu::RenderPipeline,
    lines: wgpu::RenderPipeline,
    points: OnceCell<wgpu::RenderPipeline>,
    reference: OnceCell<wgpu::RenderPipeline>,
    layout: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
    mesh_vertices: wgpu::Buffer,
    mesh_indices: wgpu::Buffer,
    kinds: [KindRange; 5],
    instances: wgpu::Buffer,
    instance_count: u32,
    frame_buffer: wgpu::Buffer,
    view_buffer: wgpu::Buffer,
    heights: wgpu::Texture,
    heights_view: wgpu::TextureView,
    bind_group_layout: wgpu::BindGroupLayout,
    sky_sampler: wgpu::Sampler,
    /// The sky and the fog colour come from the level's cubemap skybox (`set_skybox`).
    skybox: bool,
    bind_group: wgpu::BindGroup,
    line_buffer: Option<wgpu::Buffer>,
    line_count: u32,
    draws: Vec<(MeshKind, Range<u32>)>,
    wireframe: bool,
    view: TerrainView,
    /// Set by `Terrain::prepare` before the pass is prepared.
    view_octagon: crate::geom::Octagon,
    levels: u32,
    window: u32,
    gpu_bytes: usize,
    pub shading: TerrainShading,
}

impl TerrainPass {
    /// Draws the sky, and fades the distance into it, from the level's cubemap skybox (a
    /// `Cube` view), so the terrain meets the sky the world's sky surfaces show.
    pub fn set_skybox(&mut self, gpu: &Gpu, skybox: &wgpu::TextureView) {
        self.bind_group = terrain_bind_group(
            &gpu.device,
            &self.bind_group_layout,
            [&self.frame_buffer, &self.view_buffer],
            &self.heights_view,
            skybox,
            &self.sky_sampler,
        );
        self.skybox = true;
    }

    pub fn create(
        gpu: &Gpu,
        cfg: &ClipmapConfig,
        meshes: &ClipmapMeshes,
        shading: TerrainShading,
        color_format: wgpu::TextureFormat,
    ) -> TerrainPass {
        let device = &gpu.device;
        let mesh = create_mesh_buffers(device, meshes);
        let instances = create_instance_buffer(device, cfg);
        let frame_buffer = create_uniform_buffer(
            device,
            "terrain frame",
            std::mem::size_of::<crate::terrain::FrameUniform>(),
        );
        let view_buffer =
            create_uniform_buffer(device, "terrain view", std::mem::size_of::<TerrainView>());
        let window = cfg.window_size();
        let (heights, heights_view) = create_height_windows(device, window, cfg.levels);
        let bgl = create_bind_group_layout(device);
        let sky_sampler = create_sky_sampler(device);
        let placeholder = create_placeholder_sky(device);
        let bind_group = terrain_bind_group(
            device,
            &bgl,
            [&frame_buffer, &view_buffer],
            &heights_view,
            &placeholder,
            &sky_sampler,
        );
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("terrain"),
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("terrain.wgsl"),
            source: wgpu::ShaderSource::Wgsl(shaders::terrain(gpu.features.clip_distances).into()),
        });
        let pipelines = create_pipelines(gpu, &layout, &module, color_format);
        let gpu_bytes = (window as usize).pow(2) * 4 * cfg.levels as usize
            + mesh.bytes
            + instances.size() as usize;
        TerrainPass {
            fill: pipelines.fill,
            seam: pipelines.seam,
            wire: pipelines.wire,
            sky: pipelines.sky,
            lines: pipelines.lines,
            points: OnceCell::new(),
            reference: OnceCell::new(),
            layout,
            module,
            color_format,
            mesh_vertices: mesh.vertices,
            mesh_indices: mesh.indices,
            kinds: mesh.kinds,
            instances,
            instance_count: 0,
            frame_buffer,
            view_buffer,
            heights,
            heights_view,
            bind_group_layout: bgl,
            sky_sampler,
            skybox: false,
            bind_group,
            line_buffer: None,
            line_count: 0,
            draws: Vec::new(),
            wireframe: false,
            view: TerrainView::zeroed(),
            view_octagon: crate::geom::Octagon::FULL,
            levels: cfg.levels,
            window,
            gpu_bytes,
            shading,
        }
    }

    /// Writes this frame: the frame uniform and instances of `frame.selection`, the height
    /// updates, the view (the eye is `camera`; `selection_camera` is where the selection was made
    /// when that differs, e.g. frozen culling) and the debug boxes. Returns the bytes of height
    /// data written.
    pub fn prepare(
        &mut self,
        gpu: &Gpu,
        camera: &Camera,
        selection_camera: Option<&Camera>,
        frame: &TerrainFrame<'_>,
        overlay: &TerrainOverlay,
        lines: &[LineVertex],
    ) -> usize {
        let sel = frame.selection;
        let q = &gpu.queue;
        q.write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&sel.frame));
        let capacity = (self.instances.size() / std::mem::size_of::<Instance>() as u64) as usize;
        if sel.instances.len() > capacity {
            self.instances = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("terrain instances"),
                size: (sel.instances.len().next_power_of_two() * std::mem::size_of::<Instance>())
                    as u64,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
        }
        if !sel.instances.is_empty() {
            q.write_buffer(&self.instances, 0, bytemuck::cast_slice(&sel.instances));
        }
        self.instance_count = sel.instances.len() as u32;
        self.draws.clear();
        self.draws.extend(sel.draws());

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
        let octagon = self.view_octagon;
        self.view = view_uniform(camera, eye_offset, &self.shading, overlay);
        self.view.flags[2] = self.skybox as u32;
        self.view.oct_min = octagon.min;
        self.view.oct_max = octagon.max;
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

    fn record_meshes(&self, pass: &mut wgpu::RenderPass<'_>, only: Option<&wgpu::RenderPipeline>) {
        let mut current: Option<*const wgpu::RenderPipeline> = None;
        for (kind, range) in &self.draws {
            let pipe = only.unwrap_or(if *kind == MeshKind::Seam {
                &self.seam
            } else {
                &self.fill
            });
            if current != Some(pipe as *const _) {
                pass.set_pipeline(pipe);
                current = Some(pipe as *const _);
            }
            let k = self.kinds[*kind as usize];
            pass.draw_indexed(
                k.first_index..k.first_index + k.index_count,
                k.base_vertex as i32,
                range.clone(),
            );
        }
    }

    /// Test hook: runs the surface vertex shader for every vertex of every instance of the last
    /// prepared frame and reads back its camera-relative position and clip position (one pixel
    /// per vertex: column = mesh vertex, row = instance index).
    pub fn read_vertex_positions(&self, gpu: &Gpu) -> VertexReadback {
        let width = self.kinds.iter().map(|k| k.vertex_count).max().unwrap_or(1);
        let height = self.instance_count.max(1);
        let device = &gpu.device;
        let pipe = self.points.get_or_init(|| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("terrain vertex readback"),
                layout: Some(&self.layout),
                vertex: wgpu::VertexState {
                    module: &self.module,
                    entry_point: Some("vs_points"),
                    compilation_options: Default::default(),
                    buffers: &mesh_buffers(),
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::PointList,
                    ..Default::default()
                },
                depth_stencil: None,
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &self.module,
                    entry_point: Some("fs_points"),
                    compilation_options: Default::default(),
                    targets: &[
                        Some(wgpu::TextureFormat::Rgba32Float.into()),
                        Some(wgpu::TextureFormat::Rgba32Float.into()),
                    ],
                }),
                multiview_mask: None,
                cache: None,
            })
        });
        let mut view = self.view;
        view.misc = [width as f32, height as f32, 0.0, 0.0];
        gpu.queue
            .write_buffer(&self.view_buffer, 0, bytemuck::bytes_of(&view));
        let target = |label| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba32Float,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
        };
        let (rel_tex, clip_tex) = (target("terrain rel"), target("terrain clip"));
        let (rel_view, clip_view) = (
            rel_tex.create_view(&Default::default()),
            clip_tex.create_view(&Default::default()),
        );
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("terrain vertex readback"),
                color_attachments: &[nan_attachment(&rel_view), nan_attachment(&clip_view)],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(pipe);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_vertex_buffer(1, self.instances.slice(..));
            for (kind, range) in &self.draws {
                let k = self.kinds[*kind as usize];
                let a = k.base_vertex as u64 * 8;
                let b = a + k.vertex_count as u64 * 8;
                pass.set_vertex_buffer(0, self.mesh_vertices.slice(a..b));
                pass.draw(0..k.vertex_count, range.clone());
            }
        }
        gpu.queue.submit([enc.finish()]);
        gpu.queue
            .write_buffer(&self.view_buffer, 0, bytemuck::bytes_of(&self.view));
        let rel = read_texture_f32(gpu, &rel_tex, 16, 1);
        let clip = read_texture_f32(gpu, &clip_tex, 16, 1);
        VertexReadback {
            width,
            height,
            rel: bytemuck::pod_collect_to_vec::<f32, [f32; 4]>(&rel),
            clip: bytemuck::pod_collect_to_vec::<f32, [f32; 4]>(&clip),
        }
    }

    /// Test hook: every layer of the height texture array, row-major (`window_size`² each).
    pub fn read_heights(&self, gpu: &Gpu) -> Vec<Vec<f32>> {
        let all = read_texture_f32(gpu, &self.heights, 4, self.levels);
        let n = (self.window * self.window) as usize;
        all.chunks(n).map(<[f32]>::to_vec).collect()
    }

    /// Test hook (screen-space error oracle): records a triangle-list mesh of eye-relative
    /// [`ReferenceVertex`]es with the surface shading of the last prepared view (no clipmap).
    pub fn record_reference(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::RenderPass<'_>,
        vertices: &wgpu::Buffer,
        indices: &wgpu::Buffer,
        index_count: u32,
    ) {
        let pipe = self.reference.get_or_init(|| {
            let attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32, 2 => Float32x3];
            surface_pipeline(
                device,
                &self.layout,
                &self.module,
                SurfaceDesc {
                    label: "terrain reference mesh",
                    vs: "vs_reference",
                    fs: "fs_main",
                    buffers: &[Some(wgpu::VertexBufferLayout {
                        array_stride: std::mem::size_of::<ReferenceVertex>() as u64,
                        step_mode: wgpu::VertexStepMode::Vertex,
                        attributes: &attrs,
                    })],
                    cull: Some(wgpu::Face::Back),
                    mode: wgpu::PolygonMode::Fill,
                    depth_write: true,
                    bias: Default::default(),
                    format: self.color_format,
                },
            )
        });
        pass.set_pipeline(pipe);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_vertex_buffer(0, vertices.slice(..));
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..index_count, 0, 0..1);
    }
}

/// The five static meshes in one vertex and one index buffer.
struct MeshBuffers {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    kinds: [KindRange; 5],
    /// Bytes of vertex and index data.
    bytes: usize,
}

fn create_mesh_buffers(device: &wgpu::Device, meshes: &ClipmapMeshes) -> MeshBuffers {
    let mut vertices: Vec<[i32; 2]> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let mut kinds = [KindRange::default(); 5];
    for kind in MeshKind::ALL {
        let m = meshes.get(kind);
        kinds[kind as usize] = KindRange {
            base_vertex: vertices.len() as u32,
            vertex_count: m.vertices.len() as u32,
            first_index: indices.len() as u32,
            index_count: m.indices.len() as u32,
        };
        vertices.extend_from_slice(&m.vertices);
        indices.extend_from_slice(&m.indices);
    }
    let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("terrain mesh vertices"),
        contents: bytemuck::cast_slice(&vertices),
        usage: wgpu::BufferUsages::VERTEX,
    });
    let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("terrain mesh indices"),
        contents: bytemuck::cast_slice(&indices),
        usage: wgpu::BufferUsages::INDEX,
    });
    MeshBuffers {
        vertices: vertex_buffer,
        indices: index_buffer,
        kinds,
        bytes: vertices.len() * 8 + indices.len() * 4,
    }
}

/// The per-frame instance records, sized for the largest selection.
fn create_instance_buffer(device: &wgpu::Device, cfg: &ClipmapConfig) -> wgpu::Buffer {
    // Per level at most 16 tiles, 4 filler arms, a trim, a seam and the cross.
    let max_instances = 24 * cfg.levels as u64;
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("terrain instances"),
        size: max_instances * std::mem::size_of::<Instance>() as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn create_uniform_buffer(device: &wgpu::Device, label: &str, size: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The per-level height windows: one `window`² R32Float layer per level, and its array view.
fn create_height_windows(
    device: &wgpu::Device,
    window: u32,
    levels: u32,
) -> (wgpu::Texture, wgpu::TextureView) {
    let heights = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("terrain height windows"),
        size: wgpu::Extent3d {
            width: window,
            height: window,
            depth_or_array_layers: levels,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::R32Float,
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = heights.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    (heights, view)
}

/// The layout of [`terrain_bind_group`].
fn create_bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("terrain"),
        entries: &[
            uniform_entry(0, wgpu::ShaderStages::VERTEX),
            uniform_entry(1, wgpu::ShaderStages::VERTEX_FRAGMENT),
            wgpu::BindGroupLayoutEntry {
                binding: 2,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2Array,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 3,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::Cube,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 4,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
        ],
    })
}

fn create_sky_sampler(device: &wgpu::Device) -> wgpu::Sampler {
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("terrain sky"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        ..Default::default()
    })
}

/// Until a level's skybox is set: a black placeholder cube, unused (flags.z = 0).
fn create_placeholder_sky(device: &wgpu::Device) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("terrain sky placeholder"),
            size: wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 6,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::Cube),
            ..Default::default()
        })
}

/// The pipelines made up front (the point and reference pipelines are made on first use).
struct TerrainPipelines {
    fill: wgpu::RenderPipeline,
    seam: wgpu::RenderPipeline,
    wire: Option<wgpu::RenderPipeline>,
    sky: wgpu::RenderPipeline,
    lines: wgpu::RenderPipeline,
}

fn create_pipelines(
    gpu: &Gpu,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
) -> TerrainPipelines {
    let device = &gpu.device;
    let surface = |label, fs, cull, mode, bias| {
        surface_pipeline(
            device,
            layout,
            module,
            SurfaceDesc {
                label,
                vs: "vs_main",
                fs,
                buffers: &mesh_buffers(),
                cull,
                mode,
                depth_write: mode == wgpu::PolygonMode::Fill,
                bias,
                format: color_format,
            },
        )
    };
    let fill = surface(
        "terrain",
        "fs_main",
        Some(wgpu::Face::Back),
        wgpu::PolygonMode::Fill,
        Default::default(),
    );
    // The seam's triangles have zero area on the grid and either winding.
    let seam = surface(
        "terrain seam",
        "fs_main",
        None,
        wgpu::PolygonMode::Fill,
        Default::default(),
    );
    let wire = gpu.features.polygon_mode_line.then(|| {
        surface(
            "terrain wireframe",
            "fs_wire",
            None,
            wgpu::PolygonMode::Line,
            // Reverse-Z: a positive bias pulls the lines towards the eye.
            wgpu::DepthBiasState {
                constant: 2,
                slope_scale: 1.0,
                clamp: 0.0,
            },
        )
    });
    TerrainPipelines {
        fill,
        seam,
        wire,
        sky: create_sky_pipeline(device, layout, module, color_format),
        lines: create_debug_box_pipeline(device, layout, module, color_format),
    }
}

/// The sky: a full-screen triangle at the far depth.
fn create_sky_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("terrain sky"),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("vs_sky"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: Some(depth_state(false, Default::default())),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some("fs_sky"),
            compilation_options: Default::default(),
            targets: &[Some(color_format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// The debug boxes: a line list of [`LineVertex`].
fn create_debug_box_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let line_attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4];
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("terrain debug boxes"),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("vs_lines"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<LineVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &line_attrs,
            })],
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::LineList,
            ..Default::default()
        },
        depth_stencil: Some(depth_state(false, Default::default())),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some("fs_lines"),
            compilation_options: Default::default(),
            targets: &[Some(color_format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// A colour attachment cleared to NaN (pixels no vertex wrote stay recognisable).
fn nan_attachment(view: &wgpu::TextureView) -> Option<wgpu::RenderPassColorAttachment<'_>> {
    Some(wgpu::RenderPassColorAttachment {
        view,
        depth_slice: None,
        resolve_target: None,
        ops: wgpu::Operations {
            load: wgpu::LoadOp::Clear(wgpu::Color {
                r: f64::NAN,
                g: f64::NAN,
                b: f64::NAN,
                a: f64::NAN,
            }),
            store: wgpu::StoreOp::Store,
        },
    })
}

/// The pass's one bind group: frame and view uniforms, height windows, sky cube and sampler.
fn terrain_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    [frame, view]: [&wgpu::Buffer; 2],
    heights: &wgpu::TextureView,
    sky: &wgpu::TextureView,
    sky_sampler: &wgpu::Sampler,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("terrain"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: frame.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: view.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(heights),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::TextureView(sky),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: wgpu::BindingResource::Sampler(sky_sampler),
            },
        ],
    })
}

fn view_uniform(
    camera: &Camera,
    eye_offset: Vec3,
    s: &TerrainShading,
    overlay: &TerrainOverlay,
) -> TerrainView {
    let vp = camera.projection() * camera.view_rotation();
    let v4 = |v: [f32; 3], w: f32| [v[0], v[1], v[2], w];
    TerrainView {
        view_proj: vp.to_cols_array_2d(),
        inv_view_proj: vp.inverse().to_cols_array_2d(),
        eye_offset: eye_offset.extend(0.0).to_array(),
        sun: s.sun.normalize_or_zero().extend(s.ambient).to_array(),
        sky_zenith: v4(s.sky_zenith, 1.0),
        sky_horizon: v4(s.sky_horizon, 1.0),
        bands: [s.sea_level, s.snow_line, s.height_span, s.beach],
        fog: [s.fog_distance, s.edge_fade.0, s.edge_fade.1, s.fog_strength],
        misc: [1.0, 1.0, 0.0, 0.0],
        flags: [
            if overlay.level_colors {
                OVERLAY_LEVEL_COLORS
            } else {
                0
            },
            s.flat_water as u32,
            0,
            0,
        ],
        oct_min: crate::geom::Octagon::FULL.min,
        oct_max: crate::geom::Octagon::FULL.max,
    }
}

fn mesh_buffers() -> [Option<wgpu::VertexBufferLayout<'static>>; 2] {
    const LOCAL: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![0 => Sint32x2];
    const INSTANCE: [wgpu::VertexAttribute; 3] =
        wgpu::vertex_attr_array![1 => Sint32x2, 2 => Uint32, 3 => Uint32];
    [
        Some(wgpu::VertexBufferLayout {
            array_stride: 8,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &LOCAL,
        }),
        Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<Instance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &INSTANCE,
        }),
    ]
}

fn depth_state(write: bool, bias: wgpu::DepthBiasState) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(write),
        // Reverse-Z: nearer is larger; the sky at depth 0 passes only where nothing was drawn.
        depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
        stencil: Default::default(),
        bias,
    }
}

struct SurfaceDesc<'a> {
    label: &'a str,
    vs: &'a str,
    fs: &'a str,
    buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    cull: Option<wgpu::Face>,
    mode: wgpu::PolygonMode,
    depth_write: bool,
    bias: wgpu::DepthBiasState,
    format: wgpu::TextureFormat,
}

fn surface_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    d: SurfaceDesc<'_>,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(d.label),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(d.vs),
            compilation_options: Default::default(),
            buffers: d.buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            front_face: wgpu::FrontFace::Ccw,
            cull_mode: d.cull,
            polygon_mode: d.mode,
            ..Default::default()
        },
        depth_stencil: Some(depth_state(d.depth_write, d.bias)),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(d.fs),
            compilation_options: Default::default(),
            targets: &[Some(d.format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// Copies a (layered) texture with `texel` bytes per texel to the CPU as f32s, rows unpadded.
fn read_texture_f32(gpu: &Gpu, texture: &wgpu::Texture, texel: u32, layers: u32) -> Vec<f32> {
    bytemuck::pod_collect_to_vec(&super::target::read_texture_layers(
        gpu, texture, texel, layers,
    ))
}

/// A loaded terrain: the CPU clipmap state and its GPU pass. Per frame [`Terrain::prepare`]
/// selects, streams and uploads; [`Terrain::record`] draws.
pub struct Terrain {
    pub clipmap: ClipmapTerrain,
    pub pass: TerrainPass,
    updates: HeightUpdates,
    frozen: Option<Camera>,
    lines: Vec<LineVertex>,
    pub stats: TerrainStats,
    /// Where the terrain's origin sits in the level (a level's `TerrainRef.origin`).
    pub origin: Vec3,
    /// The screen region it is seen through: the union of the visible outdoor cells' octagons
    /// (full screen when there is no level around it).
    pub octagon: crate::geom::Octagon,
}

impl Terrain {
    pub fn new(gpu: &Gpu, clipmap: ClipmapTerrain, color_format: wgpu::TextureFormat) -> Terrain {
        let shading = TerrainShading::for_heightmap(&clipmap.heightmap, clipmap.config());
        let pass = TerrainPass::create(
            gpu,
            clipmap.config(),
            &clipmap.meshes,
            shading,
            color_format,
        );
        Terrain {
            clipmap,
            pass,
            updates: HeightUpdates::default(),
            frozen: None,
            lines: Vec::new(),
            stats: TerrainStats::default(),
            origin: Vec3::ZERO,
            octagon: crate::geom::Octagon::FULL,
        }
    }

    /// Selects the rings for `camera` (or the frozen camera), streams the new height rows and
    /// columns, builds the overlay boxes and writes everything to the GPU.
    pub fn prepare(
        &mut self,
        gpu: &Gpu,
        camera: &Camera,
        overlay: &TerrainOverlay,
    ) -> TerrainStats {
        // The terrain lives at `origin` in the level: select and draw in its own frame.
        let local = Camera {
            position: camera.position - self.origin,
            ..*camera
        };
        let camera = &local;
        self.pass.view_octagon = self.octagon;
        if overlay.freeze_culling {
            self.frozen.get_or_insert(*camera);
        } else {
            self.frozen = None;
        }
        let sel_cam = self.frozen.unwrap_or(*camera);
        let c = &mut self.clipmap;
        // Cull to the frustum behind the outdoor cells' octagon (a frozen camera: all of it).
        c.selector.screen = if self.frozen.is_some() {
            crate::geom::Octagon::FULL
        } else {
            self.octagon
        };
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
        if overlay.tile_bounds || overlay.culled_tiles {
            let cfg = c.streamer.cfg;
            let eye = camera.position.as_dvec3();
            let mut add = |inst: &Instance, color: [u8; 4], lines: &mut Vec<LineVertex>| {
                let b = instance_aabb(&cfg, MeshKind::Tile, inst, &c.heightmap, &mut c.pyramid);
                box_lines(lines, b.min.as_dvec3(), b.max.as_dvec3(), eye, color);
            };
            if overlay.tile_bounds {
                for inst in selection.of_kind(MeshKind::Tile) {
                    add(inst, [255, 230, 40, 255], &mut self.lines);
                }
            }
            if overlay.culled_tiles {
                for (kind, inst) in &selection.culled {
                    if *kind == MeshKind::Tile {
                        add(inst, [255, 40, 30, 255], &mut self.lines);
                    }
                }
            }
        }
        let frame = TerrainFrame {
            selection,
            updates: &self.updates,
        };
        let frozen = self.frozen.as_ref();
        let bytes = self
            .pass
            .prepare(gpu, camera, frozen, &frame, overlay, &self.lines);
        let upload_us = t.elapsed().as_secs_f64() * 1e6;
        self.stats = TerrainStats {
            select_us,
            stream_us,
            upload_us,
            first_level: selection.first_level,
            levels_drawn: selection.stats.levels,
            instances: selection.instances.len() as u32,
            pieces_culled: selection.stats.pieces_culled,
            triangles: selection.stats.triangles,
            draw_calls: self.pass.draw_calls(),
            overlay_draw_calls: self.pass.overlay_draw_calls(),
            upload_bytes: bytes,
            upload_rects: self.updates.rects.len(),
            gpu_bytes: self.pass.gpu_bytes(),
        };
        self.stats
    }

    pub fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.pass.record(pass);
    }
}

/// The 12 edges of a world box as eye-relative line vertices.
fn box_lines(out: &mut Vec<LineVertex>, min: DVec3, max: DVec3, eye: DVec3, color: [u8; 4]) {
    let corner = |i: usize| {
        let p = DVec3::new(
            if i & 1 != 0 { max.x } else { min.x },
            if i & 2 != 0 { max.y } else { min.y },
            if i & 4 != 0 { max.z } else { min.z },
        );
        LineVertex {
            position: (p - eye).as_vec3().to_array(),
            color,
        }
    };
    const EDGES: [(usize, usize); 12] = [
        (0, 1),
        (2, 3),
        (4, 5),
        (6, 7),
        (0, 2),
        (1, 3),
        (4, 6),
        (5, 7),
        (0, 4),
        (1, 5),
        (2, 6),
        (3, 7),
    ];
    for (a, b) in EDGES {
        out.push(corner(a));
        out.push(corner(b));
    }
}
