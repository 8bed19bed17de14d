//! What a command opens: the level (or an empty world under a terrain), the start camera and
//! the terrain — the command line's `--terrain`, or the one the level places under itself.

use std::path::{Path, PathBuf};

use super::terrain::{TerrainOptions, TerrainShape};
use crate::geom::CameraSpec;
use crate::level::Level;
use crate::terrain::{ClipmapTerrain, HeightmapSpec};

/// A command's world.
pub struct World {
    pub level: Level,
    /// The level's path (or the heightmap's name for a terrain without a level).
    pub name: PathBuf,
    pub camera: CameraSpec,
    pub terrain: Option<ClipmapTerrain>,
}

/// With `--terrain` and no LEVEL, an empty world and the terrain's suggested camera; without
/// `--terrain`, the level's own terrain (if it has one).
pub fn load_world(
    level: Option<&Path>,
    camera: Option<CameraSpec>,
    (terrain, shape): (Option<&TerrainOptions>, TerrainShape),
    game: &super::Game,
) -> anyhow::Result<World> {
    let terrain = terrain.map(super::terrain::load).transpose()?;
    if let (None, Some(t)) = (level, &terrain) {
        return Ok(World {
            level: Level::default(),
            name: PathBuf::from(&t.heightmap.name),
            camera: camera.unwrap_or_else(|| super::terrain::start_camera(t)),
            terrain,
        });
    }
    let (level, name) = super::load_level(level, game)?;
    let camera = super::start_camera(&level, camera);
    let terrain = match terrain {
        Some(t) => Some(t),
        None => level_terrain(&level, &name, shape)?,
    };
    let flags = shape.flags();
    if terrain.is_none() && !flags.is_empty() {
        // Said, not silently dropped: there is no terrain for them to shape.
        eprintln!(
            "warning: {} ignored: {} has no terrain (give --terrain HEIGHTMAP)",
            flags.join(", "),
            name.display()
        );
    }
    Ok(World {
        level,
        name,
        camera,
        terrain,
    })
}

/// The terrain a level places under itself (a scene's `terrain`), shaped by the terrain flags
/// given (they win over the scene's scales); a relative heightmap path is relative to the level
/// file's folder.
fn level_terrain(
    level: &Level,
    level_path: &Path,
    shape: TerrainShape,
) -> anyhow::Result<Option<ClipmapTerrain>> {
    let Some(t) = &level.terrain else {
        return Ok(None);
    };
    let context = |e: &dyn std::fmt::Display| {
        anyhow::anyhow!(
            "{}: the level's terrain {:?}: {e} (or pass --terrain to use another)",
            level_path.display(),
            t.heightmap
        )
    };
    let mut heightmap: HeightmapSpec = t.heightmap.parse().map_err(|e| context(&e))?;
    if let HeightmapSpec::Png(p) = &mut heightmap {
        if p.is_relative() {
            if let Some(dir) = level_path.parent() {
                *p = dir.join(&*p);
            }
        }
    }
    super::terrain::load(&TerrainOptions {
        heightmap,
        spacing: shape
            .spacing
            .or((t.horizontal_scale > 0.0).then_some(t.horizontal_scale as f64)),
        vertical_scale: shape
            .vertical_scale
            .or((t.vertical_scale > 0.0).then_some(t.vertical_scale)),
        levels: shape.levels,
        grid: shape.grid,
    })
    .map(Some)
    .map_err(|e| context(&e))
}

/// A frame's culling, as every command runs it: the level animated to the settings' time,
/// then culled from `camera` into `visible`.
pub fn cull_view(
    level: &Level,
    culler: &mut crate::vis::Culler,
    camera: &crate::geom::Camera,
    settings: &crate::render::settings::FrameSettings,
    visible: &mut crate::vis::VisibleSet,
) {
    animate(level, culler, settings);
    culler.flow.reflect_water = settings.reflections;
    culler.cull(level, camera, visible);
}

/// Puts the level's moving objects where they are at the frame's time and lights them there
/// (`scene::update`, with the frame's clock and switches).
pub fn animate(
    level: &Level,
    culler: &mut crate::vis::Culler,
    settings: &crate::render::settings::FrameSettings,
) {
    let at = crate::scene::Moment {
        seconds: settings.time as f64,
        styles: settings.light_styles,
        switched: settings.switched,
        daylight: settings.time_of_day.daylight(),
        fullbright: settings.fullbright,
        light_scale: settings.light_scale,
    };
    crate::scene::update(level, culler, &at);
}
