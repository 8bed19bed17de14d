//! Where vis-check puts its eyes. Random views stay clear of every cell plane; the near-portal
//! and walk views go where culling is hard: in doorways, at a portal's edges and corners, on its
//! plane, crossing it.

use glam::Vec3;

use crate::geom::CameraSpec;
use crate::level::Level;

/// Which views a check samples (`vis-check --views`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewSampler {
    /// Eyes inside open cells, a clearance from every cell plane; random yaw, pitch ±30°.
    Random,
    /// Eyes 0, 0.5, 1, 2, 4 and 8 units either side of a portal's plane, over its interior,
    /// along its edges and at its corners; looking in a random direction or straight through.
    NearPortals,
    /// Every 4th frame of `lanthorn bench`'s walk (which crosses each portal a unit either side
    /// of its plane) and a twin of each with a random yaw and pitch.
    Walk,
    /// Half near-portal views, half walk views (the committed `tests/views/MAP-portals.json`).
    Portals,
}

impl std::str::FromStr for ViewSampler {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "random" => ViewSampler::Random,
            "near-portals" => ViewSampler::NearPortals,
            "walk" => ViewSampler::Walk,
            "portals" => ViewSampler::Portals,
            _ => {
                return Err(format!(
                    "unknown views {s:?}: use random, near-portals, walk, portals or a number of random views"
                ))
            }
        })
    }
}

/// The views' generator: the same views for the same seed on every machine.
pub(crate) type Rng = crate::rng::XorShift;

/// Distances from a portal's plane the near-portal views put their eyes at (both sides).
pub const NEAR_PORTAL_DISTANCES: [f32; 6] = [0.0, 0.5, 1.0, 2.0, 4.0, 8.0];

/// Sampled views and how many fell in solid (skipped, never measured).
#[derive(Clone, Debug, Default)]
pub struct SampledViews {
    pub views: Vec<CameraSpec>,
    pub in_solid: usize,
}

/// `count` views near portals: each picks a portal between two open cells, a spot on it
/// (interior, edge or corner, a third each), a distance and a side, and a direction (a random
/// one, or through the portal, half each). Eyes that land in solid are counted and dropped.
pub fn near_portal_views(level: &Level, count: usize, seed: u64) -> SampledViews {
    let mut rng = Rng::seeded(seed ^ 0x5eed_d00a);
    let portals: Vec<usize> = (0..level.portals.len())
        .filter(|&i| level.portals[i].polygon.len() >= 3)
        .collect();
    let mut out = SampledViews::default();
    if portals.is_empty() {
        return out;
    }
    for _ in 0..count {
        let portal = &level.portals[portals[rng.below(portals.len())]];
        let spot = spot_on_polygon(&portal.polygon, &mut rng);
        let d = NEAR_PORTAL_DISTANCES[rng.below(NEAR_PORTAL_DISTANCES.len())];
        let side = if rng.unit_f32() < 0.5 { 1.0 } else { -1.0 };
        let n = portal.plane.normal;
        let position = spot + n * (d * side);
        // Through the portal: from this side toward the other.
        let (yaw, pitch) = if rng.unit_f32() < 0.5 {
            direction_angles(-n * side)
        } else {
            (rng.unit_f32() * 360.0, (rng.unit_f32() - 0.5) * 120.0)
        };
        if level.locate(position).is_none() {
            out.in_solid += 1;
            continue;
        }
        out.views.push(CameraSpec {
            position,
            yaw,
            pitch,
        });
    }
    out
}

/// A point of a convex polygon: inside it, on an edge, or a corner (a third each).
fn spot_on_polygon(poly: &[Vec3], rng: &mut Rng) -> Vec3 {
    let n = poly.len();
    let i = rng.below(n);
    let (a, b) = (poly[i], poly[(i + 1) % n]);
    match rng.below(3) {
        0 => {
            // A random fan triangle, uniform inside it.
            let (mut u, mut v) = (rng.unit_f32(), rng.unit_f32());
            if u + v > 1.0 {
                (u, v) = (1.0 - u, 1.0 - v);
            }
            let c = poly[0];
            let j = 1 + rng.below(n - 2);
            c + (poly[j] - c) * u + (poly[j + 1] - c) * v
        }
        1 => a + (b - a) * rng.unit_f32(),
        _ => a,
    }
}

/// Yaw and pitch (degrees) of a camera looking along `dir`.
fn direction_angles(dir: Vec3) -> (f32, f32) {
    let d = dir.normalize_or_zero();
    (
        d.y.atan2(d.x).to_degrees(),
        d.z.clamp(-1.0, 1.0).asin().to_degrees(),
    )
}

/// `count` views along the bench walk from `start`: every 4th of its frames and a twin with a
/// random yaw and pitch ±60° (the walk itself looks where it goes, level).
pub fn walk_views(level: &Level, start: CameraSpec, count: usize, seed: u64) -> SampledViews {
    let mut rng = Rng::seeded(seed ^ 0x3a1c);
    let frames = (count.div_ceil(2) * 4) as u32;
    let walk = super::bench::level_path(level, start, frames);
    let mut out = SampledViews::default();
    for frame in walk.iter().step_by(4) {
        for twin in [false, true] {
            if out.views.len() + out.in_solid >= count {
                break;
            }
            let mut view = *frame;
            if twin {
                view.yaw = rng.unit_f32() * 360.0;
                view.pitch = (rng.unit_f32() - 0.5) * 120.0;
            }
            if level.locate(view.position).is_none() {
                out.in_solid += 1;
            } else {
                out.views.push(view);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The near-portal views are where they say: each eye within 8 units of some portal's plane
    /// and over its polygon (the spot it was put at), every distance drawn, in open cells.
    #[test]
    fn near_portal_views_sit_on_portals() {
        let level = crate::scenes::synthetic::maze(&Default::default());
        let s = near_portal_views(&level, 400, 3);
        assert!(s.views.len() > 100, "{} views", s.views.len());
        let mut distances = std::collections::BTreeSet::new();
        for v in &s.views {
            assert!(level.locate(v.position).is_some());
            let best = level
                .portals
                .iter()
                .map(|p| p.plane.distance(v.position).abs())
                .fold(f32::MAX, f32::min);
            assert!(best <= 8.0 + 1e-3, "eye {best} from every portal");
            distances.insert((best * 2.0).round() as i32);
        }
        // 0, 0.5, 1, 2, 4 and 8 units (some eyes are nearer another portal than their own).
        assert!(distances.len() >= 5, "{distances:?}");
    }

    /// Looking straight through a portal is looking along its normal.
    #[test]
    fn direction_angles_invert_forward() {
        for dir in [
            Vec3::X,
            -Vec3::Y,
            Vec3::new(1.0, 2.0, -0.5),
            Vec3::Z * 0.9 + Vec3::X * 0.1,
        ] {
            let (yaw, pitch) = direction_angles(dir);
            let cam = crate::geom::Camera::new(
                CameraSpec {
                    position: Vec3::ZERO,
                    yaw,
                    pitch,
                },
                1.0,
            );
            assert!((cam.forward() - dir.normalize()).length() < 1e-4, "{dir}");
        }
    }

    /// Cells the unhurried flow sees that the flow with `max_visits` 1 loses or sees narrower.
    fn narrowed_by_hurry(level: &crate::level::Level, views: &[CameraSpec]) -> Vec<String> {
        use crate::vis::{PortalFlow, VisibleSet};
        let (mut exact, mut hurried) = (PortalFlow::new(level), PortalFlow::new(level));
        exact.max_visits = 1000;
        hurried.max_visits = 1;
        let (mut seen, mut widened) = (VisibleSet::default(), VisibleSet::default());
        let mut bad = Vec::new();
        for v in views {
            let cam = crate::geom::Camera::new(*v, 16.0 / 9.0);
            let cell = level.locate(v.position);
            exact.run(level, &cam, cell, &mut seen);
            hurried.run(level, &cam, cell, &mut widened);
            for c in &seen.cells {
                let w = widened.cells.iter().find(|w| w.cell == c.cell);
                if w.is_none_or(|w| w.octagon.union(&c.octagon) != w.octagon) {
                    bad.push(format!("{:?}: cell {}", v.position, c.cell));
                }
            }
        }
        bad
    }

    /// Widening a cell to the whole screen after `max_visits` is conservative: with one visit
    /// per cell the flow sees every cell the unhurried flow sees, each at least as wide. Near
    /// portals, where a portal in the near zone passes its parent's octagon, a cell can grow
    /// to the whole screen by a union and must then be expanded once more.
    #[test]
    fn fewer_visits_before_widening_only_widen_the_view() {
        let maze = crate::scenes::synthetic::maze(&crate::scenes::synthetic::MazeSpec {
            extra_doors: 0.6,
            ..Default::default()
        });
        let views = near_portal_views(&maze, 600, 9).views;
        let bad = narrowed_by_hurry(&maze, &views);
        assert!(
            bad.is_empty(),
            "maze: {} {:?}",
            bad.len(),
            &bad[..bad.len().min(5)]
        );
        // dm5 compiled, at its committed doorway views: one of them lost a corner of the
        // screen to this (1,920 pixels in vis-check).
        let map = crate::realdata_dir().join("quake/maps/dm5.map");
        if !map.exists() {
            lanthorn_testdata::missing_realdata(&map);
            return;
        }
        let options = crate::compile::CompileOptions {
            light: false,
            ..Default::default()
        };
        let (level, _) = crate::compile::compile(&map, &options).unwrap();
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/views/dm5.map-portals.json");
        let views = crate::app::vis_check::views_in_cells(&file, &level).unwrap();
        let bad = narrowed_by_hurry(&level, &views);
        assert!(
            bad.is_empty(),
            "dm5: {} {:?}",
            bad.len(),
            &bad[..bad.len().min(5)]
        );
    }
}
