//! The culling debug overlays: which the user asked for (`OverlaySet`, by name for
//! `--overlay`), what they draw built on the CPU (`lines`), and the pass that draws the lines
//! over the frame (`pass`). The cells and depth tints are the world shader's (`OverlayTint`),
//! the overdraw heatmap is `heatmap`.

pub mod heatmap;
pub mod lines;
pub mod pass;

pub use self::lines::{OverlayVertex, OverlayView, PortalColour};
pub use self::pass::OverlayPass;

/// The overlays by name, as `--overlay` and the panel know them.
pub const OVERLAY_NAMES: [&str; 10] = [
    "portals",
    "octagons",
    "cells",
    "depth",
    "culled-surfaces",
    "frozen",
    "overdraw",
    "wireframe",
    "leak",
    "light-grid",
];

/// Which overlays are on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OverlaySet {
    /// Every portal the flow tested, coloured by outcome.
    pub portals: bool,
    /// Each visible cell's screen octagon.
    pub octagons: bool,
    /// The world tinted by cell id.
    pub cells: bool,
    /// The world tinted by flow depth (portals from the eye).
    pub depth: bool,
    /// Surfaces the per-surface test dropped, outlined by reason.
    pub culled_surfaces: bool,
    /// Culling keeps its camera; its frustum and eye are drawn.
    pub frozen: bool,
    /// Fragments per pixel of the world pass as a colour ramp.
    pub overdraw: bool,
    /// The world's triangle edges.
    pub wireframe: bool,
    /// The leak path stored in a level compiled with `--allow-leak`, its entity marked (on by
    /// default in such a level).
    pub leak: bool,
    /// The light grid's open points near the eye, each a cross in the colour of its light.
    pub light_grid: bool,
}

impl OverlaySet {
    /// The flags in `OVERLAY_NAMES` order.
    pub fn flags_mut(&mut self) -> [&mut bool; 10] {
        [
            &mut self.portals,
            &mut self.octagons,
            &mut self.cells,
            &mut self.depth,
            &mut self.culled_surfaces,
            &mut self.frozen,
            &mut self.overdraw,
            &mut self.wireframe,
            &mut self.leak,
            &mut self.light_grid,
        ]
    }

    /// The world tint these overlays ask for (depth wins over cells).
    pub fn tint(&self) -> OverlayTint {
        if self.depth {
            OverlayTint::Depth
        } else if self.cells {
            OverlayTint::Cells
        } else {
            OverlayTint::None
        }
    }

    /// Whether the flow must record its portal tests.
    pub fn needs_trace(&self) -> bool {
        self.portals
    }
}

impl std::str::FromStr for OverlaySet {
    type Err = String;

    /// A comma-separated list of `OVERLAY_NAMES`.
    fn from_str(s: &str) -> Result<Self, String> {
        let mut set = OverlaySet::default();
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let i = OVERLAY_NAMES
                .iter()
                .position(|n| *n == name)
                .ok_or_else(|| {
                    format!("unknown overlay {name:?}: use {}", OVERLAY_NAMES.join(", "))
                })?;
            *set.flags_mut()[i] = true;
        }
        Ok(set)
    }
}
pub use crate::settings::OverlayTint;

/// The tint's colour (the twin of `overlay_tint` in shaders/world.wgsl), for legends: by cell
/// id, or by flow depth.
pub fn tint_rgb(value: u32, by_depth: bool) -> [f32; 3] {
    let hue = if by_depth {
        0.33 * (1.0 - (value as f32).min(7.0) / 7.0)
    } else {
        (value as f32 * 0.618_034).fract()
    };
    let k = |offset: f32| (((1.0 + offset + hue).fract()) * 6.0 - 3.0).abs() - 1.0;
    [k(0.0), k(-1.0 / 3.0), k(-2.0 / 3.0)].map(|v| v.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlay_names_parse_and_unknown_names_list_the_valid_ones() {
        let set: OverlaySet = "portals, depth".parse().unwrap();
        assert!(set.portals && set.depth && !set.cells);
        assert_eq!(set.tint(), OverlayTint::Depth);
        let err = "portals,holes".parse::<OverlaySet>().unwrap_err();
        assert!(
            err.contains("\"holes\"") && err.contains("wireframe"),
            "{err}"
        );
        let mut all = OverlaySet::default();
        for f in all.flags_mut() {
            *f = true;
        }
        assert_eq!(OVERLAY_NAMES.join(",").parse::<OverlaySet>().unwrap(), all);
    }

    #[test]
    fn depth_ramp_runs_from_green_to_red() {
        let near = tint_rgb(0, true);
        let far = tint_rgb(7, true);
        assert!(near[1] > 0.9 && near[0] < 0.1, "{near:?}");
        assert!(far[0] > 0.9 && far[1] < 0.1, "{far:?}");
        assert_eq!(tint_rgb(20, true), far);
    }
}
