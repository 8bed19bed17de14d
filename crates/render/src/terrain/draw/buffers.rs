//! The terrain's buffers and textures: the five static meshes in one vertex and one index
//! buffer, the instance records, the per-level height windows, the sky's placeholder.

use wgpu::util::DeviceExt;

use lanthorn_terrain::{ClipmapConfig, ClipmapMeshes, MeshKind, PartRun, TerrainInstance};

/// Where one mesh kind sits in the shared vertex/index buffers: its vertices, and its index
/// list twice over (`Mesh::cyclic_indices`: any run of its parts is one range).
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::terrain) struct KindRange {
    pub(in crate::terrain) base_vertex: u32,
    #[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
    pub(in crate::terrain) vertex_count: u32,
    pub(in crate::terrain) first_index: u32,
    /// Indices of the whole mesh (once).
    pub(in crate::terrain) index_count: u32,
    /// Where each part's indices start (relative to `first_index`), and the end.
    part_starts: [u32; MAX_PARTS + 1],
    parts: usize,
}

/// The most parts a mesh has (`terrain::mesh`).
const MAX_PARTS: usize = 4;

impl KindRange {
    /// The whole mesh.
    #[cfg(test)]
    fn all(&self) -> std::ops::Range<u32> {
        self.first_index..self.first_index + self.index_count
    }

    /// The indices that draw the parts of `run` (a run past the last part goes on in the
    /// list's second copy).
    pub(in crate::terrain) fn run(&self, run: PartRun) -> std::ops::Range<u32> {
        let (first, end) = (run.first as usize, (run.first + run.count) as usize);
        let start = self.part_starts[first];
        let stop = match end.checked_sub(self.parts) {
            Some(wrapped) => self.index_count + self.part_starts[wrapped],
            None => self.part_starts[end],
        };
        self.first_index + start..self.first_index + stop
    }
}

pub(in crate::terrain) struct MeshBuffers {
    pub(in crate::terrain) vertices: wgpu::Buffer,
    pub(in crate::terrain) indices: wgpu::Buffer,
    pub(in crate::terrain) kinds: [KindRange; 5],
    /// Bytes of vertex and index data.
    pub(in crate::terrain) bytes: usize,
}

pub(in crate::terrain) fn create_mesh_buffers(
    device: &wgpu::Device,
    meshes: &ClipmapMeshes,
) -> MeshBuffers {
    let (vertices, indices, kinds) = mesh_layout(meshes);
    let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("terrain mesh vertices"),
        contents: bytemuck::cast_slice(&vertices),
        usage: wgpu::BufferUsages::VERTEX,
    });
    let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("terrain mesh indices"),
        contents: bytemuck::cast_slice(&indices),
        usage: wgpu::BufferUsages::INDEX,
    });
    MeshBuffers {
        vertices: vertex_buffer,
        indices: index_buffer,
        kinds,
        bytes: vertices.len() * 8 + indices.len() * 4,
    }
}

/// The five meshes one after the other: their vertices, their index lists (each twice over)
/// and where each kind sits.
fn mesh_layout(meshes: &ClipmapMeshes) -> (Vec<[i32; 2]>, Vec<u32>, [KindRange; 5]) {
    let mut vertices: Vec<[i32; 2]> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let mut kinds = [KindRange::default(); 5];
    for kind in MeshKind::ALL {
        let m = meshes.get(kind);
        let mut part_starts = [0; MAX_PARTS + 1];
        for (i, part) in m.parts.iter().enumerate().take(MAX_PARTS) {
            part_starts[i] = 3 * part.first_triangle;
            part_starts[i + 1] = 3 * (part.first_triangle + part.triangles);
        }
        kinds[kind as usize] = KindRange {
            base_vertex: vertices.len() as u32,
            vertex_count: m.vertices.len() as u32,
            first_index: indices.len() as u32,
            index_count: m.indices.len() as u32,
            part_starts,
            parts: m.parts.len().min(MAX_PARTS),
        };
        vertices.extend_from_slice(&m.vertices);
        indices.extend_from_slice(&m.cyclic_indices());
    }
    (vertices, indices, kinds)
}

/// The per-frame instance records, sized for the largest selection.
pub(in crate::terrain) fn create_instance_buffer(
    device: &wgpu::Device,
    cfg: &ClipmapConfig,
) -> wgpu::Buffer {
    // Per level at most 16 tiles, 4 filler arms, a trim, a seam and the cross.
    let max_instances = 24 * cfg.levels as u64;
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("terrain instances"),
        size: max_instances * std::mem::size_of::<TerrainInstance>() as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The per-level height windows: one `window`² R32Float layer per level, and its array view.
pub(in crate::terrain) fn create_height_windows(
    device: &wgpu::Device,
    window: u32,
    levels: u32,
) -> (wgpu::Texture, wgpu::TextureView) {
    let heights = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("terrain height windows"),
        size: wgpu::Extent3d {
            width: window,
            height: window,
            depth_or_array_layers: levels,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::R32Float,
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = heights.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    (heights, view)
}

pub(in crate::terrain) fn create_sky_sampler(device: &wgpu::Device) -> wgpu::Sampler {
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("terrain sky"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        ..Default::default()
    })
}

/// A black texture standing in until the level sets the real one (unused meanwhile).
fn placeholder(
    device: &wgpu::Device,
    label: &str,
    dimension: wgpu::TextureViewDimension,
) -> wgpu::TextureView {
    placeholder_of(device, label, dimension, wgpu::TextureFormat::Rgba8Unorm)
}

/// A 1×1 texture of `format` (six layers for a cube) standing in for one not set yet.
fn placeholder_of(
    device: &wgpu::Device,
    label: &str,
    dimension: wgpu::TextureViewDimension,
    format: wgpu::TextureFormat,
) -> wgpu::TextureView {
    let layers = if dimension == wgpu::TextureViewDimension::Cube {
        6
    } else {
        1
    };
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: layers,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(dimension),
            ..Default::default()
        })
}

/// Until a level's skybox is set: a black cube, unused (flags.z = 0).
pub(in crate::terrain) fn create_placeholder_sky(device: &wgpu::Device) -> wgpu::TextureView {
    placeholder(
        device,
        "terrain sky placeholder",
        wgpu::TextureViewDimension::Cube,
    )
}

/// Until a level's lamps are set: one dark texel, unused (`TerrainView::light.y` = 0).
pub(in crate::terrain) fn create_placeholder_lamps(device: &wgpu::Device) -> wgpu::TextureView {
    placeholder(
        device,
        "terrain point light placeholder",
        wgpu::TextureViewDimension::D2,
    )
}

/// Until the sea reflects: one dark texel, unused (`TerrainView::water.x` = 0).
pub(in crate::terrain) fn create_placeholder_reflection(
    device: &wgpu::Device,
) -> wgpu::TextureView {
    placeholder(
        device,
        "terrain reflection placeholder",
        wgpu::TextureViewDimension::D2,
    )
}

/// Until the sun's cascades are set: a 1×1 depth array of one layer, unused (the variant
/// without shadows draws).
pub(in crate::terrain) fn create_placeholder_shadow(device: &wgpu::Device) -> wgpu::TextureView {
    placeholder_of(
        device,
        "terrain shadow placeholder",
        wgpu::TextureViewDimension::D2Array,
        crate::shadow::SHADOW_FORMAT,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every run of every kind's parts draws, from the shared buffers, the same indices as the
    /// mesh's own doubled list does for that run.
    #[test]
    fn a_kinds_runs_draw_the_meshs_runs() {
        let cfg = ClipmapConfig::new(8, 127, 4.0).unwrap();
        let meshes = ClipmapMeshes::new(&cfg);
        let (vertices, indices, kinds) = mesh_layout(&meshes);
        for kind in MeshKind::ALL {
            let (m, k) = (meshes.get(kind), kinds[kind as usize]);
            let base = k.base_vertex as usize;
            assert_eq!(
                &vertices[base..base + m.vertices.len()],
                m.vertices.as_slice()
            );
            assert_eq!(
                &indices[k.all().start as usize..k.all().end as usize],
                m.indices.as_slice()
            );
            let cyclic = m.cyclic_indices();
            for first in 0..m.parts.len() {
                for count in 1..=m.parts.len() {
                    let run = PartRun {
                        first: first as u8,
                        count: count as u8,
                    };
                    let (a, b) = (k.run(run), m.run_indices(run));
                    assert_eq!(
                        &indices[a.start as usize..a.end as usize],
                        &cyclic[b.start as usize..b.end as usize],
                        "{kind:?} {run:?}"
                    );
                }
            }
        }
    }
}
