// Terrain pass: geometry-clipmap rings, instanced per mesh kind (tile, filler, trim, seam, cross).
// It includes terrain_vertex.inc.wgsl (TerrainFrame, TerrainInstance, terrain_vertex,
// terrain_normal, terrain_morph_alpha, ...), the twin of the CPU reference in
// src/terrain/vertex.rs (`terrain::vertex::VERTEX_WGSL`).
//
// Positions are camera-relative all the way: terrain_vertex gives the position relative to the
// selection camera, `view.eye_offset` moves it to the eye (non-zero only while culling is frozen
// for the debug overlays), and `view.view_proj` = projection × view rotation (no translation), with
// reverse-Z depth. Entry points:
//   vs_main / fs_vertex_lit  shaded surface (by slope and height, sun, fog to the horizon), lit
//                          per vertex; fs_vertex_lit_shadowed: with the sun's shadows per pixel
//                          (the pieces a brush's shadow can fall on); fs_main: all per pixel
//   vs_main / fs_wire      wireframe overlay (polygon mode line)
//   vs_sky_clipped / fs_sky  sky gradient behind everything, at the far depth (0), in the
//                          outdoor octagon
//   vs_lines / fs_lines    debug boxes (tile bounds, culled tiles), eye-relative line list
//   vs_caster              the terrain into one of the sun's shadow cascades (depth only; its own
//                          group: frame, view, heights and the cascade's CasterView)
//   vs_reflected / fs_reflected, vs_sky / fs_sky_reflected
//                          the land and the sky mirrored in the sea's plane into the water
//                          reflection (its own group: the main one without the reflection)
// The test hooks (terrain_hooks.wgsl, cargo feature `test-hooks`) include this file and add their
// own entry points.

#ifdef CLIP_DISTANCES
enable clip_distances;
#endif

#include terrain_vertex.inc.wgsl
#include octagon.inc.wgsl
#include sun_caster.inc.wgsl
#include sun_receiver.inc.wgsl

struct TerrainView {
    // projection × view rotation: eye-relative position → clip
    view_proj: mat4x4<f32>,
    // its inverse (sky directions)
    inv_view_proj: mat4x4<f32>,
    // selection camera − eye (xyz), world units
    eye_offset: vec4<f32>,
    // xyz: unit vector towards the sun; w: ambient light
    sun: vec4<f32>,
    sky_zenith: vec4<f32>,
    // also the fog colour
    sky_horizon: vec4<f32>,
    // x: sea level, y: snow line, z: height span (water depth tint), w: beach width (fraction of land)
    bands: vec4<f32>,
    // x: fog distance (exp² fog), y/z: distance where the edge fade starts / is complete, w: strength
    fog: vec4<f32>,
    // x, y: size of the points target (test hook)
    misc: vec4<f32>,
    // x: unused, y: 1 = flat water surface at sea level,
    // z: 1 = the sky (and the fog) from the cube at binding 3: the level's skybox, or the
    // daylight model baked for the sun (render::terrain::sky_cube); w: unused
    flags: vec4<u32>,
    // The screen octagon the terrain shows through (outdoor cells): min/max of x, y, x+y, x-y.
    oct_min: vec4<f32>,
    oct_max: vec4<f32>,
    // The point light map's window (terrain::lamps): eye-relative corner x, y; 1 / size x, y.
    lamps: vec4<f32>,
    // x: daylight (the sun, sky light and sky are scaled by it), y: a lamp map texel's scale
    // (0: no point lights)
    light: vec4<f32>,
    // Eye-relative position → the sun's clip space of each shadow cascade (render::shadow).
    shadow_rel: array<mat4x4<f32>, 2>,
    // x, y: world units per texel of cascade 0 / 1; z, w: the view distance where the shadows
    // start fading out / are gone (the SUN_SHADOWS variant reads them)
    shadow: vec4<f32>,
    // x: 1 = the sea shows the reflection and foam (the WATER_REFLECTIONS variant draws); y:
    // seconds (the waves); z: the depth the shore's foam reaches; w: the eye's height above
    // the sea
    water: vec4<f32>,
};

@group(0) @binding(0) var<uniform> frame: TerrainFrame;
@group(0) @binding(1) var<uniform> view: TerrainView;
@group(0) @binding(2) var heights: texture_2d_array<f32>;
@group(0) @binding(3) var skybox: texture_cube<f32>;
@group(0) @binding(4) var sky_sampler: sampler;
@group(0) @binding(5) var lamp_map: texture_2d<f32>;
// The sun's shadow cascades, near and far (layers 0 and 1), and their comparison sampler.
@group(0) @binding(6) var shadow_maps: texture_depth_2d_array;
@group(0) @binding(7) var shadow_compare: sampler_comparison;
// Only in the casters' group (the casters draw into the maps the main group holds).
@group(0) @binding(9) var<uniform> caster: CasterView;
// Only in the main group: the land and sky mirrored in the sea (drawn with the reflection's
// group, which lacks it).
@group(0) @binding(10) var reflection: texture_2d<f32>;

// One vertex of a static mesh (per-vertex buffer) and its instance (per-instance buffer,
// terrain::TerrainInstance).
struct MeshIn {
    @location(0) local: vec2<i32>,
    @location(1) offset: vec2<i32>,
    @location(2) level: u32,
    @location(3) rotation: u32,
};

struct SurfaceOut {
    @builtin(position) clip: vec4<f32>,
    // eye-relative position (xyz) and world height (w)
    @location(0) rel: vec4<f32>,
    // the normal (xyz) and the morph towards the coarser level (w)
    @location(2) normal: vec4<f32>,
    @location(3) @interpolate(flat) level: u32,
    // clip position again, for the outdoor octagon test per fragment
    @location(5) ndc: vec4<f32>,
    // the fog's colour (rgb) and share (a), per vertex (`fog_at`)
    @location(6) fog: vec4<f32>,
    #ifdef SUN_SHADOWS
    // where the point lies in the near and the far cascade (`sun_coords`): affine in the
    // position, so interpolating them is exact
    @location(7) shadow_near: vec3<f32>,
    @location(8) shadow_far: vec3<f32>,
    #endif
    // The surface lit at the vertex (`light_vertex`), as each fragment stage reads it (on a
    // software rasterizer every varying a fragment stage reads costs its set-up per triangle
    // and its interpolation per pixel: each stage reads only its own).
    // Lit with the sun as it reaches the vertex, fogged: `fs_vertex_lit`; and lit as the sea
    // there would be (the coast, where the height crosses the sea level, is drawn per pixel:
    // a colour edge per vertex went jagged on ETOPO5's coasts).
    @location(11) shaded: vec3<f32>,
    @location(4) sea_shaded: vec3<f32>,
    #ifdef WATER_REFLECTIONS
    // The sea's reflection goes under the fog: the colour in the sky's light (rgb) and the sun
    // reaching the vertex (w), and what the sun adds, before the fog.
    @location(9) lit: vec4<f32>,
    @location(10) sunlit: vec3<f32>,
    #endif
    #ifdef SUN_SHADOWS
    // The shadows per pixel (`fs_vertex_lit_shadowed`): the colour without the sun, fogged
    // (rgb), and the distance from the eye (w); what the sun adds, fogged.
    @location(12) sky_fogged: vec4<f32>,
    @location(13) sun_fogged: vec3<f32>,
    #endif
    #ifdef POINT_LIGHTS
    // The lamps' light per pixel: the ground's colour before the fog (the lamps' glow is
    // smaller than a coarse level's triangles).
    @location(1) albedo: vec3<f32>,
    #endif
    #ifdef CLIP_DISTANCES
    @builtin(clip_distances) clip_distances: array<f32, 8>,
    #endif
};

// What the surface fragment stages read: SurfaceOut without the clip distances (a vertex-only
// builtin).
struct SurfaceIn {
    @location(0) rel: vec4<f32>,
    @location(2) normal: vec4<f32>,
    @location(3) @interpolate(flat) level: u32,
    @location(5) ndc: vec4<f32>,
    @location(6) fog: vec4<f32>,
    #ifdef SUN_SHADOWS
    @location(7) shadow_near: vec3<f32>,
    @location(8) shadow_far: vec3<f32>,
    #endif
    @location(11) shaded: vec3<f32>,
    @location(4) sea_shaded: vec3<f32>,
    #ifdef WATER_REFLECTIONS
    @location(9) lit: vec4<f32>,
    @location(10) sunlit: vec3<f32>,
    #endif
    #ifdef SUN_SHADOWS
    @location(12) sky_fogged: vec4<f32>,
    @location(13) sun_fogged: vec3<f32>,
    #endif
    #ifdef POINT_LIGHTS
    @location(1) albedo: vec3<f32>,
    #endif
};

struct Surface {
    rel: vec3<f32>,
    normal: vec3<f32>,
    alpha: f32,
};

// The coarser level's normal near grid point `g` of `level`: level + 1's own normal at the coarse
// vertex `floor(g / 2)` (4 fetches; odd points take their lower neighbour's, a lighting-only
// approximation of the coarse edge's interpolated normal).
fn terrain_coarse_normal(level: u32, g: vec2<i32>) -> vec3<f32> {
    return terrain_normal(heights, frame, level + 1u, g >> vec2<u32>(1u, 1u));
}

fn terrain_surface(m: MeshIn) -> Surface {
    let inst = TerrainInstance(m.offset, m.level, m.rotation);
    let rel = terrain_vertex(heights, frame, inst, m.local);
    let g = terrain_grid_point(inst, m.local);
    let alpha = terrain_morph_alpha(frame, m.level, rel.xy);
    var n = terrain_normal(heights, frame, m.level, g);
    if (alpha > 0.0) {
        n = normalize(mix(n, terrain_coarse_normal(m.level, g), alpha));
    }
    return Surface(rel, n, alpha);
}

// Below sea level the drawn surface is the water's (flat at sea level); `height` keeps the ground
// height for the depth tint.
fn water_lift(height: f32) -> f32 {
    if (view.flags.y != 0u && height < view.bands.x) {
        return view.bands.x - height;
    }
    return 0.0;
}

// The surface's outputs for a vertex at `clip`, shaded as seen from `rel` (eye-relative), all
// but its light (`light_vertex`).
fn surface_out(s: Surface, m: MeshIn, height: f32, clip: vec4<f32>, rel: vec3<f32>) -> SurfaceOut {
    var out: SurfaceOut;
    out.clip = clip;
    out.rel = vec4<f32>(rel, height);
    out.normal = vec4<f32>(s.normal, s.alpha);
    out.level = m.level;
    out.ndc = clip;
    out.fog = fog_at(rel);
    return out;
}

// The vertex lit with `sun` of the sun reaching it, as the fragment stages read it (after
// `out`'s position, normal, level and fog are set).
fn light_vertex(out: ptr<function, SurfaceOut>, sun: f32) {
    let o = *out;
    let light = surface_light(o.rel.w, o.normal.xyz, o.level, o.normal.w);
    let sea = lit_by(tinted(water_albedo(o.rel.w), o.level, o.normal.w), vec3<f32>(0.0, 0.0, 1.0));
    let fog = o.fog;
    (*out).shaded = mix(light.sky + light.sun * sun, fog.rgb, fog.a);
    (*out).sea_shaded = mix(sea.sky + sea.sun * sun, fog.rgb, fog.a);
    #ifdef WATER_REFLECTIONS
    (*out).lit = vec4<f32>(light.sky, sun);
    (*out).sunlit = light.sun;
    #endif
    #ifdef SUN_SHADOWS
    (*out).sky_fogged = vec4<f32>(mix(light.sky, fog.rgb, fog.a), length((*out).rel.xyz));
    (*out).sun_fogged = light.sun * (1.0 - fog.a);
    #endif
    #ifdef POINT_LIGHTS
    (*out).albedo = light.albedo;
    #endif
}

@vertex
fn vs_main(m: MeshIn) -> SurfaceOut {
    return surface_vertex(m);
}

// The surface's vertex with everything any fragment stage reads (`vs_main`); the lean stages
// below hand on only what theirs reads.
fn surface_vertex(m: MeshIn) -> SurfaceOut {
    let s = terrain_surface(m);
    let height = s.rel.z + frame.camera_offset.z;
    let rel = s.rel + view.eye_offset.xyz + vec3<f32>(0.0, 0.0, water_lift(height));
    var out = surface_out(s, m, height, view.view_proj * vec4<f32>(rel, 1.0), rel);
    var sun = 1.0;
    #ifdef SUN_SHADOWS
    let n = select(s.normal, vec3<f32>(0.0, 0.0, 1.0), height < view.bands.x && view.flags.y != 0u);
    out.shadow_near = sun_coords(0u, rel, n, view.shadow.x);
    out.shadow_far = sun_coords(1u, rel, n, view.shadow.y);
    sun = cascaded_sun(shadow_maps, shadow_compare, out.shadow_near, out.shadow_far, length(rel), view.shadow.zw);
    #endif
    light_vertex(&out, sun);
    #ifdef CLIP_DISTANCES
    out.clip_distances = octagon_distances(out.clip, view.oct_min, view.oct_max);
    #endif
    return out;
}

// ---- shading ----

// The sky in direction `d`, dimmed at night.
fn sky_color(d: vec3<f32>) -> vec3<f32> {
    return day_sky_color(d) * view.light.x;
}

// Horizon colour below the horizon (fog, past the terrain's edge), towards the zenith colour
// above it; or the cube's (the level's skybox, or the daylight sky baked into one).
fn day_sky_color(d: vec3<f32>) -> vec3<f32> {
    if (view.flags.z != 0u) {
        // The cube; below the horizon its horizon ring, so the distance fades into
        // the sky behind it. Cube space is world space turned Y-up: (x, z, -y).
        let h = vec3<f32>(d.x, d.y, max(d.z, 0.0) + 1e-3);
        // The cube's view decodes its sRGB texels (the sampler's table, cheaper than the
        // shader's three powers per pixel).
        return textureSampleLevel(skybox, sky_sampler, vec3<f32>(h.x, h.z, -h.y), 0.0).rgb;
    }
    return mix(view.sky_horizon.rgb, view.sky_zenith.rgb, pow(max(d.z, 0.0), 0.45));
}

fn level_color(level: u32) -> vec3<f32> {
    switch (level % 8u) {
        case 0u: { return vec3<f32>(0.90, 0.20, 0.20); }
        case 1u: { return vec3<f32>(0.95, 0.60, 0.10); }
        case 2u: { return vec3<f32>(0.90, 0.90, 0.15); }
        case 3u: { return vec3<f32>(0.25, 0.85, 0.25); }
        case 4u: { return vec3<f32>(0.15, 0.80, 0.85); }
        case 5u: { return vec3<f32>(0.20, 0.35, 0.95); }
        case 6u: { return vec3<f32>(0.65, 0.25, 0.90); }
        default: { return vec3<f32>(0.90, 0.30, 0.70); }
    }
}

// Ground colour by height and slope (`up` = normal.z): water below sea level (deeper is darker),
// a beach, grass turning to dry scrub with height, rock on steep slopes, snow above the snow line.
fn terrain_albedo(h: f32, up: f32) -> vec3<f32> {
    let sea = view.bands.x;
    let snow_line = view.bands.y;
    let water = water_albedo(h);
    let land = (h - sea) / max(snow_line - sea, 1e-3);
    let grass = vec3<f32>(0.16, 0.32, 0.08);
    let scrub = vec3<f32>(0.36, 0.34, 0.18);
    let sand = vec3<f32>(0.70, 0.64, 0.45);
    let rock = vec3<f32>(0.36, 0.32, 0.29);
    let snow = vec3<f32>(0.93, 0.95, 0.98);
    var c = mix(grass, scrub, smoothstep(0.25, 0.85, land));
    c = mix(sand, c, smoothstep(0.0, view.bands.w, land));
    let rocky = 1.0 - smoothstep(0.62, 0.80, up);
    c = mix(c, rock, max(rocky, smoothstep(0.85, 1.0, land) * 0.6));
    let snowy = smoothstep(0.95, 1.05, land) * smoothstep(0.45, 0.70, up);
    // One exit (an early return under water makes a software rasterizer mask all that
    // follows).
    return select(mix(c, snow, snowy), water, h < sea);
}

// The sea's colour over ground at height `h` (deeper is darker).
fn water_albedo(h: f32) -> vec3<f32> {
    let depth = clamp((view.bands.x - h) / max(view.bands.z, 1e-3) * 4.0, 0.0, 1.0);
    return mix(vec3<f32>(0.10, 0.34, 0.42), vec3<f32>(0.015, 0.06, 0.17), sqrt(depth));
}

fn fog_amount(d: f32) -> f32 {
    let x = d / max(view.fog.x, 1e-3);
    let f = (1.0 - exp(-x * x)) * view.fog.w;
    return max(f, smoothstep(view.fog.y, view.fog.z, d));
}

// The fog over a point at `rel` from the eye: the sky's colour in its direction and the fog's
// share. Per vertex: both change slowly across a triangle, and per fragment they were much of
// the terrain's shading time (docs/terrain.md#what-the-terrain-pass-costs).
fn fog_at(rel: vec3<f32>) -> vec4<f32> {
    let d = length(rel);
    return vec4<f32>(sky_color(rel / max(d, 1e-6)), fog_amount(d));
}

// The lamps' light at the eye-relative ground point `rel_xy` (the point light map; its border
// is dark, so the clamped sampler adds nothing past it).
fn lamp_light(rel_xy: vec2<f32>) -> vec3<f32> {
    let uv = (rel_xy - view.lamps.xy) * view.lamps.zw;
    return textureSampleLevel(lamp_map, sky_sampler, uv, 0.0).rgb * view.light.y;
}

// Where the eye-relative point `rel` with normal `n` lies in cascade `c` (texel size `t`):
// texture coordinates and reverse depth. The point is moved off the surface by a texel and a
// half along its normal and one towards the sun, so a surface does not shadow itself.
fn sun_coords(c: u32, rel: vec3<f32>, n: vec3<f32>, t: f32) -> vec3<f32> {
    let p = rel + n * (1.5 * t) + view.sun.xyz * t;
    let q = view.shadow_rel[c] * vec4<f32>(p, 1.0);
    return vec3<f32>(q.x * 0.5 + 0.5, 0.5 - q.y * 0.5, q.z);
}

// A surface point's colour before the fog: lit by the sky, and what the sun adds where it
// reaches (the lamps multiply `albedo`, per pixel).
struct SurfaceLight {
    sky: vec3<f32>,
    sun: vec3<f32>,
    // what the lamps' light multiplies (`lamp_light`)
    albedo: vec3<f32>,
};

fn surface_light(height: f32, normal: vec3<f32>, level: u32, morph: f32) -> SurfaceLight {
    var n = normalize(normal);
    let albedo = tinted(terrain_albedo(height, n.z), level, morph);
    if (height < view.bands.x) {
        // Water: lit as a flat surface.
        n = vec3<f32>(0.0, 0.0, 1.0);
    }
    return lit_by(albedo, n);
}

// `albedo` with the level-colour overlay's tint for `level` and `morph`. The overlay and the
// lamps are variants, not uniform branches: a software rasterizer runs a branch its fragments
// could take whether or not any does (docs/rendering.md, "Shader costs on a software
// rasterizer").
fn tinted(albedo: vec3<f32>, level: u32, morph: f32) -> vec3<f32> {
    #ifdef LEVEL_COLORS
    let lc = mix(level_color(level), level_color(level + 1u), morph);
    return mix(albedo, lc, 0.65);
    #else
    return albedo;
    #endif
}

// A surface of colour `albedo` facing `n` (unit) in the sky's and the sun's light.
fn lit_by(albedo: vec3<f32>, n: vec3<f32>) -> SurfaceLight {
    let ambient = view.sun.w;
    let sky_light = 0.5 + 0.5 * n.z;
    let light = ambient * sky_light * view.light.x;
    let diffuse = (1.0 - ambient) * max(dot(n, view.sun.xyz), 0.0) * view.light.x;
    return SurfaceLight(albedo * light, albedo * diffuse, albedo);
}

// The surface's colour before the fog, lit per pixel; `sun` is how much of the sun reaches it
// (`cascaded_sun`).
fn shade(height: f32, normal: vec3<f32>, level: u32, morph: f32, rel_xy: vec2<f32>, sun: f32) -> vec3<f32> {
    let light = surface_light(height, normal, level, morph);
    var c = light.sky + light.sun * sun;
    #ifdef POINT_LIGHTS
    c += light.albedo * lamp_light(rel_xy);
    #endif
    return c;
}

// A surface fragment of colour `c` (before the fog): the sea's reflection where it shows, and
// the fog.
fn finished(c: vec3<f32>, in: SurfaceIn) -> vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_octagon(in.ndc.xy / in.ndc.w, view.oct_min, view.oct_max) { discard; }
    #endif
    var out = c;
    #ifdef WATER_REFLECTIONS
    if (view.flags.y != 0u && in.rel.w < view.bands.x) {
        out = water_surface(out, in);
    }
    #endif
    return vec4<f32>(mix(out, in.fog.rgb, in.fog.a), 1.0);
}

// Lit per pixel (`--terrain-lighting pixel`): the colour bands, the light and the shadows at
// every pixel.
@fragment
fn fs_main(in: SurfaceIn) -> @location(0) vec4<f32> {
    var sun = 1.0;
    #ifdef SUN_SHADOWS
    sun = cascaded_sun(shadow_maps, shadow_compare, in.shadow_near, in.shadow_far, length(in.rel.xyz), view.shadow.zw);
    #endif
    return finished(shade(in.rel.w, in.normal.xyz, in.level, in.normal.w, in.rel.xy, sun), in);
}

// Lit per vertex (the default): the light, and the sun as it reached each vertex, interpolated
// (shading per pixel is the costly part of the terrain pass on a software rasterizer).
@fragment
fn fs_vertex_lit(in: SurfaceIn) -> @location(0) vec4<f32> {
    #ifdef WATER_REFLECTIONS
    return vertex_lit(in.shaded, in.lit.rgb + in.sunlit * in.lit.w, in);
    #else
    return vertex_lit(in.shaded, vec3<f32>(0.0), in);
    #endif
}

#ifdef SUN_SHADOWS
// Lit per vertex, shadowed per pixel: the pieces a brush's shadow can fall on (a wall's or a
// tower's shadow edge is sharper than the terrain's vertices; the terrain's own shadows follow
// its vertices like its shape does).
@fragment
fn fs_vertex_lit_shadowed(in: SurfaceIn) -> @location(0) vec4<f32> {
    let sun = cascaded_sun(shadow_maps, shadow_compare, in.shadow_near, in.shadow_far, in.sky_fogged.w, view.shadow.zw);
    let land = in.sky_fogged.rgb + in.sun_fogged * sun;
    #ifdef WATER_REFLECTIONS
    return vertex_lit(land, in.lit.rgb + in.sunlit * sun, in);
    #else
    return vertex_lit(land, vec3<f32>(0.0), in);
    #endif
}
#endif

// A fragment lit per vertex: `fogged`, the land's colour after the fog (the sea's where the
// ground lies under it), and with the sea's reflection (WATER_REFLECTIONS) `unfogged`, the
// sea's before it; the lamps per pixel.
fn vertex_lit(fogged: vec3<f32>, unfogged: vec3<f32>, in: SurfaceIn) -> vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_octagon(in.ndc.xy / in.ndc.w, view.oct_min, view.oct_max) { discard; }
    #endif
    var lamps = vec3<f32>(0.0);
    #ifdef POINT_LIGHTS
    lamps = in.albedo * lamp_light(in.rel.xy);
    #endif
    let ground = select(fogged, in.sea_shaded, in.rel.w < view.bands.x);
    var c = ground + lamps * (1.0 - in.fog.a);
    #ifdef WATER_REFLECTIONS
    // The sea under the fog as `finished` shades it; the land exactly as without the
    // reflection (both computed: a software rasterizer would anyway).
    let sea = water_surface(unfogged + lamps, in);
    c = select(c, mix(sea, in.fog.rgb, in.fog.a), view.flags.y != 0u && in.rel.w < view.bands.x);
    #endif
    return vec4<f32>(c, 1.0);
}

// ---- lit per vertex, lean ----
// Without the lamps or the sea's reflection, the lit-per-vertex stages read a few of
// SurfaceOut's outputs; these vertex stages write only those. On a software rasterizer a
// vertex stage computes and stores every output it has, read or not, and the rasterizer sets
// up what the fragment stage reads per triangle.

// What `fs_lit` reads: the colour lit at the vertex and fogged (rgb) with the ground's height
// (w), and the sea's colour there.
struct LitOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) shaded: vec4<f32>,
    @location(1) sea_shaded: vec3<f32>,
    #ifndef CLIP_DISTANCES
    @location(2) ndc: vec4<f32>,
    #endif
    #ifdef CLIP_DISTANCES
    @builtin(clip_distances) clip_distances: array<f32, 8>,
    #endif
};

struct LitIn {
    @location(0) shaded: vec4<f32>,
    @location(1) sea_shaded: vec3<f32>,
    #ifndef CLIP_DISTANCES
    @location(2) ndc: vec4<f32>,
    #endif
};

@vertex
fn vs_lit(m: MeshIn) -> LitOut {
    let o = surface_vertex(m);
    var out: LitOut;
    out.clip = o.clip;
    out.shaded = vec4<f32>(o.shaded, o.rel.w);
    out.sea_shaded = o.sea_shaded;
    #ifndef CLIP_DISTANCES
    out.ndc = o.ndc;
    #else
    out.clip_distances = o.clip_distances;
    #endif
    return out;
}

// `fs_vertex_lit` without the lamps or the reflection.
@fragment
fn fs_lit(in: LitIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_octagon(in.ndc.xy / in.ndc.w, view.oct_min, view.oct_max) { discard; }
    #endif
    return vec4<f32>(select(in.shaded.rgb, in.sea_shaded, in.shaded.w < view.bands.x), 1.0);
}

#ifdef SUN_SHADOWS
// What `fs_lit_shadowed` reads: where the point lies in the cascades, the colour without the
// sun and fogged (rgb) with the eye's distance (w), what the sun adds (rgb) with the ground's
// height (w), and the sea's colour.
struct LitShadowedOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) shadow_near: vec3<f32>,
    @location(1) shadow_far: vec3<f32>,
    @location(2) sky_fogged: vec4<f32>,
    @location(3) sun_fogged: vec4<f32>,
    @location(4) sea_shaded: vec3<f32>,
    #ifndef CLIP_DISTANCES
    @location(5) ndc: vec4<f32>,
    #endif
    #ifdef CLIP_DISTANCES
    @builtin(clip_distances) clip_distances: array<f32, 8>,
    #endif
};

struct LitShadowedIn {
    @location(0) shadow_near: vec3<f32>,
    @location(1) shadow_far: vec3<f32>,
    @location(2) sky_fogged: vec4<f32>,
    @location(3) sun_fogged: vec4<f32>,
    @location(4) sea_shaded: vec3<f32>,
    #ifndef CLIP_DISTANCES
    @location(5) ndc: vec4<f32>,
    #endif
};

@vertex
fn vs_lit_shadowed(m: MeshIn) -> LitShadowedOut {
    let o = surface_vertex(m);
    var out: LitShadowedOut;
    out.clip = o.clip;
    out.shadow_near = o.shadow_near;
    out.shadow_far = o.shadow_far;
    out.sky_fogged = o.sky_fogged;
    out.sun_fogged = vec4<f32>(o.sun_fogged, o.rel.w);
    out.sea_shaded = o.sea_shaded;
    #ifndef CLIP_DISTANCES
    out.ndc = o.ndc;
    #else
    out.clip_distances = o.clip_distances;
    #endif
    return out;
}

// `fs_vertex_lit_shadowed` without the lamps or the reflection.
@fragment
fn fs_lit_shadowed(in: LitShadowedIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_octagon(in.ndc.xy / in.ndc.w, view.oct_min, view.oct_max) { discard; }
    #endif
    let sun = cascaded_sun(shadow_maps, shadow_compare, in.shadow_near, in.shadow_far, in.sky_fogged.w, view.shadow.zw);
    let land = in.sky_fogged.rgb + in.sun_fogged.rgb * sun;
    return vec4<f32>(select(land, in.sea_shaded, in.sun_fogged.w < view.bands.x), 1.0);
}
#endif

@fragment
fn fs_wire(in: SurfaceIn) -> @location(0) vec4<f32> {
    let c = mix(vec3<f32>(0.02, 0.02, 0.02), level_color(in.level), 0.35);
    let f = fog_amount(length(in.rel.xyz));
    return vec4<f32>(mix(c, view.sky_horizon.rgb, f), 1.0);
}

// ---- water ----

// The sea's slope at `xy` and time `t`: four swells travelling with the wind (towards +x, a
// little north), as the gradient of their heights (unit amplitude per wavelength).
fn water_slope(xy: vec2<f32>, t: f32) -> vec2<f32> {
    var g = vec2<f32>(0.0);
    let dirs = array<vec2<f32>, 4>(
        vec2<f32>(1.0, 0.15), vec2<f32>(0.8, 0.55), vec2<f32>(0.95, -0.3), vec2<f32>(0.6, 0.2)
    );
    let lengths = array<f32, 4>(240.0, 150.0, 95.0, 60.0);
    for (var i = 0u; i < 4u; i++) {
        let k = 6.2831853 / lengths[i];
        let d = normalize(dirs[i]);
        let phase = dot(d, xy) * k - t * sqrt(9.81 * 40.0 * k);
        g += d * (cos(phase) * 0.035);
    }
    return g;
}

// The sea at a fragment of lit colour `c`: the land and sky mirrored in it (the reflection,
// moved by the waves' slope), blended by Schlick's Fresnel term for water (F0 = 0.02) at the
// eye's angle, and foam where the ground comes within `view.water.z` of the surface.
fn water_surface(c: vec3<f32>, in: SurfaceIn) -> vec3<f32> {
    // Anchored to the ground (the eye is the selection camera less the frozen-culling offset).
    let xy = in.rel.xy + frame.camera_offset.xy - view.eye_offset.xy;
    let slope = water_slope(xy, view.water.y);
    let n = normalize(vec3<f32>(-slope, 1.0));
    let v = normalize(-in.rel.xyz);
    let f = 0.02 + 0.98 * pow(1.0 - max(dot(n, v), 0.0), 5.0);
    let screen = in.ndc.xy / in.ndc.w;
    let uv = vec2<f32>(screen.x * 0.5 + 0.5, 0.5 - screen.y * 0.5) + slope * 0.25;
    let mirrored = textureSampleLevel(reflection, sky_sampler, uv, 0.0).rgb;
    var out = mix(c, mirrored, f);
    let depth = view.bands.x - in.rel.w;
    let ripple = 0.5 + 0.5 * sin(dot(in.rel.xy, vec2<f32>(0.05, 0.03)) - view.water.y * 1.7);
    let foam = (1.0 - smoothstep(0.0, view.water.z, depth)) * mix(0.45, 0.85, ripple);
    let daylight = view.light.x * (view.sun.w + (1.0 - view.sun.w) * max(view.sun.z, 0.0));
    return mix(out, vec3<f32>(0.92, 0.95, 0.97) * daylight, foam);
}

// The land mirrored in the sea's plane: drawn from the real eye, so the reflection lines up
// with the sea pixel for pixel, and shaded as a camera at the eye's mirror image (under the
// sea) sees it — its distances and directions, so fog and sky match that camera's frame
// turned upside down. Faces wind the other way (the pipelines cull front faces); the sea
// itself, lifted to its plane, is culled with them.
@vertex
fn vs_reflected(m: MeshIn) -> SurfaceOut {
    let s = terrain_surface(m);
    let height = s.rel.z + frame.camera_offset.z;
    let rel = s.rel + view.eye_offset.xyz + vec3<f32>(0.0, 0.0, water_lift(height));
    // From the mirrored eye (2h below the eye, h its height above the sea).
    let q = rel + vec3<f32>(0.0, 0.0, 2.0 * view.water.w);
    var out = surface_out(s, m, height, view.view_proj * vec4<f32>(q.x, q.y, -q.z, 1.0), q);
    #ifdef SUN_SHADOWS
    out.shadow_near = vec3<f32>(0.0);
    out.shadow_far = vec3<f32>(0.0);
    #endif
    light_vertex(&out, 1.0);
    #ifdef CLIP_DISTANCES
    out.clip_distances = array<f32, 8>(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0);
    #endif
    return out;
}

@fragment
fn fs_reflected(in: SurfaceIn) -> @location(0) vec4<f32> {
    return vec4<f32>(in.shaded, 1.0);
}

// The sky as the mirrored eye sees it: the direction turned up.
@fragment
fn fs_sky_reflected(in: SkyOut) -> @location(0) vec4<f32> {
    let q = view.inv_view_proj * vec4<f32>(in.ndc, 1.0, 1.0);
    let d = normalize(q.xyz / q.w);
    return vec4<f32>(sky_color(vec3<f32>(d.x, d.y, -d.z)), 1.0);
}

// ---- shadow casters ----

// The surface vs_main draws, into the sun's view of one cascade.
@vertex
fn vs_caster(m: MeshIn) -> @builtin(position) vec4<f32> {
    let inst = TerrainInstance(m.offset, m.level, m.rotation);
    let rel = terrain_vertex(heights, frame, inst, m.local);
    let height = rel.z + frame.camera_offset.z;
    let p = rel + view.eye_offset.xyz + vec3<f32>(0.0, 0.0, water_lift(height));
    return caster.rel_to_light * vec4<f32>(p, 1.0);
}

// ---- sky ----

struct SkyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
};

// Corner `i` of one full-screen triangle at depth 0 (reverse-Z: infinitely far).
fn sky_corner(i: u32) -> SkyOut {
    let p = vec2<f32>(f32((i << 1u) & 2u) * 2.0 - 1.0, f32(i & 2u) * 2.0 - 1.0);
    var out: SkyOut;
    out.clip = vec4<f32>(p, 0.0, 1.0);
    out.ndc = p;
    return out;
}

@vertex
fn vs_sky(@builtin(vertex_index) i: u32) -> SkyOut {
    return sky_corner(i);
}

// The camera's sky: SkyOut clipped to the outdoor octagon by clip distances where the adapter
// has them (a fragment discard in fs_sky turns off the early depth test, and every pixel the
// terrain covered would run the sky's shading).
struct ClippedSkyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
    #ifdef CLIP_DISTANCES
    @builtin(clip_distances) clip_distances: array<f32, 8>,
    #endif
};

@vertex
fn vs_sky_clipped(@builtin(vertex_index) i: u32) -> ClippedSkyOut {
    let s = sky_corner(i);
    var out: ClippedSkyOut;
    out.clip = s.clip;
    out.ndc = s.ndc;
    #ifdef CLIP_DISTANCES
    out.clip_distances = octagon_distances(s.clip, view.oct_min, view.oct_max);
    #endif
    return out;
}

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    // Outside the outdoor cells' octagon: not seen through any open-air portal.
    #ifndef CLIP_DISTANCES
    if outside_octagon(in.ndc, view.oct_min, view.oct_max) {
        discard;
    }
    #endif
    let q = view.inv_view_proj * vec4<f32>(in.ndc, 1.0, 1.0);
    let d = normalize(q.xyz / q.w);
    return vec4<f32>(sky_color(d), 1.0);
}

// ---- debug lines ----

struct LineVertex {
    // eye-relative
    @location(0) position: vec3<f32>,
    @location(1) color: vec4<f32>,
};

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_lines(l: LineVertex) -> LineOut {
    var out: LineOut;
    out.clip = view.view_proj * vec4<f32>(l.position, 1.0);
    out.color = l.color;
    return out;
}

@fragment
fn fs_lines(in: LineOut) -> @location(0) vec4<f32> {
    return in.color;
}
