//! The sun's shadow cascades (seed 003): two orthographic depth maps from the sun
//! (`geom::cascades` fits them to the view), drawn depth-only — no colour target and no
//! fragment stage, the rasterizer's fast path the seed's anchor missed — and sampled by the
//! terrain with hardware 2×2 PCF (a comparison sampler with linear filtering).
//!
//! The casters are the world's opaque surfaces of the outdoor cells (of every cell in a level
//! that marks none outdoor): an indoor cell's walls cannot shadow what the sun reaches, so a
//! level does not cast its whole self; and the terrain when there is one (its own pipeline,
//! `TerrainDraw::record_casters`, through [`SunCaster`]). Each cascade keeps the cells whose
//! surfaces' bounds fall in its box from the sun. The world's baked lightmaps keep their own sun
//! shadows; the cascades shade only what has no lightmap: the terrain and moving objects.
//!
//! The Renderer owns them (a level with a sun has them, with or without a terrain) and fits
//! them at the start of a frame; `render::sun_cascades` draws them before the scene passes,
//! which sample this frame's maps (`FrameInputs::sun`).

use bytemuck::{Pod, Zeroable};
use glam::{DVec3, Vec3};

use std::ops::Range;

use super::gpu::Gpu;
use super::settings::FrameSettings;
use super::shaders;
use lanthorn_geom::cascades::{fit_cascades, Cascade, CascadeConfig};
use lanthorn_geom::{Aabb, Camera};

/// The cascades' depth format (reverse-Z like the frame's).
pub const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// The cascades: a near one and a far one.
pub const CASCADES: usize = 2;
/// The caster views' stride in their uniform buffer (the dynamic offset alignment).
const CASTER_STRIDE: u64 = 256;

/// One cascade as its casters are drawn (WGSL `CasterView`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct CasterView {
    /// Level coordinates → the sun's clip space.
    pub world_to_light: [[f32; 4]; 4],
    /// Eye-relative coordinates → the sun's clip space.
    pub rel_to_light: [[f32; 4]; 4],
}

/// What the terrain's shading reads of this frame's cascades.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShadowReceiver {
    /// Eye-relative position → each cascade's clip space.
    pub rel_to_light: [[[f32; 4]; 4]; CASCADES],
    /// World units per texel of each cascade.
    pub texel: [f32; CASCADES],
    /// The view distance where the shadows start fading out, and where they are gone.
    pub fade: [f32; 2],
}

/// The world's surfaces that may shadow what the sun reaches (`WorldPass::sun_casters`):
/// opaque ranges of the world's own buffers, a range per casting cell.
pub struct WorldCasters {
    /// The world's vertices (the position first in each).
    pub vertices: wgpu::Buffer,
    /// The world's indices (u32).
    pub indices: wgpu::Buffer,
    /// Bytes a vertex.
    pub stride: u64,
    /// Per casting cell with opaque surfaces: its index range and its vertices' bounds.
    pub cells: Vec<(Range<u32>, Aabb)>,
}

/// What casts into the cascades besides the world (the terrain): picked for this frame's fit
/// before the cascades are drawn, then drawn into each.
pub trait SunCaster {
    /// Picks and uploads what casts into `sun`'s cascades as fitted for `camera`.
    fn pick_casters(
        &mut self,
        gpu: &Gpu,
        sun: &SunShadows,
        camera: &Camera,
        settings: &FrameSettings,
    );
    /// Draws them into cascade `index` (a depth-only pass on its map).
    fn record_casters(&self, index: usize, pass: &mut wgpu::RenderPass<'_>);
}

/// Whether a box can cast into `cascade`: across the sun's view it overlaps where the view
/// lies in the cascade (`Cascade::seen`: a caster beside that shadows nothing seen), and it
/// is not wholly past the far side or beyond the caster reach.
pub fn casts_into(cascade: &Cascade, aabb: &Aabb) -> bool {
    let (lo, hi) = seen_from_sun(cascade, aabb);
    let [x0, y0, x1, y1] = cascade.seen;
    lo.x <= x1 && hi.x >= x0 && lo.y <= y1 && hi.y >= y0 && lo.z <= 1.0 && hi.z >= 0.0
}

/// A box's bounds in `cascade`'s clip space (x, y across the sun's view, z its reverse depth:
/// greater is nearer the sun).
fn seen_from_sun(cascade: &Cascade, aabb: &Aabb) -> (DVec3, DVec3) {
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for p in aabb.corners() {
        let q = cascade.project(p.as_dvec3());
        lo = lo.min(q);
        hi = hi.max(q);
    }
    (lo, hi)
}

/// Whether the shadow of a caster whose bounds from the sun are `caster` may fall in a
/// receiver's: they overlap across the sun's view and some of the receiver lies farther from
/// the sun than the caster's nearest point. Conservative: boxes, not shapes.
fn may_shadow(caster: &(DVec3, DVec3), receiver: &(DVec3, DVec3)) -> bool {
    let ((clo, chi), (rlo, rhi)) = (caster, receiver);
    rlo.x <= chi.x && rhi.x >= clo.x && rlo.y <= chi.y && rhi.y >= clo.y && rlo.z < chi.z
}

/// The cascades' maps, the casters drawn into them and this frame's fit.
pub struct SunShadows {
    /// Resolution, reach and split of the cascades.
    pub config: CascadeConfig,
    /// Which way the sunlight travels (level coordinates).
    light_dir: Vec3,
    /// The cascades' maps as one array, a layer each: what the terrain and the world sample
    /// (one fetch a pixel whichever cascade holds it).
    pub maps: wgpu::TextureView,
    /// Each cascade's layer: the depth attachment its casters draw into.
    layers: [wgpu::TextureView; CASCADES],
    /// How receivers sample the maps (2×2 PCF).
    pub compare_sampler: wgpu::Sampler,
    /// `CASCADES` caster views, `CASTER_STRIDE` apart (a dynamic offset picks one).
    pub caster_buffer: wgpu::Buffer,
    caster_group: wgpu::BindGroup,
    world_pipeline: wgpu::RenderPipeline,
    world: WorldCasters,
    /// Per casting cell, the part of its bounds above the ground under it (`set_ground`;
    /// `None`: all of it underground): what can shadow the ground.
    above_ground: Vec<Option<Aabb>>,
    /// This frame's cascades (`prepare`) and what the terrain's shading reads of them; per
    /// cascade, the world ranges drawn into it and their bounds from the sun.
    pub cascades: Option<[Cascade; CASCADES]>,
    receiver: ShadowReceiver,
    world_draws: [Vec<Range<u32>>; CASCADES],
    world_bounds: [Vec<(DVec3, DVec3)>; CASCADES],
}

impl SunShadows {
    /// Shadow maps for the sun travelling along `light_dir`, with `world` as casters.
    pub fn new(
        gpu: &Gpu,
        light_dir: Vec3,
        config: CascadeConfig,
        world: WorldCasters,
    ) -> SunShadows {
        let device = &gpu.device;
        let texture = create_maps(device, config.resolution);
        let maps = texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(wgpu::TextureViewDimension::D2Array),
            ..Default::default()
        });
        let layers = std::array::from_fn(|i| {
            texture.create_view(&wgpu::TextureViewDescriptor {
                dimension: Some(wgpu::TextureViewDimension::D2),
                base_array_layer: i as u32,
                array_layer_count: Some(1),
                ..Default::default()
            })
        });
        let caster_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("shadow caster views"),
            size: CASTER_STRIDE * CASCADES as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let layout = caster_layout(device, 0);
        let caster_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("shadow world casters"),
            layout: &layout,
            entries: &[caster_entry(0, &caster_buffer)],
        });
        SunShadows {
            config,
            light_dir: light_dir.normalize(),
            maps,
            layers,
            compare_sampler: create_compare_sampler(device),
            caster_buffer,
            caster_group,
            world_pipeline: world_caster_pipeline(device, &layout, world.stride),
            above_ground: world.cells.iter().map(|(_, b)| Some(*b)).collect(),
            world,
            cascades: None,
            receiver: ShadowReceiver::default(),
            world_draws: Default::default(),
            world_bounds: Default::default(),
        }
    }

    /// Fits the cascades to `camera` (level coordinates), writes their caster views and keeps
    /// the world's casters for each.
    pub fn prepare(&mut self, gpu: &Gpu, camera: &Camera) {
        let cascades = fit_cascades(camera, self.light_dir, &self.config);
        let eye = camera.position.as_dvec3();
        let mut receiver = ShadowReceiver::default();
        for (i, c) in cascades.iter().enumerate() {
            let view = CasterView {
                world_to_light: c.world_to_light.as_mat4().to_cols_array_2d(),
                rel_to_light: c.relative_to(eye).to_cols_array_2d(),
            };
            gpu.queue.write_buffer(
                &self.caster_buffer,
                i as u64 * CASTER_STRIDE,
                bytemuck::bytes_of(&view),
            );
            receiver.rel_to_light[i] = view.rel_to_light;
            receiver.texel[i] = c.texel as f32;
            let (draws, bounds) = (&mut self.world_draws[i], &mut self.world_bounds[i]);
            draws.clear();
            bounds.clear();
            for ((r, aabb), above) in self.world.cells.iter().zip(&self.above_ground) {
                if casts_into(c, aabb) {
                    draws.push(r.clone());
                    bounds.extend(above.map(|b| seen_from_sun(c, &b)));
                }
            }
        }
        receiver.fade = self.fade();
        self.receiver = receiver;
        self.cascades = Some(cascades);
    }

    /// The view distance where the shadows start fading out, and where they are gone.
    fn fade(&self) -> [f32; 2] {
        [0.85 * self.config.far, self.config.far]
    }

    /// What the terrain's shading reads of this frame's fit (eye-relative: the terrain's frame
    /// and the level's agree about the eye); `None` before the first `prepare`.
    pub fn receiver(&self) -> Option<ShadowReceiver> {
        self.cascades.map(|_| self.receiver)
    }

    /// This frame's fit as the world's moving objects sample it: level coordinates → each
    /// cascade's clip space, and the cascades' texels (x, y) with the fade (z, w); `None`
    /// before the first `prepare`.
    pub fn world_sampling(&self) -> Option<([[[f32; 4]; 4]; CASCADES], [f32; 4])> {
        let cascades = self.cascades.as_ref()?;
        let [near, far] = self.fade();
        Some((
            cascades.map(|c| c.world_to_light.as_mat4().to_cols_array_2d()),
            [
                cascades[0].texel as f32,
                cascades[1].texel as f32,
                near,
                far,
            ],
        ))
    }

    /// Cuts each caster's bounds to what lies above `ground_min` of them (the lowest ground
    /// under a box): a wall's footing, sunk into the terrain to seal it, shadows only ground
    /// the terrain shadows already (sunlight comes from above), and its box reaching down
    /// would mark far more of the terrain as under a brush's shadow.
    pub fn set_ground(&mut self, ground_min: impl Fn(&Aabb) -> f32) {
        for ((_, b), above) in self.world.cells.iter().zip(&mut self.above_ground) {
            let z = ground_min(b).max(b.min.z);
            *above = (z <= b.max.z).then(|| Aabb::new(b.min.with_z(z), b.max));
        }
    }

    /// Whether a shadow of the world (brushes: walls, towers, objects) may fall in `receiver`
    /// (level coordinates) in this frame's cascades: the terrain shades such pieces' shadows
    /// per pixel.
    pub fn world_shadow_may_fall_on(&self, receiver: &Aabb) -> bool {
        let Some(cascades) = &self.cascades else {
            return false;
        };
        cascades.iter().zip(&self.world_bounds).any(|(c, casters)| {
            let r = seen_from_sun(c, receiver);
            casters.iter().any(|caster| may_shadow(caster, &r))
        })
    }

    /// The depth attachment of cascade `index`.
    pub fn map(&self, index: usize) -> &wgpu::TextureView {
        &self.layers[index]
    }

    /// The dynamic offset of cascade `index`'s caster view.
    pub fn caster_offset(index: usize) -> u32 {
        (index as u64 * CASTER_STRIDE) as u32
    }

    /// The world's casters into cascade `index` (a render pass on its layer view).
    pub fn record_world(&self, index: usize, pass: &mut wgpu::RenderPass<'_>) {
        let draws = &self.world_draws[index];
        if draws.is_empty() {
            return;
        }
        pass.set_pipeline(&self.world_pipeline);
        pass.set_bind_group(0, &self.caster_group, &[Self::caster_offset(index)]);
        pass.set_vertex_buffer(0, self.world.vertices.slice(..));
        pass.set_index_buffer(self.world.indices.slice(..), wgpu::IndexFormat::Uint32);
        for r in draws {
            pass.draw_indexed(r.clone(), 0, 0..1);
        }
    }

    /// World ranges drawn into each cascade this frame (the stats).
    pub fn world_draw_counts(&self) -> [usize; CASCADES] {
        std::array::from_fn(|i| self.world_draws[i].len())
    }
}

/// The caster view uniform at `binding`, one cascade at a time by dynamic offset.
pub fn caster_layout_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: wgpu::BufferSize::new(std::mem::size_of::<CasterView>() as u64),
        },
        count: None,
    }
}

fn caster_layout(device: &wgpu::Device, binding: u32) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("shadow caster view"),
        entries: &[caster_layout_entry(binding)],
    })
}

/// The caster view buffer at `binding`, one cascade's worth wide.
pub fn caster_entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset: 0,
            size: wgpu::BufferSize::new(std::mem::size_of::<CasterView>() as u64),
        }),
    }
}

/// The cascades' maps, a layer each (one size for both: a shader samples whichever holds a
/// point with one fetch, where two textures took a fetch of each, a software rasterizer
/// running both sides of the branch between them).
fn create_maps(device: &wgpu::Device, resolution: u32) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("shadow cascades"),
        size: wgpu::Extent3d {
            width: resolution,
            height: resolution,
            depth_or_array_layers: CASCADES as u32,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: SHADOW_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    })
}

/// Linear filtering on a comparison sampler: the four texels around a point compared and
/// blended (2×2 PCF in one fetch). Reverse-Z: lit where the receiver is at least as near the
/// sun as the caster.
pub fn create_compare_sampler(device: &wgpu::Device) -> wgpu::Sampler {
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("shadow compare"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        compare: Some(wgpu::CompareFunction::GreaterEqual),
        ..Default::default()
    })
}

fn world_caster_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    stride: u64,
) -> wgpu::RenderPipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("shadow.wgsl"),
        source: wgpu::ShaderSource::Wgsl(shaders::shadow().into()),
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("shadow world casters"),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    const POSITION: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![0 => Float32x3];
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("shadow world casters"),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_world_caster"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: stride,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &POSITION,
            })],
        },
        // Both faces: a wall's back is what faces the sun as often as its front.
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: Some(caster_depth_state()),
        multisample: Default::default(),
        fragment: None,
        multiview_mask: None,
        cache: None,
    })
}

/// Casters keep what is nearest the sun (reverse-Z: the greater depth).
pub fn caster_depth_state() -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: SHADOW_FORMAT,
        depth_write_enabled: Some(true),
        depth_compare: Some(wgpu::CompareFunction::Greater),
        stencil: Default::default(),
        bias: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanthorn_geom::rng::XorShift;
    use lanthorn_geom::CameraSpec;

    /// Whether the ray from `p` towards the sun (against `light_dir`) passes through `b`
    /// (slabs).
    fn ray_hits(p: DVec3, light_dir: DVec3, b: &Aabb) -> bool {
        let d = -light_dir;
        let (mut t0, mut t1) = (1e-6f64, f64::INFINITY);
        for k in 0..3 {
            let (lo, hi) = (b.min[k] as f64, b.max[k] as f64);
            if d[k].abs() < 1e-12 {
                if p[k] < lo || p[k] > hi {
                    return false;
                }
                continue;
            }
            let (a, c) = ((lo - p[k]) / d[k], (hi - p[k]) / d[k]);
            t0 = t0.max(a.min(c));
            t1 = t1.min(a.max(c));
        }
        t0 <= t1
    }

    fn random_box(rng: &mut XorShift, around: f64, size: f64) -> Aabb {
        let c = DVec3::new(
            rng.range_f64(-around, around),
            rng.range_f64(-around, around),
            rng.range_f64(-200.0, 200.0),
        );
        let h = DVec3::new(
            rng.range_f64(1.0, size),
            rng.range_f64(1.0, size),
            rng.range_f64(1.0, size),
        );
        Aabb::new((c - h).as_vec3(), (c + h).as_vec3())
    }

    /// A caster's shadow may fall in a receiver's box exactly when some ray from the receiver
    /// towards the sun meets the caster (brute force over a grid of points in the receiver):
    /// the test never misses a shadowed receiver, and rules out most of those no ray reaches.
    #[test]
    fn a_brush_shadow_is_never_missed_and_mostly_placed() {
        let light = Vec3::new(0.2, -0.74, -0.64).normalize();
        let camera = Camera::new(
            CameraSpec {
                position: Vec3::new(0.0, -1500.0, 600.0),
                yaw: 90.0,
                pitch: -20.0,
            },
            16.0 / 9.0,
        );
        let cascade = fit_cascades(&camera, light, &CascadeConfig::default())[1];
        let mut rng = XorShift::seeded(7);
        let (mut shadowed, mut clear, mut ruled_out) = (0, 0, 0);
        for _ in 0..1000 {
            let caster = random_box(&mut rng, 600.0, 200.0);
            let receiver = random_box(&mut rng, 900.0, 150.0);
            let (lo, hi) = (receiver.min.as_dvec3(), receiver.max.as_dvec3());
            let hit = (0..9 * 9 * 9).any(|k| {
                let f = DVec3::new((k % 9) as f64, (k / 9 % 9) as f64, (k / 81) as f64) / 8.0;
                ray_hits(lo + (hi - lo) * f, light.as_dvec3(), &caster)
            });
            let may = may_shadow(
                &seen_from_sun(&cascade, &caster),
                &seen_from_sun(&cascade, &receiver),
            );
            if hit {
                shadowed += 1;
                assert!(may, "missed: caster {caster:?}, receiver {receiver:?}");
            } else {
                clear += 1;
                ruled_out += !may as usize;
            }
        }
        eprintln!("{shadowed} shadowed, {clear} clear of which {ruled_out} ruled out");
        assert!(shadowed > 20 && clear > 100, "{shadowed} / {clear}");
        assert!(
            ruled_out * 10 > clear * 7,
            "only {ruled_out} of {clear} ruled out"
        );
    }
}
