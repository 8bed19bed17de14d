//! Material textures in one 2D texture array (Quake textures differ in size: each is resampled
//! to the layer size, with mipmaps), and the lightmap atlas texture.

use super::gpu::Gpu;
use lanthorn_level::{Lightmaps, Material};

/// Layer edge in texels; Quake's largest wall textures are 256 wide.
pub const LAYER_SIZE: u32 = 256;
/// Layer edge for a level with larger pictures (Quake 3's are often 512): a wall seen close
/// keeps their detail.
pub const LARGE_LAYER_SIZE: u32 = 512;
/// The most memory the larger layers may take (mip levels included); past it a level keeps
/// `LAYER_SIZE`.
const LARGE_ARRAY_BUDGET: u64 = 256 << 20;

/// The layer edge for `materials`: `LARGE_LAYER_SIZE` where a picture is larger than
/// `LAYER_SIZE` and the array stays within its budget, else `LAYER_SIZE`.
pub fn layer_size(materials: &[Material]) -> u32 {
    let large = materials
        .iter()
        .any(|m| m.texels.is_some() && m.width.max(m.height) > LAYER_SIZE);
    let layer_bytes = u64::from(LARGE_LAYER_SIZE).pow(2) * 4 * 4 / 3;
    match large && materials.len() as u64 * layer_bytes <= LARGE_ARRAY_BUDGET {
        true => LARGE_LAYER_SIZE,
        false => LAYER_SIZE,
    }
}

/// Every material as one layer of a 2D texture array, with the samplers the world draws
/// them with and their normal and specular maps.
pub struct MaterialArray {
    /// The array: one mipmapped `layer_size`² RGBA8 layer per material.
    pub texture: wgpu::Texture,
    /// Its layers' edge (`layer_size`).
    pub layer_size: u32,
    /// `texture` as a 2D array, as the shaders bind it.
    pub view: wgpu::TextureView,
    /// Its finest level alone, as a 2D array: what a shader reads at level 0 explicitly (the
    /// sky) it reads from this view, which llvmpipe samples without the per-pixel level
    /// offsets it spends on a mipmapped view even at an explicit level (docs/performance.md).
    pub finest_view: wgpu::TextureView,
    /// [nearest (Quake's look), linear] magnification; both mipmapped.
    pub samplers: [wgpu::Sampler; 2],
    /// Layer of each material.
    pub layers: Vec<u32>,
    /// Their normal and specular maps (moving objects' lamps read them).
    pub maps: MaterialMaps,
    /// Each layer's motion (storage; `motion_words`): the vertex stage moves texture
    /// coordinates by its scroll and picks its animation's picture by the frame's time.
    pub motion: wgpu::Buffer,
}

impl MaterialArray {
    /// Uploads `materials` as layers in their order, with their normal and specular maps.
    pub fn create(gpu: &Gpu, materials: &[Material]) -> MaterialArray {
        let n = layer_size(materials);
        let layers: Vec<Vec<u8>> = materials.iter().map(|m| layer_texels(m, n)).collect();
        let texture = layer_array(gpu, "materials", &layers, n);
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let finest_view = texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            mip_level_count: Some(1),
            ..Default::default()
        });
        let sampler = |mag| {
            gpu.device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("materials"),
                address_mode_u: wgpu::AddressMode::Repeat,
                address_mode_v: wgpu::AddressMode::Repeat,
                mag_filter: mag,
                // Nearest within a mip level too, as GL_NEAREST_MIPMAP_LINEAR (Quake's crisp
                // look in GL engines); linear blends between mip levels in both modes.
                min_filter: mag,
                mipmap_filter: wgpu::MipmapFilterMode::Linear,
                ..Default::default()
            })
        };
        let samplers = [
            sampler(wgpu::FilterMode::Nearest),
            sampler(wgpu::FilterMode::Linear),
        ];
        let count = materials.len();
        let mut motion: Vec<[u32; 4]> = materials.iter().map(|m| motion_words(m, count)).collect();
        // Never empty: a binding needs a buffer of some size.
        if motion.is_empty() {
            motion.push([0; 4]);
        }
        let motion = wgpu::util::DeviceExt::create_buffer_init(
            &gpu.device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("material motion"),
                contents: bytemuck::cast_slice(&motion),
                usage: wgpu::BufferUsages::STORAGE,
            },
        );
        MaterialArray {
            texture,
            layer_size: n,
            view,
            finest_view,
            samplers,
            layers: (0..materials.len() as u32).collect(),
            maps: MaterialMaps::create(gpu, materials),
            motion,
        }
    }
}

/// A layer's motion as the vertex stage reads it (`material_motion`): its scroll's two floats'
/// bits, its animation's pictures a second (bits), and its first picture's layer in the low 16
/// bits with the number of pictures above (0: still). An animation reaching past the last of
/// `count` layers, or starting past 65,535, is left still.
pub fn motion_words(m: &Material, count: usize) -> [u32; 4] {
    let animation = m.animation.filter(|a| {
        a.first < 1 << 16 && a.frames < 1 << 16 && (a.first + a.frames) as usize <= count
    });
    let (rate, picked) = animation.map_or((0.0, 0), |a| (a.rate, a.first | (a.frames << 16)));
    [
        m.scroll[0].to_bits(),
        m.scroll[1].to_bits(),
        f32::to_bits(rate),
        picked,
    ]
}

/// The materials' normal and specular maps, layer for layer with the materials (a flat
/// normal and no highlight where a material has none); one 1×1 layer each when no material
/// has a map.
pub struct MaterialMaps {
    /// Normal maps in the face's texture frame, packed into 0–1 (flat where a material has
    /// none).
    pub normal: wgpu::TextureView,
    /// Specular maps: the highlight's colour in rgb, its gloss in alpha (zero: no highlight).
    pub specular: wgpu::TextureView,
}

impl MaterialMaps {
    fn create(gpu: &Gpu, materials: &[Material]) -> MaterialMaps {
        let any = materials.iter().any(Material::has_maps);
        let array = |label, map: fn(&Material) -> &Option<Vec<u8>>, none: [u8; 4]| {
            let texture = if any {
                let layers: Vec<Vec<u8>> = materials
                    .iter()
                    .map(|m| map_texels(m, map(m).as_deref(), none))
                    .collect();
                layer_array(gpu, label, &layers, LAYER_SIZE)
            } else {
                single_texel_array(gpu, label, none)
            };
            texture.create_view(&wgpu::TextureViewDescriptor {
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            })
        };
        MaterialMaps {
            normal: array("normal maps", |m| &m.normal, [128, 128, 255, 255]),
            specular: array("specular maps", |m| &m.specular, [0, 0, 0, 0]),
        }
    }
}

/// A material's map resampled (nearest) to LAYER_SIZE², or `none` everywhere.
fn map_texels(m: &Material, map: Option<&[u8]>, none: [u8; 4]) -> Vec<u8> {
    let n = LAYER_SIZE as usize;
    let (w, h) = (m.width as usize, m.height as usize);
    match map.filter(|t| w > 0 && h > 0 && t.len() >= w * h * 4) {
        Some(t) => (0..n * n)
            .flat_map(|i| {
                let si = (i / n) * h / n * w + (i % n) * w / n;
                [t[si * 4], t[si * 4 + 1], t[si * 4 + 2], t[si * 4 + 3]]
            })
            .collect(),
        None => none.repeat(n * n),
    }
}

/// An `n`² RGBA8 array of `layers` (at least one), mipmapped by 2×2 box filtering.
fn layer_array(gpu: &Gpu, label: &str, layers: &[Vec<u8>], n: u32) -> wgpu::Texture {
    square_array(gpu, label, n, layers, n.ilog2() + 1)
}

/// One 1×1 layer of `texel`.
fn single_texel_array(gpu: &Gpu, label: &str, texel: [u8; 4]) -> wgpu::Texture {
    square_array(gpu, label, 1, &[texel.to_vec()], 1)
}

/// An RGBA8 array of square `layers` (`side` texels, at least one layer), with `mips` levels
/// made by 2×2 box filtering. Texels are sampled raw: gamma-encoded colour multiplies in gamma
/// space as Quake did, and maps hold plain numbers.
fn square_array(gpu: &Gpu, label: &str, side: u32, layers: &[Vec<u8>], mips: u32) -> wgpu::Texture {
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: side,
            height: side,
            depth_or_array_layers: layers.len().max(1) as u32,
        },
        mip_level_count: mips,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        // The texels are sRGB-encoded: a pass may let the sampler decode them (the terrain's
        // sky) where the world's shader decodes them itself.
        view_formats: &[wgpu::TextureFormat::Rgba8UnormSrgb],
    });
    for (layer, base) in layers.iter().enumerate() {
        let mut level = base.clone();
        let mut size = side;
        for mip in 0..mips {
            write_layer(gpu, &texture, (layer as u32, mip, size), &level);
            if size > 1 {
                level = downsample(&level, size);
                size /= 2;
            }
        }
    }
    texture
}

/// `texels` (square, `size` a side) into `layer` at mip level `mip`.
fn write_layer(
    gpu: &Gpu,
    texture: &wgpu::Texture,
    (layer, mip, size): (u32, u32, u32),
    texels: &[u8],
) {
    gpu.queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: mip,
            origin: wgpu::Origin3d {
                x: 0,
                y: 0,
                z: layer,
            },
            aspect: wgpu::TextureAspect::All,
        },
        texels,
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
}

/// The material resampled (nearest) to `size`², RGBA8, alpha 0 where fullbright; a fence's
/// alpha is its own (0 in its holes, whose colour the importer took from around them, so the
/// box-filtered mip levels average coverage without darkening the edges).
pub fn layer_texels(m: &Material, size: u32) -> Vec<u8> {
    let fence = m.flags & lanthorn_level::material_flags::FENCE != 0;
    let n = size as usize;
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
                    out[o + 3] = match (fence, fullbright) {
                        (true, _) => t[si * 4 + 3],
                        (false, true) => 0,
                        (false, false) => 255,
                    };
                }
            }
        }
        _ => {
            // No texels (a compiled scene names a material only): the flat colour with a faint
            // checker of 8 squares a side so surfaces and their orientation stay readable.
            let c = m.color.map(|v| linear_to_srgb(v) * 255.0);
            for (i, px) in out.chunks_exact_mut(4).enumerate() {
                let (x, y) = (i % n, i / n);
                let shade = if ((x * 8 / n) + (y * 8 / n)) % 2 == 0 {
                    1.0
                } else {
                    0.88
                };
                px.copy_from_slice(&[
                    (c[0] * shade) as u8,
                    (c[1] * shade) as u8,
                    (c[2] * shade) as u8,
                    255,
                ]);
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

/// The lightmap atlas as the world shader reads it (`world::light_atlas::atlas_rgba`: RGBA8,
/// light styles packed); 1×1 white when the level has none.
pub fn lightmap_texture(gpu: &Gpu, lm: &Lightmaps, rgba: Vec<u8>) -> wgpu::Texture {
    let layers = 1;
    let (w, h, rgba) = if lm.layers() == 0 || rgba.len() != (lm.width * lm.height * 4) as usize {
        (1, 1, vec![255u8; 4])
    } else {
        (lm.width, lm.height, rgba)
    };
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("lightmap atlas"),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: layers,
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
            depth_or_array_layers: layers,
        },
    );
    texture
}

/// Cube faces in wgpu's layer order (+X, −X, +Y, −Y, +Z, −Z of cube space) and the file
/// suffixes Lanthorn reads them from. Cube space is world space turned Y-up:
/// cube = (x, z, −y), so the world's +Z (up) is the cube's +Y.
pub const SKYBOX_SUFFIXES: [&str; 6] = ["ft", "bk", "up", "dn", "lf", "rt"];

/// World direction (Z up) of texel (u, v) ∈ \[0,1\]² on cube layer `face` (Vulkan/WebGPU cube
/// conventions, then cube space back to world space).
pub fn skybox_direction(face: usize, u: f32, v: f32) -> glam::Vec3 {
    let (s, t) = (2.0 * u - 1.0, 2.0 * v - 1.0);
    let c = match face {
        0 => glam::Vec3::new(1.0, -t, -s),
        1 => glam::Vec3::new(-1.0, -t, s),
        2 => glam::Vec3::new(s, 1.0, t),
        3 => glam::Vec3::new(s, -1.0, -t),
        4 => glam::Vec3::new(s, -t, 1.0),
        _ => glam::Vec3::new(-s, -t, -1.0),
    };
    glam::Vec3::new(c.x, -c.z, c.y).normalize()
}

/// The level's own sky box (`Sky::faces`: six pictures laid out as `SKY_BOX_FACES` says)
/// resampled into the cube's layers (nearest texel), at the largest picture's width; `None`
/// without one or when a picture has no texels.
pub fn sky_box_cube(level: &lanthorn_level::Level) -> Option<(u32, Vec<Vec<u8>>)> {
    let faces = level.sky.as_ref()?.faces?;
    let pictures: Vec<&Material> = faces
        .iter()
        .map(|&m| level.materials.get(m as usize))
        .collect::<Option<_>>()?;
    if pictures
        .iter()
        .any(|m| m.texels.is_none() || m.width == 0 || m.height == 0)
    {
        return None;
    }
    let n = pictures.iter().map(|m| m.width).max()?.clamp(1, 1024);
    let layers = cube_faces(n, |d| sky_box_texel(&pictures, d));
    Some((n, layers))
}

/// The six layers of an `n`² cube, each texel `texel` of the direction through its centre.
fn cube_faces(n: u32, texel: impl Fn(glam::Vec3) -> [u8; 4]) -> Vec<Vec<u8>> {
    (0..6)
        .map(|f| {
            let mut px = Vec::with_capacity((n * n * 4) as usize);
            for y in 0..n {
                for x in 0..n {
                    let (u, v) = ((x as f32 + 0.5) / n as f32, (y as f32 + 0.5) / n as f32);
                    px.extend_from_slice(&texel(skybox_direction(f, u, v)));
                }
            }
            px
        })
        .collect()
}

/// The texel of the sky box's pictures seen along `d`.
fn sky_box_texel(pictures: &[&Material], d: glam::Vec3) -> [u8; 4] {
    let (face, &(out, right, up)) = lanthorn_level::SKY_BOX_FACES
        .iter()
        .enumerate()
        .max_by(|a, b| d.dot(a.1 .0).total_cmp(&d.dot(b.1 .0)))
        .expect("six faces");
    let along = d.dot(out).max(1e-6);
    let (s, t) = (d.dot(right) / along, d.dot(up) / along);
    let m = pictures[face];
    let x = (((s + 1.0) * 0.5 * m.width as f32) as u32).min(m.width - 1);
    let y = (((1.0 - t) * 0.5 * m.height as f32) as u32).min(m.height - 1);
    let i = ((y * m.width + x) * 4) as usize;
    let texels = m.texels.as_deref().unwrap_or(&[0; 4]);
    texels
        .get(i..i + 4)
        .map_or([0, 0, 0, 255], |p| [p[0], p[1], p[2], 255])
}

/// The procedural skybox (`procedural:dusk`): a dusk gradient with a sun, gamma-encoded RGB.
pub fn procedural_sky(dir: glam::Vec3) -> [f32; 3] {
    let up = dir.z.clamp(-1.0, 1.0);
    let horizon = [0.95, 0.55, 0.3];
    let zenith = [0.12, 0.2, 0.45];
    let ground = [0.12, 0.1, 0.1];
    let sun_dir = glam::Vec3::new(0.6, 0.3, 0.15).normalize();
    let sun =
        dir.dot(sun_dir).max(0.0).powf(400.0) * 2.0 + dir.dot(sun_dir).max(0.0).powf(8.0) * 0.25;
    let mut c = [0.0; 3];
    for i in 0..3 {
        let sky = if up >= 0.0 {
            horizon[i] + (zenith[i] - horizon[i]) * up.powf(0.5)
        } else {
            horizon[i] + (ground[i] - horizon[i]) * (-up).powf(0.3)
        };
        c[i] = (sky + sun).clamp(0.0, 1.0);
    }
    c
}

/// The level's sky box (`Sky::faces`, resampled into the cube's layout: `sky_box_cube`) or its
/// cubemap skybox as a 6-layer cube texture, and whether one was found. A cubemap name
/// `procedural:…` is generated; any other name is a path prefix for six PNGs
/// `NAME{ft,bk,up,dn,lf,rt}.png` (ft = +X, bk = −X, up = +Z, dn = −Z, lf = +Y, rt = −Y).
pub fn skybox_texture(gpu: &Gpu, level: &lanthorn_level::Level) -> (wgpu::Texture, bool) {
    let cubemap = level.sky.as_ref().and_then(|s| s.cubemap.as_deref());
    let mut faces: Option<(u32, Vec<Vec<u8>>)> = sky_box_cube(level);
    if let Some(name) = cubemap.filter(|_| faces.is_none()) {
        if name.starts_with("procedural:") {
            let n = 128u32;
            let data = cube_faces(n, |d| {
                let c = procedural_sky(d).map(|v| (v * 255.0).round() as u8);
                [c[0], c[1], c[2], 255]
            });
            faces = Some((n, data));
        } else {
            let loaded: Result<Vec<image::RgbaImage>, String> = SKYBOX_SUFFIXES
                .iter()
                .map(|s| {
                    let p = format!("{name}{s}.png");
                    image::open(&p)
                        .map(|i| i.to_rgba8())
                        .map_err(|e| format!("{p}: {e}"))
                })
                .collect();
            match loaded {
                Ok(imgs) if imgs.iter().all(|i| i.width() == imgs[0].width() && i.height() == i.width()) => {
                    faces = Some((imgs[0].width(), imgs.into_iter().map(|i| i.into_raw()).collect()));
                }
                Ok(_) => log::warn!("skybox {name}: the six faces must be square and the same size; using the layered sky"),
                Err(e) => log::warn!("skybox {name} not loaded ({e}); using the layered sky"),
            }
        }
    }
    let active = faces.is_some();
    let (n, data) = faces.unwrap_or((1, vec![vec![0, 0, 0, 255]; 6]));
    let texture = square_array(gpu, "skybox", n, &data, 1);
    (texture, active)
}

#[cfg(test)]
mod sky_box_tests {
    use super::*;
    use lanthorn_level::{Level, Sky};

    /// Six pictures, each a flat colour but for a blue right half on +X's and a blue top half
    /// on +Z's: every texel of the cube shows the picture its direction points at most, and
    /// the halves land where Quake 3's box puts them (+X's right toward −Y; +Z's top toward −X).
    #[test]
    fn a_sky_box_resamples_into_the_cube_as_quake_3_lays_it_out() {
        const N: u32 = 8;
        let n = N;
        let picture = |k: u8, blue: fn(u32, u32) -> bool| Material {
            width: n,
            height: n,
            texels: Some(
                (0..n * n)
                    .flat_map(|i| match blue(i % n, i / n) {
                        true => [0, 0, 255, 255],
                        false => [k * 40, 0, 0, 255],
                    })
                    .collect(),
            ),
            ..Default::default()
        };
        let mut level = Level::default();
        for k in 0..6u8 {
            level.materials.push(match k {
                0 => picture(k, |x, _| x >= N / 2),
                4 => picture(k, |_, y| y < N / 2),
                _ => picture(k, |_, _| false),
            });
        }
        level.sky = Some(Sky {
            faces: Some([0, 1, 2, 3, 4, 5]),
            ..Default::default()
        });
        let (size, layers) = sky_box_cube(&level).unwrap();
        for (f, layer) in layers.iter().enumerate() {
            for i in 0..(size * size) as usize {
                let (x, y) = (i as u32 % size, i as u32 / size);
                let d = skybox_direction(
                    f,
                    (x as f32 + 0.5) / size as f32,
                    (y as f32 + 0.5) / size as f32,
                );
                let face = lanthorn_level::SKY_BOX_FACES
                    .iter()
                    .position(|(out, _, _)| d.dot(*out) >= d.abs().max_element() - 1e-6)
                    .unwrap();
                let texel = &layer[i * 4..i * 4 + 4];
                let blue = match face {
                    0 => d.y < 0.0,
                    4 => d.x < 0.0,
                    _ => false,
                };
                let expected = if blue {
                    [0, 0, 255]
                } else {
                    [face as u8 * 40, 0, 0]
                };
                assert_eq!(
                    &texel[..3],
                    &expected,
                    "layer {f} texel {x},{y} looks along {d}"
                );
            }
        }
    }
}

#[cfg(test)]
mod layer_size_tests {
    use super::*;

    fn picture(side: u32) -> Material {
        Material {
            width: side,
            height: side / 2,
            texels: Some(vec![0; (side * side / 2 * 4) as usize]),
            ..Default::default()
        }
    }

    /// Larger layers only where a picture needs them and the array stays within its budget;
    /// a picture resamples to either size with its texels where they belong.
    #[test]
    fn layers_grow_for_large_pictures_within_the_budget() {
        assert_eq!(layer_size(&[picture(256), picture(64)]), LAYER_SIZE);
        assert_eq!(layer_size(&[picture(64), picture(512)]), LARGE_LAYER_SIZE);
        let named_only = Material {
            width: 1024,
            height: 1024,
            ..Default::default()
        };
        assert_eq!(layer_size(&[named_only]), LAYER_SIZE, "no texels to keep");
        // 1.33 MiB a 512² layer with its mips: 192 fit in 256 MiB, 193 do not.
        let mut many = vec![picture(512)];
        many.resize(192, picture(16));
        assert_eq!(layer_size(&many), LARGE_LAYER_SIZE);
        many.push(picture(16));
        assert_eq!(layer_size(&many), LAYER_SIZE);
        let mut m = picture(512);
        let t = m.texels.as_mut().unwrap();
        // The texel at (300, 200) of the 512 × 256 picture: red.
        t[(200 * 512 + 300) * 4] = 255;
        for n in [LAYER_SIZE, LARGE_LAYER_SIZE] {
            let layer = layer_texels(&m, n);
            let (x, y) = (300 * n as usize / 512, 200 * n as usize / 256);
            assert_eq!(layer[(y * n as usize + x) * 4], 255, "{n}");
            assert_eq!(layer[0], 0);
        }
    }
}
