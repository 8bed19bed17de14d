//! The world geometry as uploaded, built on the CPU so tests can check it without a GPU: every
//! world surface in one vertex and one index buffer, indices grouped by cell and by pipeline.

use bytemuck::{Pod, Zeroable};

use crate::level::{surface_flags, Level};

/// Vertex flag (beyond the surface flags): no lightmap, draw at full light.
pub const VERTEX_NO_LIGHTMAP: u32 = 1 << 16;

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct WorldVertex {
    pub position: [f32; 3],
    pub uv: [f32; 2],
    /// Atlas luxel coordinates (the shader divides by the atlas size).
    pub lightmap_uv: [f32; 2],
    pub layer: u32,
    pub flags: u32,
    /// Index into `Level::surfaces` (the id pass writes it).
    pub surface: u32,
}

impl WorldVertex {
    /// The vertex buffer's attributes (of the WGSL `WorldVertex`).
    pub(crate) const ATTRIBUTES: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
        0 => Float32x3, 1 => Float32x2, 2 => Float32x2, 3 => Uint32, 4 => Uint32, 5 => Uint32
    ];
}

/// Pipelines of the world pass in drawing order: translucent liquids last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceKind {
    Opaque = 0,
    Sky = 1,
    Liquid = 2,
}

impl SurfaceKind {
    pub const ALL: [SurfaceKind; 3] = [SurfaceKind::Opaque, SurfaceKind::Sky, SurfaceKind::Liquid];

    pub fn of(flags: u32) -> SurfaceKind {
        if flags & surface_flags::SKY != 0 {
            SurfaceKind::Sky
        } else if flags & surface_flags::LIQUID != 0 {
            SurfaceKind::Liquid
        } else {
            SurfaceKind::Opaque
        }
    }
}

/// An index range in the world index buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexRange {
    pub first: u32,
    pub count: u32,
}

/// The world geometry as uploaded: CPU side, so tests can check it without a GPU.
#[derive(Clone, Debug, Default)]
pub struct WorldMesh {
    pub vertices: Vec<WorldVertex>,
    pub indices: Vec<u32>,
    /// `cell_ranges[kind][cell]`.
    pub cell_ranges: [Vec<IndexRange>; 3],
    /// `object_ranges[kind][object]`.
    pub object_ranges: [Vec<IndexRange>; 3],
    /// Translucent liquid surfaces of cells are drawn once per frame, not once per cell that
    /// lists them (blending twice would darken them): one range per liquid surface...
    pub liquid_ranges: Vec<IndexRange>,
    /// ...and, per cell, the liquid surfaces it lists (indices into `liquid_ranges`).
    pub cell_liquids: Vec<Vec<u32>>,
}

impl WorldMesh {
    /// `layers[material]` is the material's layer in the texture array.
    pub fn build(level: &Level, layers: &[u32]) -> WorldMesh {
        let mut mesh = WorldMesh::default();
        // Vertices once per surface.
        let mut base = Vec::with_capacity(level.surfaces.len());
        for (si, s) in level.surfaces.iter().enumerate() {
            base.push(mesh.vertices.len() as u32);
            let layer = layers.get(s.material as usize).copied().unwrap_or(0);
            let (rect_xy, mut flags) = match s.lightmap {
                Some(r) => ([r.x as f32, r.y as f32], s.flags),
                None => ([0.0, 0.0], s.flags | VERTEX_NO_LIGHTMAP),
            };
            if level.lightmaps.width == 0 {
                flags |= VERTEX_NO_LIGHTMAP;
            }
            for v in &s.vertices {
                mesh.vertices.push(WorldVertex {
                    position: v.position.to_array(),
                    uv: v.uv.to_array(),
                    lightmap_uv: [rect_xy[0] + v.lightmap_uv.x, rect_xy[1] + v.lightmap_uv.y],
                    layer,
                    flags,
                    surface: si as u32,
                });
            }
        }
        let append =
            |mesh: &mut WorldMesh, surfaces: &mut dyn Iterator<Item = u32>, kind: SurfaceKind| {
                let first = mesh.indices.len() as u32;
                for si in surfaces {
                    let s = &level.surfaces[si as usize];
                    if SurfaceKind::of(s.flags) != kind {
                        continue;
                    }
                    let b = base[si as usize];
                    mesh.indices.extend(s.indices.iter().map(|i| i + b));
                }
                IndexRange {
                    first,
                    count: mesh.indices.len() as u32 - first,
                }
            };
        let mut liquid_of_surface = vec![u32::MAX; level.surfaces.len()];
        for kind in SurfaceKind::ALL {
            for cell in &level.cells {
                if kind == SurfaceKind::Liquid {
                    let mut list = Vec::new();
                    for &si in &cell.surfaces {
                        let s = &level.surfaces[si as usize];
                        if SurfaceKind::of(s.flags) != SurfaceKind::Liquid {
                            continue;
                        }
                        if liquid_of_surface[si as usize] == u32::MAX {
                            liquid_of_surface[si as usize] = mesh.liquid_ranges.len() as u32;
                            let r = append(&mut mesh, &mut std::iter::once(si), kind);
                            mesh.liquid_ranges.push(r);
                        }
                        list.push(liquid_of_surface[si as usize]);
                    }
                    mesh.cell_liquids.push(list);
                    mesh.cell_ranges[kind as usize].push(IndexRange::default());
                    continue;
                }
                let r = append(&mut mesh, &mut cell.surfaces.iter().copied(), kind);
                mesh.cell_ranges[kind as usize].push(r);
            }
            for obj in &level.objects {
                let r = append(&mut mesh, &mut obj.surfaces.iter().copied(), kind);
                mesh.object_ranges[kind as usize].push(r);
            }
        }
        mesh
    }
}
