//! Bloom (seed 003's "downsample, colour remap, separable Gaussian"): light brighter than a
//! threshold bleeds into its surroundings. Three offscreen passes into textures of its own
//! (the bright pass straight to an eighth of the frame, a horizontal and a vertical blur) and
//! its own pass adding the result onto the frame. All in linear light on the LDR
//! frame; with bloom off nothing of it runs and the frame is untouched. [`reference()`] is the
//! same chain on the CPU, which the GPU test checks the pass against.

use crate::bindings::{sampler_entry, texture_entry, uniform_entry};
use crate::gpu::Gpu;
use crate::pass::{
    Attachment, FrameInputs, Load, Offscreen, Pass, PassAttachments, Prepared, Scope,
};
use crate::shaders;
use crate::target::{target_texture, COLOR_FORMAT};

/// Where bloom starts (linear luminance), the width of its soft knee and how strongly it adds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BloomParams {
    /// Linear luminance where bloom starts.
    pub threshold: f32,
    /// Width of the soft knee above the threshold, in linear luminance.
    pub knee: f32,
    /// How strongly the blurred light is added back.
    pub intensity: f32,
}

impl Default for BloomParams {
    fn default() -> Self {
        BloomParams {
            threshold: 0.35,
            knee: 0.25,
            intensity: 1.0,
        }
    }
}

impl BloomParams {
    /// On the HDR scene: only light past the display's white blooms (the lightmaps'
    /// overbright, the sun on bright walls), added before the tone map.
    pub const HDR: BloomParams = BloomParams {
        threshold: 1.0,
        knee: 0.5,
        intensity: 1.0,
    };
}

/// The Gaussian's standard deviation in eighth-frame texels (12 pixels of the frame).
pub const SIGMA: f32 = 1.5;
/// The Gaussian's taps each side of the centre.
pub const TAPS: usize = 6;

/// The uniform of shaders/bloom.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BloomUniform {
    /// x: the luminance (linear) where bloom starts, y: the width of its soft knee, z: the
    /// composite's intensity, w: 0.
    pub params: [f32; 4],
    /// The Gaussian's weight at offset 0 (`[0].x`), then its three bilinear samples each side
    /// as weight and offset in texels: `[0].yz`, (`[0].w`, `[1].x`), `[1].yz`.
    pub weights: [[f32; 4]; 2],
}

impl BloomParams {
    /// The shader's uniform for these parameters, with the blur's weights and samples.
    pub fn uniform(&self) -> BloomUniform {
        let w = gaussian_weights();
        let [(w1, o1), (w2, o2), (w3, o3)] = blur_samples();
        BloomUniform {
            params: [self.threshold, self.knee, self.intensity, 0.0],
            weights: [[w[0], w1, o1, w2], [o2, w3, o3, 0.0]],
        }
    }
}

/// The blur's taps 1–6 each side as three bilinear samples: a pair of taps `a`, `a + 1` is one
/// sample at `(a·w_a + (a+1)·w_(a+1)) / (w_a + w_(a+1))` texels, weighted by the sum.
pub fn blur_samples() -> [(f32, f32); TAPS / 2] {
    let w = gaussian_weights();
    std::array::from_fn(|k| {
        let a = 2 * k + 1;
        let sum = w[a] + w[a + 1];
        (sum, (a as f32 * w[a] + (a + 1) as f32 * w[a + 1]) / sum)
    })
}

/// The blur's weights for offsets 0..=TAPS (each used on both sides), summing to 1.
pub fn gaussian_weights() -> [f32; TAPS + 1] {
    let raw: [f32; TAPS + 1] =
        std::array::from_fn(|k| (-((k * k) as f32) / (2.0 * SIGMA * SIGMA)).exp());
    let sum = raw[0] + 2.0 * raw[1..].iter().sum::<f32>();
    raw.map(|w| w / sum)
}

/// The intermediate format: half floats keep the blur's faint tails.
const BLOOM_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// The offscreen steps: label, fragment entry, which texture it reads and which it writes
/// (0 the frame, 1 eighth, 2 scratch).
const STEPS: [(&str, &str, usize, usize); 3] = [
    ("bloom bright", "fs_bright", 0, 1),
    ("bloom blur h", "fs_blur_h", 1, 2),
    ("bloom blur v", "fs_blur_v", 2, 1),
];

/// Eighth texels a side of the tiles the bright pass marks (WGSL `BLOOM_TILE`, 64 pixels of the
/// frame): at least the blur's reach, so light in one tile blooms only into it and its eight
/// neighbours.
pub const TILE: u32 = 8;
const _: () = assert!(TILE as usize >= TAPS);

/// Bloom's offscreen steps (bright pass, horizontal and vertical blur) and the composite
/// onto the frame, with the eighth-size textures they draw into.
pub struct BloomPass {
    /// Eighth and scratch (eighth) textures' views.
    views: [wgpu::TextureView; 2],
    /// Per step, and the composite (reading the eighth).
    bind_groups: [wgpu::BindGroup; 4],
    pipelines: [wgpu::RenderPipeline; 4],
    /// The tiles with light (`marks` as the bright pass writes it, `lit` as the later steps
    /// read it), cleared each frame from `no_marks`.
    tiles: wgpu::Buffer,
    no_marks: Vec<u8>,
    tile_groups: [wgpu::BindGroup; 2],
    tile_count: u32,
    /// The frame size it was made for.
    pub size: (u32, u32),
}

impl BloomPass {
    /// Bloom for frames of `size`, read from `frame` (the LDR frame's colour, or the HDR
    /// scene, where the tone map adds `blurred()` instead of this pass's composite).
    pub fn create(
        gpu: &Gpu,
        frame: &wgpu::TextureView,
        size: (u32, u32),
        params: BloomParams,
    ) -> BloomPass {
        let device = &gpu.device;
        let (w, h) = size;
        let eighth = eighth_size((w, h));
        let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING;
        let views = [("bloom eighth", eighth), ("bloom scratch", eighth)].map(|(label, size)| {
            target_texture(gpu, label, size, BLOOM_FORMAT, usage).create_view(&Default::default())
        });
        let uniform = wgpu::util::DeviceExt::create_buffer_init(
            device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("bloom"),
                contents: bytemuck::bytes_of(&params.uniform()),
                usage: wgpu::BufferUsages::UNIFORM,
            },
        );
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("bloom"),
            entries: &[
                uniform_entry(0, wgpu::ShaderStages::FRAGMENT),
                // The tiled steps' vertices place their tiles by its size.
                wgpu::BindGroupLayoutEntry {
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ..texture_entry(1, wgpu::TextureViewDimension::D2)
                },
                sampler_entry(2),
            ],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("bloom"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let sources: [&wgpu::TextureView; 3] = [frame, &views[0], &views[1]];
        let bind_group = |source: &wgpu::TextureView| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("bloom"),
                layout: &layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: uniform.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(source),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Sampler(&sampler),
                    },
                ],
            })
        };
        let bind_groups = [
            bind_group(sources[STEPS[0].2]),
            bind_group(sources[STEPS[1].2]),
            bind_group(sources[STEPS[2].2]),
            bind_group(&views[0]),
        ];
        let grid = (eighth.0.div_ceil(TILE), eighth.1.div_ceil(TILE));
        let tile_count = grid.0 * grid.1;
        let tiles = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bloom tiles"),
            size: 4 * u64::from(tile_count),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let tile_layouts = tile_layouts(device);
        let tile_groups = [0, 1].map(|binding| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("bloom tiles"),
                layout: &tile_layouts[binding as usize],
                entries: &[wgpu::BindGroupEntry {
                    binding,
                    resource: tiles.as_entire_binding(),
                }],
            })
        });
        BloomPass {
            pipelines: create_pipelines(device, &layout, &tile_layouts),
            views,
            bind_groups,
            tiles,
            no_marks: vec![0; 4 * tile_count as usize],
            tile_groups,
            tile_count,
            size,
        }
    }

    /// Clears the tiles' marks for this frame's bright pass (before the frame is submitted).
    pub fn clear_marks(&self, gpu: &Gpu) {
        gpu.queue.write_buffer(&self.tiles, 0, &self.no_marks);
    }

    /// The blurred bright light at an eighth of the frame, as the composite adds it (times the
    /// intensity).
    pub fn blurred(&self) -> &wgpu::TextureView {
        &self.views[0]
    }
}

/// The tiles' group (1) as the bright pass writes it (binding 0, fragment stage) and as the
/// tiled steps read it (binding 1, vertex stage).
fn tile_layouts(device: &wgpu::Device) -> [wgpu::BindGroupLayout; 2] {
    [
        (0, wgpu::ShaderStages::FRAGMENT, false),
        (1, wgpu::ShaderStages::VERTEX, true),
    ]
    .map(|(binding, visibility, read_only)| {
        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("bloom tiles"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding,
                visibility,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        })
    })
}

fn create_pipelines(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    tile_layouts: &[wgpu::BindGroupLayout; 2],
) -> [wgpu::RenderPipeline; 4] {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("bloom.wgsl"),
        source: wgpu::ShaderSource::Wgsl(shaders::bloom().into()),
    });
    let pipeline_layouts = tile_layouts.each_ref().map(|tiles| {
        device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("bloom"),
            bind_group_layouts: &[Some(layout), Some(tiles)],
            immediate_size: 0,
        })
    });
    // The bright pass covers the frame and marks; the rest draw the marked tiles.
    let make = |label, fragment, target: wgpu::ColorTargetState| {
        let (tiles, vertex) = if fragment == "fs_bright" {
            (0, "vs_fullscreen")
        } else {
            (1, "vs_lit_tiles")
        };
        crate::pass::fullscreen_pipeline(
            device,
            label,
            &pipeline_layouts[tiles],
            &module,
            (vertex, fragment),
            target,
        )
    };
    let step = |i: usize| make(STEPS[i].0, STEPS[i].1, BLOOM_FORMAT.into());
    // Added onto the frame (in linear light: the frame's view is sRGB); its alpha stays.
    let add = wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    };
    let keep = wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::Zero,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    };
    let composite = wgpu::ColorTargetState {
        format: COLOR_FORMAT,
        blend: Some(wgpu::BlendState {
            color: add,
            alpha: keep,
        }),
        write_mask: wgpu::ColorWrites::ALL,
    };
    [
        step(0),
        step(1),
        step(2),
        make("bloom composite", "fs_composite", composite),
    ]
}

impl Pass for BloomPass {
    fn scope(&self) -> Scope {
        Scope {
            name: "bloom",
            prepare: "bloom prepare",
            record: "bloom record",
        }
    }

    fn attachments(&self) -> PassAttachments {
        PassAttachments {
            color: (Attachment::FrameColor, Load::Keep),
            depth: None,
        }
    }

    /// Everything it reads is on the GPU already (the frame, its fixed uniform); the tiles'
    /// marks start this frame cleared.
    fn prepare(&mut self, gpu: &Gpu, _: &FrameInputs) -> Prepared {
        self.clear_marks(gpu);
        Prepared::Recorded
    }

    fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.record_step(3, pass);
    }

    /// The horizontal blur's target starts cleared: the tiles it does not draw hold no bloom.
    /// The vertical blur's keeps the bright pass's zeros there.
    fn offscreen(&self) -> Vec<Offscreen<'_>> {
        STEPS
            .iter()
            .map(|&(label, entry, _, to)| Offscreen {
                label,
                color: Some(&self.views[to - 1]),
                depth: None,
                clear: (entry == "fs_blur_h").then_some(wgpu::Color::TRANSPARENT),
            })
            .collect()
    }

    fn record_offscreen(&self, index: usize, pass: &mut wgpu::RenderPass<'_>) {
        self.record_step(index, pass);
    }
}

impl BloomPass {
    /// Step `index` (the offscreen steps, then the composite): the bright pass over the whole
    /// frame, the others over the tiles.
    fn record_step(&self, index: usize, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.pipelines[index]);
        pass.set_bind_group(0, &self.bind_groups[index], &[]);
        if index == 0 {
            pass.set_bind_group(1, &self.tile_groups[0], &[]);
            pass.draw(0..3, 0..1);
        } else {
            pass.set_bind_group(1, &self.tile_groups[1], &[]);
            pass.draw(0..6, 0..self.tile_count);
        }
    }
}

/// The CPU twin of the pass: the bloom `params` adds to `frame` (linear RGB, row-major,
/// `size`), at full size. Same steps, texel reads and bilinear upsampling as the shader.
pub fn reference(frame: &[[f32; 3]], size: (u32, u32), params: BloomParams) -> Vec<[f32; 3]> {
    let (w, h) = size;
    let half_size = halved((w, h));
    let quarter_size = halved(half_size);
    let eighth_size = halved(quarter_size);
    let half: Vec<[f32; 3]> = downsample(frame, size, half_size)
        .into_iter()
        .map(|c| {
            let luma = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
            let k = smoothstep(params.threshold, params.threshold + params.knee, luma);
            c.map(|v| v * k)
        })
        .collect();
    let quarter = block_means(&half, half_size, quarter_size);
    let eighth = block_means(&quarter, quarter_size, eighth_size);
    let blurred = blur(&blur(&eighth, eighth_size, (1, 0)), eighth_size, (0, 1));
    downsample(&blurred, eighth_size, size)
        .into_iter()
        .map(|c| c.map(|v| v * params.intensity))
        .collect()
}

/// A size halved, as the chain's steps round it (at least a texel).
fn halved((w, h): (u32, u32)) -> (u32, u32) {
    ((w / 2).max(1), (h / 2).max(1))
}

/// The bloom's texture size for a frame of `size`: halved three times.
fn eighth_size(size: (u32, u32)) -> (u32, u32) {
    halved(halved(halved(size)))
}

fn smoothstep(a: f32, b: f32, x: f32) -> f32 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn at(img: &[[f32; 3]], (w, h): (u32, u32), x: i64, y: i64) -> [f32; 3] {
    let x = x.clamp(0, w as i64 - 1) as usize;
    let y = y.clamp(0, h as i64 - 1) as usize;
    img[y * w as usize + x]
}

/// `img` at half its size `to`: each pixel the mean of the 2×2 block under it (edges clamped).
fn block_means(img: &[[f32; 3]], size: (u32, u32), to: (u32, u32)) -> Vec<[f32; 3]> {
    (0..to.0 * to.1)
        .map(|i| {
            let (x, y) = ((i % to.0) as i64 * 2, (i / to.0) as i64 * 2);
            let block =
                [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dy)| at(img, size, x + dx, y + dy));
            std::array::from_fn(|c| block.iter().map(|t| t[c]).sum::<f32>() / 4.0)
        })
        .collect()
}

/// `img` at size `to`: one bilinear sample at each pixel's centre (for halving, the 2×2 average).
fn downsample(img: &[[f32; 3]], size: (u32, u32), to: (u32, u32)) -> Vec<[f32; 3]> {
    (0..to.0 * to.1)
        .map(|i| {
            let (x, y) = (i % to.0, i / to.0);
            let uv = (
                (x as f32 + 0.5) / to.0 as f32,
                (y as f32 + 0.5) / to.1 as f32,
            );
            bilinear(img, size, uv)
        })
        .collect()
}

fn blur(img: &[[f32; 3]], size: (u32, u32), (sx, sy): (i64, i64)) -> Vec<[f32; 3]> {
    let w = gaussian_weights();
    let mut out = Vec::with_capacity(img.len());
    for y in 0..size.1 as i64 {
        for x in 0..size.0 as i64 {
            let mut c = [0.0; 3];
            for k in -(TAPS as i64)..=TAPS as i64 {
                let t = at(img, size, x + k * sx, y + k * sy);
                let wk = w[k.unsigned_abs() as usize];
                (0..3).for_each(|i| c[i] += wk * t[i]);
            }
            out.push(c);
        }
    }
    out
}

/// A bilinear sample at `(u, v)` with clamped edges, as a linear sampler takes it.
fn bilinear(img: &[[f32; 3]], size: (u32, u32), (u, v): (f32, f32)) -> [f32; 3] {
    let (fx, fy) = (u * size.0 as f32 - 0.5, v * size.1 as f32 - 0.5);
    let (x0, y0) = (fx.floor(), fy.floor());
    let (tx, ty) = (fx - x0, fy - y0);
    let (x0, y0) = (x0 as i64, y0 as i64);
    let lerp = |a: [f32; 3], b: [f32; 3], t: f32| std::array::from_fn(|i| a[i] + (b[i] - a[i]) * t);
    let top = lerp(at(img, size, x0, y0), at(img, size, x0 + 1, y0), tx);
    let bottom = lerp(at(img, size, x0, y0 + 1), at(img, size, x0 + 1, y0 + 1), tx);
    lerp(top, bottom, ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blur_weights_sum_to_one_and_fall_off() {
        let w = gaussian_weights();
        let sum = w[0] + 2.0 * w[1..].iter().sum::<f32>();
        assert!((sum - 1.0).abs() < 1e-6);
        assert!(w.windows(2).all(|p| p[1] < p[0]));
    }

    /// A lone bright texel: the reference spreads what passed the threshold (energy kept by
    /// the averages and the normalised blur), and a frame below the threshold adds nothing.
    #[test]
    fn the_reference_keeps_the_bright_energy_and_ignores_the_dark() {
        let size = (128, 128);
        let params = BloomParams::default();
        let dark = vec![[0.3; 3]; 128 * 128];
        assert!(reference(&dark, size, params)
            .iter()
            .all(|c| c.iter().all(|&v| v == 0.0)));
        let mut bright = vec![[0.0; 3]; 128 * 128];
        // An 8×8 white block on eighth-texel boundaries: its eighth texel is white.
        for y in 64..72 {
            for x in 64..72 {
                bright[y * 128 + x] = [1.0; 3];
            }
        }
        let added = reference(&bright, size, params);
        let total: f32 = added.iter().map(|c| c[1]).sum();
        // 64 white texels × intensity, spread: the sum over the frame keeps it (bilinear
        // upsampling of an eighth texel covers 64 pixels).
        assert!(
            (total - 64.0 * params.intensity).abs() < 0.01 * 64.0,
            "{total}"
        );
        let peak = added.iter().map(|c| c[1]).fold(0.0, f32::max);
        assert!(peak < 0.2 * params.intensity, "spread out: peak {peak}");
    }
}
