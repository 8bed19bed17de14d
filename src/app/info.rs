//! `lanthorn info`: the adapter and its features, or a level's counts.

use crate::level::Level;
use crate::render::{Gpu, OptionalFeature};

pub fn adapter_report(gpu: &Gpu) -> serde_json::Value {
    let limits = gpu.device.limits();
    let granted: Vec<_> = gpu.features.names();
    let disabled: Vec<_> = gpu.disabled.names();
    let missing: Vec<_> = OptionalFeature::ALL
        .iter()
        .filter(|f| !gpu.features.has(**f) && !gpu.disabled.has(**f))
        .map(|f| f.name())
        .collect();
    serde_json::json!({
        "adapter": gpu.info.name,
        "backend": format!("{:?}", gpu.info.backend),
        "device_type": format!("{:?}", gpu.info.device_type),
        "driver": format!("{} {}", gpu.info.driver, gpu.info.driver_info),
        "features_granted": granted,
        "features_disabled": disabled,
        "features_missing": missing,
        "octagon_clipping": if gpu.features.clip_distances { "clip distances" } else { "fragment discard" },
        "world_draws": if gpu.features.indirect_first_instance { "multi-draw indirect" } else { "direct draws" },
        "limits": {
            "max_texture_dimension_2d": limits.max_texture_dimension_2d,
            "max_texture_array_layers": limits.max_texture_array_layers,
            "max_storage_buffer_binding_size": limits.max_storage_buffer_binding_size,
            "max_buffer_size": limits.max_buffer_size,
            "max_bind_groups": limits.max_bind_groups,
        },
    })
}

pub fn level_report(level: &Level) -> serde_json::Value {
    let b = level.bounds();
    let lights = crate::light::lights::level_lights(level);
    serde_json::json!({
        "brushes": 0,
        "leak": false,
        "cells": level.cells.len(),
        "portals": level.portals.len(),
        "surfaces": level.surfaces.len(),
        "triangles": level.triangle_count(),
        "materials": level.materials.len(),
        "material_maps": {
            "normal": level.materials.iter().filter(|m| m.normal.is_some()).count(),
            "specular": level.materials.iter().filter(|m| m.specular.is_some()).count(),
        },
        "objects": level.objects.len(),
        "entities": level.entities.len(),
        "lightmap_atlas": [level.lightmaps.width, level.lightmaps.height],
        "pvs": level.pvs.is_some(),
        "outdoor_cells": crate::compile::outdoor_cells(level),
        "outside_cell": level.outside_cell(),
        "lights": lights.lights.len(),
        "sun": lights.sun.is_some(),
        "light_grid": level.light_grid.as_ref().map(|g| serde_json::json!({
            "size": g.size,
            "spacing": g.spacing.to_array(),
            "open_points": g.styles.iter().filter(|s| s.count() > 0).count(),
        })),
        "bounds": if b.is_empty() { serde_json::Value::Null } else { serde_json::json!([b.min.to_array(), b.max.to_array()]) },
    })
}

/// Prints a JSON object as aligned `key  value` lines.
pub fn print_table(v: &serde_json::Value) {
    if let Some(obj) = v.as_object() {
        for (k, v) in obj {
            let s = match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            println!("{k:<26} {s}");
        }
    }
}

/// `lanthorn info [LEVEL]`: the level's report, or the adapter's.
pub fn run_command(
    (level, game): (Option<&std::path::Path>, &super::Game),
    gpu: impl FnOnce() -> anyhow::Result<Gpu>,
    json: bool,
) -> anyhow::Result<()> {
    let v = match level {
        Some(path) => match quake3_bytes(path, game)? {
            Some((bytes, origin)) => quake3_report(&bytes, &origin)?,
            None => quake1_or_lanthorn_report(path, game)?,
        },
        None => adapter_report(&gpu()?),
    };
    if json {
        println!("{}", serde_json::to_string(&v)?);
    } else {
        print_table(&v);
    }
    Ok(())
}

/// A level Lanthorn loads: its report, with a `.bsp` file's layout, BSPX lumps and light.
fn quake1_or_lanthorn_report(
    path: &std::path::Path,
    game: &super::Game,
) -> anyhow::Result<serde_json::Value> {
    let mut v = level_report(&super::load_level(Some(path), game)?.0);
    if let (Some(bsp), Some(obj)) = (bsp_report(path)?, v.as_object_mut()) {
        obj.insert("format".into(), bsp.format.into());
        obj.insert("bspx_lumps".into(), bsp.bspx_lumps.into());
        obj.insert("light_from".into(), bsp.light.name().into());
    }
    Ok(v)
}

/// The bytes of a Quake 3 map (`IBSP`) the command line names, a file or a name on the game's
/// search path, and where they came from; `None` for any other level.
fn quake3_bytes(
    path: &std::path::Path,
    game: &super::Game,
) -> anyhow::Result<Option<(Vec<u8>, String)>> {
    let found = match (&game.search, path.to_str()) {
        (Some(search), Some(name)) if !path.exists() => search
            .read(&crate::load::search::map_file(name))
            .transpose()?
            .map(|f| (f.bytes, f.origin)),
        _ if path.is_file() => {
            let mut head = [0u8; 4];
            let is_ibsp = std::fs::File::open(path)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
                .is_ok()
                && &head == b"IBSP";
            match is_ibsp {
                true => Some((std::fs::read(path)?, path.display().to_string())),
                false => None,
            }
        }
        _ => None,
    };
    Ok(found.filter(|(bytes, _)| bytes.starts_with(b"IBSP")))
}

/// What a Quake 3 map holds, as `import::q3` reads it.
fn quake3_report(bytes: &[u8], origin: &str) -> anyhow::Result<serde_json::Value> {
    use crate::import::q3::SurfaceType;
    let map = crate::import::q3::read(bytes, origin)?;
    let kinds = |k: SurfaceType| map.surfaces.iter().filter(|s| s.kind == k).count();
    Ok(serde_json::json!({
        "format": "IBSP 46 (Quake 3)",
        "file": origin,
        "shaders": map.shaders.len(),
        "surfaces": map.surfaces.len(),
        "planar_surfaces": kinds(SurfaceType::Planar),
        "patches": kinds(SurfaceType::Patch),
        "triangle_soups": kinds(SurfaceType::TriangleSoup),
        "flares": kinds(SurfaceType::Flare),
        "vertices": map.vertices.len(),
        "triangles": map.indices.len() / 3,
        "nodes": map.nodes.len(),
        "leaves": map.leaves.len(),
        "brushes": map.brushes.len(),
        "models": map.models.len(),
        "lightmap_pages": map.lightmap_pages(),
        "light_grid_points": map.light_grid.len(),
        "clusters": map.visibility.as_ref().map(|v| v.clusters),
        "fogs": map.fogs,
    }))
}

/// A `.bsp` file's layout, BSPX lumps and light (`None` for any other level).
fn bsp_report(path: &std::path::Path) -> anyhow::Result<Option<crate::import::q1::BspReport>> {
    let is_bsp = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("bsp"));
    if !is_bsp || !path.is_file() {
        return Ok(None);
    }
    let bytes = std::fs::read(path)?;
    let lit = std::fs::read(path.with_extension("lit")).ok();
    let name = path.display().to_string();
    Ok(Some(crate::import::q1::describe(
        &bytes,
        &name,
        lit.as_deref(),
    )?))
}

/// `lanthorn info --terrain HEIGHTMAP`: the heightmap as the clipmap loads it.
pub fn terrain_command(opts: &super::terrain::TerrainOptions, json: bool) -> anyhow::Result<()> {
    let terrain = super::terrain::load(opts)?;
    let hm = &terrain.heightmap;
    let v = serde_json::json!({
        "heightmap": hm.name,
        "samples": [hm.size().0, hm.size().1],
        "spacing": hm.horizontal_scale,
        "world_size": [hm.world_size().0, hm.world_size().1],
    });
    if json {
        println!("{}", serde_json::to_string(&v)?);
    } else {
        print_table(&v);
    }
    Ok(())
}
