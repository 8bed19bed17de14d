// The tone map (render::tonemap): the HDR scene, with bloom's blurred light added when bloom
// is on, scaled by the exposure and mapped into the frame's sRGB colour by the shoulder of
// Khronos' PBR Neutral operator (2024) without its toe: colours whose brightest channel is
// below the compression start are unchanged, brighter ones are compressed towards white and
// desaturated. The CPU twin is render::tonemap::neutral_shoulder.
//   vs_fullscreen / fs_tone_map        the scene alone
//   vs_fullscreen / fs_tone_map_bloom  the scene plus the bloom (a bilinear sample)

struct ToneMapUniform {
    // x: the light's scale (2^exposure in stops), y: bloom intensity, z, w: 0
    params: vec4<f32>,
};

@group(0) @binding(0) var<uniform> tone: ToneMapUniform;
@group(0) @binding(1) var scene: texture_2d<f32>;
@group(0) @binding(2) var bloom: texture_2d<f32>;
@group(0) @binding(3) var linear_sampler: sampler;

#include fullscreen.inc.wgsl

// The operator's constants (they are the published ones).
const START_COMPRESSION: f32 = 0.76;
const DESATURATION: f32 = 0.15;

fn neutral_shoulder(color: vec3<f32>) -> vec3<f32> {
    var c = color;
    let peak = max(c.r, max(c.g, c.b));
    if peak < START_COMPRESSION {
        return c;
    }
    let d = 1.0 - START_COMPRESSION;
    let new_peak = 1.0 - d * d / (peak + d - START_COMPRESSION);
    c *= new_peak / peak;
    let g = 1.0 - 1.0 / (DESATURATION * (peak - new_peak) + 1.0);
    return mix(c, vec3<f32>(new_peak), g);
}

fn scene_at(in: FullscreenOut) -> vec3<f32> {
    return textureLoad(scene, vec2<i32>(in.clip.xy), 0).rgb;
}

@fragment
fn fs_tone_map(in: FullscreenOut) -> @location(0) vec4<f32> {
    return vec4<f32>(neutral_shoulder(max(scene_at(in), vec3<f32>(0.0)) * tone.params.x), 1.0);
}

@fragment
fn fs_tone_map_bloom(in: FullscreenOut) -> @location(0) vec4<f32> {
    let added = textureSampleLevel(bloom, linear_sampler, in.uv, 0.0).rgb * tone.params.y;
    return vec4<f32>(neutral_shoulder(max(scene_at(in) + added, vec3<f32>(0.0)) * tone.params.x), 1.0);
}
