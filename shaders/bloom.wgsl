// Bloom (render::bloom), seed 003's "downsample, colour remap, separable Gaussian" on the
// frame in linear light: the bright pass averages 2×2 blocks of the frame and keeps what is
// brighter than a threshold (a soft knee), a second 2×2 average goes to a quarter of the
// frame, a Gaussian blurs it horizontally and vertically, and the composite adds it,
// upsampled bilinearly, onto the frame. The averages and the upsampling are bilinear samples,
// the blur reads texels exactly (textureLoad); the CPU reference (render::bloom::reference)
// takes the same samples.
//   vs_fullscreen / fs_bright      frame → half: 2×2 average, colour remap
//   vs_fullscreen / fs_down        half → quarter: 2×2 average
//   vs_fullscreen / fs_blur_h, _v  quarter ↔ scratch: 13-tap Gaussian (σ = 3 texels)
//   vs_fullscreen / fs_composite   quarter → frame, added (blend one + one)

struct BloomUniform {
    // x: the luminance (linear) where bloom starts, y: the width of its soft knee, z: the
    // intensity of the composite, w: 0
    params: vec4<f32>,
    // The Gaussian's weights for offsets 0..6 (x, y, z, w of each).
    weights: array<vec4<f32>, 2>,
};

@group(0) @binding(0) var<uniform> bloom: BloomUniform;
@group(0) @binding(1) var source: texture_2d<f32>;
@group(0) @binding(2) var linear_sampler: sampler;

#include fullscreen.inc.wgsl

// The source texel at `p`, clamped to its edges.
fn texel(p: vec2<i32>) -> vec3<f32> {
    let last = vec2<i32>(textureDimensions(source)) - 1;
    return textureLoad(source, clamp(p, vec2<i32>(0), last), 0).rgb;
}

// The source under this (half-size) pixel: one bilinear sample at its centre, which is the
// average of the 2×2 source block beneath it (of all four in linear light: the frame's view
// decodes sRGB before filtering) — a quarter of the reads of four loads.
fn block_average(uv: vec2<f32>) -> vec3<f32> {
    return textureSampleLevel(source, linear_sampler, uv, 0.0).rgb;
}

@fragment
fn fs_bright(in: FullscreenOut) -> @location(0) vec4<f32> {
    let c = block_average(in.uv);
    let luma = dot(c, vec3<f32>(0.2126, 0.7152, 0.0722));
    let t = bloom.params.x;
    return vec4<f32>(c * smoothstep(t, t + bloom.params.y, luma), 1.0);
}

@fragment
fn fs_down(in: FullscreenOut) -> @location(0) vec4<f32> {
    return vec4<f32>(block_average(in.uv), 1.0);
}

fn weight(k: i32) -> f32 {
    let i = abs(k);
    return bloom.weights[i / 4][i % 4];
}

fn blur(pixel: vec4<f32>, step: vec2<i32>) -> vec4<f32> {
    let p = vec2<i32>(pixel.xy);
    var sum = vec3<f32>(0.0);
    for (var k = -6; k <= 6; k++) {
        sum += weight(k) * texel(p + k * step);
    }
    return vec4<f32>(sum, 1.0);
}

@fragment
fn fs_blur_h(in: FullscreenOut) -> @location(0) vec4<f32> {
    return blur(in.clip, vec2<i32>(1, 0));
}

@fragment
fn fs_blur_v(in: FullscreenOut) -> @location(0) vec4<f32> {
    return blur(in.clip, vec2<i32>(0, 1));
}

@fragment
fn fs_composite(in: FullscreenOut) -> @location(0) vec4<f32> {
    let c = textureSampleLevel(source, linear_sampler, in.uv, 0.0).rgb;
    return vec4<f32>(c * bloom.params.z, 0.0);
}
