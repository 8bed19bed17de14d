//! Views through mirror and teleporter portals for the methods without a portal flow (`pvs`,
//! `pvs-cells`, `frustum`, `none`) — and so for vis-check's truth, which is `none`. Each
//! transformed portal that faces the eye from a cell the view sees, in front of it and on
//! screen, opens a view bounded by the portal's screen octagon, with the flow's limits
//! (`MAX_VIEWS` views, `MAX_VIEW_DEPTH` deep, breadth first); the method then picks that
//! view's cells from the eye beyond the portal.

use glam::{Mat4, Vec3, Vec4};

use super::portal_flow::{MAX_VIEWS, MAX_VIEW_DEPTH};
use super::screen_octagon::portal_octagon;
use super::{View, VisibleCell, VisibleSet};
use lanthorn_geom::{Camera, Octagon, Plane};
use lanthorn_level::{portal_flags, Level};

/// A view's cells as a method picks them: `cells(view, beyond, frustum, out)` appends the cells
/// seen through the view's frustum (world-space planes, inward) from `beyond`, the cell on
/// the far side of the portal.
pub type PickCells<'a> = dyn FnMut(&Level, u32, &[Plane; 5], &mut Vec<u32>) + 'a;

/// One view to open: the parent's transform and the portal's bound.
#[derive(Clone, Copy)]
struct Opening {
    view_proj: Mat4,
    eye: Vec3,
    octagon: Octagon,
    mirrored: bool,
    depth: u32,
}

/// Appends to `out` the views through transformed portals seen in `out`'s view-0 cells, and
/// each view's cells (from `pick`, with the view's octagon). Call it only for a level with
/// transformed portals (`Culler` checks once).
pub fn add_portal_views(
    level: &Level,
    camera: &Camera,
    out: &mut VisibleSet,
    pick: &mut PickCells<'_>,
) {
    out.views.clear();
    let near_zone = camera.near * 2.0;
    let mut parents = vec![(
        0u32,
        Opening {
            view_proj: camera.view_proj(),
            eye: camera.position,
            octagon: Octagon::FULL,
            mirrored: false,
            depth: 0,
        },
    )];
    let mut next = 0;
    let mut cells = Vec::new();
    let (mut clip_in, mut clip_out) = (Vec::new(), Vec::new());
    while next < parents.len() {
        let (index, parent) = parents[next];
        let (parent_view_proj, parent_eye, parent_octagon) =
            (parent.view_proj, parent.eye, parent.octagon);
        let (parent_mirrored, parent_depth) = (parent.mirrored, parent.depth);
        next += 1;
        if parent_depth >= MAX_VIEW_DEPTH {
            continue;
        }
        for (portal_id, portal) in level.portals.iter().enumerate() {
            let Some(m) = portal.transform.map(|m| Mat4::from_cols_array(&m)) else {
                continue;
            };
            if out.views.len() + 1 >= MAX_VIEWS || portal.flags & portal_flags::CLOSED != 0 {
                continue;
            }
            // A mirror or teleporter is one-sided: seen from its front cell only (behind it
            // is the wall it hangs on; through a teleporter, behind its far end lies the view
            // one came from).
            let d = portal.plane.distance(parent_eye);
            let near_side = portal.front;
            let seen = out
                .cells
                .iter()
                .any(|c| c.view == index && c.cell == near_side);
            if d < near_zone || !seen {
                continue;
            }
            let scratch = (&mut clip_in, &mut clip_out);
            let Some(octagon) = portal_octagon(&parent_view_proj, &portal.polygon, scratch)
                .map(|o| o.intersect(&parent_octagon))
                .filter(|o| !o.is_empty())
            else {
                continue;
            };
            // Keep what lies beyond the portal plane as seen from the eye (as the flow does).
            let n = portal.plane.normal;
            let plane = -Vec4::new(n.x, n.y, n.z, -portal.plane.dist);
            let view_proj = parent_view_proj * m;
            let eye = m.inverse().transform_point3(parent_eye);
            out.views.push(View {
                view_proj,
                eye,
                clip_plane: m.transpose() * plane,
                mirrored: parent_mirrored ^ (m.determinant() < 0.0),
                parent: index,
                portal: portal_id as u32,
                reflection: false,
            });
            let view = out.views.len() as u32;
            let beyond = portal.other(near_side);
            cells.clear();
            pick(level, beyond, &frustum_planes(&view_proj), &mut cells);
            out.cells.extend(cells.iter().map(|&cell| VisibleCell {
                cell,
                octagon,
                view,
            }));
            parents.push((
                view,
                Opening {
                    view_proj,
                    eye,
                    octagon,
                    mirrored: parent_mirrored ^ (m.determinant() < 0.0),
                    depth: parent_depth + 1,
                },
            ));
        }
    }
}

/// The near and four side planes of a (reverse-Z) view-projection, in world space, facing
/// inward: `x ≥ −w`, `x ≤ w`, `y ≥ −w`, `y ≤ w`, `z ≤ w`.
pub fn frustum_planes(view_proj: &Mat4) -> [Plane; 5] {
    let r = |i: usize| view_proj.row(i);
    let plane = |v: Vec4| {
        let len = v.truncate().length().max(1e-12);
        Plane {
            normal: v.truncate() / len,
            dist: -v.w / len,
        }
    };
    [
        plane(r(3) - r(2)),
        plane(r(3) + r(0)),
        plane(r(3) - r(0)),
        plane(r(3) + r(1)),
        plane(r(3) - r(1)),
    ]
}
