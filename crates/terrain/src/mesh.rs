//! The five static clipmap meshes, built once per configuration and drawn instanced.
//!
//! Vertices are integer grid coordinates in the mesh's local frame (`[i32; 2]`, WGSL
//! `vec2<i32>`, vertex format `Sint32x2`); indices are a triangle list (`u32`, or `u16` via
//! [`Mesh::indices_u16`]). Every quad is split along its `(0,0)–(1,1)` diagonal and triangles
//! wind counter-clockwise seen from +Z (above). The seam is a strip of zero-area triangles.
//!
//! With `T` = tile quads per side (`ClipmapConfig::tile_quads`), local extents (rotation 0):
//! - Tile: `[0, T]²`, placed at the tile's lower-left corner.
//! - Filler: one arm of the filler cross, `[0, T] × [0, 1]`; four instances per level, rotated.
//! - Cross: the finest level's centre cross, bars `[−T, T+1] × [0, 1]` and `[0, 1] × [−T, T+1]`,
//!   placed at the camera's cell (the centre quad).
//! - Trim: the L `[2T, 2T+1] × [−(2T+1), 2T+1]` ∪ `[−(2T+1), 2T] × [2T, 2T+1]` (right column and
//!   top row of the level square), local origin at the level square's centre; rotated.
//! - Seam: the perimeter of the level square `[0, 4T+2]²`, one vertex per unit, counter-clockwise
//!   from `(0,0)`, triangles `(v2k, v2k+1, v2k+2)`, placed at the level square's corner.
//!
//! The long meshes come in [`MeshPart`]s, each a run of the index list, so that a piece the
//! frustum only partly sees draws only the parts it sees: the tile's four quadrants, the trim's
//! arms in halves, the seam's four sides, the cross's four arms, each in order around the piece. A run of parts that
//! wraps past the last one continues in a second copy of the index list
//! ([`Mesh::cyclic_indices`]), so any run around the piece is one range of indices.

use std::collections::HashMap;

use super::clipmap::{ClipmapConfig, MeshKind};

/// One static mesh of the clipmap: integer grid vertices, triangles in parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// Which piece it is.
    pub kind: MeshKind,
    /// Its vertices in level-grid units (rotation 0).
    pub vertices: Vec<[i32; 2]>,
    /// Triangles part by part, in the parts' order.
    pub indices: Vec<u32>,
    /// At least one; in order around the piece.
    pub parts: Vec<MeshPart>,
}

/// A run of a mesh's triangles and the local rectangle their vertices span (rotation 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshPart {
    /// Index of its first triangle.
    pub first_triangle: u32,
    /// How many triangles.
    pub triangles: u32,
    /// The rectangle's least corner.
    pub min: [i32; 2],
    /// Its greatest corner.
    pub max: [i32; 2],
}

/// Parts `first`, `first + 1`, … (`count` of them, wrapping around past the last) of a mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct PartRun {
    /// The first part.
    pub first: u8,
    /// How many parts.
    pub count: u8,
}

impl PartRun {
    /// All `parts` of a mesh.
    pub fn all(parts: usize) -> PartRun {
        PartRun {
            first: 0,
            count: parts as u8,
        }
    }

    /// The shortest run (the first from part 0 among equals) that holds every part set in
    /// `mask` (bit `i`: part `i`; not empty) of a mesh of `parts` parts.
    pub fn covering(mask: u32, parts: usize) -> PartRun {
        let full = (1u32 << parts) - 1;
        (1..=parts)
            .flat_map(|count| (0..parts).map(move |first| (first, count)))
            .find(|&(first, count)| {
                let run = (0..count).fold(0, |m, k| m | 1 << ((first + k) % parts));
                mask & full & !run == 0
            })
            .map(|(first, count)| PartRun {
                first: first as u8,
                count: count as u8,
            })
            .unwrap_or(PartRun::all(parts))
    }

    /// The parts in the run.
    pub fn parts(self, parts: usize) -> impl Iterator<Item = usize> {
        (0..self.count as usize).map(move |k| (self.first as usize + k) % parts)
    }

    /// Triangles in the run of a mesh with `parts`.
    pub fn triangles(self, parts: &[MeshPart]) -> u32 {
        self.parts(parts.len()).map(|p| parts[p].triangles).sum()
    }
}

impl Mesh {
    /// Triangles in all its parts.
    pub fn triangle_count(&self) -> u32 {
        (self.indices.len() / 3) as u32
    }

    /// The index list twice over: a run of parts is one range of it ([`Mesh::run_indices`]).
    pub fn cyclic_indices(&self) -> Vec<u32> {
        [self.indices.as_slice(), self.indices.as_slice()].concat()
    }

    /// The range of [`Mesh::cyclic_indices`] that draws `run`.
    pub fn run_indices(&self, run: PartRun) -> std::ops::Range<u32> {
        let start = self.parts[run.first as usize].first_triangle;
        3 * start..3 * (start + run.triangles(&self.parts))
    }

    /// The index list as u16 when every index fits.
    pub fn indices_u16(&self) -> Option<Vec<u16>> {
        if self.vertices.len() > 65536 {
            return None;
        }
        Some(self.indices.iter().map(|&i| i as u16).collect())
    }

    /// Triangles as vertex coordinate triples.
    pub fn triangles(&self) -> impl Iterator<Item = [[i32; 2]; 3]> + '_ {
        self.indices.chunks_exact(3).map(|t| {
            [
                self.vertices[t[0] as usize],
                self.vertices[t[1] as usize],
                self.vertices[t[2] as usize],
            ]
        })
    }
}

#[derive(Default)]
struct Builder {
    vertices: Vec<[i32; 2]>,
    map: HashMap<[i32; 2], u32>,
    indices: Vec<u32>,
}

impl Builder {
    fn vertex(&mut self, v: [i32; 2]) -> u32 {
        if let Some(&i) = self.map.get(&v) {
            return i;
        }
        let i = self.vertices.len() as u32;
        self.vertices.push(v);
        self.map.insert(v, i);
        i
    }

    /// All unit quads of `[x0, x1] × [y0, y1]`, row by row.
    fn rect(&mut self, x0: i32, y0: i32, x1: i32, y1: i32) {
        for y in y0..y1 {
            for x in x0..x1 {
                let a = self.vertex([x, y]);
                let b = self.vertex([x + 1, y]);
                let c = self.vertex([x + 1, y + 1]);
                let d = self.vertex([x, y + 1]);
                self.indices.extend_from_slice(&[a, b, c, a, c, d]);
            }
        }
    }

    /// The mesh with its triangles ordered by `part_of` (of a triangle's corners, `0..parts`,
    /// in order around the piece), keeping their order within a part.
    fn finish(
        self,
        kind: MeshKind,
        parts: usize,
        part_of: impl Fn([[i32; 2]; 3]) -> usize,
    ) -> Mesh {
        let verts = &self.vertices;
        let mut triangles: Vec<(usize, &[u32])> = self
            .indices
            .chunks_exact(3)
            .map(|t| {
                let c = [0, 1, 2].map(|k| verts[t[k] as usize]);
                (part_of(c).min(parts - 1), t)
            })
            .collect();
        triangles.sort_by_key(|&(p, _)| p);
        let mut out = Vec::with_capacity(parts);
        for p in 0..parts {
            let first = triangles.partition_point(|&(q, _)| q < p);
            let end = triangles.partition_point(|&(q, _)| q <= p);
            let vs = triangles[first..end]
                .iter()
                .flat_map(|(_, t)| t.iter().map(|&i| verts[i as usize]));
            let (min, max) = vs.fold(([i32::MAX; 2], [i32::MIN; 2]), |(lo, hi), v| {
                (
                    [lo[0].min(v[0]), lo[1].min(v[1])],
                    [hi[0].max(v[0]), hi[1].max(v[1])],
                )
            });
            out.push(MeshPart {
                first_triangle: first as u32,
                triangles: (end - first) as u32,
                min,
                max,
            });
        }
        Mesh {
            kind,
            indices: triangles
                .iter()
                .flat_map(|(_, t)| t.iter().copied())
                .collect(),
            vertices: self.vertices,
            parts: out,
        }
    }
}

/// The static meshes for one configuration, indexed by [`MeshKind`].
#[derive(Clone, Debug)]
pub struct ClipmapMeshes {
    /// One mesh per kind.
    pub meshes: [Mesh; 5],
}

impl ClipmapMeshes {
    /// The meshes for `cfg`'s tile size.
    pub fn new(cfg: &ClipmapConfig) -> Self {
        let t = cfg.tile_quads();
        let h = 2 * t + 1; // half side of the level square
        let mut tile = Builder::default();
        tile.rect(0, 0, t, t);

        let mut filler = Builder::default();
        filler.rect(0, 0, t, 1);

        let mut cross = Builder::default();
        cross.rect(-t, 0, t + 1, 1);
        cross.rect(0, -t, 1, 0);
        cross.rect(0, 1, 1, t + 1);

        let mut trim = Builder::default();
        trim.rect(h - 1, -h, h, h);
        trim.rect(-h, h - 1, h - 1, h);

        let side = 2 * h;
        let mut seam = Builder::default();
        let mut ring = Vec::with_capacity(4 * side as usize);
        for i in 0..side {
            ring.push([i, 0]);
        }
        for i in 0..side {
            ring.push([side, i]);
        }
        for i in 0..side {
            ring.push([side - i, side]);
        }
        for i in 0..side {
            ring.push([0, side - i]);
        }
        let ids: Vec<u32> = ring.iter().map(|&v| seam.vertex(v)).collect();
        let m = ids.len();
        for k in 0..m / 2 {
            seam.indices
                .extend_from_slice(&[ids[2 * k], ids[2 * k + 1], ids[(2 * k + 2) % m]]);
        }

        // A triangle's lowest corner decides (quads and seam steps start there).
        let low = |c: [[i32; 2]; 3]| {
            let x = c.iter().map(|v| v[0]).min().unwrap_or(0);
            let y = c.iter().map(|v| v[1]).min().unwrap_or(0);
            (x, y)
        };
        let half = (t + 1) / 2;
        // Quadrants counter-clockwise: lower left, lower right, upper right, upper left.
        let quadrant = |c| match low(c) {
            (x, y) if y < half => (x >= half) as usize,
            (x, _) => 2 + (x < half) as usize,
        };
        // Along the L: the column's lower and upper half, the row's right and left half.
        let arm = |c| match low(c) {
            (x, y) if x >= h - 1 => (y >= 0) as usize,
            (x, _) => 2 + (x < 0) as usize,
        };
        // The cross's arms counter-clockwise: right (with the centre quad), up, left, down.
        let cross_arm = |c| match low(c) {
            (x, 0) => 2 * (x < 0) as usize,
            (_, y) => 1 + 2 * (y < 0) as usize,
        };
        // The ring's sides in its own order: bottom, right, top, left.
        let ring_side = |c: [[i32; 2]; 3]| match (c[0], c[1]) {
            ([x, 0], [_, 0]) if x < side => 0,
            ([x, _], [x2, _]) if x == side && x2 == side => 1,
            ([_, y], [_, y2]) if y == side && y2 == side => 2,
            _ => 3,
        };
        Self {
            meshes: [
                tile.finish(MeshKind::Tile, 4, quadrant),
                filler.finish(MeshKind::Filler, 1, |_| 0),
                trim.finish(MeshKind::Trim, 4, arm),
                seam.finish(MeshKind::Seam, 4, ring_side),
                cross.finish(MeshKind::Cross, 4, cross_arm),
            ],
        }
    }

    /// The mesh of `kind`.
    pub fn get(&self, kind: MeshKind) -> &Mesh {
        &self.meshes[kind as usize]
    }
}
