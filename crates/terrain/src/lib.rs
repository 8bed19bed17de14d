//! Terrain: heightmaps and the geometry-clipmap ring selector (pure CPU; the GPU pass lives in
//! `render::terrain`).
//!
//! After Losasso & Hoppe 2004 and Mike Savage's implementation (seed 004):
//! - [`Heightmap`]: 16-bit PNG + JSON sidecar, raw f32, or procedural fractal noise sampled on
//!   demand (any size, no memory); [`MinMaxPyramid`] bounds tiles for culling.
//! - [`ClipmapConfig`] / [`ClipmapSelector`]: per frame, from a [`lanthorn_geom::Camera`], the
//!   per-level placement and instance lists for the five static meshes ([`ClipmapMeshes`]):
//!   tiles, filler arms, the L-shaped trim, the seam strip and the finest level's centre
//!   cross — as Pod [`TerrainInstance`] records plus one Pod [`TerrainFrame`].
//! - [`HeightStreamer`] + [`WindowTextureModel`]: the per-level toroidal height windows
//!   (one layer of an N×N texture array per level); only new rows/columns are produced.
//! - [`vertex`]: the CPU reference of the vertex shader (placement, toroidal fetch, morph).
//!
//! GPU contract (what `render::terrain` uploads as-is, see [`ClipmapTerrain`]):
//! - static meshes ([`ClipmapMeshes`]): vertex `[i32; 2]` local grid coordinates (Sint32x2),
//!   u32 (or u16) triangle-list indices, CCW seen from +Z; the seam's triangles have zero area
//!   and either winding — draw the seam with `cull_mode: None`.
//! - per frame: `Selection::instances` (16-byte [`TerrainInstance`] records grouped by kind,
//!   `Selection::draws()` gives ≤ 5 (kind, instance range) draws), the 48-byte
//!   [`TerrainFrame`], and [`HeightUpdates`] (rectangles + f32 data) written into an R32Float
//!   2D texture array of `levels` layers × `window_size`² texels.
//! - vertex shader: [`vertex::VERTEX_WGSL`] (`terrain_vertex`, `terrain_normal`), the twin of
//!   [`vertex::vertex_position`]; use its exact formula (`hf + (hc − hf)·alpha`, not `mix`)
//!   when comparing against the CPU bit for bit.
//!
//! Coordinates: Quake units, Z up. Level `l` has spacing `base_spacing · 2^l`; its grid point
//! `g` (integers, "level units") sits at world `g · spacing`, i.e. base-grid point `g << l`.

#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod clipmap;
pub mod heightmap;
pub mod lamps;
pub mod mesh;
pub mod noise;
pub mod pyramid;
pub mod shading;
pub mod sky;
pub mod state;
pub mod toroidal;
pub mod vertex;

pub use clipmap::{
    ClipmapConfig, ClipmapSelector, LevelPlacement, MeshKind, SelectStats, Selection, TerrainFrame,
    TerrainInstance,
};
pub use heightmap::{Heightmap, HeightmapOptions, HeightmapSpec, Sidecar};
pub use mesh::{ClipmapMeshes, Mesh, MeshPart, PartRun};
pub use noise::FractalNoise;
pub use pyramid::MinMaxPyramid;
pub use shading::TerrainShading;
pub use sky::ScatteringSky;
pub use state::{fixed_flight, ClipmapFrame, ClipmapTerrain, TerrainBenchStats};
pub use toroidal::{HeightStreamer, HeightUpdates, UpdateRect, WindowTextureModel};
pub use vertex::{DirectHeights, HeightFetch};

use std::path::PathBuf;

/// Everything that can go wrong loading or configuring terrain; each names the file or the
/// setting and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum TerrainError {
    /// A file could not be read.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The heightmap file is not there.
    #[error("{}: no such heightmap file (a terrain is a 16-bit grayscale PNG with a JSON sidecar, or procedural:SIZE)", path.display())]
    Missing {
        /// The file named.
        path: PathBuf,
    },
    /// The image does not decode as a heightmap.
    #[error("{}: cannot read the heightmap image: {why}", path.display())]
    Image {
        /// The image.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A PNG heightmap without its JSON sidecar.
    #[error("{}: no JSON sidecar found (looked for {} and a .json whose name starts the PNG's name); it must give height_min_m and height_max_m", path.display(), looked_for.display())]
    NoSidecar {
        /// The PNG.
        path: PathBuf,
        /// The sidecar looked for first.
        looked_for: PathBuf,
    },
    /// The sidecar does not parse or gives bad values.
    #[error("{}: bad heightmap sidecar: {why}", path.display())]
    Sidecar {
        /// The sidecar.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// A heightmap spelling (`procedural:SIZE`, …) that does not parse.
    #[error("bad heightmap {spec:?}: {why}")]
    BadSpec {
        /// What was given.
        spec: String,
        /// What is wrong.
        why: String,
    },
    /// A raw grid whose samples do not fill its size.
    #[error("raw heightmap {width}×{height} needs {} samples (at least 2×2), got {len}", *width as usize * *height as usize)]
    BadRaw {
        /// Samples across.
        width: u32,
        /// Samples down.
        height: u32,
        /// The samples given.
        len: usize,
    },
    /// Clipmap settings that cannot work (levels, grid, spacing).
    #[error("bad clipmap configuration: {0}")]
    BadConfig(String),
}

#[cfg(test)]
mod tests;
