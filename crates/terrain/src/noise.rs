//! The procedural height source: fractal value noise, defined at every integer sample with no
//! stored data, with a cheap bound of its range over a box.

/// Deterministic fractal value noise (fBm): the sum of `octaves` lattice-noise layers, each with
/// half the wavelength and `gain` times the amplitude of the one before. Defined at every integer
/// coordinate (i64), no storage.
#[derive(Clone, Debug, PartialEq)]
pub struct FractalNoise {
    /// What every lattice value is hashed from.
    pub seed: u64,
    /// log2 of the first octave's wavelength in samples.
    pub base_log2: u32,
    /// Layers summed.
    pub octaves: u32,
    /// Each octave's amplitude over the one before.
    pub gain: f32,
    /// Height (world units before vertical scale) of the first octave.
    pub amplitude: f32,
}

impl FractalNoise {
    /// A terrain-like default for a square of `size` samples: the first octave spans ~1/4 of
    /// the map (at most 4096 samples), octaves down to a 2-sample wavelength.
    pub fn for_size(size: u64, seed: u64) -> Self {
        let size_log2 = 63 - size.max(16).leading_zeros();
        let base_log2 = (size_log2.saturating_sub(2)).clamp(3, 12);
        Self {
            seed,
            base_log2,
            octaves: base_log2,
            gain: 0.5,
            amplitude: 2500.0,
        }
    }

    #[inline]
    fn lattice(&self, octave: u32, cx: i64, cy: i64) -> f32 {
        let mut h = self.seed ^ (octave as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= (cx as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h = h.rotate_left(31).wrapping_mul(0x1656_67B1_9E37_79F9);
        h ^= (cy as u64).wrapping_mul(0x27D4_EB2F_1656_67C5);
        // splitmix64 finaliser
        h ^= h >> 30;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 27;
        h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
        h ^= h >> 31;
        // top 24 bits → [-1, 1]
        ((h >> 40) as f32) * (2.0 / 16_777_215.0) - 1.0
    }

    /// Octave `o` (unit amplitude, in [−1, 1]) at an integer sample coordinate.
    #[inline]
    fn octave(&self, o: u32, ix: i64, iy: i64) -> f32 {
        let shift = self.base_log2 - o;
        let lambda = 1i64 << shift;
        let (cx, cy) = (ix >> shift, iy >> shift);
        let fx = (ix & (lambda - 1)) as f32 / lambda as f32;
        let fy = (iy & (lambda - 1)) as f32 / lambda as f32;
        let (wx, wy) = (fade(fx), fade(fy));
        let v00 = self.lattice(o, cx, cy);
        let v10 = self.lattice(o, cx + 1, cy);
        let v01 = self.lattice(o, cx, cy + 1);
        let v11 = self.lattice(o, cx + 1, cy + 1);
        let a = v00 + (v10 - v00) * wx;
        let b = v01 + (v11 - v01) * wx;
        a + (b - a) * wy
    }

    /// Noise value at an integer sample coordinate.
    pub fn value(&self, ix: i64, iy: i64) -> f32 {
        let mut sum = 0.0f32;
        let mut amp = self.amplitude;
        for o in 0..self.octaves.min(self.base_log2) {
            sum += amp * self.octave(o, ix, iy);
            amp *= self.gain;
        }
        sum
    }

    /// A conservative bound of `value` over the inclusive sample rectangle `[x0, x1] × [y0, y1]`
    /// without visiting its samples. Per octave the tighter of: the hull of the lattice values
    /// that can influence the rectangle (interpolation weights are convex; ±1 when there are
    /// too many), and the value at the rectangle's centre ± the octave's Lipschitz bound
    /// (quintic fade: |∂v/∂x| ≤ 2 · 15/8 / λ) times the distance to the rectangle's edges.
    pub fn bound(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> (f32, f32) {
        let (mut lo, mut hi) = (0.0f32, 0.0f32);
        let mut amp = self.amplitude;
        let (cx, cy) = (x0 + (x1 - x0) / 2, y0 + (y1 - y0) / 2);
        let reach = ((cx - x0).max(x1 - cx) + (cy - y0).max(y1 - cy)) as f32;
        for o in 0..self.octaves.min(self.base_log2) {
            let shift = self.base_log2 - o;
            let (mut mn, mut mx) = (-1.0f32, 1.0f32);
            let lip = 3.75 * reach / (1i64 << shift) as f32;
            if lip < 1.0 {
                let v = self.octave(o, cx, cy);
                // A hair of slack for f32 rounding in `octave`.
                mn = mn.max(v - lip - 1e-5);
                mx = mx.min(v + lip + 1e-5);
            }
            let (lx0, ly0, lx1, ly1) = (
                x0 >> shift,
                y0 >> shift,
                (x1 >> shift) + 1,
                (y1 >> shift) + 1,
            );
            if (lx1 - lx0 + 1) * (ly1 - ly0 + 1) <= 16 {
                let (mut hmn, mut hmx) = (1.0f32, -1.0f32);
                for ly in ly0..=ly1 {
                    for lx in lx0..=lx1 {
                        let v = self.lattice(o, lx, ly);
                        hmn = hmn.min(v);
                        hmx = hmx.max(v);
                    }
                }
                mn = mn.max(hmn);
                mx = mx.min(hmx);
            }
            lo += amp * mn;
            hi += amp * mx;
            amp *= self.gain;
        }
        (lo, hi)
    }
}

#[inline]
fn fade(t: f32) -> f32 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}
