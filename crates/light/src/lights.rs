//! The light model of a level, read once from its entities' keys: Quake's `light*` entities
//! (linear falloff `(light − distance · wait)` scaled by the angle (`0.5 + 0.5 cos`),
//! `_color`, spotlights aimed at their `target`, `delay` formulas, `_deviance` balls), the
//! worldspawn's `light` as the minimum, sunlight (`_sunlight`, `_sun_mangle`,
//! `_sunlight_color` as in ericw-tools) and the sky dome, with their styles and which of them
//! switch. The baker (`bake`) and the renderer read the same `LevelLights`.

pub mod lamps;

use glam::Vec3;

use lanthorn_level::styles;
use lanthorn_level::{Entity, Level};

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
    /// Where it is.
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
    /// How far the light reaches: where it falls to 0, or under `FADE_GATE`.
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
    /// Unit, from the sun into the world.
    pub direction: Vec3,
    /// Quake's luxel value of full sunlight on a face square to it (`_sunlight`).
    pub intensity: f32,
    /// Its colour (`_sunlight_color`), the brightest channel 1.
    pub color: Vec3,
}

/// Everything the level's entities say about its light.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LevelLights {
    /// The point lights; a `_deviance` light is several (see `sources`).
    pub lights: Vec<EntityLight>,
    /// Light entities baked (a `_deviance` light counts once).
    pub sources: usize,
    /// The sun (`_sunlight`, `_sun_mangle`), when the worldspawn names one.
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
    /// The lights marked `_lamp` as lamps (`lights::lamps`): their glow is drawn apart too.
    pub lamps: Vec<lanthorn_geom::Lamp>,
}

impl LevelLights {
    /// No light at all: no point light, no sun, no sky dome.
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
    out.lamps = lamps::lamps_among(&out.lights);
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
