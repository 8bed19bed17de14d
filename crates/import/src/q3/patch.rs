//! Quake 3's curved surfaces: a patch is a grid of control points, odd on both sides, made of
//! biquadratic Bézier pieces of 3 × 3 points that share their border rows. Each piece is cut
//! into `steps` × `steps` quads at parameters k / `steps`.
//!
//! No crack between two patches that share an edge: every point on a piece's border is
//! evaluated from the three control points of that border alone, by a formula that gives the
//! same bits whichever way the border runs (`along`), and `steps` is a power of two so that
//! 1 − t is exact. Two pieces with the same border points therefore make the same vertices
//! there, to the bit, whatever their grids' orientation.

use super::Vertex;

/// The quadratic Bézier through `p0`, `p1`, `p2` at `t`, written so that swapping `p0` with
/// `p2` and `t` with 1 − t gives the same bits (for t whose 1 − t is exact): the two ends' terms
/// are added first (addition commutes exactly), then the middle's.
fn along(p0: f32, p1: f32, p2: f32, t: f32) -> f32 {
    let s = 1.0 - t;
    (s * s * p0 + t * t * p2) + 2.0 * (s * t) * p1
}

fn along_n<const N: usize>(p: [[f32; N]; 3], t: f32) -> [f32; N] {
    std::array::from_fn(|k| along(p[0][k], p[1][k], p[2][k], t))
}

/// A vertex's attributes that the patch interpolates, as one row of floats.
fn attributes(v: &Vertex) -> [f32; 14] {
    let [x, y, z] = v.position;
    let [nx, ny, nz] = v.normal;
    let c = v.color.map(f32::from);
    [
        x,
        y,
        z,
        v.st[0],
        v.st[1],
        v.lightmap_st[0],
        v.lightmap_st[1],
        nx,
        ny,
        nz,
        c[0],
        c[1],
        c[2],
        c[3],
    ]
}

fn vertex(a: [f32; 14]) -> Vertex {
    let n = glam::Vec3::new(a[7], a[8], a[9]).normalize_or_zero();
    Vertex {
        position: [a[0], a[1], a[2]],
        st: [a[3], a[4]],
        lightmap_st: [a[5], a[6]],
        normal: n.to_array(),
        color: [a[10], a[11], a[12], a[13]].map(|c| c.round().clamp(0.0, 255.0) as u8),
    }
}

/// A patch's triangles: its `width` × `height` control points (row by row, `width` to a row),
/// each 3 × 3 piece cut into `steps` × `steps` quads. Returns the vertices, row by row over
/// the whole patch, and the triangles as indices into them. `width` and `height` are odd and
/// at least 3, `control` holds `width × height` points, and `steps` is a power of two (the
/// reader checks the first two; `steps` is the caller's).
pub fn tessellate(
    control: &[Vertex],
    width: u32,
    height: u32,
    steps: u32,
) -> (Vec<Vertex>, Vec<u32>) {
    assert!(
        steps.is_power_of_two() && width % 2 == 1 && height % 2 == 1 && width >= 3 && height >= 3
    );
    let (w, h) = (width as usize, height as usize);
    assert_eq!(control.len(), w * h, "a patch's control points");
    let at = |row: usize, col: usize| attributes(&control[row * w + col]);
    // Columns of vertices across the patch, rows down it.
    let cols = (w - 1) / 2 * steps as usize + 1;
    let rows = (h - 1) / 2 * steps as usize + 1;
    let mut vertices = Vec::with_capacity(cols * rows);
    for r in 0..rows {
        let (piece_r, kr) = piece(r, steps, rows);
        let v = kr as f32 / steps as f32;
        for c in 0..cols {
            let (piece_c, kc) = piece(c, steps, cols);
            let u = kc as f32 / steps as f32;
            let (r0, c0) = (2 * piece_r, 2 * piece_c);
            // Down each of the piece's three columns, then across: on a border row or column
            // (u or v 0 or 1) this is `along` of that border's three points exactly.
            let down: [[f32; 14]; 3] = std::array::from_fn(|j| {
                along_n([at(r0, c0 + j), at(r0 + 1, c0 + j), at(r0 + 2, c0 + j)], v)
            });
            vertices.push(vertex(along_n(down, u)));
        }
    }
    let mut indices = Vec::with_capacity((cols - 1) * (rows - 1) * 6);
    for r in 0..rows - 1 {
        for c in 0..cols - 1 {
            let i = (r * cols + c) as u32;
            let (right, below) = (i + 1, i + cols as u32);
            indices.extend([i, below, right, right, below, below + 1]);
        }
    }
    (vertices, indices)
}

/// Which piece along a side a vertex index falls in, and its step in that piece (the last
/// vertex is the last piece's end, step `steps`).
fn piece(i: usize, steps: u32, count: usize) -> (usize, u32) {
    let steps = steps as usize;
    match i + 1 == count {
        true => ((i - 1) / steps, ((i - 1) % steps + 1) as u32),
        false => (i / steps, (i % steps) as u32),
    }
}

/// Fewest steps a piece side is cut into.
pub const MIN_STEPS: u32 = 2;

/// Steps for each of `patches` (control points, width, height): the fewest, a power of two
/// from `MIN_STEPS` to `max_steps`, that keep every piece's rows and columns within
/// `tolerance` units of their curves (a quadratic Bézier cut into `n` equal steps strays at
/// most |p0 − 2p1 + p2| / 4n² from its chords), and the same for every patch of a group that
/// shares a border control point, so that neighbours still meet vertex for vertex.
pub fn group_steps(patches: &[(&[Vertex], u32, u32)], max_steps: u32, tolerance: f32) -> Vec<u32> {
    let needed: Vec<u32> = patches
        .iter()
        .map(|&(control, w, h)| {
            let bend = largest_bend(control, w as usize, h as usize);
            let mut n = MIN_STEPS.min(max_steps);
            while n < max_steps && bend / (4.0 * (n * n) as f32) > tolerance {
                n *= 2;
            }
            n
        })
        .collect();
    let group = border_groups(patches);
    let mut most = std::collections::HashMap::new();
    for (&g, &n) in group.iter().zip(&needed) {
        let m = most.entry(g).or_insert(n);
        *m = (*m).max(n);
    }
    group.iter().map(|g| most[g]).collect()
}

/// The largest |p0 − 2p1 + p2| over the rows and columns of a patch's pieces.
fn largest_bend(control: &[Vertex], w: usize, h: usize) -> f32 {
    let at = |r: usize, c: usize| glam::Vec3::from(control[r * w + c].position);
    let bend = |a: glam::Vec3, b: glam::Vec3, c: glam::Vec3| (a - 2.0 * b + c).length();
    let mut most = 0.0f32;
    for r in 0..h {
        for c in (0..w.saturating_sub(2)).step_by(2) {
            most = most.max(bend(at(r, c), at(r, c + 1), at(r, c + 2)));
        }
    }
    for c in 0..w {
        for r in (0..h.saturating_sub(2)).step_by(2) {
            most = most.max(bend(at(r, c), at(r + 1, c), at(r + 2, c)));
        }
    }
    most
}

/// Per patch, the smallest index of the patches it is joined to through shared border control
/// points (by their positions' bits), directly or through others.
fn border_groups(patches: &[(&[Vertex], u32, u32)]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..patches.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut first_at = std::collections::HashMap::new();
    for (i, &(control, w, h)) in patches.iter().enumerate() {
        let (w, h) = (w as usize, h as usize);
        let border =
            (0..w * h).filter(|k| k / w == 0 || k / w + 1 == h || k % w == 0 || k % w + 1 == w);
        for k in border {
            let key = control[k].position.map(f32::to_bits);
            let j = *first_at.entry(key).or_insert(i);
            let (a, b) = (root(&mut parent, i), root(&mut parent, j));
            parent[a.max(b)] = a.min(b);
        }
    }
    (0..patches.len()).map(|i| root(&mut parent, i)).collect()
}

#[cfg(test)]
#[path = "patch_tests.rs"]
mod tests;
