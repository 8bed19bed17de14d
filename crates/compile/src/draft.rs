//! What both front ends emit and the back half finishes: the level's cells, portals, materials,
//! entities, point-location tree and sky, with its surfaces still as polygons.

use glam::DVec3;

use super::surfaces::SurfaceSpec;
use lanthorn_level::Level;

/// A level before its surfaces are triangulated and its lightmaps laid out: `level` holds
/// everything else (its `surfaces`, `objects` and `lightmaps` are still empty).
#[derive(Default)]
pub(crate) struct Draft {
    pub(crate) level: Level,
    /// The world's surfaces, T-junctions fixed among them all.
    pub(crate) cell_surfaces: Vec<SurfaceDraft>,
    /// Brush entities that move: each one's surfaces are fixed among themselves.
    pub(crate) objects: Vec<ObjectDraft>,
}

/// One convex polygon to become a surface.
pub(crate) struct SurfaceDraft {
    /// Counter-clockwise seen from the front.
    pub(crate) points: Vec<DVec3>,
    pub(crate) normal: DVec3,
    pub(crate) spec: SurfaceSpec,
    /// The cells that list it (a world surface may touch several).
    pub(crate) cells: Vec<u32>,
}

pub(crate) struct ObjectDraft {
    pub(crate) name: String,
    pub(crate) entity: Option<u32>,
    pub(crate) surfaces: Vec<SurfaceDraft>,
    pub(crate) motion: Option<lanthorn_level::Motion>,
}

/// A material's stand-in colour where it has no texels: a hash of its name, mid-grey to pastel.
pub(crate) fn flat_color(name: &str) -> [f32; 3] {
    let mut h: u32 = 2166136261;
    for b in name.to_ascii_lowercase().bytes() {
        h = (h ^ b as u32).wrapping_mul(16777619);
    }
    let c = |s: u32| 0.35 + ((h >> s) & 0xff) as f32 / 255.0 * 0.5;
    [c(0), c(8), c(16)]
}
