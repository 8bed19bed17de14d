//! The terrain's pipelines: fill, seams, wireframe, sky, debug boxes.

use crate::gpu::Gpu;
use crate::terrain::debug::LineVertex;
use crate::DEPTH_FORMAT;
use lanthorn_terrain::TerrainInstance;

/// The pipelines made up front (the test hooks make theirs on first use).
pub(in crate::terrain) struct TerrainPipelines {
    pub(in crate::terrain) fill: wgpu::RenderPipeline,
    pub(in crate::terrain) seam: wgpu::RenderPipeline,
    pub(in crate::terrain) wire: Option<wgpu::RenderPipeline>,
    pub(in crate::terrain) sky: wgpu::RenderPipeline,
    pub(in crate::terrain) lines: wgpu::RenderPipeline,
}

pub(in crate::terrain) fn create_pipelines(
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

/// The module of the plain variant (no shadows, reflection, lamps or level colours): the
/// pass's own pipelines, the sky's and the debug ones.
pub(in crate::terrain) fn create_plain_module(gpu: &Gpu) -> wgpu::ShaderModule {
    let variant = crate::shaders::TerrainVariant {
        clip_distances: gpu.features.clip_distances,
        ..Default::default()
    };
    gpu.device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("terrain.wgsl"),
            source: wgpu::ShaderSource::Wgsl(crate::shaders::terrain(variant).into()),
        })
}

/// The fill and seam pipelines of a variant of the surface's shading (`shaders::TerrainVariant`:
/// the sun's cascades, the sea's reflection, the point lights, the level colours) with the
/// `stages`' vertex and fragment entry points (`lighting::SurfaceShading::entries`).
pub(in crate::terrain) fn create_variant_pipelines(
    gpu: &Gpu,
    group: &wgpu::BindGroupLayout,
    color_format: wgpu::TextureFormat,
    variant: crate::shaders::TerrainVariant,
    stages: (&str, &str),
) -> [wgpu::RenderPipeline; 2] {
    let device = &gpu.device;
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("terrain variant"),
        bind_group_layouts: &[Some(group)],
        immediate_size: 0,
    });
    let source = crate::shaders::terrain(variant);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("terrain.wgsl (variant)"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    fill_and_seam(
        device,
        &layout,
        &module,
        stages,
        wgpu::Face::Back,
        color_format,
    )
}

/// A surface's two pipelines with `vs` and `fs`: the fill, culling `fill_cull`, and the seam,
/// which culls nothing (its triangles have zero area on the grid and either winding).
pub(in crate::terrain) fn fill_and_seam(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    (vs, fs): (&str, &str),
    fill_cull: wgpu::Face,
    color_format: wgpu::TextureFormat,
) -> [wgpu::RenderPipeline; 2] {
    [Some(fill_cull), None].map(|cull| {
        surface_pipeline(
            device,
            layout,
            module,
            SurfaceDesc {
                label: fs,
                vs,
                fs,
                buffers: &mesh_buffers(),
                cull,
                mode: wgpu::PolygonMode::Fill,
                depth_write: true,
                bias: Default::default(),
                format: color_format,
            },
        )
    })
}

/// The sky: a full-screen triangle at the far depth.
pub(in crate::terrain) fn create_sky_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let stages = ("vs_sky_clipped", "fs_sky");
    create_sky_pipeline_with(device, layout, module, color_format, stages)
}

/// A sky pipeline with the stages `(vs, fs)` (the camera's is clipped to the outdoor octagon;
/// the reflection's is not, and sees the sky turned up).
pub(in crate::terrain) fn create_sky_pipeline_with(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
    (vs, fs): (&str, &str),
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("terrain sky"),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(vs),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: Some(depth_state(false, Default::default())),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(fs),
            compilation_options: Default::default(),
            targets: &[Some(color_format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// The debug boxes: a line list of [`LineVertex`].
pub(in crate::terrain) fn create_debug_box_pipeline(
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

/// The instance buffer's attributes (the instance half of WGSL `MeshIn`).
pub(crate) const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![1 => Sint32x2, 2 => Uint32, 3 => Uint32];

pub(in crate::terrain) fn mesh_buffers() -> [Option<wgpu::VertexBufferLayout<'static>>; 2] {
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

pub(in crate::terrain) fn depth_state(
    write: bool,
    bias: wgpu::DepthBiasState,
) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(write),
        // Reverse-Z: nearer is larger; the sky at depth 0 passes only where nothing was drawn.
        depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
        stencil: Default::default(),
        bias,
    }
}

pub(in crate::terrain) struct SurfaceDesc<'a> {
    pub(in crate::terrain) label: &'a str,
    pub(in crate::terrain) vs: &'a str,
    pub(in crate::terrain) fs: &'a str,
    pub(in crate::terrain) buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    pub(in crate::terrain) cull: Option<wgpu::Face>,
    pub(in crate::terrain) mode: wgpu::PolygonMode,
    pub(in crate::terrain) depth_write: bool,
    pub(in crate::terrain) bias: wgpu::DepthBiasState,
    pub(in crate::terrain) format: wgpu::TextureFormat,
}

pub(in crate::terrain) fn surface_pipeline(
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

/// The terrain as a shadow caster: `vs_caster` into one cascade, depth only, only the faces
/// turned away from the sun. A height field's sunlit slopes never shadow anything the faces
/// behind them do not (a ray from a point towards the sun leaves the ground through a face
/// turned away from it), and without them a lit slope cannot shadow itself: with the
/// receivers' offsets taken out, the hills test finds no clear pixel darkened this way and
/// 9,931 of 10,033 with the other faces kept. The rasterizer also skips half the triangles
/// (docs/performance.md).
pub(in crate::terrain) fn create_caster_pipeline(
    device: &wgpu::Device,
    group: &wgpu::BindGroupLayout,
    module: &wgpu::ShaderModule,
) -> wgpu::RenderPipeline {
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("terrain shadow casters"),
        bind_group_layouts: &[Some(group)],
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("terrain shadow casters"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("vs_caster"),
            compilation_options: Default::default(),
            buffers: &mesh_buffers(),
        },
        // The sun's view is right-handed like the camera's: a face towards it is CCW.
        primitive: wgpu::PrimitiveState {
            cull_mode: Some(wgpu::Face::Front),
            ..Default::default()
        },
        depth_stencil: Some(crate::shadow::caster_depth_state()),
        multisample: Default::default(),
        fragment: None,
        multiview_mask: None,
        cache: None,
    })
}
