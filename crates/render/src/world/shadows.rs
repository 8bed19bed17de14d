//! Moving objects in the sun's shadow cascades (`render::shadow`). The cascades are drawn
//! before the world pass in the frame's encoder (`render::sun_cascades`), so the world samples
//! this frame's maps with this frame's fit. Only grid-lit objects' faces sample them (their
//! direct sunlight apart, `object_light`); the world's lightmaps keep their own baked sun
//! shadows.

use crate::shadow::{SunShadows, CASCADES};

/// The world's side of the cascades: their group (2) and the colour pipelines' layout with it.
pub(super) struct WorldShadows {
    pub(super) pipeline_layout: wgpu::PipelineLayout,
    pub(super) group: wgpu::BindGroup,
    /// The maps the group holds.
    maps: wgpu::TextureView,
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
        sun: &SunShadows,
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
            group: group(device, &layout, sun),
            maps: sun.maps.clone(),
            to_light: [[[0.0; 4]; 4]; CASCADES],
            params: [0.0; 4],
        };
        shadows.update(sun);
        shadows
    }

    /// Whether the group holds `sun`'s maps.
    pub(super) fn samples(&self, sun: &SunShadows) -> bool {
        self.maps == sun.maps
    }

    /// This frame's fit (the Renderer hands the world only cascades fitted this frame).
    pub(super) fn update(&mut self, sun: &SunShadows) {
        (self.to_light, self.params) = sun
            .world_sampling()
            .unwrap_or(([[[0.0; 4]; 4]; CASCADES], [0.0; 4]));
    }
}

fn group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    sun: &SunShadows,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("world shadow cascades"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&sun.maps),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(&sun.compare_sampler),
            },
        ],
    })
}
