//! Writes the project's own textures, `assets/textures/NAME.png`: stone, brick, flagstone,
//! wood, iron, plaster, roof, water, lava, slime, brass and flame, generated from seeded
//! tileable noise (deterministic: the same bytes on every run; `tests/textures.rs` checks that
//! the committed files are this program's output). Sizes are powers of two, 64 or 128 texels,
//! drawn for Quake's scale of about one texel per unit. Run on demand:
//!
//! ```sh
//! cargo run --release --example make_textures            # writes assets/textures/
//! cargo run --release --example make_textures -- OUTDIR  # somewhere else
//! ```

use std::path::PathBuf;

use image::{Rgb, RgbImage};

/// A texture: its name, its side in texels and its texel function (RGB 0..1).
pub(crate) struct Texture {
    pub(crate) name: &'static str,
    pub(crate) size: u32,
    texel: fn(f32, f32, f32) -> [f32; 3],
}

/// Every texture this program writes.
pub(crate) const TEXTURES: [Texture; 12] = [
    tex("stone", 128, stone),
    tex("brick", 128, brick),
    tex("flagstone", 128, flagstone),
    tex("wood", 128, wood),
    tex("iron", 64, iron),
    tex("plaster", 128, plaster),
    tex("roof", 128, roof),
    tex("water", 64, water),
    tex("lava", 64, lava),
    tex("slime", 64, slime),
    tex("brass", 64, brass),
    tex("flame", 64, flame),
];

const fn tex(name: &'static str, size: u32, texel: fn(f32, f32, f32) -> [f32; 3]) -> Texture {
    Texture { name, size, texel }
}

// Unused where tests/textures.rs includes this file as a module.
#[allow(dead_code)]
fn main() {
    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("assets/textures"), PathBuf::from);
    std::fs::create_dir_all(&dir).expect("create the output folder");
    for t in &TEXTURES {
        let path = dir.join(format!("{}.png", t.name));
        render(t).save(&path).expect("write the PNG");
        println!("{}", path.display());
    }
}

/// The texture's texels. Channels are quantised to 32 levels: the files stay small and the
/// look (a texel is a unit) does not change.
pub(crate) fn render(t: &Texture) -> RgbImage {
    let n = t.size as f32;
    RgbImage::from_fn(t.size, t.size, |x, y| {
        let c = (t.texel)(x as f32, y as f32, n);
        Rgb(c.map(|v| ((v.clamp(0.0, 1.0) * 31.0).round() * (255.0 / 31.0)).round() as u8))
    })
}

/// A hash of a lattice point to 0..1.
fn hash(x: i32, y: i32, seed: u32) -> f32 {
    let mut h = (x as u32).wrapping_mul(0x27d4_eb2d)
        ^ (y as u32).wrapping_mul(0x1656_67b1)
        ^ seed.wrapping_mul(0x9e37_79b9);
    h ^= h >> 15;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    (h & 0xffff) as f32 / 65535.0
}

/// Smooth value noise with lattice step `cell`, repeating every `period` texels (so the
/// texture tiles), 0..1.
fn noise(x: f32, y: f32, cell: f32, period: f32, seed: u32) -> f32 {
    let m = (period / cell).round().max(1.0) as i32;
    let (fx, fy) = (x / cell, y / cell);
    let (ix, iy) = (fx.floor() as i32, fy.floor() as i32);
    let (tx, ty) = (fx - ix as f32, fy - iy as f32);
    let s = |t: f32| t * t * (3.0 - 2.0 * t);
    let h = |i: i32, j: i32| hash(i.rem_euclid(m), j.rem_euclid(m), seed);
    let top = h(ix, iy) + (h(ix + 1, iy) - h(ix, iy)) * s(tx);
    let bottom = h(ix, iy + 1) + (h(ix + 1, iy + 1) - h(ix, iy + 1)) * s(tx);
    top + (bottom - top) * s(ty)
}

/// Four octaves of `noise` from lattice step `cell` down, 0..1.
fn fbm(x: f32, y: f32, cell: f32, period: f32, seed: u32) -> f32 {
    let (mut sum, mut weight, mut c, mut w) = (0.0, 0.0, cell, 1.0);
    for k in 0..4 {
        sum += noise(x, y, c, period, seed + k) * w;
        weight += w;
        c = (c * 0.5).max(1.0);
        w *= 0.5;
    }
    sum / weight
}

fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * t)
}

fn scale(c: [f32; 3], f: f32) -> [f32; 3] {
    c.map(|v| v * f)
}

/// Position inside a block of a running-bond pattern (rows `h` high, blocks `w` wide, every
/// other row shifted by `shift`): (block id x, block id y, x in block, y in block).
fn bond(x: f32, y: f32, w: f32, h: f32, shift: f32) -> (i32, i32, f32, f32) {
    let row = (y / h).floor();
    let sx = x + if row as i32 % 2 == 1 { shift } else { 0.0 };
    let col = (sx / w).floor();
    (col as i32, row as i32, sx - col * w, y - row * h)
}

/// Mortar and bevel of a block of `w × h` at (u, v) inside it: 0 in the mortar, light along
/// the top and left edges, dark along the bottom and right, 1 elsewhere.
fn bevel(u: f32, v: f32, w: f32, h: f32, mortar: f32) -> f32 {
    if u < mortar || v < mortar {
        return 0.0;
    }
    if u < mortar + 1.0 || v < mortar + 1.0 {
        1.25
    } else if u > w - 2.0 || v > h - 2.0 {
        0.75
    } else {
        1.0
    }
}

/// Grey ashlar blocks, 32 high, 64 wide, half a block shifted per row.
fn stone(x: f32, y: f32, n: f32) -> [f32; 3] {
    let (bx, by, u, v) = bond(x, y, 64.0, 32.0, 32.0);
    let b = bevel(u, v, 64.0, 32.0, 2.0);
    let tint = hash(bx.rem_euclid(2), by, 11) * 0.12;
    let grain = fbm(x, y, 16.0, n, 12) * 0.25 + hash(x as i32, y as i32, 13) * 0.06;
    if b == 0.0 {
        return scale([0.22, 0.21, 0.2], 0.8 + grain);
    }
    scale(
        [0.42 + tint, 0.41 + tint, 0.39 + tint * 0.8],
        b * (0.8 + grain),
    )
}

/// Red-brown bricks 32 × 16 in running bond with light mortar.
fn brick(x: f32, y: f32, n: f32) -> [f32; 3] {
    let (bx, by, u, v) = bond(x, y, 32.0, 16.0, 16.0);
    let b = bevel(u, v, 32.0, 16.0, 2.0);
    let grit = hash(x as i32, y as i32, 21) * 0.08 + fbm(x, y, 8.0, n, 22) * 0.15;
    if b == 0.0 {
        return scale([0.5, 0.47, 0.42], 0.85 + grit);
    }
    let t = hash(bx.rem_euclid(4), by, 23);
    let base = mix([0.5, 0.22, 0.15], [0.62, 0.32, 0.2], t);
    scale(base, b * (0.8 + grit))
}

/// The nearest two of 9 seeded points per 128 texels (tiled): (distance to the nearest, to the
/// second, the nearest's id).
fn cells(x: f32, y: f32, n: f32, seed: u32) -> (f32, f32, u32) {
    let grid = 3;
    let step = n / grid as f32;
    let (mut d1, mut d2, mut id) = (f32::MAX, f32::MAX, 0);
    let (cx, cy) = ((x / step) as i32, (y / step) as i32);
    for j in cy - 1..=cy + 1 {
        for i in cx - 1..=cx + 1 {
            let (wi, wj) = (i.rem_euclid(grid), j.rem_euclid(grid));
            let px = (i as f32 + 0.2 + 0.6 * hash(wi, wj, seed)) * step;
            let py = (j as f32 + 0.2 + 0.6 * hash(wi, wj, seed + 1)) * step;
            let d = ((px - x).powi(2) + (py - y).powi(2)).sqrt();
            if d < d1 {
                (d2, d1, id) = (d1, d, (wj * grid + wi) as u32);
            } else if d < d2 {
                d2 = d;
            }
        }
    }
    (d1, d2, id)
}

/// Irregular floor slabs (tiled Voronoi cells) with dark grout.
fn flagstone(x: f32, y: f32, n: f32) -> [f32; 3] {
    let wobble = (fbm(x, y, 16.0, n, 31) - 0.5) * 6.0;
    let (d1, d2, id) = cells(x + wobble, y - wobble, n, 32);
    let grit = fbm(x, y, 8.0, n, 33) * 0.2 + hash(x as i32, y as i32, 34) * 0.05;
    let edge = d2 - d1;
    if edge < 2.0 {
        return scale([0.2, 0.19, 0.17], 0.9 + grit);
    }
    let t = hash(id as i32, 0, 35);
    let base = mix([0.4, 0.38, 0.33], [0.5, 0.46, 0.4], t);
    scale(base, (0.8 + grit) * if edge < 3.5 { 0.8 } else { 1.0 })
}

/// Vertical planks 16 wide with grain along them and dark seams.
fn wood(x: f32, y: f32, n: f32) -> [f32; 3] {
    let plank = (x / 16.0).floor();
    let u = x - plank * 16.0;
    let seed = plank as u32;
    let warp = fbm(x, y, 32.0, n, 41 + seed) * 6.0;
    let rings = ((x * 0.9 + warp + hash(seed as i32, 0, 42) * 9.0) * 1.3).sin() * 0.5 + 0.5;
    let base = mix(
        [0.36, 0.22, 0.12],
        [0.5, 0.33, 0.18],
        rings * 0.7 + hash(seed as i32, 1, 43) * 0.3,
    );
    let fleck = hash(x as i32, y as i32, 44) * 0.05;
    let knot_y = hash(seed as i32, 2, 45) * n;
    let knot = ((u - 8.0).powi(2) + (y - knot_y).powi(2) * 0.3).sqrt() < 2.5;
    if u < 1.0 {
        return [0.12, 0.07, 0.04];
    }
    scale(base, if knot { 0.6 } else { 0.9 + fleck })
}

/// Dark riveted iron plates, 32 square, with rust in the low spots.
fn iron(x: f32, y: f32, n: f32) -> [f32; 3] {
    let (u, v) = (x % 32.0, y % 32.0);
    let rust = fbm(x, y, 16.0, n, 51);
    let base = mix(
        [0.26, 0.27, 0.29],
        [0.38, 0.22, 0.12],
        ((rust - 0.55) * 4.0).clamp(0.0, 1.0),
    );
    let scratch = hash(x as i32, (y / 3.0) as i32, 52) * 0.08;
    let seam = u < 1.0 || v < 1.0;
    let rivet = [4.0f32, 28.0].iter().any(|&a| {
        [4.0f32, 28.0]
            .iter()
            .any(|&b| (u - a).powi(2) + (v - b).powi(2) < 3.0)
    });
    if seam {
        [0.1, 0.1, 0.11]
    } else if rivet {
        [0.5, 0.5, 0.52]
    } else {
        scale(
            base,
            0.85 + scratch + if u < 2.0 || v < 2.0 { 0.2 } else { 0.0 },
        )
    }
}

/// Pale lime plaster, blotchy, with a few hairline cracks.
fn plaster(x: f32, y: f32, n: f32) -> [f32; 3] {
    let blotch = fbm(x, y, 32.0, n, 61);
    let fine = hash(x as i32, y as i32, 62) * 0.04;
    let crack = (fbm(x, y, 32.0, n, 63) - 0.5).abs() < 0.012;
    let base = mix([0.66, 0.62, 0.54], [0.76, 0.72, 0.63], blotch);
    scale(base, if crack { 0.75 } else { 0.95 + fine })
}

/// Terracotta roof tiles: rows 16 high, tiles 16 wide, each darker where the row above
/// overlaps it.
fn roof(x: f32, y: f32, n: f32) -> [f32; 3] {
    let (bx, by, u, v) = bond(x, y, 16.0, 16.0, 8.0);
    let t = hash(bx.rem_euclid(8), by, 71);
    let base = mix([0.45, 0.2, 0.12], [0.58, 0.3, 0.17], t);
    let round = 1.0 - ((u - 8.0) / 8.0).powi(2) * 0.35;
    let shade = 0.65 + 0.35 * (v / 16.0);
    let grit = fbm(x, y, 8.0, n, 72) * 0.15;
    if u < 1.0 || v < 1.0 {
        return [0.15, 0.07, 0.05];
    }
    scale(base, round * shade * (0.9 + grit))
}

/// Blue-green water with soft bands (the renderer warps liquids).
fn water(x: f32, y: f32, n: f32) -> [f32; 3] {
    let w = fbm(x, y, 16.0, n, 81);
    let band = ((x + y + w * 24.0) * (std::f32::consts::TAU / 32.0)).sin() * 0.5 + 0.5;
    mix([0.06, 0.18, 0.26], [0.16, 0.36, 0.44], band * 0.6 + w * 0.4)
}

/// Black-red crust with glowing orange cracks.
fn lava(x: f32, y: f32, n: f32) -> [f32; 3] {
    let ridge = 1.0 - (fbm(x, y, 16.0, n, 91) - 0.5).abs() * 2.0;
    let heat = ridge.powi(6);
    let crust = mix([0.18, 0.04, 0.02], [0.3, 0.08, 0.03], fbm(x, y, 8.0, n, 92));
    mix(crust, [1.0, 0.62, 0.12], heat)
}

/// Bubbly green slime.
fn slime(x: f32, y: f32, n: f32) -> [f32; 3] {
    let (d1, _, _) = cells(x, y, n, 101);
    let bubble = (1.0 - d1 / 12.0).clamp(0.0, 1.0);
    let murk = fbm(x, y, 16.0, n, 102);
    let base = mix([0.08, 0.22, 0.04], [0.2, 0.42, 0.08], murk);
    mix(base, [0.45, 0.7, 0.2], bubble * bubble)
}

/// Polished brass panel: brushed streaks, a raised border.
fn brass(x: f32, y: f32, n: f32) -> [f32; 3] {
    let streak = noise(x, 0.0, 4.0, n, 111) * 0.2 + hash(x as i32, 0, 112) * 0.06;
    let tarnish = ((fbm(x, y, 16.0, n, 113) - 0.6) * 3.0).clamp(0.0, 1.0);
    let base = mix([0.72, 0.55, 0.22], [0.42, 0.38, 0.2], tarnish);
    let (u, v) = (x.min(n - 1.0 - x), y.min(n - 1.0 - y));
    let edge = if u < 3.0 || v < 3.0 {
        if x < 3.0 || y < 3.0 {
            1.2
        } else {
            0.7
        }
    } else {
        1.0
    };
    scale(base, (0.85 + streak) * edge)
}

/// Flame tongues, white-yellow at the bottom through orange to dark red at the top.
fn flame(x: f32, y: f32, n: f32) -> [f32; 3] {
    let h = 1.0 - y / n; // 0 at the bottom row, 1 at the top
    let tongue = fbm(x, y * 0.5, 16.0, n, 121);
    let heat = ((1.0 - h) * 1.3 - (1.0 - tongue) * 0.6).clamp(0.0, 1.0);
    if heat < 0.5 {
        mix([0.25, 0.03, 0.0], [0.95, 0.35, 0.05], heat * 2.0)
    } else {
        mix([0.95, 0.35, 0.05], [1.0, 0.92, 0.6], (heat - 0.5) * 2.0)
    }
}
