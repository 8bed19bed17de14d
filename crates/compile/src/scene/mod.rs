//! The scene front end (`.ron`, ordered CSG): check the operations, apply them to space that
//! starts solid (merging regions as it goes), turn open regions into cells and their contacts into
//! portals and surface drafts, and build a k-d tree for point location; the back half does
//! the rest.

mod cells;
mod csg;
mod files;
mod kd_tree;
mod materials;
mod mirrors;
mod objects;
pub mod procedural;
mod random;
mod scene_file;
#[cfg(test)]
mod texture_tests;
mod wall_faces;

use std::path::Path;

use glam::{DVec3, Vec3};

use self::csg::Op;
use self::materials::{check_texture, SceneMaterials};
use super::draft::Draft;
use super::finish::finish;
use super::stats::StageTimer;
use super::{CompileError, CompileOptions, CompileStats};
use crate::polyhedron::PlanePool;
use crate::MAX_COORD;
use lanthorn_level::{Entity, Level, Medium, Sky, TerrainRef};

pub use self::files::{EmbeddedFile, SceneFiles};
pub use self::kd_tree::kd_tree;
pub use self::random::random_boxes;
pub use self::scene_file::{
    parse, MaterialSource, Scene, SceneBrush, SceneMaterial, SceneMedium, SceneOp, ScenePlane,
    SceneTeleporter, SceneTerrain, SceneTexture,
};

/// What is wrong with a scene: where (line and column, or operation and field) and what.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SceneError {
    /// The text does not parse as a scene.
    #[error("line {line}, column {column}: {msg}")]
    Parse {
        /// The line (from 1).
        line: usize,
        /// The column (from 1).
        column: usize,
        /// What is wrong there.
        msg: String,
    },
    /// An operation (`ops[index]`) that cannot be built.
    #[error("operation {index}, {field}: {msg}")]
    Operation {
        /// Which operation.
        index: usize,
        /// Which of its fields.
        field: &'static str,
        /// What is wrong.
        msg: String,
    },
    /// A mirror or teleporter (`mirrors[2]`, `teleporters[0].to`) that cannot be built.
    #[error("{portal}: {msg}")]
    Portal {
        /// Which one, as the scene names it.
        portal: String,
        /// What is wrong.
        msg: String,
    },
    /// An entry of `Scene::materials`.
    #[error("material {index} (\"{name}\"), {field}: {msg}")]
    Material {
        /// Which material.
        index: usize,
        /// Its name.
        name: String,
        /// Which of its fields.
        field: &'static str,
        /// What is wrong.
        msg: String,
    },
    /// Nothing to build.
    #[error("the scene has no operations (every brush was empty or unbounded): add at least one")]
    NoOperations,
    /// An object (`objects[index]`) that cannot be built.
    #[error("object {index} ({name}), {field}: {msg}")]
    Object {
        /// Which object.
        index: usize,
        /// Its name.
        name: String,
        /// Which of its fields.
        field: String,
        /// What is wrong.
        msg: String,
    },
}

/// Compiles a `.ron` scene file; the files it names are read from its folder.
pub(crate) fn compile_scene_file(
    path: &Path,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), CompileError> {
    let bytes = std::fs::read(path).map_err(|error| CompileError::Io {
        path: path.into(),
        error,
    })?;
    compile_scene_source(path, &bytes, &SceneFiles::beside(path), options)
}

/// The files on disk the `.ron` scene at `path` names (its PNG materials), for a cache key;
/// none when it does not parse (compiling it then says why).
pub fn named_files(path: &Path) -> Vec<std::path::PathBuf> {
    let files = SceneFiles::beside(path);
    let Ok(scene) = std::fs::read(path)
        .map_err(|_| ())
        .and_then(|b| scene_file::parse_bytes(&b).map_err(|_| ()))
    else {
        return Vec::new();
    };
    scene
        .materials
        .iter()
        .filter_map(|m| match &m.source {
            MaterialSource::Png(name) => Some(files.path(name)),
            _ => None,
        })
        .collect()
}

/// Compiles scene text read from `path` (which errors name), reading the files it names
/// through `files`: the one path of `.ron` files on disk and the built-in scenes alike.
pub fn compile_scene_source(
    path: &Path,
    bytes: &[u8],
    files: &SceneFiles,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), CompileError> {
    let in_file = |error| CompileError::Scene {
        path: path.into(),
        error,
    };
    let scene = scene_file::parse_bytes(bytes).map_err(in_file)?;
    compile_scene_with(&scene, files, options).map_err(in_file)
}

/// Compiles a scene whose PNG materials (if any) are relative to the current folder.
pub fn compile_scene(
    scene: &Scene,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), SceneError> {
    compile_scene_with(scene, &SceneFiles::Dir(".".into()), options)
}

/// Compiles a scene: ordered CSG → regions; open regions → cells; contacts between open
/// regions → portals; contacts between solid and open → surfaces facing the open side (and
/// both ways between air and liquid). Listed materials are loaded through `files`.
pub fn compile_scene_with(
    scene: &Scene,
    files: &SceneFiles,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), SceneError> {
    let mut timer = StageTimer::start();
    let mut stats = CompileStats::default();
    let mut materials = SceneMaterials::new(scene, files)?;
    timer.lap(&mut stats, "materials");
    let (ops, min, max) = operations(scene, &mut materials, &mut stats)?;
    // Merged as it goes (see `merge`).
    let regions = csg::apply(&ops, min, max);
    log::info!("scene: {} regions", regions.regions.len());
    timer.lap(&mut stats, "csg");
    let mut draft = Draft::default();
    let mut cells = cells::add_cells(scene, &regions, &mut draft.level);
    cells.luxel_size = options.luxel_size;
    cells.open_sky = scene.terrain.is_none().then(|| materials.sky());
    cells.styles = materials.styles.clone();
    if scene.terrain.is_some() && cells.outdoor.contains(&true) {
        cells.outside = Some(cells::add_outside_cell(&regions, &mut draft.level));
    }
    let (mut surfaces, open_faces) = cells.add_contacts(&regions, &mut draft.level);
    mirrors::add_mirrors_and_teleporters(scene, &mut surfaces, &mut draft.level)?;
    draft.cell_surfaces = surfaces;
    log::info!("scene: {open_faces} outdoor faces open to the terrain or sky");
    timer.lap(&mut stats, "portals");
    draft.level.bsp = kd_tree(&draft.level.cells);
    let sky_material = cells
        .open_sky
        .map(|s| materials.styles[s as usize].material);
    add_world(scene, sky_material, &mut draft.level);
    if materials.list.is_empty() {
        materials.id("wall");
    }
    draft.objects = objects::object_drafts(scene, &mut materials, options.luxel_size)?;
    draft.level.materials = materials.list;
    timer.lap(&mut stats, "drafts");
    let mut level = finish(draft, options, &mut timer, &mut stats);
    objects::link_doors(scene, &mut level)?;
    Ok((level, stats))
}

/// Each operation as CSG: its planes checked (finite, within the world), its material made;
/// an empty or unbounded brush is skipped with a warning. Returns the ops and their bounds
/// with a margin.
fn operations(
    scene: &Scene,
    materials: &mut SceneMaterials,
    stats: &mut CompileStats,
) -> Result<(Vec<Op>, DVec3, DVec3), SceneError> {
    let mut ops = Vec::new();
    let mut min = DVec3::splat(f64::INFINITY);
    let mut max = DVec3::splat(f64::NEG_INFINITY);
    for (index, o) in scene.ops.iter().enumerate() {
        let brush_error = |msg: String| SceneError::Operation {
            index,
            field: "brush",
            msg,
        };
        let planes = scene_file::brush_planes(&o.brush);
        if planes
            .iter()
            .any(|p| !p.normal.is_finite() || !p.dist.is_finite())
        {
            return Err(brush_error(
                "a plane is not finite (or its normal is zero)".into(),
            ));
        }
        let Some(poly) = crate::polyhedron::Poly::from_planes(&mut PlanePool::default(), &planes)
        else {
            stats.warnings.push(format!(
                "operation {index}: the brush is empty or unbounded; skipped"
            ));
            stats.failed_brushes += 1;
            continue;
        };
        if poly
            .min
            .abs()
            .max_element()
            .max(poly.max.abs().max_element())
            > MAX_COORD
        {
            return Err(brush_error(format!(
                "the brush reaches beyond ±{MAX_COORD}"
            )));
        }
        min = min.min(poly.min);
        max = max.max(poly.max);
        let medium = o.medium.medium();
        let style = op_style(index, o, medium, materials)?;
        ops.push(Op {
            planes,
            medium,
            only: o
                .only
                .as_ref()
                .map(|v| v.iter().map(|m| m.medium()).collect()),
            material: style,
            cut: false,
        });
        stats.brushes += 1;
    }
    if ops.is_empty() {
        return Err(SceneError::NoOperations);
    }
    // Doors cut their doorways last, so nothing written later fills the cut.
    ops.extend(objects::door_cuts(scene));
    let margin = DVec3::splat(16.0);
    Ok((ops, min - margin, max + margin))
}

/// The face style of operation `index`'s material and texture (`*water` for a liquid without
/// one, `wall` otherwise); a liquid material on solid, or a texture that cannot be laid, is an
/// error naming the field.
fn op_style(
    index: usize,
    o: &SceneOp,
    medium: Medium,
    materials: &mut SceneMaterials,
) -> Result<u32, SceneError> {
    let error = |field, msg| SceneError::Operation { index, field, msg };
    let default_material = if medium.is_liquid() { "*water" } else { "wall" };
    let name = o.material.as_deref().unwrap_or(default_material);
    if medium == Medium::Solid && name.starts_with('*') {
        return Err(error(
            "material",
            format!(
                "\"{name}\" is a liquid material (its name starts with `*`) but the medium is \
                 Solid: give the operation a liquid medium (Water, Slime or Lava) or a material \
                 name without `*`"
            ),
        ));
    }
    if let Some(t) = &o.texture {
        check_texture(t).map_err(|msg| error("texture", msg))?;
    }
    Ok(materials.style(name, o.texture.as_ref()))
}

/// Entities, the sky and the terrain of the scene.
fn add_world(scene: &Scene, open_sky: Option<u32>, level: &mut Level) {
    level.entities = scene
        .entities
        .iter()
        .map(|p| Entity { pairs: p.clone() })
        .collect();
    if scene.sky.is_some() || open_sky.is_some() {
        level.sky = Some(Sky {
            material: open_sky,
            cubemap: scene.sky.clone(),
            faces: None,
            clouds: None,
        });
    }
    level.terrain = scene.terrain.as_ref().map(|t| TerrainRef {
        heightmap: t.heightmap.clone(),
        origin: Vec3::new(t.origin.0, t.origin.1, t.origin.2),
        horizontal_scale: t.horizontal_scale,
        vertical_scale: t.vertical_scale,
    });
}

#[cfg(test)]
mod tests;

#[cfg(test)]
#[path = "readme_tests.rs"]
mod readme;
