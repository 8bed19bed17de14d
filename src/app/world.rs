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

/// Puts the level's moving objects where they are at the frame's time, shuts the portals of
/// the doors at rest, and lights each moving object where it is: from the level's light grid
/// over its box (spherical harmonics, this frame's style brightnesses), else by the lightmap
/// straight below its centre (Quake's `R_LightPoint`; full light where no lit floor lies
/// below, or in fullbright).
pub fn animate(
    level: &Level,
    culler: &mut crate::vis::Culler,
    settings: &crate::render::settings::FrameSettings,
) {
    if culler.links.moving.is_empty() {
        return;
    }
    let time = settings.time as f64;
    culler.animate(level, time);
    let off = culler.links.styles_off ^ settings.switched;
    let mut scales = crate::level::styles::scales(time, settings.light_styles, off);
    // Daylight baked under its own style dims at night, as the world's lightmaps do.
    if let Some(g) = level.light_grid.as_ref().filter(|g| g.sun_style != 0) {
        scales[g.sun_style as usize] *= settings.time_of_day.daylight();
    }
    for k in 0..culler.links.moving.len() {
        let i = culler.links.moving[k] as usize;
        let b = culler.links.bounds[i];
        let centre = (b.min + b.max) * 0.5;
        let grid = level.light_grid.as_ref().filter(|_| !settings.fullbright);
        let ambient = grid.and_then(|g| crate::light::grid::light_over(g, b, &scales));
        culler.links.ambient[i] = ambient;
        culler.links.lights[i] = if settings.fullbright || ambient.is_some() {
            [1.0; 3]
        } else {
            crate::light::point::light_below(level, centre, &scales, settings.light_scale)
                .unwrap_or([1.0; 3])
        };
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use crate::render::settings::{FrameSettings, TimeOfDay};

    /// A slab riding up and down in an open-air yard under a sun whose daylight bakes under
    /// style 12: by night the grid's daylight slot dims as the lightmaps' does (oracle: the
    /// lookup with style 12 scaled by night's daylight by hand), and the slab darkens.
    #[test]
    fn night_dims_a_moving_objects_daylight() {
        let scene = crate::compile::scene::parse(
            r#"Scene(
            ops: [(brush: Box(min: (-512, -512, 0), max: (512, 512, 512)), medium: Air)],
            outdoor: [Box(min: (-512, -512, 0), max: (512, 512, 512))],
            objects: [(name: "slab", brushes: [(brush: Box(min: (-32, -32, 16), max: (32, 32, 24)))],
                motion: Some(Path(points: [(0, 0, 0), (0, 0, 128)], speed: 32)))],
            entities: [[("classname", "worldspawn"), ("_sunlight", "200"), ("_sun_mangle", "0 -60 0"),
                ("_sun_style", "12")]],
        )"#,
        )
        .unwrap();
        let (level, _) = crate::compile::scene::compile_scene(&scene, &Default::default()).unwrap();
        let grid = level.light_grid.as_ref().unwrap();
        assert_eq!(grid.sun_style, 12);
        let light = |time_of_day| {
            let settings = FrameSettings {
                time_of_day,
                ..Default::default()
            };
            let mut culler = crate::vis::Culler::new(&level, crate::vis::CullMode::Portal);
            super::animate(&level, &mut culler, &settings);
            (culler.links.ambient[0].unwrap(), culler.links.bounds[0])
        };
        let ((day, b), (night, _)) = (light(TimeOfDay::Day), light(TimeOfDay::Night));
        let mut scales = crate::level::styles::scales(0.0, Default::default(), 0);
        scales[12] *= TimeOfDay::Night.daylight();
        let want = crate::light::grid::light_over(grid, b, &scales).unwrap();
        assert!((night.eval(Vec3::Z) - want.eval(Vec3::Z)).length() < 1e-4);
        let (d, n) = (day.eval(Vec3::Z).x, night.eval(Vec3::Z).x);
        assert!(d > 50.0 && n < 0.1 * d, "day {d}, night {n}");
        // The sun is kept out of the harmonics: the open yard sees it whole, and an upward
        // face gets Quake's `0.5 + 0.5 cos` of `_sunlight` × the range scale ½, 60° up.
        assert_eq!(day.sun_visible, 1.0);
        assert!(day.sh.eval(Vec3::Z).length() < 1e-3);
        let want = 200.0 * 0.5 * (0.5 + 0.5 * 60f32.to_radians().sin());
        assert!((d - want).abs() < 0.01 * want, "{d} vs {want}");
    }
}
