//! The light of moving objects' faces from the level's light grid: each frame, every visible
//! object with grid light (`VisibleObject::ambient`) has each of its faces lit by those
//! spherical harmonics at the face's normal — exact per vertex for a flat face — packed ten
//! bits a channel ([`pack_object_light`]), in a storage buffer the vertex shader reads by
//! surface index.
//! The object's draw record says so (`GRID_LIT`); other records keep their own light.

use glam::Vec3;

use crate::level::Level;
use crate::vis::VisibleSet;

/// The ten-bit value that means a light multiplier of 1 in the object light buffer: finer than
/// a draw record's bytes (`LIGHT_UNIT`), whose steps show on a dim face.
pub const OBJECT_LIGHT_UNIT: u32 = 256;

/// Packs a light multiplier (linear RGB, 0..4) ten bits a channel, red lowest.
pub fn pack_object_light(rgb: [f32; 3]) -> u32 {
    let bits = |v: f32| (v * OBJECT_LIGHT_UNIT as f32).round().clamp(0.0, 1023.0) as u32;
    bits(rgb[0]) | (bits(rgb[1]) << 10) | (bits(rgb[2]) << 20)
}

/// Per-surface object light, on the CPU and the GPU.
pub(super) struct ObjectLight {
    pub(super) buffer: wgpu::Buffer,
    /// What the buffer holds: per level surface (0 where no grid-lit object's face).
    packed: Vec<u32>,
    /// Per level object: its surfaces with their normals.
    faces: Vec<Vec<(u32, Vec3)>>,
    minlight: f32,
    /// The range of `packed` written this frame.
    dirty: Option<(usize, usize)>,
}

impl ObjectLight {
    pub(super) fn create(device: &wgpu::Device, level: &Level) -> ObjectLight {
        let n = level.surfaces.len().max(1);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("world object light"),
            size: (n * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let faces = level
            .objects
            .iter()
            .map(|o| {
                o.surfaces
                    .iter()
                    .filter_map(|&s| Some((s, level.surfaces.get(s as usize)?.normal)))
                    .collect()
            })
            .collect();
        ObjectLight {
            buffer,
            packed: vec![0; n],
            faces,
            minlight: level.light_grid.as_ref().map_or(0.0, |g| g.minlight),
            dirty: None,
        }
    }

    /// Lights the faces of `visible`'s grid-lit objects (`light_scale`: the overbright;
    /// `steady`: style 0's brightness now, which scales the minimum light as in a lightmap).
    pub(super) fn update(&mut self, visible: &VisibleSet, light_scale: f32, steady: f32) {
        let minlight = self.minlight * steady;
        for o in &visible.objects {
            let (Some(sh), Some(faces)) = (&o.ambient, self.faces.get(o.object as usize)) else {
                continue;
            };
            for &(s, n) in faces {
                let rgb = crate::light::grid::surface_light(sh, n, minlight, light_scale);
                let value = pack_object_light(rgb);
                let slot = &mut self.packed[s as usize];
                if *slot != value {
                    *slot = value;
                    let (lo, hi) = self.dirty.unwrap_or((s as usize, s as usize));
                    self.dirty = Some((lo.min(s as usize), hi.max(s as usize)));
                }
            }
        }
    }

    /// Uploads what `update` changed.
    pub(super) fn upload(&mut self, queue: &wgpu::Queue) {
        if let Some((lo, hi)) = self.dirty.take() {
            let bytes = bytemuck::cast_slice(&self.packed[lo..=hi]);
            queue.write_buffer(&self.buffer, (lo * 4) as u64, bytes);
        }
    }
}
