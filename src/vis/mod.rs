//! Visibility: portal flow, object culling, PVS baseline. Its output, the `VisibleSet`, is what
//! the world pass draws: one per-draw record per entry.

use crate::geom::Octagon;
use crate::level::Level;

/// A visible cell and the screen region it can be seen through.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VisibleCell {
    pub cell: u32,
    pub octagon: Octagon,
}

/// A visible object and the union of its cells' octagons.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VisibleObject {
    pub object: u32,
    pub octagon: Octagon,
}

/// Cells front-to-back with their octagons, and objects.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VisibleSet {
    pub cells: Vec<VisibleCell>,
    pub objects: Vec<VisibleObject>,
}

impl VisibleSet {
    /// No culling: every cell and object with the full-screen octagon.
    pub fn everything(level: &Level) -> VisibleSet {
        VisibleSet {
            cells: (0..level.cells.len() as u32)
                .map(|cell| VisibleCell {
                    cell,
                    octagon: Octagon::FULL,
                })
                .collect(),
            objects: (0..level.objects.len() as u32)
                .map(|object| VisibleObject {
                    object,
                    octagon: Octagon::FULL,
                })
                .collect(),
        }
    }
}

pub mod cull;
pub mod locate;
pub mod objects;
pub mod portal_flow;

pub use cull::{CullMode, Culler};
pub use locate::EyeTracker;
pub use portal_flow::{FlowStats, PortalFlow};

#[cfg(test)]
mod tests;
