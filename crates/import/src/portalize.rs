//! Portals between open leaves (and the planes bounding a leaf, `path_planes`), generated from
//! the node tree the way qbsp portalizes: a large polygon on each node's plane, clipped to the
//! node's region by its ancestors' planes, then pushed down both subtrees and split until every
//! piece lies between one leaf of the front subtree and one of the back subtree. Pieces with an
//! open leaf on both sides are portals.
//! All in f64. A portal's polygon lies on its node's plane, wound counter-clockwise seen from
//! the plane's front (positive) side, where its `front` cell is.

use glam::DVec3;

use lanthorn_geom::Plane;
use lanthorn_geom::{DPlane, DPolygon};
use lanthorn_level::{Bsp, BspChild, BspNode, Portal};

/// Distance within which a point counts as on a plane.
pub(crate) const ON_EPSILON: f64 = 1e-3;
/// Pieces with less area than this are dropped as numerical slivers.
pub(crate) const MIN_AREA: f64 = 1e-3;

/// Where a polygon lies relative to a plane, with the pieces when it spans it.
enum Cut {
    Front,
    Back,
    On,
    Both(DPolygon, DPolygon),
}

/// Classifies and, only when needed, splits (one pass over the distances, no allocation for
/// the common unsplit case).
fn cut(w: &DPolygon, pl: &DPlane) -> Cut {
    let (mut front, mut back) = (false, false);
    for &p in &w.points {
        let d = pl.distance(p);
        front |= d > ON_EPSILON;
        back |= d < -ON_EPSILON;
    }
    match (front, back) {
        (true, true) => {
            let (f, b) = w.split(pl, ON_EPSILON);
            Cut::Both(f, b)
        }
        (true, false) => Cut::Front,
        (false, true) => Cut::Back,
        (false, false) => Cut::On,
    }
}

/// Pushes `w` down from `child`; `dir` points into the subtree's region (decides where
/// pieces lying on a descendant's plane go). Returns (file leaf index, piece).
fn push_down(
    bsp: &Bsp,
    planes: &[DPlane],
    child: BspChild,
    w: DPolygon,
    dir: DVec3,
    out: &mut Vec<(u32, DPolygon)>,
) {
    let mut stack = vec![(child, w)];
    while let Some((c, w)) = stack.pop() {
        match c {
            BspChild::Leaf(l) => out.push((l, w)),
            BspChild::Node(n) => {
                let node = &bsp.nodes[n as usize];
                let pl = &planes[n as usize];
                match cut(&w, pl) {
                    Cut::Front => stack.push((node.children[0], w)),
                    Cut::Back => stack.push((node.children[1], w)),
                    Cut::On => {
                        let side = if pl.normal.dot(dir) > 0.0 { 0 } else { 1 };
                        stack.push((node.children[side], w));
                    }
                    Cut::Both(f, b) => {
                        if !f.is_empty() && f.area() > MIN_AREA {
                            stack.push((node.children[0], f));
                        }
                        if !b.is_empty() && b.area() > MIN_AREA {
                            stack.push((node.children[1], b));
                        }
                    }
                }
            }
        }
    }
}

/// Generates the portals of a validated tree. `leaf_cell` maps file leaves to cells (`None`
/// for solid), `parent` gives each node's parent and side. `half_size` bounds the world.
pub(crate) fn generate(
    bsp: &Bsp,
    leaf_cell: &[Option<u32>],
    parent: &[Option<(u32, u8)>],
    half_size: f64,
) -> Vec<Portal> {
    let planes: Vec<DPlane> = bsp.nodes.iter().map(|n| n.plane.to_f64()).collect();
    let cell = |l: u32| leaf_cell.get(l as usize).copied().flatten();
    let mut portals = Vec::new();
    let mut front_pieces = Vec::new();
    let mut back_pieces = Vec::new();
    for (n, node) in bsp.nodes.iter().enumerate() {
        let plane = planes[n];
        let mut w = DPolygon::base_winding(&plane, half_size);
        let mut at = parent[n];
        while let Some((p, side)) = at {
            match (cut(&w, &planes[p as usize]), side) {
                (Cut::Both(f, _), 0) | (Cut::Both(_, f), _) => w = f,
                (Cut::Back, 0) | (Cut::Front, 1) => w = DPolygon::default(),
                _ => {}
            }
            if w.is_empty() {
                break;
            }
            at = parent[p as usize];
        }
        if w.is_empty() || w.area() <= MIN_AREA {
            continue;
        }
        front_pieces.clear();
        push_down(
            bsp,
            &planes,
            node.children[0],
            w,
            plane.normal,
            &mut front_pieces,
        );
        for (fl, fw) in front_pieces.drain(..) {
            let Some(fc) = cell(fl) else { continue };
            back_pieces.clear();
            push_down(
                bsp,
                &planes,
                node.children[1],
                fw,
                -plane.normal,
                &mut back_pieces,
            );
            for (bl, bw) in back_pieces.drain(..) {
                let Some(bc) = cell(bl) else { continue };
                portals.push(Portal {
                    polygon: bw.points.iter().map(|p| p.as_vec3()).collect(),
                    plane: node.plane,
                    front: fc,
                    back: bc,
                    transform: None,
                    flags: 0,
                });
            }
        }
    }
    portals
}

/// The planes bounding a leaf whose parent is node `leaf_parent` (and side: 0 front, 1 back):
/// each node's plane on the path from the root, facing into the leaf, root first. `parent`
/// gives each node's parent and side.
pub(crate) fn path_planes(
    nodes: &[BspNode],
    parent: &[Option<(u32, u8)>],
    leaf_parent: (u32, u8),
) -> Vec<Plane> {
    let mut planes = Vec::new();
    let mut at = Some(leaf_parent);
    while let Some((n, side)) = at {
        let pl = nodes[n as usize].plane;
        planes.push(if side == 0 { pl } else { pl.flipped() });
        at = parent[n as usize];
    }
    planes.reverse();
    planes
}
