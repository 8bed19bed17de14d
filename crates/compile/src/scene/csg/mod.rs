//! Ordered (temporal) CSG, the Thief model of seed 000: space starts solid; each operation
//! writes a medium into a convex brush, optionally only where the current medium is one of a
//! given set. Brushes are intersected directly into a growing list of non-overlapping convex
//! regions (f64, snapped planes, a grid as spatial index); no BSP is used for the CSG.

mod merge;

use glam::DVec3;

use crate::grid::Grid;
use crate::polyhedron::{PlanePool, Poly};
use lanthorn_geom::{DPlane, DPolygon};
use lanthorn_level::Medium;

/// One operation: the convex brush (outward planes; inside where `n·p <= d` for all) and the
/// medium it writes.
#[derive(Clone, Debug)]
pub(super) struct Op {
    pub planes: Vec<DPlane>,
    pub medium: Medium,
    /// Only regions whose medium is in this set change; `None` = all.
    pub only: Option<Vec<Medium>>,
    /// Face style (`materials::FaceStyle`: material and texture) of the surfaces of what this
    /// operation writes.
    pub material: u32,
    /// Cuts the regions it meets even where they already hold its medium (a door's doorway).
    pub cut: bool,
}

impl Op {
    #[cfg(test)]
    pub(super) fn boxed(min: DVec3, max: DVec3, medium: Medium) -> Op {
        Op {
            planes: box_planes(min, max),
            medium,
            only: None,
            material: 0,
            cut: false,
        }
    }

    #[cfg(test)]
    pub(super) fn contains(&self, p: DVec3) -> bool {
        self.planes.iter().all(|pl| pl.distance(p) <= 0.0)
    }

    /// Whether this operation changes a region of medium `m`: a different medium, or the
    /// initial solid nobody wrote yet (a solid brush over it makes it built, with its material).
    fn applies_to(&self, m: Medium, written: bool) -> bool {
        (m != self.medium || !written || self.cut)
            && self.only.as_ref().is_none_or(|set| set.contains(&m))
    }
}

pub(super) fn box_planes(min: DVec3, max: DVec3) -> Vec<DPlane> {
    let mut v = Vec::with_capacity(6);
    for k in 0..3 {
        let mut n = DVec3::ZERO;
        n[k] = 1.0;
        v.push(DPlane::new(n, max[k]));
        v.push(DPlane::new(-n, -min[k]));
    }
    v
}

/// A convex region of one medium.
#[derive(Clone, Debug)]
pub(super) struct Region {
    pub poly: Poly,
    pub medium: Medium,
    /// Face style of the operation that last wrote it (the initial solid: style 0).
    pub material: u32,
    /// Some operation wrote this space. `false` only for the initial solid: the space nothing
    /// was built in, which an outdoor cell is open to (terrain and sky) instead of walled by.
    pub written: bool,
}

/// The result of the CSG: non-overlapping convex regions filling the world box.
pub(super) struct Regions {
    pub pool: PlanePool,
    pub regions: Vec<Region>,
    pub min: DVec3,
    pub max: DVec3,
}

/// Applies the operations in order to a world that starts solid inside the box `min..max`.
pub(super) fn apply(ops: &[Op], min: DVec3, max: DVec3) -> Regions {
    let mut pool = PlanePool::default();
    let world = Poly::from_box(&mut pool, min, max);
    let mut slots: Vec<Option<Region>> = vec![Some(Region {
        poly: world,
        medium: Medium::Solid,
        material: 0,
        written: false,
    })];
    let mut grid = Grid::new(256.0);
    grid.insert(0, min, max);
    let mut cands = Vec::new();
    for op in ops {
        let plane_ids: Vec<u32> = op.planes.iter().map(|p| pool.id(*p)).collect();
        let Some(brush) = Poly::from_planes(&mut pool, &op.planes) else {
            continue;
        };
        grid.query(brush.min, brush.max, &mut cands);
        let first_new = slots.len();
        for &ri in &cands {
            let Some(r) = &slots[ri as usize] else {
                continue;
            };
            if !op.applies_to(r.medium, r.written)
                || (0..3).any(|k| r.poly.min[k] >= brush.max[k] || r.poly.max[k] <= brush.min[k])
            {
                continue;
            }
            // Cut the region by each brush plane: the outside parts keep their medium.
            let mut inside = r.poly.clone();
            let mut outside = Vec::new();
            let mut empty = false;
            for &pid in &plane_ids {
                let (front, back) = inside.split(&pool, pid);
                if let Some(f) = front {
                    outside.push(f);
                }
                match back {
                    Some(b) => inside = b,
                    None => {
                        empty = true;
                        break;
                    }
                }
            }
            if empty {
                continue;
            }
            let old = slots[ri as usize].take().unwrap();
            grid.remove(ri);
            for poly in outside {
                let id = slots.len() as u32;
                grid.insert(id, poly.min, poly.max);
                slots.push(Some(Region {
                    poly,
                    medium: old.medium,
                    material: old.material,
                    written: old.written,
                }));
            }
            let id = slots.len() as u32;
            grid.insert(id, inside.min, inside.max);
            slots.push(Some(Region {
                poly: inside,
                medium: op.medium,
                material: op.material,
                written: true,
            }));
        }
        let made = (first_new..slots.len()).collect();
        self::merge::merge_from(&mut pool, &mut slots, &mut grid, made);
    }
    Regions {
        pool,
        regions: slots.into_iter().flatten().collect(),
        min,
        max,
    }
}

/// Where two regions touch: the shared polygon, on plane `plane` (outward from `a`).
#[derive(Clone, Debug)]
pub(super) struct Contact {
    pub a: usize,
    pub b: usize,
    pub plane: u32,
    pub winding: DPolygon,
}

/// Every face-to-face contact between regions (brute force over grid candidates).
pub(super) fn contacts(r: &Regions) -> Vec<Contact> {
    let mut grid = Grid::new(256.0);
    for (i, g) in r.regions.iter().enumerate() {
        grid.insert(i as u32, g.poly.min - DVec3::ONE, g.poly.max + DVec3::ONE);
    }
    let mut out = Vec::new();
    let mut cands = Vec::new();
    for (a, ra) in r.regions.iter().enumerate() {
        grid.query(
            ra.poly.min - DVec3::ONE,
            ra.poly.max + DVec3::ONE,
            &mut cands,
        );
        for &b in &cands {
            let b = b as usize;
            if b <= a {
                continue;
            }
            let rb = &r.regions[b];
            if (0..3).any(|k| {
                rb.poly.min[k] > ra.poly.max[k] + 0.01 || rb.poly.max[k] < ra.poly.min[k] - 0.01
            }) {
                continue;
            }
            for fa in &ra.poly.faces {
                for fb in &rb.poly.faces {
                    if fb.plane != fa.plane ^ 1 {
                        continue;
                    }
                    let w = fa
                        .winding
                        .intersect_coplanar(&fb.winding, r.pool.get(fa.plane).normal);
                    if !w.is_empty() && w.area() > 1e-3 {
                        out.push(Contact {
                            a,
                            b,
                            plane: fa.plane,
                            winding: w,
                        });
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
use self::merge::merge_regions;

#[cfg(test)]
/// The medium at `p` by applying the operations in order to one point (the oracle).
pub(super) fn medium_at(ops: &[Op], p: DVec3) -> Medium {
    written_at(ops, p).0
}

#[cfg(test)]
/// The medium at `p` and whether any operation wrote it (the oracle for `Region::written`).
pub(super) fn written_at(ops: &[Op], p: DVec3) -> (Medium, bool) {
    let (mut m, mut written) = (Medium::Solid, false);
    for op in ops {
        if op.contains(p) && op.only.as_ref().is_none_or(|s| s.contains(&m)) {
            m = op.medium;
            written = true;
        }
    }
    (m, written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    pub(crate) fn poly_volume(p: &Poly, pool: &PlanePool) -> f64 {
        let n: usize = p.faces.iter().map(|f| f.winding.points.len()).sum();
        let c = p
            .faces
            .iter()
            .flat_map(|f| f.winding.points.iter())
            .copied()
            .sum::<DVec3>()
            / n as f64;
        p.faces
            .iter()
            .map(|f| -pool.get(f.plane).distance(c) * f.winding.area() / 3.0)
            .sum()
    }

    fn inside_strictly(p: &Poly, pool: &PlanePool, q: DVec3, eps: f64) -> bool {
        p.faces.iter().all(|f| pool.get(f.plane).distance(q) < -eps)
    }

    fn medium_strategy() -> impl Strategy<Value = Medium> {
        prop_oneof![
            Just(Medium::Solid),
            Just(Medium::Air),
            Just(Medium::Water),
            Just(Medium::Lava)
        ]
    }

    /// Random ops: boxes on a coarse grid, some cut by a slanted plane, some conditional.
    fn op_strategy() -> impl Strategy<Value = Op> {
        (
            prop::array::uniform3(0i32..8),
            prop::array::uniform3(1i32..5),
            medium_strategy(),
            prop::option::of(prop::collection::vec(medium_strategy(), 1..3)),
            prop::option::of((prop::array::uniform3(-3i32..4), -100i32..100)),
        )
            .prop_map(|(lo, size, medium, only, slant)| {
                let min = DVec3::new(lo[0] as f64, lo[1] as f64, lo[2] as f64) * 32.0;
                let max = min + DVec3::new(size[0] as f64, size[1] as f64, size[2] as f64) * 32.0;
                let mut planes = box_planes(min, max);
                if let Some((n, d)) = slant {
                    let n = DVec3::new(n[0] as f64, n[1] as f64, n[2] as f64);
                    if n.length() > 0.5 {
                        let n = n.normalize();
                        planes.push(DPlane::new(n, n.dot((min + max) * 0.5) + d as f64 * 0.3));
                    }
                }
                Op {
                    planes,
                    medium,
                    only,
                    material: 0,
                    cut: false,
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

        #[test]
        fn regions_match_applying_ops_in_order(ops in prop::collection::vec(op_strategy(), 1..10), seed in 0u64..1000) {
            let (min, max) = (DVec3::splat(-32.0), DVec3::splat(13.0 * 32.0));
          for merge in [false, true] {
            let mut r = apply(&ops, min, max);
            if merge {
                // The CSG merges after every operation: a whole pass afterwards finds nothing.
                let before = r.regions.len();
                merge_regions(&mut r);
                prop_assert_eq!(r.regions.len(), before);
            }
            // Volumes add up to the world box.
            let total: f64 = r.regions.iter().map(|g| poly_volume(&g.poly, &r.pool)).sum();
            let world = (max - min).x * (max - min).y * (max - min).z;
            prop_assert!((total - world).abs() < 1e-6 * world, "volume {} vs {}", total, world);
            // At random points: exactly one region holds the point (no overlap, no gap away
            // from boundaries), and its medium is the ops applied in order.
            let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let mut rnd = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (s >> 11) as f64 / (1u64 << 53) as f64 };
            for _ in 0..200 {
                let p = min + (max - min) * DVec3::new(rnd(), rnd(), rnd());
                let holders: Vec<&Region> = r.regions.iter().filter(|g| inside_strictly(&g.poly, &r.pool, p, 1e-7)).collect();
                let near_boundary = r.regions.iter().any(|g| {
                    g.poly.faces.iter().any(|f| r.pool.get(f.plane).distance(p).abs() < 1e-4)
                }) || ops.iter().any(|o| o.planes.iter().any(|pl| pl.distance(p).abs() < 1e-4));
                if near_boundary {
                    continue;
                }
                prop_assert_eq!(holders.len(), 1, "point {} in {} regions", p, holders.len());
                prop_assert_eq!((holders[0].medium, holders[0].written), written_at(&ops, p), "at {}", p);
            }
            // Contacts lie on both regions' boundaries with the regions on opposite sides.
            for c in contacts(&r) {
                let centre = c.winding.centroid();
                let pl = r.pool.get(c.plane);
                let (a, b) = (&r.regions[c.a].poly, &r.regions[c.b].poly);
                prop_assert!(pl.distance(centre).abs() < 1e-6);
                let on_closure = |g: &Poly| g.faces.iter().all(|f| r.pool.get(f.plane).distance(centre) <= 1e-5);
                prop_assert!(on_closure(a) && on_closure(b), "contact centre {} off its regions", centre);
                let mid = |g: &Poly| {
                    let n: usize = g.faces.iter().map(|f| f.winding.points.len()).sum();
                    g.faces.iter().flat_map(|f| f.winding.points.iter()).copied().sum::<DVec3>() / n as f64
                };
                prop_assert!(pl.distance(mid(a)) < 0.0 && pl.distance(mid(b)) > 0.0);
            }
          }
        }
    }

    #[test]
    fn conditional_op_changes_only_its_media() {
        let ops = vec![
            Op::boxed(DVec3::ZERO, DVec3::splat(100.0), Medium::Air),
            Op {
                only: Some(vec![Medium::Air]),
                ..Op::boxed(
                    DVec3::new(50.0, -50.0, -50.0),
                    DVec3::splat(150.0),
                    Medium::Water,
                )
            },
        ];
        let r = apply(&ops, DVec3::splat(-100.0), DVec3::splat(200.0));
        let vol = |m: Medium| -> f64 {
            r.regions
                .iter()
                .filter(|g| g.medium == m)
                .map(|g| poly_volume(&g.poly, &r.pool))
                .sum()
        };
        assert!((vol(Medium::Water) - 50.0 * 100.0 * 100.0).abs() < 1e-6);
        assert!((vol(Medium::Air) - 50.0 * 100.0 * 100.0).abs() < 1e-6);
        assert_eq!(
            medium_at(&ops, DVec3::new(120.0, 50.0, 50.0)),
            Medium::Solid
        );
    }
}
