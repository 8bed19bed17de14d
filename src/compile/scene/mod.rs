//! Lanthorn scene source (`.ron`): an ordered list of CSG operations over space that starts
//! solid, plus entities, sky, terrain and outdoor regions. See README.md for an example.

pub mod csg;

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};

use self::csg::Op;
use crate::compile::map::map_file::{tex_vecs, TexProjection};
use crate::compile::map::{CompileError, CompileOptions, CompileStats};
use crate::compile::surfaces::{self, SurfaceSpec};
use crate::level::*;
use crate::geom::{Aabb, DPlane};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SceneMedium {
    Solid,
    Air,
    Water,
    Slime,
    Lava,
}

impl SceneMedium {
    fn medium(self) -> Medium {
        match self {
            SceneMedium::Solid => Medium::Solid,
            SceneMedium::Air => Medium::Air,
            SceneMedium::Water => Medium::Water,
            SceneMedium::Slime => Medium::Slime,
            SceneMedium::Lava => Medium::Lava,
        }
    }
}

/// A convex brush.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SceneBrush {
    Box {
        min: (f64, f64, f64),
        max: (f64, f64, f64),
    },
    /// Outward planes `normal · p = dist`; inside where `normal · p <= dist` for all.
    Planes(Vec<ScenePlane>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenePlane {
    pub normal: (f64, f64, f64),
    pub dist: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneOp {
    pub brush: SceneBrush,
    pub medium: SceneMedium,
    /// Only these media change ("air becomes water"); absent = everything.
    #[serde(default)]
    pub only: Option<Vec<SceneMedium>>,
    /// Texture of the surfaces this operation's medium shows (walls it builds, liquid tops).
    #[serde(default)]
    pub material: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneTerrain {
    pub heightmap: String,
    pub origin: (f32, f32, f32),
    pub horizontal_scale: f32,
    pub vertical_scale: f32,
}

#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Scene {
    pub ops: Vec<SceneOp>,
    /// Entities as key/value pairs (`classname`, `origin` "x y z", ...).
    #[serde(default)]
    pub entities: Vec<Vec<(String, String)>>,
    /// Cubemap skybox name.
    #[serde(default)]
    pub sky: Option<String>,
    #[serde(default)]
    pub terrain: Option<SceneTerrain>,
    /// Boxes of open space that are outdoor (open to the terrain and sky): cells whose centre
    /// lies inside one are flagged `OUTDOOR`.
    #[serde(default)]
    pub outdoor: Vec<SceneBrush>,
}

fn brush_planes(b: &SceneBrush) -> Vec<DPlane> {
    match b {
        SceneBrush::Box { min, max } => csg::box_planes(
            DVec3::new(min.0, min.1, min.2),
            DVec3::new(max.0, max.1, max.2),
        ),
        SceneBrush::Planes(v) => v
            .iter()
            .map(|p| {
                let n = DVec3::new(p.normal.0, p.normal.1, p.normal.2);
                let len = n.length();
                DPlane::new(n / len, p.dist / len)
            })
            .collect(),
    }
}

pub fn parse(text: &str) -> Result<Scene, String> {
    ron::from_str(text).map_err(|e| e.to_string())
}

pub fn compile_scene_file(
    path: &Path,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), CompileError> {
    let text = std::fs::read_to_string(path).map_err(|source| CompileError::Io {
        path: path.into(),
        source,
    })?;
    let scene = parse(&text).map_err(|msg| CompileError::Scene {
        path: path.into(),
        msg,
    })?;
    compile_scene(&scene, options).map_err(|msg| CompileError::Scene {
        path: path.into(),
        msg,
    })
}

/// Compiles a scene: ordered CSG → regions; open regions → cells; contacts between open
/// regions → portals; contacts between solid and open → surfaces facing the open side (and
/// both ways between air and liquid).
pub fn compile_scene(
    scene: &Scene,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), String> {
    let start = Instant::now();
    let mut last = start;
    let mut stats = CompileStats::default();
    let mut lap = |stats: &mut CompileStats, name: &str| {
        let now = Instant::now();
        stats.stages.push((name.into(), (now - last).as_secs_f64()));
        last = now;
    };
    let mut level = Level::default();
    let mut materials: HashMap<String, u32> = HashMap::new();
    let mut material = |name: &str, level: &mut Level| -> u32 {
        *materials.entry(name.to_string()).or_insert_with(|| {
            level.materials.push(Material {
                name: name.into(),
                width: 64,
                height: 64,
                color: crate::compile::map::flat_color(name),
                flags: if name.starts_with('*') {
                    material_flags::LIQUID
                } else {
                    0
                },
                ..Default::default()
            });
            level.materials.len() as u32 - 1
        })
    };
    let mut ops = Vec::new();
    let mut min = DVec3::splat(f64::INFINITY);
    let mut max = DVec3::splat(f64::NEG_INFINITY);
    for (i, o) in scene.ops.iter().enumerate() {
        let planes = brush_planes(&o.brush);
        if planes
            .iter()
            .any(|p| !p.normal.is_finite() || !p.dist.is_finite())
        {
            return Err(format!("operation {i}: a plane is not finite"));
        }
        let mut pool = crate::compile::polyhedron::PlanePool::default();
        let Some(poly) = csg::poly_from_planes(&mut pool, &planes) else {
            stats.warnings.push(format!(
                "operation {i}: the brush is empty or unbounded; skipped"
            ));
            stats.failed_brushes += 1;
            continue;
        };
        if poly
            .min
            .abs()
            .max_element()
            .max(poly.max.abs().max_element())
            > crate::compile::map::map_file::MAX_COORD
        {
            return Err(format!(
                "operation {i}: the brush reaches beyond ±{}",
                crate::compile::map::map_file::MAX_COORD
            ));
        }
        min = min.min(poly.min);
        max = max.max(poly.max);
        let default_tex = if o.medium.medium().is_liquid() {
            "*water"
        } else {
            "wall"
        };
        let m = material(o.material.as_deref().unwrap_or(default_tex), &mut level);
        ops.push(Op {
            planes,
            medium: o.medium.medium(),
            only: o
                .only
                .as_ref()
                .map(|v| v.iter().map(|m| m.medium()).collect()),
            material: m,
        });
        stats.brushes += 1;
    }
    if ops.is_empty() {
        return Err("the scene has no operations".into());
    }
    let (min, max) = (min - DVec3::splat(16.0), max + DVec3::splat(16.0));
    let mut regions = csg::apply(&ops, min, max);
    let before = regions.regions.len();
    lap(&mut stats, "csg");
    csg::merge_regions(&mut regions);
    log::info!(
        "scene: {before} regions, {} after merging",
        regions.regions.len()
    );
    lap(&mut stats, "merge");
    // Cells: open regions.
    let mut cell_of = vec![None; regions.regions.len()];
    let mut outdoor_cell = Vec::new();
    for (i, r) in regions.regions.iter().enumerate() {
        if !r.medium.is_open() {
            continue;
        }
        cell_of[i] = Some(level.cells.len() as u32);
        let centre = r.poly.center();
        let outdoor = scene
            .outdoor
            .iter()
            .any(|b| brush_planes(b).iter().all(|p| p.distance(centre) <= 0.0));
        outdoor_cell.push(outdoor);
        level.cells.push(Cell {
            planes: r
                .poly
                .inward_planes(&regions.pool)
                .iter()
                .map(|p| p.to_f32())
                .collect(),
            aabb: Aabb::new(r.poly.min.as_vec3(), r.poly.max.as_vec3()),
            medium: r.medium,
            flags: if outdoor { cell_flags::OUTDOOR } else { 0 },
            portals: Vec::new(),
            surfaces: Vec::new(),
        });
    }
    // An outdoor cell is open where nothing was built next to it (the initial solid): with a
    // terrain those faces get no surface, so the terrain pass shows terrain and sky through
    // them; without one they become sky. Built solid (a wall brush) keeps its surfaces.
    let open_sky = scene.terrain.is_none().then(|| {
        let m = material("sky", &mut level);
        level.materials[m as usize].flags |= material_flags::SKY;
        level.materials[m as usize].color = [0.45, 0.6, 0.8];
        m
    });
    let is_open = |cell: u32, solid: &csg::Region| outdoor_cell[cell as usize] && !solid.written;
    let mut open_faces = 0usize;
    // With a terrain, the open world beyond those faces is one more cell (OUTSIDE), joined to
    // every open face by a portal: outdoor regions see each other across the sky.
    let outside = (scene.terrain.is_some() && outdoor_cell.contains(&true)).then(|| {
        let id = level.cells.len() as u32;
        let planes = csg::box_planes(regions.min, regions.max)
            .iter()
            .map(|p| p.flipped().to_f32())
            .collect();
        level.cells.push(Cell {
            planes,
            aabb: Aabb::new(regions.min.as_vec3(), regions.max.as_vec3()),
            medium: Medium::Air,
            flags: cell_flags::OUTDOOR | cell_flags::OUTSIDE,
            portals: Vec::new(),
            surfaces: Vec::new(),
        });
        id
    });
    // A portal from outdoor cell `cell` through an open face into OUTSIDE: `points` wound
    // counter-clockwise seen from OUTSIDE, `plane` facing it.
    let open_portal = |level: &mut Level, cell: u32, points: &[DVec3], plane: DPlane| {
        let Some(out) = outside else { return };
        let id = level.portals.len() as u32;
        level.portals.push(Portal {
            polygon: points.iter().map(|p| p.as_vec3()).collect(),
            plane: plane.to_f32(),
            front: out,
            back: cell,
            transform: None,
            flags: 0,
        });
        level.cells[cell as usize].portals.push(id);
        level.cells[out as usize].portals.push(id);
    };
    // Portals and surfaces from contacts.
    let contacts = csg::contacts(&regions);
    let mut polys: Vec<(Vec<DVec3>, DVec3, u32, u32, u32)> = Vec::new(); // points, normal, material, flags, cell
    for c in &contacts {
        let (ra, rb) = (&regions.regions[c.a], &regions.regions[c.b]);
        let n = regions.pool.get(c.plane).normal; // outward from a, towards b
        match (cell_of[c.a], cell_of[c.b]) {
            (Some(a), Some(b)) => {
                let id = level.portals.len() as u32;
                let liquid = ra.medium != rb.medium;
                level.portals.push(Portal {
                    polygon: c.winding.points.iter().map(|p| p.as_vec3()).collect(),
                    plane: regions.pool.get(c.plane).to_f32(),
                    front: b,
                    back: a,
                    transform: None,
                    flags: if liquid {
                        portal_flags::LIQUID_SURFACE
                    } else {
                        0
                    },
                });
                level.cells[a as usize].portals.push(id);
                level.cells[b as usize].portals.push(id);
                if liquid {
                    // The liquid's surface, seen from both sides.
                    let (liq, _) = if ra.medium.is_liquid() {
                        (ra, rb)
                    } else {
                        (rb, ra)
                    };
                    let flags = surface_flags::LIQUID;
                    polys.push((c.winding.points.clone(), n, liq.material, flags, b));
                    let mut rev = c.winding.points.clone();
                    rev.reverse();
                    polys.push((rev, -n, liq.material, flags, a));
                }
            }
            (Some(a), None) => {
                // Solid b seen from open a: faces -n, wound the other way.
                let mut rev = c.winding.points.clone();
                rev.reverse();
                if !is_open(a, rb) {
                    polys.push((rev, -n, rb.material, 0, a));
                } else if let Some(sky) = open_sky {
                    polys.push((rev, -n, sky, surface_flags::SKY, a));
                } else {
                    open_portal(&mut level, a, &c.winding.points, *regions.pool.get(c.plane));
                }
                open_faces += is_open(a, rb) as usize;
            }
            (None, Some(b)) => {
                if !is_open(b, ra) {
                    polys.push((c.winding.points.clone(), n, ra.material, 0, b));
                } else if let Some(sky) = open_sky {
                    polys.push((c.winding.points.clone(), n, sky, surface_flags::SKY, b));
                } else {
                    let mut rev = c.winding.points.clone();
                    rev.reverse();
                    open_portal(&mut level, b, &rev, regions.pool.get(c.plane).flipped());
                }
                open_faces += is_open(b, ra) as usize;
            }
            (None, None) => {}
        }
    }
    log::info!("scene: {open_faces} outdoor faces open to the terrain or sky");
    lap(&mut stats, "portals");
    let mut pts: Vec<Vec<DVec3>> = polys.iter().map(|p| p.0.clone()).collect();
    let inserted = surfaces::fix_tjunctions(&mut pts, 0.05);
    for ((pp, (_, normal, mat, flags, cell)), ins) in pts.iter().zip(&polys).zip(&inserted) {
        let spec = SurfaceSpec {
            tex: tex_vecs(
                &TexProjection::Standard {
                    offset: [0.0, 0.0],
                    rotation: 0.0,
                    scale: [1.0, 1.0],
                },
                *normal,
            ),
            tex_size: (64, 64),
            material: *mat,
            flags: *flags,
            luxel: if flags & (surface_flags::LIQUID | surface_flags::SKY) != 0 {
                None
            } else {
                Some(options.luxel_size)
            },
        };
        let s = surfaces::make_surface(pp, ins, *normal, &spec);
        if s.indices.is_empty() {
            continue;
        }
        let c = &mut level.cells[*cell as usize];
        c.surfaces.push(level.surfaces.len() as u32);
        if flags & surface_flags::SKY != 0 {
            c.flags |= cell_flags::SKY_VISIBLE;
        }
        level.surfaces.push(s);
    }
    lap(&mut stats, "surfaces");
    let (w, h) = surfaces::pack_lightmaps(&mut level.surfaces, 1024);
    level.lightmaps = Lightmaps {
        width: w,
        height: h,
        texels: vec![128; (w * h * 3) as usize], // unbaked: full light after the ×2 overbright
    };
    level.bsp = kd_tree(&level.cells);
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
    if level.materials.is_empty() {
        material("wall", &mut level);
    }
    lap(&mut stats, "finish");
    if options.light {
        crate::compile::map::light_level(&mut level, &mut stats);
        lap(&mut stats, "light");
    }
    stats.cells = level.cells.len();
    stats.outdoor_cells = crate::compile::map::outdoor_cells(&level);
    stats.portals = level.portals.len();
    stats.surfaces = level.surfaces.len();
    stats.triangles = level.triangle_count();
    stats.materials = level.materials.len();
    stats.bsp_nodes = level.bsp.nodes.len();
    stats.bsp_leaves = level.bsp.leaves.len();
    stats.seconds = start.elapsed().as_secs_f64();
    Ok((level, stats))
}

/// A BSP over cells by axial planes (median of cell centres on the longest axis); a cell
/// crossing a plane is listed on both sides, so a leaf may hold several cells.
pub fn kd_tree(cells: &[Cell]) -> Bsp {
    let mut bsp = Bsp::default();
    if cells.is_empty() {
        return bsp;
    }
    // The OUTSIDE stand-in overlaps everything: point location must never find it.
    let all: Vec<u32> = (0..cells.len() as u32)
        .filter(|&i| cells[i as usize].flags & cell_flags::OUTSIDE == 0)
        .collect();
    if all.is_empty() {
        return bsp;
    }
    let root = kd_node(cells, all, &mut bsp, 0);
    bsp.root = Some(root);
    bsp
}

fn kd_node(cells: &[Cell], ids: Vec<u32>, bsp: &mut Bsp, depth: u32) -> BspChild {
    let mut b = Aabb::EMPTY;
    for &i in &ids {
        b = b.union(&cells[i as usize].aabb);
    }
    let leaf = |bsp: &mut Bsp, ids: Vec<u32>| {
        bsp.leaves.push(BspLeaf { cells: ids });
        BspChild::Leaf(bsp.leaves.len() as u32 - 1)
    };
    if ids.len() <= 2 || depth > 40 {
        return leaf(bsp, ids);
    }
    let size = b.size();
    let axis = if size.x >= size.y && size.x >= size.z {
        0
    } else if size.y >= size.z {
        1
    } else {
        2
    };
    let mut centres: Vec<f32> = ids
        .iter()
        .map(|&i| cells[i as usize].aabb.center()[axis])
        .collect();
    centres.sort_by(f32::total_cmp);
    let at = centres[centres.len() / 2];
    let front: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|&i| cells[i as usize].aabb.max[axis] > at)
        .collect();
    let back: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|&i| cells[i as usize].aabb.min[axis] < at)
        .collect();
    if front.len() == ids.len() || back.len() == ids.len() {
        return leaf(bsp, ids);
    }
    let mut n = Vec3::ZERO;
    n[axis] = 1.0;
    let id = bsp.nodes.len() as u32;
    bsp.nodes.push(BspNode {
        plane: crate::geom::Plane::new(n, at),
        children: [BspChild::Leaf(0), BspChild::Leaf(0)],
        aabb: b,
    });
    let f = kd_node(cells, front, bsp, depth + 1);
    let k = kd_node(cells, back, bsp, depth + 1);
    bsp.nodes[id as usize].children = [f, k];
    BspChild::Node(id)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            surfaces::find_tjunction(&level.surfaces.iter().collect::<Vec<_>>(), 0.02),
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
        assert!(e.contains("no operations"), "{e}");
        let s = parse("Scene(ops: [(brush: Box(min: (0,0,0), max: (1e300,1,1)), medium: Air)])")
            .unwrap();
        assert!(compile_scene(&s, &CompileOptions::default())
            .unwrap_err()
            .contains("beyond"));
    }
}

#[cfg(test)]
mod readme {
    /// The example in README.md parses and compiles (the docs cannot drift from the format).
    #[test]
    fn readme_example_compiles() {
        let readme = include_str!("../../../README.md");
        let start = readme.find("```ron\n").expect("README has a ron example") + 7;
        let end = start + readme[start..].find("```").unwrap();
        let scene = super::parse(&readme[start..end]).unwrap();
        let (level, _) = super::compile_scene(&scene, &Default::default()).unwrap();
        assert!(!level.cells.is_empty());
    }
}
