//! The camera: where the eye is and how it projects.

use glam::{Mat4, Vec2, Vec3, Vec4};

use super::Plane;

/// A camera placement as given on the command line: `--camera X,Y,Z,YAW,PITCH`
/// (Quake units, Z up, yaw in degrees around +Z with 0 = +X, pitch in degrees, positive up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraSpec {
    /// Where the eye is.
    pub position: Vec3,
    /// Degrees around +Z, 0 = +X, 90 = +Y.
    pub yaw: f32,
    /// Degrees, positive looks up.
    pub pitch: f32,
}

impl std::str::FromStr for CameraSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts.len() != 5 {
            return Err(format!(
                "expected X,Y,Z,YAW,PITCH (5 numbers), got {} in {s:?}",
                parts.len()
            ));
        }
        let mut v = [0f32; 5];
        for (i, p) in parts.iter().enumerate() {
            v[i] = p
                .parse::<f32>()
                .map_err(|_| format!("{p:?} is not a number in --camera {s:?}"))?;
            if !v[i].is_finite() {
                return Err(format!("{p:?} is not a finite number in --camera {s:?}"));
            }
        }
        Ok(CameraSpec {
            position: Vec3::new(v[0], v[1], v[2]),
            yaw: v[3],
            pitch: v[4],
        })
    }
}

/// The viewer: position, orientation, and a reverse-Z infinite perspective projection.
/// `vis` and `terrain` use exactly this math, and the shaders receive its matrices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Where the eye is.
    pub position: Vec3,
    /// Degrees around +Z, 0 = +X, 90 = +Y.
    pub yaw: f32,
    /// Degrees, positive looks up; kept within ±89.
    pub pitch: f32,
    /// Horizontal field of view in degrees.
    pub fov_x: f32,
    /// Width / height of the target.
    pub aspect: f32,
    /// Near plane distance; depth is reverse-Z so there is no far plane.
    pub near: f32,
}

impl Camera {
    /// The horizontal field of view a camera gets (degrees).
    pub const DEFAULT_FOV_X: f32 = 90.0;
    /// The near plane's distance a camera gets (units).
    pub const DEFAULT_NEAR: f32 = 4.0;

    /// A camera at `spec` for a frame of `aspect` (width ÷ height), with the default field of view and near plane.
    pub fn new(spec: CameraSpec, aspect: f32) -> Self {
        Self {
            position: spec.position,
            yaw: spec.yaw,
            pitch: spec.pitch.clamp(-89.0, 89.0),
            fov_x: Self::DEFAULT_FOV_X,
            aspect,
            near: Self::DEFAULT_NEAR,
        }
    }

    /// Where it is and where it looks.
    pub fn spec(&self) -> CameraSpec {
        CameraSpec {
            position: self.position,
            yaw: self.yaw,
            pitch: self.pitch,
        }
    }

    /// The unit direction it looks in.
    pub fn forward(&self) -> Vec3 {
        let (sy, cy) = self.yaw.to_radians().sin_cos();
        let (sp, cp) = self.pitch.to_radians().sin_cos();
        Vec3::new(cy * cp, sy * cp, sp)
    }

    /// Right-hand direction, horizontal.
    pub fn right(&self) -> Vec3 {
        let (sy, cy) = self.yaw.to_radians().sin_cos();
        Vec3::new(sy, -cy, 0.0)
    }

    /// The unit direction up on the screen.
    pub fn up(&self) -> Vec3 {
        self.right().cross(self.forward())
    }

    /// Vertical field of view in radians, derived from the horizontal one and the aspect.
    pub fn fov_y(&self) -> f32 {
        2.0 * ((self.fov_x.to_radians() * 0.5).tan() / self.aspect).atan()
    }

    /// World → eye space.
    pub fn view(&self) -> Mat4 {
        glam::camera::rh::view::look_to_mat4(self.position, self.forward(), Vec3::Z)
    }

    /// View without the translation: for camera-relative rendering of huge worlds.
    pub fn view_rotation(&self) -> Mat4 {
        glam::camera::rh::view::look_to_mat4(Vec3::ZERO, self.forward(), Vec3::Z)
    }

    /// Eye → clip space: reverse-Z, infinite far plane.
    pub fn projection(&self) -> Mat4 {
        // wgpu NDC: z in 0..1, y up (the "directx" convention).
        glam::camera::rh::proj::directx::perspective_infinite_reverse(
            self.fov_y(),
            self.aspect,
            self.near,
        )
    }

    /// World → clip space.
    pub fn view_proj(&self) -> Mat4 {
        self.projection() * self.view()
    }

    /// `p` in clip space.
    pub fn world_to_clip(&self, p: Vec3) -> Vec4 {
        self.view_proj() * p.extend(1.0)
    }

    /// Normalized device coordinates (x right, y up in −1..1, z = reverse depth), or `None`
    /// behind the eye.
    pub fn world_to_ndc(&self, p: Vec3) -> Option<Vec3> {
        let c = self.world_to_clip(p);
        if c.w <= 1e-6 {
            return None;
        }
        Some(c.truncate() / c.w)
    }

    /// NDC to pixel coordinates (origin top-left) for a target of `size`.
    pub fn ndc_to_pixel(ndc: Vec2, size: (u32, u32)) -> Vec2 {
        Vec2::new(
            (ndc.x * 0.5 + 0.5) * size.0 as f32,
            (0.5 - ndc.y * 0.5) * size.1 as f32,
        )
    }

    /// The five frustum planes (near, left, right, bottom, top), facing inward: a point is
    /// inside when `distance(p) >= 0` for all of them.
    pub fn frustum_planes(&self) -> [Plane; 5] {
        self.screen_frustum_planes(Vec2::splat(-1.0), Vec2::splat(1.0))
    }

    /// The planes of the part of the frustum seen through the NDC rectangle `min..max` (near,
    /// left, right, bottom, top; inward): the frustum behind a portal's screen bounds.
    pub fn screen_frustum_planes(&self, min: Vec2, max: Vec2) -> [Plane; 5] {
        let m = self.view_proj();
        let r0 = m.row(0);
        let r1 = m.row(1);
        let r2 = m.row(2);
        let r3 = m.row(3);
        let mk = |v: Vec4| {
            let n = v.truncate();
            let len = n.length();
            Plane {
                normal: n / len,
                dist: -v.w / len,
            }
        };
        // x ≥ min.x·w, x ≤ max.x·w, likewise y (clip = m · p).
        [
            mk(r3 - r2),
            mk(r0 - r3 * min.x),
            mk(r3 * max.x - r0),
            mk(r1 - r3 * min.y),
            mk(r3 * max.y - r1),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cam(yaw: f32, pitch: f32) -> Camera {
        Camera::new(
            CameraSpec {
                position: Vec3::new(10.0, 20.0, 30.0),
                yaw,
                pitch,
            },
            16.0 / 9.0,
        )
    }

    #[test]
    fn yaw_pitch_follow_quake_conventions() {
        let c = cam(90.0, 0.0);
        assert!((c.forward() - Vec3::Y).length() < 1e-6);
        let c = cam(0.0, 90.0);
        assert!(c.forward().z > 0.99);
        // A point straight ahead projects to the screen centre; one to the right to x > 0;
        // one above to y > 0; nearer points get larger reverse-Z depth.
        let c = cam(0.0, 0.0);
        let ahead = c.world_to_ndc(c.position + Vec3::X * 100.0).unwrap();
        assert!(ahead.x.abs() < 1e-5 && ahead.y.abs() < 1e-5);
        let right = c
            .world_to_ndc(c.position + Vec3::new(100.0, -10.0, 0.0))
            .unwrap();
        assert!(right.x > 0.0);
        let up = c
            .world_to_ndc(c.position + Vec3::new(100.0, 0.0, 10.0))
            .unwrap();
        assert!(up.y > 0.0);
        let far = c.world_to_ndc(c.position + Vec3::X * 1000.0).unwrap();
        assert!(ahead.z > far.z && far.z > 0.0);
        assert!(c.world_to_ndc(c.position - Vec3::X * 100.0).is_none());
        // At the near plane depth is 1.
        let near = c.world_to_ndc(c.position + Vec3::X * c.near).unwrap();
        assert!((near.z - 1.0).abs() < 1e-5);
    }

    #[test]
    fn horizontal_fov_is_90_degrees() {
        let c = cam(0.0, 0.0);
        // A point at 45° to the right lies on the right screen edge.
        let p = c
            .world_to_ndc(c.position + Vec3::new(100.0, -100.0, 0.0))
            .unwrap();
        assert!((p.x - 1.0).abs() < 1e-4, "{p}");
    }

    #[test]
    fn frustum_planes_agree_with_projection() {
        let c = cam(37.0, -12.0);
        let planes = c.frustum_planes();
        // Brute force oracle: sample points, compare "inside all planes" with NDC bounds.
        let mut seed = 12345u32;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed as f32 / u32::MAX as f32) * 2.0 - 1.0
        };
        for _ in 0..2000 {
            let p = c.position + Vec3::new(rnd(), rnd(), rnd()) * 500.0;
            let inside_planes = planes.iter().all(|pl| pl.distance(p) >= 0.0);
            let clip = c.world_to_clip(p);
            let inside_clip = clip.w > 0.0
                && clip.x.abs() <= clip.w
                && clip.y.abs() <= clip.w
                && clip.z <= clip.w
                && clip.z >= 0.0;
            // Skip points within a hair of a boundary.
            let margin = planes
                .iter()
                .map(|pl| pl.distance(p).abs())
                .fold(f32::MAX, f32::min);
            if margin > 0.01 {
                assert_eq!(inside_planes, inside_clip, "{p}");
            }
        }
    }

    #[test]
    fn parses_camera_argument() {
        let s: CameraSpec = "1,2,3,90,-10".parse().unwrap();
        assert_eq!(s.position, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!((s.yaw, s.pitch), (90.0, -10.0));
        assert!("1,2,3".parse::<CameraSpec>().is_err());
        assert!("1,2,x,4,5".parse::<CameraSpec>().is_err());
        assert!("1,2,NaN,4,5".parse::<CameraSpec>().is_err());
    }
}
