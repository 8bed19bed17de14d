//! Each section of `Level` in the file: its writer and its reader side by side, in file order.

use super::codec::{Res, R, W};
use super::LvlError;
use crate::{
    Bsp, BspLeaf, BspNode, Cell, Entity, GridSun, LeakPath, LightGrid, LightStyles, LightmapRect,
    Lightmaps, Material, Medium, Motion, Object, Portal, Pvs, Sky, Surface, TerrainRef, Vertex,
};
use lanthorn_geom::sh::Sh9;

pub(super) fn write_cells(w: &mut W, cells: &[Cell]) {
    w.len(cells.len());
    for c in cells {
        w.len(c.planes.len());
        for p in &c.planes {
            w.plane(p);
        }
        w.aabb(&c.aabb);
        w.u8(c.medium as u8);
        w.u32(c.flags);
        w.u32s(&c.portals);
        w.u32s(&c.surfaces);
    }
}

pub(super) fn read_cells(r: &mut R) -> Res<Vec<Cell>> {
    let n = r.count(4 * 6 + 1 + 4 + 12, "cells")?;
    let mut cells = Vec::new();
    for _ in 0..n {
        let np = r.count(16, "cell planes")?;
        let planes = (0..np)
            .map(|_| r.plane("cell plane"))
            .collect::<Res<Vec<_>>>()?;
        let aabb = r.aabb("cell box")?;
        let m = r.u8("cell medium")?;
        let medium = Medium::from_u8(m)
            .ok_or_else(|| LvlError::Invalid(format!("cell medium {m} is unknown")))?;
        let flags = r.u32("cell flags")?;
        let portals = r.u32s("cell portals")?;
        let surfaces = r.u32s("cell surfaces")?;
        cells.push(Cell {
            planes,
            aabb,
            medium,
            flags,
            portals,
            surfaces,
        });
    }
    Ok(cells)
}

pub(super) fn write_portals(w: &mut W, portals: &[Portal]) {
    w.len(portals.len());
    for p in portals {
        w.len(p.polygon.len());
        for &v in &p.polygon {
            w.vec3(v);
        }
        w.plane(&p.plane);
        w.u32(p.front);
        w.u32(p.back);
        match &p.transform {
            None => w.u8(0),
            Some(m) => {
                w.u8(1);
                for &x in m {
                    w.f32(x);
                }
            }
        }
        w.u32(p.flags);
    }
}

pub(super) fn read_portals(r: &mut R) -> Res<Vec<Portal>> {
    let n = r.count(4 + 16 + 8 + 1 + 4, "portals")?;
    let mut portals = Vec::new();
    for _ in 0..n {
        let nv = r.count(12, "portal polygon")?;
        let polygon = (0..nv)
            .map(|_| r.vec3("portal vertex"))
            .collect::<Res<Vec<_>>>()?;
        let plane = r.plane("portal plane")?;
        let front = r.u32("portal front")?;
        let back = r.u32("portal back")?;
        let transform = if r.flag("portal transform")? {
            let mut m = [0f32; 16];
            for x in &mut m {
                *x = r.f32("portal transform")?;
            }
            Some(m)
        } else {
            None
        };
        let flags = r.u32("portal flags")?;
        portals.push(Portal {
            polygon,
            plane,
            front,
            back,
            transform,
            flags,
        });
    }
    Ok(portals)
}

pub(super) fn write_surfaces(w: &mut W, surfaces: &[Surface], version: u32) {
    w.len(surfaces.len());
    for s in surfaces {
        w.len(s.vertices.len());
        for v in &s.vertices {
            w.vec3(v.position);
            w.vec2(v.uv);
            w.vec2(v.lightmap_uv);
        }
        w.u32s(&s.indices);
        w.vec3(s.normal);
        w.u32(s.material);
        match s.lightmap {
            None => w.u8(0),
            Some(r) => {
                w.u8(1);
                w.u32(r.x);
                w.u32(r.y);
                w.u32(r.width);
                w.u32(r.height);
            }
        }
        if version >= 2 {
            w.0.extend_from_slice(&s.styles.0);
        }
        w.u32(s.flags);
    }
}

pub(super) fn read_surfaces(r: &mut R) -> Res<Vec<Surface>> {
    let n = r.count(4 + 4 + 12 + 4 + 1 + 4 + 4, "surfaces")?;
    let mut surfaces = Vec::new();
    for _ in 0..n {
        let nv = r.count(28, "surface vertices")?;
        let mut vertices = Vec::with_capacity(nv);
        for _ in 0..nv {
            vertices.push(Vertex {
                position: r.vec3("vertex position")?,
                uv: r.vec2("vertex uv")?,
                lightmap_uv: r.vec2("vertex lightmap uv")?,
            });
        }
        let indices = r.u32s("surface indices")?;
        let normal = r.vec3("surface normal")?;
        let material = r.u32("surface material")?;
        let lightmap = if r.flag("surface lightmap")? {
            Some(LightmapRect {
                x: r.u32("lightmap rect")?,
                y: r.u32("lightmap rect")?,
                width: r.u32("lightmap rect")?,
                height: r.u32("lightmap rect")?,
            })
        } else {
            None
        };
        let styles = if r.version >= 2 {
            let b = r.take(4, "surface light styles")?;
            LightStyles([b[0], b[1], b[2], b[3]])
        } else {
            LightStyles::default()
        };
        let flags = r.u32("surface flags")?;
        surfaces.push(Surface {
            vertices,
            indices,
            normal,
            material,
            lightmap,
            styles,
            flags,
        });
    }
    Ok(surfaces)
}

pub(super) fn write_bsp(w: &mut W, bsp: &Bsp) {
    w.len(bsp.nodes.len());
    for n in &bsp.nodes {
        w.plane(&n.plane);
        w.child(n.children[0]);
        w.child(n.children[1]);
        w.aabb(&n.aabb);
    }
    w.len(bsp.leaves.len());
    for l in &bsp.leaves {
        w.u32s(&l.cells);
    }
    match bsp.root {
        None => w.u8(0),
        Some(c) => {
            w.u8(1);
            w.child(c);
        }
    }
}

pub(super) fn read_bsp(r: &mut R) -> Res<Bsp> {
    let mut bsp = Bsp::default();
    let n = r.count(16 + 10 + 24, "BSP nodes")?;
    for _ in 0..n {
        let plane = r.plane("BSP node plane")?;
        let children = [r.child("BSP node child")?, r.child("BSP node child")?];
        let aabb = r.aabb("BSP node box")?;
        bsp.nodes.push(BspNode {
            plane,
            children,
            aabb,
        });
    }
    let n = r.count(4, "BSP leaves")?;
    for _ in 0..n {
        bsp.leaves.push(BspLeaf {
            cells: r.u32s("BSP leaf cells")?,
        });
    }
    bsp.root = if r.flag("BSP root")? {
        Some(r.child("BSP root")?)
    } else {
        None
    };
    Ok(bsp)
}

pub(super) fn write_materials(w: &mut W, materials: &[Material], version: u32) {
    w.len(materials.len());
    for m in materials {
        w.str(&m.name);
        w.u32(m.width);
        w.u32(m.height);
        w.opt_bytes(&m.texels);
        w.opt_bytes(&m.fullbright);
        for &c in &m.color {
            w.f32(c);
        }
        w.u32(m.flags);
        if version >= 5 {
            w.opt_bytes(&m.normal);
            w.opt_bytes(&m.specular);
        }
    }
}

pub(super) fn read_materials(r: &mut R) -> Res<Vec<Material>> {
    let n = r.count(4 + 8 + 2 + 12 + 4, "materials")?;
    let mut materials = Vec::new();
    for _ in 0..n {
        let name = r.str("material name")?;
        let width = r.u32("material width")?;
        let height = r.u32("material height")?;
        let texels = r.opt_bytes("material texels")?;
        let fullbright = r.opt_bytes("material fullbright mask")?;
        let color = [
            r.f32("material colour")?,
            r.f32("material colour")?,
            r.f32("material colour")?,
        ];
        let flags = r.u32("material flags")?;
        let (normal, specular) = if r.version >= 5 {
            (
                r.opt_bytes("material normal map")?,
                r.opt_bytes("material specular map")?,
            )
        } else {
            (None, None)
        };
        materials.push(Material {
            name,
            width,
            height,
            texels,
            fullbright,
            color,
            flags,
            normal,
            specular,
            // Only Quake 3's materials scroll, and those are never written to `.lvl`.
            scroll: [0.0; 2],
            animation: None,
        });
    }
    Ok(materials)
}

pub(super) fn write_lightmaps(w: &mut W, lightmaps: &Lightmaps) {
    w.u32(lightmaps.width);
    w.u32(lightmaps.height);
    w.bytes(&lightmaps.texels);
}

pub(super) fn read_lightmaps(r: &mut R) -> Res<Lightmaps> {
    let width = r.u32("lightmap atlas width")?;
    let height = r.u32("lightmap atlas height")?;
    let texels = r.bytes("lightmap atlas texels")?;
    Ok(Lightmaps {
        width,
        height,
        texels,
    })
}

pub(super) fn write_objects(w: &mut W, objects: &[Object], version: u32) {
    w.len(objects.len());
    for o in objects {
        w.str(&o.name);
        w.u32s(&o.surfaces);
        w.aabb(&o.bounds);
        w.vec3(o.origin);
        match o.entity {
            None => w.u8(0),
            Some(e) => {
                w.u8(1);
                w.u32(e);
            }
        }
        if version >= 3 {
            write_motion(w, o.motion.as_ref());
            w.u32s(&o.closes);
        }
    }
}

pub(super) fn read_objects(r: &mut R) -> Res<Vec<Object>> {
    let n = r.count(4 + 4 + 24 + 12 + 1, "objects")?;
    let mut objects = Vec::new();
    for _ in 0..n {
        let name = r.str("object name")?;
        let surfaces = r.u32s("object surfaces")?;
        let bounds = r.aabb("object bounds")?;
        let origin = r.vec3("object origin")?;
        let entity = if r.flag("object entity")? {
            Some(r.u32("object entity")?)
        } else {
            None
        };
        let (motion, closes) = if r.version >= 3 {
            (read_motion(r)?, r.u32s("object closes")?)
        } else {
            (None, Vec::new())
        };
        objects.push(Object {
            name,
            surfaces,
            bounds,
            origin,
            entity,
            motion,
            closes,
        });
    }
    Ok(objects)
}

/// Version 3: an object's motion (flag, points, speed, wait, phase).
pub(super) fn write_motion(w: &mut W, motion: Option<&Motion>) {
    let Some(m) = motion else {
        w.u8(0);
        return;
    };
    w.u8(1);
    w.len(m.points.len());
    for &p in &m.points {
        w.vec3(p);
    }
    w.f32(m.speed);
    w.f32(m.wait);
    w.f32(m.phase);
}

pub(super) fn read_motion(r: &mut R) -> Res<Option<Motion>> {
    if !r.flag("object motion")? {
        return Ok(None);
    }
    let n = r.count(12, "object motion points")?;
    if n > crate::motion::MAX_PATH_POINTS {
        return Err(LvlError::Invalid(format!(
            "object motion: {n} points (at most {})",
            crate::motion::MAX_PATH_POINTS
        )));
    }
    let mut points = Vec::with_capacity(n);
    for _ in 0..n {
        points.push(r.vec3("object motion point")?);
    }
    Ok(Some(Motion {
        points,
        speed: r.f32("object motion speed")?,
        wait: r.f32("object motion wait")?,
        phase: r.f32("object motion phase")?,
    }))
}

pub(super) fn write_entities(w: &mut W, entities: &[Entity]) {
    w.len(entities.len());
    for e in entities {
        w.len(e.pairs.len());
        for (k, v) in &e.pairs {
            w.str(k);
            w.str(v);
        }
    }
}

pub(super) fn read_entities(r: &mut R) -> Res<Vec<Entity>> {
    let n = r.count(4, "entities")?;
    let mut entities = Vec::new();
    for _ in 0..n {
        let np = r.count(8, "entity pairs")?;
        let mut pairs = Vec::with_capacity(np);
        for _ in 0..np {
            pairs.push((r.str("entity key")?, r.str("entity value")?));
        }
        entities.push(Entity { pairs });
    }
    Ok(entities)
}

pub(super) fn write_sky(w: &mut W, sky: Option<&Sky>) {
    match sky {
        None => w.u8(0),
        Some(s) => {
            w.u8(1);
            match s.material {
                None => w.u8(0),
                Some(m) => {
                    w.u8(1);
                    w.u32(m);
                }
            }
            match &s.cubemap {
                None => w.u8(0),
                Some(c) => {
                    w.u8(1);
                    w.str(c);
                }
            }
        }
    }
}

pub(super) fn read_sky(r: &mut R) -> Res<Option<Sky>> {
    if !r.flag("sky")? {
        return Ok(None);
    }
    let material = if r.flag("sky material")? {
        Some(r.u32("sky material")?)
    } else {
        None
    };
    let cubemap = if r.flag("sky cubemap")? {
        Some(r.str("sky cubemap")?)
    } else {
        None
    };
    Ok(Some(Sky {
        material,
        cubemap,
        faces: None,
        clouds: None,
    }))
}

pub(super) fn write_terrain(w: &mut W, terrain: Option<&TerrainRef>) {
    match terrain {
        None => w.u8(0),
        Some(t) => {
            w.u8(1);
            w.str(&t.heightmap);
            w.vec3(t.origin);
            w.f32(t.horizontal_scale);
            w.f32(t.vertical_scale);
        }
    }
}

pub(super) fn read_terrain(r: &mut R) -> Res<Option<TerrainRef>> {
    if !r.flag("terrain")? {
        return Ok(None);
    }
    Ok(Some(TerrainRef {
        heightmap: r.str("terrain heightmap")?,
        origin: r.vec3("terrain origin")?,
        horizontal_scale: r.f32("terrain scale")?,
        vertical_scale: r.f32("terrain scale")?,
    }))
}

pub(super) fn write_pvs(w: &mut W, pvs: Option<&Pvs>) {
    match pvs {
        None => w.u8(0),
        Some(p) => {
            w.u8(1);
            w.u64(p.row_bytes as u64);
            w.bytes(&p.rows);
        }
    }
}

pub(super) fn read_pvs(r: &mut R) -> Res<Option<Pvs>> {
    if !r.flag("pvs")? {
        return Ok(None);
    }
    let row_bytes = r.u64("pvs row size")?;
    let row_bytes = usize::try_from(row_bytes)
        .ok()
        .filter(|&b| b <= r.b.len())
        .ok_or_else(|| {
            LvlError::Invalid(format!("pvs row size {row_bytes} is larger than the file"))
        })?;
    Ok(Some(Pvs {
        row_bytes,
        rows: r.bytes("pvs rows")?,
    }))
}

/// The leak section: only written when there is a leak (see the module comment).
/// Version 4 on: the light grid (a flag, then its box, its minimum light and daylight style,
/// its points' styles and their slots' coefficients, its sun and the sun's reach per point);
/// older files have none.
pub(super) fn write_light_grid(w: &mut W, grid: Option<&LightGrid>, version: u32) {
    if version < 4 {
        return;
    }
    let Some(g) = grid else {
        w.u8(0);
        return;
    };
    w.u8(1);
    w.vec3(g.origin);
    w.vec3(g.spacing);
    for n in g.size {
        w.u32(n);
    }
    w.f32(g.minlight);
    w.u8(g.sun_style);
    w.len(g.styles.len());
    for s in &g.styles {
        w.u32(s.packed());
    }
    w.len(g.slots.len());
    for slot in &g.slots {
        for f in slot.to_floats() {
            // Halves since version 5 (half the bytes; light to 0.05 %).
            if version >= 5 {
                w.f16(f);
            } else {
                w.f32(f);
            }
        }
    }
    match &g.sun {
        None => w.u8(0),
        Some(sun) => {
            w.u8(1);
            w.vec3(sun.direction);
            w.vec3(sun.rgb);
        }
    }
    w.bytes(&g.sun_visible);
}

pub(super) fn read_light_grid(r: &mut R) -> Res<Option<LightGrid>> {
    if r.version < 4 || !r.flag("light grid flag")? {
        return Ok(None);
    }
    let origin = r.vec3("light grid origin")?;
    let spacing = r.vec3("light grid spacing")?;
    let mut size = [0u32; 3];
    for n in &mut size {
        *n = r.u32("light grid size")?;
    }
    let minlight = r.f32("light grid minimum light")?;
    let sun_style = r.u8("light grid daylight style")?;
    let n = r.count(4, "light grid points")?;
    let styles = (0..n)
        .map(|_| Ok(LightStyles(r.u32("light grid point styles")?.to_le_bytes())))
        .collect::<Res<Vec<_>>>()?;
    let half = r.version >= 5;
    let n = r.count(27 * if half { 2 } else { 4 }, "light grid slots")?;
    let mut slots = Vec::new();
    for _ in 0..n {
        let mut f = [0f32; 27];
        for x in &mut f {
            *x = if half {
                r.f16("light grid coefficient")?
            } else {
                r.f32("light grid coefficient")?
            };
        }
        slots.push(Sh9::from_floats(&f));
    }
    let sun = match r.flag("light grid sun flag")? {
        false => None,
        true => Some(GridSun {
            direction: r.vec3("light grid sun direction")?,
            rgb: r.vec3("light grid sun colour")?,
        }),
    };
    let sun_visible = r.bytes("light grid sun samples")?;
    let grid = LightGrid {
        origin,
        spacing,
        size,
        minlight,
        sun_style,
        first: LightGrid::firsts(&styles),
        styles,
        slots,
        sun,
        sun_visible,
    };
    grid.check().map_err(LvlError::Invalid)?;
    Ok(Some(grid))
}

pub(super) fn write_leak(w: &mut W, leak: Option<&LeakPath>) {
    let Some(leak) = leak else { return };
    w.str(&leak.entity);
    w.u32(leak.line);
    w.len(leak.points.len());
    for &p in &leak.points {
        w.vec3(p);
    }
    w.len(leak.crossings.len());
    for c in &leak.crossings {
        w.str(c);
    }
}

pub(super) fn read_leak(r: &mut R) -> Res<Option<LeakPath>> {
    if r.pos == r.b.len() {
        return Ok(None);
    }
    let entity = r.str("leak entity")?;
    let line = r.u32("leak line")?;
    let n = r.count(12, "leak points")?;
    let points = (0..n)
        .map(|_| r.vec3("leak point"))
        .collect::<Res<Vec<_>>>()?;
    // The crossings came later: a leak section that ends after its points has none.
    let crossings = if r.pos == r.b.len() {
        Vec::new()
    } else {
        let n = r.count(4, "leak crossings")?;
        (0..n)
            .map(|_| r.str("leak crossing"))
            .collect::<Res<Vec<_>>>()?
    };
    Ok(Some(LeakPath {
        entity,
        line,
        points,
        crossings,
    }))
}
