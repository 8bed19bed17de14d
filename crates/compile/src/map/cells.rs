//! From the brush BSP to the level's cells: the structural brushes' tree, the leak check
//! (an entity in a leaf the outside floods), open leaves as cells, leaf portals as portals,
//! and the tree kept for point location.

use super::entity_brushes::{EntityBrushes, Group};
use super::faces::Fragment;
use super::tree::{self, Child, LeafContents, Tree};
use lanthorn_geom::Aabb;
use lanthorn_level::{portal_flags, Bsp, BspChild, BspLeaf, BspNode, Level, Portal};

/// The BSP over the structural brushes (world, not detail, solid or liquid); sides that show
/// a visible fragment are preferred as splitters.
pub(super) fn cell_tree(
    brushes: &EntityBrushes,
    fragments: &[Fragment],
    max_cell_size: f64,
) -> Tree {
    let structural: Vec<usize> = (0..brushes.brushes.len())
        .filter(|&i| {
            let b = &brushes.brushes[i];
            brushes.groups[i] == Group::World
                && !b.detail
                && (b.contents.is_solid() || b.contents.is_liquid())
        })
        .collect();
    let mut visible: Vec<Vec<bool>> = brushes
        .brushes
        .iter()
        .map(|b| vec![false; b.sides.len()])
        .collect();
    for f in fragments {
        visible[f.brush][f.side] = true;
    }
    let refs: Vec<_> = structural.iter().map(|&i| &brushes.brushes[i]).collect();
    tree::build_tree_with(&refs, max_cell_size, &|b, s| visible[structural[b]][s])
}

/// Open leaves the outside does not reach become cells (numbered into `tree`); portals
/// between two cells become the level's portals (liquid surfaces where the media differ).
pub(super) fn add_cells_and_portals(tree: &mut Tree, level: &mut Level) {
    let mut next = 0u32;
    for l in tree.leaves.iter_mut() {
        if matches!(l.contents, LeafContents::Open(_)) && !l.outside {
            l.cell = Some(next);
            next += 1;
        }
    }
    for l in tree.leaves.iter().filter(|l| l.cell.is_some()) {
        let LeafContents::Open(medium) = l.contents else {
            unreachable!("only open leaves are numbered")
        };
        level.cells.push(l.volume.cell(&tree.pool, medium, 0));
    }
    for p in &tree.portals {
        let (Some(a), Some(b)) = (
            tree.leaves[p.leaves[0] as usize].cell,
            tree.leaves[p.leaves[1] as usize].cell,
        ) else {
            continue;
        };
        let liquid = level.cells[a as usize].medium != level.cells[b as usize].medium;
        level.add_portal(Portal {
            polygon: p.winding.points.iter().map(|v| v.as_vec3()).collect(),
            plane: tree.pool.get(p.plane).to_f32(),
            front: a,
            back: b,
            transform: None,
            flags: if liquid {
                portal_flags::LIQUID_SURFACE
            } else {
                0
            },
        });
    }
}

/// The brush BSP as the level's point-location tree: each leaf lists its cell, if any.
pub(super) fn bsp_of(tree: &Tree) -> Bsp {
    Bsp {
        nodes: tree
            .nodes
            .iter()
            .map(|n| BspNode {
                plane: tree.pool.get(n.plane).to_f32(),
                children: n.children.map(bsp_child),
                aabb: Aabb::new(n.min.as_vec3(), n.max.as_vec3()),
            })
            .collect(),
        leaves: tree
            .leaves
            .iter()
            .map(|l| BspLeaf {
                cells: l.cell.into_iter().collect(),
            })
            .collect(),
        root: tree.root.map(bsp_child),
    }
}

fn bsp_child(c: Child) -> BspChild {
    match c {
        Child::Node(n) => BspChild::Node(n),
        Child::Leaf(l) => BspChild::Leaf(l),
    }
}
