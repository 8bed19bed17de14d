//! How a face's texture is laid on it: the id format's offset, rotation and scale on axes
//! chosen from the face normal, or Valve 220's explicit axes; both become `TexVecs`.

use glam::DVec3;

/// How a face's texture is projected.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TexProjection {
    /// id format: offset, rotation (degrees), scale; axes from the face normal.
    Standard {
        offset: [f64; 2],
        rotation: f64,
        scale: [f64; 2],
    },
    /// Valve 220: explicit axes `[ux uy uz offset]`, rotation (informational), scale.
    Valve {
        u: [f64; 4],
        v: [f64; 4],
        rotation: f64,
        scale: [f64; 2],
    },
}

/// Base texture axes of the id format: the axial plane closest to the face, as Quake does.
fn base_axes(normal: DVec3) -> (DVec3, DVec3) {
    const TABLE: [[DVec3; 3]; 6] = [
        [
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(0.0, -1.0, 0.0),
        ],
        [
            DVec3::new(0.0, 0.0, -1.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(0.0, -1.0, 0.0),
        ],
        [
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(0.0, 0.0, -1.0),
        ],
        [
            DVec3::new(-1.0, 0.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(0.0, 0.0, -1.0),
        ],
        [
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(0.0, 0.0, -1.0),
        ],
        [
            DVec3::new(0.0, -1.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(0.0, 0.0, -1.0),
        ],
    ];
    let mut best = 0;
    let mut best_dot = 0.0;
    for (i, row) in TABLE.iter().enumerate() {
        let d = normal.dot(row[0]);
        if d > best_dot {
            best_dot = d;
            best = i;
        }
    }
    (TABLE[best][1], TABLE[best][2])
}

/// Texture projection in texels: `s = p·s_axis + s_offset`, `t = p·t_axis + t_offset`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TexVecs {
    pub s: DVec3,
    pub s_offset: f64,
    pub t: DVec3,
    pub t_offset: f64,
}

impl TexVecs {
    pub(crate) fn st(&self, p: DVec3) -> (f64, f64) {
        (p.dot(self.s) + self.s_offset, p.dot(self.t) + self.t_offset)
    }
}

/// The texel-space axes of a face with outward `normal`.
pub(crate) fn tex_vecs(proj: &TexProjection, normal: DVec3) -> TexVecs {
    let fix = |s: f64| if s.abs() < 1e-6 { 1.0 } else { s };
    match proj {
        TexProjection::Standard {
            offset,
            rotation,
            scale,
        } => {
            let (mut xv, mut yv) = base_axes(normal);
            let a = rotation.rem_euclid(360.0);
            let (sin, cos) = match a {
                0.0 => (0.0, 1.0),
                90.0 => (1.0, 0.0),
                180.0 => (0.0, -1.0),
                270.0 => (-1.0, 0.0),
                _ => a.to_radians().sin_cos(),
            };
            let sv = if xv.x != 0.0 {
                0
            } else if xv.y != 0.0 {
                1
            } else {
                2
            };
            let tv = if yv.x != 0.0 {
                0
            } else if yv.y != 0.0 {
                1
            } else {
                2
            };
            for v in [&mut xv, &mut yv] {
                let (ns, nt) = (cos * v[sv] - sin * v[tv], sin * v[sv] + cos * v[tv]);
                v[sv] = ns;
                v[tv] = nt;
            }
            TexVecs {
                s: xv / fix(scale[0]),
                s_offset: offset[0],
                t: yv / fix(scale[1]),
                t_offset: offset[1],
            }
        }
        TexProjection::Valve { u, v, scale, .. } => TexVecs {
            s: DVec3::new(u[0], u[1], u[2]) / fix(scale[0]),
            s_offset: u[3],
            t: DVec3::new(v[0], v[1], v[2]) / fix(scale[1]),
            t_offset: v[3],
        },
    }
}
