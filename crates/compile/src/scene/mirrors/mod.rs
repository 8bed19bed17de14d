//! Mirror and teleporter portals from a scene's `mirrors` and `teleporters`. Each brush marks
//! wall faces (`wall_faces`); they are cut out of the wall drafts and become portals with a
//! transform, which the flow and the renderer already follow: `Portal::transform` maps what
//! is seen through the portal (the space of its back cell) into the front cell's space.
//!
//! A mirror face becomes a portal from its cell into itself, the transform the reflection
//! across the face's plane. A teleporter joins the face inside `from` (cell A) and the face
//! inside `to` (cell B): the rigid motion `m` carries the `to` face onto the `from` face and the
//! space in front of `to` (inside B) behind `from`, so A sees B through its wall; the portal
//! back uses `m⁻¹`. Faces that span several cells give one portal per pair of overlapping parts,
//! so each view starts in the cell it looks into.

use glam::{DMat3, DMat4, DQuat, DVec3};

use super::scene_file::{brush_planes, Scene, SceneBrush};
use super::wall_faces::{area_centroid, cut_faces, meets, planes_of, Face, Marker};
use super::SceneError;
use crate::draft::SurfaceDraft;
use lanthorn_geom::{DPlane, DPolygon};
use lanthorn_level::{Level, Portal};

/// Sizes of the two teleporter faces may differ by this much (units).
const SIZE_EPS: f64 = 0.05;

/// Cuts every mirror's and teleporter's faces out of the wall drafts and adds their portals.
pub(super) fn add_mirrors_and_teleporters(
    scene: &Scene,
    drafts: &mut Vec<SurfaceDraft>,
    level: &mut Level,
) -> Result<(), SceneError> {
    // Faces already taken, by the marker that took them: a later marker may not overlap them.
    let mut taken: Vec<(String, Vec<Face>)> = Vec::new();
    for (i, brush) in scene.mirrors.iter().enumerate() {
        let name = format!("mirrors[{i}]");
        let faces = take_faces(&name, brush, drafts, &taken)?;
        for f in &faces {
            add_portal(
                level,
                &f.polygon.points,
                f.plane,
                (f.cell, f.cell),
                reflection(&f.plane),
            );
        }
        taken.push((name, faces));
    }
    for (i, t) in scene.teleporters.iter().enumerate() {
        let name = format!("teleporters[{i}].from");
        let from = take_faces(&name, &t.from, drafts, &taken)?;
        taken.push((name, from.clone()));
        let name = format!("teleporters[{i}].to");
        let to = take_faces(&name, &t.to, drafts, &taken)?;
        taken.push((name, to.clone()));
        let m = teleport(&from, &to).map_err(|msg| SceneError::Portal {
            portal: format!("teleporters[{i}]"),
            msg,
        })?;
        add_teleporter(level, &from, &to, m);
    }
    Ok(())
}

/// The faces marked by `brush`, cut out of the drafts: a non-empty set on one plane.
fn take_faces(
    name: &str,
    brush: &SceneBrush,
    drafts: &mut Vec<SurfaceDraft>,
    taken: &[(String, Vec<Face>)],
) -> Result<Vec<Face>, SceneError> {
    let err = |msg: String| SceneError::Portal {
        portal: name.to_string(),
        msg,
    };
    let marker = Marker::new(brush_planes(brush))
        .ok_or_else(|| err("the brush is empty, unbounded or not finite".into()))?;
    if let Some((other, _)) = taken.iter().find(|(_, faces)| meets(faces, &marker)) {
        return Err(err(format!("the brush overlaps {other} on the same wall")));
    }
    let faces = cut_faces(drafts, &marker);
    if faces.is_empty() {
        return Err(err(
            "the brush meets no wall face: it must cross the plane of a wall of an open cell \
             (where solid meets air or a liquid) and hold part of that wall"
                .into(),
        ));
    }
    let planes = planes_of(&faces);
    if planes.len() > 1 {
        let list: Vec<String> = planes.iter().map(describe_plane).collect();
        return Err(err(format!(
            "the brush meets wall faces on {} planes ({}): make it cross one wall only",
            planes.len(),
            list.join("; ")
        )));
    }
    Ok(faces)
}

/// A plane as an author reads it: `x = 512, facing -x`, or its normal and distance.
fn describe_plane(p: &DPlane) -> String {
    for (k, axis) in ["x", "y", "z"].iter().enumerate() {
        let c = p.normal[k];
        if (c.abs() - 1.0).abs() < 1e-9 {
            let sign = if c > 0.0 { "+" } else { "-" };
            return format!("{axis} = {}, facing {sign}{axis}", num(p.dist * c));
        }
    }
    let n = p.normal;
    format!(
        "normal ({}, {}, {}) at distance {}",
        num(n.x),
        num(n.y),
        num(n.z),
        num(p.dist)
    )
}

/// A number with at most two decimals and no trailing zeros.
fn num(x: f64) -> String {
    let s = format!("{:.2}", x + 0.0);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The reflection across `p`: `x ↦ x − 2 (n·x − d) n`.
pub(super) fn reflection(p: &DPlane) -> DMat4 {
    let n = p.normal;
    let col = |e: DVec3| (e - 2.0 * n.dot(e) * n).extend(0.0);
    DMat4::from_cols(
        col(DVec3::X),
        col(DVec3::Y),
        col(DVec3::Z),
        (2.0 * p.dist * n).extend(1.0),
    )
}

/// The rigid motion carrying the `to` face onto the `from` face, the `to` cell's side of it
/// behind `from` (`to`'s normal onto minus `from`'s). Between walls (vertical faces) it turns
/// about Z, so up stays up; otherwise it takes the shortest turn. The faces must then cover
/// the same rectangle of the `from` plane with the same area.
pub(super) fn teleport(from: &[Face], to: &[Face]) -> Result<DMat4, String> {
    let (na, nb) = (from[0].plane.normal, to[0].plane.normal);
    let turn = turn(nb, -na);
    let polys = |faces: &[Face]| faces.iter().map(|f| f.polygon.clone()).collect::<Vec<_>>();
    let (pa, pb) = (polys(from), polys(to));
    let (ca, area_a) = area_centroid(&pa.iter().collect::<Vec<_>>());
    let (cb, area_b) = area_centroid(&pb.iter().collect::<Vec<_>>());
    let m = DMat4::from_translation(ca) * DMat4::from_mat3(turn) * DMat4::from_translation(-cb);
    let (u, v) = face_axes(na);
    let ra = extent(pa.iter().flat_map(|p| p.points.iter().copied()), u, v);
    let rb = extent(
        pb.iter()
            .flat_map(|p| p.points.iter().map(|&q| m.transform_point3(q))),
        u,
        v,
    );
    let size = |r: [f64; 4]| format!("{} × {}", num(r[1] - r[0]), num(r[3] - r[2]));
    let same_rect = ra.iter().zip(&rb).all(|(a, b)| (a - b).abs() < SIZE_EPS);
    if !same_rect {
        return Err(format!(
            "the faces differ in size: `from` is {} units, `to` is {}; a teleporter joins two \
             faces of the same size",
            size(ra),
            size(rb)
        ));
    }
    if (area_a - area_b).abs() > SIZE_EPS * (ra[1] - ra[0] + ra[3] - ra[2]) {
        return Err(format!(
            "the faces differ in shape: both span {} units but `from` covers {} square units \
             and `to` {}; a teleporter joins two faces of the same shape",
            size(ra),
            num(area_a),
            num(area_b)
        ));
    }
    Ok(m)
}

/// The rotation taking unit vector `a` onto unit vector `b`: about Z when both are horizontal.
fn turn(a: DVec3, b: DVec3) -> DMat3 {
    if a.z.abs() < 1e-9 && b.z.abs() < 1e-9 {
        DMat3::from_rotation_z(b.y.atan2(b.x) - a.y.atan2(a.x))
    } else {
        DMat3::from_quat(DQuat::from_rotation_arc(a, b))
    }
}

/// Two axes of the plane with normal `n`: across (horizontal where it can be) and up.
fn face_axes(n: DVec3) -> (DVec3, DVec3) {
    let u = if n.z.abs() < 0.9 {
        DVec3::Z.cross(n).normalize()
    } else {
        DVec3::X.reject_from(n).normalize()
    };
    (u, n.cross(u))
}

/// `[min u, max u, min v, max v]` of the points.
fn extent(points: impl Iterator<Item = DVec3>, u: DVec3, v: DVec3) -> [f64; 4] {
    let mut r = [
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    for p in points {
        let (a, b) = (p.dot(u), p.dot(v));
        r = [r[0].min(a), r[1].max(a), r[2].min(b), r[3].max(b)];
    }
    r
}

/// One portal each way for every overlapping pair of a `from` part and a carried `to` part.
fn add_teleporter(level: &mut Level, from: &[Face], to: &[Face], m: DMat4) {
    let inv = m.inverse();
    for a in from {
        for b in to {
            let carried = DPolygon::new(
                b.polygon
                    .points
                    .iter()
                    .map(|&p| m.transform_point3(p))
                    .collect(),
            );
            let overlap = a.polygon.intersect_coplanar(&carried, a.plane.normal);
            if overlap.is_empty() || overlap.area() < 0.01 {
                continue;
            }
            // Back in `to`'s space the overlap winds the other way round `to`'s normal.
            let back: Vec<DVec3> = overlap
                .points
                .iter()
                .rev()
                .map(|&p| inv.transform_point3(p))
                .collect();
            add_portal(level, &overlap.points, a.plane, (a.cell, b.cell), m);
            add_portal(level, &back, b.plane, (b.cell, a.cell), inv);
        }
    }
}

/// Adds a transformed portal from `front` (on the plane's positive side) into `back`, listed
/// once in each cell (once in all when they are the same cell, as for a mirror).
fn add_portal(
    level: &mut Level,
    points: &[DVec3],
    plane: DPlane,
    (front, back): (u32, u32),
    transform: DMat4,
) {
    let id = level.portals.len() as u32;
    level.cells[front as usize].portals.push(id);
    if back != front {
        level.cells[back as usize].portals.push(id);
    }
    level.portals.push(Portal {
        polygon: points.iter().map(|p| p.as_vec3()).collect(),
        plane: plane.to_f32(),
        front,
        back,
        transform: Some(transform.as_mat4().to_cols_array()),
        flags: 0,
    });
}

#[cfg(test)]
mod tests;
