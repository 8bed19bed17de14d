//! IEEE 754 half-precision floats (binary16): the light grid's coefficients in `.lvl` files
//! and the HDR scene read back from the GPU. Round to nearest, ties to even; past the largest
//! half is infinity, as the GPU converts.

/// A half's value.
pub fn to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((h >> 10) & 0x1f);
    let mantissa = f32::from(h & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f32.powi(-24),
        31 if mantissa == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        e => (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

/// The half nearest `x` (ties to the even one).
pub fn from_f32(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let mantissa = bits & 0x7f_ffff;
    if exponent == 0xff {
        return sign | 0x7c00 | if mantissa != 0 { 0x200 } else { 0 };
    }
    // The half's biased exponent.
    let e = exponent - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    // The mantissa (with its leading 1) shifted down to the half's, rounded to even.
    let (m, shift, base) = if e <= 0 {
        if e < -10 {
            return sign;
        }
        (mantissa | 0x80_0000, (14 - e) as u32, 0)
    } else {
        (mantissa, 13, (e as u32) << 10)
    };
    let (kept, rest, halfway) = (m >> shift, m & ((1 << shift) - 1), 1 << (shift - 1));
    let up = rest > halfway || (rest == halfway && kept & 1 == 1);
    // A carry out of the mantissa steps the exponent up, as it should.
    sign | (base + kept + up as u32) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Halves by their definition: powers of two, the largest finite, a subnormal, signs.
    #[test]
    fn halves_decode_to_their_values() {
        assert_eq!(to_f32(0x3c00), 1.0);
        assert_eq!(to_f32(0x4000), 2.0);
        // 1/3 rounded to a half: 0.333251953125.
        assert_eq!(to_f32(0x3555), 0.333_251_95);
        assert_eq!(to_f32(0x7bff), 65504.0);
        assert_eq!(to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(to_f32(0xc000), -2.0);
        assert_eq!(to_f32(0x7c00), f32::INFINITY);
    }

    /// Every half that is a number comes back from its value; values between two halves go to
    /// the nearer, a tie to the even one; past the largest half is infinity.
    #[test]
    fn every_half_round_trips_and_values_round_to_nearest_even() {
        for h in 0..=u16::MAX {
            if !to_f32(h).is_nan() {
                assert_eq!(from_f32(to_f32(h)), h, "{h:#06x}");
            }
        }
        let ulp = 2f32.powi(-10);
        assert_eq!(from_f32(1.0 + ulp / 2.0), 0x3c00, "tie to even (down)");
        assert_eq!(from_f32(1.0 + 1.5 * ulp), 0x3c02, "tie to even (up)");
        assert_eq!(from_f32(1.0 + 0.6 * ulp), 0x3c01);
        assert_eq!(
            from_f32(2.0 - ulp / 4.0),
            0x4000,
            "a carry steps the exponent"
        );
        assert_eq!(from_f32(3.0 * 2f32.powi(-26)), 0x0001, "a subnormal rounds");
        assert_eq!(from_f32(2f32.powi(-26)), 0x0000);
        assert_eq!(from_f32(70000.0), 0x7c00);
        assert_eq!(from_f32(-70000.0), 0xfc00);
        assert!(to_f32(from_f32(f32::NAN)).is_nan());
    }
}
