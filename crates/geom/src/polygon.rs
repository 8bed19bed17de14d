//! Convex polygons in double precision: the compiler's faces, split and clipped by planes.

use glam::DVec3;

use super::DPlane;

/// A convex polygon in f64 (compile time). Vertices wind counter-clockwise seen from the front
/// of the polygon's plane.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DPolygon {
    /// Its corners in order.
    pub points: Vec<DVec3>,
}

/// Which side of a plane a polygon lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Wholly in front.
    Front,
    /// Wholly behind.
    Back,
    /// In the plane.
    On,
    /// On both sides.
    Spanning,
}

impl DPolygon {
    /// The polygon with these corners.
    pub fn new(points: Vec<DVec3>) -> Self {
        Self { points }
    }

    /// A large square on `plane`, wound counter-clockwise seen from its front.
    pub fn base_winding(plane: &DPlane, half_size: f64) -> Self {
        let n = plane.normal;
        let up = if n.z.abs() < 0.9 { DVec3::Z } else { DVec3::X };
        let u = up.cross(n).normalize();
        let v = n.cross(u);
        let c = n * plane.dist;
        let (u, v) = (u * half_size, v * half_size);
        Self {
            points: vec![c - u - v, c + u - v, c + u + v, c - u + v],
        }
    }

    /// Fewer than three corners: no area.
    pub fn is_empty(&self) -> bool {
        self.points.len() < 3
    }

    /// Its area.
    pub fn area(&self) -> f64 {
        self.area_vector().length()
    }

    /// The vector area (unit normal × area), by the shoelace formula.
    pub fn area_vector(&self) -> DVec3 {
        let mut acc = DVec3::ZERO;
        if self.points.len() < 3 {
            return acc;
        }
        let p0 = self.points[0];
        for i in 1..self.points.len() - 1 {
            acc += (self.points[i] - p0).cross(self.points[i + 1] - p0);
        }
        acc * 0.5
    }

    /// The mean of its corners.
    pub fn centroid(&self) -> DVec3 {
        let n = self.points.len().max(1) as f64;
        self.points.iter().copied().sum::<DVec3>() / n
    }

    /// Which side of `plane` it lies on, corners within `eps` counting as on it.
    pub fn classify(&self, plane: &DPlane, eps: f64) -> Side {
        let (mut front, mut back) = (false, false);
        for &p in &self.points {
            let d = plane.distance(p);
            if d > eps {
                front = true;
            } else if d < -eps {
                back = true;
            }
        }
        match (front, back) {
            (true, true) => Side::Spanning,
            (true, false) => Side::Front,
            (false, true) => Side::Back,
            (false, false) => Side::On,
        }
    }

    /// Splits by `plane` into (front, back) parts; points within `eps` count as on the plane
    /// and go to both sides. Either part may be empty.
    pub fn split(&self, plane: &DPlane, eps: f64) -> (DPolygon, DPolygon) {
        let n = self.points.len();
        let dists: Vec<f64> = self.points.iter().map(|&p| plane.distance(p)).collect();
        let mut front = Vec::with_capacity(n + 1);
        let mut back = Vec::with_capacity(n + 1);
        for i in 0..n {
            let (p, d) = (self.points[i], dists[i]);
            let j = (i + 1) % n;
            let (q, dq) = (self.points[j], dists[j]);
            if d >= -eps {
                front.push(p);
            }
            if d <= eps {
                back.push(p);
            }
            if (d > eps && dq < -eps) || (d < -eps && dq > eps) {
                let t = d / (d - dq);
                // Snap to the exact plane coordinate on axial planes to keep coordinates clean.
                let mut m = p + (q - p) * t;
                for k in 0..3 {
                    if plane.normal[k] == 1.0 {
                        m[k] = plane.dist;
                    } else if plane.normal[k] == -1.0 {
                        m[k] = -plane.dist;
                    }
                }
                front.push(m);
                back.push(m);
            }
        }
        let f = if front.len() >= 3 {
            DPolygon::new(front)
        } else {
            DPolygon::default()
        };
        let b = if back.len() >= 3 {
            DPolygon::new(back)
        } else {
            DPolygon::default()
        };
        (f, b)
    }

    /// The overlap of two convex polygons on one plane (`self` wound around `normal`; `b` the other
    /// way): `self` clipped by `b`'s edges.
    pub fn intersect_coplanar(&self, b: &DPolygon, normal: DVec3) -> DPolygon {
        let mut w = self.clone();
        let n = b.points.len();
        for i in 0..n {
            let (p, q) = (b.points[i], b.points[(i + 1) % n]);
            // `b` runs clockwise around `normal`, so its inside is to the left of p→q seen from
            // -normal: the edge plane's outward normal is (q - p) × normal... pick by a test point.
            let en = (q - p).cross(normal);
            let len = en.length();
            if len < 1e-12 {
                continue;
            }
            let en = en / len;
            let mut plane = DPlane::new(en, en.dot(p));
            let inside_pt = b.centroid();
            if plane.distance(inside_pt) > 0.0 {
                plane = plane.flipped();
            }
            w = w.clip_back(&plane, 1e-6);
            if w.is_empty() {
                break;
            }
        }
        w
    }

    /// Keeps the part on the back side (`distance <= eps`) of `plane`.
    pub fn clip_back(&self, plane: &DPlane, eps: f64) -> DPolygon {
        self.split(plane, eps).1
    }

    /// The same polygon wound the other way (facing the other side).
    pub fn reversed(&self) -> DPolygon {
        let mut p = self.points.clone();
        p.reverse();
        DPolygon::new(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_square_in_half_conserves_area() {
        let plane = DPlane::new(DVec3::Z, 0.0);
        let sq = DPolygon::base_winding(&plane, 10.0);
        assert!((sq.area() - 400.0).abs() < 1e-9);
        // Normal of the winding agrees with the plane (counter-clockwise from the front).
        assert!(sq.area_vector().normalize().dot(DVec3::Z) > 0.999);
        let cut = DPlane::new(DVec3::X, 3.0);
        let (f, b) = sq.split(&cut, 1e-9);
        assert!((f.area() - 7.0 * 20.0).abs() < 1e-9);
        assert!((b.area() - 13.0 * 20.0).abs() < 1e-9);
        assert!(f.points.iter().all(|p| p.x >= 3.0 - 1e-12));
        assert_eq!(sq.classify(&DPlane::new(DVec3::X, 20.0), 1e-9), Side::Back);
    }
}
