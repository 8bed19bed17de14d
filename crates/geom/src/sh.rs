//! Order-2 (L2) real spherical harmonics of RGB light: nine coefficients a channel, the light
//! grid's ambient for moving objects (Forsyth, "Spherical harmonics in actual games", GDC 2003;
//! Ramamoorthi and Hanrahan's irradiance environment maps).
//!
//! A coefficient set here is not radiance but the light a surface receives as a function of its
//! normal, in luxel values like a lightmap: a light adds its response to the angle of incidence
//! (Quake's `(1 − a) + a·cos`) projected by the Funk–Hecke formula, so evaluating at a normal
//! gives what a lightmap there would hold, up to the truncation of the lobe to order 2.

use glam::Vec3;

/// The real SH basis constants (l, m order: 00, 1−1, 10, 11, 2−2, 2−1, 20, 21, 22).
const K0: f32 = 0.282_094_8; // 1 / (2√π)
const K1: f32 = 0.488_602_5; // √(3 / 4π)
const K2: f32 = 1.092_548_4; // √(15 / 4π)
const K20: f32 = 0.315_391_57; // √(5 / 16π)
const K22: f32 = 0.546_274_2; // √(15 / 16π)

/// The nine basis functions at the unit direction `d`.
pub fn basis(d: Vec3) -> [f32; 9] {
    let (x, y, z) = (d.x, d.y, d.z);
    [
        K0,
        K1 * y,
        K1 * z,
        K1 * x,
        K2 * x * y,
        K2 * y * z,
        K20 * (3.0 * z * z - 1.0),
        K2 * x * z,
        K22 * (x * x - y * y),
    ]
}

/// The band weights of a response `h(t) = (1 − a)·[t > 0] + a·max(t, 0)` to the cosine `t` of
/// incidence: `2π ∫ h(t) P_l(t) dt` for l = 0, 1, 2 (a step gives 2π·(1, 1/2, 0), a clamped
/// cosine 2π·(1/2, 1/3, 1/8)).
pub fn response_bands(angle_scale: f32) -> [f32; 3] {
    let a = angle_scale;
    let tau = std::f32::consts::TAU;
    [
        tau * ((1.0 - a) + a / 2.0),
        tau * ((1.0 - a) / 2.0 + a / 3.0),
        tau * (a / 8.0),
    ]
}

/// The order-2 reconstruction of a unit light's response at cosine `t` (what [`Sh9::eval`]
/// gives for a normal at that angle to it): `Σ_l band_l (2l + 1)/(4π) P_l(t)`.
pub fn truncated_response(angle_scale: f32, t: f32) -> f32 {
    let [b0, b1, b2] = response_bands(angle_scale);
    let four_pi = 4.0 * std::f32::consts::PI;
    (b0 + b1 * 3.0 * t + b2 * 5.0 * 0.5 * (3.0 * t * t - 1.0)) / four_pi
}

/// Nine RGB coefficients.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sh9(pub [Vec3; 9]);

impl Sh9 {
    /// No light.
    pub const ZERO: Sh9 = Sh9([Vec3::ZERO; 9]);

    /// Adds a light arriving from the unit direction `to_light` (pointing at the light) whose
    /// response at normal `n` is `rgb · ((1 − a) + a·cos)` where `cos = n · to_light > 0`.
    pub fn add_light(&mut self, to_light: Vec3, rgb: Vec3, angle_scale: f32) {
        let y = basis(to_light);
        let bands = response_bands(angle_scale);
        for (k, c) in self.0.iter_mut().enumerate() {
            *c += rgb * (bands[band(k)] * y[k]);
        }
    }

    /// Adds light that every normal receives alike.
    pub fn add_uniform(&mut self, rgb: Vec3) {
        // A constant f has f₀₀ = f · ∫Y₀₀ = f · 4π·K0.
        self.0[0] += rgb * (4.0 * std::f32::consts::PI * K0);
    }

    /// The light a surface facing the unit normal `n` receives.
    pub fn eval(&self, n: Vec3) -> Vec3 {
        let y = basis(n);
        self.0.iter().zip(y).map(|(c, y)| *c * y).sum()
    }

    /// `self + other · k`.
    pub fn add_scaled(&mut self, other: &Sh9, k: f32) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b * k;
        }
    }

    /// The 27 numbers channel-interleaved (coefficient 0's r, g, b, then coefficient 1's ...).
    pub fn to_floats(&self) -> [f32; 27] {
        std::array::from_fn(|i| self.0[i / 3][i % 3])
    }

    /// From 27 numbers channel-interleaved (`to_floats`'s order).
    pub fn from_floats(f: &[f32; 27]) -> Sh9 {
        Sh9(std::array::from_fn(|k| {
            Vec3::new(f[3 * k], f[3 * k + 1], f[3 * k + 2])
        }))
    }
}

/// The band (l) of coefficient `k`.
fn band(k: usize) -> usize {
    match k {
        0 => 0,
        1..=3 => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn directions(n: usize) -> impl Iterator<Item = Vec3> {
        // A Fibonacci sphere.
        (0..n).map(move |i| {
            let z = 1.0 - 2.0 * (i as f32 + 0.5) / n as f32;
            let r = (1.0 - z * z).sqrt();
            let phi = i as f32 * 2.399_963;
            Vec3::new(r * phi.cos(), r * phi.sin(), z)
        })
    }

    /// The basis is orthonormal: brute-force quadrature over the sphere.
    #[test]
    fn the_basis_is_orthonormal() {
        let n = 20_000;
        let mut gram = [[0.0f64; 9]; 9];
        for d in directions(n) {
            let y = basis(d);
            for i in 0..9 {
                for j in 0..9 {
                    gram[i][j] += (y[i] * y[j]) as f64 * 4.0 * std::f64::consts::PI / n as f64;
                }
            }
        }
        for (i, row) in gram.iter().enumerate() {
            for (j, &g) in row.iter().enumerate() {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((g - want).abs() < 2e-3, "<Y{i}, Y{j}> = {g}");
            }
        }
    }

    /// The bands equal `2π ∫ h P_l` by brute-force integration of the response.
    #[test]
    fn response_bands_are_the_legendre_projections() {
        for a in [0.0, 0.5, 1.0] {
            let h = |t: f64| if t > 0.0 { (1.0 - a) + a * t } else { 0.0 };
            let p = [
                |_t: f64| 1.0,
                |t: f64| t,
                |t: f64| 0.5 * (3.0 * t * t - 1.0),
            ];
            let steps = 200_000;
            let bands = response_bands(a as f32);
            for (l, p) in p.iter().enumerate() {
                let mut sum = 0.0;
                for i in 0..steps {
                    let t = -1.0 + 2.0 * (i as f64 + 0.5) / steps as f64;
                    sum += h(t) * p(t) * 2.0 / steps as f64;
                }
                let want = std::f64::consts::TAU * sum;
                assert!((bands[l] as f64 - want).abs() < 1e-4, "a {a} l {l}");
            }
        }
    }

    /// A single directional light's reconstruction matches its cosine lobe within the L2
    /// truncation error (the largest gap between the truncated and the true lobe, found by
    /// scanning the angle), at every normal of a dense sphere, for several directions.
    #[test]
    fn a_directional_light_matches_its_lobe_within_the_truncation_error() {
        for a in [1.0, 0.5] {
            let h = |t: f32| if t > 0.0 { (1.0 - a) + a * t } else { 0.0 };
            let bound = (0..=2000)
                .map(|i| -1.0 + i as f32 / 1000.0)
                .map(|t| (truncated_response(a, t) - h(t)).abs())
                .fold(0.0f32, f32::max);
            // Known values: the clamped cosine's L2 error peaks at the light (1.0625 vs 1).
            if a == 1.0 {
                assert!((truncated_response(1.0, 1.0) - 1.0625).abs() < 1e-5);
            }
            for light in [Vec3::Z, Vec3::new(0.3, -0.8, 0.52).normalize(), -Vec3::X] {
                let rgb = Vec3::new(200.0, 100.0, 50.0);
                let mut sh = Sh9::ZERO;
                sh.add_light(light, rgb, a);
                for n in directions(500) {
                    let got = sh.eval(n);
                    let want = rgb * h(n.dot(light));
                    let err = (got - want).abs().max_element();
                    assert!(
                        err <= 200.0 * bound + 1e-2,
                        "a {a} light {light} n {n}: {got} vs {want} (bound {})",
                        200.0 * bound
                    );
                }
            }
        }
    }

    #[test]
    fn uniform_light_is_the_same_at_every_normal() {
        let mut sh = Sh9::ZERO;
        sh.add_uniform(Vec3::new(10.0, 20.0, 30.0));
        for n in directions(50) {
            assert!((sh.eval(n) - Vec3::new(10.0, 20.0, 30.0)).length() < 1e-3);
        }
        assert_eq!(Sh9::from_floats(&sh.to_floats()), sh);
    }
}
