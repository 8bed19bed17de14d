//! The daylight sky (`terrain::ScatteringSky`) baked into a cube for the terrain's sky and fog:
//! it depends only on the sun, and one filtered fetch a pixel costs far less than Perez's
//! model (its exponentials and arc cosine per channel). Made again when the sun moves.

use glam::Vec3;

use crate::gpu::Gpu;
use lanthorn_terrain::ScatteringSky;

/// Texels a side of each face: under 0.7° a texel at a face's centre, where the model changes
/// by well under a step of 8 bits (the GPU test holds every sky pixel within 2 steps of it).
const FACE: u32 = 128;

/// The level direction of texel (`i`, `j`) of cube face `face` (Vulkan's face order and
/// orientation, in cube space: level space turned Y-up, (x, z, −y)).
fn texel_direction(face: u32, i: u32, j: u32) -> Vec3 {
    let s = 2.0 * (i as f32 + 0.5) / FACE as f32 - 1.0;
    let t = 2.0 * (j as f32 + 0.5) / FACE as f32 - 1.0;
    let c = match face {
        0 => Vec3::new(1.0, -t, -s),
        1 => Vec3::new(-1.0, -t, s),
        2 => Vec3::new(s, 1.0, t),
        3 => Vec3::new(s, -1.0, -t),
        4 => Vec3::new(s, -t, 1.0),
        _ => Vec3::new(-s, -t, -1.0),
    };
    Vec3::new(c.x, -c.z, c.y).normalize()
}

/// `sky` as a cube of sRGB texels (as a level's skybox is; the sampler decodes them).
pub(in crate::terrain) fn bake(gpu: &Gpu, sky: &ScatteringSky) -> wgpu::TextureView {
    let mut texels = Vec::with_capacity((6 * FACE * FACE * 4) as usize);
    for face in 0..6 {
        for j in 0..FACE {
            for i in 0..FACE {
                let [r, g, b] = sky.color(texel_direction(face, i, j));
                let c = crate::target::encode_srgb(wgpu::Color {
                    r: r as f64,
                    g: g as f64,
                    b: b as f64,
                    a: 1.0,
                });
                texels.extend([c.r, c.g, c.b, 1.0].map(|v| (v * 255.0).round() as u8));
            }
        }
    }
    let texture = wgpu::util::DeviceExt::create_texture_with_data(
        &gpu.device,
        &gpu.queue,
        &wgpu::TextureDescriptor {
            label: Some("terrain daylight sky"),
            size: wgpu::Extent3d {
                width: FACE,
                height: FACE,
                depth_or_array_layers: 6,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        &texels,
    );
    texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::Cube),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each face's centre looks along its axis (level space: +x, −x, up, down, −y, +y), and
    /// a face's texels step towards the neighbouring face they share an edge with.
    #[test]
    fn cube_texels_face_where_the_shader_looks_them_up() {
        let centre = |f| texel_direction(f, FACE / 2, FACE / 2);
        let axes = [Vec3::X, -Vec3::X, Vec3::Z, -Vec3::Z, -Vec3::Y, Vec3::Y];
        for (f, axis) in axes.into_iter().enumerate() {
            assert!(
                centre(f as u32).dot(axis) > 0.999,
                "face {f}: {}",
                centre(f as u32)
            );
        }
        // The shader's lookup of a level direction d is cube (d.x, d.z, −d.y): its major
        // axis picks the face whose centre looks that way.
        for f in 0..6 {
            for (i, j) in [(3, 5), (FACE - 2, 7), (60, FACE - 1)] {
                let d = texel_direction(f, i, j);
                let c = Vec3::new(d.x, d.z, -d.y);
                let a = c.abs();
                let major = if a.x >= a.y && a.x >= a.z {
                    if c.x > 0.0 {
                        0
                    } else {
                        1
                    }
                } else if a.y >= a.z {
                    if c.y > 0.0 {
                        2
                    } else {
                        3
                    }
                } else if c.z > 0.0 {
                    4
                } else {
                    5
                };
                assert_eq!(major, f, "texel {i},{j} of face {f}");
            }
        }
    }
}
