//! Direct light from a level's entities, baked on the luxel grids the compiler made (each
//! surface's rect size and `lightmap_uv`; the compiler packs the blocks), the way Quake's `light` tool lights a map:
//! `light*` entities with linear falloff `(light − distance · wait)` scaled by the angle
//! (`0.5 + 0.5 cos`), `_color`, spotlights aimed at their `target`, the worldspawn's `light` as
//! the minimum, and sunlight (`_sunlight`, `_sun_mangle`, `_sunlight_color` as in ericw-tools)
//! wherever a ray towards the sun meets nothing but sky. Shadows are hard: one ray per luxel
//! and light through a BVH of the world's surfaces. Luxel values are Quake's: 128 is "normal",
//! the shader doubles them (overbright).

use std::time::Instant;

use glam::{Vec2, Vec3};

use super::bounce;
use super::bvh::{Bvh, Triangle};
use lanthorn_geom::sh::Sh9;
use lanthorn_level::styles::{self, LightStyles, MAX_SLOTS, NO_STYLE};
use lanthorn_level::{surface_flags, Entity, GridSun, Level, LightGrid, Surface};

/// Quake's `light` tool scales every sum by 0.5 before clamping (its `-range` default); the
/// e1m1 comparison with the shipped lightmaps measures exactly this factor.
pub const RANGE_SCALE: f32 = 0.5;

/// How a light fades with distance: the `delay` key, as ericw-tools numbers the formulas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Falloff {
    /// 0: Quake's `light − wait·d`.
    #[default]
    Linear,
    /// 1: `light · 128 / (wait·d)`.
    Inverse,
    /// 2: `light · 128² / (wait·d)²`.
    InverseSquare,
    /// 3: `light` at any distance.
    None,
    /// 4: no falloff, and like the minimum light it only raises luxels to `light`, on what
    /// the light sees.
    LocalMinimum,
    /// 5: `light · 128² / (wait·d + 128)²`: inverse square without the hot spot.
    InverseSquareOffset,
}

/// The distance unit of the inverse formulas (ericw-tools' `LF_SCALE`): at `wait·d` = 128 they
/// give `light`.
const FALLOFF_SCALE: f32 = 128.0;

/// Below this value (before the range scale: half a luxel step after it) a light no longer
/// counts: where the inverse formulas, which never reach 0, stop being traced.
const FADE_GATE: f32 = 1.0;

impl Falloff {
    fn from_delay(delay: f32) -> Option<Falloff> {
        Some(match delay as i32 {
            _ if delay.fract() != 0.0 => return None,
            0 => Falloff::Linear,
            1 => Falloff::Inverse,
            2 => Falloff::InverseSquare,
            3 => Falloff::None,
            4 => Falloff::LocalMinimum,
            5 => Falloff::InverseSquareOffset,
            _ => return None,
        })
    }
}

/// A point light (optionally a spotlight).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EntityLight {
    pub position: Vec3,
    /// Quake's `light` value: luxel value at distance 0 (linear falloff), falling by `falloff`
    /// per unit.
    pub intensity: f32,
    /// Quake's `wait`: distance scale of the falloff (default 1).
    pub falloff: f32,
    /// The `delay` formula.
    pub formula: Falloff,
    /// `_anglescale`: how much the angle of incidence dims the light, `(1 − s) + s·cos`
    /// (default 0.5, Quake's `0.5 + 0.5·cos`).
    pub angle_scale: f32,
    /// Linear colour, brightest channel 1.
    pub color: Vec3,
    /// Spotlight: unit direction and the cosine of half the cone angle.
    pub spot: Option<(Vec3, f32)>,
    /// The light style whose lightmap it bakes into (`level::styles`): 0 steady, 1–11
    /// Quake's animations, 32–62 switchable.
    pub style: u8,
    /// Its share of its entity's light: `1/_samples` for one of the points a `_deviance`
    /// light is spread over, else 1.
    pub weight: f32,
    /// A lamp (`_lamp` "1", linear falloff, not a spotlight): the dynamic tier, which moving objects take per
    /// pixel instead of from the light grid (`light::grid`); the lightmaps bake it as any light.
    pub lamp: bool,
}

impl EntityLight {
    /// How far the light reaches: where it falls to 0, or under [`FADE_GATE`].
    pub fn reach(&self) -> f32 {
        let (light, wait) = (self.intensity, self.falloff);
        match self.formula {
            Falloff::Linear => light / wait,
            Falloff::Inverse => light * FALLOFF_SCALE / (wait * FADE_GATE),
            Falloff::InverseSquare => FALLOFF_SCALE * (light / FADE_GATE).sqrt() / wait,
            Falloff::InverseSquareOffset => {
                (FALLOFF_SCALE * (light / FADE_GATE).sqrt() - FALLOFF_SCALE).max(0.0) / wait
            }
            Falloff::None | Falloff::LocalMinimum => f32::MAX,
        }
    }

    /// The light's value at distance `d`, before the angle of incidence.
    pub fn value_at(&self, d: f32) -> f32 {
        let (light, x) = (self.intensity, self.falloff * d);
        let scale2 = FALLOFF_SCALE * FALLOFF_SCALE;
        match self.formula {
            Falloff::Linear => (light - x).max(0.0),
            Falloff::Inverse => light * FALLOFF_SCALE / x,
            Falloff::InverseSquare => light * scale2 / (x * x),
            Falloff::InverseSquareOffset => light * scale2 / ((x + FALLOFF_SCALE).powi(2)),
            Falloff::None | Falloff::LocalMinimum => light,
        }
    }

    /// Whether `p` (normal `n`) faces the light and lies in its cone; the unit direction to it
    /// and the cosine of incidence.
    fn facing(&self, p: Vec3, n: Vec3) -> Option<(f32, f32)> {
        let to = self.position - p;
        let dist = to.length();
        if dist < 1e-3 {
            return Some((dist, 1.0));
        }
        let dir = to / dist;
        let cos = n.dot(dir);
        if cos <= 0.0 {
            return None;
        }
        if let Some((axis, cone)) = self.spot {
            if (-dir).dot(axis) < cone {
                return None;
            }
        }
        Some((dist, cos))
    }

    /// Luxel value this light adds at `p` (normal `n`) when nothing blocks it (nothing for a
    /// local minimum light: see [`EntityLight::raises_to`]).
    pub fn at(&self, p: Vec3, n: Vec3) -> Vec3 {
        if self.formula == Falloff::LocalMinimum {
            return Vec3::ZERO;
        }
        let Some((dist, cos)) = self.facing(p, n) else {
            return Vec3::ZERO;
        };
        let angle = 1.0 - self.angle_scale + self.angle_scale * cos;
        self.color * (self.value_at(dist) * angle * self.weight).max(0.0)
    }

    /// A local minimum light (`delay` 4): the value it raises `p` to when it sees it.
    pub fn raises_to(&self, p: Vec3, n: Vec3) -> Vec3 {
        match (self.formula, self.facing(p, n)) {
            (Falloff::LocalMinimum, Some(_)) => self.color * self.intensity,
            _ => Vec3::ZERO,
        }
    }
}

/// Sunlight: parallel rays from `direction` (unit, pointing from the sun into the world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sun {
    pub direction: Vec3,
    pub intensity: f32,
    pub color: Vec3,
}

/// Everything the level's entities say about its light.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LevelLights {
    /// The point lights; a `_deviance` light is several (see `sources`).
    pub lights: Vec<EntityLight>,
    /// Light entities baked (a `_deviance` light counts once).
    pub sources: usize,
    pub sun: Option<Sun>,
    /// Sky light (ericw-tools' `_sunlight2`, and `_sunlight3` from below): many dim suns from
    /// every direction of a hemisphere, lighting what sees the sky there.
    pub dome: Vec<Sun>,
    /// The worldspawn's `light`: the least luxel value anywhere.
    pub minlight: f32,
    /// The worldspawn's `_bounce`: diffuse bounces of the steady light (0: none).
    pub bounces: u32,
    /// The worldspawn's `_sun_style` (Lanthorn's key): the light style the sun, the sky dome
    /// and their bounce are baked under (0, the default: with the steady light, as Quake and
    /// ericw-tools do). Under a style of their own (12–31, which nothing animates) a renderer
    /// can dim daylight apart from the lamps (`--time-of-day night`).
    pub sun_style: u8,
    /// The switchable styles given to lights with a `targetname` (entity index, style): the
    /// compiler writes them back as the entities' `style` key, which the loader reads to know
    /// which start off (`styles::switched_off`).
    pub assigned: Vec<(usize, u8)>,
    /// Keys that did not parse (the default was used) and lights without an origin, naming
    /// the entity.
    pub warnings: Vec<String>,
}

impl LevelLights {
    pub fn is_empty(&self) -> bool {
        self.lights.is_empty() && self.sun.is_none() && self.dome.is_empty()
    }
}

fn floats(s: &str) -> Vec<f32> {
    s.split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect()
}

/// `_color` "r g b" in 0..1 or 0..255, normalised so the brightest channel is 1.
pub(crate) fn color(e: &Entity, key: &str) -> Vec3 {
    match floats(e.get(key).unwrap_or("")).as_slice() {
        [r, g, b] if r.max(*g).max(*b) > 0.0 => {
            let c = Vec3::new(*r, *g, *b);
            c / c.max_element()
        }
        _ => Vec3::ONE,
    }
}

/// Quake's "mangle"/"angle" convention: yaw (degrees, around Z), pitch (degrees, up positive).
fn direction(yaw: f32, pitch: f32) -> Vec3 {
    let (y, p) = (yaw.to_radians(), pitch.to_radians());
    Vec3::new(y.cos() * p.cos(), y.sin() * p.cos(), p.sin())
}

/// A number-valued key: `default` when absent; a warning naming the entity when unparsable.
fn number(e: &Entity, i: usize, key: &str, default: f32, warnings: &mut Vec<String>) -> f32 {
    let Some(v) = e.get(key) else { return default };
    v.trim().parse().unwrap_or_else(|_| {
        warnings.push(format!(
            "entity {i} ({}): {key} {v:?} is not a number; using {default}",
            e.classname()
        ));
        default
    })
}

/// The worldspawn's `_sun_style`: a style nothing animates or switches (12–31), else 0 with a
/// warning naming the key.
fn sun_style(e: &Entity, i: usize, warnings: &mut Vec<String>) -> u8 {
    let Some(v) = e.get("_sun_style") else {
        return 0;
    };
    match v.trim().parse::<u8>() {
        Ok(s) if s == 0 || (12..32).contains(&s) => s,
        _ => {
            warnings.push(format!(
                "entity {i} ({}): _sun_style {v:?} is not 0 or a style from 12 to 31 (the ones \
                 nothing animates or switches); using 0",
                e.classname()
            ));
            0
        }
    }
}

/// Reads the lights of a level from its entities.
pub fn level_lights(level: &Level) -> LevelLights {
    let mut out = LevelLights::default();
    let w = &mut out.warnings;
    if let Some((i, e)) = level
        .entities
        .iter()
        .enumerate()
        .find(|(_, e)| e.classname() == "worldspawn")
    {
        out.minlight = number(e, i, "light", 0.0, w);
        out.bounces = number(e, i, "_bounce", 0.0, w).clamp(0.0, 8.0) as u32;
        out.sun_style = sun_style(e, i, w);
        let sunlight = number(e, i, "_sunlight", 0.0, w);
        if sunlight > 0.0 {
            // `_sun_mangle` "yaw pitch": where the light goes (pitch −90 = straight down).
            let m = floats(e.get("_sun_mangle").unwrap_or("0 -90 0"));
            let (yaw, pitch) = (
                m.first().copied().unwrap_or(0.0),
                m.get(1).copied().unwrap_or(-90.0),
            );
            out.sun = Some(Sun {
                direction: direction(yaw, pitch).normalize(),
                intensity: sunlight,
                color: color(e, "_sunlight_color"),
            });
        }
        for (key, down) in [("_sunlight2", true), ("_sunlight3", false)] {
            let light = number(e, i, key, 0.0, w);
            if light > 0.0 {
                out.dome
                    .extend(dome(light, color(e, &format!("{key}_color")), down));
            }
        }
    }
    let mut names = Vec::new();
    for (i, e) in level.entities.iter().enumerate() {
        if !e.classname().starts_with("light") {
            continue;
        }
        let Some(position) = e.origin() else {
            w.push(format!(
                "entity {i} ({}): no usable origin \"x y z\"; the light is left out",
                e.classname()
            ));
            continue;
        };
        let style = light_style(e, i, &mut names, w);
        if style >= styles::FIRST_SWITCHABLE {
            out.assigned.push((i, style));
        }
        let intensity = number(e, i, "light", 300.0, w);
        if intensity <= 0.0 {
            continue;
        }
        let falloff = Some(number(e, i, "wait", 1.0, w))
            .filter(|w| *w > 0.0)
            .unwrap_or(1.0);
        let delay = number(e, i, "delay", 0.0, w);
        let formula = Falloff::from_delay(delay).unwrap_or_else(|| {
            w.push(format!(
                "entity {i} ({}): delay {delay} is not a falloff formula 0-5; using 0 (linear)",
                e.classname()
            ));
            Falloff::Linear
        });
        let angle_scale = number(e, i, "_anglescale", 0.5, w).clamp(0.0, 1.0);
        // A light aimed at another entity is a spotlight (cone `angle`, default 20°).
        let cone = number(e, i, "angle", 20.0, w);
        // The target is a point entity (one with an origin) of that `targetname`.
        let spot = e
            .get("target")
            .and_then(|t| {
                level
                    .entities
                    .iter()
                    .filter_map(|o| Some((o.origin()?, o)))
                    .find(|(_, o)| o.get("targetname") == Some(t))
            })
            .and_then(|(target, _)| {
                let axis = (target - position).try_normalize()?;
                Some((axis, (cone.clamp(1.0, 179.0) * 0.5).to_radians().cos()))
            });
        let light = EntityLight {
            position,
            intensity,
            falloff,
            formula,
            angle_scale,
            color: color(e, "_color"),
            spot,
            style,
            weight: 1.0,
            lamp: e.get("_lamp") == Some("1") && spot.is_none() && formula == Falloff::Linear,
        };
        let deviance = number(e, i, "_deviance", 0.0, w);
        let samples = number(e, i, "_samples", 16.0, w).clamp(1.0, 256.0) as u32;
        out.sources += 1;
        out.lights.extend(spread(light, deviance, samples));
    }
    out
}

/// A light with `_deviance` R: `samples` lights spread evenly through the ball of radius R
/// around it (a Fibonacci spiral of directions, radii by the cube root so the ball is evenly
/// filled), each with `1/samples` of its light — an area light, whose shadows have a penumbra.
fn spread(light: EntityLight, deviance: f32, samples: u32) -> Vec<EntityLight> {
    if deviance <= 0.0 || samples <= 1 {
        return vec![light];
    }
    (0..samples)
        .map(|k| {
            let dir = spiral(k, 1.0 - 2.0 * (k as f32 + 0.5) / samples as f32);
            // Radii from a second, coprime sequence, so the radius does not follow z.
            let u = ((k as f32 * 0.618_034 + 0.5) % 1.0).max(1e-3);
            EntityLight {
                position: light.position + dir * deviance * u.cbrt(),
                weight: 1.0 / samples as f32,
                ..light
            }
        })
        .collect()
}

/// The `k`th direction of a Fibonacci spiral at height `z` (−1..1): with `z` stepped evenly,
/// the directions cover the sphere (or a band of it) evenly.
fn spiral(k: u32, z: f32) -> Vec3 {
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    let (ring, a) = ((1.0 - z * z).max(0.0).sqrt(), golden * k as f32);
    Vec3::new(ring * a.cos(), ring * a.sin(), z)
}

/// Directions of a sky dome (a Fibonacci spiral over the hemisphere).
const DOME_SUNS: u32 = 128;

/// `light` from a hemisphere of the sky — the upper one (`down`: the light travels downwards)
/// or the lower — as [`DOME_SUNS`] suns evenly spread over it, each with its share.
fn dome(light: f32, color: Vec3, down: bool) -> Vec<Sun> {
    (0..DOME_SUNS)
        .map(|k| {
            // Uniform in solid angle: z uniform in (0, 1).
            let up = spiral(k, (k as f32 + 0.5) / DOME_SUNS as f32);
            let towards_sky = if down {
                up
            } else {
                up * Vec3::new(1.0, 1.0, -1.0)
            };
            Sun {
                direction: -towards_sky,
                intensity: light / DOME_SUNS as f32,
                color,
            }
        })
        .collect()
}

/// A light's style, as id's light tool gives it: the `style` key (0–63), and for a light with
/// a `targetname` and no animated style the switchable style of that name — one per name, from
/// 32 in the order the names first appear. A light that starts off (spawnflags 1) bakes into
/// its style like any other; the game starts the style dark.
fn light_style(e: &Entity, i: usize, names: &mut Vec<String>, w: &mut Vec<String>) -> u8 {
    let style = number(e, i, "style", 0.0, w);
    let style = if style.fract() == 0.0 && (0.0..styles::MAX_STYLES as f32).contains(&style) {
        style as u8
    } else {
        w.push(format!(
            "entity {i} ({}): style {style} is not a light style 0-63; using 0",
            e.classname()
        ));
        0
    };
    let Some(name) = e.get("targetname").filter(|_| style == 0) else {
        return style;
    };
    let k = names.iter().position(|n| n == name).unwrap_or_else(|| {
        names.push(name.to_string());
        names.len() - 1
    });
    let switchable = styles::FIRST_SWITCHABLE as usize + k;
    if switchable > styles::LAST_SWITCHABLE as usize {
        w.push(format!(
            "entity {i} ({}): more than {} switchable light names; {name:?} stays on (style 0)",
            e.classname(),
            styles::LAST_SWITCHABLE - styles::FIRST_SWITCHABLE + 1
        ));
        return 0;
    }
    switchable as u8
}

/// What a bake did.
#[derive(Clone, Debug, Default)]
pub struct BakeStats {
    pub lights: usize,
    pub luxels: usize,
    pub rays: u64,
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
    pub grid_seconds: f64,
}

/// One surface's baked light: its styles (slot order) and a `width · height` RGB block per
/// slot, one after another.
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceLight {
    pub styles: LightStyles,
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
///
/// Where objects move, the light grid over their path is baked from the same lights and
/// bounce (`light::grid`).
pub fn bake(
    level: &Level,
    lights: &LevelLights,
    samples_per_axis: u32,
    bounces: u32,
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
        inputs.emitters = bounce_emitters(level, &inputs, (&offset, &jobs), bounces);
        stats.bounce_seconds = t.elapsed().as_secs_f64();
        stats.emitters = inputs.emitters.len();
    }
    let inputs = inputs;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(16);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let surfaces = &level.surfaces;
    let results: Vec<(usize, SurfaceLight, u64, bool)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&si) = jobs.get(k) else { break };
                        let (light, rays, over_four) =
                            bake_surface(&surfaces[si], offset[si], &inputs);
                        done.push((si, light, rays, over_four));
                    }
                    done
                })
            })
            .collect();
        show_progress(&workers, &next, jobs.len(), start);
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
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
    let grid = bake_grid(level, &inputs, &mut stats);
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
            emitters: nearby_emitters(&inputs.emitters, s, offset),
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
fn bake_grid(level: &Level, inputs: &BakeInputs, stats: &mut BakeStats) -> Option<LightGrid> {
    let t = Instant::now();
    let lights = inputs.lights;
    let sun = lights.sun.map(|sun| GridSun {
        direction: sun.direction,
        rgb: sun.color * sun.intensity * RANGE_SCALE,
    });
    let grid = super::grid::bake(level, (lights.minlight, lights.sun_style, sun), |p| {
        grid_light(p, inputs)
    });
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

/// While `workers` bake: once the bake has run a second, on a terminal, its share done on one
/// stderr line (`next` counts the surfaces taken of `total`).
fn show_progress<T>(
    workers: &[std::thread::ScopedJoinHandle<'_, T>],
    next: &std::sync::atomic::AtomicUsize,
    total: usize,
    start: Instant,
) {
    use std::io::{IsTerminal, Write};
    let terminal = std::io::stderr().is_terminal();
    let mut shown = false;
    while !workers.iter().all(|w| w.is_finished()) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        if terminal && start.elapsed().as_secs_f64() > 1.0 {
            let taken = next.load(std::sync::atomic::Ordering::Relaxed).min(total);
            eprint!(
                "\rlight: {:3} % of {total} surfaces, {:.1} s",
                taken * 100 / total.max(1),
                start.elapsed().as_secs_f64()
            );
            let _ = std::io::stderr().flush();
            shown = true;
        }
    }
    if shown {
        eprintln!(
            "\rlight: done, {total} surfaces in {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
}

/// The emitters of `bounces` bounces: the first from each lit world surface's patches' direct
/// light (style 0's, and daylight apart when it has its own style), each further one from the
/// light the previous one sent the patches.
fn bounce_emitters(
    level: &Level,
    inputs: &BakeInputs,
    (offset, jobs): (&[Vec3], &[usize]),
    bounces: u32,
) -> Vec<bounce::Emitter> {
    let sun_style = inputs.lights.sun_style;
    let albedos = bounce::surface_albedos(level);
    let mut rays = 0u64;
    // Per surface: its patches, their points and the direct light there.
    let mut surfaces = Vec::new();
    for &si in jobs {
        let s = &level.surfaces[si];
        // Style 0, and daylight's style in slot 1 when it has one.
        let styles = match sun_style {
            0 => LightStyles::default(),
            _ => LightStyles([0, sun_style, NO_STYLE, NO_STYLE]),
        };
        let Some(bake) = SurfaceBake::new(s, offset[si], styles, inputs) else {
            continue;
        };
        let holds = |uv: Vec2| on_surface(s, offset[si], bake.frame.position(uv));
        let patches = bounce::patches(s, holds, |uv| bake.frame.position(uv));
        let points: Vec<Vec3> = patches
            .blocks
            .iter()
            .flatten()
            .map(|&uv| bake.point(uv))
            .collect();
        let direct: Vec<bounce::Parts> = patches
            .blocks
            .iter()
            .flatten()
            .zip(&points)
            .map(|(&uv, &p)| {
                let sums = bake.sample(uv, &mut rays).sums;
                let sky = bake.sky(p, &mut rays);
                match sun_style {
                    0 => [(sums[0] + sky) * RANGE_SCALE, Vec3::ZERO],
                    _ => [sums[0] * RANGE_SCALE, (sums[1] + sky) * RANGE_SCALE],
                }
            })
            .collect();
        surfaces.push((si, patches, points, direct));
    }
    let mut all: Vec<bounce::Emitter> = Vec::new();
    let mut last: Vec<bounce::Emitter> = Vec::new();
    for k in 0..bounces {
        let mut this = Vec::new();
        for (si, patches, points, light) in &mut surfaces {
            let n = level.surfaces[*si].normal;
            if k > 0 {
                let near = nearby_emitters(&last, &level.surfaces[*si], offset[*si]);
                for (l, &p) in light.iter_mut().zip(points.iter()) {
                    *l = bounce::gather(&near, inputs.world, p, n, &mut rays);
                }
            }
            bounce::emit(patches, points, light, n, albedos[*si], &mut this);
        }
        all.extend_from_slice(&this);
        last = this;
    }
    all
}

/// The emitters that can reach `s` (placed at `offset`).
fn nearby_emitters(
    emitters: &[bounce::Emitter],
    s: &Surface,
    offset: Vec3,
) -> Vec<bounce::Emitter> {
    if emitters.is_empty() {
        return Vec::new();
    }
    let on_plane = s
        .vertices
        .first()
        .map_or(Vec3::ZERO, |v| v.position + offset);
    bounce::near(emitters, bounds(s, offset), s.normal, on_plane)
}

/// Whether `p` lies in one of `s`'s triangles (placed at `offset`), on its plane.
fn on_surface(s: &Surface, offset: Vec3, p: Vec3) -> bool {
    let n = s.normal;
    s.indices.chunks_exact(3).any(|t| {
        let v = |k: usize| s.vertices[t[k] as usize].position + offset;
        let e = |a: Vec3, b: Vec3| (b - a).cross(p - a).dot(n) >= -0.01;
        e(v(0), v(1)) && e(v(1), v(2)) && e(v(2), v(0))
    })
}

#[cfg(test)]
#[path = "entities_tests.rs"]
mod tests;
