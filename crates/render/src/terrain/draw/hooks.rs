//! Test hooks of the terrain pass (cargo feature `test-hooks`): what the vertex shader computed,
//! the height windows, and a brute-force reference mesh drawn with the same shading. Their entry
//! points are in their own shader, shaders/terrain_hooks.wgsl.

use std::cell::OnceCell;

use bytemuck::{Pod, Zeroable};

use super::pipelines::{mesh_buffers, surface_pipeline, SurfaceDesc};
use super::TerrainDraw;
use crate::gpu::Gpu;
use crate::shaders;

/// The hooks' part of the pass: their shader module (the terrain shader and their entry points)
/// and their pipelines, made on first use.
pub(in crate::terrain) struct TerrainHooks {
    layout: wgpu::PipelineLayout,
    module: wgpu::ShaderModule,
    color_format: wgpu::TextureFormat,
    points: OnceCell<wgpu::RenderPipeline>,
    reference: OnceCell<wgpu::RenderPipeline>,
}

impl TerrainHooks {
    /// `layout` is the pass's pipeline layout; the reference mesh draws into `color_format`.
    pub(in crate::terrain) fn new(
        gpu: &Gpu,
        layout: wgpu::PipelineLayout,
        color_format: wgpu::TextureFormat,
    ) -> TerrainHooks {
        let source = shaders::terrain_hooks(gpu.features.clip_distances);
        let module = gpu
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("terrain_hooks.wgsl"),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
        TerrainHooks {
            layout,
            module,
            color_format,
            points: OnceCell::new(),
            reference: OnceCell::new(),
        }
    }
}

/// One vertex of the brute-force reference mesh (`vs_reference`): eye-relative position, world
/// height, normal.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct ReferenceVertex {
    /// Position relative to the eye.
    pub rel: [f32; 3],
    /// Height in the world (the shading's height bands read it).
    pub height: f32,
    /// Unit normal of the ground there.
    pub normal: [f32; 3],
    /// Keeps the struct 16-byte aligned as WGSL lays it out.
    pub _pad: f32,
}

impl ReferenceVertex {
    /// The vertex buffer's attributes (of the WGSL `ReferenceVertex`).
    pub(crate) const ATTRIBUTES: [wgpu::VertexAttribute; 3] =
        wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32, 2 => Float32x3];
}

/// Every vertex of every drawn instance as the vertex shader computed it (the test hook).
pub struct VertexReadback {
    /// Pixels per row (the largest mesh's vertex count); row = instance index.
    pub width: u32,
    /// Rows: the instances drawn.
    pub height: u32,
    /// Camera-relative position (xyz) and morph alpha (w), row-major.
    pub rel: Vec<[f32; 4]>,
    /// Clip position of the surface pass.
    pub clip: Vec<[f32; 4]>,
}

impl VertexReadback {
    /// Vertex `vertex` of instance `instance`: its eye-relative position and morph, and its
    /// clip position.
    pub fn at(&self, instance: u32, vertex: u32) -> ([f32; 4], [f32; 4]) {
        let i = (instance * self.width + vertex) as usize;
        (self.rel[i], self.clip[i])
    }
}

impl TerrainDraw {
    /// The last frame's water reflection as drawn (half the frame's size), if the sea
    /// reflected.
    pub fn read_reflection(&self, gpu: &Gpu) -> Option<image::RgbaImage> {
        let r = self.reflection.as_ref()?;
        Some(crate::target::read_rgba(gpu, &r.color_texture))
    }

    /// Test hook: runs the surface vertex shader for every vertex of every instance of the last
    /// prepared frame and reads back its camera-relative position and clip position (one pixel
    /// per vertex: column = mesh vertex, row = instance index).
    pub fn read_vertex_positions(&self, gpu: &Gpu) -> VertexReadback {
        let width = self.kinds.iter().map(|k| k.vertex_count).max().unwrap_or(1);
        let height = self.instance_count.max(1);
        let device = &gpu.device;
        let hooks = &self.hooks;
        let pipe = hooks.points.get_or_init(|| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("terrain vertex readback"),
                layout: Some(&hooks.layout),
                vertex: wgpu::VertexState {
                    module: &hooks.module,
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
                    module: &hooks.module,
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
            for (kind, _, range, _) in &self.draws {
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

    /// Test hook: draws the lit-per-vertex surface with the full stages (`vs_main` with
    /// `fs_vertex_lit` and `fs_vertex_lit_shadowed`) where the lean ones would: their oracle.
    pub fn use_full_stages(&mut self) {
        self.lean_stages = false;
        self.variants.clear();
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
        let hooks = &self.hooks;
        let pipe = hooks.reference.get_or_init(|| {
            surface_pipeline(
                device,
                &hooks.layout,
                &hooks.module,
                SurfaceDesc {
                    label: "terrain reference mesh",
                    vs: "vs_reference",
                    fs: "fs_main",
                    buffers: &[Some(wgpu::VertexBufferLayout {
                        array_stride: std::mem::size_of::<ReferenceVertex>() as u64,
                        step_mode: wgpu::VertexStepMode::Vertex,
                        attributes: &ReferenceVertex::ATTRIBUTES,
                    })],
                    cull: Some(wgpu::Face::Back),
                    mode: wgpu::PolygonMode::Fill,
                    depth_write: true,
                    bias: Default::default(),
                    format: hooks.color_format,
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

/// Copies a (layered) texture with `texel` bytes per texel to the CPU as f32s, rows unpadded.
fn read_texture_f32(gpu: &Gpu, texture: &wgpu::Texture, texel: u32, layers: u32) -> Vec<f32> {
    bytemuck::pod_collect_to_vec(&crate::target::read_texture_layers(
        gpu, texture, texel, layers,
    ))
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
