// Presents the offscreen frame on the window surface: one full-screen triangle.

#include srgb.inc.wgsl

@group(0) @binding(0) var frame_color: texture_2d<f32>;
@group(0) @binding(1) var frame_sampler: sampler;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> VertexOut {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    var out: VertexOut;
    out.clip = vec4<f32>(uv * vec2<f32>(2.0, -2.0) + vec2<f32>(-1.0, 1.0), 0.0, 1.0);
    out.uv = uv;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    return textureSample(frame_color, frame_sampler, in.uv);
}

// For non-sRGB surfaces (egui's preference): encode to sRGB by hand.
@fragment
fn fs_encode_srgb(in: VertexOut) -> @location(0) vec4<f32> {
    let c = textureSample(frame_color, frame_sampler, in.uv);
    return vec4<f32>(linear_to_srgb(c.rgb), c.a);
}
