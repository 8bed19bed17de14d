//! Textures generated in code, for scenes that name them (`Procedural("brick")`) and levels
//! built in code: the built-in yard's floor, brick and crate, and a Quake-layout sky. They
//! need no data file.

use lanthorn_level::{material_flags, Material};

/// The names `procedural` knows.
pub const NAMES: [&str; 4] = ["floor", "brick", "crate", "sky"];

/// The generated material `name` (one of `NAMES`), named `name`; `None` for another name.
pub fn procedural(name: &str) -> Option<Material> {
    let mut m = match name {
        "floor" => square(128, floor_texel),
        "brick" => square(128, brick_texel),
        "crate" => square(64, crate_texel),
        "sky" => sky(),
        _ => return None,
    };
    m.name = name.into();
    Some(m)
}

/// A hash of a texel position to 0..1: the noise of every generator.
fn hash(x: u32, y: u32, seed: u32) -> f32 {
    let mut h =
        x.wrapping_mul(374761393) ^ y.wrapping_mul(668265263) ^ seed.wrapping_mul(2246822519);
    h = (h ^ (h >> 13)).wrapping_mul(1274126177);
    ((h ^ (h >> 16)) & 0xffff) as f32 / 65535.0
}

/// A `size`² material from a texel function (RGB 0..1, gamma-encoded as texels are).
fn square(size: u32, texel: fn(u32, u32) -> [f32; 3]) -> Material {
    rgba(size, size, [0.5; 3], texel)
}

fn rgba(w: u32, h: u32, color: [f32; 3], texel: impl Fn(u32, u32) -> [f32; 3]) -> Material {
    let mut texels = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let c = texel(x, y);
            texels.extend(c.iter().map(|v| (v.clamp(0.0, 1.0) * 255.0) as u8));
            texels.push(255);
        }
    }
    Material {
        name: String::new(),
        width: w,
        height: h,
        texels: Some(texels),
        fullbright: None,
        color,
        flags: 0,
        ..Default::default()
    }
}

fn floor_texel(x: u32, y: u32) -> [f32; 3] {
    let tile = ((x / 32) + (y / 32)) % 2;
    let grout = x.is_multiple_of(32) || y.is_multiple_of(32);
    let n = hash(x / 2, y / 2, 1) * 0.12;
    let base = if grout {
        0.22
    } else if tile == 0 {
        0.55
    } else {
        0.45
    };
    [base + n, base + n * 0.9, base * 0.9 + n * 0.8]
}

fn brick_texel(x: u32, y: u32) -> [f32; 3] {
    let row = y / 16;
    let offset = if row.is_multiple_of(2) { 0 } else { 16 };
    let mortar = y.is_multiple_of(16) || (x + offset).is_multiple_of(32);
    let n = hash((x + offset) / 32, row, 2) * 0.2 + hash(x, y, 3) * 0.08;
    if mortar {
        [0.35, 0.33, 0.3]
    } else {
        [0.5 + n, 0.25 + n * 0.5, 0.18 + n * 0.3]
    }
}

fn crate_texel(x: u32, y: u32) -> [f32; 3] {
    let border = x < 4 || y < 4 || x >= 60 || y >= 60;
    let diagonal = (x as i32 - y as i32).abs() < 3;
    let grain = hash(x / 8, y, 4) * 0.1;
    if border || diagonal {
        [0.45 + grain, 0.3 + grain, 0.12]
    } else {
        [0.62 + grain, 0.45 + grain, 0.22]
    }
}

/// Quake's sky layout: 256×128, the left half the front layer (black = transparent), the right
/// half the back; flagged sky.
fn sky() -> Material {
    let mut m = rgba(256, 128, [0.3, 0.4, 0.7], |x, y| {
        let n = (hash(x / 8, y / 8, 5) + hash(x / 4, y / 4, 6) * 0.5) / 1.5;
        if x < 128 {
            if n > 0.6 {
                [0.9 * n, 0.9 * n, 0.95 * n]
            } else {
                [0.0, 0.0, 0.0]
            }
        } else {
            [0.15 + 0.1 * n, 0.3 + 0.1 * n, 0.6 + 0.1 * n]
        }
    });
    m.flags = material_flags::SKY;
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name makes a full texel array of its size; the patterns are what they claim
    /// (the brick's mortar rows, the floor's grout lines, the sky's transparent front texels).
    #[test]
    fn generators_fill_their_texels() {
        for name in NAMES {
            let m = procedural(name).unwrap();
            assert_eq!(m.name, name);
            let t = m.texels.as_ref().unwrap();
            assert_eq!(t.len() as u32, m.width * m.height * 4, "{name}");
            assert!(m.width.is_power_of_two() && m.height.is_power_of_two());
        }
        assert!(procedural("marble").is_none());
        let texel = |m: &Material, x: u32, y: u32| {
            let i = ((y * m.width + x) * 4) as usize;
            [
                m.texels.as_ref().unwrap()[i],
                m.texels.as_ref().unwrap()[i + 1],
            ]
        };
        let brick = procedural("brick").unwrap();
        // Mortar (0.35 → 89) on every 16th row; brick red above green elsewhere.
        assert_eq!(texel(&brick, 5, 16)[0], 89);
        let b = texel(&brick, 5, 8);
        assert!(b[0] > b[1] + 40, "{b:?}");
        let floor = procedural("floor").unwrap();
        // Grout (0.22 + noise) well below a tile (0.45 + noise).
        assert!(texel(&floor, 32, 7)[0] + 25 < texel(&floor, 40, 7)[0]);
        let sky = procedural("sky").unwrap();
        assert_eq!(sky.flags & material_flags::SKY, material_flags::SKY);
        let front = sky.texels.as_ref().unwrap().chunks(4).take(128);
        assert!(front.clone().any(|t| t[..3] == [0, 0, 0]));
    }
}
