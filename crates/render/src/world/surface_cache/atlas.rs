//! The surface cache on the GPU: the mipmapped atlas, the bake (the camera's opaque shading of
//! a surface's texel grid into its region, then each mip level from the one above), and the
//! pipeline that draws cached surfaces with one fetch.

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use super::{Bake, CacheSurface, SurfacePlan, ATLAS_LEVELS, ATLAS_SIZE};
use crate::bindings::sampler_entry;
use crate::gpu::Gpu;
use crate::pass::Offscreen;
use crate::shaders;
use crate::world::mesh::WorldVertex;
use crate::world::pipelines::world_primitive;
use crate::DEPTH_FORMAT;

/// The atlas's texel format: the shaded colour in gamma space, as the frame stores it.
pub(crate) const ATLAS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// One corner of a surface's region as the bake draws it (`vs_bake` in world.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct BakeVertex {
    /// Clip-space position in atlas level 0.
    pub position: [f32; 2],
    /// The material coordinates (repeats) and atlas luxel coordinates there.
    pub uv: [f32; 2],
    pub lightmap_uv: [f32; 2],
    /// The luxels the bake may read (the surface's rect out to its border's centres).
    pub lm_min: [f32; 2],
    pub lm_max: [f32; 2],
    pub layer: u32,
    pub flags: u32,
    pub styles: u32,
    pub unlit: f32,
    /// The material array's mip level whose texels are the region's.
    pub lod: f32,
    pub style_tints: [u32; 4],
}

impl BakeVertex {
    const ATTRIBUTES: [wgpu::VertexAttribute; 11] = wgpu::vertex_attr_array![
        0 => Float32x2, 1 => Float32x2, 2 => Float32x2, 3 => Float32x2, 4 => Float32x2,
        5 => Uint32, 6 => Uint32, 7 => Uint32, 8 => Float32, 9 => Float32, 10 => Uint32x4
    ];
}

pub(crate) struct CacheAtlas {
    /// Mip level views (render targets, and the source of the next level).
    levels: Vec<wgpu::TextureView>,
    /// Level 1 again, in a texture of its own (`fs_cached_two_levels`): drawn by the same mip
    /// quads from level 0 after the atlas's own levels.
    level_1: wgpu::TextureView,
    bake_pipeline: wgpu::RenderPipeline,
    mip_pipeline: wgpu::RenderPipeline,
    /// Level `k`'s view as the source of level `k + 1`.
    mip_sources: Vec<wgpu::BindGroup>,
    /// The camera's cached opaque surfaces: [`fs_cached`, `fs_cached_magnified`,
    /// `fs_cached_two_levels`] (by `cache_state`).
    pub pipelines: [wgpu::RenderPipeline; 3],
    /// [nearest, linear] (the world's material samplers).
    pub bind_groups: [wgpu::BindGroup; 2],
    /// Per level surface: `uv · xy + zw` is its place in the atlas.
    regions: wgpu::Buffer,
    /// The cached pipeline's group 1.
    cache_layout: wgpu::BindGroupLayout,
    /// This frame's bake: per atlas level, its quads' vertex buffer and vertex count (empty:
    /// nothing to bake).
    pending: Vec<(wgpu::Buffer, u32)>,
    /// The material layers' edge in texels (`materials::layer_size`).
    layer_size: u32,
}

/// What the atlas is made with: the world's shader module and its group 0 layout.
pub(crate) struct WorldShading<'a> {
    pub module: &'a wgpu::ShaderModule,
    pub layout: &'a wgpu::BindGroupLayout,
    pub samplers: &'a [wgpu::Sampler; 2],
    pub color_format: wgpu::TextureFormat,
    /// The material layers' edge in texels (`materials::layer_size`).
    pub layer_size: u32,
}

impl CacheAtlas {
    pub(crate) fn create(gpu: &Gpu, world: &WorldShading<'_>, surfaces: usize) -> CacheAtlas {
        let device = &gpu.device;
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("surface cache"),
            size: wgpu::Extent3d {
                width: ATLAS_SIZE,
                height: ATLAS_SIZE,
                depth_or_array_layers: 1,
            },
            mip_level_count: ATLAS_LEVELS,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: ATLAS_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let levels: Vec<_> = (0..ATLAS_LEVELS)
            .map(|k| {
                texture.create_view(&wgpu::TextureViewDescriptor {
                    base_mip_level: k,
                    mip_level_count: Some(1),
                    ..Default::default()
                })
            })
            .collect();
        let regions = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("surface cache regions"),
            size: (surfaces.max(1) * 16) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let cache_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("surface cache"),
            entries: &[
                crate::bindings::texture_entry(0, wgpu::TextureViewDimension::D2),
                sampler_entry(1),
                storage_entry_vertex(2),
                crate::bindings::texture_entry(3, wgpu::TextureViewDimension::D2),
                crate::bindings::texture_entry(4, wgpu::TextureViewDimension::D2),
            ],
        });
        let full = texture.create_view(&Default::default());
        let level_1 = level_1_texture(device);
        let bind_groups = std::array::from_fn(|i| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("surface cache"),
                layout: &cache_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&full),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(&world.samplers[i]),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: regions.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: wgpu::BindingResource::TextureView(&levels[0]),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: wgpu::BindingResource::TextureView(&level_1),
                    },
                ],
            })
        });
        let (mip_pipeline, mip_sources) = mip_pipeline(device, &levels);
        CacheAtlas {
            layer_size: world.layer_size,
            bake_pipeline: bake_pipeline(device, world),
            pipelines: cached_pipelines(device, world, &cache_layout),
            cache_layout,
            mip_pipeline,
            mip_sources,
            levels,
            level_1,
            bind_groups,
            regions,
            pending: Vec::new(),
        }
    }

    /// Its pipelines made again from the world's module of another variant (what it holds
    /// stays: it is lit the same).
    pub(crate) fn use_module(&mut self, device: &wgpu::Device, world: &WorldShading<'_>) {
        self.bake_pipeline = bake_pipeline(device, world);
        self.pipelines = cached_pipelines(device, world, &self.cache_layout);
    }

    /// Uploads the quads that bake `bakes` and their mip levels this frame (recorded by
    /// `record_bake`, before the world pass draws); no bakes: nothing to record.
    pub(crate) fn prepare_bake(&mut self, gpu: &Gpu, plan: &SurfacePlan, bakes: &[Bake]) {
        self.pending.clear();
        if bakes.is_empty() {
            return;
        }
        let mut vertices = Vec::with_capacity(bakes.len() * 6);
        for b in bakes {
            if let Some(s) = plan.surface(b.surface) {
                vertices.extend(bake_quad(s, b, self.layer_size));
            }
            let at = b.surface as u64 * 16;
            gpu.queue
                .write_buffer(&self.regions, at, bytemuck::bytes_of(&b.uv_map));
        }
        let upload = |label, contents: &[u8], count: usize| {
            let buffer = gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage: wgpu::BufferUsages::VERTEX,
                });
            (buffer, count as u32)
        };
        self.pending.push(upload(
            "surface cache bakes",
            bytemuck::cast_slice(&vertices),
            vertices.len(),
        ));
        for k in 1..ATLAS_LEVELS {
            let quads = mip_quads(bakes, k);
            self.pending.push(upload(
                "surface cache mips",
                bytemuck::cast_slice(&quads),
                quads.len(),
            ));
        }
    }

    /// The render passes this frame's bake needs: level 0, then each mip level from the one
    /// above, then level 1 again into its own texture.
    pub(crate) fn bake_passes(&self) -> Vec<Offscreen<'_>> {
        if self.pending.is_empty() {
            return Vec::new();
        }
        let pass = |label, color| Offscreen {
            label,
            color: Some(color),
            depth: None,
            clear: None,
        };
        let mut passes = vec![pass("surface cache bake", &self.levels[0])];
        passes.extend(
            self.levels[1..]
                .iter()
                .map(|l| pass("surface cache mip", l)),
        );
        passes.push(pass("surface cache level 1", &self.level_1));
        passes
    }

    /// Draws bake pass `k` (`world`: the world's group 0, bound with this frame's styles).
    pub(crate) fn record_bake(
        &self,
        k: usize,
        pass: &mut wgpu::RenderPass<'_>,
        world: &wgpu::BindGroup,
    ) {
        // The last pass draws level 1 again (into `level_1`).
        let k = if k == self.pending.len() { 1 } else { k };
        let Some((buffer, count)) = self.pending.get(k) else {
            return;
        };
        if k == 0 {
            pass.set_pipeline(&self.bake_pipeline);
            pass.set_bind_group(0, world, &[]);
        } else {
            pass.set_pipeline(&self.mip_pipeline);
            pass.set_bind_group(0, &self.mip_sources[k - 1], &[]);
        }
        pass.set_vertex_buffer(0, buffer.slice(..));
        pass.draw(0..*count, 0..1);
    }
}

/// The texture `fs_cached_two_levels` reads the atlas's level 1 from: a view of one level
/// whose first level is its level 0 (llvmpipe samples a view of a mipmapped texture's level 1
/// as it does a mipmapped one, with per-pixel level offsets).
fn level_1_texture(device: &wgpu::Device) -> wgpu::TextureView {
    let size = ATLAS_SIZE >> 1;
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("surface cache level 1"),
            size: wgpu::Extent3d {
                width: size,
                height: size,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: ATLAS_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

/// Level 0's clip-space x and y of atlas texel coordinates.
fn clip_of(p: [f64; 2], size: f64) -> [f32; 2] {
    [
        (p[0] / size * 2.0 - 1.0) as f32,
        (1.0 - p[1] / size * 2.0) as f32,
    ]
}

/// The two triangles covering `b`'s region, with the material and lightmap coordinates of its
/// corners (both are affine in the material's texel space, so the corners carry them).
fn bake_quad(s: &CacheSurface, b: &Bake, layer_size: u32) -> [BakeVertex; 6] {
    let r = &b.region;
    let [t0, t1] = r.texel_corners();
    let a = [r.atlas[0] as f64, r.atlas[1] as f64];
    let e = [a[0] + r.size[0] as f64, a[1] + r.size[1] as f64];
    let largest = s.size.x.max(s.size.y);
    let lod = (r.level as f32 + (layer_size as f32 / largest).log2()).max(0.0);
    let corner = |cx: usize, cy: usize| {
        let texel = [[t0[0], t1[0]][cx], [t0[1], t1[1]][cy]];
        let uv = glam::Vec2::new(
            (texel[0] / s.size.x as f64) as f32,
            (texel[1] / s.size.y as f64) as f32,
        );
        let lm = s.lm_base + uv.x * s.lm_du + uv.y * s.lm_dv;
        BakeVertex {
            position: clip_of([[a[0], e[0]][cx], [a[1], e[1]][cy]], ATLAS_SIZE as f64),
            uv: uv.to_array(),
            lightmap_uv: lm.to_array(),
            lm_min: s.lm_min.to_array(),
            lm_max: s.lm_max.to_array(),
            layer: s.layer,
            flags: s.flags,
            styles: s.styles,
            unlit: s.unlit,
            lod,
            style_tints: s.style_tints,
        }
    };
    let (c00, c10, c11, c01) = (corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1));
    [c00, c10, c11, c00, c11, c01]
}

/// The regions of `bakes` at mip level `k`, as clip-space triangles of that level.
fn mip_quads(bakes: &[Bake], k: u32) -> Vec<[f32; 2]> {
    let size = (ATLAS_SIZE >> k) as f64;
    let mut out = Vec::with_capacity(bakes.len() * 6);
    for b in bakes {
        let r = &b.region;
        let a = [(r.atlas[0] >> k) as f64, (r.atlas[1] >> k) as f64];
        let e = [
            a[0] + (r.size[0] >> k) as f64,
            a[1] + (r.size[1] >> k) as f64,
        ];
        let c = |x: f64, y: f64| clip_of([x, y], size);
        out.extend([
            c(a[0], a[1]),
            c(e[0], a[1]),
            c(e[0], e[1]),
            c(a[0], a[1]),
            c(e[0], e[1]),
            c(a[0], e[1]),
        ]);
    }
    out
}

fn storage_entry_vertex(binding: u32) -> wgpu::BindGroupLayoutEntry {
    crate::bindings::storage_entry(binding, wgpu::ShaderStages::VERTEX)
}

fn bake_pipeline(device: &wgpu::Device, world: &WorldShading<'_>) -> wgpu::RenderPipeline {
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("surface cache bake"),
        bind_group_layouts: &[Some(world.layout)],
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("surface cache bake"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: world.module,
            entry_point: Some("vs_bake"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<BakeVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &BakeVertex::ATTRIBUTES,
            })],
        },
        primitive: Default::default(),
        depth_stencil: None,
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: world.module,
            entry_point: Some("fs_bake"),
            compilation_options: Default::default(),
            targets: &[Some(ATLAS_FORMAT.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// Each mip level from the one above: a 2×2 box, in gamma space as Quake's mips are made.
fn mip_pipeline(
    device: &wgpu::Device,
    levels: &[wgpu::TextureView],
) -> (wgpu::RenderPipeline, Vec<wgpu::BindGroup>) {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("cache_mip.wgsl"),
        source: wgpu::ShaderSource::Wgsl(shaders::cache_mip().into()),
    });
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("surface cache mip"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        }],
    });
    let sources = levels[..levels.len() - 1]
        .iter()
        .map(|view| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("surface cache mip source"),
                layout: &layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(view),
                }],
            })
        })
        .collect();
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("surface cache mip"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("surface cache mip"),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_mip"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: 8,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x2],
            })],
        },
        primitive: Default::default(),
        depth_stencil: None,
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_mip"),
            compilation_options: Default::default(),
            targets: &[Some(ATLAS_FORMAT.into())],
        }),
        multiview_mask: None,
        cache: None,
    });
    (pipeline, sources)
}

/// The camera's cached opaque surfaces: `vs_cached` / `fs_cached`, and `fs_cached_magnified`
/// for those magnified all over, tested and written like the camera's other opaque surfaces.
fn cached_pipelines(
    device: &wgpu::Device,
    world: &WorldShading<'_>,
    cache_layout: &wgpu::BindGroupLayout,
) -> [wgpu::RenderPipeline; 3] {
    ["fs_cached", "fs_cached_magnified", "fs_cached_two_levels"]
        .map(|entry| cached_pipeline(device, world, cache_layout, entry))
}

fn cached_pipeline(
    device: &wgpu::Device,
    world: &WorldShading<'_>,
    cache_layout: &wgpu::BindGroupLayout,
    entry: &str,
) -> wgpu::RenderPipeline {
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("world cached"),
        bind_group_layouts: &[Some(world.layout), Some(cache_layout)],
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("world cached"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: world.module,
            entry_point: Some("vs_cached"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<WorldVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &WorldVertex::ATTRIBUTES,
            })],
        },
        primitive: world_primitive(false, true),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: world.module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            targets: &[Some(world.color_format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}
