//! Height sources: a 16-bit PNG with a JSON sidecar, a raw f32 grid, and a procedural
//! fractal-noise field that can be sampled at any integer coordinate with no stored data.
//!
//! A heightmap maps integer sample coordinates `(ix, iy)` to heights in world units (Z up).
//! Sample `(0, 0)` sits at world `(0, 0)`; sample `(ix, iy)` at world
//! `(ix · horizontal_scale, iy · horizontal_scale)`. Between samples the height is the bilinear
//! interpolation of the four neighbours, so every world point has exactly one height whatever
//! clipmap level asks for it (this is what keeps the levels crack-free).

use std::path::{Path, PathBuf};

/// The largest height a sidecar may give, in metres (either sign).
pub const MAX_HEIGHT_M: f64 = 100_000.0;

use super::noise::FractalNoise;
use super::TerrainError;

/// What the command line names as a heightmap: `path/to/file.png`, `procedural:SIZE`
/// (optionally `procedural:SIZE:SEED`) or `flat:SIZE` (height 0 everywhere: a test ground
/// whose shadows and lights have analytic answers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeightmapSpec {
    /// A 16-bit grayscale PNG with its JSON sidecar.
    Png(PathBuf),
    /// Fractal noise, `size` samples a side, from `seed`.
    Procedural {
        /// Samples a side.
        size: u64,
        /// The noise's seed.
        seed: u64,
    },
    /// Height 0 everywhere, `size` samples a side.
    Flat {
        /// Samples a side.
        size: u64,
    },
}

/// A `SIZE` of `procedural:` or `flat:`: a whole number of samples from 16 to 2^31.
fn parse_size(size_s: &str, bad: impl Fn(String) -> TerrainError) -> Result<u64, TerrainError> {
    let size: u64 = size_s
        .trim()
        .parse()
        .map_err(|_| bad(format!("SIZE {size_s:?} is not a whole number")))?;
    if !(16..=(1u64 << 31)).contains(&size) {
        return Err(bad(format!("SIZE {size} must be between 16 and 2^31")));
    }
    Ok(size)
}

impl HeightmapSpec {
    /// Reads `path.png`, `procedural:SIZE[:SEED]` or `flat:SIZE`.
    pub fn parse(s: &str) -> Result<Self, TerrainError> {
        let bad = |why: String| TerrainError::BadSpec {
            spec: s.to_string(),
            why,
        };
        if let Some(rest) = s.strip_prefix("flat:") {
            return Ok(HeightmapSpec::Flat {
                size: parse_size(rest, bad)?,
            });
        }
        if let Some(rest) = s.strip_prefix("procedural:") {
            let mut parts = rest.split(':');
            let size = parse_size(parts.next().unwrap_or(""), bad)?;
            let seed = match parts.next() {
                Some(t) => t
                    .trim()
                    .parse()
                    .map_err(|_| bad(format!("SEED {t:?} is not a whole number")))?,
                None => 1,
            };
            if parts.next().is_some() {
                return Err(bad(
                    "expected procedural:SIZE or procedural:SIZE:SEED".into()
                ));
            }
            return Ok(HeightmapSpec::Procedural { size, seed });
        }
        if s.trim().is_empty() {
            return Err(bad("empty; expected a .png path or procedural:SIZE".into()));
        }
        let p = PathBuf::from(s);
        match p
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
        {
            Some(e) if e == "png" => Ok(HeightmapSpec::Png(p)),
            _ => Err(bad(
                "expected a .png path (16-bit grayscale with a JSON sidecar) or procedural:SIZE"
                    .into(),
            )),
        }
    }
}

impl std::str::FromStr for HeightmapSpec {
    type Err = TerrainError;
    fn from_str(s: &str) -> Result<Self, TerrainError> {
        Self::parse(s)
    }
}

/// Scale options applied on top of a source.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HeightmapOptions {
    /// World units between neighbouring samples. `None` = the source's default
    /// (PNG / raw: 64 units; procedural: 32 units).
    pub horizontal_scale: Option<f64>,
    /// World units per source height unit (metres for PNG sidecars). `None` = the source's
    /// default (PNG: 0.1 unit per metre, so ETOPO5's 18 km of relief spans 1,800 units against
    /// 64 units per 9.26 km sample: about 14× vertical exaggeration, without which global
    /// relief is invisible; procedural and raw: 1).
    pub vertical_scale: Option<f32>,
}

/// The JSON sidecar of a 16-bit PNG heightmap (see realdata/terrain/etopo5.json).
#[derive(Clone, Debug, serde::Deserialize)]
pub struct Sidecar {
    /// The PNG's width as the sidecar states it.
    pub width: Option<u32>,
    /// The PNG's height as the sidecar states it.
    pub height: Option<u32>,
    /// The height in metres of sample value 0.
    pub height_min_m: f64,
    /// The height in metres of sample value 65535.
    pub height_max_m: f64,
    /// Free text; "wraps in longitude" / "wrap" turns on wrapping in x.
    #[serde(default)]
    pub sample_spacing: Option<String>,
    /// Explicit wrap flag; overrides the text.
    #[serde(default)]
    pub wrap_x: Option<bool>,
    /// Which way the rows run, in words (see `row0_is_north`).
    #[serde(default)]
    pub row_order: Option<String>,
}

impl Sidecar {
    /// Whether the map wraps around in x (a whole globe in longitude).
    pub fn wraps_x(&self) -> bool {
        if let Some(w) = self.wrap_x {
            return w;
        }
        self.sample_spacing
            .as_deref()
            .map(|s| s.to_ascii_lowercase().contains("wrap"))
            .unwrap_or(false)
    }

    /// `row 0 is … south` (the default and ETOPO5's order) keeps row 0 at y = 0; a row order
    /// that says row 0 is north flips rows so +Y stays north.
    pub fn row0_is_north(&self) -> bool {
        let Some(r) = self.row_order.as_deref() else {
            return false;
        };
        let r = r.to_ascii_lowercase();
        match (r.find("north"), r.find("south")) {
            (Some(n), Some(s)) => n < s && r.contains("row 0"),
            (Some(_), None) => r.contains("row 0"),
            _ => false,
        }
    }

    /// The sidecar's decode formula: `meters = min + value / 65535 · (max − min)`.
    pub fn decode(&self, v: u16) -> f64 {
        self.height_min_m + v as f64 / 65535.0 * (self.height_max_m - self.height_min_m)
    }
}

#[derive(Clone, Debug)]
enum Source {
    /// 16-bit samples with a linear decode `offset + v · scale` (source units = metres).
    U16 {
        width: u32,
        height: u32,
        data: Vec<u16>,
        offset: f64,
        scale: f64,
    },
    F32 {
        width: u32,
        height: u32,
        data: Vec<f32>,
    },
    Procedural {
        size: u64,
        noise: FractalNoise,
    },
    /// Height 0 everywhere (`flat:SIZE`).
    Flat {
        size: u64,
    },
}

/// A height source with its world scale. Heights returned by every method are world units.
#[derive(Clone, Debug)]
pub struct Heightmap {
    source: Source,
    /// World units between neighbouring samples.
    pub horizontal_scale: f64,
    /// World units per source height unit.
    pub vertical_scale: f32,
    /// Wrap in x (longitude for ETOPO5); otherwise x is clamped. y is always clamped
    /// (procedural sources are unbounded in both).
    pub wrap_x: bool,
    /// For messages: the file or the procedural spelling.
    pub name: String,
}

impl Heightmap {
    /// World units between samples of a PNG heightmap, by default.
    pub const DEFAULT_GRID_SPACING: f64 = 64.0;
    /// World units between samples of a procedural heightmap, by default.
    pub const DEFAULT_PROCEDURAL_SPACING: f64 = 32.0;
    /// World units per metre of a PNG heightmap's heights, by default.
    pub const DEFAULT_PNG_VERTICAL: f32 = 0.1;

    /// Open what the command line names.
    pub fn open(spec: &HeightmapSpec, opts: HeightmapOptions) -> Result<Self, TerrainError> {
        match spec {
            HeightmapSpec::Png(p) => Self::load_png(p, opts),
            HeightmapSpec::Procedural { size, seed } => {
                Ok(Self::procedural(*size, *seed).with_options(opts))
            }
            HeightmapSpec::Flat { size } => Ok(Self::flat(*size).with_options(opts)),
        }
    }

    /// The options' scales over the source's defaults.
    fn with_options(mut self, opts: HeightmapOptions) -> Self {
        if let Some(s) = opts.horizontal_scale {
            self.horizontal_scale = s;
        }
        if let Some(v) = opts.vertical_scale {
            self.vertical_scale = v;
        }
        self
    }

    /// Where the sidecar of `png` is: `<stem>.json` next to it, else the `.json` in the same
    /// folder whose stem is the longest prefix of the PNG's stem (`etopo5.json` for
    /// `etopo5_4320x2161.png`).
    pub fn sidecar_path(png: &Path) -> Option<PathBuf> {
        let direct = png.with_extension("json");
        if direct.is_file() {
            return Some(direct);
        }
        let stem = png.file_stem()?.to_str()?;
        let dir = png
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let mut best: Option<(usize, PathBuf)> = None;
        for e in std::fs::read_dir(dir).ok()?.flatten() {
            let p = e.path();
            if p.extension().and_then(|x| x.to_str()) != Some("json") {
                continue;
            }
            let Some(s) = p.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if stem.starts_with(s) && best.as_ref().map(|(l, _)| s.len() > *l).unwrap_or(true) {
                best = Some((s.len(), p));
            }
        }
        best.map(|(_, p)| p)
    }

    /// Reads and checks the sidecar at `path`.
    pub fn read_sidecar(path: &Path) -> Result<Sidecar, TerrainError> {
        let text = std::fs::read_to_string(path).map_err(|e| TerrainError::Io {
            path: path.to_path_buf(),
            error: e,
        })?;
        let sc: Sidecar = serde_json::from_str(&text).map_err(|e| TerrainError::Sidecar {
            path: path.to_path_buf(),
            why: format!("{e} (needs height_min_m and height_max_m numbers)"),
        })?;
        if !(sc.height_min_m.is_finite()
            && sc.height_max_m.is_finite()
            && sc.height_max_m > sc.height_min_m)
        {
            return Err(TerrainError::Sidecar {
                path: path.to_path_buf(),
                why: format!(
                    "height_min_m {} must be below height_max_m {} (both finite)",
                    sc.height_min_m, sc.height_max_m
                ),
            });
        }
        // The scale is (max − min) / 65535 metres a step: ±1e308 would overflow it to
        // infinity. No terrain on Earth spans more than 20 km; 100 km is the limit.
        if sc.height_min_m.abs().max(sc.height_max_m.abs()) > MAX_HEIGHT_M {
            return Err(TerrainError::Sidecar {
                path: path.to_path_buf(),
                why: format!(
                    "height_min_m {} and height_max_m {} must lie within ±{MAX_HEIGHT_M} m",
                    sc.height_min_m, sc.height_max_m
                ),
            });
        }
        Ok(sc)
    }

    /// Load a 16-bit grayscale PNG with its JSON sidecar.
    pub fn load_png(path: &Path, opts: HeightmapOptions) -> Result<Self, TerrainError> {
        if !path.is_file() {
            return Err(TerrainError::Missing {
                path: path.to_path_buf(),
            });
        }
        let sc_path = Self::sidecar_path(path).ok_or_else(|| TerrainError::NoSidecar {
            path: path.to_path_buf(),
            looked_for: path.with_extension("json"),
        })?;
        let sc = Self::read_sidecar(&sc_path)?;
        let img = image::ImageReader::open(path)
            .map_err(|e| TerrainError::Io {
                path: path.to_path_buf(),
                error: e,
            })?
            .with_guessed_format()
            .map_err(|e| TerrainError::Io {
                path: path.to_path_buf(),
                error: e,
            })?
            .decode()
            .map_err(|e| TerrainError::Image {
                path: path.to_path_buf(),
                why: e.to_string(),
            })?;
        let img = match img {
            image::DynamicImage::ImageLuma16(g) => g,
            other => {
                return Err(TerrainError::Image {
                    path: path.to_path_buf(),
                    why: format!(
                        "expected 16-bit grayscale, found {:?}; re-export as 16-bit gray",
                        other.color()
                    ),
                })
            }
        };
        let (w, h) = img.dimensions();
        if let (Some(sw), Some(sh)) = (sc.width, sc.height) {
            if (sw, sh) != (w, h) {
                return Err(TerrainError::Sidecar {
                    path: sc_path,
                    why: format!("says {sw}×{sh} but {} is {w}×{h}", path.display()),
                });
            }
        }
        if w < 2 || h < 2 {
            return Err(TerrainError::Image {
                path: path.to_path_buf(),
                why: format!("{w}×{h} is too small"),
            });
        }
        let mut data = img.into_raw();
        if sc.row0_is_north() {
            let wu = w as usize;
            let rows: Vec<Vec<u16>> = data.chunks(wu).rev().map(|r| r.to_vec()).collect();
            data = rows.concat();
        }
        Ok(Self {
            source: Source::U16 {
                width: w,
                height: h,
                data,
                offset: sc.height_min_m,
                scale: (sc.height_max_m - sc.height_min_m) / 65535.0,
            },
            horizontal_scale: opts.horizontal_scale.unwrap_or(Self::DEFAULT_GRID_SPACING),
            vertical_scale: opts.vertical_scale.unwrap_or(Self::DEFAULT_PNG_VERTICAL),
            wrap_x: sc.wraps_x(),
            name: path.display().to_string(),
        })
    }

    /// A raw f32 grid, row-major, row 0 at y = 0; heights are already world units.
    pub fn from_f32(width: u32, height: u32, data: Vec<f32>) -> Result<Self, TerrainError> {
        if width < 2 || height < 2 || data.len() != width as usize * height as usize {
            return Err(TerrainError::BadRaw {
                width,
                height,
                len: data.len(),
            });
        }
        Ok(Self {
            source: Source::F32 {
                width,
                height,
                data,
            },
            horizontal_scale: Self::DEFAULT_GRID_SPACING,
            vertical_scale: 1.0,
            wrap_x: false,
            name: format!("raw {width}×{height}"),
        })
    }

    /// Fractal noise over a `size`² square (sampling outside it is still defined).
    pub fn procedural(size: u64, seed: u64) -> Self {
        Self::from_noise(size, FractalNoise::for_size(size, seed))
    }

    /// `noise` as a heightmap of `size` samples a side.
    pub fn from_noise(size: u64, noise: FractalNoise) -> Self {
        Self {
            source: Source::Procedural { size, noise },
            horizontal_scale: Self::DEFAULT_PROCEDURAL_SPACING,
            vertical_scale: 1.0,
            wrap_x: false,
            name: format!("procedural:{size}"),
        }
    }

    /// Height 0 everywhere, `size` samples a side, the procedural spacing.
    pub fn flat(size: u64) -> Self {
        Self {
            source: Source::Flat { size },
            horizontal_scale: Self::DEFAULT_PROCEDURAL_SPACING,
            vertical_scale: 1.0,
            wrap_x: false,
            name: format!("flat:{size}"),
        }
    }

    /// The same heights with `horizontal` world units between samples and `vertical` world
    /// units per unit of height.
    pub fn with_scales(mut self, horizontal: f64, vertical: f32) -> Self {
        self.horizontal_scale = horizontal;
        self.vertical_scale = vertical;
        self
    }

    /// Samples in x and y.
    pub fn size(&self) -> (u64, u64) {
        match &self.source {
            Source::U16 { width, height, .. } | Source::F32 { width, height, .. } => {
                (*width as u64, *height as u64)
            }
            Source::Procedural { size, .. } | Source::Flat { size } => (*size, *size),
        }
    }

    /// Computed, not stored (procedural and flat sources): bounds are analytic.
    pub fn is_procedural(&self) -> bool {
        matches!(self.source, Source::Procedural { .. } | Source::Flat { .. })
    }

    /// The world extent `(size − 1) · horizontal_scale` in x and y.
    pub fn world_size(&self) -> (f64, f64) {
        let (w, h) = self.size();
        (
            (w - 1) as f64 * self.horizontal_scale,
            (h - 1) as f64 * self.horizontal_scale,
        )
    }

    /// The raw 16-bit value of a PNG source (for tests against the sidecar formula).
    pub fn raw_u16(&self, ix: u32, iy: u32) -> Option<u16> {
        match &self.source {
            Source::U16 {
                width,
                height,
                data,
                ..
            } if ix < *width && iy < *height => {
                Some(data[iy as usize * *width as usize + ix as usize])
            }
            _ => None,
        }
    }

    /// Height in source units (metres for PNG) before the vertical scale.
    #[inline]
    pub fn sample_source(&self, ix: i64, iy: i64) -> f32 {
        match &self.source {
            Source::U16 {
                width,
                height,
                data,
                offset,
                scale,
            } => {
                let (x, y) = self.index(ix, iy, *width, *height);
                (*offset + data[y * *width as usize + x] as f64 * *scale) as f32
            }
            Source::F32 {
                width,
                height,
                data,
            } => {
                let (x, y) = self.index(ix, iy, *width, *height);
                data[y * *width as usize + x]
            }
            Source::Procedural { noise, .. } => noise.value(ix, iy),
            Source::Flat { .. } => 0.0,
        }
    }

    #[inline]
    fn index(&self, ix: i64, iy: i64, w: u32, h: u32) -> (usize, usize) {
        let x = if self.wrap_x {
            ix.rem_euclid(w as i64)
        } else {
            ix.clamp(0, w as i64 - 1)
        };
        (x as usize, iy.clamp(0, h as i64 - 1) as usize)
    }

    /// Height in world units at an integer sample coordinate.
    #[inline]
    pub fn sample(&self, ix: i64, iy: i64) -> f32 {
        self.sample_source(ix, iy) * self.vertical_scale
    }

    /// Bilinear height at a position in sample coordinates; exact samples are returned as-is.
    pub fn height_at_sample_pos(&self, u: f64, v: f64) -> f32 {
        let (ui, vi) = (u.floor(), v.floor());
        let (fu, fv) = ((u - ui) as f32, (v - vi) as f32);
        let (ix, iy) = (ui as i64, vi as i64);
        if fu == 0.0 && fv == 0.0 {
            return self.sample(ix, iy);
        }
        let h00 = self.sample(ix, iy);
        let h10 = if fu != 0.0 {
            self.sample(ix + 1, iy)
        } else {
            h00
        };
        let h01 = if fv != 0.0 {
            self.sample(ix, iy + 1)
        } else {
            h00
        };
        let h11 = if fu != 0.0 && fv != 0.0 {
            self.sample(ix + 1, iy + 1)
        } else if fu != 0.0 {
            h10
        } else {
            h01
        };
        let a = h00 + (h10 - h00) * fu;
        let b = h01 + (h11 - h01) * fu;
        a + (b - a) * fv
    }

    /// Height at a world position.
    pub fn height_at(&self, x: f64, y: f64) -> f32 {
        self.height_at_sample_pos(x / self.horizontal_scale, y / self.horizontal_scale)
    }

    /// Height of the clipmap grid point `(gx, gy)` of a level with `spacing` world units.
    #[inline]
    pub fn grid_height(&self, gx: i64, gy: i64, spacing: f64) -> f32 {
        let k = spacing / self.horizontal_scale;
        self.height_at_sample_pos(gx as f64 * k, gy as f64 * k)
    }

    /// Fill `out` (row-major, `w` × `h`) with the grid heights of the rectangle starting at
    /// `(gx0, gy0)` of a level with `spacing`: the tile generator for streaming.
    pub fn fill_grid(
        &self,
        gx0: i64,
        gy0: i64,
        w: usize,
        h: usize,
        spacing: f64,
        out: &mut Vec<f32>,
    ) {
        out.reserve(w * h);
        for y in 0..h as i64 {
            for x in 0..w as i64 {
                out.push(self.grid_height(gx0 + x, gy0 + y, spacing));
            }
        }
    }

    /// Inclusive sample rectangle `[x0, x1] × [y0, y1]` bound, cheap, conservative, in world
    /// units: analytic for procedural sources, `None` for stored grids (use the pyramid).
    pub fn analytic_bound(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> Option<(f32, f32)> {
        match &self.source {
            Source::Procedural { noise, .. } => {
                let (lo, hi) = noise.bound(x0, y0, x1, y1);
                let (a, b) = (lo * self.vertical_scale, hi * self.vertical_scale);
                Some((a.min(b), a.max(b)))
            }
            Source::Flat { .. } => Some((0.0, 0.0)),
            _ => None,
        }
    }

    /// Brute-force min/max (world units) over an inclusive sample rectangle (test oracle and
    /// the pyramid's leaf computation).
    pub fn brute_min_max(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> (f32, f32) {
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let v = self.sample(x, y);
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        (lo, hi)
    }
}
