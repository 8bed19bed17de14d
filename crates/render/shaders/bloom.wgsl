// Bloom (render::bloom), seed 003's "downsample, colour remap, separable Gaussian" on the
// frame in linear light: the bright pass averages 2×2 blocks of the frame and keeps what is
// brighter than a threshold (a soft knee), sixteen such blocks averaged into each texel of an
// eighth of the frame; a Gaussian blurs it horizontally and vertically, and the composite
// adds it, upsampled bilinearly, onto the frame. The averages and the upsampling are bilinear
// samples; the blur's 13 taps are 7 bilinear samples (a pair of taps is one sample between
// them, weighted by their sum). The CPU reference (render::bloom::reference) takes the taps
// one by one.
//
// Only the tiles near light past the threshold run the blurs and the composite: the bright pass
// marks each tile of BLOOM_TILE² eighth texels it writes light into, and the later steps draw
// a tile where it or a neighbour is marked (the Gaussian reaches 6 texels, less than a tile).
// Elsewhere the bloom is exactly zero, and on a CPU rasterizer a full-screen pass costs as much
// for zeros as for light (a sun over the horizon lights a tenth of the frame).
//   vs_fullscreen / fs_bright      frame → eighth: 2×2 averages, colour remap, 4×4 average;
//                                  marks the tiles with light
//   vs_lit_tiles / fs_blur_h, _v   eighth ↔ scratch: 13-tap Gaussian (σ = 1.5 texels)
//   vs_lit_tiles / fs_composite    eighth → frame, added (blend one + one)

struct BloomUniform {
    // x: the luminance (linear) where bloom starts, y: the width of its soft knee, z: the
    // intensity of the composite, w: 0
    params: vec4<f32>,
    // The Gaussian's weight at offset 0 (x of the first), then the blur's three pairs of taps
    // each side as bilinear samples: weight (x) and offset in texels (y), pairs 1–2, 3–4, 5–6
    // in x/y of [0].yz… (render::bloom::BloomUniform::blur_samples)
    weights: array<vec4<f32>, 2>,
};

@group(0) @binding(0) var<uniform> bloom: BloomUniform;
@group(0) @binding(1) var source: texture_2d<f32>;
@group(0) @binding(2) var linear_sampler: sampler;

#include fullscreen.inc.wgsl

// Eighth texels a side of a tile (64 pixels of the frame).
const BLOOM_TILE: u32 = 8u;

// One word per tile, row by row: non-zero where the bright pass wrote light (cleared each
// frame). The bright pass writes them, the tiled steps read them.
@group(1) @binding(0) var<storage, read_write> marks: array<atomic<u32>>;
@group(1) @binding(1) var<storage, read> lit: array<u32>;

// Tiles across and down the bloom's texture of `eighth` texels.
fn tile_grid(eighth: vec2<u32>) -> vec2<u32> {
    return (eighth + vec2<u32>(BLOOM_TILE - 1u)) / BLOOM_TILE;
}

// The frame averaged over the 2×2 block under a half-size pixel centred at `uv`: one bilinear
// sample (of all four in linear light: the frame's view decodes sRGB before filtering), kept
// by the soft threshold on its luminance.
fn bright(uv: vec2<f32>) -> vec3<f32> {
    let c = textureSampleLevel(source, linear_sampler, uv, 0.0).rgb;
    let luma = dot(c, vec3<f32>(0.2126, 0.7152, 0.0722));
    let t = bloom.params.x;
    return c * smoothstep(t, t + bloom.params.y, luma);
}

// An eighth-size texel: the mean of the 4×4 half-size pixels it covers, each `bright`.
@fragment
fn fs_bright(in: FullscreenOut) -> @location(0) vec4<f32> {
    let half = vec2<f32>(textureDimensions(source) / 2u);
    let q = floor(in.clip.xy);
    var sum = vec3<f32>(0.0);
    for (var k = 0u; k < 16u; k++) {
        let h = 4.0 * q + vec2<f32>(f32(k & 3u), f32(k >> 2u)) + 0.5;
        sum += bright(h / half);
    }
    if any(sum > vec3<f32>(0.0)) {
        let eighth = max(textureDimensions(source) / 8u, vec2<u32>(1u));
        let tile = vec2<u32>(q) / BLOOM_TILE;
        atomicStore(&marks[tile.y * tile_grid(eighth).x + tile.x], 1u);
    }
    return vec4<f32>(sum / 16.0, 1.0);
}

// Whether tile `t` of `grid` or one of its eight neighbours holds light.
fn near_light(t: vec2<u32>, grid: vec2<u32>) -> bool {
    var found = false;
    for (var k = 0u; k < 9u; k++) {
        let n = vec2<i32>(t) + vec2<i32>(i32(k % 3u) - 1, i32(k / 3u) - 1);
        if all(n >= vec2<i32>(0)) && all(n < vec2<i32>(grid)) {
            found = found || lit[u32(n.y) * grid.x + u32(n.x)] != 0u;
        }
    }
    return found;
}

// Corner `i` of tile `t`'s two triangles (instance `t`, six vertices) over a target of the
// frame's proportions, whose eighth is `source`; a tile far from light collapses outside.
@vertex
fn vs_lit_tiles(@builtin(vertex_index) i: u32, @builtin(instance_index) t: u32) -> FullscreenOut {
    let eighth = textureDimensions(source);
    let grid = tile_grid(eighth);
    let tile = vec2<u32>(t % grid.x, t / grid.x);
    let corners = array<vec2<u32>, 6>(
        vec2<u32>(0u, 0u), vec2<u32>(1u, 0u), vec2<u32>(0u, 1u),
        vec2<u32>(0u, 1u), vec2<u32>(1u, 0u), vec2<u32>(1u, 1u)
    );
    let texel = min((tile + corners[i]) * BLOOM_TILE, eighth);
    let uv = vec2<f32>(texel) / vec2<f32>(eighth);
    var out: FullscreenOut;
    out.clip = vec4<f32>(uv * vec2<f32>(2.0, -2.0) + vec2<f32>(-1.0, 1.0), 0.0, 1.0);
    if !near_light(tile, grid) {
        out.clip = vec4<f32>(-2.0, -2.0, 0.0, 1.0);
    }
    out.uv = uv;
    return out;
}

// The Gaussian along `step` at this texel: the centre tap, then each pair of taps as one
// bilinear sample at its weighted offset (the sampler clamps to the edges, as the taps do).
fn blur(pixel: vec4<f32>, step: vec2<f32>) -> vec4<f32> {
    let size = vec2<f32>(textureDimensions(source));
    let centre = floor(pixel.xy) + 0.5;
    var sum = bloom.weights[0].x * textureSampleLevel(source, linear_sampler, centre / size, 0.0).rgb;
    let pairs = array<vec2<f32>, 3>(bloom.weights[0].yz, vec2<f32>(bloom.weights[0].w, bloom.weights[1].x), bloom.weights[1].yz);
    for (var k = 0u; k < 3u; k++) {
        let offset = step * pairs[k].y;
        let ahead = textureSampleLevel(source, linear_sampler, (centre + offset) / size, 0.0).rgb;
        let behind = textureSampleLevel(source, linear_sampler, (centre - offset) / size, 0.0).rgb;
        sum += pairs[k].x * (ahead + behind);
    }
    return vec4<f32>(sum, 1.0);
}

@fragment
fn fs_blur_h(in: FullscreenOut) -> @location(0) vec4<f32> {
    return blur(in.clip, vec2<f32>(1.0, 0.0));
}

@fragment
fn fs_blur_v(in: FullscreenOut) -> @location(0) vec4<f32> {
    return blur(in.clip, vec2<f32>(0.0, 1.0));
}

@fragment
fn fs_composite(in: FullscreenOut) -> @location(0) vec4<f32> {
    let c = textureSampleLevel(source, linear_sampler, in.uv, 0.0).rgb;
    return vec4<f32>(c * bloom.params.z, 0.0);
}
