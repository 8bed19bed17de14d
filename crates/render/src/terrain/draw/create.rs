//! Making the terrain's draw for a heightmap: buffers, pipelines, placeholder textures.

use super::*;

impl TerrainDraw {
    /// The terrain's buffers, pipelines and placeholder textures for the clipmap `cfg` and
    /// its `meshes`, drawing into `color_format`.
    pub fn create(
        gpu: &Gpu,
        cfg: &ClipmapConfig,
        meshes: &ClipmapMeshes,
        shading: TerrainShading,
        color_format: wgpu::TextureFormat,
    ) -> TerrainDraw {
        let device = &gpu.device;
        let mesh = create_mesh_buffers(device, meshes);
        let instances = create_instance_buffer(device, cfg);
        let frame_buffer = create_uniform_buffer(
            device,
            "terrain frame",
            std::mem::size_of::<lanthorn_terrain::TerrainFrame>(),
        );
        let view_buffer =
            create_uniform_buffer(device, "terrain view", std::mem::size_of::<TerrainView>());
        let window = cfg.window_size();
        let (heights, heights_view) = create_height_windows(device, window, cfg.levels);
        let bgl = create_bind_group_layout(device, true);
        let sky_sampler = create_sky_sampler(device);
        let (placeholder, no_lamps, shadow_views, no_reflection) = placeholders(device);
        let shadow_sampler = crate::shadow::create_compare_sampler(device);
        let bind_group = terrain_bind_group(
            device,
            &bgl,
            &TerrainBindings {
                frame: &frame_buffer,
                view: &view_buffer,
                heights: &heights_view,
                sky: &placeholder,
                sky_sampler: &sky_sampler,
                lamps: &no_lamps,
                shadow_maps: &shadow_views,
                shadow_sampler: &shadow_sampler,
                reflection: Some(&no_reflection),
            },
        );
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("terrain"),
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 0,
        });
        let module = create_plain_module(gpu);
        let pipelines = create_pipelines(gpu, &layout, &module, color_format);
        let gpu_bytes = (window as usize).pow(2) * 4 * cfg.levels as usize
            + mesh.bytes
            + instances.size() as usize;
        TerrainDraw {
            fill: pipelines.fill,
            seam: pipelines.seam,
            wire: pipelines.wire,
            sky: pipelines.sky,
            lines: pipelines.lines,
            #[cfg(feature = "test-hooks")]
            hooks: self::hooks::TerrainHooks::new(gpu, layout, color_format),
            mesh_vertices: mesh.vertices,
            mesh_indices: mesh.indices,
            kinds: mesh.kinds,
            instances,
            instance_count: 0,
            frame_buffer,
            view_buffer,
            heights,
            heights_view,
            bind_group_layout: bgl,
            sky_sampler,
            skybox: false,
            scattering: false,
            sky_model: None,
            sky_view: placeholder.clone(),
            level_sky: placeholder,
            baked_sky: None,
            lamp_view: no_lamps,
            lamp_window: None,
            point_lights: false,
            daylight: 1.0,
            bind_group,
            shadow_views,
            shadow_sampler,
            casters: None,
            caster_instances: None,
            caster_draws: Default::default(),
            variants: Default::default(),
            lean_stages: true,
            variant_bits: 0,
            lighting: Default::default(),
            arranged: Vec::new(),
            level_colors: false,
            color_format,
            module,
            shadow_receiver: None,
            reflection: None,
            no_reflection,
            reflecting: false,
            water_time: 0.0,
            line_buffer: None,
            line_count: 0,
            draws: Vec::new(),
            wireframe: false,
            view: TerrainView::zeroed(),
            view_octagon: lanthorn_geom::Octagon::FULL,
            levels: cfg.levels,
            window,
            gpu_bytes,
            shading,
        }
    }
}

/// What the bind group holds until the level sets the real ones: the sky cube, the lamp map,
/// the two cascades, the reflection.
fn placeholders(
    device: &wgpu::Device,
) -> (
    wgpu::TextureView,
    wgpu::TextureView,
    wgpu::TextureView,
    wgpu::TextureView,
) {
    (
        create_placeholder_sky(device),
        create_placeholder_lamps(device),
        create_placeholder_shadow(device),
        create_placeholder_reflection(device),
    )
}
