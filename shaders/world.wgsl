// World pass: lightmapped, textured brush surfaces, one indirect sub-draw per visible cell.
// Every sub-draw reads its per-draw record (octagon, view, cell) through `instance_index`
// (= first_instance = the record's slot) and clips to the octagon with 8 clip distances, or with
// a fragment discard where clip distances are unavailable.

//!CLIP_DISTANCES_ENABLE

//!include octagon.inc.wgsl

// A view: the camera (0), or the view through a mirror or teleporter portal.
struct WorldView {
    view_proj: mat4x4<f32>,
    // Fragments with dot(clip_plane, (p, 1)) < 0 lie on the near side of the portal: discarded.
    clip_plane: vec4<f32>,
    // The eye in this view's space.
    eye: vec4<f32>,
};

struct WorldFrame {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    // x: time in seconds, y: lightmap scale (2 = Quake overbright), z: 1 = fullbright debug,
    // w: 1 = sky surfaces show the cubemap skybox
    params: vec4<f32>,
    // Every light style's brightness this frame (style s is styles[s / 4][s % 4]).
    styles: array<vec4<f32>, 16>,
    views: array<WorldView, 8>,
};

struct DrawRecord {
    oct_min: vec4<f32>,
    oct_max: vec4<f32>,
    view: u32,
    cell: u32,
    // Portals the flow crossed to reach the cell (the depth tint).
    depth: u32,
    // An object lit where it is: RGB bytes, 64 = 1 (render::world::draws::LIGHT_UNIT).
    light: u32,
    // Object translation (zero for cells).
    origin: vec4<f32>,
};

@group(0) @binding(0) var<uniform> frame: WorldFrame;
@group(0) @binding(1) var<storage, read> records: array<DrawRecord>;
// RGB: a one-style surface's light; a surface with several styles has slot k in channel k
// (render::world::light_atlas).
@group(0) @binding(2) var lightmap: texture_2d<f32>;
@group(0) @binding(3) var lightmap_sampler: sampler;
@group(0) @binding(4) var materials: texture_2d_array<f32>;
@group(0) @binding(5) var material_sampler: sampler;
@group(0) @binding(6) var skybox: texture_cube<f32>;

struct WorldVertex {
    @location(0) position: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) lightmap_uv: vec2<f32>,
    @location(3) layer: u32,
    @location(4) flags: u32,
    @location(5) surface: u32,
    @location(6) styles: u32,
    @location(7) unlit: f32,
};

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    //!CLIP_DISTANCES_OUT
    @location(0) uv: vec2<f32>,
    @location(1) lightmap_uv: vec2<f32>,
    @location(2) @interpolate(flat) layer: u32,
    @location(3) @interpolate(flat) flags: u32,
    @location(4) @interpolate(flat) slot: u32,
    @location(5) world: vec3<f32>,
    @location(6) clip_pos: vec4<f32>,
    @location(7) @interpolate(flat) surface: u32,
    // This frame's brightness of each lightmap slot's style (0 for empty slots): looked up
    // per vertex, not per fragment.
    @location(8) @interpolate(flat) style_scales: vec4<f32>,
    // The light of a surface without a lightmap: shaded by its normal on the CPU, times its
    // record's light (a moving object's, sampled below it).
    @location(9) @interpolate(flat) unlit: vec3<f32>,
};

// The fragment stage sees the same varyings without the clip distances (a vertex-only builtin).
struct FragmentIn {
    @location(0) uv: vec2<f32>,
    @location(1) lightmap_uv: vec2<f32>,
    @location(2) @interpolate(flat) layer: u32,
    @location(3) @interpolate(flat) flags: u32,
    @location(4) @interpolate(flat) slot: u32,
    @location(5) world: vec3<f32>,
    @location(6) clip_pos: vec4<f32>,
    @location(7) @interpolate(flat) surface: u32,
    @location(8) @interpolate(flat) style_scales: vec4<f32>,
    // The light of a surface without a lightmap: shaded by its normal on the CPU, times its
    // record's light (a moving object's, sampled below it).
    @location(9) @interpolate(flat) unlit: vec3<f32>,
};

const SURFACE_SKY: u32 = 1u;
const SURFACE_LIQUID: u32 = 2u;
const VERTEX_NO_LIGHTMAP: u32 = 65536u;
const LIGHT_UNIT: u32 = 64u;
const VERTEX_PACKED_STYLES: u32 = 131072u;

@vertex
fn vs_main(v: WorldVertex, @builtin(instance_index) slot: u32) -> VertexOut {
    var out: VertexOut;
    let record = records[slot];
    let world = v.position + record.origin.xyz;
    let clip = frame.views[record.view].view_proj * vec4<f32>(world, 1.0);
    out.clip = clip;
    //!CLIP_DISTANCES_WRITE
    out.uv = v.uv;
    out.lightmap_uv = v.lightmap_uv;
    out.layer = v.layer;
    out.flags = v.flags;
    out.slot = slot;
    out.world = world;
    out.clip_pos = clip;
    out.surface = v.surface;
    let s = vec4<u32>(v.styles & 255u, (v.styles >> 8u) & 255u, (v.styles >> 16u) & 255u, v.styles >> 24u);
    out.style_scales = vec4<f32>(style_scale(s.x), style_scale(s.y), style_scale(s.z), style_scale(s.w));
    out.unlit = v.unlit * unpack4x8unorm(record.light).rgb * (255.0 / f32(LIGHT_UNIT));
    return out;
}

// Outside the octagon of the fragment's draw record (the discard fallback).
fn outside_record(clip: vec4<f32>, slot: u32) -> bool {
    let r = records[slot];
    return outside_octagon(clip.xy / clip.w, r.oct_min, r.oct_max);
}

fn sky_color(world: vec3<f32>, layer: u32, eye: vec3<f32>) -> vec3<f32> {
    if frame.params.w > 0.5 {
        // Cube space is world space turned Y-up: (x, z, -y).
        let d = world - eye;
        return textureSampleLevel(skybox, lightmap_sampler, vec3<f32>(d.x, d.z, -d.y), 0.0).rgb;
    }
    // Quake's two-layer sky: a direction-based projection flattened toward the horizon,
    // scrolling at two speeds; the back layer is the right half, the front layer the left half
    // with black as transparent.
    var dir = world - eye;
    dir.z = dir.z * 3.0;
    let d = normalize(dir) * (6.0 * 63.0 / 128.0);
    let t = frame.params.x;
    let back_uv = vec2<f32>(fract(d.x + t * 0.0625) * 0.5 + 0.5, fract(d.y + t * 0.0625));
    let front_uv = vec2<f32>(fract(d.x + t * 0.125) * 0.5, fract(d.y + t * 0.125));
    let back = textureSampleLevel(materials, material_sampler, back_uv, layer, 0.0).rgb;
    let front = textureSampleLevel(materials, material_sampler, front_uv, layer, 0.0).rgb;
    let front_alpha = select(1.0, 0.0, dot(front, vec3<f32>(1.0)) < 0.02);
    return mix(back, front, front_alpha);
}

// The camera's view: no clip plane, and no discard (with clip distances) so the depth test
// can run before shading.
@fragment
fn fs_main(in: FragmentIn) -> @location(0) vec4<f32> {
    //!DISCARD_OUTSIDE
    return shade(in);
}

// The camera's opaque surfaces: what `shade` does for them, without the sky, liquid, fullbright
// and tint branches (lavapipe pays for every branch its fragments could take, a uniform one
// too: the tint's alone cost 0.6 of e1m3's 6.6 ms).
@fragment
fn fs_opaque(in: FragmentIn) -> @location(0) vec4<f32> {
    //!DISCARD_OUTSIDE
    let tex = textureSample(materials, material_sampler, in.uv, in.layer);
    // Fullbright and the cells and depth tints (params.z 1, 2, 3) are fs_main's: such a frame
    // draws these surfaces with it (WorldPass::tint_pipeline); a uniform branch here would
    // cost every frame (start's 4th intermission: 5-10 % of the world pass).
    return vec4<f32>(lit_opaque(tex, in.lightmap_uv, in.style_scales, in.flags, in.unlit), 1.0);
}

// An opaque surface's colour: its texel lit by its styled lightmap (or its unlit light), with
// fullbright texels (alpha 0) unlit. The camera's direct path and the surface cache's bake
// both shade with it.
fn lit_opaque(tex: vec4<f32>, lightmap_uv: vec2<f32>, scales: vec4<f32>, flags: u32, unlit: vec3<f32>) -> vec3<f32> {
    let baked = style_light(lightmap_uv, scales, flags) * frame.params.y;
    let light = select(baked, unlit, (flags & VERTEX_NO_LIGHTMAP) != 0u);
    let color = mix(tex.rgb, tex.rgb * light, tex.a);
    return min(color, vec3<f32>(1.0));
}

// The surface cache (render::world::surface_cache): the atlas of baked surfaces and, per level
// surface, the map from its texture coordinates to its region. Group 1 of the cached pipeline.
@group(1) @binding(0) var surface_cache: texture_2d<f32>;
@group(1) @binding(1) var cache_sampler: sampler;
@group(1) @binding(2) var<storage, read> cache_regions: array<vec4<f32>>;

struct CachedOut {
    @builtin(position) clip: vec4<f32>,
    //!CLIP_DISTANCES_OUT
    @location(0) cache_uv: vec2<f32>,
    @location(1) @interpolate(flat) slot: u32,
    @location(2) clip_pos: vec4<f32>,
};

struct CachedIn {
    @location(0) cache_uv: vec2<f32>,
    @location(1) @interpolate(flat) slot: u32,
    @location(2) clip_pos: vec4<f32>,
};

// The camera's cached opaque surfaces: placed and clipped as vs_main does, and sent to their
// regions of the atlas.
@vertex
fn vs_cached(v: WorldVertex, @builtin(instance_index) slot: u32) -> CachedOut {
    var out: CachedOut;
    let record = records[slot];
    let clip = frame.views[record.view].view_proj * vec4<f32>(v.position + record.origin.xyz, 1.0);
    out.clip = clip;
    //!CLIP_DISTANCES_WRITE
    let region = cache_regions[v.surface];
    out.cache_uv = v.uv * region.xy + region.zw;
    out.slot = slot;
    out.clip_pos = clip;
    return out;
}

// One fetch: the surface as fs_opaque shades it, baked.
@fragment
fn fs_cached(in: CachedIn) -> @location(0) vec4<f32> {
    //!DISCARD_OUTSIDE
    return vec4<f32>(textureSample(surface_cache, cache_sampler, in.cache_uv).rgb, 1.0);
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
};

struct BakeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) lightmap_uv: vec2<f32>,
    @location(2) @interpolate(flat) lm_min: vec2<f32>,
    @location(3) @interpolate(flat) lm_max: vec2<f32>,
    @location(4) @interpolate(flat) layer: u32,
    @location(5) @interpolate(flat) flags: u32,
    @location(6) @interpolate(flat) style_scales: vec4<f32>,
    @location(7) @interpolate(flat) unlit: f32,
    @location(8) @interpolate(flat) lod: f32,
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
    let s = vec4<u32>(v.styles & 255u, (v.styles >> 8u) & 255u, (v.styles >> 16u) & 255u, v.styles >> 24u);
    out.style_scales = vec4<f32>(style_scale(s.x), style_scale(s.y), style_scale(s.z), style_scale(s.w));
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
    return vec4<f32>(lit_opaque(tex, lightmap_uv, in.style_scales, in.flags, vec3<f32>(in.unlit)), 1.0);
}

// A view through a mirror or teleporter: what lies before the portal plane is clipped.
@fragment
fn fs_portal_view(in: FragmentIn) -> @location(0) vec4<f32> {
    //!DISCARD_OUTSIDE
    if dot(frame.views[records[in.slot].view].clip_plane, vec4<f32>(in.world, 1.0)) < 0.0 {
        discard;
    }
    return shade(in);
}

// The wireframe overlay: triangle edges (polygon-mode lines) over the world.
@fragment
fn fs_wire(in: FragmentIn) -> @location(0) vec4<f32> {
    //!DISCARD_OUTSIDE
    return vec4<f32>(0.9, 0.9, 0.9, 1.0);
}

// Overdraw counting (render::world::count_pass): a fragment that gets here adds one to an R8
// target (additive blending, 1/255 each).
@fragment
fn fs_count(in: FragmentIn) -> @location(0) vec4<f32> {
    //!DISCARD_OUTSIDE
    return count_fragment(in);
}

// The whole triangle, octagon ignored: what a fragment-discard octagon test shades.
@fragment
fn fs_count_unclipped(in: FragmentIn) -> @location(0) vec4<f32> {
    return count_fragment(in);
}

fn count_fragment(in: FragmentIn) -> vec4<f32> {
    // The camera view's plane is (0, 0, 0, 1): nothing is before it.
    if dot(frame.views[records[in.slot].view].clip_plane, vec4<f32>(in.world, 1.0)) < 0.0 {
        discard;
    }
    return vec4<f32>(1.0 / 255.0);
}

// Brightness of light style `style` this frame (0 for an empty slot, 255).
fn style_scale(style: u32) -> f32 {
    return select(frame.styles[(style >> 2u) & 15u][style & 3u], 0.0, style == 255u);
}

// Quake's light styles: each slot's map times its style's brightness, summed, and clamped
// where Quake's 8-bit lightmaps saturate (the ×2 overbright comes after). One fetch: a
// surface with several styles has its (grey) slots in the texel's channels, summed by one dot
// product (a second fetch, or a loop over slots, cost lavapipe a quarter of the world pass).
fn style_light(lightmap_uv: vec2<f32>, scales: vec4<f32>, flags: u32) -> vec3<f32> {
    let uv = lightmap_uv / vec2<f32>(textureDimensions(lightmap));
    let t = textureSampleLevel(lightmap, lightmap_sampler, uv, 0.0);
    let packed = vec3<f32>(dot(t, scales));
    let single = t.rgb * scales.x;
    return min(select(single, packed, (flags & VERTEX_PACKED_STYLES) != 0u), vec3<f32>(1.0));
}

fn shade(in: FragmentIn) -> vec4<f32> {
    // Every sample first, in uniform control flow.
    let time = frame.params.x;
    var uv = in.uv;
    let liquid = (in.flags & SURFACE_LIQUID) != 0u;
    if liquid {
        // Quake's turbulent warp as quakespasm draws it (and software Quake, for 64-texel
        // liquids): each coordinate moves by 1/16 of a repeat along a sine of the other, one
        // period per repeat, one radian a second.
        uv = uv + 0.0625 * sin(uv.yx * 6.2831853 + vec2<f32>(time, time));
    }
    let tex = textureSample(materials, material_sampler, uv, in.layer);
    let baked = style_light(in.lightmap_uv, in.style_scales, in.flags);

    // One exit: an early return from a divergent branch makes lavapipe mask everything after
    // it (measured on lavapipe: the built-in yard's world pass 37 → 29 ms, e1m1 109 → 89 ms).
    var color: vec3<f32>;
    if (in.flags & SURFACE_SKY) != 0u {
        color = sky_color(in.world, in.layer, frame.views[records[in.slot].view].eye.xyz);
    } else {
        var light = baked * frame.params.y;
        if liquid || (frame.params.z > 0.5 && frame.params.z < 1.5) {
            light = vec3<f32>(1.0);
        } else if (in.flags & VERTEX_NO_LIGHTMAP) != 0u {
            light = in.unlit;
        }
        // Alpha 0 marks fullbright texels (Quake palette 224..255): unlit. Texels and light
        // multiply in gamma space, as Quake's renderers do, and the pass writes the raw
        // (gamma) view of the frame: liquids blend in gamma space too, as in Quake.
        color = mix(tex.rgb, tex.rgb * light, tex.a);
    }
    if frame.params.z > 1.5 {
        color = mix(color, overlay_tint(records[in.slot], frame.params.z > 2.5), 0.7);
    }
    // Liquids are opaque, as Quake draws them by default (r_wateralpha 1); the liquid
    // pipeline still blends, so a lower alpha here makes them translucent.
    let alpha = 1.0;
    return vec4<f32>(min(color, vec3<f32>(1.0)), alpha);
}

// The cells and depth overlays (params.z 2 and 3; render::overlay::tint_rgb is the twin): a
// colour per cell id, or a ramp over the portals the flow crossed (0 green ... 7+ red).
fn overlay_tint(record: DrawRecord, by_depth: bool) -> vec3<f32> {
    var hue: f32;
    if by_depth {
        hue = 0.33 * (1.0 - min(f32(record.depth), 7.0) / 7.0);
    } else {
        hue = fract(f32(record.cell) * 0.618034);
    }
    let k = fract(vec3<f32>(1.0, 2.0 / 3.0, 1.0 / 3.0) + hue) * 6.0 - 3.0;
    return clamp(abs(k) - 1.0, vec3<f32>(0.0), vec3<f32>(1.0));
}

// The vis-check ground truth: which surface covers each pixel (id + 1; 0 = nothing). In an
// outdoor level (back faces not culled) a surface seen from behind is the outside of the level's
// solid (e.g. from an outdoor cell over an unbuilt roof): it hides what is behind it and shows
// nothing.
@fragment
fn fs_ids(in: FragmentIn, @builtin(front_facing) front: bool) -> @location(0) u32 {
    //!DISCARD_OUTSIDE
    // Views through mirrors and teleporters: what lies before the portal plane is clipped.
    if dot(frame.views[records[in.slot].view].clip_plane, vec4<f32>(in.world, 1.0)) < 0.0 {
        discard;
    }
    return select(0u, in.surface + 1u, front);
}

// The id pass's portal marks: a mirror's or teleporter's polygon in the view it is seen in
// (`instance_index`), clipped by that view's portal plane like its surfaces.
struct PortalMarkOut {
    // Drawn twice (depth, then depth-equal): the same depths both times.
    @builtin(position) @invariant clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) @interpolate(flat) view: u32,
};

@vertex
fn vs_portal_mark(@location(0) position: vec3<f32>, @builtin(instance_index) view: u32) -> PortalMarkOut {
    var out: PortalMarkOut;
    out.clip = frame.views[view].view_proj * vec4<f32>(position, 1.0);
    out.world = position;
    out.view = view;
    return out;
}

@fragment
fn fs_portal_mark(in: PortalMarkOut) -> @location(0) u32 {
    if dot(frame.views[in.view].clip_plane, vec4<f32>(in.world, 1.0)) < 0.0 {
        discard;
    }
    return 0u;
}

// A full-screen triangle at the far plane (reverse-Z: depth 0): where a portal was marked, the
// view beyond starts from an empty depth and no surface.
@vertex
fn vs_far_plane(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let corner = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(corner * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_no_surface() -> @location(0) u32 {
    return 0u;
}
