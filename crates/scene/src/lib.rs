//! The level at a moment: what changes with time between two frames, without the GPU. The
//! movers go where their motions put them and the doors at rest shut their portals (in the
//! culler, `vis::movers`); each moving object is lit where it now is, from the level's light
//! grid over its box at this moment's style brightnesses, else by the lightmap straight below
//! its centre (Quake's `R_LightPoint`). The app calls [`update`] once a frame with a
//! [`Moment`]; the culler then culls and the renderer draws what it holds.

#![warn(unreachable_pub)]
#![warn(missing_docs)]

use lanthorn_level::styles::{self, StyleMode};
use lanthorn_level::Level;
use lanthorn_vis::Culler;

/// When, and under which switches, the scene is looked at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Moment {
    /// Seconds since the level started: movers and the style clock.
    pub seconds: f64,
    /// Light styles animated, or each held at its first frame.
    pub styles: StyleMode,
    /// Switchable styles the user flipped from how the level starts (one bit a style).
    pub switched: u32,
    /// What daylight is scaled by (1 by day): a grid's daylight baked under its own style dims
    /// with it, as the world's lightmaps do.
    pub daylight: f32,
    /// Everything at full light: moving objects are not lit.
    pub fullbright: bool,
    /// The lightmaps' brightness multiplier (`R_LightPoint` reads them so).
    pub light_scale: f32,
}

impl Default for Moment {
    fn default() -> Self {
        Moment {
            seconds: 0.0,
            styles: StyleMode::default(),
            switched: 0,
            daylight: 1.0,
            fullbright: false,
            light_scale: 1.0,
        }
    }
}

/// Puts `level`'s moving objects where they are at `at`, shuts the portals of the doors at
/// rest and lights each moving object where it is; a level where nothing moves costs nothing.
pub fn update(level: &Level, culler: &mut Culler, at: &Moment) {
    if culler.links.moving.is_empty() {
        return;
    }
    culler.animate(level, at.seconds);
    let off = culler.links.styles_off ^ at.switched;
    let mut scales = styles::scales(at.seconds, at.styles, off);
    if let Some(g) = level.light_grid.as_ref().filter(|g| g.sun_style != 0) {
        scales[g.sun_style as usize] *= at.daylight;
    }
    let grid = level.light_grid.as_ref().filter(|_| !at.fullbright);
    culler.light_moving_objects(|b| {
        let ambient = grid.and_then(|g| lanthorn_light::grid::light_over(g, b, &scales));
        let light = if at.fullbright || ambient.is_some() {
            [1.0; 3]
        } else {
            let centre = (b.min + b.max) * 0.5;
            lanthorn_light::point::light_below(level, centre, &scales, at.light_scale)
                .unwrap_or([1.0; 3])
        };
        (ambient, light)
    });
}

#[cfg(test)]
mod tests;
