//! Material textures in one 2D texture array (Quake textures differ in size: each is resampled
//! to the layer size, with mipmaps), and the lightmap atlas texture.

use super::gpu::Gpu;
use crate::level::{Lightmaps, Material};

/// Layer edge in texels; Quake's largest wall textures are 256 wide.
pub const LAYER_SIZE: u32 = 256;

pub struct MaterialArray {
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    pub sampler: wgpu::Sampler,
    /// Layer of each material.
    pub layers: Vec<u32>,
}

impl MaterialArray {
    pub fn create(gpu: &Gpu, materials: &[Material]) -> MaterialArray {
        let count = materials.len().max(1) as u32;
        let mips = LAYER_SIZE.ilog2() + 1;
        let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("materials"),
            size: wgpu::Extent3d {
                width: LAYER_SIZE,
                height: LAYER_SIZE,
                depth_or_array_layers: count,
            },
            mip_level_count: mips,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            // Gamma-encoded texels, sampled raw: lighting multiplies in gamma space as Quake did.
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        for (layer, m) in materials.iter().enumerate() {
            let base = layer_texels(m);
            let mut level = base;
            let mut size = LAYER_SIZE;
            for mip in 0..mips {
                gpu.queue.write_texture(
                    wgpu::TexelCopyTextureInfo {
                        texture: &texture,
                        mip_level: mip,
                        origin: wgpu::Origin3d {
                            x: 0,
                            y: 0,
                            z: layer as u32,
                        },
                        aspect: wgpu::TextureAspect::All,
                    },
                    &level,
                    wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(size * 4),
                        rows_per_image: Some(size),
                    },
                    wgpu::Extent3d {
                        width: size,
                        height: size,
                        depth_or_array_layers: 1,
                    },
                );
                if size > 1 {
                    level = downsample(&level, size);
                    size /= 2;
                }
            }
        }
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let sampler = gpu.device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("materials"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Nearest,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        MaterialArray {
            texture,
            view,
            sampler,
            layers: (0..materials.len() as u32).collect(),
        }
    }
}

/// The material resampled (nearest) to LAYER_SIZE², RGBA8, alpha 0 where fullbright.
pub fn layer_texels(m: &Material) -> Vec<u8> {
    let n = LAYER_SIZE as usize;
    let mut out = vec![0u8; n * n * 4];
    match &m.texels {
        Some(t) if m.width > 0 && m.height > 0 && t.len() >= (m.width * m.height * 4) as usize => {
            let (w, h) = (m.width as usize, m.height as usize);
            for y in 0..n {
                let sy = y * h / n;
                for x in 0..n {
                    let sx = x * w / n;
                    let si = sy * w + sx;
                    let o = (y * n + x) * 4;
                    out[o..o + 3].copy_from_slice(&t[si * 4..si * 4 + 3]);
                    let fullbright = m
                        .fullbright
                        .as_ref()
                        .is_some_and(|f| f.get(si).copied().unwrap_or(0) > 127);
                    out[o + 3] = if fullbright { 0 } else { 255 };
                }
            }
        }
        _ => {
            let c = m.color.map(|v| (linear_to_srgb(v) * 255.0).round() as u8);
            for px in out.chunks_exact_mut(4) {
                px.copy_from_slice(&[c[0], c[1], c[2], 255]);
            }
        }
    }
    out
}

fn linear_to_srgb(v: f32) -> f32 {
    let v = v.clamp(0.0, 1.0);
    if v <= 0.0031308 {
        v * 12.92
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    }
}

/// 2×2 box filter of a square RGBA8 image.
fn downsample(src: &[u8], size: u32) -> Vec<u8> {
    let (n, h) = (size as usize, (size / 2) as usize);
    let mut out = vec![0u8; h * h * 4];
    for y in 0..h {
        for x in 0..h {
            for c in 0..4 {
                let s: u32 = [(0, 0), (1, 0), (0, 1), (1, 1)]
                    .iter()
                    .map(|(dx, dy)| src[((2 * y + dy) * n + 2 * x + dx) * 4 + c] as u32)
                    .sum();
                out[(y * h + x) * 4 + c] = ((s + 2) / 4) as u8;
            }
        }
    }
    out
}

/// The lightmap atlas as an RGBA8 (linear) texture; 1×1 white when the level has none.
pub fn lightmap_texture(gpu: &Gpu, lm: &Lightmaps) -> wgpu::Texture {
    let (w, h, rgba) =
        if lm.width == 0 || lm.height == 0 || lm.texels.len() < (lm.width * lm.height * 3) as usize
        {
            (1, 1, vec![255u8; 4])
        } else {
            let mut rgba = Vec::with_capacity((lm.width * lm.height * 4) as usize);
            for px in lm.texels.chunks_exact(3) {
                rgba.extend_from_slice(&[px[0], px[1], px[2], 255]);
            }
            (lm.width, lm.height, rgba)
        };
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("lightmap atlas"),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    gpu.queue.write_texture(
        texture.as_image_copy(),
        &rgba,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(w * 4),
            rows_per_image: Some(h),
        },
        wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
    );
    texture
}
