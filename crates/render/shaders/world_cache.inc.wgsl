// The surface cache's entry points: drawing cached surfaces with one fetch, and baking
// surfaces into the atlas.

// The surface cache (render::world::surface_cache): the atlas of baked surfaces and, per level
// surface, the map from its texture coordinates to its region. Group 1 of the cached pipeline.
@group(1) @binding(0) var surface_cache: texture_2d<f32>;
@group(1) @binding(1) var cache_sampler: sampler;
@group(1) @binding(2) var<storage, read> cache_regions: array<vec4<f32>>;
// The atlas's two finest levels, each a view of one level (`fs_cached_magnified`,
// `fs_cached_two_levels`).
@group(1) @binding(3) var cache_level_0: texture_2d<f32>;
@group(1) @binding(4) var cache_level_1: texture_2d<f32>;

struct CachedOut {
    @builtin(position) clip: vec4<f32>,
    #ifdef CLIP_DISTANCES
    @builtin(clip_distances) clip_distances: array<f32, 8>,
    #endif
    @location(0) cache_uv: vec2<f32>,
    @location(1) @interpolate(flat) slot: u32,
    @location(2) clip_pos: vec4<f32>,
    #ifdef AERIAL_FOG
    @location(3) fog: vec4<f32>,
    #endif
};

struct CachedIn {
    @location(0) cache_uv: vec2<f32>,
    @location(1) @interpolate(flat) slot: u32,
    @location(2) clip_pos: vec4<f32>,
    #ifdef AERIAL_FOG
    @location(3) fog: vec4<f32>,
    #endif
};

// The camera's cached opaque surfaces: placed and clipped as vs_main does, and sent to their
// regions of the atlas.
@vertex
fn vs_cached(v: WorldVertex, @builtin(instance_index) slot: u32) -> CachedOut {
    var out: CachedOut;
    let record = records[slot];
    let world = v.position + record.origin.xyz;
    let clip = frame.views[record.view].view_proj * vec4<f32>(world, 1.0);
    out.clip = clip;
    #ifdef CLIP_DISTANCES
    out.clip_distances = octagon_distances(clip, record.oct_min, record.oct_max);
    #endif
    let region = cache_regions[v.surface];
    out.cache_uv = v.uv * region.xy + region.zw;
    out.slot = slot;
    out.clip_pos = clip;
    #ifdef AERIAL_FOG
    out.fog = aerial_fog_of(v.flags, world - frame.views[record.view].eye.xyz);
    #endif
    return out;
}

// What the atlas's 8 bits span: the LDR frame's clamped gamma colour; for the HDR scene
// (LINEAR_OUTPUT) twice that, so the lightmaps' overbright keeps to ×2 (one bit of precision
// given for it).
#ifdef LINEAR_OUTPUT
const CACHE_RANGE: f32 = 2.0;
#else
const CACHE_RANGE: f32 = 1.0;
#endif

// What a cached surface's fragment writes for its atlas colour `color`: fogged where the
// terrain's aerial fog is on, stored as the frame stores it.
fn cached_output(color: vec3<f32>, in: CachedIn) -> vec4<f32> {
    #ifdef AERIAL_FOG
    return vec4<f32>(stored(mix(color, in.fog.rgb, in.fog.a)), 1.0);
    #else
    return vec4<f32>(stored(color), 1.0);
    #endif
}

// One fetch: the surface as fs_opaque shades it, baked.
@fragment
fn fs_cached(in: CachedIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    let color = textureSample(surface_cache, cache_sampler, in.cache_uv).rgb * CACHE_RANGE;
    return cached_output(color, in);
}

// A cached surface magnified wherever it shows (`cache_state::CACHED_MAGNIFIED`): the GPU's
// level of detail is below 0 all over it, so the finest level is what `fs_cached` samples.
// Sampled from a view of that level alone: llvmpipe reads a one-level view that starts at a
// texture's level 0 without the derivatives, the level choice and the per-pixel level
// offsets, faster than the texel fetch (`textureLoad`) too (docs/performance.md).
@fragment
fn fs_cached_magnified(in: CachedIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    let color = textureSample(cache_level_0, cache_sampler, in.cache_uv).rgb * CACHE_RANGE;
    return cached_output(color, in);
}

// A cached surface with at most two texels of its region a pixel wherever it shows
// (`cache_state::CACHED_TWO_LEVELS`): the GPU's level of detail is at most 1 all over it, so
// `fs_cached` would blend the two finest levels only. Blended here from a view of each: on
// llvmpipe, a view of one level is sampled without the per-pixel level selection and offsets
// that a mipmapped view costs (docs/performance.md). The level of detail is the GPU's:
// log2 of the longer of the texel steps across a pixel, taken as a quadratic on [1, 2] exact at
// both ends and within 0.008 of log2 between (llvmpipe spends a polynomial of many more steps on
// `log2`, for every pixel).
@fragment
fn fs_cached_two_levels(in: CachedIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    let texels = in.cache_uv * vec2<f32>(textureDimensions(cache_level_0));
    let dx = dpdx(texels);
    let dy = dpdy(texels);
    let step = clamp(sqrt(max(dot(dx, dx), dot(dy, dy))), 1.0, 2.0);
    let lod = (step - 1.0) * (1.6932 - 0.3466 * step);
    let finest = textureSample(cache_level_0, cache_sampler, in.cache_uv).rgb;
    let next = textureSample(cache_level_1, cache_sampler, in.cache_uv).rgb;
    let color = mix(finest, next, lod) * CACHE_RANGE;
    return cached_output(color, in);
}

// A surface's region of the atlas as the bake draws it: the corners of its texel grid.
struct BakeVertex {
    @location(0) position: vec2<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) lightmap_uv: vec2<f32>,
    @location(3) lm_min: vec2<f32>,
    @location(4) lm_max: vec2<f32>,
    @location(5) layer: u32,
    @location(6) flags: u32,
    @location(7) styles: u32,
    @location(8) unlit: f32,
    @location(9) lod: f32,
    @location(10) style_tints: vec4<u32>,
};

struct BakeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) lightmap_uv: vec2<f32>,
    @location(2) @interpolate(flat) lm_min: vec2<f32>,
    @location(3) @interpolate(flat) lm_max: vec2<f32>,
    @location(4) @interpolate(flat) layer: u32,
    @location(5) @interpolate(flat) flags: u32,
    @location(6) @interpolate(flat) light_r: vec4<f32>,
    @location(7) @interpolate(flat) unlit: f32,
    @location(8) @interpolate(flat) lod: f32,
    @location(9) @interpolate(flat) light_g: vec4<f32>,
    @location(10) @interpolate(flat) light_b: vec4<f32>,
};

@vertex
fn vs_bake(v: BakeVertex) -> BakeOut {
    var out: BakeOut;
    out.clip = vec4<f32>(v.position, 0.0, 1.0);
    out.uv = v.uv;
    out.lightmap_uv = v.lightmap_uv;
    out.lm_min = v.lm_min;
    out.lm_max = v.lm_max;
    out.layer = v.layer;
    out.flags = v.flags;
    let rows = style_rows(v.styles, v.style_tints, v.flags);
    out.light_r = rows.r;
    out.light_g = rows.g;
    out.light_b = rows.b;
    out.unlit = v.unlit;
    out.lod = v.lod;
    return out;
}

// Each atlas texel: the material texel it stands for (at the region's level) lit at its
// centre, as fs_opaque would light it there. The lightmap is read no further out than the
// centres of the surface's border luxels (the region's padding reaches past them).
@fragment
fn fs_bake(in: BakeOut) -> @location(0) vec4<f32> {
    let tex = textureSampleLevel(materials, material_sampler, in.uv, in.layer, in.lod);
    let lightmap_uv = clamp(in.lightmap_uv, in.lm_min, in.lm_max);
    let lit = lit_opaque(tex, lightmap_uv, StyleRows(in.light_r, in.light_g, in.light_b), in.flags, vec3<f32>(in.unlit));
    return vec4<f32>(lit / CACHE_RANGE, 1.0);
}
