//! The demo's panels drawn from egui's output: its textures (the font atlas) as egui hands
//! them over, its meshes in one vertex and one index buffer a frame, a draw per mesh inside its
//! clip rectangle. shaders/ui.wgsl has no branch its fragments skip: egui-wgpu's shader keeps
//! a software-filtering path behind a uniform, which a software rasterizer runs for every
//! fragment (docs/performance.md).

use std::collections::HashMap;

use super::gpu::Gpu;
use super::shaders;

/// The uniform of shaders/ui.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct UiScreen {
    /// The screen's size in points (x, y).
    pub size: [f32; 4],
}

/// egui's vertex as shaders/ui.wgsl reads it: position and texture coordinates, then the colour
/// as four sRGB bytes.
pub const VERTEX_ATTRIBUTES: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x2, 2 => Uint32];

/// One mesh of a frame: its texture, where it may draw (pixels: x, y, width, height), its
/// indices and the offset of its vertices.
struct MeshDraw {
    texture: egui::TextureId,
    scissor: [u32; 4],
    indices: std::ops::Range<u32>,
    base_vertex: i32,
}

/// A texture egui set, and its bind group.
struct UiTexture {
    texture: wgpu::Texture,
    group: wgpu::BindGroup,
}

/// Draws egui's meshes with the textures it hands over, one draw per mesh inside its clip
/// rectangle.
pub struct UiPainter {
    pipeline: wgpu::RenderPipeline,
    screen: wgpu::Buffer,
    screen_group: wgpu::BindGroup,
    texture_layout: wgpu::BindGroupLayout,
    textures: HashMap<egui::TextureId, UiTexture>,
    vertices: Option<wgpu::Buffer>,
    indices: Option<wgpu::Buffer>,
    draws: Vec<MeshDraw>,
    /// This frame's meshes laid end to end (kept: refilled each frame).
    mesh_vertices: Vec<egui::epaint::Vertex>,
    mesh_indices: Vec<u32>,
}

impl UiPainter {
    /// A painter onto targets of `format` (blending in whatever space the format stores).
    pub fn new(gpu: &Gpu, format: wgpu::TextureFormat) -> UiPainter {
        let device = &gpu.device;
        let screen_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("ui screen"),
            entries: &[super::bindings::uniform_entry(
                0,
                wgpu::ShaderStages::VERTEX,
            )],
        });
        let texture_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("ui texture"),
            entries: &[
                super::bindings::texture_entry(0, wgpu::TextureViewDimension::D2),
                super::bindings::sampler_entry(1),
            ],
        });
        let screen = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ui screen"),
            size: std::mem::size_of::<UiScreen>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let screen_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("ui screen"),
            layout: &screen_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: screen.as_entire_binding(),
            }],
        });
        let pipeline = create_pipeline(device, &[&screen_layout, &texture_layout], format);
        UiPainter {
            pipeline,
            screen,
            screen_group,
            texture_layout,
            textures: HashMap::new(),
            vertices: None,
            indices: None,
            draws: Vec::new(),
            mesh_vertices: Vec::new(),
            mesh_indices: Vec::new(),
        }
    }

    /// Makes or patches the textures egui set this frame (before `prepare`).
    pub fn set_textures(&mut self, gpu: &Gpu, delta: &egui::TexturesDelta) {
        for (id, images) in &delta.set {
            for image in images {
                self.set_texture(gpu, *id, image);
            }
        }
    }

    /// A whole texture (made anew) or a patch of one.
    fn set_texture(&mut self, gpu: &Gpu, id: egui::TextureId, image: &egui::epaint::ImageDelta) {
        let egui::ImageData::Color(pixels) = &image.image;
        let [w, h] = pixels.size.map(|n| n as u32);
        let origin = match image.pos {
            Some([x, y]) => [x as u32, y as u32],
            None => {
                let texture = self.create_texture(gpu, (w, h), &image.options);
                self.textures.insert(id, texture);
                [0, 0]
            }
        };
        let Some(target) = self.textures.get(&id) else {
            log::warn!("egui patched texture {id:?} before setting it; skipped");
            return;
        };
        gpu.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &target.texture,
                mip_level: 0,
                origin: wgpu::Origin3d {
                    x: origin[0],
                    y: origin[1],
                    z: 0,
                },
                aspect: wgpu::TextureAspect::All,
            },
            bytemuck::cast_slice(&pixels.pixels),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * w),
                rows_per_image: Some(h),
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
    }

    /// Drops the textures egui freed this frame (after the frame is recorded).
    pub fn free_textures(&mut self, delta: &egui::TexturesDelta) {
        for id in &delta.free {
            self.textures.remove(id);
        }
    }

    /// Writes this frame's meshes (`primitives`, in points) for a screen of `size` pixels at
    /// `pixels_per_point`.
    pub fn prepare(
        &mut self,
        gpu: &Gpu,
        primitives: &[egui::ClippedPrimitive],
        size: (u32, u32),
        pixels_per_point: f32,
    ) {
        let uniform = UiScreen {
            size: [
                size.0 as f32 / pixels_per_point,
                size.1 as f32 / pixels_per_point,
                0.0,
                0.0,
            ],
        };
        gpu.queue
            .write_buffer(&self.screen, 0, bytemuck::bytes_of(&uniform));
        self.draws.clear();
        let (vertices, indices) = (&mut self.mesh_vertices, &mut self.mesh_indices);
        vertices.clear();
        indices.clear();
        for p in primitives {
            let egui::epaint::Primitive::Mesh(mesh) = &p.primitive else {
                continue;
            };
            let Some(scissor) = scissor_pixels(p.clip_rect, size, pixels_per_point) else {
                continue;
            };
            let first = indices.len() as u32;
            self.draws.push(MeshDraw {
                texture: mesh.texture_id,
                scissor,
                indices: first..first + mesh.indices.len() as u32,
                base_vertex: vertices.len() as i32,
            });
            vertices.extend_from_slice(&mesh.vertices);
            indices.extend_from_slice(&mesh.indices);
        }
        write_growing(
            gpu,
            &mut self.vertices,
            "ui vertices",
            wgpu::BufferUsages::VERTEX,
            bytemuck::cast_slice(vertices),
        );
        write_growing(
            gpu,
            &mut self.indices,
            "ui indices",
            wgpu::BufferUsages::INDEX,
            bytemuck::cast_slice(indices),
        );
    }

    /// Draws the prepared meshes into `pass` (a target of the painter's format).
    pub fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        let (Some(vertices), Some(indices)) = (&self.vertices, &self.indices) else {
            return;
        };
        if self.draws.is_empty() {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.screen_group, &[]);
        pass.set_vertex_buffer(0, vertices.slice(..));
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        for d in &self.draws {
            let Some(texture) = self.textures.get(&d.texture) else {
                continue;
            };
            let [x, y, w, h] = d.scissor;
            pass.set_scissor_rect(x, y, w, h);
            pass.set_bind_group(1, &texture.group, &[]);
            pass.draw_indexed(d.indices.clone(), d.base_vertex, 0..1);
        }
    }

    fn create_texture(
        &self,
        gpu: &Gpu,
        (width, height): (u32, u32),
        options: &egui::TextureOptions,
    ) -> UiTexture {
        // The colours stay sRGB bytes: blending happens in gamma space, as egui's does.
        let texture = super::target::target_texture(
            gpu,
            "ui texture",
            (width, height),
            wgpu::TextureFormat::Rgba8Unorm,
            wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        );
        let view = texture.create_view(&Default::default());
        let sampler = gpu.device.create_sampler(&sampler_for(options));
        let group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("ui texture"),
            layout: &self.texture_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        });
        UiTexture { texture, group }
    }
}

/// A clip rectangle in points as a scissor in pixels (x, y, width, height) on a screen of
/// `size`; `None` when nothing of it is on screen.
fn scissor_pixels(clip: egui::Rect, size: (u32, u32), ppp: f32) -> Option<[u32; 4]> {
    let px = |v: f32, max: u32| (v * ppp).round().clamp(0.0, max as f32) as u32;
    let (x0, y0) = (px(clip.min.x, size.0), px(clip.min.y, size.1));
    let (x1, y1) = (px(clip.max.x, size.0), px(clip.max.y, size.1));
    (x1 > x0 && y1 > y0).then_some([x0, y0, x1 - x0, y1 - y0])
}

/// The sampler egui asks a texture to be read with (no mipmaps: the painter makes none).
fn sampler_for(options: &egui::TextureOptions) -> wgpu::SamplerDescriptor<'static> {
    let filter = |f: egui::TextureFilter| match f {
        egui::TextureFilter::Nearest => wgpu::FilterMode::Nearest,
        egui::TextureFilter::Linear => wgpu::FilterMode::Linear,
    };
    let wrap = match options.wrap_mode {
        egui::TextureWrapMode::ClampToEdge => wgpu::AddressMode::ClampToEdge,
        egui::TextureWrapMode::Repeat => wgpu::AddressMode::Repeat,
        egui::TextureWrapMode::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
    };
    wgpu::SamplerDescriptor {
        label: Some("ui texture"),
        address_mode_u: wrap,
        address_mode_v: wrap,
        mag_filter: filter(options.magnification),
        min_filter: filter(options.minification),
        ..Default::default()
    }
}

/// Writes `bytes` into `buffer`, made (again) at the next power of two when it is too small.
fn write_growing(
    gpu: &Gpu,
    buffer: &mut Option<wgpu::Buffer>,
    label: &'static str,
    usage: wgpu::BufferUsages,
    bytes: &[u8],
) {
    if bytes.is_empty() {
        return;
    }
    let size = (bytes.len() as u64).next_power_of_two().max(1024);
    if buffer
        .as_ref()
        .is_none_or(|b| b.size() < bytes.len() as u64)
    {
        *buffer = Some(gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }));
    }
    if let Some(b) = buffer {
        // Buffer writes are whole multiples of 4 bytes (indices and vertices are).
        gpu.queue.write_buffer(b, 0, bytes);
    }
}

/// egui's premultiplied-alpha blending, over a target of `format` (an sRGB one: the colours
/// decoded first).
fn create_pipeline(
    device: &wgpu::Device,
    layouts: &[&wgpu::BindGroupLayout],
    format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("ui.wgsl"),
        source: wgpu::ShaderSource::Wgsl(shaders::ui().into()),
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("ui"),
        bind_group_layouts: &layouts.iter().map(|l| Some(*l)).collect::<Vec<_>>(),
        immediate_size: 0,
    });
    let blend = wgpu::BlendState {
        color: wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
            operation: wgpu::BlendOperation::Add,
        },
        alpha: wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::OneMinusDstAlpha,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Add,
        },
    };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("ui"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_ui"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<egui::epaint::Vertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &VERTEX_ATTRIBUTES,
            })],
        },
        primitive: Default::default(),
        depth_stencil: None,
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some(if format.is_srgb() {
                "fs_ui_srgb_target"
            } else {
                "fs_ui"
            }),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format,
                blend: Some(blend),
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}
