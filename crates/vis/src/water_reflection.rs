//! The flow's views of the air mirrored in a water surface (`PortalFlow::reflect_water`):
//! which portals open one, and the one view per water plane each opens or widens.

use glam::Mat4;

use super::{Beyond, PendingView, PortalFlow};
use lanthorn_geom::Plane;
use lanthorn_level::{portal_flags, Level};

/// The reflection across `plane` (points `p` to `p − 2·distance(p)·n`).
fn reflection_across(plane: &Plane) -> Mat4 {
    let n = plane.normal;
    let linear = glam::Mat3::IDENTITY - 2.0 * glam::Mat3::from_cols(n * n.x, n * n.y, n * n.z);
    let mut m = Mat4::from_mat3(linear);
    m.w_axis = (2.0 * plane.dist * n).extend(1.0);
    m
}

impl PortalFlow {
    /// Whether the portal from `cell` into `target` (its `flags`) is a water surface the
    /// camera's view sees from the air, clear of the near plane (`clear`), that reflects.
    pub(super) fn reflects(
        &self,
        level: &Level,
        (cell, target): (u32, u32),
        flags: u32,
        view: &PendingView,
        clear: bool,
    ) -> bool {
        let medium = |c: u32| level.cells[c as usize].medium;
        self.reflect_water
            && clear
            && view.depth == 0
            && flags & portal_flags::LIQUID_SURFACE != 0
            && medium(cell) == lanthorn_level::Medium::Air
            && medium(target) == lanthorn_level::Medium::Water
    }

    /// Opens the reflection of the air above the water surface on `plane` seen from `view`
    /// (one view per plane) and seeds it with the air cell `beyond` and its water surface's
    /// octagon.
    pub(super) fn open_reflection(
        &mut self,
        view: &PendingView,
        plane: &Plane,
        beyond: Beyond,
        pending: &mut Vec<PendingView>,
    ) {
        let seed = (beyond.cell, beyond.octagon);
        let mut reflected = view.through(plane, reflection_across(plane), beyond);
        reflected.reflection = true;
        let same_plane = |p: &PendingView| {
            p.reflection
                && p.parent == reflected.parent
                && (p.clip_plane - reflected.clip_plane).abs().max_element() < 1e-3
        };
        let index = match pending.iter().position(same_plane) {
            Some(i) => {
                pending[i].octagon = pending[i].octagon.union(&reflected.octagon);
                i
            }
            None => {
                pending.push(reflected);
                pending.len() - 1
            }
        };
        self.water_seeds.push((index, seed.0, seed.1));
    }
}
