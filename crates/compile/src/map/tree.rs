//! Cells from structural brushes, the qbsp way: a BSP over the brushes' faces (axial planes
//! first, fewest splits), whose leaves are convex; open leaves become cells. Open leaves larger
//! than the maximum cell size are split by axial planes (seed 001). Portals are the node
//! polygons pushed down to leaf pairs; flooding from the outside finds exterior leaves and leaks.

use std::collections::{HashMap, VecDeque};

use glam::DVec3;

use super::brush::{Brush, Contents};
use crate::polyhedron::{PFace, PlanePool, Poly, EPS};
use lanthorn_geom::polygon::Side;
use lanthorn_geom::{DPlane, DPolygon};

/// What fills a BSP leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LeafContents {
    Solid,
    Open(lanthorn_level::Medium),
}

fn priority(c: Contents) -> u8 {
    match c {
        Contents::Solid | Contents::Sky => 4,
        Contents::Lava => 3,
        Contents::Slime => 2,
        Contents::Water => 1,
        _ => 0,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Child {
    Node(u32),
    Leaf(u32),
}

#[derive(Clone, Debug)]
pub(super) struct Node {
    pub plane: u32,
    /// [front, back].
    pub children: [Child; 2],
    /// The node's polygon: its plane clipped to the node's volume.
    pub winding: DPolygon,
    pub min: DVec3,
    pub max: DVec3,
}

#[derive(Clone, Debug)]
pub(super) struct Leaf {
    pub contents: LeafContents,
    pub volume: Poly,
    /// Reached by the flood from outside the world.
    pub outside: bool,
    /// Portals touching this leaf.
    pub portals: Vec<u32>,
    /// Cell index once cells are numbered.
    pub cell: Option<u32>,
}

#[derive(Clone, Debug)]
pub(super) struct LeafPortal {
    pub plane: u32,
    pub winding: DPolygon,
    /// Front leaf (positive side of the plane), back leaf.
    pub leaves: [u32; 2],
}

/// The cell tree.
#[derive(Clone, Debug, Default)]
pub(super) struct Tree {
    pub pool: PlanePool,
    pub nodes: Vec<Node>,
    pub leaves: Vec<Leaf>,
    pub root: Option<Child>,
    pub portals: Vec<LeafPortal>,
    pub root_min: DVec3,
    pub root_max: DVec3,
}

struct Frag {
    contents: Contents,
    poly: Poly,
}

#[cfg(test)]
/// Builds the tree over `brushes` (only those with `is_structural`), splitting open leaves
/// larger than `max_cell_size`. Leaves the portals and flood to the following steps.
pub(super) fn build_tree(brushes: &[&Brush], max_cell_size: f64) -> Tree {
    build_tree_with(brushes, max_cell_size, &|_, _| true)
}

/// As [`build_tree`]; `visible(brush, side)` says which sides show a surface (those split first).
pub(super) fn build_tree_with(
    brushes: &[&Brush],
    max_cell_size: f64,
    visible: &dyn Fn(usize, usize) -> bool,
) -> Tree {
    let mut tree = Tree::default();
    let mut min = DVec3::splat(f64::INFINITY);
    let mut max = DVec3::splat(f64::NEG_INFINITY);
    for b in brushes {
        min = min.min(b.min);
        max = max.max(b.max);
    }
    if !min.is_finite() {
        min = DVec3::splat(-64.0);
        max = DVec3::splat(64.0);
    }
    let (min, max) = (min - DVec3::splat(64.0), max + DVec3::splat(64.0));
    tree.root_min = min;
    tree.root_max = max;
    let frags: Vec<Frag> = brushes
        .iter()
        .enumerate()
        .map(|(bi, b)| Frag {
            contents: b.contents,
            poly: Poly::new(
                b.sides
                    .iter()
                    .enumerate()
                    .map(|(si, s)| PFace {
                        plane: tree.pool.id(s.plane),
                        winding: s.winding.clone(),
                        candidate: true,
                        visible: visible(bi, si),
                    })
                    .collect(),
            ),
        })
        .collect();
    let volume = Poly::from_box(&mut tree.pool, min, max);
    let root = build_node(&mut tree, frags, volume, max_cell_size.max(16.0));
    tree.root = Some(root);
    tree
}

fn side_of(pool: &PlanePool, pid: u32, poly: &Poly) -> (bool, bool) {
    let p = pool.get(pid);
    if pool.is_axial(pid) {
        let k = (0..3).find(|&k| p.normal[k] != 0.0).unwrap();
        let (lo, hi) = if p.normal[k] > 0.0 {
            (poly.min[k] - p.dist, poly.max[k] - p.dist)
        } else {
            (-poly.max[k] - p.dist, -poly.min[k] - p.dist)
        };
        (hi > EPS, lo < -EPS)
    } else {
        let (lo, hi) = poly.dist_range(p);
        (hi > EPS, lo < -EPS)
    }
}

fn choose_splitter(tree: &Tree, frags: &[Frag]) -> Option<u32> {
    // Visible sides first: hidden ones only finish off what is left.
    let any_visible = frags.iter().any(|f| {
        f.poly
            .faces
            .iter()
            .any(|face| face.candidate && face.visible)
    });
    let mut cands: HashMap<u32, u32> = HashMap::new();
    for f in frags {
        for face in &f.poly.faces {
            if face.candidate && (face.visible || !any_visible) {
                *cands.entry(face.plane & !1).or_insert(0) += 1;
            }
        }
    }
    if cands.is_empty() {
        return None;
    }
    let any_axial = cands.keys().any(|&c| tree.pool.is_axial(c));
    let mut best: Option<(i64, u32)> = None;
    let mut keys: Vec<u32> = cands.keys().copied().collect();
    keys.sort_unstable();
    for c in keys {
        if any_axial && !tree.pool.is_axial(c) {
            continue;
        }
        let (mut front, mut back, mut splits) = (0i64, 0i64, 0i64);
        for f in frags {
            match side_of(&tree.pool, c, &f.poly) {
                (true, true) => splits += 1,
                (true, false) => front += 1,
                (false, true) => back += 1,
                _ => {}
            }
        }
        let score = 5 * splits + (front - back).abs() - 2 * cands[&c] as i64;
        if best.is_none_or(|(s, _)| score < s) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| c)
}

fn clear_candidate(frags: &mut [Frag], plane: u32) {
    for f in frags {
        for face in &mut f.poly.faces {
            if face.plane & !1 == plane {
                face.candidate = false;
            }
        }
    }
}

fn build_node(tree: &mut Tree, mut frags: Vec<Frag>, volume: Poly, max_cell: f64) -> Child {
    loop {
        let Some(pid) = choose_splitter(tree, &frags) else {
            let contents = frags
                .iter()
                .map(|f| f.contents)
                .max_by_key(|&c| priority(c))
                .map(|c| {
                    if c.is_solid() {
                        LeafContents::Solid
                    } else {
                        LeafContents::Open(c.medium())
                    }
                })
                .unwrap_or(LeafContents::Open(lanthorn_level::Medium::Air));
            // An open leaf on the root box's boundary is the void (the flood starts there):
            // splitting it would only make cells nobody keeps, as many as the coordinate range
            // allows. Others are split, into at most `MAX_SPLIT_PIECES`.
            let on_boundary = (0..3).any(|k| {
                volume.min[k] <= tree.root_min[k] + EPS || volume.max[k] >= tree.root_max[k] - EPS
            });
            return match contents {
                LeafContents::Open(_) if !on_boundary => {
                    let cell = split_cell_size(volume.max - volume.min, max_cell);
                    split_big(tree, contents, volume, cell)
                }
                _ => new_leaf(tree, contents, volume),
            };
        };
        clear_candidate(&mut frags, pid);
        let (vf, vb) = volume.split(&tree.pool, pid);
        let (Some(vf), Some(vb)) = (vf, vb) else {
            // The plane does not cut this node (it lies on its boundary): try the next.
            continue;
        };
        let winding = vb.faces.last().unwrap().winding.clone();
        let mut front = Vec::new();
        let mut back = Vec::new();
        for f in frags {
            match side_of(&tree.pool, pid, &f.poly) {
                (true, true) => {
                    let (a, b) = f.poly.split(&tree.pool, pid);
                    if let Some(a) = a {
                        front.push(Frag {
                            contents: f.contents,
                            poly: a,
                        });
                    }
                    if let Some(b) = b {
                        back.push(Frag {
                            contents: f.contents,
                            poly: b,
                        });
                    }
                }
                (true, false) => front.push(f),
                (false, true) => back.push(f),
                // Flat within tolerance: by its centre.
                _ => {
                    if tree.pool.get(pid).distance(f.poly.center()) >= 0.0 {
                        front.push(f)
                    } else {
                        back.push(f)
                    }
                }
            }
        }
        let (min, max) = (volume.min, volume.max);
        drop(volume);
        let id = tree.nodes.len() as u32;
        tree.nodes.push(Node {
            plane: pid,
            children: [Child::Leaf(0); 2],
            winding,
            min,
            max,
        });
        let f = build_node(tree, front, vf, max_cell);
        let b = build_node(tree, back, vb, max_cell);
        tree.nodes[id as usize].children = [f, b];
        return Child::Node(id);
    }
}

fn new_leaf(tree: &mut Tree, contents: LeafContents, volume: Poly) -> Child {
    tree.leaves.push(Leaf {
        contents,
        volume,
        outside: false,
        portals: Vec::new(),
        cell: None,
    });
    Child::Leaf(tree.leaves.len() as u32 - 1)
}

/// The most cells one open leaf is split into by `max_cell_size`: beyond it the cells grow
/// (a leaf of a ±65536 map would otherwise become 16 million cells of 512 units).
const MAX_SPLIT_PIECES: f64 = 4096.0;

/// `max_cell`, doubled until a leaf of `size` splits into at most `MAX_SPLIT_PIECES` cells.
fn split_cell_size(size: DVec3, max_cell: f64) -> f64 {
    let mut cell = max_cell;
    let pieces = |c: f64| {
        (0..3)
            .map(|k| (size[k] / c).ceil().max(1.0))
            .product::<f64>()
    };
    while pieces(cell) > MAX_SPLIT_PIECES {
        cell *= 2.0;
    }
    cell
}

/// Splits an open leaf volume by axial planes until no side is longer than `max_cell`.
fn split_big(tree: &mut Tree, contents: LeafContents, volume: Poly, max_cell: f64) -> Child {
    let size = volume.max - volume.min;
    let axis = if size.x >= size.y && size.x >= size.z {
        0
    } else if size.y >= size.z {
        1
    } else {
        2
    };
    if size[axis] <= max_cell {
        return new_leaf(tree, contents, volume);
    }
    let mid = (volume.min[axis] + volume.max[axis]) * 0.5;
    let mut at = (mid / 64.0).round() * 64.0;
    if at <= volume.min[axis] + 16.0 || at >= volume.max[axis] - 16.0 {
        at = mid.round();
    }
    let mut n = DVec3::ZERO;
    n[axis] = 1.0;
    let pid = tree.pool.id(DPlane::new(n, at));
    let (vf, vb) = match volume.split(&tree.pool, pid) {
        (Some(f), Some(b)) => (f, b),
        _ => return new_leaf(tree, contents, volume),
    };
    let winding = vb.faces.last().unwrap().winding.clone();
    let id = tree.nodes.len() as u32;
    tree.nodes.push(Node {
        plane: pid,
        children: [Child::Leaf(0); 2],
        winding,
        min: volume.min,
        max: volume.max,
    });
    drop(volume);
    let f = split_big(tree, contents, vf, max_cell);
    let b = split_big(tree, contents, vb, max_cell);
    tree.nodes[id as usize].children = [f, b];
    Child::Node(id)
}

impl Tree {
    pub(super) fn is_open(&self, leaf: u32) -> bool {
        matches!(self.leaves[leaf as usize].contents, LeafContents::Open(_))
    }

    #[cfg(test)]
    /// The leaf holding `p` (front side on ties).
    pub(super) fn leaf_at(&self, p: DVec3) -> Option<u32> {
        self.leaf_at_tie(p, true)
    }

    /// The leaf holding `p`; a point exactly on a node plane goes to the front when
    /// `front_on_tie`, else to the back (Quake's rule, which qbsp's leak test uses: an entity
    /// placed exactly on a wall face counts as inside the wall).
    pub(super) fn leaf_at_tie(&self, p: DVec3, front_on_tie: bool) -> Option<u32> {
        let mut c = self.root?;
        loop {
            match c {
                Child::Leaf(l) => return Some(l),
                Child::Node(n) => {
                    let node = &self.nodes[n as usize];
                    let d = self.pool.get(node.plane).distance(p);
                    let front = d > 0.0 || (front_on_tie && d == 0.0);
                    c = node.children[if front { 0 } else { 1 }];
                }
            }
        }
    }

    fn filter_split(&self, c: Child, w: DPolygon, out: &mut Vec<(u32, DPolygon)>) {
        match c {
            Child::Leaf(l) => {
                if self.is_open(l) {
                    out.push((l, w));
                }
            }
            Child::Node(n) => {
                let node = &self.nodes[n as usize];
                let p = self.pool.get(node.plane);
                match w.classify(p, EPS) {
                    Side::Back => self.filter_split(node.children[1], w, out),
                    Side::Spanning => {
                        let (f, b) = w.split(p, EPS);
                        if !f.is_empty() {
                            self.filter_split(node.children[0], f, out);
                        }
                        if !b.is_empty() {
                            self.filter_split(node.children[1], b, out);
                        }
                    }
                    _ => self.filter_split(node.children[0], w, out),
                }
            }
        }
    }

    /// Portals between open leaves: each node's polygon pushed down both subtrees.
    pub(super) fn make_portals(&mut self) {
        let mut portals = Vec::new();
        for node in &self.nodes {
            let mut fronts = Vec::new();
            self.filter_split(node.children[0], node.winding.clone(), &mut fronts);
            for (fl, fw) in fronts {
                let mut backs = Vec::new();
                self.filter_split(node.children[1], fw, &mut backs);
                for (bl, bw) in backs {
                    if bw.area() > 0.01 {
                        portals.push(LeafPortal {
                            plane: node.plane,
                            winding: bw,
                            leaves: [fl, bl],
                        });
                    }
                }
            }
        }
        for (i, p) in portals.iter().enumerate() {
            self.leaves[p.leaves[0] as usize].portals.push(i as u32);
            self.leaves[p.leaves[1] as usize].portals.push(i as u32);
        }
        self.portals = portals;
    }

    /// Floods from open leaves on the root box's boundary; returns for every leaf the portal
    /// it was reached through (for leak paths) and marks `outside`.
    pub(super) fn flood_outside(&mut self) -> Vec<Option<u32>> {
        let mut from = vec![None; self.leaves.len()];
        let mut queue = VecDeque::new();
        for (i, l) in self.leaves.iter_mut().enumerate() {
            let touches = (0..3).any(|k| {
                l.volume.min[k] <= self.root_min[k] + EPS
                    || l.volume.max[k] >= self.root_max[k] - EPS
            });
            if touches && matches!(l.contents, LeafContents::Open(_)) {
                l.outside = true;
                queue.push_back(i as u32);
            }
        }
        while let Some(l) = queue.pop_front() {
            for &pi in &self.leaves[l as usize].portals.clone() {
                let p = &self.portals[pi as usize];
                let o = if p.leaves[0] == l {
                    p.leaves[1]
                } else {
                    p.leaves[0]
                };
                if !self.leaves[o as usize].outside {
                    self.leaves[o as usize].outside = true;
                    from[o as usize] = Some(pi);
                    queue.push_back(o);
                }
            }
        }
        from
    }

    /// The path from a point in an outside leaf to the void: the point, portal centres, and
    /// the centre of the first outside leaf.
    pub(super) fn leak_path(&self, start: DVec3, from: &[Option<u32>]) -> Vec<DVec3> {
        let mut pts = vec![start];
        let Some(mut l) = self.leaf_at_tie(start, false) else {
            return pts;
        };
        let mut guard = 0;
        while let Some(pi) = from[l as usize] {
            let p = &self.portals[pi as usize];
            pts.push(p.winding.centroid());
            l = if p.leaves[0] == l {
                p.leaves[1]
            } else {
                p.leaves[0]
            };
            guard += 1;
            if guard > self.leaves.len() {
                break;
            }
        }
        let v = &self.leaves[l as usize].volume;
        let mut end = v.center();
        // Step out through the root box side the leaf touches.
        for k in 0..3 {
            if v.min[k] <= self.root_min[k] + EPS {
                end[k] = self.root_min[k];
            } else if v.max[k] >= self.root_max[k] - EPS {
                end[k] = self.root_max[k];
            }
        }
        pts.push(end);
        pts
    }

    /// Leaves a polygon touches: it is cut at every node it spans, so a leaf gets only the
    /// piece inside it (a face whose pieces all land in solid touches no open leaf); a piece on
    /// a node plane goes to the side it faces (`normal`).
    pub(super) fn touching_leaves(&self, w: &DPolygon, normal: DVec3, out: &mut Vec<u32>) {
        const E: f64 = 0.01;
        let mut stack: Vec<(Child, DPolygon)> =
            self.root.into_iter().map(|c| (c, w.clone())).collect();
        while let Some((c, w)) = stack.pop() {
            let n = match c {
                Child::Leaf(l) => {
                    out.push(l);
                    continue;
                }
                Child::Node(n) => n,
            };
            let node = &self.nodes[n as usize];
            let p = self.pool.get(node.plane);
            match w.classify(p, E) {
                Side::Front => stack.push((node.children[0], w)),
                Side::Back => stack.push((node.children[1], w)),
                Side::On => {
                    let side = if normal.dot(p.normal) > 0.0 { 0 } else { 1 };
                    stack.push((node.children[side], w));
                }
                Side::Spanning => {
                    let (f, b) = w.split(p, E);
                    for (side, piece) in [(0, f), (1, b)] {
                        if piece.area() > E * E {
                            stack.push((node.children[side], piece));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::brush::{build, Brush};

    pub(crate) fn box_brush(min: DVec3, max: DVec3, contents: Contents) -> Brush {
        let mut planes = Vec::new();
        for k in 0..3 {
            let mut n = DVec3::ZERO;
            n[k] = 1.0;
            planes.push((DPlane::new(n, max[k]), planes.len()));
            planes.push((DPlane::new(-n, -min[k]), planes.len()));
        }
        let sides = build(&planes, 1e5).unwrap();
        Brush {
            sides,
            min,
            max,
            contents,
            entity: 0,
            index: 0,
            line: 0,
            detail: false,
        }
    }

    /// A hollow box room from six wall brushes; `skip` leaves one wall out.
    pub(crate) fn room(skip: Option<usize>) -> Vec<Brush> {
        let (a, b) = (DVec3::splat(0.0), DVec3::new(1024.0, 512.0, 256.0));
        let t = 16.0;
        let mut v = Vec::new();
        for k in 0..3 {
            let mut lo_max = b + DVec3::splat(t);
            lo_max[k] = a[k];
            let mut hi_min = a - DVec3::splat(t);
            hi_min[k] = b[k];
            v.push(box_brush(a - DVec3::splat(t), lo_max, Contents::Solid));
            v.push(box_brush(hi_min, b + DVec3::splat(t), Contents::Solid));
        }
        if let Some(s) = skip {
            v.remove(s);
        }
        v
    }

    fn volume(p: &Poly, pool: &PlanePool) -> f64 {
        let c = p
            .faces
            .iter()
            .flat_map(|f| f.winding.points.iter())
            .copied()
            .sum::<DVec3>()
            / p.faces
                .iter()
                .map(|f| f.winding.points.len())
                .sum::<usize>() as f64;
        p.faces
            .iter()
            .map(|f| -pool.get(f.plane).distance(c) * f.winding.area() / 3.0)
            .sum()
    }

    #[test]
    fn room_is_sealed_and_split_into_a_grid() {
        let brushes = room(None);
        let refs: Vec<&Brush> = brushes.iter().collect();
        let mut tree = build_tree(&refs, 512.0);
        tree.make_portals();
        tree.flood_outside();
        let inside: Vec<&Leaf> = tree
            .leaves
            .iter()
            .filter(|l| !l.outside && l.contents != LeafContents::Solid)
            .collect();
        // 1024×512×256 split into ≤512 pieces: 2 cells, with one portal between them.
        assert_eq!(inside.len(), 2);
        let vol: f64 = inside.iter().map(|l| volume(&l.volume, &tree.pool)).sum();
        assert!((vol - 1024.0 * 512.0 * 256.0).abs() < 1e-3, "{vol}");
        let inner_portals = tree
            .portals
            .iter()
            .filter(|p| p.leaves.iter().all(|&l| !tree.leaves[l as usize].outside))
            .collect::<Vec<_>>();
        assert_eq!(inner_portals.len(), 1);
        assert!((inner_portals[0].winding.area() - 512.0 * 256.0).abs() < 1e-6);
        // Brute-force oracle: sample points; inside the room ⇔ an inside leaf.
        for i in 0..2000 {
            let h = |k: u32| ((i * 7919 + k * 104729) % 1400) as f64 - 150.37;
            let p = DVec3::new(h(1), h(2) * 0.6, h(3) * 0.4);
            let in_room =
                p.cmpgt(DVec3::ZERO).all() && p.cmplt(DVec3::new(1024.0, 512.0, 256.0)).all();
            let in_wall = brushes.iter().any(|b| b.contains(p, -1e-6));
            let l = &tree.leaves[tree.leaf_at(p).unwrap() as usize];
            if in_room {
                assert!(!l.outside && l.contents != LeafContents::Solid, "{p}");
            } else if in_wall {
                assert_eq!(l.contents, LeafContents::Solid, "{p}");
            } else {
                assert!(l.outside, "{p}");
            }
        }
    }

    #[test]
    fn missing_wall_leaks() {
        let brushes = room(Some(3));
        let refs: Vec<&Brush> = brushes.iter().collect();
        let mut tree = build_tree(&refs, 512.0);
        tree.make_portals();
        let from = tree.flood_outside();
        let p = DVec3::new(100.0, 100.0, 100.0);
        assert!(tree.leaves[tree.leaf_at(p).unwrap() as usize].outside);
        let path = tree.leak_path(p, &from);
        assert!(path.len() >= 2);
        let end = *path.last().unwrap();
        assert!((0..3).any(|k| end[k] <= tree.root_min[k] || end[k] >= tree.root_max[k]));
    }
}
