//! Sun shadow cascades: the camera's view split by distance into slices, each covered by an
//! orthographic view from the sun. Each slice is wrapped in a sphere whose radius depends only
//! on the camera's field of view and the split distances, so turning or moving the camera
//! never resizes a cascade; its centre is snapped to whole texels of the sun's view, so a
//! world point falls on the same texel grid from frame to frame and shadow edges do not swim.
//!
//! Depth is reverse-Z like the camera's: 1 is nearest the sun, 0 the farthest; a caster
//! closer to the sun than a receiver has the greater depth.

use glam::{DMat4, DVec2, DVec3, DVec4, Mat4, Vec3};

use super::Camera;

/// How the cascades are laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CascadeConfig {
    /// View distance the last cascade reaches (world units): past it nothing is shadowed.
    pub far: f32,
    /// Where the split between the near and the far cascade lies: 0 spaces them evenly,
    /// 1 logarithmically (the near one small and sharp).
    pub split_lambda: f32,
    /// Texels a side of the cascades' maps (one size: they are layers of one array). Seed 003
    /// has 2048²; a 2048² near map cost the terrain more than 1024² in cache misses alone
    /// (docs/terrain.md), so the default is 1024² with the split pulled nearer
    /// (`split_lambda`) for the same near texel size.
    pub resolution: u32,
    /// How far towards the sun beyond a cascade's sphere casters are still caught (world
    /// units): a tower or hill outside the slice whose shadow falls into it.
    pub caster_reach: f32,
}

impl Default for CascadeConfig {
    fn default() -> Self {
        CascadeConfig {
            far: 4000.0,
            split_lambda: 0.85,
            resolution: 1024,
            caster_reach: 4096.0,
        }
    }
}

/// One cascade: the slice of the view it covers and the sun's view of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cascade {
    /// The view distances (along the camera's forward axis) the slice spans: from here…
    pub near: f32,
    /// …to here.
    pub far: f32,
    /// The sphere around the slice, centred on whole texels (world coordinates): its centre…
    pub center: DVec3,
    /// …and radius.
    pub radius: f64,
    /// World units per texel.
    pub texel: f64,
    /// World → the sun's clip space: x, y in −1..1 across the sphere, z reverse depth.
    pub world_to_light: DMat4,
    /// Where the view (from the camera to the last cascade's end) lies across the sun's view
    /// of this cascade, clipped to it: min and max of x, y. A receiver any pixel samples this
    /// cascade for lies there, so a caster beside it shadows nothing seen.
    pub seen: [f64; 4],
}

impl Cascade {
    /// The same transform for positions relative to `eye` (what the terrain's shaders hold),
    /// in f32 without losing the small offsets to a large world coordinate.
    pub fn relative_to(&self, eye: DVec3) -> Mat4 {
        (self.world_to_light * DMat4::from_translation(eye)).as_mat4()
    }

    /// Where `p` falls in the sun's clip space.
    pub fn project(&self, p: DVec3) -> DVec3 {
        let c = self.world_to_light * DVec4::new(p.x, p.y, p.z, 1.0);
        c.truncate()
    }
}

/// The distances the two cascades split the view at: near plane, split, far.
pub fn split_distances(near: f32, cfg: &CascadeConfig) -> [f32; 3] {
    let n = near.max(1.0);
    let f = cfg.far.max(n * 2.0);
    let log = n * (f / n).sqrt();
    let even = 0.5 * (n + f);
    let l = cfg.split_lambda.clamp(0.0, 1.0);
    [n, l * log + (1.0 - l) * even, f]
}

/// The smallest sphere around the camera's view between distances `n` and `f`: its centre
/// on the forward axis at `c`, its radius. `k` is the half-diagonal of the view at distance 1.
fn slice_sphere(n: f64, f: f64, k: f64) -> (f64, f64) {
    // Equidistant from a near corner and a far corner; past `f` the far corners alone bound it.
    let c = 0.5 * (f + n) * (1.0 + k * k);
    if c >= f {
        return (f, f * k);
    }
    (c, ((c - n).powi(2) + (n * k).powi(2)).sqrt())
}

/// The sun's axes: `toward` the sun, `right` and `up` across its view. Fixed by the sun alone,
/// so the texel grid does not turn with the camera.
fn sun_axes(light_dir: DVec3) -> (DVec3, DVec3, DVec3) {
    let toward = -light_dir.normalize();
    let reference = if toward.z.abs() < 0.99 {
        DVec3::Z
    } else {
        DVec3::X
    };
    let right = reference.cross(toward).normalize();
    let up = toward.cross(right);
    (right, up, toward)
}

/// The two cascades for `camera` under sunlight travelling along `light_dir`.
pub fn fit_cascades(camera: &Camera, light_dir: Vec3, cfg: &CascadeConfig) -> [Cascade; 2] {
    let splits = split_distances(camera.near, cfg);
    let tan_x = (camera.fov_x.to_radians() as f64 * 0.5).tan();
    let tan_y = (camera.fov_y() as f64 * 0.5).tan();
    let k = (tan_x * tan_x + tan_y * tan_y).sqrt();
    let (right, up, toward) = sun_axes(light_dir.as_dvec3());
    let eye = camera.position.as_dvec3();
    let forward = camera.forward().as_dvec3();
    // The corners of the view the cascades serve: from the eye (a pixel near it may sample the
    // far cascade where the near one's square does not reach) to the last one's end.
    let (cam_right, cam_up) = (camera.right().as_dvec3(), camera.up().as_dvec3());
    let view: Vec<DVec3> = std::iter::once(eye)
        .chain(
            [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)].map(|(sx, sy)| {
                let d = splits[2] as f64;
                eye + forward * d + cam_right * (sx * tan_x * d) + cam_up * (sy * tan_y * d)
            }),
        )
        .collect();
    let cascade = |n: f32, f: f32, res: u32| {
        let (c, radius) = slice_sphere(n as f64, f as f64, k);
        let texel = 2.0 * radius / res.max(1) as f64;
        let center = eye + forward * c;
        // Snap the centre across the sun's view to whole texels (along it nothing moves texels).
        let snap = |v: f64| (v / texel).round() * texel;
        let (x, y, z) = (
            snap(center.dot(right)),
            snap(center.dot(up)),
            center.dot(toward),
        );
        let center = right * x + up * y + toward * z;
        let depth_far = z - radius;
        let depth_span = 2.0 * radius + cfg.caster_reach.max(0.0) as f64;
        let rows = [
            (right / radius).extend(-x / radius),
            (up / radius).extend(-y / radius),
            (toward / depth_span).extend(-depth_far / depth_span),
            DVec4::new(0.0, 0.0, 0.0, 1.0),
        ];
        let world_to_light = DMat4::from_cols(rows[0], rows[1], rows[2], rows[3]).transpose();
        let (mut lo, mut hi) = (DVec2::splat(1.0), DVec2::splat(-1.0));
        for p in &view {
            let q = world_to_light.transform_point3(*p).truncate();
            lo = lo.min(q);
            hi = hi.max(q);
        }
        let (lo, hi) = (lo.max(DVec2::splat(-1.0)), hi.min(DVec2::splat(1.0)));
        Cascade {
            near: n,
            far: f,
            center,
            radius,
            texel,
            world_to_light,
            seen: [lo.x, lo.y, hi.x, hi.y],
        }
    };
    [
        cascade(splits[0], splits[1], cfg.resolution),
        cascade(splits[1], splits[2], cfg.resolution),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CameraSpec;

    fn camera(p: Vec3, yaw: f32, pitch: f32) -> Camera {
        Camera::new(
            CameraSpec {
                position: p,
                yaw,
                pitch,
            },
            16.0 / 9.0,
        )
    }

    fn sun() -> Vec3 {
        Vec3::new(0.5, 0.3, -0.8).normalize()
    }

    /// The corners of the view between distances `n` and `f` (brute force from the camera's
    /// own axes and field of view).
    fn slice_corners(cam: &Camera, n: f32, f: f32) -> Vec<DVec3> {
        let tx = (cam.fov_x.to_radians() * 0.5).tan();
        let ty = (cam.fov_y() * 0.5).tan();
        let mut out = Vec::new();
        for d in [n, f] {
            for sx in [-1.0, 1.0] {
                for sy in [-1.0, 1.0] {
                    let p = cam.position
                        + cam.forward() * d
                        + cam.right() * (sx * tx * d)
                        + cam.up() * (sy * ty * d);
                    out.push(p.as_dvec3());
                }
            }
        }
        out
    }

    #[test]
    fn every_corner_of_each_slice_lies_inside_its_cascade() {
        let cfg = CascadeConfig::default();
        for (yaw, pitch) in [(0.0, 0.0), (232.0, -18.0), (77.0, 60.0), (300.0, -89.0)] {
            let cam = camera(Vec3::new(3000.0, 2300.0, 560.0), yaw, pitch);
            for c in fit_cascades(&cam, sun(), &cfg) {
                for p in slice_corners(&cam, c.near, c.far) {
                    let q = c.project(p);
                    // Snapping moves the centre by at most half a texel on each axis.
                    let slack = c.texel / c.radius;
                    assert!(q.x.abs() <= 1.0 + slack && q.y.abs() <= 1.0 + slack, "{q}");
                    assert!((0.0..=1.0).contains(&q.z), "{q}");
                }
            }
        }
    }

    #[test]
    fn casters_towards_the_sun_are_nearer_and_within_reach() {
        let cfg = CascadeConfig::default();
        let cam = camera(Vec3::new(0.0, 0.0, 100.0), 45.0, -20.0);
        let c = fit_cascades(&cam, sun(), &cfg)[0];
        let ground = c.center;
        let above = ground - sun().as_dvec3() * 1000.0;
        let (g, a) = (c.project(ground), c.project(above));
        assert!((g.x - a.x).abs() < 1e-9 && (g.y - a.y).abs() < 1e-9);
        assert!(a.z > g.z && a.z < 1.0, "{g} {a}");
    }

    /// Moving and turning the camera keeps every cascade's size, and a fixed world point's
    /// position on its texel grid: its texel coordinate changes by whole texels only.
    #[test]
    fn cascades_keep_their_size_and_texel_grid_as_the_camera_moves() {
        let cfg = CascadeConfig::default();
        let first = fit_cascades(
            &camera(Vec3::new(10.0, 20.0, 300.0), 10.0, -20.0),
            sun(),
            &cfg,
        );
        let point = DVec3::new(123.456, 789.012, 3.5);
        let grid = |c: &Cascade| {
            let q = c.project(point);
            let res = 2.0 * c.radius / c.texel;
            (q.x * 0.5 * res, q.y * 0.5 * res)
        };
        let mut rng = crate::rng::XorShift::seeded(7);
        for _ in 0..50 {
            let mut r = |a: f64, b: f64| rng.range_f64(a, b) as f32;
            let p = Vec3::new(r(-500.0, 500.0), r(-500.0, 500.0), r(50.0, 900.0));
            let cam = camera(p, r(0.0, 360.0), r(-80.0, 40.0));
            for (c, c0) in fit_cascades(&cam, sun(), &cfg).iter().zip(&first) {
                assert!((c.radius - c0.radius).abs() < 1e-6 * c0.radius);
                let (x, y) = grid(c);
                let (x0, y0) = grid(c0);
                let frac = |v: f64| (v - v.round()).abs();
                assert!(
                    frac(x - x0) < 1e-4 && frac(y - y0) < 1e-4,
                    "{x} {x0} {y} {y0}"
                );
            }
        }
    }

    #[test]
    fn the_split_lies_between_even_and_logarithmic() {
        let cfg = CascadeConfig::default();
        let [n, s, f] = split_distances(4.0, &cfg);
        assert_eq!((n, f), (4.0, cfg.far));
        assert!(s > (n * f).sqrt() && s < 0.5 * (n + f), "{s}");
        let even = CascadeConfig {
            split_lambda: 0.0,
            ..cfg
        };
        assert_eq!(split_distances(4.0, &even)[1], 0.5 * (4.0 + cfg.far));
    }

    #[test]
    fn relative_transform_matches_the_absolute_one() {
        let cfg = CascadeConfig::default();
        let eye = Vec3::new(-15264.0, 9000.0, 560.0);
        let c = fit_cascades(&camera(eye, 30.0, -10.0), sun(), &cfg)[1];
        let m = c.relative_to(eye.as_dvec3());
        let p = DVec3::new(-14000.25, 9100.5, 20.0);
        let want = c.project(p);
        let got = m * (p - eye.as_dvec3()).as_vec3().extend(1.0);
        assert!((got.truncate().as_dvec3() - want).abs().max_element() < 1e-5);
    }
}
