//! The light grid's bake and its lookup. The bake puts points over the box the level's moving
//! objects sweep and has the light baker gather at each what a lightmap there would
//! (`entities::grid_light`: every light that sees the point, the sun and the sky dome past the
//! world's shadows, the bounce's emitters) — but as order-2 spherical harmonics of the normal
//! (`geom::sh`) instead of one value, one set per light style. The lookup blends the eight points around a position with this frame's style
//! brightnesses, leaving out points in solid.

use glam::Vec3;

use lanthorn_geom::sh::Sh9;
use lanthorn_geom::Aabb;
use lanthorn_level::light_grid::{GridLight, GridSun, LightGrid, MAX_POINTS};
use lanthorn_level::styles::{self, LightStyles, MAX_SLOTS, NO_STYLE};
use lanthorn_level::Level;

/// The finest spacing between points (units); coarsened until the grid fits [`BAKE_POINTS`].
const FINEST: f32 = 32.0;
/// Most points the baker puts down (a quarter of what a file may hold: the bake stays short).
const BAKE_POINTS: usize = MAX_POINTS / 4;

/// The box every moving object's bounds sweep along its path (world space), or `None` when
/// nothing moves.
pub fn swept_bounds(level: &Level) -> Option<Aabb> {
    let mut b = Aabb::EMPTY;
    for o in &level.objects {
        let Some(m) = &o.motion else { continue };
        for &offset in &m.points {
            let at = o.origin + offset;
            b = b.union(&Aabb::new(o.bounds.min + at, o.bounds.max + at));
        }
    }
    (!b.is_empty()).then_some(b)
}

/// The grid's box and spacing for `region`: a margin of one spacing all round, the spacing
/// doubled from [`FINEST`] until the points fit.
fn layout(region: Aabb) -> (Vec3, Vec3, [u32; 3]) {
    let mut spacing = FINEST;
    loop {
        let (lo, hi) = (region.min - spacing, region.max + spacing);
        let size = ((hi - lo) / spacing).ceil().as_uvec3() + 1;
        let n = size.x as usize * size.y as usize * size.z as usize;
        if n <= BAKE_POINTS {
            return (lo, Vec3::splat(spacing), size.to_array());
        }
        spacing *= 2.0;
    }
}

/// What a point of the grid holds: its slots (style and SH, style 0 first; at most four) and
/// whether the sun reaches it.
type PointLight = (Vec<(u8, Sh9)>, bool);

/// The light grid over where `level`'s objects move (`None` when none moves): at each open
/// point, `light_point`'s light there; the level's minimum light, daylight style and sun.
pub(super) fn bake(
    level: &Level,
    (minlight, sun_style, sun): (f32, u8, Option<GridSun>),
    light_point: impl Fn(Vec3) -> PointLight + Sync,
    progress: &crate::parallel::Progress,
) -> Option<LightGrid> {
    let region = swept_bounds(level)?;
    let (origin, spacing, size) = layout(region);
    let mut grid = LightGrid {
        origin,
        spacing,
        size,
        minlight,
        sun_style,
        sun,
        ..Default::default()
    };
    let n = grid.point_count();
    let grid_ref = &grid;
    let points: Vec<PointLight> = crate::parallel::map(
        n,
        |i| {
            let p = grid_ref.position(point_of(grid_ref.size, i));
            let solid = || (Vec::new(), false);
            level.locate(p).map_or_else(solid, |_| light_point(p))
        },
        ("light grid", progress),
    );
    for (slots, sees_sun) in points {
        if grid.sun.is_some() {
            grid.sun_visible.push(if sees_sun { 255 } else { 0 });
        }
        let mut st = LightStyles([NO_STYLE; MAX_SLOTS]);
        for (k, (style, sh)) in slots.into_iter().enumerate() {
            st.0[k] = style;
            grid.slots.push(sh);
        }
        grid.styles.push(st);
    }
    grid.first = LightGrid::firsts(&grid.styles);
    Some(grid)
}

/// The grid coordinates of point index `i`.
fn point_of(size: [u32; 3], i: usize) -> [u32; 3] {
    let [nx, ny, _] = size.map(|n| n as usize);
    [
        (i % nx) as u32,
        (i / nx % ny) as u32,
        (i / (nx * ny)) as u32,
    ]
}

/// The light at `p` with this frame's style brightnesses (`styles::scales`): the eight grid
/// points around it blended trilinearly, those in solid left out and the rest's weights
/// renormalised; `None` outside the grid's reach or where all eight lie in solid.
pub fn light_at(
    grid: &LightGrid,
    p: Vec3,
    scales: &[f32; styles::MAX_STYLES],
) -> Option<GridLight> {
    let size = Vec3::from(grid.size.map(|n| n as f32));
    let f = (p - grid.origin) / grid.spacing;
    if f.cmplt(Vec3::splat(-1.0)).any() || f.cmpgt(size).any() {
        return None;
    }
    let f = f.clamp(Vec3::ZERO, size - 1.0);
    let base = f.floor().min(size - 1.0);
    let t = f - base;
    let mut sum = GridLight::default();
    let mut total = 0.0;
    for corner in 0..8u32 {
        let step = [corner & 1, corner >> 1 & 1, corner >> 2 & 1];
        let mut at = [0u32; 3];
        let mut w = 1.0;
        for axis in 0..3 {
            let i = base[axis] as u32 + step[axis];
            if i >= grid.size[axis] {
                w = 0.0;
            }
            at[axis] = i.min(grid.size[axis] - 1);
            w *= if step[axis] == 1 {
                t[axis]
            } else {
                1.0 - t[axis]
            };
        }
        let i = grid.index(at);
        if w <= 0.0 || grid.styles.get(i).is_none_or(|s| s.count() == 0) {
            continue;
        }
        for (style, sh) in grid.point_slots(i) {
            let scale = scales.get(style as usize).copied().unwrap_or(1.0);
            sum.sh.add_scaled(sh, w * scale);
        }
        sum.sun_visible += w * grid.sun_visible.get(i).map_or(0.0, |&v| v as f32 / 255.0);
        total += w;
    }
    (total > 1e-6).then(|| scaled(&sum, 1.0 / total, grid, scales))
}

/// `sum` divided out (`k`), with the grid's sun at its style's brightness now.
fn scaled(
    sum: &GridLight,
    k: f32,
    grid: &LightGrid,
    scales: &[f32; styles::MAX_STYLES],
) -> GridLight {
    let mut sh = Sh9::ZERO;
    sh.add_scaled(&sum.sh, k);
    let brightness = scales.get(grid.sun_style as usize).copied().unwrap_or(1.0);
    GridLight {
        sh,
        sun: grid.sun.map(|s| GridSun {
            rgb: s.rgb * brightness,
            ..s
        }),
        sun_visible: sum.sun_visible * k,
    }
}

/// The light over an object's world-space box: the mean of the grid's light ([`light_at`]) at
/// its centre and at the eight points halfway from it to the box's corners, those with no
/// light (all around them solid) left out; `None` when all are. A door slid up into its lintel
/// or a portcullis risen into its wall has its centre in solid; what shows of it does not.
pub fn light_over(
    grid: &LightGrid,
    b: Aabb,
    scales: &[f32; styles::MAX_STYLES],
) -> Option<GridLight> {
    let (centre, half) = ((b.min + b.max) * 0.5, (b.max - b.min) * 0.25);
    let mut sum = GridLight::default();
    let mut n = 0;
    for k in 0..9u32 {
        let corner = match k {
            8 => Vec3::ZERO,
            _ => Vec3::new(
                if k & 1 == 0 { -1.0 } else { 1.0 },
                if k & 2 == 0 { -1.0 } else { 1.0 },
                if k & 4 == 0 { -1.0 } else { 1.0 },
            ),
        };
        if let Some(l) = light_at(grid, centre + corner * half, scales) {
            sum.sh.add_scaled(&l.sh, 1.0);
            sum.sun_visible += l.sun_visible;
            n += 1;
        }
    }
    (n > 0).then(|| scaled(&sum, 1.0 / n as f32, grid, scales))
}

/// A surface's light multiplier from the grid's light `l` at its unit normal `n`, as the world
/// shader applies a lightmap: at least the minimum light, /255, capped at 1, then ×
/// `light_scale` (Quake's overbright 2); the sun as far as the grid sees it.
pub fn surface_light(l: &GridLight, n: Vec3, minlight: f32, light_scale: f32) -> [f32; 3] {
    let v = l.eval(n).max(Vec3::splat(minlight)) / 255.0;
    (v.min(Vec3::ONE).max(Vec3::ZERO) * light_scale).to_array()
}

/// A surface's light in two parts for the sun's shadow cascades to join per pixel: the light
/// without the sun's direct light (at least the minimum) and the sun's direct light, both /255
/// and × `light_scale`; the pixel's light is `min(ambient + sun · lit, light_scale)`.
pub fn surface_light_parts(
    l: &GridLight,
    n: Vec3,
    minlight: f32,
    light_scale: f32,
) -> ([f32; 3], [f32; 3]) {
    let ambient = l.sh.eval(n).max(Vec3::splat(minlight)) / 255.0 * light_scale;
    let sun = l.sun.map_or(Vec3::ZERO, |s| s.at(n)) / 255.0 * light_scale;
    (ambient.max(Vec3::ZERO).to_array(), sun.to_array())
}

#[cfg(test)]
#[path = "grid_tests.rs"]
mod tests;
