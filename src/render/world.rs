//! The world pass: every world surface in one vertex and one index buffer, indices grouped by
//! cell (a surface listed by several cells has its indices in each), one per-draw record per
//! visible cell or object, one indexed indirect sub-draw per record, and one
//! `multi_draw_indexed_indirect` per pipeline (opaque, sky, liquid).

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use super::gpu::Gpu;
use super::materials::MaterialArray;
use super::{shaders, DEPTH_FORMAT};
use crate::geom::{Camera, Octagon};
use crate::level::{surface_flags, Level};
use crate::vis::VisibleSet;

/// Vertex flag (beyond the surface flags): no lightmap, draw at full light.
pub const VERTEX_NO_LIGHTMAP: u32 = 1 << 16;

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct WorldVertex {
    pub position: [f32; 3],
    pub uv: [f32; 2],
    /// Atlas luxel coordinates (the shader divides by the atlas size).
    pub lightmap_uv: [f32; 2],
    pub layer: u32,
    pub flags: u32,
    /// Index into `Level::surfaces` (the id pass writes it).
    pub surface: u32,
}

/// The GPU per-draw record of DESIGN.md: octagon, view, cell; plus the object's translation.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct DrawRecord {
    pub octagon: Octagon,
    pub view: u32,
    /// Cell id, or `u32::MAX - object` for objects.
    pub cell: u32,
    pub _pad: [u32; 2],
    pub origin: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct FrameUniform {
    pub view_proj: [[f32; 4]; 4],
    pub eye: [f32; 4],
    /// x: seconds, y: lightmap scale, z: fullbright debug.
    pub params: [f32; 4],
    /// View 0 is the camera; mirrors and teleporters add views (`vis::View`).
    pub views: [ViewUniform; MAX_VIEWS],
}

/// One view as the shader sees it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ViewUniform {
    pub view_proj: [[f32; 4]; 4],
    /// Fragments with `clip_plane · (p, 1) < 0` are discarded (the near side of the portal).
    pub clip_plane: [f32; 4],
    /// The eye in this view's space (sky directions).
    pub eye: [f32; 4],
}

pub const MAX_VIEWS: usize = crate::vis::portal_flow::MAX_VIEWS;

/// Pipelines of the world pass in drawing order: translucent liquids last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceKind {
    Opaque = 0,
    Sky = 1,
    Liquid = 2,
}

impl SurfaceKind {
    pub const ALL: [SurfaceKind; 3] = [SurfaceKind::Opaque, SurfaceKind::Sky, SurfaceKind::Liquid];

    pub fn of(flags: u32) -> SurfaceKind {
        if flags & surface_flags::SKY != 0 {
            SurfaceKind::Sky
        } else if flags & surface_flags::LIQUID != 0 {
            SurfaceKind::Liquid
        } else {
            SurfaceKind::Opaque
        }
    }
}

/// An index range in the world index buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexRange {
    pub first: u32,
    pub count: u32,
}

/// The world geometry as uploaded: CPU side, so tests can check it without a GPU.
#[derive(Clone, Debug, Default)]
pub struct WorldMesh {
    pub vertices: Vec<WorldVertex>,
    pub indices: Vec<u32>,
    /// `cell_ranges[kind][cell]`.
    pub cell_ranges: [Vec<IndexRange>; 3],
    /// `object_ranges[kind][object]`.
    pub object_ranges: [Vec<IndexRange>; 3],
    /// Translucent liquid surfaces of cells are drawn once per frame, not once per cell that
    /// lists them (blending twice would darken them): one range per liquid surface...
    pub liquid_ranges: Vec<IndexRange>,
    /// ...and, per cell, the liquid surfaces it lists (indices into `liquid_ranges`).
    pub cell_liquids: Vec<Vec<u32>>,
}

impl WorldMesh {
    /// `layers[material]` is the material's layer in the texture array.
    pub fn build(level: &Level, layers: &[u32]) -> WorldMesh {
        let mut mesh = WorldMesh::default();
        // Vertices once per surface.
        let mut base = Vec::with_capacity(level.surfaces.len());
        for (si, s) in level.surfaces.iter().enumerate() {
            base.push(mesh.vertices.len() as u32);
            let layer = layers.get(s.material as usize).copied().unwrap_or(0);
            let (rect_xy, mut flags) = match s.lightmap {
                Some(r) => ([r.x as f32, r.y as f32], s.flags),
                None => ([0.0, 0.0], s.flags | VERTEX_NO_LIGHTMAP),
            };
            if level.lightmaps.width == 0 {
                flags |= VERTEX_NO_LIGHTMAP;
            }
            for v in &s.vertices {
                mesh.vertices.push(WorldVertex {
                    position: v.position.to_array(),
                    uv: v.uv.to_array(),
                    lightmap_uv: [rect_xy[0] + v.lightmap_uv.x, rect_xy[1] + v.lightmap_uv.y],
                    layer,
                    flags,
                    surface: si as u32,
                });
            }
        }
        let append =
            |mesh: &mut WorldMesh, surfaces: &mut dyn Iterator<Item = u32>, kind: SurfaceKind| {
                let first = mesh.indices.len() as u32;
                for si in surfaces {
                    let s = &level.surfaces[si as usize];
                    if SurfaceKind::of(s.flags) != kind {
                        continue;
                    }
                    let b = base[si as usize];
                    mesh.indices.extend(s.indices.iter().map(|i| i + b));
                }
                IndexRange {
                    first,
                    count: mesh.indices.len() as u32 - first,
                }
            };
        let mut liquid_of_surface = vec![u32::MAX; level.surfaces.len()];
        for kind in SurfaceKind::ALL {
            for cell in &level.cells {
                if kind == SurfaceKind::Liquid {
                    let mut list = Vec::new();
                    for &si in &cell.surfaces {
                        let s = &level.surfaces[si as usize];
                        if SurfaceKind::of(s.flags) != SurfaceKind::Liquid {
                            continue;
                        }
                        if liquid_of_surface[si as usize] == u32::MAX {
                            liquid_of_surface[si as usize] = mesh.liquid_ranges.len() as u32;
                            let r = append(&mut mesh, &mut std::iter::once(si), kind);
                            mesh.liquid_ranges.push(r);
                        }
                        list.push(liquid_of_surface[si as usize]);
                    }
                    mesh.cell_liquids.push(list);
                    mesh.cell_ranges[kind as usize].push(IndexRange::default());
                    continue;
                }
                let r = append(&mut mesh, &mut cell.surfaces.iter().copied(), kind);
                mesh.cell_ranges[kind as usize].push(r);
            }
            for obj in &level.objects {
                let r = append(&mut mesh, &mut obj.surfaces.iter().copied(), kind);
                mesh.object_ranges[kind as usize].push(r);
            }
        }
        mesh
    }
}

/// What the world pass submitted in one frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct WorldStats {
    /// GPU draw commands (a multi-draw counts as one).
    pub draw_calls: u32,
    /// Indirect (or direct) sub-draws.
    pub sub_draws: u32,
    /// Views drawn (1 + mirrors and teleporters seen).
    pub views: u32,
    pub triangles: u64,
}

/// One drawable this frame: a cell or an object, with its octagon.
#[derive(Clone, Copy, Debug)]
enum Item {
    /// A cell in a view.
    Cell(u32, u32),
    Object(u32),
}

pub struct WorldPass {
    /// [view class (`ViewClass`)] × [opaque, sky, liquid].
    pipelines: [wgpu::RenderPipeline; 9],
    /// Id pipelines (opaque + sky, liquid), made on first use by the vis-check.
    id_pipelines: std::cell::OnceCell<[wgpu::RenderPipeline; 2]>,
    pipeline_layout: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
    vertex_buffer: wgpu::Buffer,
    index_buffer: wgpu::Buffer,
    frame_buffer: wgpu::Buffer,
    records: wgpu::Buffer,
    indirect: wgpu::Buffer,
    /// [nearest, linear] texture filtering.
    bind_groups: [wgpu::BindGroup; 2],
    /// Which of `bind_groups` draws.
    pub linear_filtering: bool,
    /// The level names a cubemap skybox and it loaded: sky surfaces show it.
    pub skybox_active: bool,
    /// The skybox cube (a 1×1 black placeholder when none loaded); the terrain's sky uses it too.
    pub skybox_view: wgpu::TextureView,
    /// The id pass draws back faces as occluders: only in levels with outdoor cells, whose
    /// unbuilt exteriors can be seen from outside (a sealed level's never are; its one-sided
    /// faces seen from behind through cracks would only add noise).
    back_faces_occlude: bool,
    mesh: WorldMesh,
    object_origins: Vec<[f32; 4]>,
    use_indirect: bool,
    /// This frame's sub-draws per kind, as (first command, count) into `indirect` / `commands`.
    batches: [(u32, u32); 9],
    commands: Vec<wgpu::util::DrawIndexedIndirectArgs>,
    scratch: Scratch,
    pub stats: WorldStats,
}

/// Per-frame working memory, kept between frames so `prepare` does not allocate once warm.
#[derive(Default)]
struct Scratch {
    items: Vec<Item>,
    records: Vec<DrawRecord>,
    liquids: Vec<u32>,
    liquid_stamp: Vec<u32>,
    liquid_octagon: Vec<Octagon>,
    frame: u32,
}

const MAX_RECORDS_MIN: usize = 256;

impl WorldPass {
    pub fn create(gpu: &Gpu, level: &Level, color_format: wgpu::TextureFormat) -> WorldPass {
        let device = &gpu.device;
        let materials = MaterialArray::create(gpu, &level.materials);
        let mesh = WorldMesh::build(level, &materials.layers);
        let (vertex_buffer, index_buffer) = create_mesh_buffers(device, &mesh);
        let frame_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("world frame"),
            size: std::mem::size_of::<FrameUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let liquid_count = mesh.liquid_ranges.len();
        let max_records =
            (level.cells.len() + level.objects.len() + liquid_count).max(MAX_RECORDS_MIN);
        let (records, indirect) = create_draw_buffers(device, max_records);
        let lightmap = super::materials::lightmap_texture(gpu, &level.lightmaps);
        let (skybox, skybox_active) = super::materials::skybox_texture(
            gpu,
            level.sky.as_ref().and_then(|s| s.cubemap.as_deref()),
        );
        let skybox_view = skybox.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::Cube),
            ..Default::default()
        });
        let layout = create_bind_group_layout(device);
        let bind_groups = create_bind_groups(
            device,
            &layout,
            &BindGroupResources {
                frame: &frame_buffer,
                records: &records,
                lightmap: &lightmap,
                materials: &materials,
                skybox: &skybox_view,
            },
        );
        let source = shaders::world(gpu.features.clip_distances);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("world.wgsl"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("world"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipelines = create_color_pipelines(device, &pipeline_layout, &module, color_format);
        let object_origins = level
            .objects
            .iter()
            .map(|o| o.origin.extend(0.0).to_array())
            .collect();
        WorldPass {
            pipelines,
            id_pipelines: std::cell::OnceCell::new(),
            pipeline_layout,
            module,
            vertex_buffer,
            index_buffer,
            frame_buffer,
            records,
            indirect,
            bind_groups,
            linear_filtering: false,
            skybox_active,
            skybox_view,
            back_faces_occlude: level
                .cells
                .iter()
                .any(|c| c.flags & crate::level::cell_flags::OUTDOOR != 0),
            mesh,
            object_origins,
            use_indirect: gpu.features.indirect_first_instance,
            batches: [(0, 0); 9],
            commands: Vec::new(),
            scratch: Scratch {
                liquid_stamp: vec![0; liquid_count],
                liquid_octagon: vec![Octagon::EMPTY; liquid_count],
                ..Default::default()
            },
            stats: WorldStats::default(),
        }
    }

    pub fn mesh(&self) -> &WorldMesh {
        &self.mesh
    }

    /// Writes this frame's uniforms, per-draw records and indirect commands.
    pub fn prepare(&mut self, gpu: &Gpu, camera: &Camera, visible: &VisibleSet, params: [f32; 4]) {
        self.write_frame_uniform(gpu, camera, visible, params);
        let liquid_base = self.collect_draw_records(visible);
        let capacity = (self.records.size() as usize) / std::mem::size_of::<DrawRecord>();
        let records = &mut self.scratch.records;
        records.truncate(capacity);
        if !records.is_empty() {
            gpu.queue
                .write_buffer(&self.records, 0, bytemuck::cast_slice(records));
        }
        let mut stats = self.build_batches(visible, liquid_base);
        stats.views = 1 + visible.views.len() as u32;
        if self.use_indirect && !self.commands.is_empty() {
            gpu.queue
                .write_buffer(&self.indirect, 0, bytemuck::cast_slice(&self.commands));
        }
        self.stats = stats;
    }

    /// The frame uniform: the camera, `params` (w: the skybox is shown) and every view's
    /// transform and clip plane.
    fn write_frame_uniform(
        &self,
        gpu: &Gpu,
        camera: &Camera,
        visible: &VisibleSet,
        params: [f32; 4],
    ) {
        let params = [
            params[0],
            params[1],
            params[2],
            if self.skybox_active { 1.0 } else { 0.0 },
        ];
        let mut views = [ViewUniform {
            view_proj: camera.view_proj().to_cols_array_2d(),
            clip_plane: [0.0, 0.0, 0.0, 1.0],
            eye: camera.position.extend(1.0).to_array(),
        }; MAX_VIEWS];
        for (i, v) in visible.views.iter().take(MAX_VIEWS - 1).enumerate() {
            views[i + 1] = ViewUniform {
                view_proj: v.view_proj.to_cols_array_2d(),
                clip_plane: v.clip_plane.to_array(),
                eye: v.eye.extend(1.0).to_array(),
            };
        }
        let frame = FrameUniform {
            view_proj: camera.view_proj().to_cols_array_2d(),
            eye: camera.position.extend(1.0).to_array(),
            params,
            views,
        };
        gpu.queue
            .write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&frame));
    }

    /// Records: one per visible cell, then objects, then liquid surfaces (the union of the
    /// octagons of the visible cells that list each). Returns the index of the first liquid
    /// record.
    fn collect_draw_records(&mut self, visible: &VisibleSet) -> usize {
        let scratch = &mut self.scratch;
        scratch.records.clear();
        scratch.items.clear();
        for c in &visible.cells {
            scratch.items.push(Item::Cell(c.cell, c.view));
            scratch.records.push(DrawRecord {
                octagon: c.octagon,
                view: c.view,
                cell: c.cell,
                _pad: [0; 2],
                origin: [0.0; 4],
            });
        }
        for o in &visible.objects {
            scratch.items.push(Item::Object(o.object));
            scratch.records.push(DrawRecord {
                octagon: o.octagon,
                view: 0,
                cell: u32::MAX - o.object,
                _pad: [0; 2],
                origin: self.object_origins[o.object as usize],
            });
        }
        self.collect_camera_liquids(visible);
        let scratch = &mut self.scratch;
        let liquid_base = scratch.records.len();
        for &l in &scratch.liquids {
            scratch.records.push(DrawRecord {
                octagon: scratch.liquid_octagon[l as usize],
                view: 0,
                cell: u32::MAX,
                _pad: [0; 2],
                origin: [0.0; 4],
            });
        }
        liquid_base
    }

    /// Liquids of the camera's view once each, into `scratch.liquids`, with the union of their
    /// cells' octagons; views through portals draw their cells' own.
    fn collect_camera_liquids(&mut self, visible: &VisibleSet) {
        let scratch = &mut self.scratch;
        scratch.frame = scratch.frame.wrapping_add(1).max(1);
        scratch.liquids.clear();
        for c in visible.cells.iter().filter(|c| c.view == 0) {
            for &l in &self.mesh.cell_liquids[c.cell as usize] {
                let li = l as usize;
                if scratch.liquid_stamp[li] != scratch.frame {
                    scratch.liquid_stamp[li] = scratch.frame;
                    scratch.liquid_octagon[li] = c.octagon;
                    scratch.liquids.push(l);
                } else {
                    scratch.liquid_octagon[li] = scratch.liquid_octagon[li].union(&c.octagon);
                }
            }
        }
    }

    /// Batches: (view class, pipeline); portal views test their clip plane, mirrored views
    /// wind the other way. Fills `commands` and `batches`; returns the counts.
    fn build_batches(&mut self, visible: &VisibleSet, liquid_base: usize) -> WorldStats {
        self.commands.clear();
        let mut stats = WorldStats::default();
        let mut sub_draws = SubDraws {
            commands: &mut self.commands,
            records: self.scratch.records.len(),
            triangles: 0,
        };
        for view_class in ViewClass::ALL {
            for kind in SurfaceKind::ALL {
                let first = sub_draws.commands.len() as u32;
                batch_sub_draws(
                    &mut sub_draws,
                    &self.mesh,
                    &self.scratch,
                    visible,
                    (view_class, kind),
                    liquid_base,
                );
                let count = sub_draws.commands.len() as u32 - first;
                self.batches[view_class as usize * 3 + kind as usize] = (first, count);
                stats.sub_draws += count;
                if count > 0 {
                    stats.draw_calls += if self.use_indirect { 1 } else { count };
                }
            }
        }
        stats.triangles = sub_draws.triangles;
        stats
    }

    /// Records the prepared draws into `pass`.
    pub fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_bind_group(0, &self.bind_groups[self.linear_filtering as usize], &[]);
        pass.set_vertex_buffer(0, self.vertex_buffer.slice(..));
        pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        let stride = std::mem::size_of::<wgpu::util::DrawIndexedIndirectArgs>() as u64;
        for (batch, &(first, count)) in self.batches.iter().enumerate() {
            if count == 0 {
                continue;
            }
            pass.set_pipeline(&self.pipelines[batch]);
            if self.use_indirect {
                pass.multi_draw_indexed_indirect(&self.indirect, first as u64 * stride, count);
            } else {
                for c in &self.commands[first as usize..(first + count) as usize] {
                    pass.draw_indexed(
                        c.first_index..c.first_index + c.index_count,
                        0,
                        c.first_instance..c.first_instance + 1,
                    );
                }
            }
        }
    }
}

/// Which surfaces the id pass draws: liquids do not hide what is behind them, so they get a
/// target of their own (depth-tested against, but never writing, the opaque depth).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdLayer {
    Solid,
    Liquid,
}

impl WorldPass {
    /// Records the prepared draws into an R32Uint id target (surface id + 1 per pixel).
    pub fn record_ids(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::RenderPass<'_>,
        layer: IdLayer,
    ) {
        let pipes = self.id_pipelines.get_or_init(|| {
            [
                make_pipeline(
                    device,
                    &self.pipeline_layout,
                    &self.module,
                    SurfaceKind::Opaque,
                    None,
                    ViewClass::Camera,
                    self.back_faces_occlude,
                ),
                make_pipeline(
                    device,
                    &self.pipeline_layout,
                    &self.module,
                    SurfaceKind::Liquid,
                    None,
                    ViewClass::Camera,
                    false,
                ),
            ]
        });
        pass.set_bind_group(0, &self.bind_groups[self.linear_filtering as usize], &[]);
        pass.set_vertex_buffer(0, self.vertex_buffer.slice(..));
        pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        let kinds: &[SurfaceKind] = match layer {
            IdLayer::Solid => &[SurfaceKind::Opaque, SurfaceKind::Sky],
            IdLayer::Liquid => &[SurfaceKind::Liquid],
        };
        pass.set_pipeline(&pipes[if layer == IdLayer::Solid { 0 } else { 1 }]);
        // The camera's and the unmirrored portal views' draws (ids take no winding flip).
        for (class, &kind) in [ViewClass::Camera, ViewClass::Portal]
            .iter()
            .flat_map(|c| kinds.iter().map(move |k| (c, k)))
        {
            let (first, count) = self.batches[*class as usize * 3 + kind as usize];
            for c in &self.commands[first as usize..(first + count) as usize] {
                pass.draw_indexed(
                    c.first_index..c.first_index + c.index_count,
                    0,
                    c.first_instance..c.first_instance + 1,
                );
            }
        }
    }
}

/// Which views a pipeline draws. The camera's own view has no clip plane, so its fragment
/// shader has no plane test: without a `discard` the depth test runs before shading (on
/// lavapipe this halves the world pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ViewClass {
    Camera = 0,
    /// Through a teleporter: the portal plane clips.
    Portal = 1,
    /// Through a mirror: the portal plane clips and triangles wind the other way.
    Mirrored = 2,
}

impl ViewClass {
    const ALL: [ViewClass; 3] = [ViewClass::Camera, ViewClass::Portal, ViewClass::Mirrored];
}

/// The indexed sub-draws of this frame, as they are appended.
struct SubDraws<'a> {
    commands: &'a mut Vec<wgpu::util::DrawIndexedIndirectArgs>,
    /// Records written this frame: slots beyond did not fit the buffer and are not drawn.
    records: usize,
    triangles: u64,
}

impl SubDraws<'_> {
    /// One sub-draw of the indices `r` with the record in `slot` (nothing when empty).
    fn push(&mut self, r: IndexRange, slot: usize) {
        if r.count == 0 || slot >= self.records {
            return;
        }
        self.triangles += r.count as u64 / 3;
        self.commands.push(wgpu::util::DrawIndexedIndirectArgs {
            index_count: r.count,
            instance_count: 1,
            first_index: r.first,
            base_vertex: 0,
            first_instance: slot as u32,
        });
    }
}

/// Which pipeline class draws the items of `view` (0: the camera's own).
fn view_class(visible: &VisibleSet, view: u32) -> ViewClass {
    match visible.views.get((view as usize).wrapping_sub(1)) {
        _ if view == 0 => ViewClass::Camera,
        Some(v) if v.mirrored => ViewClass::Mirrored,
        _ => ViewClass::Portal,
    }
}

/// The sub-draws of one batch: every item of the view class with its indices of `kind`.
fn batch_sub_draws(
    out: &mut SubDraws<'_>,
    mesh: &WorldMesh,
    scratch: &Scratch,
    visible: &VisibleSet,
    (class, kind): (ViewClass, SurfaceKind),
    liquid_base: usize,
) {
    for (slot, item) in scratch.items.iter().enumerate() {
        let view = match *item {
            Item::Cell(_, v) => v,
            Item::Object(_) => 0,
        };
        if view_class(visible, view) != class {
            continue;
        }
        match *item {
            Item::Cell(c, v) if kind == SurfaceKind::Liquid && v > 0 => {
                for &l in &mesh.cell_liquids[c as usize] {
                    out.push(mesh.liquid_ranges[l as usize], slot);
                }
            }
            Item::Cell(c, _) => out.push(mesh.cell_ranges[kind as usize][c as usize], slot),
            Item::Object(o) => out.push(mesh.object_ranges[kind as usize][o as usize], slot),
        }
    }
    if kind == SurfaceKind::Liquid && class == ViewClass::Camera {
        for (i, &l) in scratch.liquids.iter().enumerate() {
            out.push(mesh.liquid_ranges[l as usize], liquid_base + i);
        }
    }
}

fn create_mesh_buffers(device: &wgpu::Device, mesh: &WorldMesh) -> (wgpu::Buffer, wgpu::Buffer) {
    let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("world vertices"),
        contents: nonempty_bytes(bytemuck::cast_slice(&mesh.vertices)),
        usage: wgpu::BufferUsages::VERTEX,
    });
    let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("world indices"),
        contents: nonempty_bytes(bytemuck::cast_slice(&mesh.indices)),
        usage: wgpu::BufferUsages::INDEX,
    });
    (vertex_buffer, index_buffer)
}

/// The per-draw records (storage) and the indirect commands, for `max_records` records.
fn create_draw_buffers(device: &wgpu::Device, max_records: usize) -> (wgpu::Buffer, wgpu::Buffer) {
    let records = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("world draw records"),
        size: (max_records * std::mem::size_of::<DrawRecord>()) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let indirect = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("world indirect draws"),
        size: (3 * max_records * std::mem::size_of::<wgpu::util::DrawIndexedIndirectArgs>()) as u64,
        usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    (records, indirect)
}

fn create_bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("world"),
        entries: &[
            uniform_entry(0, wgpu::ShaderStages::VERTEX_FRAGMENT),
            storage_entry(1, wgpu::ShaderStages::VERTEX_FRAGMENT),
            texture_entry(2, wgpu::TextureViewDimension::D2),
            sampler_entry(3),
            texture_entry(4, wgpu::TextureViewDimension::D2Array),
            sampler_entry(5),
            texture_entry(6, wgpu::TextureViewDimension::Cube),
        ],
    })
}

/// What the world bind groups bind.
struct BindGroupResources<'a> {
    frame: &'a wgpu::Buffer,
    records: &'a wgpu::Buffer,
    lightmap: &'a wgpu::Texture,
    materials: &'a MaterialArray,
    skybox: &'a wgpu::TextureView,
}

/// [nearest, linear] texture filtering.
fn create_bind_groups(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    res: &BindGroupResources<'_>,
) -> [wgpu::BindGroup; 2] {
    let lightmap_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("lightmap"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        ..Default::default()
    });
    let make_bind_group = |material_sampler: &wgpu::Sampler| {
        world_bind_group(device, layout, res, &lightmap_sampler, material_sampler)
    };
    [
        make_bind_group(&res.materials.samplers[0]),
        make_bind_group(&res.materials.samplers[1]),
    ]
}

fn world_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    res: &BindGroupResources<'_>,
    lightmap_sampler: &wgpu::Sampler,
    material_sampler: &wgpu::Sampler,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("world"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: res.frame.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: res.records.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(
                    &res.lightmap
                        .create_view(&wgpu::TextureViewDescriptor::default()),
                ),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::Sampler(lightmap_sampler),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: wgpu::BindingResource::TextureView(&res.materials.view),
            },
            wgpu::BindGroupEntry {
                binding: 5,
                resource: wgpu::BindingResource::Sampler(material_sampler),
            },
            wgpu::BindGroupEntry {
                binding: 6,
                resource: wgpu::BindingResource::TextureView(res.skybox),
            },
        ],
    })
}

/// The colour pipelines, indexed like `WorldPass::pipelines`.
fn create_color_pipelines(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
) -> [wgpu::RenderPipeline; 9] {
    std::array::from_fn(|i| {
        make_pipeline(
            device,
            layout,
            module,
            SurfaceKind::ALL[i % 3],
            Some(color_format),
            ViewClass::ALL[i / 3],
            false,
        )
    })
}

/// One world pipeline: `color = Some(format)` draws colour, `None` draws surface ids (R32Uint).
fn make_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    kind: SurfaceKind,
    color: Option<wgpu::TextureFormat>,
    class: ViewClass,
    back_faces: bool,
) -> wgpu::RenderPipeline {
    let mirrored = class == ViewClass::Mirrored;
    let attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x2, 2 => Float32x2, 3 => Uint32, 4 => Uint32, 5 => Uint32];
    let translucent = kind == SurfaceKind::Liquid;
    let (entry, target) = match color {
        Some(format) => (
            if class == ViewClass::Camera {
                "fs_main"
            } else {
                "fs_portal_view"
            },
            wgpu::ColorTargetState {
                format,
                blend: translucent.then_some(wgpu::BlendState::ALPHA_BLENDING),
                write_mask: wgpu::ColorWrites::ALL,
            },
        ),
        None => (
            "fs_ids",
            wgpu::ColorTargetState::from(wgpu::TextureFormat::R32Uint),
        ),
    };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(match (kind, color.is_some()) {
            (SurfaceKind::Opaque, true) => "world opaque",
            (SurfaceKind::Sky, true) => "world sky",
            (SurfaceKind::Liquid, true) => "world liquid",
            (SurfaceKind::Liquid, false) => "world ids liquid",
            (_, false) => "world ids",
        }),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<WorldVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &attrs,
            })],
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            front_face: if mirrored {
                wgpu::FrontFace::Cw
            } else {
                wgpu::FrontFace::Ccw
            },
            // Liquids too: Quake stores a face for each side of a water surface. Ids of an
            // outdoor level keep back faces as occluders (see `fs_ids`).
            cull_mode: if back_faces {
                None
            } else {
                Some(wgpu::Face::Back)
            },
            ..Default::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            // Colour: liquids blend over what is behind and do not hide it. Ids: the nearest
            // liquid wins (its pass runs last, after the solid depth is complete).
            depth_write_enabled: Some(!translucent || color.is_none()),
            // Reverse-Z; equal depths pass so a surface drawn once per cell stays visible.
            depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            targets: &[Some(target)],
        }),
        multiview_mask: None,
        cache: None,
    })
}

fn nonempty_bytes(b: &[u8]) -> &[u8] {
    if b.is_empty() {
        &[0u8; 16]
    } else {
        b
    }
}

pub(crate) fn uniform_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

pub(crate) fn storage_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

pub(crate) fn texture_entry(
    binding: u32,
    dim: wgpu::TextureViewDimension,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension: dim,
            multisampled: false,
        },
        count: None,
    }
}

pub(crate) fn sampler_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
        count: None,
    }
}
