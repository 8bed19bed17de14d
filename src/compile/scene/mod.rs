//! The scene front end (`.ron`, ordered CSG): check the operations, apply them to space that
//! starts solid (merging regions as it goes), turn open regions into cells and their contacts into
//! portals and surface drafts, and build a k-d tree for point location; the back half does
//! the rest.

mod cells;
mod csg;
mod files;
mod kd_tree;
mod materials;
mod merge;
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
use crate::compile::polyhedron::PlanePool;
use crate::compile::MAX_COORD;
use crate::level::{Entity, Level, Medium, Sky, TerrainRef};

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
    #[error("line {line}, column {column}: {msg}")]
    Parse {
        line: usize,
        column: usize,
        msg: String,
    },
    #[error("operation {index}, {field}: {msg}")]
    Operation {
        index: usize,
        field: &'static str,
        msg: String,
    },
    /// A mirror or teleporter (`mirrors[2]`, `teleporters[0].to`) that cannot be built.
    #[error("{portal}: {msg}")]
    Portal { portal: String, msg: String },
    /// An entry of `Scene::materials`.
    #[error("material {index} (\"{name}\"), {field}: {msg}")]
    Material {
        index: usize,
        name: String,
        field: &'static str,
        msg: String,
    },
    #[error("the scene has no operations (every brush was empty or unbounded): add at least one")]
    NoOperations,
    #[error("object {index} ({name}), {field}: {msg}")]
    Object {
        index: usize,
        name: String,
        field: String,
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
        let Some(poly) = csg::poly_from_planes(&mut PlanePool::default(), &planes) else {
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
mod tests {
    use super::scene_file::brush_planes;
    use super::*;
    use crate::geom::DPlane;
    use crate::level::*;

    pub(crate) const EXAMPLE: &str = r#"Scene(
    ops: [
        // Carve a hall and a side room out of solid space.
        (brush: Box(min: (0, 0, 0), max: (1024, 512, 256)), medium: Air, material: Some("stone")),
        (brush: Box(min: (1024, 128, 0), max: (1280, 384, 128)), medium: Air),
        // A pillar back into the hall.
        (brush: Box(min: (200, 200, 0), max: (264, 264, 256)), medium: Solid, material: Some("pillar")),
        // Flood the low part of the hall, but only where it is air (the pillar stays solid).
        (brush: Box(min: (0, 0, 0), max: (600, 512, 48)), medium: Water, only: Some([Air]), material: Some("*water")),
        // A slanted cut: a ramp of solid in the side room.
        (brush: Planes([
            (normal: (0, 0, -1), dist: 0), (normal: (-1, 0, 0), dist: -1024), (normal: (1, 0, 0), dist: 1280),
            (normal: (0, -1, 0), dist: -128), (normal: (0, 1, 0), dist: 384), (normal: (-1, 0, 2), dist: -1100),
        ]), medium: Solid),
    ],
    entities: [
        [("classname", "info_player_start"), ("origin", "64 64 100")],
        [("classname", "light"), ("origin", "512 256 200"), ("light", "300")],
    ],
    sky: Some("day"),
    terrain: Some((heightmap: "procedural:512", origin: (0, 0, -64), horizontal_scale: 8, vertical_scale: 1)),
    outdoor: [Box(min: (1024, 128, 0), max: (1280, 384, 128))],
)"#;

    #[test]
    fn example_scene_compiles() {
        let scene = parse(EXAMPLE).unwrap();
        let (level, stats) = compile_scene(&scene, &CompileOptions::default()).unwrap();
        assert_eq!(stats.failed_brushes, 0);
        crate::level::file::validate(&level).unwrap();
        eprintln!(
            "example scene: {} cells, {} portals, {} surfaces",
            stats.cells, stats.portals, stats.surfaces
        );
        // Oracle: the point-wise ordered application.
        let ops = oracle_ops(&scene);
        for p in [
            DVec3::new(100.0, 100.0, 20.0),
            DVec3::new(100.0, 100.0, 100.0),
            DVec3::new(230.0, 230.0, 20.0),
            DVec3::new(1100.0, 200.0, 100.0),
            DVec3::new(1250.0, 200.0, 20.0),
        ] {
            let m = csg::medium_at(&ops, p);
            let cell = level
                .locate(p.as_vec3())
                .filter(|&c| level.cells[c as usize].contains(p.as_vec3(), 0.01));
            match cell {
                Some(c) => assert_eq!(level.cells[c as usize].medium, m, "at {p}"),
                None => assert_eq!(m, Medium::Solid, "at {p}"),
            }
        }
        assert!(level
            .cells
            .iter()
            .any(|c| c.flags & cell_flags::OUTDOOR != 0));
        assert!(level
            .portals
            .iter()
            .any(|p| p.flags & portal_flags::LIQUID_SURFACE != 0));
        assert!(level
            .surfaces
            .iter()
            .any(|s| s.flags & surface_flags::LIQUID != 0));
        assert_eq!(level.terrain.as_ref().unwrap().heightmap, "procedural:512");
        crate::compile::map::tests::check_portals_and_locate(&level);
        // T-junctions repaired over all surfaces.
        assert_eq!(
            crate::level::tjunctions::find_tjunction(
                &level.surfaces.iter().collect::<Vec<_>>(),
                0.02
            ),
            None
        );
    }

    /// The scene's operations for the point-wise oracle (`csg::written_at`).
    fn oracle_ops(scene: &Scene) -> Vec<Op> {
        scene
            .ops
            .iter()
            .map(|o| Op {
                planes: brush_planes(&o.brush),
                medium: o.medium.medium(),
                only: o
                    .only
                    .as_ref()
                    .map(|v| v.iter().map(|m| m.medium()).collect()),
                material: 0,
                cut: false,
            })
            .collect()
    }

    /// A hall (indoor) beside a yard (outdoor) with a pillar in the yard, a facade brush half
    /// in the yard, and a wall written over the initial solid along the yard's south side.
    const YARD: &str = r#"Scene(
    ops: [
        (brush: Box(min: (0, 0, 0), max: (512, 512, 256)), medium: Air),
        (brush: Box(min: (512, 64, 0), max: (1024, 512, 256)), medium: Air, material: Some("grass")),
        (brush: Box(min: (700, 200, 0), max: (764, 264, 128)), medium: Solid, material: Some("pillar")),
        (brush: Box(min: (960, 100, 0), max: (1100, 400, 96)), medium: Solid, material: Some("facade")),
        (brush: Box(min: (512, 0, 0), max: (1024, 64, 256)), medium: Solid, material: Some("fence")),
        (brush: Box(min: (500, 200, 0), max: (524, 300, 128)), medium: Air),
        (brush: Box(min: (512, 0, 0), max: (524, 512, 256)), medium: Solid, only: Some([Air]), material: Some("hallwall")),
        (brush: Box(min: (508, 200, 0), max: (528, 300, 128)), medium: Air),
    ],
    terrain: Some((heightmap: "procedural:256", origin: (0, 0, -500), horizontal_scale: 16, vertical_scale: 1)),
    outdoor: [Box(min: (524, 0, -1), max: (1100, 600, 300))],
)"#;

    /// Oracle for open outdoor faces: sample points on every cell's boundary and apply the
    /// operations in order just behind each. Built or indoor → a wall surface of the cell covers
    /// the point; initial solid behind an outdoor cell → nothing (with a terrain) or sky.
    #[test]
    fn outdoor_cells_open_where_nothing_was_built() {
        for with_terrain in [true, false] {
            let mut scene = parse(YARD).unwrap();
            if !with_terrain {
                scene.terrain = None;
            }
            let ops = oracle_ops(&scene);
            let (level, _) = compile_scene(&scene, &CompileOptions::default()).unwrap();
            crate::level::file::validate(&level).unwrap();
            let outdoor = level
                .cells
                .iter()
                .filter(|c| c.flags & cell_flags::OUTDOOR != 0)
                .count();
            assert!(outdoor > 0 && outdoor < level.cells.len());
            // Counts of (walled, open) samples, to prove both cases were exercised.
            let (mut walled, mut open, mut built_behind_outdoor) = (0, 0, 0);
            let mut seed = 12345u64;
            let mut rnd = move || {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (seed >> 11) as f64 / (1u64 << 53) as f64
            };
            let all_planes: Vec<DPlane> = ops.iter().flat_map(|o| o.planes.clone()).collect();
            for (ci, cell) in level.cells.iter().enumerate() {
                let is_outdoor = cell.flags & cell_flags::OUTDOOR != 0;
                let outward: Vec<DPlane> =
                    cell.planes.iter().map(|p| p.to_f64().flipped()).collect();
                for (i, face_plane) in outward.iter().enumerate() {
                    let mut w = crate::geom::DPolygon::base_winding(face_plane, 1e5);
                    for (j, q) in outward.iter().enumerate() {
                        if i != j {
                            w = w.clip_back(q, 1e-9);
                        }
                    }
                    if w.is_empty() {
                        continue;
                    }
                    let pts = &w.points;
                    for _ in 0..40 {
                        // A random point of the face (fan triangle weighted crudely; enough).
                        let k = 1 + (rnd() * (pts.len() - 2) as f64) as usize;
                        let (mut a, mut b) = (rnd(), rnd());
                        if a + b > 1.0 {
                            (a, b) = (1.0 - a, 1.0 - b);
                        }
                        let p = pts[0] + (pts[k] - pts[0]) * a + (pts[k + 1] - pts[0]) * b;
                        let behind = p + face_plane.normal;
                        if all_planes.iter().any(|pl| pl.distance(behind).abs() < 0.5) {
                            continue; // on an edge between differently built parts
                        }
                        let (m, written) = csg::written_at(&ops, behind);
                        if m.is_open() {
                            continue; // a portal
                        }
                        let covering: Vec<&Surface> = cell
                            .surfaces
                            .iter()
                            .map(|&s| &level.surfaces[s as usize])
                            .filter(|s| surface_covers(s, p, -face_plane.normal))
                            .collect();
                        let kinds: Vec<bool> = covering
                            .iter()
                            .map(|s| s.flags & surface_flags::SKY != 0)
                            .collect();
                        if is_outdoor && !written {
                            open += 1;
                            let expect: &[bool] = if with_terrain { &[] } else { &[true] };
                            assert_eq!(kinds, expect, "cell {ci} at {p}: open face");
                        } else {
                            walled += 1;
                            built_behind_outdoor += (is_outdoor && written) as usize;
                            assert_eq!(kinds, [false], "cell {ci} at {p}: walled face");
                        }
                    }
                }
            }
            eprintln!("outdoor faces: {walled} walled, {open} open, {built_behind_outdoor} built around outdoor cells");
            assert!(walled > 100 && open > 100 && built_behind_outdoor > 20);
            assert_eq!(
                level.sky.as_ref().and_then(|s| s.material).is_some(),
                !with_terrain
            );
        }
    }

    /// Two outdoor yards with a built block between them and no portal path from one to the
    /// other: with a terrain they see each other across the sky through the OUTSIDE cell; without
    /// one the open faces are sky surfaces, opaque like Quake's, and they do not.
    pub(crate) const TWO_YARDS: &str = r#"Scene(
    ops: [
        (brush: Box(min: (0, 0, 0), max: (512, 512, 256)), medium: Air),
        (brush: Box(min: (768, 0, 0), max: (1280, 512, 256)), medium: Air),
        (brush: Box(min: (-64, -64, -32), max: (1344, 576, 0)), medium: Solid, material: Some("ground")),
        (brush: Box(min: (512, 0, 0), max: (768, 512, 96)), medium: Solid, material: Some("block")),
    ],
    terrain: Some((heightmap: "procedural:256", origin: (-4096, -4096, -300), horizontal_scale: 32, vertical_scale: 0.1)),
    outdoor: [Box(min: (-64, -64, -32), max: (1344, 576, 300))],
)"#;

    #[test]
    fn outdoor_yards_see_each_other_across_the_outside() {
        use crate::geom::{Camera, CameraSpec};
        use crate::vis::{CullMode, Culler, VisibleSet};
        for with_terrain in [true, false] {
            let mut scene = parse(TWO_YARDS).unwrap();
            if !with_terrain {
                scene.terrain = None;
            }
            let (level, _) = compile_scene(&scene, &CompileOptions::default()).unwrap();
            crate::compile::map::tests::check_portals_and_locate(&level);
            let outside = level.outside_cell();
            assert_eq!(outside.is_some(), with_terrain);
            // Point location never answers OUTSIDE, not even far outside the yards.
            for p in [
                Vec3::new(256.0, 256.0, 100.0),
                Vec3::new(640.0, 256.0, 200.0),
                Vec3::new(-40.0, -40.0, 100.0),
            ] {
                let c = level.locate(p);
                assert!(c.is_none() || c != outside, "{p}");
            }
            let yard_b = level.locate(Vec3::new(1100.0, 256.0, 50.0)).unwrap();
            // From yard A, high above the block, looking at yard B's floor (x 1100): the segment
            // to it clears the block (x 512..768, z < 96) — geometrically visible.
            let eye = Vec3::new(300.0, 256.0, 240.0);
            let target = Vec3::new(1100.0, 256.0, 0.5);
            let z_at_block = |x: f32| eye.z + (target.z - eye.z) * (x - eye.x) / (target.x - eye.x);
            assert!(z_at_block(768.0) > 96.0);
            let d = target - eye;
            let spec = CameraSpec {
                position: eye,
                yaw: 0.0,
                pitch: (d.z / d.truncate().length()).atan().to_degrees(),
            };
            let cam = Camera::new(spec, 16.0 / 9.0);
            let mut vis = VisibleSet::default();
            Culler::new(&level, CullMode::Portal).cull(&level, &cam, &mut vis);
            let sees_b = vis.cells.iter().any(|c| c.cell == yard_b);
            assert_eq!(
                sees_b, with_terrain,
                "terrain {with_terrain}: yard B visible {sees_b}"
            );
            if with_terrain {
                // An eye out over the terrain, beyond every cell, is in OUTSIDE and sees both
                // yards through their open tops.
                let spec = CameraSpec {
                    position: Vec3::new(640.0, -900.0, 900.0),
                    yaw: 90.0,
                    pitch: -40.0,
                };
                let cam = Camera::new(spec, 16.0 / 9.0);
                let mut culler = Culler::new(&level, CullMode::Portal);
                culler.cull(&level, &cam, &mut vis);
                assert_eq!(culler.tracker.cell(), outside);
                let yard_a = level.locate(Vec3::new(256.0, 256.0, 50.0)).unwrap();
                assert!(vis.cells.iter().any(|c| c.cell == yard_a));
                assert!(vis.cells.iter().any(|c| c.cell == yard_b));
            }
        }
    }

    /// Whether a surface facing `normal` covers point `p` of its plane.
    fn surface_covers(s: &Surface, p: DVec3, normal: DVec3) -> bool {
        if s.normal.as_dvec3().dot(normal) < 0.999 {
            return false;
        }
        let v = |i: u32| s.vertices[i as usize].position.as_dvec3();
        if normal.dot(p - v(0)).abs() > 0.05 {
            return false;
        }
        s.indices.chunks(3).any(|t| {
            let (a, b, c) = (v(t[0]), v(t[1]), v(t[2]));
            let inside = |e0: DVec3, e1: DVec3| (e1 - e0).cross(p - e0).dot(normal) >= -1e-3;
            inside(a, b) && inside(b, c) && inside(c, a)
        })
    }

    #[test]
    fn bad_scenes_are_errors() {
        assert!(parse("Scene(ops: [(brush: Box(min: (0,0,0)), medium: Air)])").is_err());
        let s = parse("Scene(ops: [])").unwrap();
        assert!(compile_scene(&s, &CompileOptions::default()).is_err());
        // An unbounded brush is skipped with a warning; with nothing left, an error.
        let s = parse("Scene(ops: [(brush: Planes([(normal: (1,0,0), dist: 5)]), medium: Air)])")
            .unwrap();
        let e = compile_scene(&s, &CompileOptions::default()).unwrap_err();
        assert!(e.to_string().contains("no operations"), "{e}");
        let s = parse("Scene(ops: [(brush: Box(min: (0,0,0), max: (1e300,1,1)), medium: Air)])")
            .unwrap();
        assert!(compile_scene(&s, &CompileOptions::default())
            .unwrap_err()
            .to_string()
            .contains("beyond"));
    }

    /// The seeded random-box scenes against brute force: at random points, the cell the
    /// compiled level puts there (or none, in solid) has the medium that applying every
    /// operation in order to that one point gives.
    #[test]
    fn random_boxes_match_point_sampling() {
        for seed in 1..4 {
            let scene = random_boxes(80, seed);
            let (level, _) = compile_scene(
                &scene,
                &CompileOptions {
                    light: false,
                    ..Default::default()
                },
            )
            .unwrap();
            crate::level::file::validate(&level).unwrap();
            let ops = oracle_ops(&scene);
            let side = 192.0 * 80f64.cbrt() + 256.0;
            let mut s = seed;
            let mut rnd = move || {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Odd multiples of 1/16: never on a box face (faces lie on multiples of 8).
                ((s >> 33) % (side as u64 * 8)) as f64 / 8.0 + 1.0 / 16.0
            };
            let mut open = 0;
            for _ in 0..3000 {
                let p = DVec3::new(rnd(), rnd(), rnd());
                let want = csg::medium_at(&ops, p);
                let cell = level
                    .locate(p.as_vec3())
                    .filter(|&c| level.cells[c as usize].contains(p.as_vec3(), 0.01));
                match cell {
                    Some(c) => {
                        assert_eq!(level.cells[c as usize].medium, want, "seed {seed} at {p}")
                    }
                    None => assert_eq!(want, Medium::Solid, "seed {seed}: no cell at {p}"),
                }
                open += usize::from(want != Medium::Solid);
            }
            assert!(open > 100, "seed {seed}: only {open} open samples");
        }
    }

    /// Parse errors name the field, a misspelt field as itself, and bytes that are not UTF-8
    /// by their line and column; a long token is cut.
    #[test]
    fn parse_errors_name_the_field() {
        let msg = |text: &str| parse(text).unwrap_err().to_string();
        let e = msg("Scene(ops: [(brush: Box(min: (0,0,0), max: (1,\"x\",1)), medium: Air)])");
        assert!(
            e.starts_with("line 1, column ") && e.contains("field `max`"),
            "{e}"
        );
        let e = msg("Scene(ops: [(brush: Box(min: (0,0,0), maxx: (1,1,1)), medium: Air)])");
        assert!(e.contains("`maxx`") && !e.contains("missing"), "{e}");
        let e = msg(
            "Scene(ops: [(brush: Box(min: (0,0,0), max: (1,1,1)), medium: Air, materal: None)])",
        );
        assert!(e.contains("`materal`"), "{e}");
        let long = "A".repeat(1 << 20);
        let e = msg(&format!(
            "Scene(ops: [(brush: Box(min: (0,0,0), max: (1,1,1)), medium: {long})])"
        ));
        assert!(e.len() < 400, "{} bytes", e.len());
        let e = scene_file::parse_bytes(b"Scene(ops: [\n  (brush: \xff)])")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "line 2, column 11: byte 0xff is not UTF-8: save the scene as UTF-8 text"
        );
    }
}

#[cfg(test)]
mod readme {
    /// Every scene example in docs/formats.md parses and compiles (the docs cannot drift from the
    /// format); the one with mirrors and teleporters makes their portals.
    #[test]
    fn readme_examples_compile() {
        let readme = include_str!("../../../docs/formats.md");
        let blocks: Vec<&str> = readme
            .split("```ron\n")
            .skip(1)
            .map(|b| &b[..b.find("```").unwrap()])
            .collect();
        assert!(blocks.len() >= 2, "docs/formats.md has its ron examples");
        let mut transformed = 0;
        for block in blocks {
            let scene = super::parse(block).unwrap();
            let (level, _) = super::compile_scene(&scene, &Default::default()).unwrap();
            assert!(!level.cells.is_empty());
            let with = |det: fn(f32) -> bool| {
                level.portals.iter().any(|p| {
                    p.transform
                        .is_some_and(|m| det(glam::Mat4::from_cols_array(&m).determinant()))
                })
            };
            if !scene.mirrors.is_empty() {
                assert!(with(|d| d < 0.0) && with(|d| d > 0.0));
                transformed += 1;
            }
        }
        assert_eq!(transformed, 1);
    }
}
