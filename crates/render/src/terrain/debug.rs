//! Debug lines of the terrain: boxes around the drawn tiles and the culled ones.

use bytemuck::{Pod, Zeroable};
use glam::DVec3;

use super::TerrainOverlay;
use lanthorn_terrain::clipmap::instance_aabb;
use lanthorn_terrain::{
    ClipmapConfig, Heightmap, MeshKind, MinMaxPyramid, Selection, TerrainInstance,
};

/// One vertex of the debug boxes: eye-relative position and colour.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct LineVertex {
    pub position: [f32; 3],
    pub color: [u8; 4],
}

impl LineVertex {
    /// The vertex buffer's attributes (of the WGSL `LineVertex`).
    pub(crate) const ATTRIBUTES: [wgpu::VertexAttribute; 2] =
        wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4];
}

/// The 12 edges of a world box as eye-relative line vertices.
pub(super) fn box_lines(
    out: &mut Vec<LineVertex>,
    min: DVec3,
    max: DVec3,
    eye: DVec3,
    color: [u8; 4],
) {
    let corner = |i: usize| {
        let p = DVec3::new(
            if i & 1 != 0 { max.x } else { min.x },
            if i & 2 != 0 { max.y } else { min.y },
            if i & 4 != 0 { max.z } else { min.z },
        );
        LineVertex {
            position: (p - eye).as_vec3().to_array(),
            color,
        }
    };
    const EDGES: [(usize, usize); 12] = [
        (0, 1),
        (2, 3),
        (4, 5),
        (6, 7),
        (0, 2),
        (1, 3),
        (4, 6),
        (5, 7),
        (0, 4),
        (1, 5),
        (2, 6),
        (3, 7),
    ];
    for (a, b) in EDGES {
        out.push(corner(a));
        out.push(corner(b));
    }
}

/// The overlay boxes: yellow around the drawn tiles, red around the culled ones (eye-relative).
pub(super) fn tile_boxes(
    overlay: &TerrainOverlay,
    selection: &Selection,
    (cfg, heightmap, pyramid): (&ClipmapConfig, &Heightmap, &mut MinMaxPyramid),
    eye: DVec3,
    lines: &mut Vec<LineVertex>,
) {
    if !(overlay.tile_bounds || overlay.culled_tiles) {
        return;
    }
    let mut add = |inst: &TerrainInstance, color: [u8; 4], lines: &mut Vec<LineVertex>| {
        let b = instance_aabb(cfg, MeshKind::Tile, inst, heightmap, pyramid);
        box_lines(lines, b.min.as_dvec3(), b.max.as_dvec3(), eye, color);
    };
    if overlay.tile_bounds {
        for inst in selection.of_kind(MeshKind::Tile) {
            add(inst, [255, 230, 40, 255], lines);
        }
    }
    if overlay.culled_tiles {
        for (kind, inst) in &selection.culled {
            if *kind == MeshKind::Tile {
                add(inst, [255, 40, 30, 255], lines);
            }
        }
    }
}
