//! The lightmap baker: direct light from a level's `LevelLights` on the luxel grids the
//! compiler made (each surface's rect size and `lightmap_uv`; the compiler packs the blocks),
//! the way Quake's `light` tool lights a map, with the steady light bounced (`bounce`) and the
//! light grid baked where objects move (`grid`). Shadows are hard: one ray per luxel and light
//! through a BVH of the world's surfaces. Luxel values are Quake's: 128 is "normal", the shader
//! doubles them (overbright).

use std::time::Instant;

use glam::{Vec2, Vec3};

mod emitters;

use crate::bounce;
use crate::bvh::{Bvh, Triangle};
use crate::lights::{EntityLight, Falloff, LevelLights, Sun, RANGE_SCALE};
use crate::parallel::{self, Progress};
use lanthorn_geom::sh::Sh9;
use lanthorn_level::styles::{LightStyles, MAX_SLOTS, NO_STYLE};
use lanthorn_level::{surface_flags, GridSun, Level, LightGrid, Surface};

/// What a bake did.
#[derive(Clone, Debug, Default)]
pub struct BakeStats {
    /// Lights baked (a sun counts one).
    pub lights: usize,
    /// Luxels lit.
    pub luxels: usize,
    /// Shadow rays cast.
    pub rays: u64,
    /// Seconds the bake took, all of it.
    pub seconds: f64,
    /// Seconds spent finding the bounce's emitters (the luxels' gathering is in `seconds`).
    pub bounce_seconds: f64,
    /// Patches re-emitting light, all bounces together.
    pub emitters: usize,
    /// Surfaces reached by more than four styles: the lights of the styles past the fourth
    /// (in style order) are left out there, as Quake's faces hold four.
    pub over_four_styles: usize,
    /// The light grid's points in open space, and the seconds its bake took (in `seconds`).
    pub grid_points: usize,
    /// Seconds the light grid's bake took (within `seconds`).
    pub grid_seconds: f64,
}

/// One surface's baked light: its styles (slot order) and a `width · height` RGB block per
/// slot, one after another.
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceLight {
    /// The light styles of its slots.
    pub styles: LightStyles,
    /// Per slot a `width · height` RGB block, one after another.
    pub layers: Vec<u8>,
}

/// A surface's luxel grid in world space: `lightmap_uv` is affine on the surface's plane, so
/// three corners give world position as a function of it.
struct LuxelFrame {
    origin: Vec3,
    uv0: Vec2,
    /// Inverse of the 2×2 map (uv1 − uv0, uv2 − uv0) and the two world edges.
    inv: [[f32; 2]; 2],
    e1: Vec3,
    e2: Vec3,
}

impl LuxelFrame {
    fn new(s: &Surface, offset: Vec3) -> Option<LuxelFrame> {
        // The triangle whose lightmap-uv area is largest: the best-conditioned map.
        let tri = s.indices.chunks_exact(3).max_by(|a, b| {
            let area = |t: &[u32]| {
                let (p, q, r) = (
                    s.vertices[t[0] as usize].lightmap_uv,
                    s.vertices[t[1] as usize].lightmap_uv,
                    s.vertices[t[2] as usize].lightmap_uv,
                );
                (q - p).perp_dot(r - p).abs()
            };
            area(a).total_cmp(&area(b))
        })?;
        let v = |i: u32| &s.vertices[i as usize];
        let (a, b, c) = (v(tri[0]), v(tri[1]), v(tri[2]));
        let (du, dv) = (b.lightmap_uv - a.lightmap_uv, c.lightmap_uv - a.lightmap_uv);
        let det = du.perp_dot(dv);
        if det.abs() < 1e-6 {
            return None;
        }
        Some(LuxelFrame {
            origin: a.position + offset,
            uv0: a.lightmap_uv,
            inv: [[dv.y / det, -dv.x / det], [-du.y / det, du.x / det]],
            e1: b.position - a.position,
            e2: c.position - a.position,
        })
    }

    fn position(&self, uv: Vec2) -> Vec3 {
        let d = uv - self.uv0;
        let s = self.inv[0][0] * d.x + self.inv[0][1] * d.y;
        let t = self.inv[1][0] * d.x + self.inv[1][1] * d.y;
        self.origin + self.e1 * s + self.e2 * t
    }
}

/// The closest point of triangle `abc` to `p` (Ericson, Real-Time Collision Detection 5.1.5).
fn closest_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Vec3 {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = 1.0 / (va + vb + vc);
    a + ab * (vb * denom) + ac * (vc * denom)
}

/// Where a luxel samples its light: its grid point, pulled onto the surface when the grid point
/// lies past the surface's edge (a rect corner outside the polygon would sit inside the
/// neighbouring wall, fully shadowed), then a hair towards the surface's centre — and so is a
/// grid point on the edge or within a hair of it, which would otherwise start its shadow rays
/// in the plane of the wall that meets the surface there and see through it.
fn sample_point(grid: Vec3, s: &Surface, offset: Vec3, centre: Vec3) -> Vec3 {
    let closest = |q: Vec3| {
        let mut best = (q, f32::MAX);
        for t in s.indices.chunks_exact(3) {
            let p = |i: u32| s.vertices[i as usize].position + offset;
            let c = closest_on_triangle(q, p(t[0]), p(t[1]), p(t[2]));
            let d = c.distance_squared(q);
            if d < best.1 {
                best = (c, d);
                if d < 1e-6 {
                    break; // on the surface: no triangle is closer
                }
            }
        }
        best
    };
    let (on, d) = closest(grid);
    let outwards = (grid - centre).normalize_or_zero() * 0.5;
    if d < 1e-6 && closest(grid + outwards).1 < 1e-6 {
        return grid;
    }
    on + (centre - on).normalize_or_zero() * 0.5
}

/// Bakes `lights` on every surface's luxel grid: per surface, a block of `width · height` RGB
/// luxels (row-major, the size of its lightmap rect; where the rect will sit in the atlas
/// does not matter) for each light style that reaches it, style 0 first; `None` without a
/// lightmap. World surfaces (not liquids) cast shadows; object surfaces (doors, lifts) are lit
/// at their resting place but cast none, as in Quake.
///
/// Each luxel is the mean of `samples_per_axis`² samples spread over it (1: its centre, Quake's
/// `light`; 4: ericw-tools' `-extra4`), which smooths shadow edges and steps.
///
/// With `bounces` > 0 the steady light is bounced that many times (see `light::bounce`).
/// `progress` hears how many surfaces (then grid points) are done.
///
/// Where objects move, the light grid over their path is baked from the same lights and
/// bounce (`light::grid`).
pub fn bake(
    level: &Level,
    lights: &LevelLights,
    samples_per_axis: u32,
    bounces: u32,
    progress: &Progress,
) -> (Vec<Option<SurfaceLight>>, Option<LightGrid>, BakeStats) {
    let start = Instant::now();
    let mut stats = BakeStats {
        lights: lights.sources + lights.sun.is_some() as usize,
        ..Default::default()
    };
    let mut offset = vec![Vec3::ZERO; level.surfaces.len()];
    let mut in_object = vec![false; level.surfaces.len()];
    for o in &level.objects {
        for &s in &o.surfaces {
            if let Some(v) = offset.get_mut(s as usize) {
                *v = o.origin;
                in_object[s as usize] = true;
            }
        }
    }
    let occluders = |sky: bool| -> Bvh {
        let mut tris = Vec::new();
        for (i, s) in level.surfaces.iter().enumerate() {
            if in_object[i] || s.flags & surface_flags::LIQUID != 0 {
                continue;
            }
            if !sky && s.flags & surface_flags::SKY != 0 {
                continue;
            }
            for t in s.indices.chunks_exact(3) {
                let p = |k: u32| s.vertices[k as usize].position;
                tris.push(Triangle::new(p(t[0]), p(t[1]), p(t[2])));
            }
        }
        Bvh::new(tris)
    };
    let world = occluders(true);
    // Sun rays pass through sky surfaces: what reaches the sky is sunlit.
    let sun_world = (lights.sun.is_some() || !lights.dome.is_empty()).then(|| occluders(false));
    let jobs: Vec<usize> = (0..level.surfaces.len())
        .filter(|&i| level.surfaces[i].lightmap.is_some() && !level.surfaces[i].indices.is_empty())
        .collect();
    let mut inputs = BakeInputs {
        lights,
        world: &world,
        sun_world: sun_world.as_ref(),
        emitters: Vec::new(),
        per_axis: samples_per_axis.max(1),
    };
    if bounces > 0 {
        let t = Instant::now();
        inputs.emitters = emitters::bounced(level, &inputs, (&offset, &jobs), bounces);
        stats.bounce_seconds = t.elapsed().as_secs_f64();
        stats.emitters = inputs.emitters.len();
    }
    let inputs = inputs;
    let surfaces = &level.surfaces;
    let baked = parallel::map(
        jobs.len(),
        |k| bake_surface(&surfaces[jobs[k]], offset[jobs[k]], &inputs),
        ("light", progress),
    );
    let results = jobs.iter().zip(baked).map(|(&si, (l, r, o))| (si, l, r, o));
    // Surfaces without triangles are not baked: full light, as unbaked luxels read.
    let mut blocks: Vec<Option<SurfaceLight>> = level
        .surfaces
        .iter()
        .map(|s| {
            s.lightmap.map(|r| SurfaceLight {
                styles: LightStyles::default(),
                layers: vec![128; (r.width * r.height * 3) as usize],
            })
        })
        .collect();
    for (si, light, rays, over_four) in results {
        let r = level.surfaces[si].lightmap.unwrap();
        stats.rays += rays;
        stats.luxels += (r.width * r.height) as usize;
        stats.over_four_styles += over_four as usize;
        blocks[si] = Some(light);
    }
    let grid = bake_grid(level, &inputs, progress, &mut stats);
    stats.seconds = start.elapsed().as_secs_f64();
    (blocks, grid, stats)
}

/// The styles of the lights that reach `s` (style 0 first, daylight's own style next when it
/// has one, then the others in style order; at most four), and whether more reached it.
fn surface_styles(
    lights: &LevelLights,
    s: &Surface,
    offset: Vec3,
    bounced: bool,
) -> (LightStyles, bool) {
    let mut found = vec![0u8];
    for l in near_lights(lights, s, offset) {
        if !found.contains(&l.style) {
            found.push(l.style);
        }
    }
    found[1..].sort_unstable();
    let over_four = found.len() > MAX_SLOTS;
    // Daylight under its own style takes the slot after style 0 wherever it can arrive,
    // directly or bounced, and a slot is free; where the lamps' styles fill all four it stays
    // in style 0 (that surface keeps its daylight at night). An empty slot is dropped after.
    let sunlit = lights
        .sun
        .is_some_and(|sun| s.normal.dot(sun.direction) < 0.0)
        || lights.dome.iter().any(|d| s.normal.dot(d.direction) < 0.0);
    if lights.sun_style != 0 && (sunlit || bounced) && found.len() < MAX_SLOTS {
        found.insert(1, lights.sun_style);
    }
    let mut slots = [NO_STYLE; MAX_SLOTS];
    for (slot, &style) in slots.iter_mut().zip(&found) {
        *slot = style;
    }
    (LightStyles(slots), over_four)
}

/// The lights in front of `s` whose reach meets its bounds.
fn near_lights<'a>(
    lights: &'a LevelLights,
    s: &Surface,
    offset: Vec3,
) -> impl Iterator<Item = &'a EntityLight> {
    let (lo, hi) = bounds(s, offset);
    let n = s.normal;
    let plane_d = n.dot(
        s.vertices
            .first()
            .map_or(Vec3::ZERO, |v| v.position + offset),
    );
    lights.lights.iter().filter(move |l| {
        n.dot(l.position) - plane_d > 0.0
            && l.position.clamp(lo, hi).distance(l.position) < l.reach()
    })
}

fn bounds(s: &Surface, offset: Vec3) -> (Vec3, Vec3) {
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for v in &s.vertices {
        lo = lo.min(v.position + offset);
        hi = hi.max(v.position + offset);
    }
    (lo, hi)
}

/// What the bake of every surface shares.
struct BakeInputs<'a> {
    lights: &'a LevelLights,
    world: &'a Bvh,
    /// The occluders of sun rays (sky surfaces let them through).
    sun_world: Option<&'a Bvh>,
    /// The bounced light's emitters (none: no bounce), their light in two parts: style 0's,
    /// and daylight when it has a style of its own (`bounce::Parts`).
    emitters: Vec<bounce::Emitter>,
    /// Samples a luxel along each axis.
    per_axis: u32,
}

/// One surface's luxel grid being lit: what every sample of it needs.
struct SurfaceBake<'a> {
    s: &'a Surface,
    offset: Vec3,
    frame: LuxelFrame,
    centre: Vec3,
    /// Each near light with the slot of its style (lights of a fifth style are left out).
    near: Vec<(&'a EntityLight, usize)>,
    sun: Option<Sun>,
    /// The bounce's emitters that can reach the surface.
    emitters: Vec<bounce::Emitter>,
    /// The slot the sun and the sky dome add to (0 unless daylight has a style of its own).
    sun_slot: usize,
    /// The sky dome's suns in front of the surface.
    dome: Vec<Sun>,
    inputs: &'a BakeInputs<'a>,
}

/// The light of one sample: per slot the sum of the lights and what local minimum lights
/// (`delay` 4) raise it to; the bounced light (style 0, luxel values) and the bounced daylight
/// (the sun's slot, when that is not 0).
#[derive(Clone, Copy, Default)]
struct Sample {
    sums: [Vec3; MAX_SLOTS],
    floors: [Vec3; MAX_SLOTS],
    bounce: Vec3,
    sun_bounce: Vec3,
}

impl<'a> SurfaceBake<'a> {
    /// The bake of `s` (placed at `offset`) for the lights of `styles`; `None` when its
    /// luxel grid is degenerate.
    fn new(
        s: &'a Surface,
        offset: Vec3,
        styles: LightStyles,
        inputs: &'a BakeInputs<'a>,
    ) -> Option<SurfaceBake<'a>> {
        let (lo, hi) = bounds(s, offset);
        let lights = inputs.lights;
        // Daylight goes to its style's slot, or to style 0's where it has none.
        let sun_slot = styles.slots().position(|st| st == lights.sun_style);
        Some(SurfaceBake {
            s,
            offset,
            frame: LuxelFrame::new(s, offset)?,
            centre: (lo + hi) * 0.5,
            near: near_lights(lights, s, offset)
                .filter_map(|l| Some((l, styles.slots().position(|st| st == l.style)?)))
                .collect(),
            sun: lights.sun.filter(|sun| s.normal.dot(sun.direction) < 0.0),
            emitters: emitters::nearby_emitters(&inputs.emitters, s, offset),
            sun_slot: sun_slot.unwrap_or(0),
            dome: lights
                .dome
                .iter()
                .filter(|d| s.normal.dot(d.direction) < 0.0)
                .copied()
                .collect(),
            inputs,
        })
    }

    /// The world point a luxel-grid point `uv` samples (pulled onto the surface, a unit off it).
    fn point(&self, uv: Vec2) -> Vec3 {
        let grid = self.frame.position(uv);
        sample_point(grid, self.s, self.offset, self.centre) + self.s.normal
    }

    /// The light at luxel-grid coordinates `uv` (luxel `i` spans `i..i + 1`); `rays` counts the
    /// shadow rays cast.
    fn sample(&self, uv: Vec2, rays: &mut u64) -> Sample {
        let n = self.s.normal;
        let p = self.point(uv);
        let (world, sun_world) = (self.inputs.world, self.inputs.sun_world);
        let mut out = Sample::default();
        for &(l, slot) in &self.near {
            let (add, floor) = (l.at(p, n), l.raises_to(p, n));
            if add.max_element() <= 0.0 && floor.max_element() <= 0.0 {
                continue;
            }
            *rays += 1;
            if !world.occluded(p, l.position - p) {
                out.sums[slot] += add;
                out.floors[slot] = out.floors[slot].max(floor);
            }
        }
        if let (Some(sun), Some(bvh)) = (self.sun, sun_world) {
            *rays += 1;
            if !bvh.occluded(p, -sun.direction * 65536.0) {
                let cos = -n.dot(sun.direction);
                out.sums[self.sun_slot] += sun.color * sun.intensity * (0.5 + 0.5 * cos);
            }
        }
        out
    }

    /// Luxel `(i, j)` as the mean of `per_axis`² samples spread evenly over it (ericw-tools'
    /// `-extra` is 2, `-extra4` 4).
    fn luxel(&self, i: u32, j: u32, rays: &mut u64) -> Sample {
        let per_axis = self.inputs.per_axis;
        let mut mean = Sample::default();
        let w = 1.0 / (per_axis * per_axis) as f32;
        for sy in 0..per_axis {
            for sx in 0..per_axis {
                let at = |k: u32| (k as f32 + 0.5) / per_axis as f32;
                let one = self.sample(Vec2::new(i as f32 + at(sx), j as f32 + at(sy)), rays);
                for k in 0..MAX_SLOTS {
                    mean.sums[k] += one.sums[k] * w;
                    mean.floors[k] += one.floors[k] * w;
                }
            }
        }
        // Bounced light and sky light change slowly: once, at the luxel's centre.
        if !self.emitters.is_empty() || !self.dome.is_empty() {
            let p = self.point(Vec2::new(i as f32 + 0.5, j as f32 + 0.5));
            if !self.emitters.is_empty() {
                let n = self.s.normal;
                let [steady, daylight] =
                    bounce::gather(&self.emitters, self.inputs.world, p, n, rays);
                (mean.bounce, mean.sun_bounce) = (steady, daylight);
            }
            mean.sums[self.sun_slot] += self.sky(p, rays);
        }
        mean
    }

    /// The sky dome's light at the sample point `p` (before the range scale).
    fn sky(&self, p: Vec3, rays: &mut u64) -> Vec3 {
        let mut sum = Vec3::ZERO;
        if let (false, Some(bvh)) = (self.dome.is_empty(), self.inputs.sun_world) {
            let n = self.s.normal;
            for d in &self.dome {
                *rays += 1;
                if !bvh.occluded(p, -d.direction * 65536.0) {
                    let cos = -n.dot(d.direction);
                    sum += d.color * d.intensity * (0.5 + 0.5 * cos);
                }
            }
        }
        sum
    }
}

/// One surface's baked light, the shadow rays it cast, and whether lights of more than four
/// styles reached it.
fn bake_surface(s: &Surface, offset: Vec3, inputs: &BakeInputs) -> (SurfaceLight, u64, bool) {
    let r = s.lightmap.unwrap();
    let layer = (r.width * r.height * 3) as usize;
    let lights = inputs.lights;
    let bounced = !inputs.emitters.is_empty();
    let (styles, over_four) = surface_styles(lights, s, offset, bounced);
    let mut layers = vec![0u8; layer * styles.count()];
    let bake = SurfaceBake::new(s, offset, styles, inputs);
    let sun_slot = bake.as_ref().map_or(0, |b| b.sun_slot);
    let mut rays = 0u64;
    for j in 0..r.height {
        for i in 0..r.width {
            let light = bake
                .as_ref()
                .map_or_else(Sample::default, |b| b.luxel(i, j, &mut rays));
            let o = ((j * r.width + i) * 3) as usize;
            for (slot, sum) in light.sums.iter().take(styles.count()).enumerate() {
                // The minimum light and the bounce are steady: style 0's.
                let (min, bounced) = match slot {
                    0 if sun_slot == 0 => (lights.minlight, light.bounce + light.sun_bounce),
                    0 => (lights.minlight, light.bounce),
                    _ if slot == sun_slot => (0.0, light.sun_bounce),
                    _ => (0.0, Vec3::ZERO),
                };
                let c = Vec3::splat(min)
                    .max(*sum * RANGE_SCALE + bounced)
                    .max(light.floors[slot]);
                for k in 0..3 {
                    layers[slot * layer + o + k] = c[k].clamp(0.0, 255.0).round() as u8;
                }
            }
        }
    }
    (drop_dark_slots(styles, layers, layer), rays, over_four)
}

/// Leaves out the slots past style 0 whose lights never reached a luxel (shadowed, or facing
/// away): an empty slot costs the atlas a layer and the shader a term.
fn drop_dark_slots(styles: LightStyles, layers: Vec<u8>, layer: usize) -> SurfaceLight {
    let mut kept = SurfaceLight {
        styles: LightStyles([NO_STYLE; MAX_SLOTS]),
        layers: Vec::with_capacity(layers.len()),
    };
    let mut n = 0;
    for (slot, style) in styles.slots().enumerate() {
        let map = &layers[slot * layer..(slot + 1) * layer];
        if slot == 0 || map.iter().any(|&v| v > 0) {
            kept.styles.0[n] = style;
            kept.layers.extend_from_slice(map);
            n += 1;
        }
    }
    kept
}

/// The light grid over where the objects move (`light::grid`), timed and counted in `stats`.
fn bake_grid(
    level: &Level,
    inputs: &BakeInputs,
    progress: &Progress,
    stats: &mut BakeStats,
) -> Option<LightGrid> {
    let t = Instant::now();
    let lights = inputs.lights;
    let sun = lights.sun.map(|sun| GridSun {
        direction: sun.direction,
        rgb: sun.color * sun.intensity * RANGE_SCALE,
    });
    let grid = super::grid::bake(
        level,
        (lights.minlight, lights.sun_style, sun),
        |p| grid_light(p, inputs),
        progress,
    );
    stats.grid_seconds = t.elapsed().as_secs_f64();
    stats.grid_points = grid
        .as_ref()
        .map_or(0, |g| g.styles.iter().filter(|s| s.count() > 0).count());
    grid
}

/// The light grid's light at the open point `p` (`light::grid`), and whether the sun reaches
/// it (its direct light is not in the harmonics): per style (style 0 first, daylight's next when it has its
/// own, then the lamps' in the order they reach; four at most) its spherical harmonics, the
/// slots past style 0 that nothing reached left out.
fn grid_light(p: Vec3, inputs: &BakeInputs) -> (Vec<(u8, Sh9)>, bool) {
    let lights = inputs.lights;
    let mut slots: Vec<(u8, Sh9)> = vec![(0, Sh9::ZERO)];
    let sun_slot = if lights.sun_style != 0 {
        slots.push((lights.sun_style, Sh9::ZERO));
        1
    } else {
        0
    };
    let slot_of = |style: u8, slots: &mut Vec<(u8, Sh9)>| -> Option<usize> {
        if let Some(k) = slots.iter().position(|(s, _)| *s == style) {
            return Some(k);
        }
        (slots.len() < MAX_SLOTS).then(|| {
            slots.push((style, Sh9::ZERO));
            slots.len() - 1
        })
    };
    // Lamps are the dynamic tier: moving objects take them per pixel.
    for l in lights.lights.iter().filter(|l| !l.lamp) {
        if l.formula == Falloff::LocalMinimum {
            continue;
        }
        let to = l.position - p;
        let dist = to.length();
        if dist >= l.reach() || dist < 1e-3 {
            continue;
        }
        let dir = to / dist;
        if l.spot.is_some_and(|(axis, cone)| (-dir).dot(axis) < cone) {
            continue;
        }
        let value = (l.value_at(dist) * l.weight).max(0.0) * RANGE_SCALE;
        if value <= 0.0 || inputs.world.occluded(p, to) {
            continue;
        }
        if let Some(k) = slot_of(l.style, &mut slots) {
            slots[k].1.add_light(dir, l.color * value, l.angle_scale);
        }
    }
    // The sun's direct light is left out: the grid keeps whether it reaches the point.
    let mut sun_visible = false;
    if let Some(bvh) = inputs.sun_world {
        let sees = |d: Vec3| !bvh.occluded(p, -d * 65536.0);
        sun_visible = lights.sun.is_some_and(|sun| sees(sun.direction));
        for sun in lights.dome.iter().filter(|d| sees(d.direction)) {
            let rgb = sun.color * sun.intensity * RANGE_SCALE;
            slots[sun_slot].1.add_light(-sun.direction, rgb, 0.5);
        }
    }
    for e in &inputs.emitters {
        let Some((dir, [steady, daylight])) = bounce::toward(e, p, bounce::MIN_DISTANCE) else {
            continue;
        };
        if inputs.world.occluded(p, e.position - p) {
            continue;
        }
        slots[0].1.add_light(dir, steady, 1.0);
        slots[sun_slot].1.add_light(dir, daylight, 1.0);
    }
    let mut k = 0;
    slots.retain(|(_, sh)| {
        k += 1;
        k == 1
            || sh
                .0
                .iter()
                .any(|c| c.max_element() > 0.0 || c.min_element() < 0.0)
    });
    (slots, sun_visible)
}

#[cfg(test)]
mod tests;
