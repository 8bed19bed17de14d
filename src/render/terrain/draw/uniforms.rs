//! The terrain's uniforms (WGSL `TerrainView`, the frame) and its one bind group.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::geom::Camera;
use crate::render::bindings::uniform_entry;
use crate::render::terrain::TerrainOverlay;
use crate::terrain::TerrainShading;

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
    /// The scattering sky (`terrain::ScatteringSky::uniform`): Perez rows A–E, then the zenith
    /// scale with the exposure.
    pub sky: [[f32; 4]; 6],
    /// The point light map's window: eye-relative x, y of its corner, 1 / its size in x and y.
    pub lamps: [f32; 4],
    /// x: daylight (1 by day; the sun, the sky light and the sky are scaled by it), y: what a
    /// lamp map texel is multiplied by (0: no point lights).
    pub light: [f32; 4],
}

pub(crate) const OVERLAY_LEVEL_COLORS: u32 = 1;

pub(in crate::render::terrain) fn create_uniform_buffer(
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

/// The layout of [`terrain_bind_group`].
pub(in crate::render::terrain) fn create_bind_group_layout(
    device: &wgpu::Device,
) -> wgpu::BindGroupLayout {
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
                // The vertex stage reads the sky for the fog's colour (`fog_at`).
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::Cube,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 4,
                // The vertex stage reads the sky for the fog's colour (`fog_at`).
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 5,
                // The point light map (`terrain::lamps`), sampled with the sky's sampler.
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            },
        ],
    })
}

/// The pass's one bind group: frame and view uniforms, height windows, sky cube and sampler,
/// point light map.
pub(in crate::render::terrain) fn terrain_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    [frame, view]: [&wgpu::Buffer; 2],
    heights: &wgpu::TextureView,
    [sky, lamps]: [&wgpu::TextureView; 2],
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
            wgpu::BindGroupEntry {
                binding: 5,
                resource: wgpu::BindingResource::TextureView(lamps),
            },
        ],
    })
}

pub(in crate::render::terrain) fn view_uniform(
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
        sky: [[0.0; 4]; 6],
        lamps: [0.0; 4],
        light: [1.0, 0.0, 0.0, 0.0],
    }
}
