//! The paths `bench` flies without `--path`: a walk through the level's cells, or a circle
//! around the start where there is nowhere to walk.

use glam::Vec3;

use crate::geom::CameraSpec;
use crate::level::Level;

/// The camera path: a slow circle of 96 units around the start, turning a full circle with a
/// gentle pitch sway. Deterministic for a given start and frame count.
pub fn camera_path(start: CameraSpec, frames: u32) -> Vec<CameraSpec> {
    circle_path(start, frames, 96.0)
}

fn circle_path(start: CameraSpec, frames: u32, radius: f32) -> Vec<CameraSpec> {
    (0..frames)
        .map(|i| {
            let t = i as f32 / frames.max(1) as f32;
            let a = t * std::f32::consts::TAU;
            let offset = Vec3::new(a.cos() - 1.0, a.sin(), 0.0) * radius;
            CameraSpec {
                position: start.position + offset,
                yaw: start.yaw + t * 360.0,
                pitch: 10.0 * (a * 2.0).sin(),
            }
        })
        .collect()
}

/// A walk through the level for levels with cells: depth-first from the start's cell through
/// portals (bigger cells first), waypoints at portal centres and at a point inside each cell.
/// A cell is convex and the portal centres lie on its boundary, so every segment stays inside
/// open cells (a cell's box centre need not be in the cell: imported leaves are slanted); the
/// camera moves 8 units per frame and looks where it goes. Falls back to `camera_path` for
/// levels without cells or when the start is in solid.
pub fn level_path(level: &Level, start: CameraSpec, frames: u32) -> Vec<CameraSpec> {
    let Some(first) = level.locate(start.position) else {
        return camera_path(start, frames);
    };
    let speed = 8.0;
    let needed = frames as f32 * speed;
    let mut points = vec![start.position];
    let mut length = 0.0;
    let mut visited = vec![false; level.cells.len()];
    // Cells on the way down, with the points either side of the portal we entered through
    // (parent side, child side): backtracking goes back through it.
    let mut stack: Vec<(u32, Option<[Vec3; 2]>)> = vec![(first, None)];
    visited[first as usize] = true;
    let centre = |poly: &[Vec3]| poly.iter().copied().sum::<Vec3>() / poly.len().max(1) as f32;
    let push = |points: &mut Vec<Vec3>, p: Vec3, length: &mut f32| {
        *length += (p - *points.last().unwrap()).length();
        points.push(p);
    };
    while length < needed {
        let Some(&(cell, _)) = stack.last() else {
            break;
        };
        let c = &level.cells[cell as usize];
        let next = c
            .portals
            .iter()
            .map(|&p| {
                (
                    &level.portals[p as usize],
                    level.portals[p as usize].other(cell),
                )
            })
            .filter(|(_, o)| {
                !visited[*o as usize]
                    && level.cells[*o as usize].medium == crate::level::Medium::Air
                    && level.cells[*o as usize].flags & crate::level::cell_flags::OUTSIDE == 0
            })
            .max_by(|a, b| {
                let va = level.cells[a.1 as usize].aabb.size();
                let vb = level.cells[b.1 as usize].aabb.size();
                (va.x * va.y * va.z).total_cmp(&(vb.x * vb.y * vb.z))
            });
        match next {
            Some((portal, other)) => {
                visited[other as usize] = true;
                // Through the portal's centre, a unit either side of it (on the plane itself
                // a point may locate into the solid beside the portal).
                let (c, n) = (centre(&portal.polygon), portal.plane.normal);
                let into_cell = if portal.front == cell { n } else { -n };
                let crossing = [c + into_cell, c - into_cell];
                for p in crossing {
                    push(&mut points, p, &mut length);
                }
                push(&mut points, inside(level, other), &mut length);
                stack.push((other, Some(crossing)));
            }
            None => {
                let (_, crossing) = stack.pop().unwrap();
                if let (Some(&(back, _)), Some([parent_side, child_side])) =
                    (stack.last(), crossing)
                {
                    push(&mut points, child_side, &mut length);
                    push(&mut points, parent_side, &mut length);
                    push(&mut points, inside(level, back), &mut length);
                }
            }
        }
    }
    if points.len() < 2 || length < 1.0 {
        // Nowhere to walk (one cell): circle as wide as the start's cell allows, so every
        // frame is taken from inside it (a path into solid would bench empty frames).
        let cell = &level.cells[first as usize];
        return [96.0, 48.0, 24.0, 12.0, 0.0]
            .iter()
            .map(|&r| circle_path(start, frames, r))
            .find(|path| path.iter().all(|c| cell.contains(c.position, -8.0)))
            .unwrap_or_else(|| circle_path(start, frames, 0.0));
    }
    follow(&points, start.yaw, frames, speed)
}

/// `frames` cameras at constant `speed` along the polyline `points`; the view turns smoothly
/// (at most 6° a frame) from `yaw` toward the direction of travel.
fn follow(points: &[Vec3], mut yaw: f32, frames: u32, speed: f32) -> Vec<CameraSpec> {
    let mut out = Vec::with_capacity(frames as usize);
    let (mut seg, mut along) = (0usize, 0.0f32);
    for _ in 0..frames {
        let mut step = speed;
        while seg + 1 < points.len() {
            let len = (points[seg + 1] - points[seg]).length();
            if along + step <= len {
                along += step;
                break;
            }
            step -= len - along;
            along = 0.0;
            seg += 1;
        }
        let (a, b) = (points[seg], points[(seg + 1).min(points.len() - 1)]);
        let len = (b - a).length().max(1e-3);
        let p = a + (b - a) * (along / len).min(1.0);
        let d = b - a;
        if d.truncate().length() > 1.0 {
            let target = d.y.atan2(d.x).to_degrees();
            let delta = (target - yaw + 540.0).rem_euclid(360.0) - 180.0;
            yaw += delta.clamp(-6.0, 6.0);
        }
        out.push(CameraSpec {
            position: p,
            yaw,
            pitch: 0.0,
        });
    }
    out
}

/// A point inside `cell`: its box centre when that is in the cell with a unit to spare, else the
/// average of its portals' centres (on its boundary, so their average is inside a convex cell),
/// pulled toward the box centre as far as the cell allows.
fn inside(level: &Level, cell: u32) -> Vec3 {
    let c = &level.cells[cell as usize];
    let centre = c.aabb.center();
    if c.contains(centre, -1.0) {
        return centre;
    }
    let portals: Vec<Vec3> = c
        .portals
        .iter()
        .map(|&p| {
            let poly = &level.portals[p as usize].polygon;
            poly.iter().copied().sum::<Vec3>() / poly.len().max(1) as f32
        })
        .collect();
    let boundary = portals.iter().copied().sum::<Vec3>() / portals.len().max(1) as f32;
    [0.5, 0.25, 0.125, 0.0625]
        .iter()
        .map(|&t| boundary.lerp(centre, t))
        .find(|&p| c.contains(p, -1.0))
        .unwrap_or(boundary)
}
