//! Moving objects in the sun's shadow cascades (`render::shadow`). The cascades are drawn in
//! the terrain pass's offscreen passes, after the world pass; so the world samples the maps
//! the previous frame drew, with the previous frame's fit — the fit that drew them, so a point
//! is looked up where its casters were drawn (the casters, the world and the terrain, do not
//! move). Only grid-lit objects' faces sample them (their direct sunlight apart,
//! `object_light`); the world's lightmaps keep their own baked sun shadows.

/// The sun's cascades (`render::shadow::CASCADES`, which checks that they agree).
pub const CASCADES: usize = 2;

/// Last frame's cascades as the world samples them (from `Terrain::cascades_for_world`).
pub struct CascadeSampling {
    /// Level coordinates → each cascade's clip space.
    pub to_light: [[[f32; 4]; 4]; CASCADES],
    /// World units per texel of each cascade.
    pub texel: [f32; CASCADES],
    /// The view distance where the shadows start fading out, and where they are gone.
    pub fade: [f32; 2],
    /// The maps, a layer each (`render::shadow::SunShadows::maps`).
    pub maps: wgpu::TextureView,
    pub sampler: wgpu::Sampler,
}

/// The world's side of the cascades: their group (2) and the colour pipelines' layout with it.
pub(super) struct WorldShadows {
    pub(super) pipeline_layout: wgpu::PipelineLayout,
    pub(super) group: wgpu::BindGroup,
    /// This frame's `WorldFrame::shadow_to_light` and `shadow`.
    pub(super) to_light: [[[f32; 4]; 4]; CASCADES],
    pub(super) params: [f32; 4],
}

impl WorldShadows {
    /// The group layout and the colour pipelines' layout: the world's group 0, none for 1
    /// (the surface cache's), the cascades for 2.
    pub(super) fn new(
        device: &wgpu::Device,
        world: &wgpu::BindGroupLayout,
        cascades: &CascadeSampling,
    ) -> WorldShadows {
        use crate::bindings::{comparison_sampler_entry, depth_array_entry};
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("world shadow cascades"),
            entries: &[
                depth_array_entry(0, wgpu::ShaderStages::FRAGMENT),
                comparison_sampler_entry(1, wgpu::ShaderStages::FRAGMENT),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("world with shadow cascades"),
            bind_group_layouts: &[Some(world), None, Some(&layout)],
            immediate_size: 0,
        });
        let mut shadows = WorldShadows {
            pipeline_layout,
            group: group(device, &layout, cascades),
            to_light: [[[0.0; 4]; 4]; CASCADES],
            params: [0.0; 4],
        };
        shadows.update(cascades);
        shadows
    }

    /// This frame's fit. The maps stay those the group was made with: the terrain makes new
    /// ones only when shadows are switched on again or the terrain is replaced, and the world
    /// drops its cascades for at least a frame first (`Renderer::prepare_world_from_terrain`
    /// passes none while shadows are off or the terrain has drawn none).
    pub(super) fn update(&mut self, cascades: &CascadeSampling) {
        self.to_light = cascades.to_light;
        let (t, f) = (cascades.texel, cascades.fade);
        self.params = [t[0], t[1], f[0], f[1]];
    }
}

fn group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    c: &CascadeSampling,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("world shadow cascades"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&c.maps),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(&c.sampler),
            },
        ],
    })
}
