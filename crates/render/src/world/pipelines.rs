//! The world pass's GPU objects: mesh and draw buffers, bind groups, pipelines per view class
//! and surface kind.

use wgpu::util::DeviceExt;

use super::draws::{DrawRecord, ViewClass};
use super::mesh::{SurfaceKind, WorldMesh, WorldVertex, KINDS};
use crate::bindings::{sampler_entry, storage_entry, texture_entry, uniform_entry};
use crate::materials::MaterialArray;
use crate::DEPTH_FORMAT;

pub(super) fn create_mesh_buffers(
    device: &wgpu::Device,
    mesh: &WorldMesh,
) -> (wgpu::Buffer, wgpu::Buffer) {
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
pub(super) fn create_draw_buffers(
    device: &wgpu::Device,
    max_records: usize,
) -> (wgpu::Buffer, wgpu::Buffer) {
    let records = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("world draw records"),
        size: (max_records * std::mem::size_of::<DrawRecord>()) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let indirect = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("world indirect draws"),
        size: (KINDS * max_records * std::mem::size_of::<wgpu::util::DrawIndexedIndirectArgs>())
            as u64,
        usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    (records, indirect)
}

pub(super) fn create_bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("world"),
        entries: &[
            uniform_entry(0, wgpu::ShaderStages::VERTEX_FRAGMENT),
            storage_entry(1, wgpu::ShaderStages::VERTEX_FRAGMENT),
            texture_entry(2, wgpu::TextureViewDimension::D2),
            // The aerial fog samples the skybox per vertex (AERIAL_FOG).
            vertex_too(sampler_entry(3)),
            texture_entry(4, wgpu::TextureViewDimension::D2Array),
            sampler_entry(5),
            vertex_too(texture_entry(6, wgpu::TextureViewDimension::Cube)),
            storage_entry(7, wgpu::ShaderStages::VERTEX_FRAGMENT),
            storage_entry(8, wgpu::ShaderStages::VERTEX_FRAGMENT),
            // The materials' normal and specular maps (moving objects' lamps, OBJECT_LAMPS).
            texture_entry(9, wgpu::TextureViewDimension::D2Array),
            texture_entry(10, wgpu::TextureViewDimension::D2Array),
            // Each material layer's scroll and animation (Quake 3's `tcMod scroll`, `animMap`).
            storage_entry(11, wgpu::ShaderStages::VERTEX),
            // The materials' finest level alone (`MaterialArray::finest_view`: the sky).
            texture_entry(12, wgpu::TextureViewDimension::D2Array),
        ],
    })
}

/// `entry` seen by the vertex stage as well.
fn vertex_too(entry: wgpu::BindGroupLayoutEntry) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        visibility: entry.visibility | wgpu::ShaderStages::VERTEX,
        ..entry
    }
}

/// What the world bind groups bind.
pub(super) struct BindGroupResources<'a> {
    pub(super) frame: &'a wgpu::Buffer,
    pub(super) records: &'a wgpu::Buffer,
    pub(super) object_light: &'a wgpu::Buffer,
    pub(super) object_lamps: &'a wgpu::Buffer,
    pub(super) lightmap: &'a wgpu::Texture,
    pub(super) materials: &'a MaterialArray,
    pub(super) skybox: &'a wgpu::TextureView,
}

/// The records of a count with the octagons open, and the group 0 that draws with them.
pub(super) fn open_octagon_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    resources: BindGroupResources<'_>,
    max_records: usize,
) -> (wgpu::Buffer, wgpu::BindGroup) {
    let (open_records, _) = create_draw_buffers(device, max_records);
    let [group, _] = create_bind_groups(
        device,
        layout,
        &BindGroupResources {
            records: &open_records,
            ..resources
        },
    );
    (open_records, group)
}

/// [nearest, linear] texture filtering.
pub(super) fn create_bind_groups(
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

pub(super) fn world_bind_group(
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
            wgpu::BindGroupEntry {
                binding: 7,
                resource: res.object_light.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 8,
                resource: res.object_lamps.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 9,
                resource: wgpu::BindingResource::TextureView(&res.materials.maps.normal),
            },
            wgpu::BindGroupEntry {
                binding: 10,
                resource: wgpu::BindingResource::TextureView(&res.materials.maps.specular),
            },
            wgpu::BindGroupEntry {
                binding: 11,
                resource: res.materials.motion.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 12,
                resource: wgpu::BindingResource::TextureView(&res.materials.finest_view),
            },
        ],
    })
}

/// The colour pipelines, indexed like `WorldPass::pipelines`; `sky`: what the level's sky
/// shows.
pub(super) fn create_color_pipelines(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
    sky: SkyShading,
) -> [wgpu::RenderPipeline; 3 * KINDS] {
    std::array::from_fn(|i| {
        make_pipeline(
            device,
            layout,
            module,
            SurfaceKind::ALL[i % KINDS],
            PipelineOutput::Color(color_format),
            ViewClass::ALL[i / KINDS],
            false,
            CameraShading::Own { sky },
        )
    })
}

/// The camera's surfaces of `kind` (not fences) through `fs_main`, which tints them for the
/// cells and depth overlays, draws them fullbright and blends water over its reflection
/// (`fs_opaque`, `fs_sky` and `fs_liquid` leave those branches out: a software rasterizer
/// would pay for them every frame).
pub(super) fn full_shading_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
    kind: SurfaceKind,
) -> wgpu::RenderPipeline {
    make_pipeline(
        device,
        layout,
        module,
        kind,
        PipelineOutput::Color(color_format),
        ViewClass::Camera,
        false,
        CameraShading::Full,
    )
}

/// The camera's liquids where they cover what is under them: `fs_liquid`, not blended, writing
/// depth; drawn before the other batches where cells under them may be drawn
/// (`WorldPass::liquids_first`), else after them.
pub(super) fn covering_liquid_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    make_pipeline(
        device,
        layout,
        module,
        SurfaceKind::Liquid,
        PipelineOutput::Color(color_format),
        ViewClass::Camera,
        false,
        CameraShading::Covering,
    )
}

/// What the level's sky shows, each with its own fragment stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SkyShading {
    /// Its cubemap skybox.
    pub skybox: bool,
    /// Quake 3's cloud layers (over the skybox where it has one, else black).
    pub clouds: bool,
}

/// How the camera's batches shade their fragments (other views, and ids, ignore it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CameraShading {
    /// Each kind's own fragment stage, with no branch for what most frames do not do:
    /// `fs_opaque`, the sky's (`fs_sky`, `fs_skybox`, `fs_clouds`, `fs_skybox_clouds`),
    /// `fs_fence`, `fs_liquid`.
    Own { sky: SkyShading },
    /// `fs_main` (fences keep `fs_fence`): tints, fullbright, water over its reflection.
    Full,
    /// The camera's liquids through `fs_liquid` where they cover what is under them (no glow,
    /// no reflection): not blended, writing depth (`WorldPass::liquids_cover`).
    Covering,
}

impl CameraShading {
    /// The fragment entry point of the camera's surfaces of `kind`.
    fn entry(self, kind: SurfaceKind) -> &'static str {
        match (self, kind) {
            (_, SurfaceKind::Fence) => "fs_fence",
            (CameraShading::Full, _) => "fs_main",
            (CameraShading::Own { .. }, SurfaceKind::Opaque) => "fs_opaque",
            (CameraShading::Own { sky }, SurfaceKind::Sky) => match (sky.skybox, sky.clouds) {
                (false, false) => "fs_sky",
                (true, false) => "fs_skybox",
                (false, true) => "fs_clouds",
                (true, true) => "fs_skybox_clouds",
            },
            // Covering is the liquids' shading alone (`covering_liquid_pipeline`).
            (CameraShading::Own { .. }, SurfaceKind::Liquid) | (CameraShading::Covering, _) => {
                "fs_liquid"
            }
        }
    }
}

/// What a world pipeline draws into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PipelineOutput {
    /// Colour of this format, over the frame's depth.
    Color(wgpu::TextureFormat),
    /// Surface ids (R32Uint), over the id frame's depth and stencil of this format.
    Ids(wgpu::TextureFormat),
}

/// One world pipeline; `shading`: how the camera's surfaces of `kind` are shaded.
#[allow(clippy::too_many_arguments)]
pub(super) fn make_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    kind: SurfaceKind,
    output: PipelineOutput,
    class: ViewClass,
    back_faces: bool,
    shading: CameraShading,
) -> wgpu::RenderPipeline {
    let (color, depth_format) = match output {
        PipelineOutput::Color(format) => (Some(format), DEPTH_FORMAT),
        PipelineOutput::Ids(depth) => (None, depth),
    };
    let mirrored = class == ViewClass::Mirrored;
    let translucent = kind == SurfaceKind::Liquid && shading != CameraShading::Covering;
    let fence = kind == SurfaceKind::Fence;
    let (entry, target) = match color {
        Some(format) => (
            match class {
                ViewClass::Camera => shading.entry(kind),
                _ => "fs_portal_view",
            },
            wgpu::ColorTargetState {
                format,
                // Premultiplied: alpha 1 covers, alpha 0 adds (a glow); see `finished`.
                blend: translucent.then_some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
                write_mask: wgpu::ColorWrites::ALL,
            },
        ),
        None => (
            if fence { "fs_ids_fence" } else { "fs_ids" },
            wgpu::ColorTargetState::from(wgpu::TextureFormat::R32Uint),
        ),
    };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(match (kind, color.is_some()) {
            (SurfaceKind::Opaque, true) => "world opaque",
            (SurfaceKind::Sky, true) => "world sky",
            (SurfaceKind::Fence, true) => "world fence",
            (SurfaceKind::Liquid, true) => "world liquid",
            (SurfaceKind::Liquid, false) => "world ids liquid",
            (_, false) => "world ids",
        }),
        layout: Some(layout),
        vertex: world_vertex_state(module),
        // Liquids too cull back faces: Quake stores a face for each side of a water surface.
        // Ids of an outdoor level keep back faces as occluders (see `fs_ids`).
        primitive: world_primitive(mirrored, !back_faces),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: depth_format,
            // Colour: liquids blend over what is behind and do not hide it. Ids: the nearest
            // liquid wins (its pass runs last, after the solid depth is complete).
            depth_write_enabled: Some(!translucent || color.is_none()),
            // Reverse-Z; equal depths pass so a surface drawn once per cell stays visible.
            depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
            // Ids: a view draws only where the stencil holds its mark (see `id_pass`).
            stencil: if color.is_some() {
                Default::default()
            } else {
                stencil_equal()
            },
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

/// A wireframe overlay pipeline: the world's triangles as polygon-mode lines (`fs_wire`), over
/// what the colour pipelines drew (depth tested, not written).
pub(super) fn wire_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
    class: ViewClass,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("world wireframe"),
        layout: Some(layout),
        vertex: world_vertex_state(module),
        primitive: wgpu::PrimitiveState {
            polygon_mode: wgpu::PolygonMode::Line,
            ..world_primitive(class == ViewClass::Mirrored, true)
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(false),
            depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
            stencil: Default::default(),
            // Reverse-Z: a positive bias pulls the edges toward the eye, over their own faces.
            bias: wgpu::DepthBiasState {
                constant: 4,
                slope_scale: 1.0,
                clamp: 0.0,
            },
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some("fs_wire"),
            compilation_options: Default::default(),
            targets: &[Some(color_format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// The world vertex stage: `vs_main` over `WorldVertex`.
pub(super) fn world_vertex_state(module: &wgpu::ShaderModule) -> wgpu::VertexState<'_> {
    wgpu::VertexState {
        module,
        entry_point: Some("vs_main"),
        compilation_options: Default::default(),
        buffers: &[Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<WorldVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &WorldVertex::ATTRIBUTES,
        })],
    }
}

/// Triangle lists, wound the other way in mirrored views, back faces culled or not.
pub(super) fn world_primitive(mirrored: bool, cull_back: bool) -> wgpu::PrimitiveState {
    wgpu::PrimitiveState {
        topology: wgpu::PrimitiveTopology::TriangleList,
        front_face: if mirrored {
            wgpu::FrontFace::Cw
        } else {
            wgpu::FrontFace::Ccw
        },
        cull_mode: cull_back.then_some(wgpu::Face::Back),
        ..Default::default()
    }
}

pub(super) fn nonempty_bytes(b: &[u8]) -> &[u8] {
    if b.is_empty() {
        &[0u8; 16]
    } else {
        b
    }
}

/// The id surfaces' stencil: drawn only where the stencil holds the reference (their view's
/// mark), never written.
pub(super) fn stencil_equal() -> wgpu::StencilState {
    stencil(
        wgpu::CompareFunction::Equal,
        wgpu::StencilOperation::Keep,
        0xff,
        0,
    )
}

pub(super) fn stencil(
    compare: wgpu::CompareFunction,
    pass_op: wgpu::StencilOperation,
    read_mask: u32,
    write_mask: u32,
) -> wgpu::StencilState {
    let face = wgpu::StencilFaceState {
        compare,
        fail_op: wgpu::StencilOperation::Keep,
        depth_fail_op: wgpu::StencilOperation::Keep,
        pass_op,
    };
    wgpu::StencilState {
        front: face,
        back: face,
        read_mask,
        write_mask,
    }
}
