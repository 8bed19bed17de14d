//! Eye cell tracking, incremental as in Thief: from last frame's cell, walk through the portals
//! the movement crossed; BSP point location when lost.

use glam::Vec3;

use lanthorn_level::Level;

/// Containment slack in units: points on a shared face belong to both cells.
const EPS: f32 = 0.01;

/// Moves longer than this (units) are located from the BSP instead of walked.
const MAX_WALK: f32 = 256.0;

/// The cell the eye is in, found by walking from last frame's cell through the portals it
/// crossed, and by BSP point location when the walk is long or fails.
#[derive(Clone, Debug, Default)]
pub struct EyeTracker {
    cell: Option<u32>,
    position: Option<Vec3>,
    /// The level's `OUTSIDE` cell (looked up once): where an eye in no cell is.
    outside: Option<Option<u32>>,
    /// How many updates fell back to BSP location (statistics).
    pub relocations: u64,
}

impl EyeTracker {
    /// An eye not yet located.
    pub fn new() -> Self {
        Self::default()
    }

    /// The eye's cell (`None`: in solid, or not yet located).
    pub fn cell(&self) -> Option<u32> {
        self.cell
    }

    /// The cell holding `p`: `None` in solid, or the level's `OUTSIDE` cell where it has one.
    pub fn update(&mut self, level: &Level, p: Vec3) -> Option<u32> {
        let outside = *self.outside.get_or_insert_with(|| level.outside_cell());
        if outside.is_some() && self.cell == outside {
            // OUTSIDE holds every point of the level's box: leave it as soon as a cell has p.
            self.position = Some(p);
            self.cell = level.locate(p).or(outside);
            return self.cell;
        }
        let from = self.position.replace(p);
        if let (Some(c), Some(from)) = (self.cell, from) {
            if let Some(cell) = level.cells.get(c as usize) {
                if cell.contains(p, EPS) {
                    return self.cell;
                }
                // Walk only short moves; a jump (teleport, new view) is cheaper to locate.
                let next = if (p - from).length_squared() < MAX_WALK * MAX_WALK {
                    walk(level, c, from, p)
                } else {
                    None
                };
                if let Some(next) = next {
                    self.cell = Some(next);
                    return self.cell;
                }
            }
        }
        self.relocations += 1;
        self.cell = level.locate(p).or(outside);
        self.cell
    }
}

/// Follows the segment `from → to` through the portals it crosses, cell by cell.
fn walk(level: &Level, start: u32, from: Vec3, to: Vec3) -> Option<u32> {
    let mut cell = start;
    let mut prev = u32::MAX;
    for _ in 0..64 {
        let c = &level.cells[cell as usize];
        if c.contains(to, EPS) {
            return Some(cell);
        }
        // The portal the segment leaves through: crosses its plane inside the polygon.
        let mut next = None;
        for &pid in &c.portals {
            let p = &level.portals[pid as usize];
            let other = p.other(cell);
            if other == prev {
                continue;
            }
            let (da, db) = (p.plane.distance(from), p.plane.distance(to));
            if (da >= 0.0) == (db >= 0.0) || da == db {
                continue;
            }
            let hit = from + (to - from) * (da / (da - db));
            if point_in_convex_polygon(&p.polygon, p.plane.normal, hit, 0.5) {
                next = Some(other);
                break;
            }
        }
        prev = cell;
        cell = next?;
    }
    None
}

fn point_in_convex_polygon(poly: &[Vec3], normal: Vec3, p: Vec3, slack: f32) -> bool {
    let n = poly.len();
    if n < 3 {
        return false;
    }
    // Winding-independent: all edge tests must share a sign.
    let mut sign = 0.0f32;
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        let edge = b - a;
        let len = edge.length().max(1e-6);
        let s = normal.dot(edge.cross(p - a)) / len;
        if s.abs() <= slack {
            continue;
        }
        if sign == 0.0 {
            sign = s.signum();
        } else if s.signum() != sign {
            return false;
        }
    }
    true
}
