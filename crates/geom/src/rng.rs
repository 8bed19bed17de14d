//! The project's one seeded generator (xorshift64, shifts 13, 7, 17): the same sequence for
//! the same seed on every machine, for sampled views, synthetic mazes and randomized tests.
//! Not for anything that needs good statistics.

/// The raw state; `XorShift(s)` starts from `s` as it is (it must not be 0), `seeded` mixes a
/// small seed first.
#[derive(Clone, Debug)]
pub struct XorShift(pub u64);

impl XorShift {
    /// A generator from any seed, 0 included (multiplied by the golden ratio, made odd).
    pub fn seeded(seed: u64) -> XorShift {
        XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [0, 1) with 24 bits.
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [0, 1) with 53 bits.
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `a..b`.
    pub fn range_f64(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.unit_f64()
    }

    /// An index in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.unit_f32() * n as f32) as usize).min(n.saturating_sub(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The xorshift64 (13, 7, 17) sequence from 1 (as an independent Python version computes
    /// it), and fractions inside [0, 1).
    #[test]
    fn sequence_and_ranges() {
        let mut r = XorShift(1);
        assert_eq!(r.next_u64(), 1082269761);
        assert_eq!(r.next_u64(), 1152992998833853505);
        let mut r = XorShift::seeded(0);
        for _ in 0..10_000 {
            let (a, b) = (r.unit_f32(), r.unit_f64());
            assert!((0.0..1.0).contains(&a) && (0.0..1.0).contains(&b));
            assert!(r.below(7) < 7);
        }
        assert_eq!(r.below(0), 0);
    }
}
