//! HDR (seed 003's bloom on a floating-point frame): with `FrameSettings::hdr` the scene passes
//! draw linear, unclamped light into a half-float scene (`target::FrameTarget::hdr`) — the
//! world its lightmaps' ×2 overbright past white instead of clamping it — and this pass maps
//! it into the frame's sRGB colour, which the overlays then draw on. The operator is the
//! shoulder of Khronos' PBR Neutral (2024) without its toe: a colour whose brightest channel
//! is below the compression start (0.76) is unchanged, so the HDR frame is the LDR one
//! wherever the LDR one did not clip; above it, highlights roll off to white and desaturate
//! instead of clipping per channel. The toe (an offset of up to 0.04 taken off every colour)
//! is left out because Quake's levels live in the bottom tenth of linear light, where it
//! would crush a 0.04 wall to 0.01. With bloom on, bloom's chain reads the HDR scene (only
//! light past white blooms, [`BloomParams::HDR`]) as this pass's offscreen steps, and this
//! pass adds the blurred light before the tone map instead of bloom's own composite. With
//! HDR off none of it exists and the frame is the LDR path's, unchanged.

use crate::bindings::{sampler_entry, texture_entry, uniform_entry};
use crate::bloom::{BloomParams, BloomPass};
use crate::gpu::Gpu;
use crate::pass::{
    Attachment, FrameInputs, Load, Offscreen, Pass, PassAttachments, Prepared, Scope,
};
use crate::shaders;
use crate::target::COLOR_FORMAT;

/// The operator's compression start (the published constant; the shader's
/// `START_COMPRESSION`).
pub const START_COMPRESSION: f32 = 0.76;
/// The operator's desaturation (the published constant; the shader's `DESATURATION`).
pub const DESATURATION: f32 = 0.15;

/// The uniform of shaders/tonemap.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ToneMapUniform {
    /// x: the light's scale (2^exposure), y: bloom intensity, z, w: 0.
    pub params: [f32; 4],
}

/// The tone map of linear `color`: PBR Neutral's shoulder without its toe (the CPU twin of
/// the shader's).
pub fn neutral_shoulder(color: [f32; 3]) -> [f32; 3] {
    let c = color;
    let peak = c[0].max(c[1]).max(c[2]);
    if peak < START_COMPRESSION {
        return c;
    }
    let d = 1.0 - START_COMPRESSION;
    let new_peak = 1.0 - d * d / (peak + d - START_COMPRESSION);
    let g = 1.0 - 1.0 / (DESATURATION * (peak - new_peak) + 1.0);
    c.map(|v| {
        let v = v * new_peak / peak;
        v + (new_peak - v) * g
    })
}

/// Maps the HDR scene into the frame's sRGB colour, adding bloom's blurred light first
/// when bloom is on.
pub struct ToneMapPass {
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
    uniform: wgpu::Buffer,
    /// The exposure (stops) the uniform holds.
    exposure: f32,
    /// Bloom's chain on the HDR scene (its offscreen steps are this pass's).
    bloom: Option<BloomPass>,
    /// The frame size it was made for.
    pub size: (u32, u32),
}

impl ToneMapPass {
    /// The tone map of `scene` (the HDR scene's view, `size`), with bloom or without.
    pub fn create(
        gpu: &Gpu,
        scene: &wgpu::TextureView,
        size: (u32, u32),
        bloom: bool,
    ) -> ToneMapPass {
        let device = &gpu.device;
        let bloom = bloom.then(|| BloomPass::create(gpu, scene, size, BloomParams::HDR));
        let uniform = ToneMapUniform {
            params: [1.0, BloomParams::HDR.intensity, 0.0, 0.0],
        };
        let uniform = wgpu::util::DeviceExt::create_buffer_init(
            device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("tone map"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            },
        );
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tone map"),
            entries: &[
                uniform_entry(0, wgpu::ShaderStages::FRAGMENT),
                texture_entry(1, wgpu::TextureViewDimension::D2),
                texture_entry(2, wgpu::TextureViewDimension::D2),
                sampler_entry(3),
            ],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("tone map bloom"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        // Without bloom the scene stands in for the texture the shader does not read.
        let added = bloom.as_ref().map_or(scene, |b| b.blurred());
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("tone map"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniform.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(scene),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::TextureView(added),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        });
        let fragment = if bloom.is_some() {
            "fs_tone_map_bloom"
        } else {
            "fs_tone_map"
        };
        ToneMapPass {
            pipeline: create_pipeline(device, &layout, fragment),
            bind_group,
            uniform,
            exposure: 0.0,
            bloom,
            size,
        }
    }

    /// Whether bloom's chain runs before the tone map.
    pub fn blooms(&self) -> bool {
        self.bloom.is_some()
    }
}

fn create_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    fragment: &str,
) -> wgpu::RenderPipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("tonemap.wgsl"),
        source: wgpu::ShaderSource::Wgsl(shaders::tonemap().into()),
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("tone map"),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    crate::pass::fullscreen_pipeline(
        device,
        "tone map",
        &pipeline_layout,
        &module,
        ("vs_fullscreen", fragment),
        COLOR_FORMAT.into(),
    )
}

impl Pass for ToneMapPass {
    fn scope(&self) -> Scope {
        Scope {
            name: "tone map",
            prepare: "tone map prepare",
            record: "tone map record",
        }
    }

    /// Every pixel of the frame is written: nothing to keep.
    fn attachments(&self) -> PassAttachments {
        PassAttachments {
            color: (Attachment::FrameColor, Load::Clear),
            depth: None,
        }
    }

    /// The exposure, written when it changed (the scene is on the GPU already).
    fn prepare(&mut self, gpu: &Gpu, inputs: &FrameInputs) -> Prepared {
        if let Some(b) = &self.bloom {
            b.clear_marks(gpu);
        }
        let exposure = inputs.settings.exposure;
        if exposure != self.exposure {
            self.exposure = exposure;
            let scale = exposure.exp2();
            gpu.queue
                .write_buffer(&self.uniform, 0, bytemuck::bytes_of(&scale));
        }
        Prepared::Recorded
    }

    fn record(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.draw(0..3, 0..1);
    }

    fn offscreen(&self) -> Vec<Offscreen<'_>> {
        self.bloom.as_ref().map_or_else(Vec::new, |b| b.offscreen())
    }

    fn record_offscreen(&self, index: usize, pass: &mut wgpu::RenderPass<'_>) {
        if let Some(b) = &self.bloom {
            b.record_offscreen(index, pass);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The operator's defining properties: below the compression start a colour is
    /// unchanged; the peak is continuous at the start and approaches white without reaching
    /// it; bright colours move towards grey.
    #[test]
    fn the_shoulder_keeps_the_low_range_and_rolls_highlights_off_to_white() {
        for c in [[0.5, 0.3, 0.1], [0.02, 0.04, 0.03], [0.75, 0.75, 0.0]] {
            assert_eq!(neutral_shoulder(c), c);
        }
        let below = neutral_shoulder([START_COMPRESSION - 1e-4; 3])[0];
        let above = neutral_shoulder([START_COMPRESSION + 1e-4; 3])[0];
        assert!((below - above).abs() < 1e-3, "{below} {above}");
        // The shoulder's slope at the start is 1 (d(new_peak)/d(peak) = d²/d² there).
        let slope = (neutral_shoulder([START_COMPRESSION + 1e-3; 3])[0] - START_COMPRESSION) / 1e-3;
        assert!((slope - 1.0).abs() < 0.01, "{slope}");
        let mut last = 0.0;
        for i in 1..400 {
            let v = neutral_shoulder([i as f32 * 0.05; 3])[0];
            assert!(v > last && v < 1.0, "{i}: {v}");
            last = v;
        }
        assert!(neutral_shoulder([1000.0; 3])[0] > 0.999);
        // A saturated bright red desaturates: its green and blue rise towards its red.
        let red = neutral_shoulder([4.0, 0.2, 0.2]);
        assert!(red[1] / red[0] > 0.2 / 4.0, "{red:?}");
    }
}
