//! Planes in single precision (as levels store them) and double (as the compiler works).

use glam::{DVec3, Vec3};

/// A plane `normal · p = dist` in f32, as stored in a `Level`. The positive half-space
/// (`distance(p) > 0`) is the plane's front side.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Plane {
    /// Unit normal, towards the front side.
    pub normal: Vec3,
    /// `normal · p` of the plane's points.
    pub dist: f32,
}

impl Plane {
    /// The plane `normal · p = dist`.
    pub fn new(normal: Vec3, dist: f32) -> Self {
        Self { normal, dist }
    }

    /// The plane through `p` facing `n`.
    pub fn from_point_normal(p: Vec3, n: Vec3) -> Self {
        Self {
            normal: n,
            dist: n.dot(p),
        }
    }

    /// Signed distance of `p` (positive in front), in units of the normal's length.
    #[inline]
    pub fn distance(&self, p: Vec3) -> f32 {
        self.normal.dot(p) - self.dist
    }

    /// The same plane facing the other way.
    pub fn flipped(&self) -> Self {
        Self {
            normal: -self.normal,
            dist: -self.dist,
        }
    }

    /// In double precision.
    pub fn to_f64(&self) -> DPlane {
        DPlane {
            normal: self.normal.as_dvec3(),
            dist: self.dist as f64,
        }
    }
}

/// A plane in f64 for the compiler: CSG and clipping run in double precision (seed 000's advice).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct DPlane {
    /// Unit normal, towards the front side.
    pub normal: DVec3,
    /// `normal · p` of the plane's points.
    pub dist: f64,
}

impl DPlane {
    /// The plane `normal · p = dist`.
    pub fn new(normal: DVec3, dist: f64) -> Self {
        Self { normal, dist }
    }

    /// Plane through three points, front side where `(b-a)×(c-a)` points. `None` when collinear.
    pub fn from_points(a: DVec3, b: DVec3, c: DVec3) -> Option<Self> {
        let n = (b - a).cross(c - a);
        let len = n.length();
        if !(len > 1e-9) {
            return None;
        }
        let n = n / len;
        Some(Self {
            normal: n,
            dist: n.dot(a),
        })
    }

    /// Signed distance of `p` (positive in front).
    #[inline]
    pub fn distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.dist
    }

    /// The same plane facing the other way.
    pub fn flipped(&self) -> Self {
        Self {
            normal: -self.normal,
            dist: -self.dist,
        }
    }

    /// In single precision, as a `Level` stores it.
    pub fn to_f32(&self) -> Plane {
        Plane {
            normal: self.normal.as_vec3(),
            dist: self.dist as f32,
        }
    }
}
