//! The dynamic tiers of moving objects' light (seed 003's "the most important lights per
//! pixel, the next few per vertex, the rest folded into the spherical harmonics"): lamps
//! (`_lamp` "1", linear falloff, not spotlights) are left out of the light grid, and each
//! grid-lit object ranks them by their light at its box. The [`LAMPS_PER_OBJECT`] strongest
//! are Quake's `(light − wait·d) · ((1 − a) + a·cos)` at the fragment with the face's normal,
//! the next [`VERTEX_LAMPS`] the same at each vertex (interpolated across the face), the rest
//! are folded into an L2 spherical harmonic at the box's centre that the CPU adds to each face
//! with the grid's light (`folded`). All unshadowed. Per object a block of lamps in a storage
//! buffer the shaders read by the record's object.

use glam::Vec3;

use lanthorn_geom::Aabb;
use lanthorn_geom::Lamp;
use lanthorn_level::Level;
use lanthorn_light::lights::RANGE_SCALE;
use lanthorn_vis::VisibleSet;

/// Lamps an object takes per pixel (the strongest at its box).
pub(crate) const LAMPS_PER_OBJECT: usize = 4;
/// Lamps an object takes per vertex (the next strongest); the rest are folded.
pub(crate) const VERTEX_LAMPS: usize = 4;
/// Lamp blocks an object holds in the buffer: per pixel, then per vertex.
const SLOTS: usize = LAMPS_PER_OBJECT + VERTEX_LAMPS;
/// Vectors a lamp: (position, light), (colour × style × range scale ÷ 255 × overbright,
/// wait), (angle scale, 0, 0, 0).
pub(crate) const VECTORS: usize = 3;

pub(super) struct ObjectLamps {
    pub(super) buffer: wgpu::Buffer,
    /// The level has lamps and a light grid: the world draws the `OBJECT_LAMPS` variant.
    pub(super) variant: bool,
    /// And its materials have normal or specular maps: the `MATERIAL_MAPS` variant too.
    pub(super) maps: bool,
    lamps: Vec<Lamp>,
    /// Per level object: its object-space bounds.
    bounds: Vec<Aabb>,
    /// What the buffer holds, and whether this frame changed it.
    blocks: Vec<[f32; 4]>,
    changed: bool,
    /// Per level object: its lamps past the strongest [`SLOTS`] this frame, as one harmonic
    /// at its box's centre (light multipliers); zero for an object that takes none.
    pub(super) folded: Vec<lanthorn_geom::sh::Sh9>,
}

impl ObjectLamps {
    pub(super) fn create(
        device: &wgpu::Device,
        level: &Level,
        lights: &lanthorn_light::lights::LevelLights,
    ) -> ObjectLamps {
        let lamps = lights.lamps.clone();
        let n = level.objects.len().max(1) * SLOTS * VECTORS;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("world object lamps"),
            size: (n * 16) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let variant = level.light_grid.is_some() && !lamps.is_empty();
        ObjectLamps {
            buffer,
            variant,
            maps: variant
                && level
                    .materials
                    .iter()
                    .any(lanthorn_level::Material::has_maps),
            lamps,
            bounds: level.objects.iter().map(|o| o.bounds).collect(),
            blocks: vec![[0.0; 4]; n],
            changed: false,
            folded: vec![lanthorn_geom::sh::Sh9::ZERO; level.objects.len()],
        }
    }

    /// Each visible grid-lit object's lamps at its box this frame: the strongest per pixel and
    /// per vertex into the buffer, the rest folded.
    pub(super) fn update(&mut self, visible: &VisibleSet, scales: &[f32], light_scale: f32) {
        for o in visible.objects.iter().filter(|o| o.ambient.is_some()) {
            let Some(b) = self.bounds.get(o.object as usize) else {
                continue;
            };
            let (lo, hi) = (b.min + o.origin, b.max + o.origin);
            let near = self.rank(lo, hi);
            let base = o.object as usize * SLOTS * VECTORS;
            for (slot, &(_, k)) in near.iter().enumerate() {
                let block = match k {
                    usize::MAX => [[0.0; 4]; VECTORS],
                    k => self.block(k, scales, light_scale),
                };
                let at = base + slot * VECTORS;
                if self.blocks[at..at + VECTORS] != block {
                    self.blocks[at..at + VECTORS].copy_from_slice(&block);
                    self.changed = true;
                }
            }
            let rest = (0..self.lamps.len()).filter(|k| near.iter().all(|n| n.1 != *k));
            let centre = (lo + hi) * 0.5;
            let mut folded = lanthorn_geom::sh::Sh9::ZERO;
            for k in rest {
                let [at, tint, angle] = self.block(k, scales, light_scale);
                let (to, value) = lamp_at(at, tint, centre);
                folded.add_light(to, Vec3::from_slice(&tint[..3]) * value, angle[0]);
            }
            self.folded[o.object as usize] = folded;
        }
    }

    /// The [`SLOTS`] strongest lamps at the box `lo..hi` (their light at its nearest point),
    /// strongest first; `usize::MAX` where there are fewer. No allocation a frame.
    fn rank(&self, lo: Vec3, hi: Vec3) -> [(f32, usize); SLOTS] {
        let mut near = [(0.0f32, usize::MAX); SLOTS];
        for (k, l) in self.lamps.iter().enumerate() {
            let v = l.value_at(l.position.clamp(lo, hi).distance(l.position));
            if let Some(at) = near.iter().position(|&(best, _)| v > best) {
                near.copy_within(at..SLOTS - 1, at + 1);
                near[at] = (v, k);
            }
        }
        near
    }

    /// Lamp `k` as the shader reads it.
    fn block(&self, k: usize, scales: &[f32], light_scale: f32) -> [[f32; 4]; VECTORS] {
        let l = &self.lamps[k];
        let style = scales.get(l.style as usize).copied().unwrap_or(1.0);
        let rgb: Vec3 = l.color * (style * l.weight * RANGE_SCALE / 255.0 * light_scale);
        [
            l.position.extend(l.light).to_array(),
            rgb.extend(l.wait).to_array(),
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

/// A lamp's block (`ObjectLamps::block`) seen from `p`: the unit direction to it and its
/// light there before the angle (`light − wait·d`, not below 0).
fn lamp_at(at: [f32; 4], tint: [f32; 4], p: Vec3) -> (Vec3, f32) {
    let to = Vec3::from_slice(&at[..3]) - p;
    let d = to.length();
    (to / d.max(1e-3), (at[3] - tint[3] * d).max(0.0))
}
