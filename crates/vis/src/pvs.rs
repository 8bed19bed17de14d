//! GLQuake's marked leaves, as quakespasm's `R_MarkLeaves` picks them: the eye leaf's PVS; the
//! union of the PVS of every leaf within 8 units of the eye when the eye leaf lists a liquid
//! surface (its "fat PVS", against holes while the eye crosses the water's surface); the whole
//! level when the eye is in solid or in a sky leaf.

use glam::Vec3;

use lanthorn_level::{cell_flags, surface_flags, BspChild, Level};

/// quakespasm's `SV_FatPVS` radius: leaves this near the eye add their PVS.
pub const FAT_PVS_RADIUS: f32 = 8.0;

/// Which PVS rule a frame used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PvsRule {
    /// The eye leaf's PVS.
    Leaf,
    /// The union of the PVS of the leaves near the eye (the eye leaf borders a liquid).
    Fat,
    /// Every leaf: the eye is in solid or in sky, or the level has no PVS.
    Everything,
}

/// The cells GLQuake marks for an eye at `eye`; `marked[c]` for each cell `c`.
pub fn mark(level: &Level, eye: Vec3, marked: &mut Vec<bool>, near: &mut Vec<u32>) -> PvsRule {
    let rule = eye_leaves(level, eye, near);
    mark_from(level, rule, near, marked);
    rule
}

/// The rule GLQuake marks by for an eye at `eye`, and into `near` the cells whose PVS it
/// unites (the eye's cell, or those near it beside a liquid; none for `Everything`). The
/// marks depend on these alone (`mark_from`), so a caller may keep them while they stay.
pub fn eye_leaves(level: &Level, eye: Vec3, near: &mut Vec<u32>) -> PvsRule {
    near.clear();
    let (Some(_), Some(leaf)) = (&level.pvs, quake_leaf(level, eye)) else {
        return PvsRule::Everything;
    };
    let Some(&eye_cell) = level.bsp.leaves[leaf as usize].cells.first() else {
        return PvsRule::Everything;
    };
    let cell = &level.cells[eye_cell as usize];
    if cell.flags & cell_flags::SKY_LEAF != 0 {
        return PvsRule::Everything;
    }
    let liquid = cell.surfaces.iter().any(|&s| {
        level
            .surfaces
            .get(s as usize)
            .is_some_and(|s| s.flags & surface_flags::LIQUID != 0)
    });
    if liquid {
        leaves_near(level, eye, FAT_PVS_RADIUS, near);
        PvsRule::Fat
    } else {
        near.push(eye_cell);
        PvsRule::Leaf
    }
}

/// `marked[c]` for each cell `c` GLQuake marks by `rule` from the cells `near`
/// (`eye_leaves`): every cell for `Everything`.
pub fn mark_from(level: &Level, rule: PvsRule, near: &[u32], marked: &mut Vec<bool>) {
    marked.clear();
    marked.resize(level.cells.len(), rule == PvsRule::Everything);
    let Some(pvs) = level.pvs.as_ref().filter(|_| rule != PvsRule::Everything) else {
        return;
    };
    for (c, m) in marked.iter_mut().enumerate() {
        let c = c as u32;
        *m = near.iter().any(|&n| n == c || pvs.visible(n, c));
    }
}

/// The leaf holding `p` as Quake's `Mod_PointInLeaf` finds it (a point on a node's plane goes
/// to the back, unlike `Level::locate`).
fn quake_leaf(level: &Level, p: Vec3) -> Option<u32> {
    let mut child = level.bsp.root?;
    for _ in 0..=level.bsp.nodes.len() {
        match child {
            BspChild::Node(n) => {
                let node = level.bsp.nodes.get(n as usize)?;
                child = node.children[usize::from(node.plane.distance(p) <= 0.0)];
            }
            BspChild::Leaf(l) => return (level.bsp.leaves.get(l as usize).is_some()).then_some(l),
        }
    }
    None
}

/// The cells of the open leaves within `radius` of `p` (`SV_AddToFatPVS`'s descent: both
/// sides of a plane nearer than the radius).
fn leaves_near(level: &Level, p: Vec3, radius: f32, out: &mut Vec<u32>) {
    let Some(root) = level.bsp.root else { return };
    let mut stack = vec![root];
    let mut steps = 0;
    while let Some(child) = stack.pop() {
        steps += 1;
        if steps > 4 * (level.bsp.nodes.len() + level.bsp.leaves.len()) + 4 {
            return;
        }
        match child {
            BspChild::Node(n) => {
                let Some(node) = level.bsp.nodes.get(n as usize) else {
                    continue;
                };
                let d = node.plane.distance(p);
                if d > -radius {
                    stack.push(node.children[0]);
                }
                if d < radius {
                    stack.push(node.children[1]);
                }
            }
            BspChild::Leaf(l) => {
                if let Some(leaf) = level.bsp.leaves.get(l as usize) {
                    out.extend(leaf.cells.iter().copied());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On e1m1: an eye in a dry leaf marks exactly that leaf's PVS row; an eye in the water
    /// (its leaf lists the water surface) marks the union of the rows of the leaves within 8
    /// units, found by brute force over every leaf's planes; an eye in solid marks everything.
    #[test]
    fn marks_follow_quakespasm_rules_on_e1m1() {
        let path = lanthorn_testdata::realdata_dir().join("quake/bsp/e1m1.bsp");
        if !path.exists() {
            lanthorn_testdata::missing_realdata(&path);
            return;
        }
        let level = lanthorn_load::load(&path).unwrap();
        let pvs = level.pvs.as_ref().unwrap();
        let (mut marked, mut near) = (Vec::new(), Vec::new());
        let liquid = |c: usize| {
            level.cells[c]
                .surfaces
                .iter()
                .any(|&s| level.surfaces[s as usize].flags & surface_flags::LIQUID != 0)
        };
        // Every leaf with the planes on its path from the root, facing it (a full walk).
        let mut paths: Vec<(u32, Vec<lanthorn_geom::Plane>)> = Vec::new();
        let mut stack = vec![(level.bsp.root.unwrap(), Vec::new())];
        while let Some((child, planes)) = stack.pop() {
            match child {
                BspChild::Leaf(l) => paths.push((l, planes)),
                BspChild::Node(n) => {
                    let node = &level.bsp.nodes[n as usize];
                    let mut front = planes.clone();
                    front.push(node.plane);
                    let mut back = planes;
                    back.push(node.plane.flipped());
                    stack.push((node.children[0], front));
                    stack.push((node.children[1], back));
                }
            }
        }
        let (mut dry, mut wet) = (0, 0);
        for (c, cell) in level.cells.iter().enumerate() {
            let p = cell.aabb.center();
            if !cell.contains(p, -1.0) || cell.flags & cell_flags::SKY_LEAF != 0 {
                continue;
            }
            let rule = mark(&level, p, &mut marked, &mut near);
            let sources: Vec<usize> = if liquid(c) {
                assert_eq!(rule, PvsRule::Fat);
                wet += 1;
                // Brute force: every leaf whose path planes all leave p within 8 units of
                // its side.
                paths
                    .iter()
                    .filter(|(_, planes)| planes.iter().all(|pl| pl.distance(p) > -FAT_PVS_RADIUS))
                    .flat_map(|(l, _)| level.bsp.leaves[*l as usize].cells.clone())
                    .map(|c| c as usize)
                    .collect()
            } else {
                assert_eq!(rule, PvsRule::Leaf);
                dry += 1;
                vec![c]
            };
            for t in 0..level.cells.len() {
                let want = sources
                    .iter()
                    .any(|&s| s == t || pvs.visible(s as u32, t as u32));
                // An imported cell's planes are its leaf's path planes: the descent reaches
                // exactly the cells these plane tests keep.
                assert_eq!(
                    marked[t], want,
                    "eye in cell {c} ({rule:?}, near {near:?}, sources {sources:?}): cell {t}"
                );
            }
            if dry > 200 && wet > 5 {
                break;
            }
        }
        assert!(dry > 50 && wet > 0, "{dry} dry, {wet} wet eyes");
        let b = level.bounds();
        let solid = b.min - Vec3::splat(100.0);
        assert_eq!(
            mark(&level, solid, &mut marked, &mut near),
            PvsRule::Everything
        );
        assert!(marked.iter().all(|&m| m));
    }
}
