use glam::{DVec3, Vec3};

/// A plane `normal · p = dist` in f32, as stored in a `Level`. The positive half-space
/// (`distance(p) > 0`) is the plane's front side.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Plane {
    pub normal: Vec3,
    pub dist: f32,
}

impl Plane {
    pub fn new(normal: Vec3, dist: f32) -> Self {
        Self { normal, dist }
    }

    pub fn from_point_normal(p: Vec3, n: Vec3) -> Self {
        Self {
            normal: n,
            dist: n.dot(p),
        }
    }

    pub fn distance(&self, p: Vec3) -> f32 {
        self.normal.dot(p) - self.dist
    }

    pub fn flipped(&self) -> Self {
        Self {
            normal: -self.normal,
            dist: -self.dist,
        }
    }

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
    pub normal: DVec3,
    pub dist: f64,
}

impl DPlane {
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

    pub fn distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.dist
    }

    pub fn flipped(&self) -> Self {
        Self {
            normal: -self.normal,
            dist: -self.dist,
        }
    }

    pub fn to_f32(&self) -> Plane {
        Plane {
            normal: self.normal.as_vec3(),
            dist: self.dist as f32,
        }
    }
}
