//! Quake 3's light grid onto Lanthorn's grid for moving objects.
//!
//! The lump holds a point every `gridsize` units (the worldspawn's key, 64 64 128 unless it
//! says otherwise) over the world model's box, rounded inward to the grid, x fastest: ambient
//! RGB, directed RGB, and the direction the directed light comes from as two angle bytes. A
//! point in solid has no ambient light. The game lights a model there (`RB_CalcDiffuseColor` in
//! ioquake3) as `0.6·ambient + 32 + directed·max(0, n·l)`, after the map's overbright shift
//! (`mapOverBrightBits` 2: ×4, clamped keeping the colour, as the lightmaps get). Each point
//! becomes one steady-light slot whose harmonics hold that response, halved as the level's
//! luxels are (drawn ×2): the uniform part exactly, the directed lobe to order 2.
//! When the grid has more points than Lanthorn's may, every `stride`th is kept along each axis.

use glam::Vec3;

use lanthorn_geom::sh::Sh9;
use lanthorn_level::light_grid::{self, LightGrid};
use lanthorn_level::styles::{LightStyles, MAX_SLOTS, NO_STYLE};
use lanthorn_level::Entity;

use super::{Ibsp, LightGridPoint};

/// The game's grid spacing when the worldspawn names none.
const DEFAULT_GRID_SIZE: Vec3 = Vec3::new(64.0, 64.0, 128.0);
/// `r_ambientScale`: the part of the ambient light a model receives.
const AMBIENT_SCALE: f32 = 0.6;
/// The light every model receives at least (`tr.identityLight · 32`, in byte units).
const MINIMUM_LIGHT: f32 = 32.0;

/// The game's grid geometry for a map: origin, spacing and points along each axis.
pub(super) fn geometry(map: &Ibsp, worldspawn: Option<&Entity>) -> Option<(Vec3, Vec3, [u32; 3])> {
    let spacing = worldspawn
        .and_then(|w| w.get("gridsize"))
        .and_then(|s| {
            let v: Vec<f32> = s
                .split_whitespace()
                .filter_map(|t| t.parse().ok())
                .collect();
            (v.len() == 3).then(|| Vec3::new(v[0], v[1], v[2]))
        })
        .filter(|s| s.min_element() >= 1.0 && s.is_finite())
        .unwrap_or(DEFAULT_GRID_SIZE);
    let world = map.models.first()?;
    let (mins, maxs) = (Vec3::from(world.mins), Vec3::from(world.maxs));
    let origin = spacing * (mins / spacing).ceil();
    let last = spacing * (maxs / spacing).floor();
    let steps = ((last - origin) / spacing).round();
    if !(steps.min_element() >= 0.0 && steps.max_element() < 65_536.0) {
        return None;
    }
    Some((origin, spacing, steps.to_array().map(|n| n as u32 + 1)))
}

/// The map's light grid as Lanthorn's, or why it has none (the lump is empty or not the size
/// the world's box calls for: the game then lights models without it).
pub(super) fn read(map: &Ibsp, worldspawn: Option<&Entity>) -> Result<LightGrid, String> {
    if map.light_grid.is_empty() {
        return Err("the map has no light grid".into());
    }
    let (origin, spacing, size) =
        geometry(map, worldspawn).ok_or("the world model's box is not a grid's")?;
    let total = size.iter().map(|&n| n as u64).product::<u64>();
    if total != map.light_grid.len() as u64 {
        return Err(format!(
            "{} points where the world's box at {spacing} spacing holds {size:?} = {total}",
            map.light_grid.len()
        ));
    }
    let stride = light_grid::stride_to_fit(size);
    let ours = size.map(|n| n.div_ceil(stride));
    let mut styles = Vec::with_capacity(ours.iter().map(|&n| n as usize).product());
    let mut slots = Vec::new();
    for k in 0..ours[2] {
        for j in 0..ours[1] {
            for i in 0..ours[0] {
                let [x, y, z] = [i, j, k].map(|c| (c * stride) as usize);
                let at = (z * size[1] as usize + y) * size[0] as usize + x;
                let mut s = [NO_STYLE; MAX_SLOTS];
                if let Some(sh) = point_light(&map.light_grid[at]) {
                    s[0] = 0;
                    slots.push(sh);
                }
                styles.push(LightStyles(s));
            }
        }
    }
    let spacing = spacing * stride as f32;
    Ok(LightGrid::without_sun(
        (origin, spacing, ours),
        styles,
        slots,
    ))
}

/// The unit direction toward a point's directed light (`R_SetupEntityLightingGrid`: byte 7 the
/// angle around z, byte 6 the angle from +z, each in 256ths of a turn).
pub(super) fn direction(p: &LightGridPoint) -> Vec3 {
    let turn = |b: u8| f32::from(b) * std::f32::consts::TAU / 256.0;
    let (around, from_up) = (turn(p[7]), turn(p[6]));
    Vec3::new(
        around.cos() * from_up.sin(),
        around.sin() * from_up.sin(),
        from_up.cos(),
    )
}

/// The ambient and directed light of a point as the game has them after the map's overbright
/// shift (byte units, ×4 clamped keeping the colour), or `None` in solid (no ambient light:
/// the game skips such points).
pub(super) fn shifted(p: &LightGridPoint) -> Option<(Vec3, Vec3)> {
    if p[..3].iter().all(|&b| b == 0) {
        return None;
    }
    let shift = |rgb: &[u8]| {
        let c = Vec3::new(rgb[0].into(), rgb[1].into(), rgb[2].into()) * 4.0;
        c * (255.0 / c.max_element()).min(1.0)
    };
    Some((shift(&p[0..3]), shift(&p[3..6])))
}

/// A point's light as luxel harmonics: what the game gives a model facing `n` there, halved.
fn point_light(p: &LightGridPoint) -> Option<Sh9> {
    let (ambient, directed) = shifted(p)?;
    let mut sh = Sh9::ZERO;
    sh.add_uniform((ambient * AMBIENT_SCALE + Vec3::splat(MINIMUM_LIGHT)) * 0.5);
    sh.add_light(direction(p), directed * 0.5, 1.0);
    Some(sh)
}

#[cfg(test)]
#[path = "light_grid_tests.rs"]
mod tests;
