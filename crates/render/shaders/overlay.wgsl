// The culling overlays drawn over the frame: lines in clip space (portals, octagons, the frozen
// frustum, culled surfaces), and the overdraw heatmap (render::overlay).

struct OverlayVertex {
    @location(0) clip: vec4<f32>,
    @location(1) color: vec4<f32>,
};

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_lines(v: OverlayVertex) -> LineOut {
    var out: LineOut;
    out.clip = v.clip;
    out.color = v.color;
    return out;
}

@fragment
fn fs_lines(in: LineOut) -> @location(0) vec4<f32> {
    return in.color;
}

// ---- overdraw heatmap: fragments a pixel (an R8 count, k/255 = k) as a colour ramp ----

@group(0) @binding(0) var counts: texture_2d<f32>;

#include fullscreen.inc.wgsl

// 0 black, 1 blue, 2 green, 3 yellow, 4 orange, 5 and more red (render::overlay::heatmap::RAMP).
@fragment
fn fs_heatmap(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let n = u32(round(textureLoad(counts, vec2<i32>(p.xy), 0).r * 255.0));
    var c = vec3<f32>(0.0);
    switch min(n, 5u) {
        case 0u: { c = vec3<f32>(0.0, 0.0, 0.0); }
        case 1u: { c = vec3<f32>(0.05, 0.15, 0.9); }
        case 2u: { c = vec3<f32>(0.1, 0.8, 0.2); }
        case 3u: { c = vec3<f32>(0.95, 0.9, 0.1); }
        case 4u: { c = vec3<f32>(1.0, 0.5, 0.05); }
        default: { c = vec3<f32>(0.9, 0.05, 0.05); }
    }
    // The frame target is sRGB: these are linear.
    return vec4<f32>(c, 1.0);
}
