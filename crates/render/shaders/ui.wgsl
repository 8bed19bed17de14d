// The demo's panels (render::ui_paint): egui's meshes in screen points, their colours sRGB
// bytes with premultiplied alpha, times a texture (the font atlas: white, its coverage in
// alpha), blended over the presented frame (in gamma space where the surface has a linear
// format, as egui means; decoded first onto an sRGB one).
// No branch a fragment never takes: a software rasterizer runs every branch its fragments
// could take, and egui-wgpu's shader keeps a software-filtering path behind a uniform.

#include srgb.inc.wgsl

struct UiScreen {
    // x, y: the screen's size in points; z, w: 0
    size: vec4<f32>,
};

@group(0) @binding(0) var<uniform> screen: UiScreen;
@group(1) @binding(0) var ui_texture: texture_2d<f32>;
@group(1) @binding(1) var ui_sampler: sampler;

struct UiVertex {
    @location(0) pos: vec2<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) color: u32,
};

struct UiOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
};

@vertex
fn vs_ui(v: UiVertex) -> UiOut {
    var out: UiOut;
    let p = v.pos / screen.size.xy;
    out.clip = vec4<f32>(2.0 * p.x - 1.0, 1.0 - 2.0 * p.y, 0.0, 1.0);
    out.uv = v.uv;
    out.color = unpack4x8unorm(v.color);
    return out;
}

// Onto a target that stores gamma-encoded values as they are (a linear format): blended in
// gamma space, as egui means.
@fragment
fn fs_ui(in: UiOut) -> @location(0) vec4<f32> {
    return in.color * textureSample(ui_texture, ui_sampler, in.uv);
}

// Onto an sRGB target (a surface that offers no linear format), which encodes what it is
// given: the colour decoded first.
@fragment
fn fs_ui_srgb_target(in: UiOut) -> @location(0) vec4<f32> {
    let c = in.color * textureSample(ui_texture, ui_sampler, in.uv);
    return vec4<f32>(srgb_to_linear(c.rgb), c.a);
}
