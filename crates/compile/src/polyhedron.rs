//! Convex polyhedra in f64 shared by both compilers: the plane pool (planes in flipped pairs,
//! snapped and deduplicated), a polyhedron as its faces, and splitting one by a pooled plane.

use std::collections::HashMap;

use glam::DVec3;

use lanthorn_geom::{Aabb, DPlane, DPolygon};
use lanthorn_level::{Cell, Medium};

/// Half-size of the starting square for a side's polygon.
pub(super) const HUGE: f64 = 1.0e6;
/// Snaps nearly axial normals to exact axes and distances to whole numbers when they are
/// within a hair of one.
pub(super) fn snap_plane(mut p: DPlane) -> DPlane {
    for k in 0..3 {
        if (p.normal[k].abs() - 1.0).abs() < 1e-9 {
            let s = p.normal[k].signum();
            p.normal = DVec3::ZERO;
            p.normal[k] = s;
            break;
        }
    }
    let r = p.dist.round();
    if (p.dist - r).abs() < 1e-6 {
        p.dist = r;
    }
    p
}

/// Planes shared by the BSP, in pairs: id `2k` is canonical (its largest normal component is
/// positive), `2k + 1` is the same plane flipped.
#[derive(Default, Clone, Debug)]
pub(super) struct PlanePool {
    pub planes: Vec<DPlane>,
    map: HashMap<(i64, i64, i64, i64), u32>,
}

fn key(p: &DPlane) -> (i64, i64, i64, i64) {
    let q = |v: f64, s: f64| (v * s).round() as i64;
    (
        q(p.normal.x, 1e6),
        q(p.normal.y, 1e6),
        q(p.normal.z, 1e6),
        q(p.dist, 1e2),
    )
}

impl PlanePool {
    pub(super) fn id(&mut self, p: DPlane) -> u32 {
        let p = snap_plane(p);
        let k = p.normal.abs().max_element();
        let axis = (0..3).find(|&i| p.normal[i].abs() == k).unwrap();
        let (canon, flip) = if p.normal[axis] > 0.0 {
            (p, 0)
        } else {
            (p.flipped(), 1)
        };
        if let Some(&id) = self.map.get(&key(&canon)) {
            return id | flip;
        }
        let id = self.planes.len() as u32;
        self.planes.push(canon);
        self.planes.push(canon.flipped());
        self.map.insert(key(&canon), id);
        id | flip
    }

    pub(super) fn get(&self, id: u32) -> &DPlane {
        &self.planes[id as usize]
    }

    pub(super) fn is_axial(&self, id: u32) -> bool {
        let n = self.planes[id as usize].normal;
        n.x.abs() == 1.0 || n.y.abs() == 1.0 || n.z.abs() == 1.0
    }
}

/// Classification tolerance for polyhedra against planes.
pub(super) const EPS: f64 = 1e-3;

/// A face of a convex polyhedron: outward plane id in the pool.
#[derive(Clone, Debug)]
pub(super) struct PFace {
    pub plane: u32,
    pub winding: DPolygon,
    /// An original brush side that may still be chosen as a splitter.
    pub candidate: bool,
    /// The side shows a visible surface: preferred as a splitter, so hidden sides (inside
    /// walls) only cut what is left.
    pub visible: bool,
}

/// A convex polyhedron as its faces.
#[derive(Clone, Debug, Default)]
pub(super) struct Poly {
    pub faces: Vec<PFace>,
    pub min: DVec3,
    pub max: DVec3,
}

/// Each plane's face of the convex region behind all `planes` (clipped with tolerance `eps`),
/// as (the plane's index, its winding); planes that leave no face of area are left out.
pub(crate) fn convex_faces(planes: &[DPlane], eps: f64) -> Vec<(usize, DPolygon)> {
    let mut faces = Vec::with_capacity(planes.len());
    for (i, p) in planes.iter().enumerate() {
        let mut w = DPolygon::base_winding(p, HUGE);
        for (j, q) in planes.iter().enumerate() {
            if i != j {
                w = w.clip_back(q, eps);
                if w.is_empty() {
                    break;
                }
            }
        }
        if !w.is_empty() && w.area() > 1e-6 {
            faces.push((i, w));
        }
    }
    faces
}

impl Poly {
    pub(super) fn new(faces: Vec<PFace>) -> Poly {
        let mut min = DVec3::splat(f64::INFINITY);
        let mut max = DVec3::splat(f64::NEG_INFINITY);
        for p in faces.iter().flat_map(|f| f.winding.points.iter()) {
            min = min.min(*p);
            max = max.max(*p);
        }
        Poly { faces, min, max }
    }

    /// Axis box as a polyhedron.
    pub(super) fn from_box(pool: &mut PlanePool, min: DVec3, max: DVec3) -> Poly {
        let mut planes = Vec::new();
        for k in 0..3 {
            let mut n = DVec3::ZERO;
            n[k] = 1.0;
            planes.push(DPlane::new(n, max[k]));
            planes.push(DPlane::new(-n, -min[k]));
        }
        // A box of no volume (a degenerate bound) is an empty polyhedron.
        Poly::from_planes(pool, &planes).unwrap_or_else(|| Poly::new(Vec::new()))
    }

    /// The convex region behind every plane; `None` when it has no volume (under four faces).
    pub(super) fn from_planes(pool: &mut PlanePool, planes: &[DPlane]) -> Option<Poly> {
        let faces: Vec<PFace> = convex_faces(planes, 1e-9)
            .into_iter()
            .map(|(i, winding)| PFace {
                plane: pool.id(planes[i]),
                winding,
                candidate: false,
                visible: false,
            })
            .collect();
        (faces.len() >= 4).then(|| Poly::new(faces))
    }

    pub(super) fn dist_range(&self, p: &DPlane) -> (f64, f64) {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for q in self.faces.iter().flat_map(|f| f.winding.points.iter()) {
            let d = p.distance(*q);
            lo = lo.min(d);
            hi = hi.max(d);
        }
        (lo, hi)
    }

    pub(super) fn center(&self) -> DVec3 {
        (self.min + self.max) * 0.5
    }

    /// Splits by plane `pid`: (front, back). A side that would be a sliver is `None`, and the
    /// whole polyhedron goes to the other side.
    pub(super) fn split(&self, pool: &PlanePool, pid: u32) -> (Option<Poly>, Option<Poly>) {
        let p = *pool.get(pid);
        let (lo, hi) = self.dist_range(&p);
        if hi <= EPS {
            return (None, Some(self.clone()));
        }
        if lo >= -EPS {
            return (Some(self.clone()), None);
        }
        let mut cap = DPolygon::base_winding(&p, HUGE);
        for f in &self.faces {
            cap = cap.clip_back(pool.get(f.plane), 1e-9);
            if cap.is_empty() {
                break;
            }
        }
        let whole = |front: bool| {
            if front {
                (Some(self.clone()), None)
            } else {
                (None, Some(self.clone()))
            }
        };
        if cap.is_empty() || cap.area() < 1e-3 {
            return whole(hi > -lo);
        }
        let mut front = Vec::with_capacity(self.faces.len() + 1);
        let mut back = Vec::with_capacity(self.faces.len() + 1);
        for f in &self.faces {
            let (fw, bw) = f.winding.split(&p, 1e-9);
            if !fw.is_empty() && fw.area() > 1e-9 {
                front.push(PFace {
                    plane: f.plane,
                    winding: fw,
                    candidate: f.candidate,
                    visible: f.visible,
                });
            }
            if !bw.is_empty() && bw.area() > 1e-9 {
                back.push(PFace {
                    plane: f.plane,
                    winding: bw,
                    candidate: f.candidate,
                    visible: f.visible,
                });
            }
        }
        if front.len() < 3 || back.len() < 3 {
            return whole(hi > -lo);
        }
        front.push(PFace {
            plane: pid ^ 1,
            winding: cap.reversed(),
            candidate: false,
            visible: false,
        });
        back.push(PFace {
            plane: pid,
            winding: cap,
            candidate: false,
            visible: false,
        });
        (Some(Poly::new(front)), Some(Poly::new(back)))
    }

    /// The cell this polyhedron bounds (its inward planes and box), of `medium` with `flags`,
    /// with no portals or surfaces yet: a map leaf or a scene region becomes a cell the same way.
    pub(super) fn cell(&self, pool: &PlanePool, medium: Medium, flags: u32) -> Cell {
        Cell {
            planes: self
                .inward_planes(pool)
                .iter()
                .map(|p| p.to_f32())
                .collect(),
            aabb: Aabb::new(self.min.as_vec3(), self.max.as_vec3()),
            medium,
            flags,
            portals: Vec::new(),
            surfaces: Vec::new(),
        }
    }

    /// Inward planes (for `Cell::planes`).
    pub(super) fn inward_planes(&self, pool: &PlanePool) -> Vec<DPlane> {
        self.faces.iter().map(|f| *pool.get(f.plane ^ 1)).collect()
    }
}
