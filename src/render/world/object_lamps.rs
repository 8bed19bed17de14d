//! The dynamic tier of moving objects' light (seed 003's "most important lights per pixel"):
//! lamps (`_lamp` "1", linear falloff, not spotlights) are left out of the light grid and each
//! grid-lit object takes the [`LAMPS_PER_OBJECT`] strongest at its box per pixel — Quake's
//! `(light − wait·d) · ((1 − a) + a·cos)` at the fragment, with the face's normal, unshadowed.
//! Per object a block of lamps in a storage buffer the fragment reads by the record's object.

use glam::Vec3;

use crate::geom::Aabb;
use crate::level::Level;
use crate::light::entities::{EntityLight, RANGE_SCALE};
use crate::vis::VisibleSet;

/// Lamps an object takes per pixel (the strongest at its box; the rest it does not take).
pub(crate) const LAMPS_PER_OBJECT: usize = 4;
/// Vectors a lamp: (position, light), (colour × style × range scale ÷ 255 × overbright,
/// wait), (angle scale, 0, 0, 0).
pub(crate) const VECTORS: usize = 3;

pub(super) struct ObjectLamps {
    pub(super) buffer: wgpu::Buffer,
    /// The level has lamps and a light grid: the world draws the `OBJECT_LAMPS` variant.
    pub(super) variant: bool,
    lamps: Vec<EntityLight>,
    /// Per level object: its object-space bounds.
    bounds: Vec<Aabb>,
    /// What the buffer holds, and whether this frame changed it.
    blocks: Vec<[f32; 4]>,
    changed: bool,
}

impl ObjectLamps {
    pub(super) fn create(device: &wgpu::Device, level: &Level) -> ObjectLamps {
        let lights = crate::light::entities::level_lights(level);
        let lamps: Vec<EntityLight> = lights.lights.into_iter().filter(|l| l.lamp).collect();
        let n = level.objects.len().max(1) * LAMPS_PER_OBJECT * VECTORS;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("world object lamps"),
            size: (n * 16) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        ObjectLamps {
            buffer,
            variant: level.light_grid.is_some() && !lamps.is_empty(),
            lamps,
            bounds: level.objects.iter().map(|o| o.bounds).collect(),
            blocks: vec![[0.0; 4]; n],
            changed: false,
        }
    }

    /// Each visible grid-lit object's strongest lamps at its box this frame.
    pub(super) fn update(&mut self, visible: &VisibleSet, scales: &[f32], light_scale: f32) {
        for o in visible.objects.iter().filter(|o| o.ambient.is_some()) {
            let Some(b) = self.bounds.get(o.object as usize) else {
                continue;
            };
            let (lo, hi) = (b.min + o.origin, b.max + o.origin);
            // The strongest lamps at the box, kept in order (no allocation a frame).
            let mut near = [(0.0f32, usize::MAX); LAMPS_PER_OBJECT];
            for (k, l) in self.lamps.iter().enumerate() {
                let v = l.value_at(l.position.clamp(lo, hi).distance(l.position));
                if let Some(at) = near.iter().position(|&(best, _)| v > best) {
                    near.copy_within(at..LAMPS_PER_OBJECT - 1, at + 1);
                    near[at] = (v, k);
                }
            }
            let base = o.object as usize * LAMPS_PER_OBJECT * VECTORS;
            for slot in 0..LAMPS_PER_OBJECT {
                let block = match near[slot] {
                    (_, usize::MAX) => [[0.0; 4]; VECTORS],
                    (_, k) => self.block(k, scales, light_scale),
                };
                let at = base + slot * VECTORS;
                if self.blocks[at..at + VECTORS] != block {
                    self.blocks[at..at + VECTORS].copy_from_slice(&block);
                    self.changed = true;
                }
            }
        }
    }

    /// Lamp `k` as the shader reads it.
    fn block(&self, k: usize, scales: &[f32], light_scale: f32) -> [[f32; 4]; VECTORS] {
        let l = &self.lamps[k];
        let style = scales.get(l.style as usize).copied().unwrap_or(1.0);
        let rgb: Vec3 = l.color * (style * l.weight * RANGE_SCALE / 255.0 * light_scale);
        [
            l.position.extend(l.intensity).to_array(),
            rgb.extend(l.falloff).to_array(),
            [l.angle_scale, 0.0, 0.0, 0.0],
        ]
    }

    /// Uploads what `update` changed.
    pub(super) fn upload(&mut self, queue: &wgpu::Queue) {
        if std::mem::take(&mut self.changed) {
            queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(&self.blocks));
        }
    }
}
