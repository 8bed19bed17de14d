//! The `.lvl` file: a versioned little-endian binary of the whole `Level`.
//!
//! Layout: magic `LNTHLVL\0`, `u32` version, `u64` payload length, then the sections in the
//! order of `Level`'s fields. The last, the leak path, is optional: a level without one ends
//! after the PVS, as files written before it existed do, so they still load. Every vector is a `u32` count followed by its elements; every
//! `f32` is stored by its bits, so save → load → save is byte-identical. Loading checks the
//! magic, the version, every length against the bytes left, and every index (see
//! [`validate`]); a bad file gives an [`LvlError`], never a panic.

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3};

use super::*;
use crate::geom::{Aabb, Plane};

pub const MAGIC: &[u8; 8] = b"LNTHLVL\0";
/// Version 2 added the light style of each surface's lightmap slots and the atlas's layers
/// (one per slot); version 1 files still load (every lit surface style 0, one layer).
pub const VERSION: u32 = 3;
/// The oldest version this build reads.
pub const OLDEST_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum LvlError {
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// A content error of the file at `path` (what `from_bytes` found).
    #[error("{path}: {error}")]
    InFile { path: PathBuf, error: Box<LvlError> },
    #[error("not a Lanthorn level: bad magic (expected \"LNTHLVL\")")]
    BadMagic,
    #[error("unsupported .lvl version {found} (this build reads versions 1 to {expected}); recompile the level")]
    Version { found: u32, expected: u32 },
    #[error("truncated .lvl: {what} at byte {offset} needs {needed} bytes, only {left} left")]
    Truncated {
        what: &'static str,
        offset: usize,
        needed: usize,
        left: usize,
    },
    #[error("invalid .lvl: {0}")]
    Invalid(String),
}

// ---------------------------------------------------------------- writing

struct W(Vec<u8>);

impl W {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }
    fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).expect("level section longer than u32::MAX"));
    }
    fn vec2(&mut self, v: Vec2) {
        self.f32(v.x);
        self.f32(v.y);
    }
    fn vec3(&mut self, v: Vec3) {
        self.f32(v.x);
        self.f32(v.y);
        self.f32(v.z);
    }
    fn plane(&mut self, p: &Plane) {
        self.vec3(p.normal);
        self.f32(p.dist);
    }
    fn aabb(&mut self, b: &Aabb) {
        self.vec3(b.min);
        self.vec3(b.max);
    }
    fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.0.extend_from_slice(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    fn u32s(&mut self, v: &[u32]) {
        self.len(v.len());
        for &x in v {
            self.u32(x);
        }
    }
    fn opt_bytes(&mut self, b: &Option<Vec<u8>>) {
        match b {
            None => self.u8(0),
            Some(b) => {
                self.u8(1);
                self.bytes(b);
            }
        }
    }
    fn child(&mut self, c: BspChild) {
        match c {
            BspChild::Node(n) => {
                self.u8(0);
                self.u32(n);
            }
            BspChild::Leaf(l) => {
                self.u8(1);
                self.u32(l);
            }
        }
    }
}

/// The file image of a level (header included).
pub fn to_bytes(level: &Level) -> Vec<u8> {
    to_bytes_of_version(level, VERSION)
}

/// The file image in an older `version` (tests check that old files still load).
fn to_bytes_of_version(level: &Level, version: u32) -> Vec<u8> {
    with_header(&write_sections(level, &mut Vec::new(), version).0, version)
}

/// A section's name and its bytes in the file.
pub type SectionSpan = (&'static str, std::ops::Range<usize>);

/// Where each section lies in `to_bytes(level)`: its name and byte range (for tests that
/// damage every section of a file).
pub fn section_spans(level: &Level) -> Vec<SectionSpan> {
    let mut spans = Vec::new();
    write_sections(level, &mut spans, VERSION);
    spans
        .iter_mut()
        .for_each(|(_, r)| *r = r.start + 20..r.end + 20);
    spans
}

/// The payload: the sections in the order of `Level`'s fields, each span recorded.
fn write_sections(level: &Level, spans: &mut Vec<SectionSpan>, version: u32) -> W {
    let mut w = W(Vec::with_capacity(1 << 16));
    type Writer<'a> = &'a dyn Fn(&mut W);
    let sections: [(&'static str, Writer); 12] = [
        ("cells", &|w| write_cells(w, &level.cells)),
        ("portals", &|w| write_portals(w, &level.portals)),
        ("surfaces", &|w| write_surfaces(w, &level.surfaces, version)),
        ("bsp", &|w| write_bsp(w, &level.bsp)),
        ("materials", &|w| write_materials(w, &level.materials)),
        ("lightmaps", &|w| write_lightmaps(w, &level.lightmaps)),
        ("objects", &|w| write_objects(w, &level.objects, version)),
        ("entities", &|w| write_entities(w, &level.entities)),
        ("sky", &|w| write_sky(w, level.sky.as_ref())),
        ("terrain", &|w| write_terrain(w, level.terrain.as_ref())),
        ("pvs", &|w| write_pvs(w, level.pvs.as_ref())),
        ("leak", &|w| write_leak(w, level.leak.as_ref())),
    ];
    for (name, write) in sections {
        let start = w.0.len();
        write(&mut w);
        spans.push((name, start..w.0.len()));
    }
    w
}

/// Magic, version and payload length, then the payload.
fn with_header(payload: &[u8], version: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 20);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

fn write_cells(w: &mut W, cells: &[Cell]) {
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

fn write_portals(w: &mut W, portals: &[Portal]) {
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

fn write_surfaces(w: &mut W, surfaces: &[Surface], version: u32) {
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

fn write_bsp(w: &mut W, bsp: &Bsp) {
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

fn write_materials(w: &mut W, materials: &[Material]) {
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
    }
}

fn write_lightmaps(w: &mut W, lightmaps: &Lightmaps) {
    w.u32(lightmaps.width);
    w.u32(lightmaps.height);
    w.bytes(&lightmaps.texels);
}

fn write_objects(w: &mut W, objects: &[Object], version: u32) {
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

/// Version 3: an object's motion (flag, points, speed, wait, phase).
fn write_motion(w: &mut W, motion: Option<&Motion>) {
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

fn write_entities(w: &mut W, entities: &[Entity]) {
    w.len(entities.len());
    for e in entities {
        w.len(e.pairs.len());
        for (k, v) in &e.pairs {
            w.str(k);
            w.str(v);
        }
    }
}

fn write_sky(w: &mut W, sky: Option<&Sky>) {
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

fn write_terrain(w: &mut W, terrain: Option<&TerrainRef>) {
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

fn write_pvs(w: &mut W, pvs: Option<&Pvs>) {
    match pvs {
        None => w.u8(0),
        Some(p) => {
            w.u8(1);
            w.u64(p.row_bytes as u64);
            w.bytes(&p.rows);
        }
    }
}

/// Writes the level to `path` through a temporary file in the same folder and a rename, so a
/// failed save never leaves a half-written level behind.
pub fn save(level: &Level, path: &Path) -> Result<(), LvlError> {
    if let Err(e) = validate(level) {
        return Err(LvlError::Invalid(format!(
            "refusing to save an inconsistent level: {e}"
        )));
    }
    let bytes = to_bytes(level);
    crate::files::write_atomically(path, &bytes).map_err(|e| LvlError::Io {
        path: e.path,
        error: e.error,
    })
}

/// Reads and checks a `.lvl` file.
pub fn load_lvl(path: &Path) -> Result<Level, LvlError> {
    let bytes = std::fs::read(path).map_err(|error| LvlError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    from_bytes(&bytes).map_err(|error| LvlError::InFile {
        path: path.to_path_buf(),
        error: Box::new(error),
    })
}

// ---------------------------------------------------------------- reading

struct R<'a> {
    b: &'a [u8],
    pos: usize,
    /// The file's format version (what sections hold).
    version: u32,
}

type Res<T> = Result<T, LvlError>;

impl<'a> R<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Res<&'a [u8]> {
        let left = self.b.len() - self.pos;
        if n > left {
            return Err(LvlError::Truncated {
                what,
                offset: self.pos,
                needed: n,
                left,
            });
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self, what: &'static str) -> Res<u8> {
        Ok(self.take(1, what)?[0])
    }
    fn u32(&mut self, what: &'static str) -> Res<u32> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().unwrap()))
    }
    fn u64(&mut self, what: &'static str) -> Res<u64> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().unwrap()))
    }
    fn f32(&mut self, what: &'static str) -> Res<f32> {
        Ok(f32::from_bits(self.u32(what)?))
    }
    /// A count of elements that take at least `min_size` bytes each: checked against the bytes
    /// left before anything is allocated.
    fn count(&mut self, min_size: usize, what: &'static str) -> Res<usize> {
        let offset = self.pos;
        let n = self.u32(what)? as usize;
        let left = self.b.len() - self.pos;
        let needed = n.saturating_mul(min_size.max(1));
        if needed > left {
            return Err(LvlError::Truncated {
                what,
                offset,
                needed,
                left,
            });
        }
        Ok(n)
    }
    fn flag(&mut self, what: &'static str) -> Res<bool> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(LvlError::Invalid(format!(
                "{what}: option tag {v} at byte {} (expected 0 or 1)",
                self.pos - 1
            ))),
        }
    }
    fn vec2(&mut self, what: &'static str) -> Res<Vec2> {
        Ok(Vec2::new(self.f32(what)?, self.f32(what)?))
    }
    fn vec3(&mut self, what: &'static str) -> Res<Vec3> {
        Ok(Vec3::new(self.f32(what)?, self.f32(what)?, self.f32(what)?))
    }
    fn plane(&mut self, what: &'static str) -> Res<Plane> {
        Ok(Plane {
            normal: self.vec3(what)?,
            dist: self.f32(what)?,
        })
    }
    fn aabb(&mut self, what: &'static str) -> Res<Aabb> {
        Ok(Aabb {
            min: self.vec3(what)?,
            max: self.vec3(what)?,
        })
    }
    fn bytes(&mut self, what: &'static str) -> Res<Vec<u8>> {
        let n = self.count(1, what)?;
        Ok(self.take(n, what)?.to_vec())
    }
    fn str(&mut self, what: &'static str) -> Res<String> {
        let offset = self.pos;
        String::from_utf8(self.bytes(what)?)
            .map_err(|_| LvlError::Invalid(format!("{what} at byte {offset} is not UTF-8")))
    }
    fn u32s(&mut self, what: &'static str) -> Res<Vec<u32>> {
        let n = self.count(4, what)?;
        (0..n).map(|_| self.u32(what)).collect()
    }
    fn opt_bytes(&mut self, what: &'static str) -> Res<Option<Vec<u8>>> {
        Ok(if self.flag(what)? {
            Some(self.bytes(what)?)
        } else {
            None
        })
    }
    fn child(&mut self, what: &'static str) -> Res<BspChild> {
        let tag = self.u8(what)?;
        let v = self.u32(what)?;
        match tag {
            0 => Ok(BspChild::Node(v)),
            1 => Ok(BspChild::Leaf(v)),
            t => Err(LvlError::Invalid(format!(
                "{what}: BSP child tag {t} (expected 0 or 1)"
            ))),
        }
    }
}

/// Parses and validates a file image.
pub fn from_bytes(bytes: &[u8]) -> Result<Level, LvlError> {
    let mut r = read_header(bytes)?;
    // Sections in file order, which is the order of `Level`'s fields.
    let cells = read_cells(&mut r)?;
    let portals = read_portals(&mut r)?;
    let surfaces = read_surfaces(&mut r)?;
    let bsp = read_bsp(&mut r)?;
    let materials = read_materials(&mut r)?;
    let lightmaps = read_lightmaps(&mut r)?;
    let objects = read_objects(&mut r)?;
    let entities = read_entities(&mut r)?;
    let sky = read_sky(&mut r)?;
    let terrain = read_terrain(&mut r)?;
    let pvs = read_pvs(&mut r)?;
    let leak = read_leak(&mut r)?;
    if r.pos != bytes.len() {
        return Err(LvlError::Invalid(format!(
            "{} bytes left over after the last section",
            bytes.len() - r.pos
        )));
    }
    let level = Level {
        cells,
        portals,
        surfaces,
        bsp,
        materials,
        lightmaps,
        objects,
        entities,
        sky,
        terrain,
        pvs,
        leak,
    };
    validate(&level).map_err(LvlError::Invalid)?;
    Ok(level)
}

/// Checks the magic, the version and that the payload length matches the bytes that follow;
/// returns a reader at the first section.
fn read_header(bytes: &[u8]) -> Res<R<'_>> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(LvlError::BadMagic);
    }
    let mut r = R {
        b: bytes,
        pos: 8,
        version: 0,
    };
    let version = r.u32("version")?;
    r.version = version;
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(LvlError::Version {
            found: version,
            expected: VERSION,
        });
    }
    let len = r.u64("payload length")?;
    let left = (bytes.len() - r.pos) as u64;
    if len > left {
        return Err(LvlError::Truncated {
            what: "payload",
            offset: r.pos,
            needed: len as usize,
            left: left as usize,
        });
    }
    if len < left {
        return Err(LvlError::Invalid(format!(
            "{} bytes after the end of the level",
            left - len
        )));
    }
    Ok(r)
}

fn read_cells(r: &mut R) -> Res<Vec<Cell>> {
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

fn read_portals(r: &mut R) -> Res<Vec<Portal>> {
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

fn read_surfaces(r: &mut R) -> Res<Vec<Surface>> {
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

fn read_bsp(r: &mut R) -> Res<Bsp> {
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

fn read_materials(r: &mut R) -> Res<Vec<Material>> {
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
        materials.push(Material {
            name,
            width,
            height,
            texels,
            fullbright,
            color,
            flags,
        });
    }
    Ok(materials)
}

fn read_lightmaps(r: &mut R) -> Res<Lightmaps> {
    let width = r.u32("lightmap atlas width")?;
    let height = r.u32("lightmap atlas height")?;
    let texels = r.bytes("lightmap atlas texels")?;
    Ok(Lightmaps {
        width,
        height,
        texels,
    })
}

fn read_objects(r: &mut R) -> Res<Vec<Object>> {
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

fn read_motion(r: &mut R) -> Res<Option<Motion>> {
    if !r.flag("object motion")? {
        return Ok(None);
    }
    let n = r.count(12, "object motion points")?;
    if n > crate::level::motion::MAX_PATH_POINTS {
        return Err(LvlError::Invalid(format!(
            "object motion: {n} points (at most {})",
            crate::level::motion::MAX_PATH_POINTS
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

fn read_entities(r: &mut R) -> Res<Vec<Entity>> {
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

fn read_sky(r: &mut R) -> Res<Option<Sky>> {
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
    Ok(Some(Sky { material, cubemap }))
}

fn read_terrain(r: &mut R) -> Res<Option<TerrainRef>> {
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

fn read_pvs(r: &mut R) -> Res<Option<Pvs>> {
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
fn write_leak(w: &mut W, leak: Option<&LeakPath>) {
    let Some(leak) = leak else { return };
    w.str(&leak.entity);
    w.u32(leak.line);
    w.len(leak.points.len());
    for &p in &leak.points {
        w.vec3(p);
    }
}

fn read_leak(r: &mut R) -> Res<Option<LeakPath>> {
    if r.pos == r.b.len() {
        return Ok(None);
    }
    let entity = r.str("leak entity")?;
    let line = r.u32("leak line")?;
    let n = r.count(12, "leak points")?;
    let points = (0..n)
        .map(|_| r.vec3("leak point"))
        .collect::<Res<Vec<_>>>()?;
    Ok(Some(LeakPath {
        entity,
        line,
        points,
    }))
}

/// Checks every index and size of a level: what loading a `.lvl` guarantees to consumers.
pub fn validate(level: &Level) -> Result<(), String> {
    validate_cells(level)?;
    validate_portals(level)?;
    validate_lightmap_atlas(&level.lightmaps)?;
    validate_surfaces(level)?;
    validate_materials(&level.materials)?;
    validate_bsp(&level.bsp, level.cells.len())?;
    validate_objects(level)?;
    validate_sky(level)?;
    validate_pvs(level)
}

fn validate_cells(level: &Level) -> Result<(), String> {
    let (np, ns) = (level.portals.len(), level.surfaces.len());
    for (i, c) in level.cells.iter().enumerate() {
        if let Some(p) = c.portals.iter().find(|&&p| p as usize >= np) {
            return Err(format!(
                "cell {i} lists portal {p} but there are {np} portals"
            ));
        }
        if let Some(s) = c.surfaces.iter().find(|&&s| s as usize >= ns) {
            return Err(format!(
                "cell {i} lists surface {s} but there are {ns} surfaces"
            ));
        }
    }
    Ok(())
}

fn validate_portals(level: &Level) -> Result<(), String> {
    let nc = level.cells.len();
    for (i, p) in level.portals.iter().enumerate() {
        if p.front as usize >= nc || p.back as usize >= nc {
            return Err(format!(
                "portal {i} joins cells {} and {} but there are {nc} cells",
                p.front, p.back
            ));
        }
    }
    Ok(())
}

fn validate_lightmap_atlas(lightmaps: &Lightmaps) -> Result<(), String> {
    let (aw, ah) = (lightmaps.width as u64, lightmaps.height as u64);
    let (layer, len) = (aw * ah * 3, lightmaps.texels.len() as u64);
    let whole = if layer == 0 {
        len == 0
    } else {
        len.is_multiple_of(layer) && len / layer <= styles::MAX_SLOTS as u64 && len > 0
    };
    if !whole {
        return Err(format!(
            "lightmap atlas {aw}x{ah} needs 1 to {} layers of {layer} RGB bytes, has {len} bytes",
            styles::MAX_SLOTS
        ));
    }
    Ok(())
}

fn validate_surfaces(level: &Level) -> Result<(), String> {
    let nm = level.materials.len();
    let (aw, ah) = (level.lightmaps.width as u64, level.lightmaps.height as u64);
    for (i, s) in level.surfaces.iter().enumerate() {
        if s.material as usize >= nm {
            return Err(format!(
                "surface {i} uses material {} but there are {nm} materials",
                s.material
            ));
        }
        if s.indices.len() % 3 != 0 {
            return Err(format!(
                "surface {i} has {} indices, not a multiple of 3",
                s.indices.len()
            ));
        }
        if let Some(x) = s.indices.iter().find(|&&x| x as usize >= s.vertices.len()) {
            return Err(format!(
                "surface {i} indexes vertex {x} of {}",
                s.vertices.len()
            ));
        }
        if let Some(r) = s.lightmap {
            if r.x as u64 + r.width as u64 > aw || r.y as u64 + r.height as u64 > ah {
                return Err(format!(
                    "surface {i} lightmap rect {}x{} at ({}, {}) lies outside the {aw}x{ah} atlas",
                    r.width, r.height, r.x, r.y
                ));
            }
        }
        validate_styles(i, s, level.lightmaps.layers())?;
    }
    Ok(())
}

/// A lit surface's slots must lie in the atlas's layers, and name styles below 64.
fn validate_styles(i: usize, s: &Surface, layers: usize) -> Result<(), String> {
    if let Some(st) = s
        .styles
        .slots()
        .find(|&st| st as usize >= styles::MAX_STYLES)
    {
        return Err(format!(
            "surface {i} uses light style {st}; styles go up to {}",
            styles::MAX_STYLES - 1
        ));
    }
    if s.lightmap.is_some() && s.styles.count() > layers.max(1) {
        return Err(format!(
            "surface {i} has {} light style slots but the atlas has {layers} layers",
            s.styles.count()
        ));
    }
    Ok(())
}

fn validate_materials(materials: &[Material]) -> Result<(), String> {
    for (i, m) in materials.iter().enumerate() {
        let texels = m.width as u64 * m.height as u64;
        if let Some(t) = &m.texels {
            if t.len() as u64 != texels * 4 {
                return Err(format!(
                    "material {i} ({}) has {} texel bytes, expected {}",
                    m.name,
                    t.len(),
                    texels * 4
                ));
            }
        }
        if let Some(t) = &m.fullbright {
            if t.len() as u64 != texels {
                return Err(format!(
                    "material {i} ({}) has a {}-byte fullbright mask, expected {texels}",
                    m.name,
                    t.len()
                ));
            }
        }
    }
    Ok(())
}

/// BSP: children in range, the nodes form a tree (each node reached once from the root), and
/// the leaves list existing cells.
fn validate_bsp(bsp: &Bsp, nc: usize) -> Result<(), String> {
    validate_bsp_parents(bsp)?;
    validate_bsp_reachable(bsp)?;
    for (i, l) in bsp.leaves.iter().enumerate() {
        if let Some(c) = l.cells.iter().find(|&&c| c as usize >= nc) {
            return Err(format!(
                "BSP leaf {i} lists cell {c} but there are {nc} cells"
            ));
        }
    }
    Ok(())
}

/// Every child (root included) names an existing node or leaf, and no node has two parents.
fn validate_bsp_parents(bsp: &Bsp) -> Result<(), String> {
    let (nn, nl) = (bsp.nodes.len(), bsp.leaves.len());
    let check_child = |c: BspChild, what: &str| -> Result<(), String> {
        match c {
            BspChild::Node(n) if n as usize >= nn => {
                Err(format!("{what} is node {n} but there are {nn} nodes"))
            }
            BspChild::Leaf(l) if l as usize >= nl => {
                Err(format!("{what} is leaf {l} but there are {nl} leaves"))
            }
            _ => Ok(()),
        }
    };
    let mut referenced = vec![false; nn];
    if let Some(root) = bsp.root {
        check_child(root, "the BSP root")?;
        if let BspChild::Node(n) = root {
            referenced[n as usize] = true;
        }
    }
    for (i, n) in bsp.nodes.iter().enumerate() {
        for c in n.children {
            check_child(c, &format!("a child of BSP node {i}"))?;
            if let BspChild::Node(k) = c {
                if std::mem::replace(&mut referenced[k as usize], true) {
                    return Err(format!("BSP node {k} has two parents"));
                }
            }
        }
    }
    Ok(())
}

/// Every node is reachable from the root; needs [`validate_bsp_parents`] to have passed.
fn validate_bsp_reachable(bsp: &Bsp) -> Result<(), String> {
    let nn = bsp.nodes.len();
    // With every node having at most one parent, a cycle would leave its nodes unreachable.
    let mut seen = 0usize;
    let mut stack: Vec<BspChild> = bsp.root.into_iter().collect();
    while let Some(c) = stack.pop() {
        if let BspChild::Node(n) = c {
            seen += 1;
            if seen > nn {
                return Err("the BSP has a cycle".into());
            }
            stack.extend(bsp.nodes[n as usize].children);
        }
    }
    if seen != nn {
        return Err(format!(
            "{} BSP nodes are not reachable from the root (cycle or orphan)",
            nn - seen
        ));
    }
    Ok(())
}

fn validate_objects(level: &Level) -> Result<(), String> {
    let ns = level.surfaces.len();
    for (i, o) in level.objects.iter().enumerate() {
        if let Some(s) = o.surfaces.iter().find(|&&s| s as usize >= ns) {
            return Err(format!(
                "object {i} ({}) lists surface {s} but there are {ns} surfaces",
                o.name
            ));
        }
        if let Some(e) = o.entity.filter(|&e| e as usize >= level.entities.len()) {
            return Err(format!(
                "object {i} ({}) comes from entity {e} but there are {} entities",
                o.name,
                level.entities.len()
            ));
        }
        if let Some(p) = o
            .closes
            .iter()
            .find(|&&p| p as usize >= level.portals.len())
        {
            return Err(format!(
                "object {i} ({}) closes portal {p} but there are {} portals",
                o.name,
                level.portals.len()
            ));
        }
        if let Some(Err(e)) = o.motion.as_ref().map(Motion::check) {
            return Err(format!("object {i} ({}) motion: {e}", o.name));
        }
    }
    Ok(())
}

fn validate_sky(level: &Level) -> Result<(), String> {
    let nm = level.materials.len();
    if let Some(m) = level
        .sky
        .as_ref()
        .and_then(|s| s.material)
        .filter(|&m| m as usize >= nm)
    {
        return Err(format!(
            "the sky uses material {m} but there are {nm} materials"
        ));
    }
    Ok(())
}

fn validate_pvs(level: &Level) -> Result<(), String> {
    let nc = level.cells.len();
    if let Some(p) = &level.pvs {
        if p.rows.len() as u64 != p.row_bytes as u64 * nc as u64
            || (p.row_bytes as u64) * 8 < nc as u64
        {
            return Err(format!(
                "pvs has {} bytes in rows of {} for {nc} cells (expected one row per cell, one bit per cell)",
                p.rows.len(),
                p.row_bytes
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
