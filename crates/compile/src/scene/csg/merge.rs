//! Merging the CSG's regions into fewer, larger ones: two regions of the same medium,
//! material and origin (written or the initial solid) that share a whole face, and whose
//! union is convex, become one. Open regions become fewer cells; solid ones fewer, larger
//! walls (each contact between an open and a solid region is a surface). A
//! worklist visits each region once when it is made, looking only at its neighbours in a grid,
//! so the work grows with the number of regions, not with its square (the pass-by-pass merge
//! it replaces recomputed every contact of the level after each round).

use glam::DVec3;

use super::Region;
#[cfg(test)]
use super::Regions;
use crate::grid::Grid;
use crate::polyhedron::{PlanePool, Poly};
use lanthorn_geom::DPlane;

/// Merges until no two regions can be merged (the CSG's own merging leaves nothing for it: a
/// test checks that).
#[cfg(test)]
pub(super) fn merge_regions(r: &mut Regions) {
    let mut slots: Vec<Option<Region>> = r.regions.drain(..).map(Some).collect();
    let mut grid = Grid::new(256.0);
    for (i, g) in slots.iter().enumerate() {
        let g = g.as_ref().expect("every slot starts full");
        grid.insert(i as u32, g.poly.min, g.poly.max);
    }
    let all = (0..slots.len()).collect();
    merge_from(&mut r.pool, &mut slots, &mut grid, all);
    r.regions = slots.into_iter().flatten().collect();
}

/// Merges the regions of `work` (slot indices) with their neighbours, and what that makes
/// with theirs, until none of them merges any more. `grid` holds every live slot's box.
/// The CSG calls it after each operation with the regions the operation made, so the count
/// stays near what the geometry needs instead of growing with every cut.
pub(super) fn merge_from(
    pool: &mut PlanePool,
    slots: &mut Vec<Option<Region>>,
    grid: &mut Grid,
    mut work: Vec<usize>,
) {
    work.reverse();
    let mut cands = Vec::new();
    while let Some(a) = work.pop() {
        let Some(ra) = slots[a].as_ref() else {
            continue;
        };
        grid.query(
            ra.poly.min - DVec3::ONE,
            ra.poly.max + DVec3::ONE,
            &mut cands,
        );
        let merged = cands.iter().map(|&b| b as usize).find_map(|b| {
            let rb = slots[b].as_ref().filter(|_| b != a)?;
            merge_pair(pool, ra, rb).map(|poly| (b, poly))
        });
        if let Some((b, poly)) = merged {
            let (medium, material, written) = (ra.medium, ra.material, ra.written);
            for i in [a, b] {
                slots[i] = None;
                grid.remove(i as u32);
            }
            let id = slots.len();
            grid.insert(id as u32, poly.min, poly.max);
            slots.push(Some(Region {
                poly,
                medium,
                material,
                written,
            }));
            work.push(id);
        }
    }
}

/// The union of `a` and `b` when they have the same open medium and material, share a whole
/// face and their union is convex (every vertex of each lies inside the other's remaining
/// planes).
fn merge_pair(pool: &mut PlanePool, a: &Region, b: &Region) -> Option<Poly> {
    if a.medium != b.medium || a.material != b.material || a.written != b.written {
        return None;
    }
    if (0..3).any(|k| b.poly.min[k] > a.poly.max[k] + 0.01 || b.poly.max[k] < a.poly.min[k] - 0.01)
    {
        return None;
    }
    let plane = shared_face(pool, &a.poly, &b.poly)?;
    let inside = |poly: &Poly, other: &Poly, skip: u32| {
        other
            .faces
            .iter()
            .flat_map(|f| f.winding.points.iter())
            .all(|&p| {
                poly.faces
                    .iter()
                    .filter(|f| f.plane != skip)
                    .all(|f| pool.get(f.plane).distance(p) <= 1e-6)
            })
    };
    if !inside(&a.poly, &b.poly, plane) || !inside(&b.poly, &a.poly, plane ^ 1) {
        return None;
    }
    let mut planes: Vec<u32> = a
        .poly
        .faces
        .iter()
        .chain(b.poly.faces.iter())
        .map(|f| f.plane)
        .filter(|&p| p != plane && p != plane ^ 1)
        .collect();
    planes.sort_unstable();
    planes.dedup();
    let dplanes: Vec<DPlane> = planes.iter().map(|&p| *pool.get(p)).collect();
    Poly::from_planes(pool, &dplanes)
}

/// The plane (outward from `a`) of a face of `a` that is the whole of a face of `b`.
fn shared_face(pool: &PlanePool, a: &Poly, b: &Poly) -> Option<u32> {
    for fa in &a.faces {
        let Some(fb) = b.faces.iter().find(|f| f.plane == fa.plane ^ 1) else {
            continue;
        };
        let (area_a, area_b) = (fa.winding.area(), fb.winding.area());
        let tol = 1e-6 * area_a.max(1.0);
        if (area_a - area_b).abs() > tol {
            continue;
        }
        let w = fa
            .winding
            .intersect_coplanar(&fb.winding, pool.get(fa.plane).normal);
        if (w.area() - area_a).abs() <= tol {
            return Some(fa.plane);
        }
    }
    None
}
