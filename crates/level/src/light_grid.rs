//! The light grid: points in a box around where the level's moving objects go, each holding
//! the light there as order-2 spherical harmonics (`geom::sh`) per light style, baked with the
//! lightmaps. Moving objects carry no lightmap; they are lit from it where they are each frame.

use glam::Vec3;

use super::styles::{LightStyles, NO_STYLE};
use lanthorn_geom::sh::Sh9;

/// Most points a grid may have (the baker coarsens its spacing to stay under it; the `.lvl`
/// reader refuses more).
pub const MAX_POINTS: usize = 1 << 16;

/// The sun as the grid leaves it out of its harmonics: a moving object adds its direct light
/// itself, as much as the grid's points (or the sun's shadow cascades) say reaches it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GridSun {
    /// The way the sunlight travels (unit, from the sun into the world).
    pub direction: Vec3,
    /// Its luxel value on a surface facing it (range-scaled, as the lightmaps bake it).
    pub rgb: Vec3,
}

impl GridSun {
    /// The direct light on a surface facing `n` (Quake's `0.5 + 0.5·cos`), before shadows.
    pub fn at(&self, n: Vec3) -> Vec3 {
        let cos = -n.dot(self.direction);
        if cos > 0.0 {
            self.rgb * (0.5 + 0.5 * cos)
        } else {
            Vec3::ZERO
        }
    }
}

/// The grid's light at a place this frame: its harmonics (everything but the sun's direct
/// light), the sun scaled by its style's brightness now, and how much of it the grid's
/// points see there (0..1).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GridLight {
    /// Everything but the sun's direct light, as harmonics.
    pub sh: Sh9,
    /// The sun, scaled by its style's brightness now (`None`: the level has none).
    pub sun: Option<GridSun>,
    /// How much of the sun the grid's points see here (0..1).
    pub sun_visible: f32,
}

impl GridLight {
    /// The light a surface facing `n` receives (luxel values), the sun as the grid sees it.
    pub fn eval(&self, n: Vec3) -> Vec3 {
        let sun = self.sun.map_or(Vec3::ZERO, |s| s.at(n) * self.sun_visible);
        self.sh.eval(n) + sun
    }
}

/// A box of light samples, x fastest, then y, then z.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LightGrid {
    /// The position of point (0, 0, 0).
    pub origin: Vec3,
    /// Units between neighbouring points along each axis (> 0).
    pub spacing: Vec3,
    /// Points along each axis.
    pub size: [u32; 3],
    /// The worldspawn's minimum light (luxel value), as lightmaps apply it to style 0.
    pub minlight: f32,
    /// The style daylight (the sun, the sky dome, their bounce) baked under (`_sun_style`; 0:
    /// with the steady light), which night dims.
    pub sun_style: u8,
    /// Per point: the styles of its slots (none: the point lies in solid and holds nothing).
    pub styles: Vec<LightStyles>,
    /// Per point with slots: the index of its first slot in `slots`, in point order.
    pub first: Vec<u32>,
    /// Each slot's light in luxel values: nine RGB coefficients, the slot's style at full
    /// brightness.
    pub slots: Vec<Sh9>,
    /// The level's sun (`None`: it has none), baked under `sun_style`, and per point how much
    /// of it reaches there (0 or 255: one ray; empty without a sun).
    pub sun: Option<GridSun>,
    /// Per point, how much of the sun reaches there (0 or 255).
    pub sun_visible: Vec<u8>,
}

/// The smallest `stride` such that every `stride`th point along each axis of a grid of `size`
/// points fits within `MAX_POINTS` (an imported grid larger than Lanthorn's keeps those).
pub fn stride_to_fit(size: [u32; 3]) -> u32 {
    (1u32..)
        .find(|s| size.iter().map(|&n| n.div_ceil(*s) as u64).product::<u64>() <= MAX_POINTS as u64)
        .expect("a stride of the largest side fits")
}

impl LightGrid {
    /// A grid without a sun or minimum light (an imported map's): per point its styles and,
    /// in point order, its slots.
    pub fn without_sun(
        (origin, spacing, size): (Vec3, Vec3, [u32; 3]),
        styles: Vec<LightStyles>,
        slots: Vec<Sh9>,
    ) -> LightGrid {
        LightGrid {
            origin,
            spacing,
            size,
            minlight: 0.0,
            sun_style: 0,
            first: LightGrid::firsts(&styles),
            styles,
            slots,
            sun: None,
            sun_visible: Vec::new(),
        }
    }

    /// Points in the box.
    pub fn point_count(&self) -> usize {
        self.size.iter().map(|&n| n as usize).product()
    }

    /// The index of point (i, j, k).
    pub fn index(&self, [i, j, k]: [u32; 3]) -> usize {
        let [nx, ny, _] = self.size.map(|n| n as usize);
        (k as usize * ny + j as usize) * nx + i as usize
    }

    /// Where point (i, j, k) lies.
    pub fn position(&self, [i, j, k]: [u32; 3]) -> Vec3 {
        self.origin + self.spacing * Vec3::new(i as f32, j as f32, k as f32)
    }

    /// Point `p`'s slots with their styles (none in solid).
    pub fn point_slots(&self, p: usize) -> impl Iterator<Item = (u8, &Sh9)> + '_ {
        let first = self.first.get(p).map_or(0, |&f| f as usize);
        let styles = self
            .styles
            .get(p)
            .copied()
            .unwrap_or(LightStyles([NO_STYLE; 4]));
        (0..styles.count()).filter_map(move |k| Some((styles.0[k], self.slots.get(first + k)?)))
    }

    /// `first` worked out from `styles` (slots stored in point order).
    pub fn firsts(styles: &[LightStyles]) -> Vec<u32> {
        let mut at = 0u32;
        styles
            .iter()
            .map(|s| {
                let f = at;
                at += s.count() as u32;
                f
            })
            .collect()
    }

    /// What is wrong with it, for the `.lvl` reader and `validate`.
    pub fn check(&self) -> Result<(), String> {
        let n = self.size.iter().map(|&n| n as u64).product::<u64>();
        if n as usize > MAX_POINTS || self.size.contains(&0) {
            return Err(format!(
                "light grid of {:?} points (1 to {MAX_POINTS} in all)",
                self.size
            ));
        }
        if !(self.spacing.min_element() > 0.0 && self.spacing.is_finite()) {
            return Err(format!(
                "light grid spacing {} is not positive",
                self.spacing
            ));
        }
        if self.styles.len() != n as usize || self.first != Self::firsts(&self.styles) {
            return Err("light grid point table does not match its size".into());
        }
        let suns = if self.sun.is_some() { n as usize } else { 0 };
        if self.sun_visible.len() != suns {
            return Err(format!(
                "light grid has {} sun samples for {suns} points",
                self.sun_visible.len()
            ));
        }
        let slots: usize = self.styles.iter().map(|s| s.count()).sum();
        if slots != self.slots.len() {
            return Err(format!(
                "light grid lists {slots} slots but holds {}",
                self.slots.len()
            ));
        }
        Ok(())
    }
}
