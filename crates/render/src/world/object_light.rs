//! The light of moving objects' faces from the level's light grid: each frame, every visible
//! object with grid light (`VisibleObject::ambient`) has each of its faces lit by those
//! spherical harmonics and the sun at the face's normal — exact per vertex for a flat face —
//! packed ten bits a channel ([`pack_object_light`]), three words a surface in a storage buffer
//! the vertex shader reads by surface index: the light with the sun as the grid sees it, or,
//! while the world samples the sun's shadow cascades, the light without the sun's direct light
//! and that light apart (the fragment adds it where the cascades say the sun reaches); and the
//! face's normal (for the lamps a fragment adds, `object_lamps`). A face's light includes the
//! lamps its object folds into a harmonic (`object_lamps`, past those it takes per pixel and
//! per vertex).
//! The object's draw record says so (`GRID_LIT`); other records keep their own light.

use glam::Vec3;

use lanthorn_level::Level;
use lanthorn_vis::VisibleSet;

/// The ten-bit value that means a light multiplier of 1 in the object light buffer: finer than
/// a draw record's bytes (`LIGHT_UNIT`), whose steps show on a dim face.
pub const OBJECT_LIGHT_UNIT: u32 = 256;

/// Packs a light multiplier (linear RGB, 0..4) ten bits a channel, red lowest.
fn pack_object_light(rgb: [f32; 3]) -> u32 {
    let bits = |v: f32| (v * OBJECT_LIGHT_UNIT as f32).round().clamp(0.0, 1023.0) as u32;
    bits(rgb[0]) | (bits(rgb[1]) << 10) | (bits(rgb[2]) << 20)
}

/// Words a surface in the buffer: the light, the sun's direct light, the normal, and the
/// texture's u and v directions on the face (the tangent frame of its normal map).
pub const OBJECT_LIGHT_WORDS: usize = 5;
const WORDS: usize = OBJECT_LIGHT_WORDS;

/// A unit normal as four signed bytes (WGSL `unpack4x8snorm`), x lowest.
fn pack_normal(n: Vec3) -> u32 {
    let byte = |v: f32| ((v.clamp(-1.0, 1.0) * 127.0).round() as i8) as u8 as u32;
    byte(n.x) | (byte(n.y) << 8) | (byte(n.z) << 16)
}

/// The unit directions in which a surface's texture coordinates u and v grow along the face
/// (from its first three vertices), or zero for a degenerate one.
fn texture_axes(s: &lanthorn_level::Surface) -> (Vec3, Vec3) {
    let [a, b, c] = match s.vertices.as_slice() {
        [a, b, c, ..] => [a, b, c],
        _ => return (Vec3::ZERO, Vec3::ZERO),
    };
    let (e1, e2) = (b.position - a.position, c.position - a.position);
    let (d1, d2) = (b.uv - a.uv, c.uv - a.uv);
    let det = d1.x * d2.y - d2.x * d1.y;
    if det.abs() < 1e-12 {
        return (Vec3::ZERO, Vec3::ZERO);
    }
    let u = (e1 * d2.y - e2 * d1.y) / det;
    let v = (e2 * d1.x - e1 * d2.x) / det;
    (u.normalize_or_zero(), v.normalize_or_zero())
}

/// Per-surface object light, on the CPU and the GPU.
pub(super) struct ObjectLight {
    pub(super) buffer: wgpu::Buffer,
    /// What the buffer holds: per level surface [`WORDS`] words (its lights 0 where no grid-lit
    /// object's face).
    packed: Vec<u32>,
    /// Per level object: its surfaces with their normals.
    faces: Vec<Vec<(u32, Vec3)>>,
    minlight: f32,
    /// The range of `packed` written this frame.
    dirty: Option<(usize, usize)>,
}

impl ObjectLight {
    pub(super) fn create(device: &wgpu::Device, level: &Level) -> ObjectLight {
        let n = WORDS * level.surfaces.len().max(1);
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
        let mut packed = vec![0; n];
        for (s, surface) in level.surfaces.iter().enumerate() {
            packed[WORDS * s + 2] = pack_normal(surface.normal);
            let (u, v) = texture_axes(surface);
            packed[WORDS * s + 3] = pack_normal(u);
            packed[WORDS * s + 4] = pack_normal(v);
        }
        ObjectLight {
            buffer,
            packed,
            faces,
            minlight: level.light_grid.as_ref().map_or(0.0, |g| g.minlight),
            dirty: Some((0, n - 1)),
        }
    }

    /// Lights the faces of `visible`'s grid-lit objects (`light_scale`: the overbright;
    /// `steady`: style 0's brightness now, which scales the minimum light as in a lightmap;
    /// `folded`: per level object the lamps folded into a harmonic (`object_lamps`), added;
    /// `cascades`: the sun's direct light apart, for the shadow cascades).
    pub(super) fn update(
        &mut self,
        visible: &VisibleSet,
        (light_scale, steady): (f32, f32),
        folded: &[lanthorn_geom::sh::Sh9],
        cascades: bool,
    ) {
        let minlight = self.minlight * steady;
        for o in &visible.objects {
            let (Some(l), Some(faces)) = (&o.ambient, self.faces.get(o.object as usize)) else {
                continue;
            };
            let lamps = folded.get(o.object as usize).copied().unwrap_or_default();
            for &(s, n) in faces {
                let (mut light, sun) = if cascades {
                    lanthorn_light::grid::surface_light_parts(l, n, minlight, light_scale)
                } else {
                    let all = lanthorn_light::grid::surface_light(l, n, minlight, light_scale);
                    (all, [0.0; 3])
                };
                let more = lamps.eval(n).max(Vec3::ZERO);
                light = std::array::from_fn(|c| light[c] + more[c]);
                let i = WORDS * s as usize;
                set(
                    &mut self.packed,
                    &mut self.dirty,
                    i,
                    pack_object_light(light),
                );
                set(
                    &mut self.packed,
                    &mut self.dirty,
                    i + 1,
                    pack_object_light(sun),
                );
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

/// Word `i` of `packed` set to `value`, the range written this frame grown to hold it.
fn set(packed: &mut [u32], dirty: &mut Option<(usize, usize)>, i: usize, value: u32) {
    if packed[i] != value {
        packed[i] = value;
        let (lo, hi) = dirty.unwrap_or((i, i));
        *dirty = Some((lo.min(i), hi.max(i)));
    }
}
