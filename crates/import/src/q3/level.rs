//! A Quake 3 map onto the [`Level`] model.
//!
//! - Cells are the world tree's leaves with a cluster (`tree`); portals are generated from the
//!   node planes as for Quake 1 (`crate::portalize`); the clusters' visibility becomes the
//!   cells' `pvs`.
//! - Every drawn surface of the file becomes one level surface: polygons and triangle soups as
//!   their triangles, patches tessellated (`patch::tessellate`) in as few steps as keep them
//!   within `PATCH_TOLERANCE` of their curves, the same for every patch of a group that shares
//!   a border point, so that neighbours share their borders' vertices (`patch::group_steps`).
//!   Quake 3 winds triangles clockwise seen from the front; they are turned to the level's
//!   counter-clockwise. Flares, `nodraw`, fog
//!   volumes' sides and shaders that only tint what is behind them are left out; a picture
//!   blended by its alpha is drawn as a fence (alpha-tested), one added over what is behind it
//!   as a glow.
//! - Lightmap pages go into the atlas whole; a vertex-lit surface gets a block of luxels that
//!   holds its vertices' colours interpolated (`vertex_light`). Quake 3 scales its maps' light by 4 (`mapOverBrightBits` 2 on a
//!   window without hardware gamma), clamped keeping the colour; the level's light is drawn ×2,
//!   so luxels are stored at half that.
//! - A material is the picture of its shader (`materials`): the script's base image
//!   (`shaders`) or the texture of the shader's own name, `.tga`, `.jpg` or `.png`, from the
//!   game's files.

use glam::{Vec2, Vec3};

use lanthorn_geom::{Aabb, DPlane, DPolygon, Plane};
use lanthorn_level::{
    surface_flags, Cell, Entity, Level, LightStyles, Object, Portal, Pvs, Surface, Vertex,
};
use lanthorn_light::atlas::{self, LuxelBlock};

use super::materials::{materials, read_scripts, GameFiles, Materials};
use super::shaders::Lighting;
use super::sky::sky;
use super::{light_grid, patch, tree, vertex_light, Ibsp, Q3Error, SurfaceType, LIGHTMAP_BYTES};

/// The most steps a patch piece is cut into along each side.
pub const PATCH_STEPS: u32 = 8;
/// How far a tessellated patch may stray from its curve (units): finer than the game's
/// `r_subdivisions` 4.
pub const PATCH_TOLERANCE: f32 = 1.0;
/// What the import made of the file's surfaces and materials.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Q3Report {
    /// The file's surfaces.
    pub surfaces: usize,
    /// Those drawn (the level's surfaces).
    pub drawn: usize,
    /// Patches among the drawn.
    pub patches: usize,
    /// Flares, `nodraw`, fog-volume and tinting (`Coverage::Tints`) surfaces, left out.
    pub left_out: usize,
    /// Materials, and the shader scripts among them.
    pub materials: usize,
    /// Materials a shader script describes.
    pub scripted: usize,
    /// Materials whose picture was not found (drawn as a flat grey).
    pub missing: Vec<String>,
    /// Drawn surfaces whose shader the level draws as the game does (no script, or one whose
    /// stages are the lightmap and plain textures: `ShaderScript::drawn_as_one_texture`);
    /// the rest fall back to their base image.
    pub faithful: usize,
    /// Of the rest, how many fall back for each first thing not drawn
    /// (`ShaderScript::fallback`: `tcMod rotate`, `animmap`, `blendFunc gl_one gl_one`, …).
    pub fallbacks: std::collections::BTreeMap<String, usize>,
    /// Level surface → the file's surface.
    pub file_surface: Vec<u32>,
    /// Why the level has no light grid for moving objects (`None`: it has the map's).
    pub no_light_grid: Option<String>,
}

impl Q3Report {
    /// A drawn surface whose shader falls back for `fallback` (`None`: drawn as the game does).
    fn count_drawn(&mut self, fallback: &Option<String>) {
        match fallback {
            None => self.faithful += 1,
            Some(why) => *self.fallbacks.entry(why.clone()).or_default() += 1,
        }
    }
}

/// Builds the level of a read map; `files` gives its textures and shader scripts.
pub fn to_level(
    map: &Ibsp,
    file: &str,
    files: &dyn GameFiles,
) -> Result<(Level, Q3Report), Q3Error> {
    let tree = tree::build(map, file)?;
    let scripts = read_scripts(files);
    let mut report = Q3Report {
        surfaces: map.surfaces.len(),
        ..Default::default()
    };
    let materials = materials(map, &scripts, files);
    report.scripted = materials.scripted;
    report.missing.clone_from(&materials.missing);
    report.materials = materials.shaders;
    let (mut surfaces, level_surface, lightmaps) = surfaces(map, &materials, file, &mut report)?;
    let mut cells = tree.cells;
    for (cell, &leaf) in cells.iter_mut().zip(&tree.cell_leaf) {
        let leaf = &map.leaves[leaf as usize];
        let listed = &map.leaf_surfaces[leaf.surfaces.start as usize..leaf.surfaces.end as usize];
        cell.surfaces = listed
            .iter()
            .filter_map(|&s| level_surface[s as usize])
            .collect();
        cell.surfaces.sort_unstable();
        cell.surfaces.dedup();
    }
    mark_detail(&mut surfaces, &cells);
    let half_size = world_half_size(map);
    let mut portals =
        crate::portalize::generate(&tree.bsp, &tree.leaf_cell, &tree.parent, half_size);
    bound_by_the_world_box(map, &mut cells, &mut portals);
    for (i, p) in portals.iter().enumerate() {
        cells[p.front as usize].portals.push(i as u32);
        cells[p.back as usize].portals.push(i as u32);
    }
    let entities = crate::q1::entities::parse_text(&map.entities).map_err(|(line, problem)| {
        Q3Error::Record {
            file: file.into(),
            lump: "entities",
            index: line,
            problem: format!("(line {line}) {problem}"),
        }
    })?;
    let mut objects = objects(map, &level_surface, &surfaces, &entities);
    doors_close_area_portals(map, (&cells, &tree.cell_leaf), &entities, &mut objects);
    let pvs = pvs(map, &tree.cell_leaf);
    let mut materials = materials;
    let sky = sky(map, &scripts, files, &mut materials.list);
    let worldspawn = entities.iter().find(|e| e.classname() == "worldspawn");
    let light_grid = light_grid::read(map, worldspawn)
        .map_err(|why| report.no_light_grid = Some(why))
        .ok();
    let level = Level {
        cells,
        portals,
        surfaces,
        bsp: tree.bsp,
        materials: materials.list,
        lightmaps,
        objects,
        entities,
        sky,
        terrain: None,
        pvs,
        light_grid,
        leak: None,
    };
    Ok((level, report))
}

/// Marks `DETAIL` the surfaces none of whose triangles lies on a bounding plane of a cell that
/// lists it: q3map2's detail brushes, patches and models, which stand inside cells and split
/// none (the near plane cutting one shows only what the portals already lead to).
fn mark_detail(surfaces: &mut [Surface], cells: &[Cell]) {
    let mut listed_by: Vec<Vec<u32>> = vec![Vec::new(); surfaces.len()];
    for (c, cell) in cells.iter().enumerate() {
        for &s in &cell.surfaces {
            listed_by[s as usize].push(c as u32);
        }
    }
    for (s, by) in surfaces.iter_mut().zip(&listed_by) {
        let on_a_boundary = s.indices.chunks_exact(3).any(|t| {
            let corners = [0, 1, 2].map(|k| s.vertices[t[k] as usize].position);
            by.iter().any(|&c| {
                let planes = &cells[c as usize].planes;
                planes
                    .iter()
                    .any(|p| corners.iter().all(|&v| p.distance(v).abs() < 0.1))
            })
        });
        if !on_a_boundary && !by.is_empty() {
            s.flags |= surface_flags::DETAIL;
        }
    }
}

/// Half the side of a cube around the world, for the portals' first polygons.
fn world_half_size(map: &Ibsp) -> f64 {
    let w = &map.models[0];
    let extent = w
        .mins
        .iter()
        .chain(&w.maxs)
        .fold(0.0f64, |a, &v| a.max((v as f64).abs()));
    if extent.is_finite() {
        (extent * 4.0 + 1024.0).clamp(8192.0, 1e6)
    } else {
        1e6
    }
}

/// q3map2 portalizes inside the tree's box (the root node's bounds), not inside node planes
/// alone: a leaf at the edge of a map that leaks (its outside not filled) is bounded by that
/// box. The cells that reach it get its planes, the portals are cut to it.
fn bound_by_the_world_box(map: &Ibsp, cells: &mut [Cell], portals: &mut Vec<Portal>) {
    let root = &map.nodes[0];
    let (lo, hi) = (
        Vec3::from(root.mins.map(|v| v as f32)),
        Vec3::from(root.maxs.map(|v| v as f32)),
    );
    if !(lo.is_finite() && hi.is_finite() && lo.cmplt(hi).all()) {
        return;
    }
    // Facing into the box.
    let sides: Vec<Plane> = (0..3)
        .flat_map(|k| {
            let axis = Vec3::AXES[k];
            [Plane::new(axis, lo[k]), Plane::new(-axis, -hi[k])]
        })
        .collect();
    for cell in cells.iter_mut() {
        for side in &sides {
            let outer = Vec3::select(side.normal.cmpge(Vec3::ZERO), cell.aabb.min, cell.aabb.max);
            if side.distance(outer) < 0.0 {
                cell.planes.push(*side);
            }
        }
        cell.aabb = Aabb::new(cell.aabb.min.max(lo), cell.aabb.max.min(hi));
    }
    for p in portals.iter_mut() {
        let mut w = DPolygon::new(p.polygon.iter().map(|v| v.as_dvec3()).collect());
        for side in &sides {
            // Keep the inside: the back of the flipped plane.
            let out = DPlane::new(-side.normal.as_dvec3(), -(side.dist as f64));
            w = w.clip_back(&out, 1e-6);
        }
        p.polygon = w.points.iter().map(|v| v.as_vec3()).collect();
    }
    // A portal wholly outside the box joins nothing; cells list portals by index, so they are
    // renumbered after.
    let kept: Vec<bool> = portals.iter().map(|p| p.polygon.len() >= 3).collect();
    let mut new_index = Vec::with_capacity(portals.len());
    let mut next = 0u32;
    for &k in &kept {
        new_index.push(next);
        next += k as u32;
    }
    let mut i = 0;
    portals.retain(|_| {
        i += 1;
        kept[i - 1]
    });
    for cell in cells.iter_mut() {
        cell.portals.retain(|&p| kept[p as usize]);
        for p in &mut cell.portals {
            *p = new_index[*p as usize];
        }
    }
}

/// Per file surface, the steps its patch pieces are cut into (`patch::group_steps`; 0 for
/// what is no patch).
pub fn patch_steps(map: &Ibsp) -> Vec<u32> {
    let patches: Vec<usize> = (map.surfaces.iter().enumerate())
        .filter(|(_, s)| s.kind == SurfaceType::Patch)
        .map(|(i, _)| i)
        .collect();
    let grids: Vec<(&[super::Vertex], u32, u32)> = patches
        .iter()
        .map(|&i| {
            let s = &map.surfaces[i];
            let control = &map.vertices[s.vertices.start as usize..s.vertices.end as usize];
            (control, s.patch[0], s.patch[1])
        })
        .collect();
    let mut steps = vec![0; map.surfaces.len()];
    for (&i, n) in patches
        .iter()
        .zip(patch::group_steps(&grids, PATCH_STEPS, PATCH_TOLERANCE))
    {
        steps[i] = n;
    }
    steps
}

/// Where a surface's light comes from: none (fullbright), its lightmap page, or a block made
/// from its vertices' colours.
fn light_of(
    s: &super::Surface,
    flags: u32,
    materials: &Materials,
    (vertices, indices, steps): (&[super::Vertex], &[u32], u32),
) -> Option<Result<usize, vertex_light::LightBlock>> {
    let lighting = materials.lighting[s.shader as usize];
    match s.lightmap {
        _ if flags & surface_flags::SKY != 0 || lighting == Lighting::Fullbright => None,
        l if l >= 0 && lighting == Lighting::Lightmap => Some(Ok(l as usize)),
        _ => Some(Err(match s.kind {
            SurfaceType::Patch => {
                let columns = (s.patch[0] - 1) / 2 * steps + 1;
                vertex_light::of_grid(vertices, columns, overbright)
            }
            _ => vertex_light::projected(vertices, indices, overbright),
        })),
    }
}

/// The level's surfaces, each file surface's level surface (`None`: not drawn), and the atlas.
#[allow(clippy::type_complexity)]
fn surfaces(
    map: &Ibsp,
    materials: &Materials,
    file: &str,
    report: &mut Q3Report,
) -> Result<(Vec<Surface>, Vec<Option<u32>>, lanthorn_level::Lightmaps), Q3Error> {
    let mut out = Vec::new();
    let mut level_surface = vec![None; map.surfaces.len()];
    // Lightmap blocks: the pages, then a block per vertex-lit surface.
    let mut page_blocks: Vec<(u32, u32, Vec<u8>)> = map
        .lightmaps
        .chunks_exact(LIGHTMAP_BYTES)
        .map(|p| (128, 128, p.chunks_exact(3).flat_map(overbright).collect()))
        .collect();
    let mut block_of: Vec<Option<(usize, Option<[u32; 4]>)>> = Vec::new();
    let steps = patch_steps(map);
    for (i, s) in map.surfaces.iter().enumerate() {
        let flags = materials.flags[s.shader as usize];
        let (Some(flags), false) = (flags, s.kind == SurfaceType::Flare) else {
            report.left_out += 1;
            continue;
        };
        let control = &map.vertices[s.vertices.start as usize..s.vertices.end as usize];
        let (vertices, indices) = match s.kind {
            SurfaceType::Patch => {
                report.patches += 1;
                patch::tessellate(control, s.patch[0], s.patch[1], steps[i])
            }
            _ => (
                control.to_vec(),
                map.indices[s.indices.start as usize..s.indices.end as usize].to_vec(),
            ),
        };
        if indices.is_empty() {
            report.left_out += 1;
            continue;
        }
        // Lightmap coordinates: on the page, or on the vertex-light block.
        let tessellated = (&vertices[..], &indices[..], steps[i]);
        let (block, vertex_uv) = match light_of(s, flags, materials, tessellated) {
            None => (None, None),
            Some(Ok(page)) => (Some(page), None),
            Some(Err(b)) => {
                page_blocks.push((b.width, b.height, b.rgb));
                (Some(page_blocks.len() - 1), Some(b.uv))
            }
        };
        // On a page, the surface's own rectangle of it (the surface cache bakes that much).
        let sub = match (&vertex_uv, block) {
            (None, Some(_)) => page_rect(s.lightmap_rect),
            _ => None,
        };
        let luxels = |k: usize, st: [f32; 2]| match (&vertex_uv, block) {
            (Some(uv), _) => uv[k],
            (None, Some(_)) => {
                Vec2::from(st) * 128.0
                    - sub.map_or(Vec2::ZERO, |r| Vec2::new(r[0] as f32, r[1] as f32))
            }
            (None, None) => Vec2::splat(0.5),
        };
        let positions: Vec<Vec3> = vertices.iter().map(|v| Vec3::from(v.position)).collect();
        let normal = match s.kind {
            SurfaceType::Planar => plane_normal(Vec3::from(s.normal), &positions, &indices),
            _ => Vec3::ZERO,
        };
        level_surface[i] = Some(out.len() as u32);
        report.file_surface.push(i as u32);
        report.count_drawn(&materials.fallback[s.shader as usize]);
        block_of.push(block.map(|b| (b, sub)));
        out.push(Surface {
            vertices: vertices
                .iter()
                .enumerate()
                .map(|(k, v)| Vertex {
                    position: Vec3::from(v.position),
                    uv: Vec2::from(v.st),
                    lightmap_uv: luxels(k, v.lightmap_st),
                })
                .collect(),
            // Clockwise in the file, counter-clockwise in the level.
            indices: indices
                .chunks_exact(3)
                .flat_map(|t| [t[0], t[2], t[1]])
                .collect(),
            normal,
            material: s.shader,
            lightmap: None,
            styles: LightStyles::default(),
            flags,
        });
    }
    report.drawn = out.len();
    let blocks: Vec<LuxelBlock> = page_blocks
        .iter()
        .map(|(width, height, rgb)| LuxelBlock {
            width: *width,
            height: *height,
            rgb,
        })
        .collect();
    let (lightmaps, rects) = atlas::pack(&blocks).map_err(|error| Q3Error::Record {
        file: file.into(),
        lump: "lightmaps",
        index: 0,
        problem: format!("do not pack into an atlas: {error}"),
    })?;
    for (s, b) in out.iter_mut().zip(block_of) {
        s.lightmap = b.map(|(b, sub)| on_page(rects[b], sub));
    }
    Ok((out, level_surface, lightmaps))
}

/// Units off its plane a vertex of a flat surface may lie.
const FLAT: f32 = 0.05;

/// The normal of a surface the file calls planar, when it is flat and its (clockwise)
/// triangles face along it; else zero (no plane: drawn from either side of where it lies).
/// q3map2 merges brush faces into "meta" surfaces and calls some planar that are not: their
/// stored normal is only their lightmap's projection axis.
fn plane_normal(stored: Vec3, positions: &[Vec3], indices: &[u32]) -> Vec3 {
    let n = stored.normalize_or_zero();
    let Some(&origin) = positions.first() else {
        return Vec3::ZERO;
    };
    let flat = positions.iter().all(|&p| n.dot(p - origin).abs() < FLAT);
    let along = indices.chunks_exact(3).all(|t| {
        let [a, b, c] = [0, 1, 2].map(|k| positions[t[k] as usize]);
        // Clockwise seen from the front: (c − a) × (b − a) points to the front.
        let m = (c - a).cross(b - a);
        m.length() < 1e-3 || m.dot(n) > 0.0
    });
    match flat && along && n != Vec3::ZERO {
        true => n,
        false => Vec3::ZERO,
    }
}

/// The atlas rectangle of a surface: its own part of its block's rectangle, or all of it.
fn on_page(
    block: lanthorn_level::LightmapRect,
    sub: Option<[u32; 4]>,
) -> lanthorn_level::LightmapRect {
    match sub {
        Some([x, y, width, height]) => lanthorn_level::LightmapRect {
            x: block.x + x,
            y: block.y + y,
            width,
            height,
        },
        None => block,
    }
}

/// A surface's rectangle on its lightmap page (x, y, width, height), when it lies on the page.
fn page_rect([x, y, w, h]: [i32; 4]) -> Option<[u32; 4]> {
    let fits = x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= 128 && y + h <= 128;
    fits.then(|| [x as u32, y as u32, w as u32, h as u32])
}

/// A luxel as the level stores it: Quake 3's ×4, clamped keeping the colour, halved.
fn overbright(rgb: &[u8]) -> [u8; 3] {
    let c = [rgb[0], rgb[1], rgb[2]].map(|v| v as u32 * 4);
    let max = c.into_iter().max().unwrap_or(0);
    let scaled = match max > 255 {
        true => c.map(|v| v * 255 / max),
        false => c,
    };
    scaled.map(|v| (v / 2) as u8)
}

/// Brush models 1..N as objects (their surfaces, bounded by their vertices).
fn objects(
    map: &Ibsp,
    level_surface: &[Option<u32>],
    surfaces: &[Surface],
    entities: &[Entity],
) -> Vec<Object> {
    let entity_of = |name: &str| entities.iter().position(|e| e.get("model") == Some(name));
    map.models
        .iter()
        .enumerate()
        .skip(1)
        .map(|(i, m)| {
            let name = format!("*{i}");
            let ids: Vec<u32> = (m.surfaces.clone())
                .filter_map(|s| level_surface[s as usize])
                .collect();
            let mut bounds = Aabb::new(Vec3::from(m.mins), Vec3::from(m.maxs));
            for &s in &ids {
                for v in &surfaces[s as usize].vertices {
                    bounds.add_point(v.position);
                }
            }
            Object {
                surfaces: ids,
                bounds,
                origin: Vec3::ZERO,
                entity: entity_of(&name).map(|e| e as u32),
                name,
                ..Default::default()
            }
        })
        .filter(|o| !o.surfaces.is_empty())
        .collect()
}

/// A door shuts the area portal it stands in: Quake 3 separates the areas a door joins by an
/// area-portal brush inside the door, and the engine draws nothing past it while the door is
/// shut. The brush's leaves keep a cluster but belong to no area (−1); each `func_door` closes
/// every portal of those cells its box meets, so the flow stops there as at the keep's doors.
fn doors_close_area_portals(
    map: &Ibsp,
    (cells, cell_leaf): (&[Cell], &[u32]),
    entities: &[Entity],
    objects: &mut [Object],
) {
    let in_area_portal: Vec<&Cell> = (cells.iter().zip(cell_leaf))
        .filter(|(_, &leaf)| map.leaves[leaf as usize].area < 0)
        .map(|(c, _)| c)
        .collect();
    if in_area_portal.is_empty() {
        return;
    }
    for o in objects.iter_mut() {
        let entity = o.entity.and_then(|e| entities.get(e as usize));
        if entity.is_none_or(|e| e.classname() != "func_door") {
            continue;
        }
        for c in in_area_portal
            .iter()
            .filter(|c| c.aabb.intersects(&o.bounds))
        {
            o.closes.extend_from_slice(&c.portals);
        }
        o.closes.sort_unstable();
        o.closes.dedup();
    }
}

/// Most cells whose pairwise visibility is kept (a row of bits each).
const MAX_PVS_CELLS: usize = 1 << 16;

/// The clusters' visibility by cell: cell `a` sees cell `b` when `a`'s cluster sees `b`'s.
fn pvs(map: &Ibsp, cell_leaf: &[u32]) -> Option<Pvs> {
    let vis = map.visibility.as_ref()?;
    let n = cell_leaf.len();
    if n > MAX_PVS_CELLS {
        return None;
    }
    let cluster: Vec<usize> = cell_leaf
        .iter()
        .map(|&l| map.leaves[l as usize].cluster as usize)
        .collect();
    let row_bytes = n.div_ceil(8);
    let mut rows = vec![0u8; n * row_bytes];
    let vis_row = vis.row_bytes as usize;
    for (a, &ca) in cluster.iter().enumerate() {
        let from = &vis.bits[ca * vis_row..(ca + 1) * vis_row];
        let row = &mut rows[a * row_bytes..(a + 1) * row_bytes];
        for (b, &cb) in cluster.iter().enumerate() {
            if from[cb >> 3] & (1 << (cb & 7)) != 0 {
                row[b >> 3] |= 1 << (b & 7);
            }
        }
    }
    Some(Pvs { row_bytes, rows })
}

#[cfg(test)]
#[path = "level_tests.rs"]
mod tests;
