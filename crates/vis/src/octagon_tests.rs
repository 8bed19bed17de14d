//! Octagons that are never too small: from eyes anywhere in open space, within a unit of
//! portal planes included, every point of a reached cell's surface that the eye sees through
//! open space projects inside the union of the octagons of the reached cells that list it.
//!
//! This is the property the world pass relies on (it clips each surface to that union with
//! clip distances), checked without the GPU: rendering a cell's surfaces unclipped and clipped
//! differs exactly where a visible point of them falls outside its octagon. "Seen through open
//! space" is `Level::segment_crosses_solid` from the eye to the point (tested against point
//! location), and the line meeting no liquid surface where liquids hide what lies behind them
//! (`liquid_cover`: they are drawn opaque); occlusion by nearer walls does not matter, since a
//! hidden point drawn or clipped changes no pixel, so every such point must be inside, visible
//! or not.

use glam::{Vec2, Vec3, Vec4};

use super::{PortalFlow, VisibleSet};
use lanthorn_geom::rng::XorShift;
use lanthorn_geom::{Camera, CameraSpec, Octagon};
use lanthorn_level::Level;

/// What a run found: points tested, and the first point outside its octagons or on a surface
/// no reached cell lists.
#[derive(Debug, Default)]
pub(crate) struct OctagonCheck {
    pub(crate) eyes: usize,
    pub(crate) points: usize,
    pub(crate) failure: Option<String>,
}

/// Eyes: half at random open points, half within a unit of a random portal's plane (over its
/// polygon), looking anywhere or through the portal.
fn eyes(level: &Level, count: usize, seed: u64) -> Vec<CameraSpec> {
    let mut rng = XorShift::seeded(seed);
    let b = level.bounds();
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < count && tries < count * 200 {
        tries += 1;
        let mut u = || rng.unit_f32();
        let (position, look) = if out.len() % 2 == 0 || level.portals.is_empty() {
            let t = Vec3::new(u(), u(), u());
            (b.min + (b.max - b.min) * t, None)
        } else {
            let p =
                &level.portals[(u() * level.portals.len() as f32) as usize % level.portals.len()];
            let (i, j) = (1 + (u() * (p.polygon.len() - 2) as f32) as usize, u());
            let (s, t) = (u(), u());
            let (s, t) = if s + t > 1.0 {
                (1.0 - s, 1.0 - t)
            } else {
                (s, t)
            };
            let on = p.polygon[0]
                + (p.polygon[i] - p.polygon[0]) * s
                + (p.polygon[(i + 1).min(p.polygon.len() - 1)] - p.polygon[0]) * t;
            let offset = [-1.0, -0.5, -0.1, 0.0, 0.1, 0.5, 1.0][(j * 7.0) as usize % 7];
            let n = p.plane.normal;
            (on + n * offset, Some(if u() < 0.5 { n } else { -n }))
        };
        if level.locate(position).is_none() {
            continue;
        }
        let (yaw, pitch) = match look {
            Some(d) if u() < 0.7 => (
                d.y.atan2(d.x).to_degrees(),
                d.z.asin().to_degrees().clamp(-80.0, 80.0),
            ),
            _ => (u() * 360.0, (u() - 0.5) * 120.0),
        };
        out.push(CameraSpec {
            position,
            yaw,
            pitch,
        });
    }
    out
}

/// Runs the flow (no doors shut, no views through mirrors: the camera's own view) from
/// `count` eyes and checks every sampled point of every reached cell's surfaces.
pub(crate) fn check_octagons(level: &Level, count: usize, seed: u64) -> OctagonCheck {
    let mut flow = PortalFlow::new(level);
    let mut vis = VisibleSet::default();
    let mut result = OctagonCheck::default();
    let mut union = vec![Octagon::EMPTY; level.surfaces.len()];
    let liquids = hiding_liquids(level);
    for spec in eyes(level, count, seed) {
        let camera = Camera::new(spec, 16.0 / 9.0);
        flow.run(level, &camera, level.locate(spec.position), &mut vis);
        result.eyes += 1;
        union.fill(Octagon::EMPTY);
        for vc in vis.cells.iter().filter(|vc| vc.view == 0) {
            for &s in &level.cells[vc.cell as usize].surfaces {
                union[s as usize] = union[s as usize].union(&vc.octagon);
            }
        }
        if let Some(why) = check_eye(level, &camera, (&union, &liquids), &mut result.points) {
            result.failure = Some(format!("eye {:?}: {why}", spec));
            return result;
        }
    }
    result
}

/// Every world surface's sampled points from one eye (see the module docs).
fn check_eye(
    level: &Level,
    camera: &Camera,
    (union, liquids): (&[Octagon], &[[Vec3; 3]]),
    points: &mut usize,
) -> Option<String> {
    let vp = camera.view_proj();
    let eye = camera.position;
    // The surfaces cells list (objects' are linked, triggers' never drawn).
    let listed: Vec<bool> = {
        let mut v = vec![false; level.surfaces.len()];
        for c in &level.cells {
            for &s in &c.surfaces {
                v[s as usize] = true;
            }
        }
        v
    };
    for (si, s) in level.surfaces.iter().enumerate() {
        if !listed[si] || s.normal.dot(eye - s.vertices[0].position) <= 0.0 {
            continue;
        }
        for (x, _) in lanthorn_testdata::surface_samples(s, Vec3::ZERO, 0.95) {
            let Some(ndc) = on_screen(&vp, x) else {
                continue;
            };
            // A hair in front of the surface: the point itself lies on solid's boundary.
            let toward = (eye - x).normalize_or_zero() * 0.1;
            // Any solid at all: a point just past a corner is hidden by it.
            if level.segment_crosses_solid(eye, x + toward, 0.0)
                || liquids.iter().any(|t| segment_meets(t, eye, x))
            {
                continue;
            }
            *points += 1;
            let o = union[si];
            let grown = Octagon {
                min: o.min.map(|m| m - 1e-3),
                max: o.max.map(|m| m + 1e-3),
            };
            if !grown.contains(ndc) {
                let reached = !o.is_empty();
                return Some(format!(
                        "surface {si} at {x} (screen {ndc}) is seen through open space but {} (its octagon {o:?})",
                        if reached { "falls outside the octagons of the reached cells listing it" } else { "no reached cell lists it" }
                    ));
            }
        }
    }
    None
}

/// The triangles of the liquid surfaces, where they hide what lies behind them.
fn hiding_liquids(level: &Level) -> Vec<[Vec3; 3]> {
    use lanthorn_level::surface_flags::{GLOW, LIQUID};
    if !crate::liquid_cover::liquids_hide(level) {
        return Vec::new();
    }
    let liquid = level
        .surfaces
        .iter()
        .filter(|s| s.flags & (LIQUID | GLOW) == LIQUID);
    liquid
        .flat_map(|s| {
            let at = |i: u32| s.vertices[i as usize].position;
            s.indices
                .chunks_exact(3)
                .map(move |t| [at(t[0]), at(t[1]), at(t[2])])
        })
        .collect()
}

/// Whether the segment `a`–`b` meets triangle `t` (either side, its edges included: a line
/// along a liquid's edge is open for no width) more than 0.01 units before `b` (a liquid does
/// not hide itself, nor its other side).
fn segment_meets(t: &[Vec3; 3], a: Vec3, b: Vec3) -> bool {
    let (e1, e2, dir) = (t[1] - t[0], t[2] - t[0], b - a);
    let h = dir.cross(e2);
    let det = e1.dot(h);
    if det.abs() < 1e-9 {
        return false;
    }
    let (o, slack) = (a - t[0], 1e-4);
    let u = o.dot(h) / det;
    let q = o.cross(e1);
    let v = dir.dot(q) / det;
    let s = e2.dot(q) / det;
    let before_b = (1.0 - s) * dir.length() > 0.01;
    u >= -slack && v >= -slack && u + v <= 1.0 + slack && s > 0.0 && before_b
}

/// The point's position on screen (NDC), when it is in front of the near plane and on screen.
fn on_screen(vp: &glam::Mat4, x: Vec3) -> Option<Vec2> {
    let c: Vec4 = *vp * x.extend(1.0);
    if c.w - c.z < 0.0 || c.w <= 1e-6 {
        return None;
    }
    let ndc = Vec2::new(c.x, c.y) / c.w;
    (ndc.abs().max_element() <= 1.0).then_some(ndc)
}

#[test]
fn octagons_hold_every_point_seen_on_the_id_maps() {
    let dir = lanthorn_testdata::realdata_dir().join("quake/bsp");
    if !dir.join("e1m1.bsp").is_file() {
        lanthorn_testdata::missing_realdata(&dir);
        return;
    }
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "bsp"))
        .collect();
    names.sort();
    let mut total = 0;
    for (k, p) in names.iter().enumerate() {
        let level = lanthorn_load::load(p).unwrap();
        let r = check_octagons(&level, 60, 1000 + k as u64);
        assert!(
            r.failure.is_none(),
            "{}: {}",
            p.display(),
            r.failure.unwrap()
        );
        assert!(r.eyes >= 50 && r.points > 1000, "{}: {r:?}", p.display());
        total += r.points;
    }
    eprintln!("{total} points checked on {} maps", names.len());
}

/// And every object of them is linked where it is seen (the invariant of `vis::objects`).
#[test]
fn octagons_hold_every_point_seen_on_generated_levels() {
    for seed in [1, 2, 3] {
        let text = lanthorn_compile::scenes::generated::generate(seed, &Default::default());
        let options = lanthorn_compile::CompileOptions {
            light: false,
            ..Default::default()
        };
        let (level, _) = lanthorn_compile::compile_map_text(&text, &options).unwrap();
        if let Some(why) = lanthorn_testdata::object_seen_from_an_unlinked_cell(&level) {
            panic!("generated {seed}: {why}");
        }
        let r = check_octagons(&level, 80, seed);
        assert!(
            r.failure.is_none(),
            "generated {seed}: {}",
            r.failure.unwrap()
        );
        assert!(r.eyes >= 60 && r.points > 1000, "generated {seed}: {r:?}");
    }
}
