//! The point-location tree of a scene: a k-d tree over the cells' boxes.

use glam::Vec3;

use lanthorn_geom::{Aabb, Plane};
use lanthorn_level::{cell_flags, Bsp, BspChild, BspLeaf, BspNode, Cell};

/// A BSP over cells by axial planes (median of cell centres on the longest axis); a cell
/// crossing a plane is listed on both sides, so a leaf may hold several cells.
pub fn kd_tree(cells: &[Cell]) -> Bsp {
    let mut bsp = Bsp::default();
    if cells.is_empty() {
        return bsp;
    }
    // The OUTSIDE stand-in overlaps everything: point location must never find it.
    let all: Vec<u32> = (0..cells.len() as u32)
        .filter(|&i| cells[i as usize].flags & cell_flags::OUTSIDE == 0)
        .collect();
    if all.is_empty() {
        return bsp;
    }
    let root = kd_node(cells, all, &mut bsp, 0);
    bsp.root = Some(root);
    bsp
}

fn kd_node(cells: &[Cell], ids: Vec<u32>, bsp: &mut Bsp, depth: u32) -> BspChild {
    let mut b = Aabb::EMPTY;
    for &i in &ids {
        b = b.union(&cells[i as usize].aabb);
    }
    let leaf = |bsp: &mut Bsp, ids: Vec<u32>| {
        bsp.leaves.push(BspLeaf { cells: ids });
        BspChild::Leaf(bsp.leaves.len() as u32 - 1)
    };
    if ids.len() <= 2 || depth > 40 {
        return leaf(bsp, ids);
    }
    let size = b.size();
    let axis = if size.x >= size.y && size.x >= size.z {
        0
    } else if size.y >= size.z {
        1
    } else {
        2
    };
    let mut centres: Vec<f32> = ids
        .iter()
        .map(|&i| cells[i as usize].aabb.center()[axis])
        .collect();
    centres.sort_by(f32::total_cmp);
    let at = centres[centres.len() / 2];
    let front: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|&i| cells[i as usize].aabb.max[axis] > at)
        .collect();
    let back: Vec<u32> = ids
        .iter()
        .copied()
        .filter(|&i| cells[i as usize].aabb.min[axis] < at)
        .collect();
    if front.len() == ids.len() || back.len() == ids.len() {
        return leaf(bsp, ids);
    }
    let mut n = Vec3::ZERO;
    n[axis] = 1.0;
    let id = bsp.nodes.len() as u32;
    bsp.nodes.push(BspNode {
        plane: Plane::new(n, at),
        children: [BspChild::Leaf(0), BspChild::Leaf(0)],
        aabb: b,
    });
    let f = kd_node(cells, front, bsp, depth + 1);
    let k = kd_node(cells, back, bsp, depth + 1);
    bsp.nodes[id as usize].children = [f, k];
    BspChild::Node(id)
}
