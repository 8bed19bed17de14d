//! Visibility: portal flow, object culling, PVS baseline. Its output, the `VisibleSet`, is what
//! the world pass draws: one per-draw record per entry.

#![warn(unreachable_pub)]
#![warn(missing_docs)]

use lanthorn_geom::Octagon;
use lanthorn_level::Level;

/// A visible cell and the screen region it can be seen through.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VisibleCell {
    /// The cell (`Level::cells` index).
    pub cell: u32,
    /// The screen region (normalized device coordinates) the cell can be seen through.
    pub octagon: Octagon,
    /// The view it is seen in: 0 is the camera; mirrors and teleporters add views.
    pub view: u32,
}

/// A view through a mirror or teleporter portal (view 0 is the camera itself).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Projection × view × the portal transforms that lead here.
    pub view_proj: glam::Mat4,
    /// The eye in this view's space.
    pub eye: glam::Vec3,
    /// Only points with `clip_plane · (p, 1) >= 0` are drawn (what lies beyond the portal).
    pub clip_plane: glam::Vec4,
    /// An odd number of mirrors: triangles wind the other way.
    pub mirrored: bool,
    /// The view this one is seen in (0: the camera's) and the portal it is seen through:
    /// what it shows lies only where that portal is the nearest thing in the parent view.
    pub parent: u32,
    /// The portal (`Level::portals` index).
    pub portal: u32,
    /// A water surface's reflection (`PortalFlow::reflect_water`): the water is drawn over it,
    /// blended by a Fresnel term.
    pub reflection: bool,
}

/// A visible object, the union of its cells' octagons, and where it is this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VisibleObject {
    /// The object (`Level::objects` index).
    pub object: u32,
    /// The view it is seen in (0: the camera's; mirrors and teleporters show objects too).
    pub view: u32,
    /// The union of the octagons of the visible cells it is linked to.
    pub octagon: Octagon,
    /// Its translation this frame.
    pub origin: glam::Vec3,
    /// Its light multiplier this frame (linear RGB; 1 where it has its own lightmap).
    pub light: [f32; 3],
    /// Its light from the level's light grid this frame, when the level has one: each of its
    /// faces is lit by it at its normal (`light::grid::surface_light`), and `light` is unused.
    pub ambient: Option<lanthorn_level::GridLight>,
    /// Where the first visible cell it is linked to lies in `VisibleSet::cells` (the draws
    /// put it before that cell: front to back); `u32::MAX` where it was found otherwise.
    pub first_cell: u32,
}

/// Cells front-to-back with their octagons, and objects.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VisibleSet {
    /// The visible cells, nearest first within each view.
    pub cells: Vec<VisibleCell>,
    /// The visible objects.
    pub objects: Vec<VisibleObject>,
    /// Views after the camera's (index 1 onward is `views[i - 1]`).
    pub views: Vec<View>,
    /// For each of `cells`, the portals crossed from the eye to reach it in its view (empty
    /// when the method has no flow).
    pub flow_depth: Vec<u16>,
    /// The eye is in no cell: in solid, or out over the terrain beyond an outdoor level's
    /// cells. The cells are then a frustum fallback, and the terrain is not clipped to them.
    pub eye_outside: bool,
    /// No cell of the set lies beyond a portal a liquid covers: the portal flow stopped at
    /// every such portal it met (`liquid_cover`). False for the methods without a flow, and
    /// where the flow went through one within the near plane's reach: then cells under a
    /// liquid may be drawn, and a renderer that draws liquids opaque does best to draw them
    /// first, so that what lies under them fails the depth test.
    pub nothing_under_liquids: bool,
}

impl VisibleSet {
    /// No culling: every cell and object with the full-screen octagon.
    pub fn everything(level: &Level) -> VisibleSet {
        VisibleSet {
            cells: (0..level.cells.len() as u32)
                .map(|cell| VisibleCell {
                    cell,
                    octagon: Octagon::FULL,
                    view: 0,
                })
                .collect(),
            objects: (0..level.objects.len() as u32)
                .map(|object| VisibleObject {
                    object,
                    view: 0,
                    octagon: Octagon::FULL,
                    origin: level.objects[object as usize].origin,
                    light: [1.0; 3],
                    ambient: None,
                    first_cell: u32::MAX,
                })
                .collect(),
            views: Vec::new(),
            flow_depth: Vec::new(),
            eye_outside: false,
            nothing_under_liquids: false,
        }
    }
}

pub mod cull;
mod front_to_back;
pub mod liquid_cover;
pub mod locate;
pub mod movers;
pub mod near_plane;
pub mod objects;
pub mod portal_flow;
pub mod portal_views;
pub mod pvs;
pub mod screen_octagon;

pub use cull::{CullMode, Culler};
pub use locate::EyeTracker;
pub use portal_flow::{FlowStats, PortalFlow, PortalOutcome, PortalTest};

#[cfg(test)]
mod octagon_tests;
#[cfg(test)]
mod tests;
