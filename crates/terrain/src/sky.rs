//! The daylight sky from the sun's direction: Preetham, Shirley and Smits' analytic model ("A
//! Practical Analytic Model for Daylight", SIGGRAPH 1999). Perez et al.'s five-parameter
//! distribution, fitted per turbidity for luminance Y and chromaticity x, y, scaled to the
//! zenith values the paper gives as functions of turbidity and the sun's zenith angle.
//!
//! Why this model: it is a closed form (a few exponentials per direction: the terrain pass can
//! afford it per sky pixel and per terrain vertex for the aerial-perspective fog),
//! it has published coefficients and zenith formulas to test against, and it needs no
//! precomputed tables. Hosek–Wilkie fits the sky better near the horizon and at low suns but
//! carries about a thousand coefficients per channel; Bruneton/Hillaire LUTs need compute
//! passes to build. Its limits: the sun above the horizon only (lower suns are clamped to just
//! above it), no ground albedo, no night.
//!
//! The shader (`scattering_sky` in terrain.wgsl) evaluates the same distribution from
//! [`ScatteringSky::uniform`]; [`ScatteringSky::color`] is its CPU twin, which the GPU test
//! compares rendered sky pixels with.

use glam::Vec3;

/// Haze: 2 is a clear sky, 3 a clear day, 6 and more hazy (the paper's range is 2–10).
pub const TURBIDITY: f32 = 3.0;

/// Linear colour per kcd/m² of luminance before the tone map `1 − e^(−k·c)`: a clear sky's
/// zenith with a high sun (about 10 kcd/m²) comes to about 0.45.
pub const EXPOSURE: f32 = 0.06;

/// The lowest sun the model is used for (its zenith angle is kept under 90°).
const MAX_SUN_ZENITH: f32 = std::f32::consts::FRAC_PI_2 - 0.02;

/// The Perez coefficients A–E for a turbidity, per quantity: [Y, x, y].
fn perez_coefficients(t: f32) -> [[f32; 3]; 5] {
    [
        [
            0.1787 * t - 1.4630,
            -0.0193 * t - 0.2592,
            -0.0167 * t - 0.2608,
        ],
        [
            -0.3554 * t + 0.4275,
            -0.0665 * t + 0.0008,
            -0.0950 * t + 0.0092,
        ],
        [
            -0.0227 * t + 5.3251,
            -0.0004 * t + 0.2125,
            -0.0079 * t + 0.2102,
        ],
        [
            0.1206 * t - 2.5771,
            -0.0641 * t - 0.8989,
            -0.0441 * t - 1.6537,
        ],
        [
            -0.0670 * t + 0.3703,
            -0.0033 * t + 0.0452,
            -0.0109 * t + 0.0529,
        ],
    ]
}

/// Zenith luminance (kcd/m²) and chromaticity for turbidity `t` and sun zenith angle `s`.
fn zenith_yxy(t: f32, s: f32) -> [f32; 3] {
    let chi = (4.0 / 9.0 - t / 120.0) * (std::f32::consts::PI - 2.0 * s);
    let y_lum = (4.0453 * t - 4.9710) * chi.tan() - 0.2155 * t + 2.4192;
    // Rows: the T², T and 1 terms; columns: θs³, θs², θs, 1.
    let poly = |m: [[f32; 4]; 3]| {
        let th = [s * s * s, s * s, s, 1.0];
        let row = |r: [f32; 4]| r.iter().zip(th).map(|(a, b)| a * b).sum::<f32>();
        t * t * row(m[0]) + t * row(m[1]) + row(m[2])
    };
    let x = poly([
        [0.00166, -0.00375, 0.00209, 0.0],
        [-0.02903, 0.06377, -0.03202, 0.00394],
        [0.11693, -0.21196, 0.06052, 0.25886],
    ]);
    let y = poly([
        [0.00275, -0.00610, 0.00317, 0.0],
        [-0.04214, 0.08970, -0.04153, 0.00516],
        [0.15346, -0.26756, 0.06670, 0.26688],
    ]);
    [y_lum, x, y]
}

/// The daylight sky for one sun.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScatteringSky {
    /// Towards the sun (z up), the sun kept above the horizon.
    pub sun: Vec3,
    perez: [[f32; 3]; 5],
    /// The zenith's Y, x, y over the distribution at the zenith (`F(0, θs)`): a direction's
    /// value is this times its own `F`.
    scale: [f32; 3],
}

impl ScatteringSky {
    /// The sky with the sun towards `sun` (any length; z up) at turbidity `turbidity`.
    pub fn new(sun: Vec3, turbidity: f32) -> ScatteringSky {
        let sun = sun.try_normalize().unwrap_or(Vec3::Z);
        let zenith_angle = sun.z.clamp(-1.0, 1.0).acos().min(MAX_SUN_ZENITH);
        let horizontal = sun.truncate().try_normalize().unwrap_or(glam::Vec2::X);
        let sun = (horizontal * zenith_angle.sin()).extend(zenith_angle.cos());
        let perez = perez_coefficients(turbidity);
        let zenith = zenith_yxy(turbidity, zenith_angle);
        let mut sky = ScatteringSky {
            sun,
            perez,
            scale: [1.0; 3],
        };
        let at_zenith = sky.distribution(Vec3::Z);
        sky.scale = std::array::from_fn(|i| zenith[i] / at_zenith[i]);
        sky
    }

    /// Perez's `F(θ, γ)` for Y, x and y in direction `d` (below the horizon: the horizon's,
    /// straight above or below `d`).
    fn distribution(&self, d: Vec3) -> [f32; 3] {
        let d = Vec3::new(d.x, d.y, d.z.max(0.0)).normalize_or(Vec3::Z);
        let cos_theta = d.z.max(0.001);
        let cos_gamma = d.dot(self.sun).clamp(-1.0, 1.0);
        let gamma = cos_gamma.acos();
        std::array::from_fn(|i| {
            let [a, b, c, dd, e] = self.perez.map(|row| row[i]);
            (1.0 + a * (b / cos_theta).exp())
                * (1.0 + c * (dd * gamma).exp() + e * cos_gamma * cos_gamma)
        })
    }

    /// Luminance (kcd/m²) and chromaticity x, y of the sky in direction `d`.
    pub fn yxy(&self, d: Vec3) -> [f32; 3] {
        let f = self.distribution(d);
        std::array::from_fn(|i| self.scale[i] * f[i])
    }

    /// The linear colour the terrain pass draws in direction `d`: `yxy` to CIE XYZ to linear
    /// sRGB (D65), times [`EXPOSURE`], tone-mapped per channel by `1 − e^(−c)`.
    pub fn color(&self, d: Vec3) -> [f32; 3] {
        let [lum, x, y] = self.yxy(d);
        let (cx, cz) = (x / y * lum, (1.0 - x - y) / y * lum);
        let rgb = [
            3.2406 * cx - 1.5372 * lum - 0.4986 * cz,
            -0.9689 * cx + 1.8758 * lum + 0.0415 * cz,
            0.0557 * cx - 0.2040 * lum + 1.0570 * cz,
        ];
        rgb.map(|c| 1.0 - (-(c.max(0.0)) * EXPOSURE).exp())
    }

    /// What the shader reads: rows A–E of the coefficients (Y, x, y, 0), then the zenith
    /// scale (Y, x, y) with the exposure in w.
    pub fn uniform(&self) -> [[f32; 4]; 6] {
        let mut rows = [[0.0; 4]; 6];
        for (row, p) in rows.iter_mut().zip(self.perez) {
            *row = [p[0], p[1], p[2], 0.0];
        }
        rows[5] = [self.scale[0], self.scale[1], self.scale[2], EXPOSURE];
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model against the paper's formulas (Appendix A.2, evaluated independently in double
    /// precision at turbidity 3: the zenith's Y, x, y, and the horizon's towards the sun's
    /// azimuth and away from it) for a high sun (60° up) and a low one (20° up).
    #[test]
    fn zenith_and_horizon_match_the_published_model() {
        // (sun elevation, zenith, horizon towards the sun, horizon away from it)
        let expected = [
            (
                60.0f32,
                [10.41309, 0.25343, 0.25979],
                [11.45672, 0.32166, 0.32298],
                [8.03288, 0.30794, 0.31538],
            ),
            (
                20.0,
                [3.93288, 0.25070, 0.26129],
                [20.09013, 0.37575, 0.37353],
                [6.51945, 0.33281, 0.34055],
            ),
        ];
        for (elevation, zenith, toward, away) in expected {
            let e = elevation.to_radians();
            let sun = Vec3::new(e.cos(), 0.0, e.sin());
            let sky = ScatteringSky::new(sun, 3.0);
            for (d, want, what) in [
                (Vec3::Z, zenith, "zenith"),
                (Vec3::X, toward, "towards"),
                (-Vec3::X, away, "away"),
            ] {
                let got = sky.yxy(d);
                for i in 0..3 {
                    let rel = (got[i] - want[i]).abs() / want[i];
                    assert!(
                        rel < 2e-3,
                        "sun {elevation}°, {what}: {got:?} against {want:?}"
                    );
                }
            }
            // A low sun: the horizon under it outshines the zenith; a blue zenith (x, y under
            // the white point's 0.313, 0.329).
            assert!(zenith[1] < 0.3127 && zenith[2] < 0.329);
        }
    }

    /// The colour: blue at the zenith, warmer and brighter towards a low sun's horizon, never
    /// past 1; below the horizon it is the horizon's.
    #[test]
    fn colours_are_blue_overhead_and_warm_under_a_low_sun() {
        let e = 15f32.to_radians();
        let sky = ScatteringSky::new(Vec3::new(e.cos(), 0.0, e.sin()), TURBIDITY);
        let zenith = sky.color(Vec3::Z);
        let horizon = sky.color(Vec3::new(1.0, 0.0, 0.02));
        assert!(zenith[2] > zenith[0], "{zenith:?}");
        assert!(
            horizon[0] > horizon[2] && horizon[0] > zenith[0],
            "{horizon:?} {zenith:?}"
        );
        assert!(zenith
            .iter()
            .chain(&horizon)
            .all(|c| (0.0..1.0).contains(c)));
        assert_eq!(
            sky.color(Vec3::new(1.0, 0.0, -0.5)),
            sky.color(Vec3::new(1.0, 0.0, 0.0))
        );
        // A sun below the horizon is kept just above it.
        let set = ScatteringSky::new(Vec3::new(1.0, 0.0, -0.3), TURBIDITY);
        assert!(set.sun.z > 0.0 && set.sun.z < 0.03);
    }
}
