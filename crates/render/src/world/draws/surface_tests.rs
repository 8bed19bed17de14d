//! The per-surface tests: a surface of a visible cell is drawn when its box meets the cell's
//! octagon, it faces the eye, and (GLQuake's) its box is inside the frustum; the culled-surfaces
//! overlay asks why each one was dropped.

use super::*;

/// The eye and the view-projection of every view: what the per-surface tests see from.
pub(in crate::world) struct ViewEyes<'a> {
    camera: (Vec3, Mat4),
    views: &'a [lanthorn_vis::View],
}

impl<'a> ViewEyes<'a> {
    pub(in crate::world) fn of_inputs(inputs: &'a DrawInputs) -> Self {
        ViewEyes {
            camera: (inputs.camera.position, inputs.camera.view_proj()),
            views: &inputs.visible.views,
        }
    }

    pub(in crate::world) fn of(&self, view: u32) -> (Vec3, Mat4) {
        match self.views.get((view as usize).wrapping_sub(1)) {
            Some(v) if view > 0 => (v.eye, v.view_proj),
            _ => self.camera,
        }
    }
}

/// Where an item is drawn from: its view's eye, its translation (objects), its octagon.
pub(in crate::world) struct Placement {
    pub(super) eye: (Vec3, Mat4),
    pub(super) origin: Vec3,
    pub(super) octagon: Octagon,
    pub(super) tests: SurfaceTests,
}

/// A surface seen this far behind its plane is still drawn (an eye on the plane sees it).
pub(in crate::world) const BACK_FACE_TOLERANCE: f32 = 0.01;

impl Placement {
    /// A cell of the camera's own view (no translation).
    pub(in crate::world) fn in_camera_view(
        eyes: &ViewEyes,
        octagon: Octagon,
        tests: SurfaceTests,
    ) -> Placement {
        Placement {
            eye: eyes.of(0),
            origin: Vec3::ZERO,
            octagon,
            tests,
        }
    }

    pub(in crate::world) fn passes(&self, mesh: &WorldMesh, surface: u32) -> bool {
        self.passes_cull(mesh, &mesh.surface_cull[surface as usize])
    }

    /// [`passes`](Self::passes) for the surface whose test data is `c`.
    pub(in crate::world) fn passes_cull(&self, mesh: &WorldMesh, c: &SurfaceCull) -> bool {
        self.faces_and_in_view(mesh, c)
            && !(self.tests.octagon && !self.meets(mesh, c, &self.octagon))
    }

    /// The tests that do not depend on the octagon: the surface faces the eye and its box is
    /// in the view.
    pub(in crate::world) fn faces_and_in_view(&self, mesh: &WorldMesh, c: &SurfaceCull) -> bool {
        !(self.tests.back_faces && self.faces_away(c))
            && !(self.tests.boxes && !self.box_in_view(mesh, c))
    }

    /// The outline's bounding box has a corner inside each of the frustum's side planes
    /// (`x >= -w`, `x <= w`, `y >= -w`, `y <= w` in clip space).
    pub(in crate::world) fn box_in_view(&self, mesh: &WorldMesh, c: &SurfaceCull) -> bool {
        let first = c.first_corner as usize;
        let corners = &mesh.outlines[first..first + c.corner_count as usize];
        let b = lanthorn_geom::Aabb::from_points(corners.iter().map(|&p| p + self.origin));
        let clip = b.corners().map(|p| self.eye.1 * p.extend(1.0));
        let side = |f: fn(Vec4) -> f32| clip.iter().any(|&q| f(q) >= 0.0);
        side(|q| q.w + q.x) && side(|q| q.w - q.x) && side(|q| q.w + q.y) && side(|q| q.w - q.y)
    }

    pub(in crate::world) fn faces_away(&self, c: &SurfaceCull) -> bool {
        let eye = self.eye.0;
        c.normal != Vec3::ZERO && c.normal.dot(eye - self.origin) - c.dist < -BACK_FACE_TOLERANCE
    }

    /// The surface's outline has a part inside `octagon` on screen.
    pub(in crate::world) fn meets(
        &self,
        mesh: &WorldMesh,
        c: &SurfaceCull,
        octagon: &Octagon,
    ) -> bool {
        let view_proj = self.eye.1;
        let first = c.first_corner as usize;
        let corners = &mesh.outlines[first..first + c.corner_count as usize];
        if !c.convex {
            return points_meet_octagon(&view_proj, corners, self.origin, octagon);
        }
        meets_octagon(&view_proj, corners, self.origin, octagon)
    }

    /// Why the tests drop the surface (`None`: it is drawn).
    pub(in crate::world) fn reason(&self, mesh: &WorldMesh, surface: u32) -> Option<CullReason> {
        let c = &mesh.surface_cull[surface as usize];
        if self.tests.back_faces && self.faces_away(c) {
            Some(CullReason::BackFace)
        } else if self.tests.boxes && !self.box_in_view(mesh, c) {
            Some(CullReason::Frustum)
        } else if self.tests.octagon && !self.meets(mesh, c, &Octagon::FULL) {
            Some(CullReason::Frustum)
        } else if self.tests.octagon && !self.meets(mesh, c, &self.octagon) {
            Some(CullReason::Octagon)
        } else {
            None
        }
    }
}

/// Why the per-surface test dropped a surface of a visible cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CullReason {
    /// Outside the view (or behind the near plane).
    Frustum,
    /// On screen, but outside its cell's octagon.
    Octagon,
    /// Its plane faces away from the eye.
    BackFace,
}

/// The surfaces of the visible cells (camera view) that `inputs.tests` drop, and why: the
/// culled-surfaces overlay. A surface several cells list is reported once, for the first
/// cell that drops it, unless another cell draws it.
pub fn culled_surfaces(mesh: &WorldMesh, inputs: &DrawInputs) -> Vec<(u32, CullReason)> {
    let eyes = ViewEyes::of_inputs(inputs);
    let mut drawn = std::collections::HashSet::new();
    let mut dropped: Vec<(u32, CullReason)> = Vec::new();
    for c in inputs.visible.cells.iter().filter(|c| c.view == 0) {
        let placement = Placement::in_camera_view(&eyes, c.octagon, inputs.tests);
        for k in 0..3 {
            let Some(ranges) = mesh.cell_surfaces[k].get(c.cell as usize) else {
                continue;
            };
            for r in ranges {
                match placement.reason(mesh, r.surface) {
                    None => {
                        drawn.insert(r.surface);
                    }
                    Some(why) => dropped.push((r.surface, why)),
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    dropped.retain(|(s, _)| !drawn.contains(s) && seen.insert(*s));
    dropped
}

/// Whether a convex outline (moved by `origin`) has a part in front of the near plane inside
/// `octagon` on screen (exactly: the polygon clipped by the near plane and the octagon's
/// planes, `Octagon::meets_clip_polygon`).
pub(in crate::world) fn meets_octagon(
    view_proj: &Mat4,
    corners: &[Vec3],
    origin: Vec3,
    octagon: &Octagon,
) -> bool {
    let mut clip = [Vec4::ZERO; MAX_CLIPPED];
    if corners.len() > clip.len() {
        return true;
    }
    for (c, &p) in clip.iter_mut().zip(corners) {
        *c = *view_proj * (p + origin).extend(1.0);
    }
    octagon.meets_clip_polygon(&clip[..corners.len()])
}

/// Whether a surface bounded by `corners` (moved by `origin`; not a convex polygon: a curved
/// or merged surface, which lies within their bounds) can show inside `octagon`. Before the
/// near plane, their screen octagon says; where some lie behind it, their bounding box does,
/// exactly: what of the box shows is bounded by its faces, so some face meets the octagon.
/// (The full screen there drew a curved surface the eye stands beside wherever it looked.)
pub(in crate::world) fn points_meet_octagon(
    view_proj: &Mat4,
    corners: &[Vec3],
    origin: Vec3,
    octagon: &Octagon,
) -> bool {
    let clip = |p: Vec3| *view_proj * (p + origin).extend(1.0);
    let before_near = |c: Vec4| c.w - c.z >= 0.0 && c.w > 1e-6;
    if corners.iter().all(|&p| before_near(clip(p))) {
        let screen = corners.iter().map(|&p| {
            let c = clip(p);
            glam::Vec2::new(c.x, c.y) / c.w
        });
        return !Octagon::from_points(screen).intersect(octagon).is_empty();
    }
    let b = lanthorn_geom::Aabb::from_points(corners.iter().map(|&p| p + origin));
    let k = b.corners();
    // Corner i has x from bit 0, y from bit 1, z from bit 2: each face round its rim.
    const FACES: [[usize; 4]; 6] = [
        [0, 2, 6, 4],
        [1, 3, 7, 5],
        [0, 1, 5, 4],
        [2, 3, 7, 6],
        [0, 1, 3, 2],
        [4, 5, 7, 6],
    ];
    FACES
        .iter()
        .any(|f| meets_octagon(view_proj, &f.map(|i| k[i]), Vec3::ZERO, octagon))
}
