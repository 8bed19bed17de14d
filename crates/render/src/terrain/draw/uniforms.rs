//! The terrain's uniforms (WGSL `TerrainView`, the frame) and its one bind group.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::bindings::uniform_entry;
use lanthorn_geom::Camera;
use lanthorn_terrain::TerrainShading;

/// The view/shading uniform (WGSL `TerrainView`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct TerrainView {
    /// Projection × view rotation: eye-relative position → clip.
    pub view_proj: [[f32; 4]; 4],
    /// Its inverse, which turns the sky's screen positions into directions.
    pub inv_view_proj: [[f32; 4]; 4],
    /// xyz: selection camera − eye, in world units (zero unless culling is frozen).
    pub eye_offset: [f32; 4],
    /// xyz: unit vector towards the sun; w: the ambient light where the sun does not reach.
    pub sun: [f32; 4],
    /// rgb: the sky's linear colour straight up.
    pub sky_zenith: [f32; 4],
    /// rgb: the sky's linear colour at the horizon, also the fog's colour.
    pub sky_horizon: [f32; 4],
    /// x: sea level, y: snow line, z: height span (tints water depth), w: beach width (a
    /// fraction of the sea-to-snow range).
    pub bands: [f32; 4],
    /// x: the distance where the exp² fog reaches 63 %, y, z: the distances where the edge
    /// fade starts and is complete, w: the fog's strength.
    pub fog: [f32; 4],
    /// x, y: the size of the test hooks' points target (1, 1 otherwise).
    pub misc: [f32; 4],
    /// y: 1 = flat water at sea level; z: 1 = the sky and the fog from the sky cube (the
    /// level's skybox or the baked daylight model); x, w: unused.
    pub flags: [u32; 4],
    /// Screen octagon the terrain is clipped to (the union of the visible outdoor cells'
    /// octagons; the full screen for a terrain-only scene): min of x, y, x+y, x−y in NDC.
    pub oct_min: [f32; 4],
    /// The same octagon's max of x, y, x+y, x−y.
    pub oct_max: [f32; 4],
    /// The point light map's window: eye-relative x, y of its corner, 1 / its size in x and y.
    pub lamps: [f32; 4],
    /// x: daylight (1 by day; the sun, the sky light and the sky are scaled by it), y: what a
    /// lamp map texel is multiplied by (0: no point lights).
    pub light: [f32; 4],
    /// Eye-relative position → the sun's clip space of each shadow cascade (`render::shadow`).
    pub shadow_rel: [[[f32; 4]; 4]; 2],
    /// x, y: world units per texel of cascade 0 and 1; z, w: the view distance where the
    /// shadows start fading out and where they are gone.
    pub shadow: [f32; 4],
    /// x: 1 = the sea shows the reflection and foam; y: seconds (the waves); z: the depth the
    /// shore's foam reaches; w: the eye's height above the sea.
    pub water: [f32; 4],
}

pub(in crate::terrain) fn create_uniform_buffer(
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

/// The layout of [`terrain_bind_group`]: the main group, with the water reflection, or the
/// reflection's own group, without it (the reflection is drawn into it).
pub(in crate::terrain) fn create_bind_group_layout(
    device: &wgpu::Device,
    with_reflection: bool,
) -> wgpu::BindGroupLayout {
    let mut entries = main_entries().to_vec();
    if with_reflection {
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: 10,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        });
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(if with_reflection {
            "terrain"
        } else {
            "terrain water reflection"
        }),
        entries: &entries,
    })
}

/// Every entry of the terrain's group but the reflection.
fn main_entries() -> [wgpu::BindGroupLayoutEntry; 8] {
    [
        // The fragment stage reads the eye's place for the waves.
        uniform_entry(0, wgpu::ShaderStages::VERTEX_FRAGMENT),
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
            // The point light map (`terrain::lamps`), sampled with the sky's sampler; per
            // vertex when the surface is lit per vertex.
            visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        },
        // The sun's shadow cascades, near and far (`render::shadow`), and their sampler; the
        // vertices look in them too (the surface lit per vertex).
        crate::bindings::depth_array_entry(6, wgpu::ShaderStages::VERTEX_FRAGMENT),
        crate::bindings::comparison_sampler_entry(7, wgpu::ShaderStages::VERTEX_FRAGMENT),
    ]
}

/// The layout of the terrain's shadow casters' group: the frame, the view, the height windows
/// and one cascade's caster view (by dynamic offset). It holds no shadow map: the casters draw
/// into one.
pub(in crate::terrain) fn create_caster_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("terrain shadow casters"),
        entries: &[
            uniform_entry(0, wgpu::ShaderStages::VERTEX),
            uniform_entry(1, wgpu::ShaderStages::VERTEX),
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
            crate::shadow::caster_layout_entry(9),
        ],
    })
}

/// What the terrain's bind group holds.
pub(in crate::terrain) struct TerrainBindings<'a> {
    pub(in crate::terrain) frame: &'a wgpu::Buffer,
    pub(in crate::terrain) view: &'a wgpu::Buffer,
    pub(in crate::terrain) heights: &'a wgpu::TextureView,
    pub(in crate::terrain) sky: &'a wgpu::TextureView,
    pub(in crate::terrain) sky_sampler: &'a wgpu::Sampler,
    pub(in crate::terrain) lamps: &'a wgpu::TextureView,
    pub(in crate::terrain) shadow_maps: &'a wgpu::TextureView,
    pub(in crate::terrain) shadow_sampler: &'a wgpu::Sampler,
    /// The water reflection: the main group holds it, the reflection's own group does not.
    pub(in crate::terrain) reflection: Option<&'a wgpu::TextureView>,
}

/// The casters' group: `b`'s frame, view and heights, and the cascades' caster views.
pub(in crate::terrain) fn caster_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    b: &TerrainBindings,
    casters: &wgpu::Buffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("terrain shadow casters"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: b.frame.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: b.view.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(b.heights),
            },
            crate::shadow::caster_entry(9, casters),
        ],
    })
}

/// The pass's one bind group: frame and view uniforms, height windows, sky cube and sampler,
/// point light map, the sun's shadow cascades and their comparison sampler.
pub(in crate::terrain) fn terrain_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    b: &TerrainBindings,
) -> wgpu::BindGroup {
    let view = |binding, v| wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::TextureView(v),
    };
    let sampler = |binding, s| wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Sampler(s),
    };
    let mut entries = vec![
        wgpu::BindGroupEntry {
            binding: 0,
            resource: b.frame.as_entire_binding(),
        },
        wgpu::BindGroupEntry {
            binding: 1,
            resource: b.view.as_entire_binding(),
        },
        view(2, b.heights),
        view(3, b.sky),
        sampler(4, b.sky_sampler),
        view(5, b.lamps),
        view(6, b.shadow_maps),
        sampler(7, b.shadow_sampler),
    ];
    if let Some(r) = b.reflection {
        entries.push(view(10, r));
    }
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("terrain"),
        layout,
        entries: &entries,
    })
}

pub(in crate::terrain) fn view_uniform(
    camera: &Camera,
    eye_offset: Vec3,
    s: &TerrainShading,
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
        flags: [0, s.flat_water as u32, 0, 0],
        oct_min: lanthorn_geom::Octagon::FULL.min,
        oct_max: lanthorn_geom::Octagon::FULL.max,
        lamps: [0.0; 4],
        light: [1.0, 0.0, 0.0, 0.0],
        shadow_rel: [[[0.0; 4]; 4]; 2],
        shadow: [0.0; 4],
        water: [0.0; 4],
    }
}
