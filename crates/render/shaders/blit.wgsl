// Presents the offscreen frame on the window surface: one full-screen triangle.

#include srgb.inc.wgsl
#include fullscreen.inc.wgsl

@group(0) @binding(0) var frame_color: texture_2d<f32>;
@group(0) @binding(1) var frame_sampler: sampler;


@fragment
fn fs_main(in: FullscreenOut) -> @location(0) vec4<f32> {
    return textureSample(frame_color, frame_sampler, in.uv);
}

// For non-sRGB surfaces (egui's preference): encode to sRGB by hand.
@fragment
fn fs_encode_srgb(in: FullscreenOut) -> @location(0) vec4<f32> {
    let c = textureSample(frame_color, frame_sampler, in.uv);
    return vec4<f32>(linear_to_srgb(c.rgb), c.a);
}
