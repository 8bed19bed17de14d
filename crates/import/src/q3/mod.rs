//! Quake 3's BSP (`IBSP` version 46, OpenArena's maps): the header, its 17 lumps as records, and
//! every index between them checked, so what builds a level from it can index without a check.
//! `to_level` builds a [`lanthorn_level::Level`] of it (`level`).

mod level;
mod light_grid;
mod lumps;
mod materials;
pub mod patch;
pub mod shaders;
mod sky;
mod tree;
mod vertex_light;

use std::ops::Range;

pub use self::level::{patch_steps, to_level, Q3Report, PATCH_STEPS, PATCH_TOLERANCE};
pub use self::lumps::LUMP_NAMES;
pub use self::materials::{GameFiles, NoFiles};

/// Why a file is not a Quake 3 map this reader can take.
#[derive(Debug, thiserror::Error)]
pub enum Q3Error {
    /// Shorter than the header.
    #[error("{file}: only {len} bytes, an IBSP header needs {need}: the file is truncated")]
    Truncated {
        /// The file.
        file: String,
        /// Its bytes.
        len: usize,
        /// The bytes a header needs.
        need: usize,
    },
    /// Not Quake 3's IBSP 46.
    #[error("{file}: not a Quake 3 map (it starts {magic:?}, version {version}; Quake 3 maps are \"IBSP\" version 46)")]
    Version {
        /// The file.
        file: String,
        /// Its first four bytes.
        magic: String,
        /// The version after them.
        version: i32,
    },
    /// A lump lies outside the file or is not whole records.
    #[error("{file}: lump {lump} ({offset} + {length} bytes) {problem}")]
    Lump {
        /// The file.
        file: String,
        /// The lump's name.
        lump: &'static str,
        /// Where the header says it starts.
        offset: i32,
        /// Its length there.
        length: i32,
        /// What is wrong with it.
        problem: String,
    },
    /// A record points outside another lump, or holds an impossible value.
    #[error("{file}: {lump} {index} {problem}")]
    Record {
        /// The file.
        file: String,
        /// The lump's name.
        lump: &'static str,
        /// The record's index in it.
        index: usize,
        /// What is wrong with it.
        problem: String,
    },
}

/// A material a surface or brush names (the `shaders` lump).
#[derive(Clone, Debug, PartialEq)]
pub struct Shader {
    /// Its name: a shader script's or a texture's path without extension.
    pub name: String,
    /// `SURF_*` bits (sky, nodraw, …).
    pub surface_flags: i32,
    /// `CONTENTS_*` bits (solid, water, …).
    pub content_flags: i32,
}

/// A plane: points `p` with `normal · p = dist`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    /// Unit normal.
    pub normal: [f32; 3],
    /// Distance from the origin along it.
    pub dist: f32,
}

/// An inner node of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// Its plane.
    pub plane: u32,
    /// Front and back: a node's index, or `-(leaf + 1)`.
    pub children: [i32; 2],
    /// Bounds, whole units.
    pub mins: [i32; 3],
    /// Bounds, whole units.
    pub maxs: [i32; 3],
}

/// A leaf of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// Its visibility cluster; −1 for solid leaves.
    pub cluster: i32,
    /// Its area (area portals separate areas).
    pub area: i32,
    /// Bounds, whole units.
    pub mins: [i32; 3],
    /// Bounds, whole units.
    pub maxs: [i32; 3],
    /// Its range of `leaf_surfaces`.
    pub surfaces: Range<u32>,
    /// Its range of `leaf_brushes`.
    pub brushes: Range<u32>,
}

/// The world (model 0) or a brush entity's model.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Bounds.
    pub mins: [f32; 3],
    /// Bounds.
    pub maxs: [f32; 3],
    /// Its surfaces.
    pub surfaces: Range<u32>,
    /// Its brushes.
    pub brushes: Range<u32>,
}

/// A convex brush: its sides and material.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Brush {
    /// Its range of `brush_sides`.
    pub sides: Range<u32>,
    /// Its shader.
    pub shader: u32,
}

/// One side of a brush.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BrushSide {
    /// Its plane.
    pub plane: u32,
    /// Its shader.
    pub shader: u32,
}

/// A vertex of the surfaces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vertex {
    /// Position.
    pub position: [f32; 3],
    /// Texture coordinates.
    pub st: [f32; 2],
    /// Lightmap coordinates (0..1 on its page).
    pub lightmap_st: [f32; 2],
    /// Normal.
    pub normal: [f32; 3],
    /// Vertex colour (the light of vertex-lit surfaces), RGBA.
    pub color: [u8; 4],
}

/// What a surface is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceType {
    /// A polygon, as triangles of its vertices.
    Planar,
    /// A Bézier patch: a grid of control points.
    Patch,
    /// A triangle mesh (models baked into the map).
    TriangleSoup,
    /// A flare (a glow, no geometry).
    Flare,
}

/// A drawn surface.
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    /// Its shader.
    pub shader: u32,
    /// Its fog volume, −1 for none (also where the file names one it does not have).
    pub fog: i32,
    /// What it is.
    pub kind: SurfaceType,
    /// Its vertices.
    pub vertices: Range<u32>,
    /// Its indices (into its own vertices) in `indices`.
    pub indices: Range<u32>,
    /// Its lightmap page, negative for none (vertex lit).
    pub lightmap: i32,
    /// Where on its page its luxels lie: x, y, width, height (as q3map2 writes them; checked
    /// against the page where used).
    pub lightmap_rect: [i32; 4],
    /// A planar surface's plane normal (the front, the open side); meaningless for others.
    pub normal: [f32; 3],
    /// For a patch, its control grid's width and height (odd, at least 3); otherwise 0.
    pub patch: [u32; 2],
}

/// The visibility clusters' potentially visible sets, uncompressed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Visibility {
    /// Clusters.
    pub clusters: u32,
    /// Bytes per cluster's row of bits.
    pub row_bytes: u32,
    /// `clusters` rows of `row_bytes`.
    pub bits: Vec<u8>,
}

/// One of the light grid's points: ambient and directed light, and where the latter comes from.
pub type LightGridPoint = [u8; 8];

/// A Quake 3 map as its lumps hold it, every index between them checked.
#[derive(Clone, Debug, Default)]
pub struct Ibsp {
    /// The entity lump's text.
    pub entities: String,
    /// Materials.
    pub shaders: Vec<Shader>,
    /// Planes.
    pub planes: Vec<Plane>,
    /// The tree's inner nodes (node 0 is the root).
    pub nodes: Vec<Node>,
    /// The tree's leaves.
    pub leaves: Vec<Leaf>,
    /// The surfaces each leaf lists.
    pub leaf_surfaces: Vec<u32>,
    /// The brushes each leaf lists.
    pub leaf_brushes: Vec<u32>,
    /// The world (model 0) and the brush entities' models.
    pub models: Vec<Model>,
    /// Brushes.
    pub brushes: Vec<Brush>,
    /// Their sides.
    pub brush_sides: Vec<BrushSide>,
    /// Every surface's vertices.
    pub vertices: Vec<Vertex>,
    /// Every surface's indices, relative to its first vertex.
    pub indices: Vec<u32>,
    /// Fog volumes: how many.
    pub fogs: usize,
    /// Surfaces.
    pub surfaces: Vec<Surface>,
    /// Lightmap pages, 128 × 128 RGB each, back to back.
    pub lightmaps: Vec<u8>,
    /// The light grid's points.
    pub light_grid: Vec<LightGridPoint>,
    /// The clusters' visibility, when the map has it.
    pub visibility: Option<Visibility>,
}

/// Bytes of one lightmap page.
pub const LIGHTMAP_BYTES: usize = 128 * 128 * 3;

impl Ibsp {
    /// Lightmap pages.
    pub fn lightmap_pages(&self) -> usize {
        self.lightmaps.len() / LIGHTMAP_BYTES
    }
}

/// Reads a Quake 3 map from its bytes; `file` names it in errors.
pub fn read(bytes: &[u8], file: &str) -> Result<Ibsp, Q3Error> {
    let map = lumps::read(bytes, file)?;
    lumps::check(&map, file)?;
    Ok(map)
}

#[cfg(test)]
mod tests;
