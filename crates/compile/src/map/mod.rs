//! The `.map` front end (Quake / TrenchBroom sources): parse, read the wads, build every
//! entity's brushes, clip the world's faces (CSG), build the brush BSP and its portals, flood
//! from the outside to find leaks, and emit cells, portals and surface drafts for the back half.

mod brush;
mod cells;
#[cfg(test)]
mod contents_tests;
mod drafts;
mod entity_brushes;
mod faces;
#[cfg(test)]
mod fgd_tests;
mod leak;
#[cfg(test)]
mod leak_tests;
pub(super) mod map_file;
pub(super) mod sources;
mod tree;
mod wad;

use std::path::Path;

use self::entity_brushes::EntityBrushes;
use self::map_file::MapFile;
use self::sources::Materials;
use self::wad::TextureSizes;
use super::draft::Draft;
use super::finish::finish;
use super::stats::StageTimer;
use lanthorn_level::{material_flags, Entity, Level, Sky};

pub(super) use super::{CompileError, CompileOptions, CompileStats};

// What the tests below share (they compile whole maps).
#[cfg(test)]
use {
    super::{compile, compile_to_file},
    glam::{DVec3, Vec3},
    lanthorn_level::*,
    std::path::PathBuf,
};

/// Compiles a `.map` file; its wads and palette are looked for beside it (see `sources`).
pub(crate) fn compile_map_file(
    path: &Path,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), CompileError> {
    let mut timer = StageTimer::start();
    let mut stats = CompileStats::default();
    let bytes = std::fs::read(path).map_err(|error| CompileError::Io {
        path: path.into(),
        error,
    })?;
    let map = parse(&String::from_utf8_lossy(&bytes), path)?;
    timer.lap(&mut stats, "parse");
    let textures = sources::load_textures(path, &map, options);
    timer.lap(&mut stats, "wads");
    let palette = sources::load_palette(path, options);
    if textures.sizes.is_empty() || palette.is_none() {
        // Said once: the level compiles, but its surfaces show flat colours.
        let missing = match palette {
            None => "palette.lmp (searched --wad-dir, the map's folder and the one above)",
            Some(_) => "texture wad (searched --wad-dir, the map's folder and ../wads)",
        };
        stats.warnings.push(format!(
            "{}: no {missing}: surfaces get flat colours; give --wad-dir DIR",
            path.display()
        ));
    }
    let materials = Materials::new(&textures, palette);
    compile_map(&map, materials, options, path, timer, stats)
}

/// Compiles `.map` text held in memory (tests, tools); wads from `options.wad_dirs` only.
pub fn compile_map_text(
    text: &str,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), CompileError> {
    let path = Path::new("<memory>.map");
    let mut timer = StageTimer::start();
    let mut stats = CompileStats::default();
    let map = parse(text, path)?;
    timer.lap(&mut stats, "parse");
    let mut textures = TextureSizes::default();
    for d in &options.wad_dirs {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let _ = textures.add_wad_file(&e.path());
        }
    }
    let materials = Materials::new(&textures, sources::load_palette(path, options));
    compile_map(&map, materials, options, path, timer, stats)
}

fn parse(text: &str, path: &Path) -> Result<MapFile, CompileError> {
    map_file::parse(text).map_err(|error| CompileError::Map {
        path: path.into(),
        error,
    })
}

/// The stages after parsing; `timer`/`stats` carry the stages already run.
fn compile_map(
    map: &MapFile,
    mut materials: Materials,
    options: &CompileOptions,
    path: &Path,
    mut timer: StageTimer,
    mut stats: CompileStats,
) -> Result<(Level, CompileStats), CompileError> {
    if map.entities.is_empty() {
        return Err(empty(
            path,
            "the map has no entities (add a worldspawn with brushes)",
        ));
    }
    let brushes = EntityBrushes::build(map, path, &mut stats);
    timer.lap(&mut stats, "brushes");
    if brushes.in_group(entity_brushes::Group::World).is_empty() {
        return Err(empty(
            path,
            "the map has no world brush that builds (worldspawn needs brushes enclosing the level)",
        ));
    }
    let fragments = drafts::world_fragments(&brushes);
    timer.lap(&mut stats, "csg");
    let mut tree = cells::cell_tree(&brushes, &fragments, options.max_cell_size);
    timer.lap(&mut stats, "bsp");
    tree.make_portals();
    timer.lap(&mut stats, "portals");
    let from = tree.flood_outside();
    timer.lap(&mut stats, "flood");
    let leak = leak::find(map, &brushes, &tree, &from);
    if let Some(leak) = &leak {
        leak_found(leak, path, options, &mut tree, &timer, &mut stats)?;
    }
    let mut draft = Draft::default();
    draft.level.leak = leak.as_ref().map(leak::Leak::level_path);
    cells::add_cells_and_portals(&mut tree, &mut draft.level);
    timer.lap(&mut stats, "cells");
    if draft.level.cells.is_empty() {
        return Err(empty(path, "the world brushes enclose no open space (build rooms: hollow space sealed by solid brushes)"));
    }
    draft.cell_surfaces =
        drafts::world_surfaces(fragments, &brushes, &tree, options, &mut materials);
    draft.objects = drafts::objects(map, &brushes, options, &mut materials);
    draft.level.materials = materials.list;
    draft.level.bsp = cells::bsp_of(&tree);
    draft.level.entities = map
        .entities
        .iter()
        .map(|e| Entity {
            pairs: e.pairs.clone(),
        })
        .collect();
    draft.level.sky = sky(map, &draft.level);
    timer.lap(&mut stats, "drafts");
    let level = finish(draft, options, &mut timer, &mut stats);
    Ok((level, stats))
}

/// A leak: its point file written (where wanted) and then either the error, or, with
/// `allow_leak`, a warning and the outside kept as cells (nothing is flooded away).
fn leak_found(
    leak: &leak::Leak,
    path: &Path,
    options: &CompileOptions,
    tree: &mut tree::Tree,
    timer: &StageTimer,
    stats: &mut CompileStats,
) -> Result<(), CompileError> {
    leak::record(leak, path, options.leak_file.as_deref(), stats)?;
    if options.allow_leak {
        log::warn!("{}", stats.warnings.last().map_or("", String::as_str));
        for l in &mut tree.leaves {
            l.outside = false;
        }
        return Ok(());
    }
    stats.bsp_nodes = tree.nodes.len();
    stats.bsp_leaves = tree.leaves.len();
    stats.seconds = timer.total();
    Err(CompileError::Leak {
        path: path.into(),
        line: u32::try_from(leak.line).unwrap_or(u32::MAX),
        entity: u32::try_from(leak.entity).unwrap_or(u32::MAX),
        classname: leak.classname.clone(),
        position: leak.position.as_vec3().to_array(),
        pointfile: options.leak_file.clone(),
        crossings: leak.crossings_text().into(),
        stats: Box::new(std::mem::take(stats)),
    })
}

fn empty(path: &Path, why: &'static str) -> CompileError {
    CompileError::Empty {
        path: path.into(),
        why,
    }
}

/// The sky: a sky material if a face uses one, and the worldspawn's cubemap (`sky` or
/// `skyname`) if it names one.
fn sky(map: &MapFile, level: &Level) -> Option<Sky> {
    let material = level
        .materials
        .iter()
        .position(|m| m.flags & material_flags::SKY != 0)
        .map(|m| m as u32);
    let cubemap = map
        .entities
        .first()
        .and_then(|e| e.get("sky").or(e.get("skyname")))
        .map(String::from);
    (material.is_some() || cubemap.is_some()).then_some(Sky {
        material,
        cubemap,
        faces: None,
        clouds: None,
    })
}

#[cfg(test)]
#[path = "props_tests.rs"]
pub(super) mod map_props;
#[cfg(test)]
#[path = "realdata_tests.rs"]
mod realdata;
#[cfg(test)]
#[path = "sealing_tests.rs"]
mod sealing;
#[cfg(any(test, feature = "test-hooks"))]
pub(crate) mod test_maps;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
#[path = "texinfo_oracle_tests.rs"]
mod texinfo_oracle;
