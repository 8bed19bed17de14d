//! The world's node tree: cells for the leaves that hold a visibility cluster (Quake 3 gives
//! solid leaves and the void outside cluster −1), each bounded by the node planes on its path
//! from the root, and `Level::bsp` with the nodes renumbered in depth-first pre-order.

use glam::Vec3;

use lanthorn_geom::{Aabb, Plane};
use lanthorn_level::{Bsp, BspChild, BspLeaf, BspNode, Cell, Medium};

use super::{Ibsp, Q3Error};

/// Deeper trees are rejected (q3map2's stay far below this).
const MAX_DEPTH: usize = 1024;

/// The world's tree as cells and the level's `Bsp`.
pub(super) struct Tree {
    pub bsp: Bsp,
    pub cells: Vec<Cell>,
    /// File leaf → cell.
    pub leaf_cell: Vec<Option<u32>>,
    /// Cell → file leaf.
    pub cell_leaf: Vec<u32>,
    /// Per renumbered node: its parent node and which child (0 front, 1 back) it is.
    pub parent: Vec<Option<(u32, u8)>>,
}

fn bad(file: &str, lump: &'static str, index: usize, problem: String) -> Q3Error {
    Q3Error::Record {
        file: file.into(),
        lump,
        index,
        problem,
    }
}

/// Walks the tree from node 0. Every node and open leaf may be reached once (a second time is
/// a cycle or a shared subtree, which the file's indices alone do not rule out).
pub(super) fn build(map: &Ibsp, file: &str) -> Result<Tree, Q3Error> {
    if map.nodes.is_empty() {
        return Err(bad(
            file,
            "nodes",
            0,
            "is missing: the map has no tree".into(),
        ));
    }
    let mut claimed = vec![false; map.nodes.len()];
    let mut leaf_parent: Vec<Option<(u32, u8)>> = vec![None; map.leaves.len()];
    let mut nodes: Vec<BspNode> = Vec::new();
    let mut parent = Vec::new();
    claimed[0] = true;
    let mut stack: Vec<(usize, Option<(u32, u8)>, usize)> = vec![(0, None, 0)];
    while let Some((fi, par, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            let problem = format!("lies deeper than {MAX_DEPTH} levels in the tree");
            return Err(bad(file, "nodes", fi, problem));
        }
        let n = &map.nodes[fi];
        let bi = nodes.len() as u32;
        if let Some((pn, side)) = par {
            nodes[pn as usize].children[side as usize] = BspChild::Node(bi);
        }
        let mut children = [BspChild::Leaf(0); 2];
        // The back child first, so that the front subtree is numbered first.
        for side in [1usize, 0] {
            let c = n.children[side];
            if c >= 0 {
                let c = c as usize;
                if claimed[c] {
                    let problem = format!("has child node {c}, which another node has too");
                    return Err(bad(file, "nodes", fi, problem));
                }
                claimed[c] = true;
                stack.push((c, Some((bi, side as u8)), depth + 1));
            } else {
                let leaf = (-(c + 1)) as usize;
                if map.leaves[leaf].cluster >= 0 {
                    if leaf_parent[leaf].is_some() {
                        let problem = format!("has child leaf {leaf}, which another node has too");
                        return Err(bad(file, "nodes", fi, problem));
                    }
                    leaf_parent[leaf] = Some((bi, side as u8));
                }
                children[side] = BspChild::Leaf(leaf as u32);
            }
        }
        let p = map.planes[n.plane as usize];
        let (mins, maxs) = (
            Vec3::from(n.mins.map(|v| v as f32)),
            Vec3::from(n.maxs.map(|v| v as f32)),
        );
        nodes.push(BspNode {
            plane: Plane::new(Vec3::from(p.normal), p.dist),
            children,
            aabb: Aabb::new(mins.min(maxs), mins.max(maxs)),
        });
        parent.push(par);
    }
    let (cells, leaf_cell, cell_leaf) = open_leaf_cells(map, &nodes, &parent, &leaf_parent);
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

/// A cell for each reached leaf with a cluster, in leaf order, bounded by its path's planes.
fn open_leaf_cells(
    map: &Ibsp,
    nodes: &[BspNode],
    parent: &[Option<(u32, u8)>],
    leaf_parent: &[Option<(u32, u8)>],
) -> (Vec<Cell>, Vec<Option<u32>>, Vec<u32>) {
    let mut leaf_cell = vec![None; map.leaves.len()];
    let (mut cells, mut cell_leaf) = (Vec::new(), Vec::new());
    for (li, lp) in leaf_parent.iter().enumerate() {
        let Some(lp) = *lp else { continue };
        let planes = crate::portalize::path_planes(nodes, parent, lp);
        let lf = &map.leaves[li];
        let (mins, maxs) = (
            Vec3::from(lf.mins.map(|v| v as f32)),
            Vec3::from(lf.maxs.map(|v| v as f32)),
        );
        leaf_cell[li] = Some(cells.len() as u32);
        cell_leaf.push(li as u32);
        cells.push(Cell {
            planes,
            aabb: Aabb::new(mins.min(maxs), mins.max(maxs)),
            // Quake 3's water is detail: it does not split the tree, so a leaf is not all
            // water or all air. Cells are air; the water's surfaces are drawn as liquids.
            medium: Medium::Air,
            ..Cell::default()
        });
    }
    (cells, leaf_cell, cell_leaf)
}
