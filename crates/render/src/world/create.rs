//! Making the world pass for a level: its mesh, buffers, pipelines, bind groups and the
//! record budget a frame can need.

use super::*;

const MAX_RECORDS_MIN: usize = 256;

// The draw list's commands upload as indexed indirect commands.
const _: () = assert!(
    std::mem::size_of::<DrawCommand>()
        == std::mem::size_of::<wgpu::util::DrawIndexedIndirectArgs>()
);

impl WorldPass {
    /// The world pass for `level`, drawing into `color_format`, clipping octagons with clip
    /// distances where the device has them.
    pub fn create(gpu: &Gpu, level: &Level, color_format: wgpu::TextureFormat) -> WorldPass {
        Self::create_clipped(gpu, level, color_format, gpu.features.clip_distances)
    }

    /// `create`, clipping octagons with clip distances only if `clip_distances` (and the
    /// device has them): vis-check's id images use the exact fragment test.
    pub fn create_clipped(
        gpu: &Gpu,
        level: &Level,
        color_format: wgpu::TextureFormat,
        clip_distances: bool,
    ) -> WorldPass {
        let lights = lanthorn_light::lights::level_lights(level);
        let skybox = crate::skybox::Skybox::load(gpu, level);
        Self::create_lit(gpu, (level, &lights, &skybox), color_format, clip_distances)
    }

    /// `create_clipped` for a level whose light model (`light::lights`) and skybox its holder
    /// made once.
    pub fn create_lit(
        gpu: &Gpu,
        (level, lights, skybox): (
            &Level,
            &lanthorn_light::lights::LevelLights,
            &crate::skybox::Skybox,
        ),
        color_format: wgpu::TextureFormat,
        clip_distances: bool,
    ) -> WorldPass {
        let clip_distances = clip_distances && gpu.features.clip_distances;
        let device = &gpu.device;
        let materials = MaterialArray::create(gpu, &level.materials);
        let mesh = WorldMesh::build(level, &materials.layers);
        let (vertex_buffer, index_buffer) = create_mesh_buffers(device, &mesh);
        let frame_buffer = uniform_buffer::<WorldFrame>(device, "world frame");
        let max_records = max_records(level, &mesh);
        let (records, indirect) = create_draw_buffers(device, max_records);
        let atlas = light_atlas::atlas_rgba(level);
        let lightmap = crate::materials::lightmap_texture(gpu, &level.lightmaps, atlas);
        let layout = create_bind_group_layout(device);
        let object_light = object_light::ObjectLight::create(device, level);
        let object_lamps = object_lamps::ObjectLamps::create(device, level, lights);
        let resources = BindGroupResources {
            frame: &frame_buffer,
            records: &records,
            object_light: &object_light.buffer,
            object_lamps: &object_lamps.buffer,
            lightmap: &lightmap,
            materials: &materials,
            skybox: &skybox.view,
        };
        let bind_groups = create_bind_groups(device, &layout, &resources);
        // A count with the octagons open draws the same frame from records of its own.
        let (open_records, open_bind_group) =
            pipelines::open_octagon_group(device, &layout, resources, max_records);
        let variant = level_variant(level, &object_lamps, clip_distances);
        let module = world_module(device, variant);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("world"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let clouds = SkyClouds::of(level);
        let pipelines = create_color_pipelines(
            device,
            &pipeline_layout,
            &module,
            color_format,
            SkyShading {
                skybox: skybox.active,
                clouds: clouds.any(),
            },
        );
        let cache_plan = surface_cache::SurfacePlan::new(level, &mesh);
        WorldPass {
            buffers: WorldBuffers {
                vertex_buffer,
                index_buffer,
                frame_buffer,
                records,
                indirect,
                open_octagons: (open_records, open_bind_group),
            },
            shading: WorldPipelines {
                module,
                pipeline_layout,
                pipelines,
                layout,
                samplers: materials.samplers.clone(),
                layer_size: materials.layer_size,
                bind_groups,
                color_format,
                clip_distances,
                device_clip_distances: gpu.features.clip_distances,
                aerial_fog: variant.aerial_fog,
                unlit_liquids: variant.unlit_liquids,
                linear_output: false,
                linear_filtering: false,
                camera: CameraPipelines::new(liquids_can_cover(level, &mesh)),
                stamp: super::next_stamp(),
            },
            debug: DebugDraws::new(gpu, level),
            lighting: WorldLighting {
                styles_off: lanthorn_level::styles::switched_off(&level.entities),
                style_scales: [1.0; lanthorn_level::styles::MAX_STYLES],
                sun_style: lights.sun_style,
                object_light,
                object_lamps,
                shadows: None,
            },
            skybox_active: skybox.active,
            clouds,
            mesh,
            use_indirect: gpu.features.indirect_first_instance,
            max_records,
            draws: DrawBuilder::default(),
            stats: WorldStats::default(),
            surface_culling_us: 0.0,
            cache: SurfaceCache {
                plan: cache_plan,
                atlas: None,
            },
            after_cover: false,
        }
    }
}

/// Draw records a frame can need: cells (in every view: with mirrors or teleporters a cell may
/// be seen in each of MAX_VIEWS views), objects, camera liquids, and surfaces several cells
/// list (drawn once).
pub(super) fn max_records(level: &Level, mesh: &WorldMesh) -> usize {
    let water = level
        .cells
        .iter()
        .any(|c| c.medium == lanthorn_level::Medium::Water);
    let views = if water || level.portals.iter().any(|p| p.transform.is_some()) {
        MAX_VIEWS
    } else {
        1
    };
    let shared = shared_surfaces(level);
    (level.cells.len() * views + level.objects.len() + mesh.liquid_ranges.len() + shared)
        .max(MAX_RECORDS_MIN)
}

/// A uniform buffer the size of `T`.
pub(super) fn uniform_buffer<T>(device: &wgpu::Device, label: &str) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: std::mem::size_of::<T>() as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The world module of a variant.
pub(super) fn world_module(
    device: &wgpu::Device,
    variant: shaders::WorldVariant,
) -> wgpu::ShaderModule {
    let source = shaders::world(variant);
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("world.wgsl"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    })
}

/// The world shader's variant for `level`: its terrain's fog, its liquids' light, its moving
/// objects' lamps.
fn level_variant(
    level: &Level,
    lamps: &object_lamps::ObjectLamps,
    clip_distances: bool,
) -> shaders::WorldVariant {
    shaders::WorldVariant {
        aerial_fog: level.terrain.is_some(),
        unlit_liquids: liquids_unlit(level),
        object_lamps: lamps.variant,
        material_maps: lamps.maps,
        ..shaders::WorldVariant::clipped(clip_distances)
    }
}

/// Whether no liquid or glow of `level` has a lightmap (the `UNLIT_LIQUIDS` variant): Quake's
/// liquids are drawn unlit; other formats may light them.
fn liquids_unlit(level: &Level) -> bool {
    let lightmapped = level.lightmaps.width != 0;
    level.surfaces.iter().all(|s| {
        SurfaceKind::of(s.flags) != SurfaceKind::Liquid || !lightmapped || s.lightmap.is_none()
    })
}

/// Surfaces listed by more than one cell: each may need a record of its own when drawn once.
pub(super) fn shared_surfaces(level: &Level) -> usize {
    let mut listed = vec![0u8; level.surfaces.len()];
    for c in &level.cells {
        for &s in &c.surfaces {
            if let Some(n) = listed.get_mut(s as usize) {
                *n = n.saturating_add(1);
            }
        }
    }
    listed.iter().filter(|&&n| n > 1).count()
}

impl DebugDraws {
    /// Nothing made yet: the debug views' pipelines are made on first use.
    fn new(gpu: &Gpu, level: &Level) -> DebugDraws {
        DebugDraws {
            portal_triangles: id_pass::PortalTriangles::build(level),
            tinted: false,
            magnified_fetch: true,
            two_level_blend: true,
            polygon_mode_line: gpu.features.polygon_mode_line,
            back_faces_occlude: level
                .cells
                .iter()
                .any(|c| c.flags & lanthorn_level::cell_flags::OUTDOOR != 0),
        }
    }
}

/// Whether `level`'s liquids can cover what is under them: it has some (`mesh`), and they hide
/// what lies under them (no glow: `vis::liquid_cover::liquids_hide`).
pub(super) fn liquids_can_cover(level: &Level, mesh: &WorldMesh) -> bool {
    !mesh.liquid_ranges.is_empty() && lanthorn_vis::liquid_cover::liquids_hide(level)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quake's liquids have no lightmaps (id's `light` leaves turbulent faces unlit), so e1m1
    /// takes the `UNLIT_LIQUIDS` variant; one liquid given a lightmap takes it away.
    #[test]
    fn a_level_takes_unlit_liquids_only_where_no_liquid_has_a_lightmap() {
        let path = lanthorn_testdata::realdata_dir().join("quake/bsp/e1m1.bsp");
        if !path.is_file() {
            return lanthorn_testdata::missing_realdata(&path);
        }
        let mut level = lanthorn_load::load(&path).unwrap();
        let is_liquid =
            |s: &lanthorn_level::Surface| SurfaceKind::of(s.flags) == SurfaceKind::Liquid;
        assert!(
            level.surfaces.iter().any(is_liquid),
            "e1m1 has water and slime"
        );
        assert!(liquids_unlit(&level));
        let lit = level.surfaces.iter().find_map(|s| s.lightmap).unwrap();
        let liquid = level.surfaces.iter().position(is_liquid).unwrap();
        level.surfaces[liquid].lightmap = Some(lit);
        assert!(!liquids_unlit(&level));
    }
}
