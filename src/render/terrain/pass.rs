//! The terrain pass: pipelines, buffers and the per-frame uploads and commands.

use std::ops::Range;

use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use wgpu::util::DeviceExt;

use super::debug::LineVertex;
use super::TerrainOverlay;
use crate::geom::Camera;
use crate::render::gpu::Gpu;
use crate::render::world::uniform_entry;
use crate::render::{shaders, DEPTH_FORMAT};
use crate::terrain::{
    ClipmapConfig, ClipmapFrame, ClipmapMeshes, HeightUpdates, MeshKind, TerrainInstance,
    TerrainShading,
};

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

pub(crate) const OVERLAY_LEVEL_COLORS: u32 = 1;

/// Where one mesh kind sits in the shared vertex/index buffers.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct KindRange {
    pub(super) base_vertex: u32,
    #[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
    pub(super) vertex_count: u32,
    pub(super) first_index: u32,
    pub(super) index_count: u32,
}

pub struct TerrainPass {
    pub(super) fill: wgpu::RenderPipeline,
    pub(super) seam: wgpu::RenderPipeline,
    pub(super) wire: Option<wgpu::RenderPipeline>,
    pub(super) sky: wgpu::RenderPipeline,
    pub(super) lines: wgpu::RenderPipeline,
    /// The test hooks' shader module and pipelines.
    #[cfg(feature = "test-hooks")]
    pub(super) hooks: super::hooks::TerrainHooks,
    pub(super) mesh_vertices: wgpu::Buffer,
    pub(super) mesh_indices: wgpu::Buffer,
    pub(super) kinds: [KindRange; 5],
    pub(super) instances: wgpu::Buffer,
    #[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
    pub(super) instance_count: u32,
    pub(super) frame_buffer: wgpu::Buffer,
    pub(super) view_buffer: wgpu::Buffer,
    pub(super) heights: wgpu::Texture,
    pub(super) heights_view: wgpu::TextureView,
    pub(super) bind_group_layout: wgpu::BindGroupLayout,
    pub(super) sky_sampler: wgpu::Sampler,
    /// The sky and the fog colour come from the level's cubemap skybox (`set_skybox`).
    pub(super) skybox: bool,
    pub(super) bind_group: wgpu::BindGroup,
    pub(super) line_buffer: Option<wgpu::Buffer>,
    pub(super) line_count: u32,
    pub(super) draws: Vec<(MeshKind, Range<u32>)>,
    pub(super) wireframe: bool,
    pub(super) view: TerrainView,
    /// Set by `Terrain::prepare` before the pass is prepared.
    pub(super) view_octagon: crate::geom::Octagon,
    pub(super) levels: u32,
    pub(super) window: u32,
    pub(super) gpu_bytes: usize,
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
            std::mem::size_of::<crate::terrain::TerrainFrame>(),
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
            #[cfg(feature = "test-hooks")]
            hooks: super::hooks::TerrainHooks::new(gpu, layout, color_format),
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
    pub fn upload(&mut self, gpu: &Gpu, upload: &TerrainUpload) -> usize {
        let TerrainUpload {
            camera,
            selection_camera,
            frame,
            overlay,
            lines,
        } = *upload;
        let sel = frame.selection;
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
}

/// The five static meshes in one vertex and one index buffer.
/// What the terrain pass uploads for one frame.
#[derive(Clone, Copy)]
pub struct TerrainUpload<'a> {
    /// The eye.
    pub camera: &'a Camera,
    /// Where the selection was made when that is not the eye (frozen culling).
    pub selection_camera: Option<&'a Camera>,
    pub frame: &'a ClipmapFrame<'a>,
    pub overlay: &'a TerrainOverlay,
    /// Debug boxes, eye-relative.
    pub lines: &'a [LineVertex],
}

pub(super) struct MeshBuffers {
    pub(super) vertices: wgpu::Buffer,
    pub(super) indices: wgpu::Buffer,
    pub(super) kinds: [KindRange; 5],
    /// Bytes of vertex and index data.
    pub(super) bytes: usize,
}

pub(super) fn create_mesh_buffers(device: &wgpu::Device, meshes: &ClipmapMeshes) -> MeshBuffers {
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
pub(super) fn create_instance_buffer(device: &wgpu::Device, cfg: &ClipmapConfig) -> wgpu::Buffer {
    // Per level at most 16 tiles, 4 filler arms, a trim, a seam and the cross.
    let max_instances = 24 * cfg.levels as u64;
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("terrain instances"),
        size: max_instances * std::mem::size_of::<TerrainInstance>() as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

pub(super) fn create_uniform_buffer(
    device: &wgpu::Device,
    label: &str,
    size: usize,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The per-level height windows: one `window`² R32Float layer per level, and its array view.
pub(super) fn create_height_windows(
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
pub(super) fn create_bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
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

pub(super) fn create_sky_sampler(device: &wgpu::Device) -> wgpu::Sampler {
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("terrain sky"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        ..Default::default()
    })
}

/// Until a level's skybox is set: a black placeholder cube, unused (flags.z = 0).
pub(super) fn create_placeholder_sky(device: &wgpu::Device) -> wgpu::TextureView {
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

/// The pipelines made up front (the test hooks make theirs on first use).
pub(super) struct TerrainPipelines {
    pub(super) fill: wgpu::RenderPipeline,
    pub(super) seam: wgpu::RenderPipeline,
    pub(super) wire: Option<wgpu::RenderPipeline>,
    pub(super) sky: wgpu::RenderPipeline,
    pub(super) lines: wgpu::RenderPipeline,
}

pub(super) fn create_pipelines(
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
pub(super) fn create_sky_pipeline(
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
pub(super) fn create_debug_box_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
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
                attributes: &LineVertex::ATTRIBUTES,
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

/// The pass's one bind group: frame and view uniforms, height windows, sky cube and sampler.
pub(super) fn terrain_bind_group(
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

pub(super) fn view_uniform(
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

/// The instance buffer's attributes (the instance half of WGSL `MeshIn`).
pub(crate) const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![1 => Sint32x2, 2 => Uint32, 3 => Uint32];

pub(super) fn mesh_buffers() -> [Option<wgpu::VertexBufferLayout<'static>>; 2] {
    const LOCAL: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![0 => Sint32x2];
    [
        Some(wgpu::VertexBufferLayout {
            array_stride: 8,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &LOCAL,
        }),
        Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<TerrainInstance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &INSTANCE_ATTRIBUTES,
        }),
    ]
}

pub(super) fn depth_state(write: bool, bias: wgpu::DepthBiasState) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(write),
        // Reverse-Z: nearer is larger; the sky at depth 0 passes only where nothing was drawn.
        depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
        stencil: Default::default(),
        bias,
    }
}

pub(super) struct SurfaceDesc<'a> {
    pub(super) label: &'a str,
    pub(super) vs: &'a str,
    pub(super) fs: &'a str,
    pub(super) buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    pub(super) cull: Option<wgpu::Face>,
    pub(super) mode: wgpu::PolygonMode,
    pub(super) depth_write: bool,
    pub(super) bias: wgpu::DepthBiasState,
    pub(super) format: wgpu::TextureFormat,
}

pub(super) fn surface_pipeline(
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
