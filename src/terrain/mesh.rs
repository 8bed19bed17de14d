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

use std::collections::HashMap;

use super::clipmap::{ClipmapConfig, MeshKind};

#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    pub kind: MeshKind,
    pub vertices: Vec<[i32; 2]>,
    pub indices: Vec<u32>,
}

impl Mesh {
    pub fn triangle_count(&self) -> u32 {
        (self.indices.len() / 3) as u32
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

    fn finish(self, kind: MeshKind) -> Mesh {
        Mesh {
            kind,
            vertices: self.vertices,
            indices: self.indices,
        }
    }
}

/// The static meshes for one configuration, indexed by [`MeshKind`].
#[derive(Clone, Debug)]
pub struct ClipmapMeshes {
    pub meshes: [Mesh; 5],
}

impl ClipmapMeshes {
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

        Self {
            meshes: [
                tile.finish(MeshKind::Tile),
                filler.finish(MeshKind::Filler),
                trim.finish(MeshKind::Trim),
                seam.finish(MeshKind::Seam),
                cross.finish(MeshKind::Cross),
            ],
        }
    }

    pub fn get(&self, kind: MeshKind) -> &Mesh {
        &self.meshes[kind as usize]
    }
}
