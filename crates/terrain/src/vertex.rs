//! CPU reference of the terrain vertex shader. The GPU pass is tested against
//! [`vertex_position`]: same inputs (the [`TerrainFrame`], one [`TerrainInstance`], a local mesh
//! vertex, the height windows), same f32 operations in the same order.
//!
//! ```text
//! // WGSL sketch (heights: texture_2d_array<f32>, R32Float, one layer per level)
//! fn emod(a: i32, n: i32) -> i32 { return ((a % n) + n) % n; }
//! fn h(l: u32, g: vec2<i32>) -> f32 {
//!     let n = i32(frame.window_size);
//!     return textureLoad(heights, vec2(emod(g.x, n), emod(g.y, n)), l, 0).r;
//! }
//! let r = rotate(inst.rotation, local);              // 0:(x,y) 1:(-y,x) 2:(-x,-y) 3:(y,-x)
//! let g = inst.offset + r;                           // level grid point
//! let gb = g << vec2(inst.level);                    // base grid point
//! let rel_xy = vec2<f32>(gb - frame.anchor) * frame.base_spacing - frame.camera_offset.xy;
//! let spacing = frame.base_spacing * f32(1u << inst.level);
//! let d = max(abs(rel_xy.x), abs(rel_xy.y)) / spacing;
//! var alpha = clamp((d - frame.morph_start) / frame.morph_width, 0.0, 1.0);
//! if (inst.level + 1u >= frame.levels) { alpha = 0.0; }
//! let hf = h(inst.level, g);
//! let odd = g & vec2(1);
//! var hc = hf;                                        // coarse surface at g:
//! if (odd.x == 1 && odd.y == 0) { hc = 0.5 * (h(l, g - (1,0)) + h(l, g + (1,0))); }
//! if (odd.x == 0 && odd.y == 1) { hc = 0.5 * (h(l, g - (0,1)) + h(l, g + (0,1))); }
//! if (odd.x == 1 && odd.y == 1) { hc = 0.5 * (h(l, g - (1,1)) + h(l, g + (1,1))); }
//! let z = hf + (hc - hf) * alpha;
//! let rel = vec3(rel_xy, z - frame.camera_offset.z); // camera-relative position
//! clip = proj * view_rotation * vec4(rel, 1.0);
//! ```
//! The odd/odd case follows the coarse mesh's `(0,0)–(1,1)` diagonal. All levels store point
//! samples of one height function, so even grid points of level `l` equal level `l+1`'s
//! vertices and a fully morphed boundary (alpha = 1 on the whole level square's edge) lies on
//! the coarser level's edges; the seam closes the remaining T-junctions.

use glam::Vec3;

/// WGSL twin of this module (struct layouts, rotation, toroidal fetch, morph, normals):
/// `shaders/terrain_vertex.inc.wgsl`, which the terrain shader includes; `terrain_vertex(...)`
/// returns the camera-relative position exactly as [`vertex_position`] does.
pub const VERTEX_WGSL: &str = include_str!("../shaders/terrain_vertex.inc.wgsl");

use super::{ClipmapConfig, Heightmap, TerrainFrame, TerrainInstance, WindowTextureModel};

/// Where the shader's height fetch reads from.
pub trait HeightFetch {
    /// The height of grid point (gx, gy) of `level`.
    fn fetch(&self, level: u32, gx: i64, gy: i64) -> f32;
}

impl HeightFetch for WindowTextureModel {
    fn fetch(&self, level: u32, gx: i64, gy: i64) -> f32 {
        WindowTextureModel::fetch(self, level, gx, gy)
    }
}

/// Heights straight from the source (no windows): the oracle for the windows.
pub struct DirectHeights<'a> {
    /// The source.
    pub hm: &'a Heightmap,
    /// The configuration whose grid points it reads.
    pub cfg: ClipmapConfig,
}

impl HeightFetch for DirectHeights<'_> {
    fn fetch(&self, level: u32, gx: i64, gy: i64) -> f32 {
        self.hm.grid_height(gx, gy, self.cfg.spacing(level))
    }
}

/// Morph alpha for a camera-relative xy at `level` (0 on the coarsest level).
#[inline]
pub fn morph_alpha(frame: &TerrainFrame, level: u32, rel_xy: [f32; 2]) -> f32 {
    if level + 1 >= frame.levels {
        return 0.0;
    }
    let spacing = frame.base_spacing * (1u32 << level) as f32;
    let d = rel_xy[0].abs().max(rel_xy[1].abs()) / spacing;
    ((d - frame.morph_start) / frame.morph_width).clamp(0.0, 1.0)
}

/// The coarser level's surface at grid point `g` of `level`, from `level`'s own samples.
#[inline]
pub fn coarse_height(h: &impl HeightFetch, level: u32, g: [i64; 2]) -> f32 {
    let (ox, oy) = (g[0] & 1, g[1] & 1);
    match (ox, oy) {
        (0, 0) => h.fetch(level, g[0], g[1]),
        (1, 0) => 0.5 * (h.fetch(level, g[0] - 1, g[1]) + h.fetch(level, g[0] + 1, g[1])),
        (0, 1) => 0.5 * (h.fetch(level, g[0], g[1] - 1) + h.fetch(level, g[0], g[1] + 1)),
        _ => 0.5 * (h.fetch(level, g[0] - 1, g[1] - 1) + h.fetch(level, g[0] + 1, g[1] + 1)),
    }
}

/// Camera-relative position of local vertex `local` of `inst` — what the vertex shader
/// computes before the view-rotation and projection.
pub fn vertex_position(
    frame: &TerrainFrame,
    inst: &TerrainInstance,
    local: [i32; 2],
    h: &impl HeightFetch,
) -> Vec3 {
    let g = inst.grid_point(local);
    let gb = inst.base_point(local);
    let rel_x = (gb[0] - frame.anchor[0] as i64) as i32 as f32 * frame.base_spacing
        - frame.camera_offset[0];
    let rel_y = (gb[1] - frame.anchor[1] as i64) as i32 as f32 * frame.base_spacing
        - frame.camera_offset[1];
    let alpha = morph_alpha(frame, inst.level, [rel_x, rel_y]);
    let g64 = [g[0] as i64, g[1] as i64];
    let hf = h.fetch(inst.level, g64[0], g64[1]);
    let z = if alpha > 0.0 {
        let hc = coarse_height(h, inst.level, g64);
        hf + (hc - hf) * alpha
    } else {
        hf
    };
    Vec3::new(rel_x, rel_y, z - frame.camera_offset[2])
}

/// World position (f64) of a vertex: camera-relative position plus the camera.
pub fn vertex_world(
    cfg: &ClipmapConfig,
    frame: &TerrainFrame,
    inst: &TerrainInstance,
    local: [i32; 2],
    h: &impl HeightFetch,
) -> glam::DVec3 {
    let r = vertex_position(frame, inst, local, h).as_dvec3();
    let b = cfg.base_spacing;
    r + glam::DVec3::new(
        frame.anchor[0] as f64 * b + frame.camera_offset[0] as f64,
        frame.anchor[1] as f64 * b + frame.camera_offset[1] as f64,
        frame.camera_offset[2] as f64,
    )
}
