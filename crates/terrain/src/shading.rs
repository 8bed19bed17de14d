//! How the terrain is lit and coloured, derived on the CPU from the heightmap: sea level, snow
//! line, fog and sky colours (the terrain pass turns them into its uniform).

use glam::Vec3;

use super::{ClipmapConfig, Heightmap};

/// How the terrain is lit and coloured; derived from the heightmap by
/// [`TerrainShading::for_heightmap`], adjustable afterwards.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainShading {
    /// World height of the water surface (below it: water colours, flat lighting).
    pub sea_level: f32,
    /// Height where snow starts on gentle slopes.
    pub snow_line: f32,
    /// Total height range (tints water depth).
    pub height_span: f32,
    /// Beach width as a fraction of the sea-to-snow range.
    pub beach: f32,
    /// Distance where exp² fog reaches 63 %.
    pub fog_distance: f32,
    /// Fog strength (0 = no distance fog; the edge fade stays).
    pub fog_strength: f32,
    /// Distances where the fade to the horizon colour starts and completes (hides the
    /// clipmap's outer edge).
    pub edge_fade: (f32, f32),
    /// Draw the water as a flat surface at `sea_level` (the ground below only tints it).
    pub flat_water: bool,
    /// Towards the sun.
    pub sun: Vec3,
    /// The sky's light on the ground, where the sun does not reach (a fraction of full).
    pub ambient: f32,
    /// Linear RGB.
    pub sky_zenith: [f32; 3],
    /// Linear RGB at the horizon.
    pub sky_horizon: [f32; 3],
}

/// What the fog may leave of the ground's colour where the terrain counts as fogged out: at
/// most 0.41 of an 8-bit step after sRGB encoding (whose steepest slope is 12.92), whatever the
/// ground and sky colours — e^-9, the exp² fog at 3 fog distances.
pub const FOGGED_OUT_REMAINDER: f32 = 1.234e-4;

impl TerrainShading {
    /// The distance beyond which the terrain shows only the fog (the sky's colour behind it, to
    /// within [`FOGGED_OUT_REMAINDER`]): the exp² fog at full strength past 3 fog distances, or
    /// the complete edge fade. Beyond it nothing of the terrain needs drawing.
    pub fn fogged_out_distance(&self) -> f32 {
        let edge = self.edge_fade.1;
        if self.fog_strength >= 1.0 && self.fog_distance > 0.0 {
            (3.0 * self.fog_distance).min(edge)
        } else {
            edge
        }
    }

    /// The fog's share of a fragment at distance `d` (shaders/terrain.wgsl `fog_amount`).
    pub fn fog_amount(&self, d: f32) -> f32 {
        let x = d / self.fog_distance.max(1e-3);
        let f = (1.0 - (-x * x).exp()) * self.fog_strength;
        let (a, b) = self.edge_fade;
        let t = ((d - a) / (b - a)).clamp(0.0, 1.0);
        f.max(t * t * (3.0 - 2.0 * t))
    }

    /// Bands from a 128×128 sample of the heightmap: the sea at 0 when the source spans it
    /// (ETOPO5), at the 20th percentile for procedural terrain, none otherwise; the snow line at
    /// the 98.5th percentile of the land. Fog from the map's and the clipmap's extents.
    pub fn for_heightmap(hm: &Heightmap, cfg: &ClipmapConfig) -> TerrainShading {
        let (w, h) = hm.size();
        let n = 128u64;
        let mut s: Vec<f32> = Vec::with_capacity((n * n) as usize);
        for j in 0..n {
            for i in 0..n {
                let x = (i * (w - 1) / (n - 1)) as i64;
                let y = (j * (h - 1) / (n - 1)) as i64;
                s.push(hm.sample(x, y));
            }
        }
        s.sort_by(|a, b| a.total_cmp(b));
        let pct = |v: &[f32], q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        let (lo, hi) = (s[0], s[s.len() - 1]);
        let sea = if hm.is_procedural() {
            pct(&s, 0.2)
        } else if lo < 0.0 && hi > 0.0 {
            0.0
        } else {
            lo - 1.0
        };
        let land: Vec<f32> = s.iter().copied().filter(|&v| v >= sea).collect();
        let snow = if land.is_empty() {
            hi
        } else {
            pct(&land, 0.985)
        };
        let snow = if snow - sea < 1.0 { sea + 1.0 } else { snow };
        let t = cfg.tile_quads() as f64;
        let extent = (2.0 * t * cfg.spacing(cfg.levels - 1)) as f32;
        let (ww, wh) = hm.world_size();
        let map = ww.max(wh) as f32;
        let fog = (0.3 * map).clamp(2000.0, 0.5 * extent);
        TerrainShading {
            sea_level: sea,
            snow_line: snow,
            height_span: (hi - lo).max(1.0),
            beach: 0.015,
            fog_distance: fog,
            fog_strength: 1.0,
            edge_fade: (0.75 * extent, 0.95 * extent),
            flat_water: true,
            sun: Vec3::new(0.45, -0.35, 0.70).normalize(),
            ambient: 0.35,
            sky_zenith: [0.10, 0.24, 0.55],
            sky_horizon: [0.56, 0.66, 0.78],
        }
    }
}
