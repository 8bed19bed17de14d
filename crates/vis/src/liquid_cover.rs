//! Portals a liquid covers. Lanthorn draws liquids opaque, as Quake does at `r_wateralpha 1`
//! (and id's `vis` treats them), so where the liquid surfaces a cell lists cover one of its
//! portals from that side, nothing beyond the portal shows through it: the flow stops there
//! (`PortalOutcome::Covered`) and the cells under a pool are not drawn from the air above it.
//! The vis-check truth draws such liquids as occluders (`liquids_hide`).

use glam::DVec3;
use lanthorn_geom::{DPlane, DPolygon};
use lanthorn_level::{portal_flags, surface_flags, Level, Portal, Surface};

/// A gap between the liquid surfaces and a portal's edge narrower than this (world units)
/// counts as covered: the two come from the same planes, rounded apart by float precision.
const EDGE_SLACK: f64 = 0.01;
/// A liquid surface's corners within this of the portal's plane lie on it.
const PLANE_SLACK: f64 = 0.05;
/// A portal still uncovered after this many pieces is taken as uncovered.
const MAX_PIECES: usize = 256;

/// Whether `level`'s liquids hide what is under them: none of its surfaces is a glow, which
/// the renderer draws with the liquids and adds over what lies behind it.
pub fn liquids_hide(level: &Level) -> bool {
    !level
        .surfaces
        .iter()
        .any(|s| s.flags & surface_flags::GLOW != 0)
}

/// For each portal, whether the liquid surfaces of [its front cell, its back cell], each
/// facing into its own cell, cover it. All false where the level's liquids do not hide
/// (`liquids_hide`).
pub fn covered_sides(level: &Level) -> Vec<[bool; 2]> {
    let mut covered = vec![[false; 2]; level.portals.len()];
    if !liquids_hide(level) {
        return covered;
    }
    for (p, sides) in level.portals.iter().zip(&mut covered) {
        if p.flags & portal_flags::LIQUID_SURFACE == 0 || p.transform.is_some() {
            continue;
        }
        for (side, cell) in [p.front, p.back].into_iter().enumerate() {
            sides[side] = covered_from(level, p, cell, side == 0);
        }
    }
    covered
}

/// Whether the liquid surfaces `cell` lists, facing into it, cover portal `p` (`front`: the
/// cell is on the portal plane's front).
fn covered_from(level: &Level, p: &Portal, cell: u32, front: bool) -> bool {
    let Some(c) = level.cells.get(cell as usize) else {
        return false;
    };
    let plane = match front {
        true => p.plane.to_f64(),
        false => p.plane.flipped().to_f64(),
    };
    let lies_on = |s: &Surface| {
        s.flags & surface_flags::LIQUID != 0
            && s.flags & surface_flags::GLOW == 0
            && s.normal.as_dvec3().dot(plane.normal) > 0.999
            && s.vertices
                .iter()
                .all(|v| plane.distance(v.position.as_dvec3()).abs() <= PLANE_SLACK)
    };
    let liquids = c
        .surfaces
        .iter()
        .filter_map(|&s| level.surfaces.get(s as usize))
        .filter(|s| lies_on(s));
    let mut uncovered = vec![DPolygon::new(
        p.polygon.iter().map(|v| v.as_dvec3()).collect(),
    )];
    for s in liquids {
        for t in s.indices.chunks_exact(3) {
            let corner = |i: u32| s.vertices.get(i as usize).map(|v| v.position.as_dvec3());
            let (Some(a), Some(b), Some(c)) = (corner(t[0]), corner(t[1]), corner(t[2])) else {
                return false;
            };
            uncovered = outside_triangle(&uncovered, [a, b, c], plane.normal);
            if uncovered.is_empty() {
                return true;
            }
            if uncovered.len() > MAX_PIECES {
                return false;
            }
        }
    }
    uncovered.is_empty()
}

/// The parts of `pieces` (convex, on one plane of normal `normal`) outside the triangle
/// `corners` grown by `EDGE_SLACK`, as convex pieces; slivers with no area are dropped.
fn outside_triangle(pieces: &[DPolygon], corners: [DVec3; 3], normal: DVec3) -> Vec<DPolygon> {
    let centre = (corners[0] + corners[1] + corners[2]) / 3.0;
    let mut edges = Vec::with_capacity(3);
    for i in 0..3 {
        let (a, b) = (corners[i], corners[(i + 1) % 3]);
        let out = (b - a).cross(normal);
        if out.length() < 1e-9 {
            return pieces.to_vec(); // a degenerate triangle covers nothing
        }
        let mut edge = DPlane::new(out.normalize(), out.normalize().dot(a));
        if edge.distance(centre) > 0.0 {
            edge = DPlane::new(-edge.normal, -edge.dist);
        }
        edges.push(DPlane::new(edge.normal, edge.dist + EDGE_SLACK));
    }
    let mut left = Vec::new();
    for piece in pieces {
        let mut inside = piece.clone();
        for edge in &edges {
            let (outside, rest) = inside.split(edge, 0.0);
            if outside.area() > 1e-9 {
                left.push(outside);
            }
            inside = rest;
            if inside.is_empty() {
                break;
            }
        }
    }
    left
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};
    use lanthorn_geom::Plane;
    use lanthorn_level::{Cell, Medium, Vertex};

    /// A pool of water under air: one portal on z = 0, square `portal` wide; the air cell
    /// lists a water surface of the squares `tiles` (x0, y0, x1, y1), facing up.
    fn pool(portal: f32, tiles: &[[f32; 4]], glow: bool) -> Level {
        let mut level = Level::default();
        let cell = |medium| Cell {
            medium,
            ..Default::default()
        };
        level.cells = vec![cell(Medium::Air), cell(Medium::Water)];
        for (i, t) in tiles.iter().enumerate() {
            let v = |x, y| Vertex {
                position: Vec3::new(x, y, 0.0),
                uv: Vec2::ZERO,
                lightmap_uv: Vec2::ZERO,
            };
            level.surfaces.push(Surface {
                vertices: vec![v(t[0], t[1]), v(t[2], t[1]), v(t[2], t[3]), v(t[0], t[3])],
                indices: vec![0, 1, 2, 0, 2, 3],
                normal: Vec3::Z,
                flags: surface_flags::LIQUID | (glow as u32 * surface_flags::GLOW),
                ..Default::default()
            });
            level.cells[0].surfaces.push(i as u32);
        }
        let s = portal;
        level.portals.push(Portal {
            polygon: vec![
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(s, 0.0, 0.0),
                Vec3::new(s, s, 0.0),
                Vec3::new(0.0, s, 0.0),
            ],
            plane: Plane::new(Vec3::Z, 0.0),
            front: 0,
            back: 1,
            transform: None,
            flags: portal_flags::LIQUID_SURFACE,
        });
        level
    }

    #[test]
    fn tiles_that_cover_the_portal_cover_it_from_their_side_only() {
        // Four tiles meeting at the middle, one a float's rounding short of the edge.
        let tiles = [
            [0.0, 0.0, 32.0, 32.0],
            [32.0, 0.0, 64.0, 32.0],
            [0.0, 32.0, 32.0, 64.0],
            [32.0, 32.0, 63.999, 64.0],
        ];
        assert_eq!(
            covered_sides(&pool(64.0, &tiles, false)),
            vec![[true, false]]
        );
    }

    #[test]
    fn a_gap_or_a_glow_leaves_the_portal_open() {
        let gap = [[0.0, 0.0, 32.0, 64.0], [32.5, 0.0, 64.0, 64.0]];
        assert_eq!(covered_sides(&pool(64.0, &gap, false)), vec![[false; 2]]);
        let short = [[0.0, 0.0, 64.0, 63.0]];
        assert_eq!(covered_sides(&pool(64.0, &short, false)), vec![[false; 2]]);
        let whole = [[-8.0, -8.0, 72.0, 72.0]];
        assert_eq!(
            covered_sides(&pool(64.0, &whole, false)),
            vec![[true, false]]
        );
        assert_eq!(covered_sides(&pool(64.0, &whole, true)), vec![[false; 2]]);
    }
}
