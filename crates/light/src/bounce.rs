//! Diffuse bounce (ericw-tools' `-bounce`): every lit surface is cut into patches along its
//! luxel grid, each patch re-emits the steady (style 0) direct light it received times its
//! material's mean colour as a Lambertian emitter at its centre, and every luxel gathers what
//! the emitters it sees send it. Further bounces pass the light from patch to patch first.
//! Units are luxel values throughout: an emitter's flux is its albedo × its mean luxel value ×
//! its area, and a luxel at distance d, at angles θ (to the emitter's normal) and φ (to its
//! own), gets `flux · cos θ · cos φ / (π d²)` — so in a closed room the light of one bounce,
//! summed over the walls' area, is the albedo times the direct light's sum (a test checks it).

use glam::{Vec2, Vec3};

use super::bvh::Bvh;
use lanthorn_level::{Level, Material, Surface};

/// Luxels a patch side.
const PATCH: u32 = 4;
/// Below this value a bounce no longer counts: where an emitter stops being traced.
const GATE: f32 = 0.1;

/// Light in two parts that bounce alike and are stored apart: the steady light (style 0) and,
/// when the level bakes it under a style of its own, daylight (`_sun_style`; else zero).
pub(super) type Parts = [Vec3; 2];

/// A patch re-emitting light.
#[derive(Clone, Copy, Debug)]
pub(super) struct Emitter {
    pub(super) position: Vec3,
    pub(super) normal: Vec3,
    /// Luxel value × area, per channel, of each part.
    pub(super) flux: Parts,
    /// Beyond this distance it adds less than [`GATE`] (both parts together: splitting the
    /// light does not shorten its reach).
    reach: f32,
}

impl Emitter {
    fn new(position: Vec3, normal: Vec3, flux: Parts) -> Emitter {
        let total = flux[0] + flux[1];
        let reach = (total.max_element() / (std::f32::consts::PI * GATE)).sqrt();
        Emitter {
            position,
            normal,
            flux,
            reach,
        }
    }

    /// What this emitter sends the point `p` (normal `n`) when nothing blocks it. The distance
    /// is kept at least a quarter of a patch: a point emitter's 1/d² would blow up beside it.
    pub(super) fn at(&self, p: Vec3, n: Vec3, min_distance: f32) -> Parts {
        let to = p - self.position;
        let d2 = to.length_squared();
        if d2 > self.reach * self.reach || d2 < 1e-6 {
            return [Vec3::ZERO; 2];
        }
        let d = d2.sqrt();
        let dir = to / d;
        let (out, inc) = (self.normal.dot(dir), -n.dot(dir));
        if out <= 0.0 || inc <= 0.0 {
            return [Vec3::ZERO; 2];
        }
        let d = d.max(min_distance);
        let k = out * inc / (std::f32::consts::PI * d * d);
        self.flux.map(|f| f * k)
    }
}

/// A material's mean colour (linear RGB): its texels' mean, sRGB decoded, or its flat colour.
pub(super) fn albedo(m: &Material) -> Vec3 {
    let Some(texels) = m.texels.as_ref().filter(|t| !t.is_empty()) else {
        return Vec3::from(m.color);
    };
    let decode = |c: u8| {
        let c = c as f32 / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let lut: Vec<f32> = (0..=255u8).map(decode).collect();
    let mut sum = Vec3::ZERO;
    for px in texels.chunks_exact(4) {
        sum += Vec3::new(
            lut[px[0] as usize],
            lut[px[1] as usize],
            lut[px[2] as usize],
        );
    }
    sum / (texels.len() / 4).max(1) as f32
}

/// A surface's patches: per block of `PATCH`² luxels, the luxel centres that lie on the
/// surface, with the area each stands for.
pub(super) struct Patches {
    pub(super) blocks: Vec<Vec<Vec2>>,
    pub(super) luxel_area: f32,
}

/// The luxel-grid points (luxel centres) of `s` grouped into patches; `on_surface` says whether
/// a luxel centre's world point lies on the surface, `world_of` maps grid to world.
pub(super) fn patches(
    s: &Surface,
    on_surface: impl Fn(Vec2) -> bool,
    world_of: impl Fn(Vec2) -> Vec3,
) -> Patches {
    let r = s.lightmap.expect("a lit surface");
    let mut blocks = Vec::new();
    for bj in (0..r.height).step_by(PATCH as usize) {
        for bi in (0..r.width).step_by(PATCH as usize) {
            let block: Vec<Vec2> = (bj..(bj + PATCH).min(r.height))
                .flat_map(|j| (bi..(bi + PATCH).min(r.width)).map(move |i| (i, j)))
                .map(|(i, j)| Vec2::new(i as f32 + 0.5, j as f32 + 0.5))
                .filter(|&uv| on_surface(uv))
                .collect();
            if !block.is_empty() {
                blocks.push(block);
            }
        }
    }
    let o = world_of(Vec2::ZERO);
    let luxel_area = (world_of(Vec2::X) - o)
        .cross(world_of(Vec2::Y) - o)
        .length();
    Patches { blocks, luxel_area }
}

/// The emitters of one bounce from the light each patch point received (`light[k]`, luxel
/// values, in the order of the patches' points) on a surface of albedo `albedo`.
pub(super) fn emit(
    patches: &Patches,
    points: &[Vec3],
    light: &[Parts],
    normal: Vec3,
    albedo: Vec3,
    out: &mut Vec<Emitter>,
) {
    let mut k = 0;
    for block in &patches.blocks {
        let n = block.len();
        let centre = points[k..k + n].iter().sum::<Vec3>() / n as f32;
        let received = light[k..k + n]
            .iter()
            .fold([Vec3::ZERO; 2], |a, l| [a[0] + l[0], a[1] + l[1]]);
        k += n;
        let flux = received.map(|r| albedo * r * patches.luxel_area);
        if (flux[0] + flux[1]).max_element() > 0.0 {
            out.push(Emitter::new(centre, normal, flux));
        }
    }
}

/// The emitters that can reach a surface of bounds `lo..hi` facing `n` whose plane passes
/// through `on_plane`: in front of it, facing it, within reach of its bounds.
pub(super) fn near(
    emitters: &[Emitter],
    (lo, hi): (Vec3, Vec3),
    n: Vec3,
    on_plane: Vec3,
) -> Vec<Emitter> {
    let corners = (0..8).map(|k| {
        Vec3::new(
            if k & 1 == 0 { lo.x } else { hi.x },
            if k & 2 == 0 { lo.y } else { hi.y },
            if k & 4 == 0 { lo.z } else { hi.z },
        )
    });
    let corners: Vec<Vec3> = corners.collect();
    emitters
        .iter()
        .filter(|e| {
            n.dot(e.position - on_plane) > 0.0
                && corners.iter().any(|&c| e.normal.dot(c - e.position) > 0.0)
                && e.position.clamp(lo, hi).distance(e.position) < e.reach
        })
        .copied()
        .collect()
}

/// What `emitters` send the point `p` (normal `n`) past `world`'s shadows, part by part.
pub(super) fn gather(emitters: &[Emitter], world: &Bvh, p: Vec3, n: Vec3, rays: &mut u64) -> Parts {
    let min_distance = MIN_DISTANCE;
    let mut sum = [Vec3::ZERO; 2];
    for e in emitters {
        let add = e.at(p, n, min_distance);
        if (add[0] + add[1]).max_element() <= 0.0 {
            continue;
        }
        *rays += 1;
        if !world.occluded(p, e.position - p) {
            sum[0] += add[0];
            sum[1] += add[1];
        }
    }
    sum
}

/// What an emitter sends towards `p` before the receiver's cosine: the unit direction from
/// `p` to it and `flux · cos θ / (π d²)` per part (`None` behind it or out of its reach); the
/// distance kept at least `min_distance` as in [`Emitter::at`].
pub(super) fn toward(e: &Emitter, p: Vec3, min_distance: f32) -> Option<(Vec3, Parts)> {
    let to = p - e.position;
    let d2 = to.length_squared();
    if d2 > e.reach * e.reach || d2 < 1e-6 {
        return None;
    }
    let d = d2.sqrt();
    let out = e.normal.dot(to / d);
    if out <= 0.0 {
        return None;
    }
    let d = d.max(min_distance);
    let k = out / (std::f32::consts::PI * d * d);
    Some((-to / to.length(), e.flux.map(|f| f * k)))
}

/// The distance [`gather`] keeps between a point and an emitter at least.
pub(super) const MIN_DISTANCE: f32 = 16.0 * PATCH as f32 * 0.25;

/// The albedo of every surface of `level` (its material's mean colour).
pub(super) fn surface_albedos(level: &Level) -> Vec<Vec3> {
    let by_material: Vec<Vec3> = level.materials.iter().map(albedo).collect();
    level
        .surfaces
        .iter()
        .map(|s| {
            by_material
                .get(s.material as usize)
                .copied()
                .unwrap_or(Vec3::splat(0.5))
        })
        .collect()
}
