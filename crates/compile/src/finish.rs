//! The back half both front ends share: a `Draft` becomes a `Level`. Surfaces are triangulated
//! with their T-junctions fixed, objects get their bounds, the light entities are baked through
//! the one baker (`light::bake`), every luxel block is packed into one atlas
//! (`light::atlas`), and the counts are filled in.

use glam::{DVec3, Vec3};

use super::draft::{Draft, ObjectDraft, SurfaceDraft};
use super::stats::{CompileStats, StageTimer};
use super::surfaces::make_surface;
use super::CompileOptions;
use lanthorn_geom::{fix_tjunctions, Aabb};
use lanthorn_level::{cell_flags, surface_flags, Level, Lightmaps, Object, Surface};
use lanthorn_light::{atlas, bake, lights};

/// Unbaked luxels: 128 is full light once the shader applies Quake's ×2 overbright.
const FULL_LIGHT: u8 = 128;

pub(crate) fn finish(
    draft: Draft,
    options: &CompileOptions,
    timer: &mut StageTimer,
    stats: &mut CompileStats,
) -> Level {
    let mut level = draft.level;
    add_cell_surfaces(&mut level, draft.cell_surfaces);
    timer.lap(stats, "surfaces");
    for object in draft.objects {
        add_object(&mut level, object);
    }
    timer.lap(stats, "objects");
    let blocks = luxel_blocks(&mut level, options, stats);
    timer.lap(stats, "light");
    pack_lightmaps(&mut level, blocks, stats);
    timer.lap(stats, "lightmaps");
    stats.count(&level);
    stats.seconds = timer.total();
    level
}

/// Triangulates polygons whose T-junctions are fixed among each other; empty ones are dropped.
fn triangulate(drafts: &[SurfaceDraft]) -> Vec<Option<Surface>> {
    let mut polys: Vec<Vec<DVec3>> = drafts.iter().map(|d| d.points.clone()).collect();
    fix_tjunctions(&mut polys, 0.05);
    drafts
        .iter()
        .zip(&polys)
        .map(|(d, points)| {
            let s = make_surface(points, d.normal, &d.spec);
            (!s.indices.is_empty()).then_some(s)
        })
        .collect()
}

fn add_cell_surfaces(level: &mut Level, drafts: Vec<SurfaceDraft>) {
    for (d, s) in drafts.iter().zip(triangulate(&drafts)) {
        let Some(s) = s else { continue };
        let id = level.surfaces.len() as u32;
        for &c in &d.cells {
            let cell = &mut level.cells[c as usize];
            cell.surfaces.push(id);
            if s.flags & surface_flags::SKY != 0 {
                cell.flags |= cell_flags::SKY_VISIBLE;
            }
        }
        level.surfaces.push(s);
    }
}

fn add_object(level: &mut Level, object: ObjectDraft) {
    let mut surfaces = Vec::new();
    let mut bounds = Aabb::EMPTY;
    for s in triangulate(&object.surfaces).into_iter().flatten() {
        for v in &s.vertices {
            bounds.add_point(v.position);
        }
        surfaces.push(level.surfaces.len() as u32);
        level.surfaces.push(s);
    }
    level.objects.push(Object {
        name: object.name,
        surfaces,
        bounds,
        origin: Vec3::ZERO,
        entity: object.entity,
        motion: object.motion,
        closes: Vec::new(),
    });
}

/// The luxels of every surface with a lightmap: baked from the level's light entities, each
/// style's map after the other (the surface's `styles` say which), or full light where the
/// level has none (or `light` is off). Lights given a switchable style get it as their `style`
/// key, as id's light tool writes it, so the game knows which styles start off.
fn luxel_blocks(
    level: &mut Level,
    options: &CompileOptions,
    stats: &mut CompileStats,
) -> Vec<Option<Vec<u8>>> {
    let light = options.light;
    let lights = lights::level_lights(level);
    stats.warnings.extend(lights.warnings.iter().cloned());
    if !light || lights.is_empty() {
        if light {
            log::info!("compile: no light entities; surfaces stay at full light");
        }
        return level
            .surfaces
            .iter()
            .map(|s| {
                s.lightmap
                    .map(|r| vec![FULL_LIGHT; (r.width * r.height * 3) as usize])
            })
            .collect();
    }
    let bounces = options.bounces.unwrap_or(lights.bounces);
    let (blocks, grid, baked) = bake::bake(
        level,
        &lights,
        options.light_samples,
        bounces,
        &options.progress,
    );
    level.light_grid = grid;
    stats.bounce_seconds = baked.bounce_seconds;
    for &(i, style) in &lights.assigned {
        level.entities[i].set("style", style.to_string());
    }
    if baked.over_four_styles > 0 {
        stats.warnings.push(format!(
            "{} surfaces are reached by lights of more than four styles; the lights of the \
             styles past the fourth are left out there (a surface holds four, as in Quake)",
            baked.over_four_styles
        ));
    }
    stats.lights = baked.lights;
    stats.light_rays = baked.rays;
    stats.luxels = baked.luxels;
    stats.light_seconds = baked.seconds;
    log::info!(
        "compile: light: {} lights, {} luxels, {} rays, {:.2} s (light grid: {} points, {:.2} s)",
        baked.lights,
        baked.luxels,
        baked.rays,
        baked.seconds,
        baked.grid_points,
        baked.grid_seconds
    );
    blocks
        .into_iter()
        .zip(level.surfaces.iter_mut())
        .map(|(b, s)| {
            let b = b?;
            s.styles = b.styles;
            Some(b.layers)
        })
        .collect()
}

/// Packs the luxel blocks into the level's one atlas (1-luxel borders) and places each
/// surface's rect. Blocks that do not fit leave every surface at full light, with a warning.
fn pack_lightmaps(level: &mut Level, blocks: Vec<Option<Vec<u8>>>, stats: &mut CompileStats) {
    let placed: Vec<atlas::LuxelBlock> = level
        .surfaces
        .iter()
        .zip(&blocks)
        .filter_map(|(s, b)| {
            let (r, rgb) = (s.lightmap?, b.as_deref()?);
            Some(atlas::LuxelBlock {
                width: r.width,
                height: r.height,
                rgb,
            })
        })
        .collect();
    match atlas::pack(&placed) {
        Ok((lightmaps, rects)) => {
            let mut rects = rects.into_iter();
            for (s, b) in level.surfaces.iter_mut().zip(&blocks) {
                if s.lightmap.is_some() && b.is_some() {
                    s.lightmap = rects.next();
                } else {
                    s.lightmap = None;
                }
            }
            level.lightmaps = lightmaps;
        }
        Err(e) => {
            stats.warnings.push(format!(
                "lightmaps not packed ({e}); every surface draws at full light"
            ));
            for s in level.surfaces.iter_mut() {
                s.lightmap = None;
            }
            level.lightmaps = Lightmaps::default();
        }
    }
}
