//! The frame's depth, cleared once every [`BANDS`] frames instead of every frame.
//!
//! On llvmpipe a render pass that clears its depth costs the frame more than the clear's bytes
//! (e2m5's first spawn: 3.90 → 3.79 ms without the depth clear, 3.59 ms without any clear;
//! docs/performance.md, "2026-12-07 (nineteenth session)"). So each frame writes its reverse-Z
//! depths into a band of its own, the viewport's depth range, and the bands rise frame by
//! frame: every depth a frame writes lies above every depth the frames since the last clear
//! left, so a stale depth never hides a fragment, as if the depth had been cleared.
//!
//! A band spans [`BAND_SPAN`] binades: a depth d of the projection's (0, 1] lands at
//! `low + d (high − low)`, with `low = high / BAND_SPAN`. Where d is above `1 / BAND_SPAN`
//! (nearer than `BAND_SPAN` near planes, 1,024 units) the stored float keeps d's relative
//! precision within a factor of 2; farther, the offset `low` costs it gradually, a factor of
//! 1 + z / (near · `BAND_SPAN`): two surfaces 0.07 units apart at 32,768 units still differ.
//! The lowest band stays far above the subnormal floats a rasterizer may flush to zero.

/// Frames between two clears of the depth: the bands of one cycle.
pub const BANDS: u32 = 12;
/// How many times the top of a band is its bottom.
pub const BAND_SPAN: f32 = 256.0;

/// The depth a frame starts with: cleared to 0 (far, reverse-Z) or kept, and the viewport's
/// depth range its fragments are written into.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthBand {
    /// Clear the depth first (the first band of a cycle).
    pub clear: bool,
    /// The viewport's [min, max] depth.
    pub range: [f32; 2],
}

impl DepthBand {
    /// The whole range, cleared first: what a frame without bands does.
    pub const CLEARED: DepthBand = DepthBand {
        clear: true,
        range: [0.0, 1.0],
    };

    /// Band `k` of a cycle (0 ..= `BANDS - 1`): `[top / BAND_SPAN, top]` with
    /// `top = BAND_SPAN^-(BANDS - 1 - k)`; band 0 is cleared first.
    pub fn of(k: u32) -> DepthBand {
        let k = k.min(BANDS - 1);
        let top = BAND_SPAN.powi(-((BANDS - 1 - k) as i32));
        DepthBand {
            clear: k == 0,
            range: [top / BAND_SPAN, top],
        }
    }

    /// Where a projected depth `d` in [0, 1] is stored (the viewport transform).
    pub fn stored(&self, d: f32) -> f32 {
        self.range[0] + d * (self.range[1] - self.range[0])
    }
}

/// The frames' place in the cycle of bands.
#[derive(Clone, Copy, Debug, Default)]
pub struct DepthBands {
    next: u32,
}

impl DepthBands {
    /// The next frame's band (`on`: bands at all; off, every frame clears the whole range).
    pub fn next_frame(&mut self, on: bool) -> DepthBand {
        if !on {
            // The next frame with bands starts a cycle: this one's depths fill [0, 1].
            self.next = 0;
            return DepthBand::CLEARED;
        }
        let band = DepthBand::of(self.next);
        self.next = (self.next + 1) % BANDS;
        band
    }

    /// The next frame clears (the depth was made again, or written by something else).
    pub fn restart(&mut self) {
        self.next = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The invariant the scheme rests on: every depth of a band lies at or above every depth
    /// of the bands before it in the cycle, and only the first band clears.
    #[test]
    fn each_band_lies_above_the_bands_before_it() {
        let mut bands = DepthBands::default();
        let cycle: Vec<DepthBand> = (0..BANDS).map(|_| bands.next_frame(true)).collect();
        assert!(cycle[0].clear && cycle[1..].iter().all(|b| !b.clear));
        assert_eq!(bands.next_frame(true), cycle[0], "the cycle repeats");
        for pair in cycle.windows(2) {
            assert!(pair[1].stored(0.0) >= pair[0].stored(1.0), "{pair:?}");
        }
        assert_eq!(cycle[BANDS as usize - 1].range[1], 1.0);
    }

    /// The stored depths stay normal floats with room below for the rasterizer's gradients,
    /// and stay ordered as the projected depths are, at every distance a level or a terrain
    /// shows (brute force over z from the near plane to 10⁷ units).
    #[test]
    fn stored_depths_keep_their_order_and_precision() {
        let near = 4.0f64;
        for k in 0..BANDS {
            let band = DepthBand::of(k);
            assert!(
                band.range[0] > f32::MIN_POSITIVE * 2f32.powi(24),
                "{band:?}"
            );
            let mut last = f32::INFINITY;
            let mut z = near;
            while z < 1e7 {
                let stored = band.stored((near / z) as f32);
                assert!(
                    stored <= last,
                    "band {k}: z {z} stored {stored} above {last}"
                );
                // Two surfaces 1 % of the distance apart stay apart.
                let behind = band.stored((near / (z * 1.01)) as f32);
                assert!(behind < stored, "band {k}: z {z} and 1.01 z store alike");
                last = stored;
                z *= 1.003;
            }
        }
    }

    /// Nearer than `BAND_SPAN` near planes a band keeps the float's precision within a factor
    /// of two: two depths 64 float steps apart stay at least 32 apart once stored.
    #[test]
    fn near_depths_keep_the_float_precision() {
        let band = DepthBand::of(BANDS / 2);
        let near = 4.0f32;
        for z in [4.0f32, 10.0, 100.0, 500.0, 1000.0] {
            let d = near / z;
            let next = f32::from_bits(d.to_bits() - 64);
            let (a, b) = (band.stored(d), band.stored(next));
            let steps = (a.to_bits() - b.to_bits()) as f32;
            assert!(steps >= 32.0, "z {z}: 64 steps of d kept as {steps}");
        }
    }
}
