//! Convex brushes in f64: planes → polyhedron (each side's polygon is a huge square clipped by
//! every other plane), and the shared plane pool the BSP uses.

use glam::DVec3;

use crate::polyhedron::{convex_faces, snap_plane};
use lanthorn_geom::{DPlane, DPolygon};

/// Distance under which a point counts as on a plane.
pub(super) const ON_EPS: f64 = 1e-3;

/// What a brush does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Contents {
    Solid,
    /// Solid, and its sky-textured faces are sky surfaces.
    Sky,
    Water,
    Slime,
    Lava,
    /// Player clip: no surfaces, does not seal.
    Clip,
    /// Trigger entities' brushes, origin and hint brushes: no surfaces, does not seal.
    Nothing,
}

impl Contents {
    pub(super) fn is_solid(self) -> bool {
        matches!(self, Contents::Solid | Contents::Sky)
    }
    pub(super) fn is_liquid(self) -> bool {
        matches!(self, Contents::Water | Contents::Slime | Contents::Lava)
    }
    pub(super) fn medium(self) -> lanthorn_level::Medium {
        use lanthorn_level::Medium;
        match self {
            Contents::Solid | Contents::Sky => Medium::Solid,
            Contents::Water => Medium::Water,
            Contents::Slime => Medium::Slime,
            Contents::Lava => Medium::Lava,
            _ => Medium::Air,
        }
    }
}

/// Whether a texture draws nothing (tool textures). `trigger` is not one: on a world brush id's
/// qbsp draws it like any texture (trigger entities draw nothing whatever their faces say).
pub(super) fn is_tool_texture(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "clip" | "skip" | "hint" | "hintskip" | "origin" | "null" | "nodraw"
    ) || n.starts_with("*waterskip")
}

pub(super) fn is_sky_texture(name: &str) -> bool {
    // Bytes, not a str slice: a multi-byte character may straddle byte 3.
    name.as_bytes()
        .get(..3)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"sky"))
}

/// Contents from the name of the face that decides a brush's contents (`None` for solid).
/// `trigger` is an ordinary texture here, as in id's qbsp.
pub(super) fn texture_contents(name: &str) -> Option<Contents> {
    let n = name.to_ascii_lowercase();
    if n == "clip" {
        Some(Contents::Clip)
    } else if matches!(n.as_str(), "origin" | "hint" | "hintskip") {
        Some(Contents::Nothing)
    } else if n.starts_with("*lava") {
        Some(Contents::Lava)
    } else if n.starts_with("*slime") {
        Some(Contents::Slime)
    } else if n.starts_with('*') {
        Some(Contents::Water)
    } else if is_sky_texture(&n) {
        Some(Contents::Sky)
    } else {
        None
    }
}

/// One side of a built brush.
#[derive(Clone, Debug)]
pub(super) struct Side {
    /// Outward plane.
    pub plane: DPlane,
    /// Index of the `.map` face it came from.
    pub face: usize,
    /// The side's polygon, counter-clockwise seen from outside.
    pub winding: DPolygon,
}

/// A convex polyhedron built from a `.map` brush.
#[derive(Clone, Debug)]
pub(super) struct Brush {
    pub sides: Vec<Side>,
    pub min: DVec3,
    pub max: DVec3,
    pub contents: Contents,
    /// Entity index in the map, brush index inside the entity, source line: where an
    /// author finds the brush (`index` and `line` are for reports that name it).
    pub entity: usize,
    pub index: usize,
    pub line: usize,
    /// func_detail: never splits cells.
    pub detail: bool,
}

impl Brush {
    /// Whether `p` lies inside (or within `eps` of) the brush.
    pub(super) fn contains(&self, p: DVec3, eps: f64) -> bool {
        self.sides.iter().all(|s| s.plane.distance(p) <= eps)
    }

    #[cfg(test)]
    pub(super) fn volume(&self) -> f64 {
        // Sum of pyramids from an inside point.
        let c = self
            .sides
            .iter()
            .flat_map(|s| s.winding.points.iter())
            .copied()
            .sum::<DVec3>()
            / self
                .sides
                .iter()
                .map(|s| s.winding.points.len())
                .sum::<usize>()
                .max(1) as f64;
        self.sides
            .iter()
            .map(|s| -s.plane.distance(c) * s.winding.area() / 3.0)
            .sum()
    }
}

/// Why a brush could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(super) enum BrushError {
    #[error("fewer than 4 faces ({0})")]
    TooFewFaces(usize),
    #[error("the planes do not enclose a volume (only {0} sides are left after clipping)")]
    NoVolume(usize),
    #[error("the brush reaches coordinate {0:.0}, outside the world")]
    Unbounded(f64),
}

/// The outward plane of a `.map` face: normal `(p0 - p1) × (p2 - p1)`.
pub(super) fn map_plane(points: &[DVec3; 3]) -> Option<DPlane> {
    let n = (points[0] - points[1]).cross(points[2] - points[1]);
    let len = n.length();
    if !(len > 1e-6 * (points[0] - points[1]).length().max(1.0)) {
        return None;
    }
    Some(snap_plane(DPlane::new(n / len, (n / len).dot(points[1]))))
}

/// Builds a convex polyhedron from outward planes. Duplicate planes are merged; sides whose
/// polygon clips away are dropped (redundant planes). `faces[i]` is the source face index.
pub(super) fn build(planes: &[(DPlane, usize)], world_limit: f64) -> Result<Vec<Side>, BrushError> {
    if planes.len() < 4 {
        return Err(BrushError::TooFewFaces(planes.len()));
    }
    let mut unique: Vec<(DPlane, usize)> = Vec::with_capacity(planes.len());
    for &(p, f) in planes {
        if !unique
            .iter()
            .any(|(q, _)| q.normal.dot(p.normal) > 1.0 - 1e-9 && (q.dist - p.dist).abs() < ON_EPS)
        {
            unique.push((p, f));
        }
    }
    // An opposite plane at the same place leaves no volume.
    let opposite = |(i, p): (usize, &DPlane)| {
        unique[i + 1..]
            .iter()
            .any(|(q, _)| q.normal.dot(p.normal) < -1.0 + 1e-9 && (q.dist + p.dist).abs() < ON_EPS)
    };
    if unique.iter().map(|(p, _)| p).enumerate().any(opposite) {
        return Err(BrushError::NoVolume(0));
    }
    let plane_list: Vec<DPlane> = unique.iter().map(|(p, _)| *p).collect();
    let sides: Vec<Side> = convex_faces(&plane_list, 1e-7)
        .into_iter()
        .map(|(i, winding)| Side {
            plane: unique[i].0,
            face: unique[i].1,
            winding,
        })
        .collect();
    if sides.len() < 4 {
        return Err(BrushError::NoVolume(sides.len()));
    }
    let far = sides
        .iter()
        .flat_map(|s| s.winding.points.iter())
        .map(|p| p.abs().max_element())
        .fold(0.0, f64::max);
    if far > world_limit {
        return Err(BrushError::Unbounded(far));
    }
    Ok(sides)
}

pub(super) fn bounds(sides: &[Side]) -> (DVec3, DVec3) {
    let mut min = DVec3::splat(f64::INFINITY);
    let mut max = DVec3::splat(f64::NEG_INFINITY);
    for p in sides.iter().flat_map(|s| s.winding.points.iter()) {
        min = min.min(*p);
        max = max.max(*p);
    }
    (min, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::polyhedron::PlanePool;

    fn box_planes(min: DVec3, max: DVec3) -> Vec<(DPlane, usize)> {
        let mut v = Vec::new();
        for k in 0..3 {
            let mut n = DVec3::ZERO;
            n[k] = 1.0;
            v.push((DPlane::new(n, max[k]), v.len()));
            v.push((DPlane::new(-n, -min[k]), v.len()));
        }
        v
    }

    #[test]
    fn box_and_wedge() {
        let sides = build(&box_planes(DVec3::ZERO, DVec3::new(64.0, 32.0, 16.0)), 1e5).unwrap();
        assert_eq!(sides.len(), 6);
        let b = Brush {
            sides,
            min: DVec3::ZERO,
            max: DVec3::ZERO,
            contents: Contents::Solid,
            entity: 0,
            index: 0,
            line: 0,
            detail: false,
        };
        assert!((b.volume() - 64.0 * 32.0 * 16.0).abs() < 1e-6);
        // Every polygon faces outward.
        for s in &b.sides {
            assert!(s.winding.area_vector().normalize().dot(s.plane.normal) > 0.999);
        }
        // A redundant plane is dropped, a duplicate merged; a wedge cut keeps half the volume.
        let mut p = box_planes(DVec3::ZERO, DVec3::splat(64.0));
        p.push((DPlane::new(DVec3::X, 100.0), 6));
        p.push((DPlane::new(DVec3::X, 64.0), 7));
        let n = DVec3::new(1.0, 1.0, 0.0).normalize();
        p.push((DPlane::new(n, n.dot(DVec3::new(64.0, 0.0, 0.0))), 8));
        let sides = build(&p, 1e5).unwrap();
        assert_eq!(sides.len(), 5);
        let b = Brush { sides, ..b };
        assert!(
            (b.volume() - 64.0 * 64.0 * 64.0 / 2.0).abs() < 1e-6,
            "{}",
            b.volume()
        );
    }

    #[test]
    fn bad_brushes_are_errors() {
        let p = box_planes(DVec3::ZERO, DVec3::splat(64.0));
        assert_eq!(build(&p[..3], 1e5).unwrap_err(), BrushError::TooFewFaces(3));
        // Open on one side: unbounded.
        assert!(matches!(
            build(&p[..5], 1e5),
            Err(BrushError::Unbounded(_)) | Err(BrushError::NoVolume(_))
        ));
        // Contradictory planes.
        let mut q = p.clone();
        q.push((DPlane::new(DVec3::X, -10.0), 6));
        assert!(matches!(build(&q, 1e5), Err(BrushError::NoVolume(_))));
        assert!(map_plane(&[DVec3::ZERO, DVec3::X, DVec3::X * 2.0]).is_none());
    }

    #[test]
    fn plane_pool_pairs() {
        let mut pool = PlanePool::default();
        let a = pool.id(DPlane::new(DVec3::X, 5.0));
        let b = pool.id(DPlane::new(-DVec3::X, -5.0));
        assert_eq!(a ^ 1, b);
        assert_eq!(pool.get(b).normal, -DVec3::X);
        assert_eq!(pool.id(DPlane::new(DVec3::X, 5.0000000001)), a);
        assert!(pool.is_axial(a));
    }
}
