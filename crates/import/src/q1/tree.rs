//! Model 0's node tree: validation (every index, no cycles or shared subtrees), cells for the
//! open leaves (bounded by the node planes on the path from the root) and `Level::bsp`.

use glam::Vec3;

use lanthorn_geom::{Aabb, Plane};
use lanthorn_level::{Bsp, BspChild, BspLeaf, BspNode, Cell, Medium};

use super::lumps::{Lumps, RawLeaf};
use super::Q1Error;

/// Deeper trees are rejected (the id maps stay far below this).
pub(super) const MAX_DEPTH: usize = 1024;

#[cfg(test)]
pub(super) const CONTENTS_SOLID: i32 = -2;
const CONTENTS_SKY: i32 = -6;

/// The medium of a leaf's contents; `None` for solid. Sky counts as air, qbsp's current
/// contents (-9..=-14) as water.
pub(super) fn medium_of(contents: i32) -> Option<Option<Medium>> {
    Some(match contents {
        -1 | -6 => Some(Medium::Air),
        -2 => None,
        -3 | -14..=-9 => Some(Medium::Water),
        -4 => Some(Medium::Slime),
        -5 => Some(Medium::Lava),
        _ => return None,
    })
}

/// The validated tree of model 0, with nodes renumbered in depth-first pre-order.
pub(super) struct Tree {
    pub bsp: Bsp,
    pub cells: Vec<Cell>,
    /// File leaf index → cell id.
    pub leaf_cell: Vec<Option<u32>>,
    /// Cell id → file leaf index.
    pub cell_leaf: Vec<u32>,
    /// Per BSP node: its parent node and which child (0 front, 1 back) it is.
    pub parent: Vec<Option<(u32, u8)>>,
}

pub(super) fn build(l: &Lumps, file: &str) -> Result<Tree, Q1Error> {
    let head = l.models.first().map(|m| m.head_node).unwrap_or(-1);
    if head < 0 || head as usize >= l.nodes.len() {
        return Err(Q1Error::corrupt(
            file,
            "models",
            format!(
                "model 0 head node {head} is not one of the {} nodes",
                l.nodes.len()
            ),
        ));
    }
    let walk = walk_nodes(l, file, head as usize)?;
    let (nodes, parent) = (walk.nodes, walk.parent);
    let (cells, leaf_cell, cell_leaf) = open_leaf_cells(l, &nodes, &parent, &walk.leaf_parent);
    let leaves = leaf_cell
        .iter()
        .map(|c| BspLeaf {
            cells: c.iter().copied().collect(),
        })
        .collect();
    Ok(Tree {
        bsp: Bsp {
            nodes,
            leaves,
            root: Some(BspChild::Node(0)),
        },
        cells,
        leaf_cell,
        cell_leaf,
        parent,
    })
}

/// Model 0's nodes renumbered in depth-first pre-order, each node's parent, and each open
/// leaf's parent node (and side).
struct NodeWalk {
    nodes: Vec<BspNode>,
    parent: Vec<Option<(u32, u8)>>,
    leaf_parent: Vec<Option<(u32, u8)>>,
}

/// Walks depth-first from `head`; each file node may be reached once, children must have a
/// larger index than their parent (qbsp writes nodes in pre-order), which rules out cycles. A
/// node is claimed when its parent first names it; a second claim is a shared subtree.
fn walk_nodes(l: &Lumps, file: &str, head: usize) -> Result<NodeWalk, Q1Error> {
    let bad = |what: String| Q1Error::corrupt(file, "nodes", what);
    let mut claimed = vec![false; l.nodes.len()];
    claimed[head] = true;
    let mut walk = NodeWalk {
        nodes: Vec::new(),
        parent: Vec::new(),
        leaf_parent: vec![None; l.leafs.len()],
    };
    let mut stack: Vec<(usize, Option<(u32, u8)>, usize)> = vec![(head, None, 0)];
    while let Some((fi, par, d)) = stack.pop() {
        if d > MAX_DEPTH {
            return Err(bad(format!(
                "the tree is deeper than {MAX_DEPTH} levels at node {fi}"
            )));
        }
        let n = &l.nodes[fi];
        let Some(p) = l.planes.get(n.plane as usize) else {
            return Err(bad(format!(
                "node {fi}: plane {} is not one of the {} planes",
                n.plane,
                l.planes.len()
            )));
        };
        let bi = walk.nodes.len() as u32;
        if let Some((pn, side)) = par {
            if let BspChild::Node(_) = walk.nodes[pn as usize].children[side as usize] {
                walk.nodes[pn as usize].children[side as usize] = BspChild::Node(bi);
            }
        }
        let mins = Vec3::new(n.mins[0] as f32, n.mins[1] as f32, n.mins[2] as f32);
        let maxs = Vec3::new(n.maxs[0] as f32, n.maxs[1] as f32, n.maxs[2] as f32);
        let mut children = [BspChild::Leaf(0); 2];
        // Push the back child first so the front subtree is numbered first.
        for side in [1usize, 0] {
            let c = n.children[side];
            if c >= 0 {
                let c = c as usize;
                if c <= fi || c >= l.nodes.len() || claimed[c] {
                    return Err(Q1Error::NodeCycle {
                        file: file.into(),
                        node: fi as u32,
                        child: c as u32,
                    });
                }
                claimed[c] = true;
                children[side] = BspChild::Node(u32::MAX); // patched when the child is numbered
                stack.push((c, Some((bi, side as u8)), d + 1));
            } else {
                let leaf = (-(c as i32 + 1)) as usize;
                leaf_child(l, file, (fi, leaf), (bi, side as u8), &mut walk.leaf_parent)?;
                children[side] = BspChild::Leaf(leaf as u32);
            }
        }
        walk.nodes.push(BspNode {
            plane: Plane::new(Vec3::from(p.normal), p.dist),
            children,
            aabb: Aabb::new(mins.min(maxs), mins.max(maxs)),
        });
        walk.parent.push(par);
    }
    Ok(walk)
}

/// Checks leaf `leaf`, a child of file node `fi` (renumbered `parent`), and records the parent
/// of an open leaf: an open leaf has one parent and is never leaf 0.
fn leaf_child(
    l: &Lumps,
    file: &str,
    (fi, leaf): (usize, usize),
    parent: (u32, u8),
    leaf_parent: &mut [Option<(u32, u8)>],
) -> Result<(), Q1Error> {
    let bad = |what: String| Q1Error::corrupt(file, "nodes", what);
    let Some(lf) = l.leafs.get(leaf) else {
        return Err(bad(format!(
            "node {fi}: child leaf {leaf} is not one of the {} leaves",
            l.leafs.len()
        )));
    };
    let open = medium_of(lf.contents)
        .ok_or_else(|| {
            Q1Error::corrupt(
                file,
                "leafs",
                format!("leaf {leaf}: unknown contents {}", lf.contents),
            )
        })?
        .is_some();
    if open {
        if leaf_parent[leaf].is_some() || leaf == 0 {
            return Err(bad(format!(
                "node {fi}: open leaf {leaf} is a child of two nodes (or is leaf 0)"
            )));
        }
        leaf_parent[leaf] = Some(parent);
    }
    Ok(())
}

/// Cells for the open leaves of model 0, in leaf order (each bounded by the planes on its path
/// from the root), with the leaf → cell and cell → leaf maps.
fn open_leaf_cells(
    l: &Lumps,
    nodes: &[BspNode],
    parent: &[Option<(u32, u8)>],
    leaf_parent: &[Option<(u32, u8)>],
) -> (Vec<Cell>, Vec<Option<u32>>, Vec<u32>) {
    let mut leaf_cell = vec![None; l.leafs.len()];
    let mut cells = Vec::new();
    let mut cell_leaf = Vec::new();
    for (li, lp) in leaf_parent.iter().enumerate() {
        let Some(lp) = *lp else { continue };
        let lf: &RawLeaf = &l.leafs[li];
        let medium = medium_of(lf.contents).flatten().unwrap_or(Medium::Air);
        let planes = crate::portalize::path_planes(nodes, parent, lp);
        let mins = Vec3::new(lf.mins[0] as f32, lf.mins[1] as f32, lf.mins[2] as f32);
        let maxs = Vec3::new(lf.maxs[0] as f32, lf.maxs[1] as f32, lf.maxs[2] as f32);
        leaf_cell[li] = Some(cells.len() as u32);
        cell_leaf.push(li as u32);
        cells.push(Cell {
            planes,
            aabb: Aabb::new(mins.min(maxs), mins.max(maxs)),
            medium,
            flags: if lf.contents == CONTENTS_SKY {
                lanthorn_level::cell_flags::SKY_LEAF
            } else {
                0
            },
            ..Cell::default()
        });
    }
    (cells, leaf_cell, cell_leaf)
}
