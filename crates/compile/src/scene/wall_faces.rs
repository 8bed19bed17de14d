//! The wall faces a mirror or teleporter brush marks: the parts of the wall drafts (solid seen
//! from an open cell) inside a convex brush that crosses the wall's plane. Cutting them out
//! leaves the rest of each wall as surface drafts, so surfaces and holes tile the wall exactly.

use glam::DVec3;

use crate::draft::SurfaceDraft;
use crate::polyhedron::{PlanePool, Poly};
use lanthorn_geom::{DPlane, DPolygon};

/// Distances below this (units) count as on a plane.
const EPS: f64 = 0.01;
/// Pieces smaller than this (square units) are slivers of a cut, not faces.
const MIN_AREA: f64 = 0.01;

/// A convex brush marking wall faces: its outward planes and its polyhedron.
pub(super) struct Marker {
    planes: Vec<DPlane>,
    poly: Poly,
}

impl Marker {
    /// `None` for a brush that is empty, unbounded or not finite.
    pub(super) fn new(planes: Vec<DPlane>) -> Option<Marker> {
        if planes
            .iter()
            .any(|p| !p.normal.is_finite() || !p.dist.is_finite())
        {
            return None;
        }
        let poly = crate::polyhedron::Poly::from_planes(&mut PlanePool::default(), &planes)?;
        Some(Marker { planes, poly })
    }

    /// Whether the brush reaches strictly to both sides of `plane` (a face it only touches,
    /// such as the floor under a box standing on it, is not marked).
    fn crosses(&self, plane: &DPlane) -> bool {
        let (lo, hi) = self.poly.dist_range(plane);
        lo < -EPS && hi > EPS
    }

    /// Splits `polygon` into its part inside the brush and the convex pieces outside it,
    /// which tile the rest of the polygon.
    fn cut(&self, polygon: &DPolygon) -> (DPolygon, Vec<DPolygon>) {
        let mut rest = polygon.clone();
        let mut outside = Vec::new();
        for plane in &self.planes {
            let (front, back) = rest.split(plane, 1e-6);
            if !front.is_empty() && front.area() > 1e-9 {
                outside.push(front);
            }
            rest = back;
            if rest.is_empty() {
                break;
            }
        }
        (rest, outside)
    }
}

/// One marked face: a convex part of one cell's wall, wound counter-clockwise seen from the
/// cell, on `plane` (facing into the cell).
#[derive(Clone, Debug)]
pub(super) struct Face {
    pub(super) cell: u32,
    pub(super) polygon: DPolygon,
    pub(super) plane: DPlane,
}

/// Takes the parts of the wall drafts inside `marker` out of `drafts` and returns them; the
/// walls' remaining parts stay drafts with the same spec.
pub(super) fn cut_faces(drafts: &mut Vec<SurfaceDraft>, marker: &Marker) -> Vec<Face> {
    let (lo, hi) = (marker.poly.min - EPS, marker.poly.max + EPS);
    let mut faces = Vec::new();
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < drafts.len() {
        let d = &drafts[i];
        let polygon = DPolygon::new(d.points.clone());
        let plane = DPlane::new(d.normal, d.normal.dot(polygon.centroid()));
        let near = polygon
            .points
            .iter()
            .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(a, b), &p| {
                (a.min(p), b.max(p))
            });
        let candidate = d.spec.flags == 0
            && near.0.cmple(hi).all()
            && near.1.cmpge(lo).all()
            && marker.crosses(&plane);
        if !candidate {
            i += 1;
            continue;
        }
        let (inside, outside) = marker.cut(&polygon);
        if inside.is_empty() || inside.area() < MIN_AREA {
            i += 1;
            continue;
        }
        let d = drafts.swap_remove(i);
        faces.push(Face {
            cell: d.cells[0],
            polygon: inside,
            plane,
        });
        pieces.extend(outside.into_iter().map(|p| SurfaceDraft {
            points: p.points,
            normal: d.normal,
            spec: d.spec.clone(),
            cells: d.cells.clone(),
        }));
    }
    drafts.extend(pieces);
    faces
}

/// Whether any of `faces` has a part inside `marker` (for overlapping markers).
pub(super) fn meets(faces: &[Face], marker: &Marker) -> bool {
    faces.iter().any(|f| {
        marker.crosses(&f.plane) && {
            let inside = marker.cut(&f.polygon).0;
            !inside.is_empty() && inside.area() >= MIN_AREA
        }
    })
}

/// The distinct planes of `faces` (within `EPS`), in order of first appearance.
pub(super) fn planes_of(faces: &[Face]) -> Vec<DPlane> {
    let mut out: Vec<DPlane> = Vec::new();
    for f in faces {
        let same = |p: &DPlane| {
            p.normal.dot(f.plane.normal) > 1.0 - 1e-9 && (p.dist - f.plane.dist).abs() < EPS
        };
        if !out.iter().any(same) {
            out.push(f.plane);
        }
    }
    out
}

/// The area-weighted centroid of convex polygons.
pub(super) fn area_centroid(polygons: &[&DPolygon]) -> (DVec3, f64) {
    let (mut sum, mut area) = (DVec3::ZERO, 0.0);
    for p in polygons {
        let p0 = p.points[0];
        for k in 1..p.points.len() - 1 {
            let (a, b) = (p.points[k], p.points[k + 1]);
            let t = (a - p0).cross(b - p0).length() * 0.5;
            sum += (p0 + a + b) / 3.0 * t;
            area += t;
        }
    }
    (sum / area.max(1e-12), area)
}
