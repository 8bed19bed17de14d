//! The offscreen frame every view renders into (window, `capture` and tests share it), and
//! readback of colour and id targets.

use super::gpu::Gpu;
use super::DEPTH_FORMAT;

/// The frame's colour: sRGB-encoded, so linear light written to it is encoded at the store.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// The same texels seen raw: the world pass writes the gamma-encoded colour it shades (Quake
/// lights in gamma space) without a decode in the shader and an encode at the store, which
/// cost a software rasterizer more than the rest of its shading.
pub const GAMMA_COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// The HDR scene (`FrameSettings::hdr`): linear light, unclamped; the tone map
/// (`render::tonemap`) maps it into the frame's colour.
pub const HDR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// The frame every view renders into: colour and reverse-Z depth, and the HDR scene when HDR
/// is on.
pub struct FrameTarget {
    /// Width and height in pixels (at least 1 each).
    pub size: (u32, u32),
    /// The frame's colour, which later passes sample and readback copies out.
    pub color: wgpu::Texture,
    /// `color` as [`COLOR_FORMAT`]: linear light in, sRGB-encoded at the store.
    pub color_view: wgpu::TextureView,
    /// `color` as [`GAMMA_COLOR_FORMAT`].
    pub color_gamma_view: wgpu::TextureView,
    /// The frame's reverse-Z depth ([`DEPTH_FORMAT`]).
    pub depth: wgpu::Texture,
    /// `depth` as the scene passes attach it (who else draws into it tells the renderer:
    /// `Renderer::depth_written`).
    pub depth_view: wgpu::TextureView,
    /// With HDR on, the scene's colour the scene passes draw into (both scene attachments)
    /// and the tone map reads; `None`: they draw into `color`.
    pub hdr: Option<wgpu::TextureView>,
    hdr_texture: Option<wgpu::Texture>,
}

impl FrameTarget {
    /// A frame of `size` pixels (each side at least 1), with HDR off.
    pub fn create(gpu: &Gpu, size: (u32, u32)) -> FrameTarget {
        let size = (size.0.max(1), size.1.max(1));
        let extent = wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        };
        let color = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("frame colour"),
            size: extent,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[GAMMA_COLOR_FORMAT],
        });
        let depth = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("frame depth"),
            size: extent,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        FrameTarget {
            size,
            color_view: color.create_view(&Default::default()),
            color_gamma_view: color.create_view(&wgpu::TextureViewDescriptor {
                format: Some(GAMMA_COLOR_FORMAT),
                ..Default::default()
            }),
            depth_view: depth.create_view(&Default::default()),
            color,
            depth,
            hdr: None,
            hdr_texture: None,
        }
    }

    /// HDR on (a float scene of the frame's size, made if there is none) or off.
    pub fn use_hdr(&mut self, gpu: &Gpu, on: bool) {
        if !on {
            self.hdr = None;
            self.hdr_texture = None;
        } else if self.hdr.is_none() {
            let usage = wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC;
            let scene = target_texture(gpu, "hdr scene", self.size, HDR_FORMAT, usage);
            self.hdr = Some(scene.create_view(&Default::default()));
            self.hdr_texture = Some(scene);
        }
    }

    /// The HDR scene's linear RGB (row-major, top row first), or `None` with HDR off.
    pub fn read_hdr(&self, gpu: &Gpu) -> Option<Vec<[f32; 3]>> {
        let bytes = read_texture_layers(gpu, self.hdr_texture.as_ref()?, 8, 1);
        let halves: Vec<u16> = bytemuck::pod_collect_to_vec(&bytes);
        let rgb = halves
            .chunks_exact(4)
            .map(|t| [t[0], t[1], t[2]].map(lanthorn_geom::half::to_f32));
        Some(rgb.collect())
    }

    /// The formats the scene passes draw in: linear (the terrain) and the world's (gamma into
    /// the LDR frame, linear into the HDR scene).
    pub fn scene_formats(&self) -> SceneFormats {
        if self.hdr.is_some() {
            SceneFormats {
                linear: HDR_FORMAT,
                world: HDR_FORMAT,
            }
        } else {
            SceneFormats::LDR
        }
    }
}

/// The colour formats the scene passes' pipelines are made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SceneFormats {
    /// The format of the passes that shade in linear light (the terrain).
    pub linear: wgpu::TextureFormat,
    /// The world pass's format: raw gamma into the LDR frame, linear into the HDR scene.
    pub world: wgpu::TextureFormat,
}

impl SceneFormats {
    /// The LDR frame's: the sRGB view for linear light, the raw view for the world's gamma.
    pub const LDR: SceneFormats = SceneFormats {
        linear: COLOR_FORMAT,
        world: GAMMA_COLOR_FORMAT,
    };
}

/// A linear colour as the sRGB encoding stores it (alpha unchanged).
pub fn encode_srgb(c: wgpu::Color) -> wgpu::Color {
    let e = |v: f64| {
        let v = v.clamp(0.0, 1.0);
        if v <= 0.0031308 {
            v * 12.92
        } else {
            1.055 * v.powf(1.0 / 2.4) - 0.055
        }
    };
    wgpu::Color {
        r: e(c.r),
        g: e(c.g),
        b: e(c.b),
        a: c.a,
    }
}

/// Copies a 4-byte-per-texel texture (RGBA8 or R32Uint) to the CPU, rows unpadded.
pub fn read_texture_bytes(gpu: &Gpu, texture: &wgpu::Texture) -> Vec<u8> {
    read_texture_layers(gpu, texture, 4, 1)
}

/// Copies `layers` layers of a texture with `texel` bytes per texel to the CPU, rows unpadded,
/// layer after layer.
pub fn read_texture_layers(gpu: &Gpu, texture: &wgpu::Texture, texel: u32, layers: u32) -> Vec<u8> {
    let (w, h) = (texture.width(), texture.height());
    let unpadded = w * texel;
    let padded =
        unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: padded as u64 * h as u64 * layers as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    enc.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(h),
            },
        },
        wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: layers,
        },
    );
    gpu.queue.submit([enc.finish()]);
    let slice = buffer.slice(..);
    slice.map_async(wgpu::MapMode::Read, |_| {});
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("GPU poll failed while reading back a texture");
    let data = slice.get_mapped_range().expect("readback buffer is mapped");
    let mut out = Vec::with_capacity((unpadded * h * layers) as usize);
    for row in 0..(h * layers) as usize {
        let start = row * padded as usize;
        out.extend_from_slice(&data[start..start + unpadded as usize]);
    }
    out
}

/// Reads an RGBA8 colour target into an image.
pub fn read_rgba(gpu: &Gpu, texture: &wgpu::Texture) -> image::RgbaImage {
    let bytes = read_texture_bytes(gpu, texture);
    image::RgbaImage::from_raw(texture.width(), texture.height(), bytes)
        .expect("readback size matches")
}

/// Reads an R32Uint id target (row-major, top row first).
pub fn read_ids(gpu: &Gpu, texture: &wgpu::Texture) -> Vec<u32> {
    let bytes = read_texture_bytes(gpu, texture);
    bytemuck::pod_collect_to_vec(&bytes)
}

/// A 2D render target of `size` (one mip, one sample).
pub fn target_texture(
    gpu: &Gpu,
    label: &str,
    size: (u32, u32),
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// A texture read back without stalling the frame: copied into a buffer in the frame's
/// encoder ([`Readback::copy`]), mapped after that frame's submit and read frames later
/// ([`Readback::poll`]); one copy in flight at a time.
pub struct Readback {
    texture: wgpu::Texture,
    buffer: wgpu::Buffer,
    /// Bytes a row in the buffer (padded to the copy alignment) and in the texture.
    padded: u32,
    unpadded: u32,
    state: std::cell::Cell<ReadState>,
    /// Set by the map callback: 0 pending, 1 mapped, 2 failed.
    mapped: std::sync::Arc<std::sync::atomic::AtomicU8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadState {
    Idle,
    Copied,
    Mapping,
}

impl Readback {
    /// For a one-layer texture of `texel` bytes a texel.
    pub fn new(gpu: &Gpu, texture: &wgpu::Texture, texel: u32) -> Readback {
        let unpadded = texture.width() * texel;
        let padded = unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        Readback {
            texture: texture.clone(),
            buffer: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("frame readback"),
                size: padded as u64 * texture.height() as u64,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            }),
            padded,
            unpadded,
            state: std::cell::Cell::new(ReadState::Idle),
            mapped: Default::default(),
        }
    }

    /// Records the copy of the texture as it is at this point of `enc`, unless the last copy
    /// has not been read yet.
    pub fn copy(&self, enc: &mut wgpu::CommandEncoder) {
        if self.state.get() != ReadState::Idle {
            return;
        }
        enc.copy_texture_to_buffer(
            self.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded),
                    rows_per_image: None,
                },
            },
            self.texture.size(),
        );
        self.state.set(ReadState::Copied);
    }

    /// The texels (row-major, unpadded) of the last copy once the GPU has made them readable,
    /// without waiting; call after the submit of the frame that copied.
    pub fn poll(&self, gpu: &Gpu) -> Option<Vec<u8>> {
        use std::sync::atomic::Ordering;
        if self.state.get() == ReadState::Copied {
            self.mapped.store(0, Ordering::Release);
            let flag = self.mapped.clone();
            self.buffer
                .slice(..)
                .map_async(wgpu::MapMode::Read, move |r| {
                    flag.store(if r.is_ok() { 1 } else { 2 }, Ordering::Release)
                });
            self.state.set(ReadState::Mapping);
        }
        if self.state.get() != ReadState::Mapping {
            return None;
        }
        let _ = gpu.device.poll(wgpu::PollType::Poll);
        match self.mapped.load(Ordering::Acquire) {
            0 => return None,
            1 => {}
            _ => {
                // The map failed (a lost device): copy again next frame.
                self.state.set(ReadState::Idle);
                return None;
            }
        }
        let texels = self.buffer.slice(..).get_mapped_range().ok().map(|bytes| {
            bytes
                .chunks_exact(self.padded as usize)
                .flat_map(|row| &row[..self.unpadded as usize])
                .copied()
                .collect()
        });
        self.buffer.unmap();
        self.state.set(ReadState::Idle);
        texels
    }
}
