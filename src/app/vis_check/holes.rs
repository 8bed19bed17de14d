//! What the truth shows through holes in the level: a pixel whose surface the eye reaches
//! only along a line through solid (e2m5: a face id's qbsp left out of a wall; an eye inside
//! a sky brush, seeing past its sides, which have no faces). No visibility method can find
//! those through open space, Quake's PVS included, and Quake draws no picture there either,
//! so vis-check counts them apart from the misses (`MethodTotals::through_holes`).

use glam::{Mat4, Vec3, Vec4};

use crate::geom::Camera;
use crate::level::{cell_flags, Level};

/// The per-pixel test for one level.
pub(super) struct Holes {
    /// The object each surface belongs to (`u32::MAX`: the world's).
    object_of: Vec<u32>,
    /// Whether the test applies: a level with a tree, no mirror or teleporter (a pixel of
    /// their views is seen from another eye) and no `OUTSIDE` cell (outdoor cells see each
    /// other across the sky, which no cell holds).
    on: bool,
    /// No mirror or teleporter: every pixel is seen from the camera's eye.
    one_view: bool,
}

/// One view of the test: the camera and where the objects stand.
pub(super) struct HoleView<'a> {
    pub(super) camera: &'a Camera,
    pub(super) size: (u32, u32),
    pub(super) origins: &'a [Vec3],
}

impl Holes {
    pub(super) fn new(level: &Level) -> Holes {
        let mut object_of = vec![u32::MAX; level.surfaces.len()];
        for (i, o) in level.objects.iter().enumerate() {
            for &s in &o.surfaces {
                if let Some(slot) = object_of.get_mut(s as usize) {
                    *slot = i as u32;
                }
            }
        }
        let one_view = level.portals.iter().all(|p| p.transform.is_none());
        let outside = level
            .cells
            .iter()
            .any(|c| c.flags & cell_flags::OUTSIDE != 0);
        Holes {
            object_of,
            on: level.bsp.root.is_some() && one_view && !outside,
            one_view,
        }
    }

    /// Whether every pixel is seen from the camera's eye (no mirror or teleporter).
    pub(super) fn one_view(&self) -> bool {
        self.one_view
    }

    /// Where surface `s` stands: its object's origin, zero for the world's.
    pub(super) fn origin_of(&self, s: usize, origins: &[Vec3]) -> Vec3 {
        match self.object_of.get(s).copied().unwrap_or(u32::MAX) {
            u32::MAX => Vec3::ZERO,
            o => origins.get(o as usize).copied().unwrap_or(Vec3::ZERO),
        }
    }

    /// Whether pixel `i` of the view shows surface id `id` (surface + 1) only through solid:
    /// the line from the eye to where the pixel's ray meets the surface's plane (stopped a
    /// unit short of it, which has solid behind it) runs through solid.
    pub(super) fn through_solid(&self, level: &Level, view: &HoleView, i: usize, id: u32) -> bool {
        let Some(s) = (id as usize)
            .checked_sub(1)
            .and_then(|s| level.surfaces.get(s))
        else {
            return false;
        };
        if !self.on || s.vertices.is_empty() {
            return false;
        }
        let origin = self.origin_of(id as usize - 1, view.origins);
        let eye = view.camera.position;
        let dir = pixel_ray(&view.camera.view_proj().inverse(), view.size, i, eye);
        let on_plane = s.vertices[0].position + origin;
        let along = s.normal.dot(dir);
        let t = s.normal.dot(on_plane - eye) / along;
        if !t.is_finite() || t <= 1.0 {
            return false;
        }
        level.segment_crosses_solid(eye, eye + dir * (t - 1.0), crate::level::GRAZE)
    }
}

/// The unit direction of pixel `i`'s ray (through its centre) from `eye`.
fn pixel_ray(inverse_view_proj: &Mat4, (w, h): (u32, u32), i: usize, eye: Vec3) -> Vec3 {
    let (x, y) = ((i % w as usize) as f32, (i / w as usize) as f32);
    let ndc = Vec4::new(
        (x + 0.5) / w as f32 * 2.0 - 1.0,
        1.0 - (y + 0.5) / h as f32 * 2.0,
        0.5,
        1.0,
    );
    let p = *inverse_view_proj * ndc;
    (p.truncate() / p.w - eye).normalize_or_zero()
}
