//! `lanthorn compare-image A.png B.png`: how far two renders of one view differ, for the
//! quakespasm comparison (`scripts/compare-quakespasm.sh`): mean absolute error in linear light,
//! SSIM on greyscale, and the share of pure-black pixels in each.

use std::path::Path;

use anyhow::Context;

/// What `compare` finds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImageComparison {
    /// Mean over pixels and RGB channels of |a − b| after decoding sRGB to linear (0..1).
    pub mae_linear: f64,
    /// Mean SSIM of the greyscale images (8×8 windows every 4 pixels; 1 = identical).
    pub ssim: f64,
    /// Shares of pixels that are exactly (0, 0, 0).
    pub black_a: f64,
    pub black_b: f64,
}

/// sRGB byte → linear light.
fn linear(v: u8) -> f64 {
    let c = v as f64 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Rec. 601 luma of the gamma-encoded bytes, 0..255 (SSIM's usual greyscale).
fn grey(img: &image::RgbaImage) -> Vec<f64> {
    img.pixels()
        .map(|p| 0.299 * p[0] as f64 + 0.587 * p[1] as f64 + 0.114 * p[2] as f64)
        .collect()
}

/// Summed-area table with a zero first row and column: `(w + 1) × (h + 1)`.
fn integral(v: &[f64], w: usize, h: usize) -> Vec<f64> {
    let mut s = vec![0.0; (w + 1) * (h + 1)];
    for y in 0..h {
        let mut row = 0.0;
        for x in 0..w {
            row += v[y * w + x];
            s[(y + 1) * (w + 1) + x + 1] = s[y * (w + 1) + x + 1] + row;
        }
    }
    s
}

const WINDOW: usize = 8;
const STEP: usize = 4;

/// Mean SSIM (Wang et al. 2004, uniform windows) of two greyscale images of `w × h`.
pub fn ssim(a: &[f64], b: &[f64], w: usize, h: usize) -> f64 {
    if w < WINDOW || h < WINDOW {
        return if a == b { 1.0 } else { 0.0 };
    }
    let prod =
        |f: fn(f64, f64) -> f64| -> Vec<f64> { a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect() };
    let sums = [
        integral(a, w, h),
        integral(b, w, h),
        integral(&prod(|x, _| x * x), w, h),
        integral(&prod(|_, y| y * y), w, h),
        integral(&prod(|x, y| x * y), w, h),
    ];
    let box_sum = |s: &[f64], x: usize, y: usize| {
        let (x1, y1) = (x + WINDOW, y + WINDOW);
        s[y1 * (w + 1) + x1] - s[y * (w + 1) + x1] - s[y1 * (w + 1) + x] + s[y * (w + 1) + x]
    };
    let (c1, c2) = ((0.01f64 * 255.0).powi(2), (0.03f64 * 255.0).powi(2));
    let n = (WINDOW * WINDOW) as f64;
    let (mut total, mut count) = (0.0, 0usize);
    for y in (0..=h - WINDOW).step_by(STEP) {
        for x in (0..=w - WINDOW).step_by(STEP) {
            let [sa, sb, saa, sbb, sab] = sums.each_ref().map(|s| box_sum(s, x, y) / n);
            let (va, vb, cov) = (saa - sa * sa, sbb - sb * sb, sab - sa * sb);
            total += ((2.0 * sa * sb + c1) * (2.0 * cov + c2))
                / ((sa * sa + sb * sb + c1) * (va + vb + c2));
            count += 1;
        }
    }
    total / count as f64
}

/// Compares two images of the same size.
pub fn compare(a: &image::RgbaImage, b: &image::RgbaImage) -> anyhow::Result<ImageComparison> {
    if a.dimensions() != b.dimensions() {
        anyhow::bail!(
            "the images differ in size ({}x{} and {}x{}): render both at one size",
            a.width(),
            a.height(),
            b.width(),
            b.height()
        );
    }
    let n = (a.width() * a.height()) as f64;
    let lut: Vec<f64> = (0..=255u8).map(linear).collect();
    let mut err = 0.0;
    let (mut black_a, mut black_b) = (0usize, 0usize);
    for (pa, pb) in a.pixels().zip(b.pixels()) {
        for c in 0..3 {
            err += (lut[pa[c] as usize] - lut[pb[c] as usize]).abs();
        }
        black_a += (pa[0] | pa[1] | pa[2] == 0) as usize;
        black_b += (pb[0] | pb[1] | pb[2] == 0) as usize;
    }
    let (w, h) = (a.width() as usize, a.height() as usize);
    Ok(ImageComparison {
        mae_linear: err / (3.0 * n),
        ssim: ssim(&grey(a), &grey(b), w, h),
        black_a: black_a as f64 / n,
        black_b: black_b as f64 / n,
    })
}

/// The two images next to each other (A left), for looking at.
pub fn side_by_side(a: &image::RgbaImage, b: &image::RgbaImage) -> image::RgbaImage {
    let mut out = image::RgbaImage::new(a.width() + b.width(), a.height().max(b.height()));
    image::imageops::replace(&mut out, a, 0, 0);
    image::imageops::replace(&mut out, b, a.width() as i64, 0);
    out
}

fn open(path: &Path) -> anyhow::Result<image::RgbaImage> {
    Ok(image::open(path)
        .with_context(|| format!("{}: cannot read the image", path.display()))?
        .to_rgba8())
}

/// `lanthorn compare-image A B [--side-by-side OUT]`: prints one JSON object.
pub fn run_command(a: &Path, b: &Path, side: Option<&Path>) -> anyhow::Result<()> {
    let (ia, ib) = (open(a)?, open(b)?);
    let c = compare(&ia, &ib).with_context(|| format!("{} and {}", a.display(), b.display()))?;
    if let Some(out) = side {
        super::capture::save_png(&side_by_side(&ia, &ib), out)?;
    }
    println!(
        "{{\"mae_linear\": {:.5}, \"ssim\": {:.4}, \"black_a\": {:.4}, \"black_b\": {:.4}}}",
        c.mae_linear, c.ssim, c.black_a, c.black_b
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(w: u32, h: u32, v: u8) -> image::RgbaImage {
        image::RgbaImage::from_pixel(w, h, image::Rgba([v, v, v, 255]))
    }

    /// Analytic answers: black against white is an error of 1 in linear light and black
    /// shares of 1 and 0; sRGB 188 is linear 0.5 (to 3 digits); an image against itself has
    /// SSIM 1 and error 0.
    #[test]
    fn flat_images_give_the_analytic_answers() {
        let c = compare(&flat(16, 16, 0), &flat(16, 16, 255)).unwrap();
        assert_eq!(c.mae_linear, 1.0);
        assert_eq!((c.black_a, c.black_b), (1.0, 0.0));
        let c = compare(&flat(16, 16, 0), &flat(16, 16, 188)).unwrap();
        assert!((c.mae_linear - 0.5).abs() < 0.003, "{c:?}");
        let mut noise = flat(64, 48, 0);
        for (i, p) in noise.pixels_mut().enumerate() {
            let v = (i as u32).wrapping_mul(2654435761) >> 24;
            *p = image::Rgba([v as u8, (v / 2) as u8, 255 - v as u8, 255]);
        }
        let c = compare(&noise, &noise).unwrap();
        assert_eq!((c.mae_linear, c.ssim), (0.0, 1.0));
        assert!(compare(&noise, &flat(64, 47, 0)).is_err());
    }

    /// SSIM falls with structure: noise against its negative is strongly anticorrelated
    /// (SSIM < 0), against a slightly brightened copy it stays near 1.
    #[test]
    fn ssim_tracks_structure_not_small_shifts_in_level() {
        let (w, h) = (64, 48);
        let a: Vec<f64> = (0..w * h)
            .map(|i| ((i as u32).wrapping_mul(2654435761) >> 24) as f64)
            .collect();
        let neg: Vec<f64> = a.iter().map(|v| 255.0 - v).collect();
        let brighter: Vec<f64> = a.iter().map(|v| (v * 0.95 + 10.0).min(255.0)).collect();
        assert!(ssim(&a, &neg, w, h) < 0.0);
        assert!(ssim(&a, &brighter, w, h) > 0.95);
    }
}
