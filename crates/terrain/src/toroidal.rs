//! Toroidal height windows: one N×N layer per level (N = `ClipmapConfig::window_size`), grid
//! point `g` of level `l` stored at texel `(g.x mod N, g.y mod N)` of layer `l`. The window
//! of level `l` covers grid points `[w, w + N)` per axis with `w = LevelPlacement::window_origin`
//! (the level square plus a one-texel border). When the camera moves, only the grid rows and
//! columns that entered the window are produced, split where they wrap around the texture —
//! bytes per frame follow camera speed, never terrain size.

use bytemuck::{Pod, Zeroable};
use glam::DVec2;

use super::{ClipmapConfig, Heightmap};

/// One texture write: texels `[x, x + width) × [y, y + height)` of layer `layer`, taking
/// `width · height` f32 heights (row-major) from `HeightUpdates::data[offset..]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct UpdateRect {
    /// The level's layer.
    pub layer: u32,
    /// First texel column.
    pub x: u32,
    /// First texel row.
    pub y: u32,
    /// Texels across.
    pub width: u32,
    /// Texels down.
    pub height: u32,
    /// In f32 elements into `data`.
    pub offset: u32,
}

/// All writes of one frame with their data in one staging array (an R32Float texture array).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeightUpdates {
    /// The writes.
    pub rects: Vec<UpdateRect>,
    /// Their heights, one after another.
    pub data: Vec<f32>,
}

impl HeightUpdates {
    /// Empties it, keeping its memory.
    pub fn clear(&mut self) {
        self.rects.clear();
        self.data.clear();
    }

    /// The bytes to upload.
    pub fn bytes(&self) -> usize {
        self.data.len() * 4
    }

    /// The heights of write `r`.
    pub fn rect_data(&self, r: &UpdateRect) -> &[f32] {
        &self.data[r.offset as usize..(r.offset + r.width * r.height) as usize]
    }
}

/// Tracks each level's current window and produces the writes that bring it to the camera.
pub struct HeightStreamer {
    /// The configuration it streams for.
    pub cfg: ClipmapConfig,
    origins: Vec<Option<[i64; 2]>>,
    scratch: Vec<f32>,
}

impl HeightStreamer {
    /// A streamer with every window empty (the first frame fills them).
    pub fn new(cfg: ClipmapConfig) -> Self {
        Self {
            cfg,
            origins: vec![None; cfg.levels as usize],
            scratch: Vec::new(),
        }
    }

    /// The window origins currently held (None before the first update).
    pub fn origins(&self) -> &[Option<[i64; 2]>] {
        &self.origins
    }

    /// Forget everything (next update refills all layers).
    pub fn invalidate(&mut self) {
        self.origins.iter_mut().for_each(|o| *o = None);
    }

    /// Append to `out` the writes that move every level's window to the camera at `cam`
    /// (world xy). Returns the bytes added.
    pub fn update(&mut self, hm: &Heightmap, cam: DVec2, out: &mut HeightUpdates) -> usize {
        self.update_from(hm, cam, 0, out)
    }

    /// Like [`HeightStreamer::update`], for levels `first..` only (`Selection::first_level`):
    /// finer, inactive levels are forgotten and refilled when they come back.
    pub fn update_from(
        &mut self,
        hm: &Heightmap,
        cam: DVec2,
        first: u32,
        out: &mut HeightUpdates,
    ) -> usize {
        let before = out.data.len();
        let n = self.cfg.window_size() as i64;
        for l in 0..first.min(self.cfg.levels) {
            self.origins[l as usize] = None;
        }
        for l in first..self.cfg.levels {
            let p = self.cfg.window_origin(cam, l);
            let spacing = self.cfg.spacing(l);
            match self.origins[l as usize] {
                Some(o) if o == p => {}
                Some(o) if (p[0] - o[0]).abs() < n && (p[1] - o[1]).abs() < n => {
                    // New rows (full width of the new window).
                    let dy = p[1] - o[1];
                    let rows = if dy > 0 {
                        (o[1] + n, p[1] + n)
                    } else {
                        (p[1], o[1])
                    };
                    if rows.0 < rows.1 {
                        self.emit(hm, l, spacing, (p[0], p[0] + n), rows, out);
                    }
                    // New columns, only over rows both windows share.
                    let dx = p[0] - o[0];
                    let cols = if dx > 0 {
                        (o[0] + n, p[0] + n)
                    } else {
                        (p[0], o[0])
                    };
                    let shared = (p[1].max(o[1]), p[1].min(o[1]) + n);
                    if cols.0 < cols.1 && shared.0 < shared.1 {
                        self.emit(hm, l, spacing, cols, shared, out);
                    }
                }
                _ => self.emit(hm, l, spacing, (p[0], p[0] + n), (p[1], p[1] + n), out),
            }
            self.origins[l as usize] = Some(p);
        }
        (out.data.len() - before) * 4
    }

    /// Writes for the grid rectangle `[x0, x1) × [y0, y1)` of level `l`, split at the texture's
    /// wrap-around lines.
    fn emit(
        &mut self,
        hm: &Heightmap,
        l: u32,
        spacing: f64,
        xs: (i64, i64),
        ys: (i64, i64),
        out: &mut HeightUpdates,
    ) {
        let n = self.cfg.window_size() as i64;
        for (y0, y1) in wrap_segments(ys.0, ys.1, n) {
            for (x0, x1) in wrap_segments(xs.0, xs.1, n) {
                let offset = out.data.len() as u32;
                self.scratch.clear();
                hm.fill_grid(
                    x0,
                    y0,
                    (x1 - x0) as usize,
                    (y1 - y0) as usize,
                    spacing,
                    &mut self.scratch,
                );
                out.data.extend_from_slice(&self.scratch);
                out.rects.push(UpdateRect {
                    layer: l,
                    x: x0.rem_euclid(n) as u32,
                    y: y0.rem_euclid(n) as u32,
                    width: (x1 - x0) as u32,
                    height: (y1 - y0) as u32,
                    offset,
                });
            }
        }
    }
}

/// Split `[a, b)` into pieces that do not cross a multiple of `n`.
fn wrap_segments(a: i64, b: i64, n: i64) -> impl Iterator<Item = (i64, i64)> {
    let mut s = a;
    std::iter::from_fn(move || {
        if s >= b {
            return None;
        }
        let next = ((s.div_euclid(n)) + 1) * n;
        let e = next.min(b);
        let r = (s, e);
        s = e;
        Some(r)
    })
}

/// CPU model of the GPU texture array: what the uploads produce, addressed like the shader.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowTextureModel {
    /// Texels per side of a layer.
    pub size: u32,
    /// Per level, its texels (NaN: never written).
    pub layers: Vec<Vec<f32>>,
}

impl WindowTextureModel {
    /// Every texel unwritten (NaN).
    pub fn new(cfg: &ClipmapConfig) -> Self {
        let n = cfg.window_size();
        Self {
            size: n,
            layers: vec![vec![f32::NAN; (n * n) as usize]; cfg.levels as usize],
        }
    }

    /// Applies a frame's writes, as the upload does.
    pub fn apply(&mut self, u: &HeightUpdates) {
        let n = self.size as usize;
        for r in &u.rects {
            let src = u.rect_data(r);
            let layer = &mut self.layers[r.layer as usize];
            for row in 0..r.height as usize {
                let d = (r.y as usize + row) * n + r.x as usize;
                let s = row * r.width as usize;
                layer[d..d + r.width as usize].copy_from_slice(&src[s..s + r.width as usize]);
            }
        }
    }

    /// Height of grid point `(gx, gy)` of `level`, toroidal addressing (the shader's
    /// `textureLoad(heights, vec2(emod(g.x, N), emod(g.y, N)), level, 0)`).
    #[inline]
    pub fn fetch(&self, level: u32, gx: i64, gy: i64) -> f32 {
        let n = self.size as i64;
        self.layers[level as usize][(gy.rem_euclid(n) * n + gx.rem_euclid(n)) as usize]
    }

    /// A fresh full fill of every level's window for the camera at `cam` (the test oracle).
    pub fn full_fill(cfg: &ClipmapConfig, hm: &Heightmap, cam: DVec2) -> Self {
        let mut m = Self::new(cfg);
        let n = cfg.window_size() as i64;
        for l in 0..cfg.levels {
            let w = cfg.window_origin(cam, l);
            for gy in w[1]..w[1] + n {
                for gx in w[0]..w[0] + n {
                    let i = (gy.rem_euclid(n) * n + gx.rem_euclid(n)) as usize;
                    m.layers[l as usize][i] = hm.grid_height(gx, gy, cfg.spacing(l));
                }
            }
        }
        m
    }
}
