// World pass: lightmapped, textured brush surfaces, one indirect sub-draw per visible cell.
// Every sub-draw reads its per-draw record (octagon, view, cell) through `instance_index`
// (= first_instance = the record's slot) and clips to the octagon with 8 clip distances, or with
// a fragment discard where clip distances are unavailable (variant: CLIP_DISTANCES). A level
// under a terrain fogs its surfaces as the terrain fogs its ground (variant: AERIAL_FOG); its
// moving objects take the sun's shadow cascades while they are on (variant: SUN_SHADOWS). Into
// the HDR scene it writes linear, unclamped light (variant: LINEAR_OUTPUT; else Quake's gamma
// values, clamped, into the LDR frame's raw view).
//
// Entry points, by who draws with them (every one starts at vs_main unless named):
//   fs_opaque                    the camera's opaque surfaces (render::world::pipelines)
//   fs_fence                     the camera's fences (holes where their texels are)
//   fs_sky / fs_skybox           the camera's sky, Quake's or a cubemap (unless tinted)
//   fs_clouds / fs_skybox_clouds Quake 3's cloud layers over black or the cubemap
//   fs_liquid                    the camera's liquids (unless tinted, fullbright or reflecting)
//   fs_main                      the camera's surfaces under a tint, liquids over a reflection
//   fs_portal_view               views through mirrors and teleporters
//   fs_wire                      the wireframe overlay
//   vs_cached / fs_cached        surfaces drawn from the surface cache (world_cache)
//   fs_cached_magnified          those magnified all over, from its finest level (world_cache)
//   vs_bake / fs_bake            the surface cache's bake into its atlas (world_cache)
//   fs_count, fs_count_unclipped the fragment count (world_count)
//   fs_ids, vs_portal_mark / fs_portal_mark, vs_far_plane / fs_no_surface
//                                the vis-check ground truth (world_ids)

#ifdef CLIP_DISTANCES
enable clip_distances;
#endif

#include octagon.inc.wgsl
#include world_frame.inc.wgsl
#include srgb.inc.wgsl
#include sky_model.inc.wgsl
#include world_fog.inc.wgsl
#ifdef SUN_SHADOWS
#include sun_receiver.inc.wgsl
#endif
#include world_vertex.inc.wgsl
#include world_light.inc.wgsl
#include world_liquid.inc.wgsl
#include world_sky.inc.wgsl
#include world_tints.inc.wgsl
#include world_cache.inc.wgsl
#include world_count.inc.wgsl
#include world_ids.inc.wgsl

// The camera's view: no clip plane, and no discard (with clip distances) so the depth test
// can run before shading.
@fragment
fn fs_main(in: FragmentIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    return shade(in);
}

// The camera's opaque surfaces: what `shade` does for them, without the sky, liquid, fullbright
// and tint branches (a software rasterizer pays for every branch its fragments could take, a
// uniform one too: docs/rendering.md, "Shader costs on a software rasterizer").
@fragment
fn fs_opaque(in: FragmentIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    let tex = textureSample(materials, material_sampler, in.uv, in.layer);
    // Fullbright and the cells and depth tints (params.z 1, 2, 3) are fs_main's: such a frame
    // draws these surfaces with it (WorldPass::tint_pipeline); a uniform branch here would
    // cost every frame (start's 4th intermission: 5-10 % of the world pass).
    let unlit = fragment_unlit(in);
    let lit = lit_opaque(tex, in.lightmap_uv, fragment_rows(in), in.flags, unlit.light);
    let color = lit + unlit.specular;
    return vec4<f32>(stored(fogged(color, in)), 1.0);
}

// The camera's fences (Quake's `{` textures): a hole where the texel's alpha is under a half
// (its mip levels average the coverage, so a far fence thins as it should), the rest shaded as
// any surface. A pipeline of their own: a discard in `fs_opaque` would cost every opaque
// surface its early depth test.
@fragment
fn fs_fence(in: FragmentIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    if fence_hole(in) {
        discard;
    }
    return shade(in);
}

// Whether a fence's texel here is a hole (any other surface has none).
fn fence_hole(in: FragmentIn) -> bool {
    let coverage = textureSample(materials, material_sampler, in.uv, in.layer).a;
    return (in.flags & SURFACE_FENCE) != 0u && coverage < 0.5;
}

// The colour under the fog (AERIAL_FOG), else as it is.
fn fogged(color: vec3<f32>, in: FragmentIn) -> vec3<f32> {
    #ifdef AERIAL_FOG
    return mix(color, in.fog.rgb, in.fog.a);
    #else
    return color;
    #endif
}

// A view through a mirror or teleporter: what lies before the portal plane is clipped.
@fragment
fn fs_portal_view(in: FragmentIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    if dot(frame.views[records[in.slot].view].clip_plane, vec4<f32>(in.world, 1.0)) < 0.0 {
        discard;
    }
    if fence_hole(in) {
        discard;
    }
    return shade(in);
}

// The wireframe overlay: triangle edges (polygon-mode lines) over the world.
@fragment
fn fs_wire(in: FragmentIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    return vec4<f32>(stored(vec3<f32>(0.9)), 1.0);
}

fn shade(in: FragmentIn) -> vec4<f32> {
    // Every sample first, in uniform control flow.
    let time = frame.params.x;
    var uv = in.uv;
    let liquid = (in.flags & SURFACE_LIQUID) != 0u;
    let glow = (in.flags & SURFACE_GLOW) != 0u;
    if liquid {
        uv = liquid_warp(uv, time);
    }
    let tex = textureSample(materials, material_sampler, uv, in.layer);
    let baked = style_light(in.lightmap_uv, fragment_rows(in));
    let unlit = fragment_unlit(in);

    // One exit: an early return from a divergent branch makes a software rasterizer mask
    // everything after it.
    var color: vec3<f32>;
    if (in.flags & SURFACE_SKY) != 0u {
        color = sky_color(in.world, in.layer, frame.views[records[in.slot].view].eye.xyz);
    } else {
        var light = baked * frame.params.y;
        // Liquids without a lightmap are fullbright; lit water has one.
        let no_lightmap = (in.flags & VERTEX_NO_LIGHTMAP) != 0u;
        if ((liquid || glow) && no_lightmap) || (frame.params.z > 0.5 && frame.params.z < 1.5) {
            light = vec3<f32>(1.0);
        } else if no_lightmap {
            light = unlit.light;
        }
        // Alpha 0 marks fullbright texels (Quake palette 224..255): unlit; a fence's alpha is
        // its coverage instead, and all of it is lit. Texels and light multiply in gamma
        // space, as Quake's renderers do, and the pass writes the raw (gamma) view of the
        // frame: liquids blend in gamma space too, as in Quake.
        let lit_share = select(tex.a, 1.0, (in.flags & SURFACE_FENCE) != 0u);
        color = mix(tex.rgb, tex.rgb * light, lit_share);
        if !liquid {
            color += unlit.specular;
        }
    }
    return finished(color, in);
}

// The camera's liquids in a frame that neither tints, nor is fullbright, nor reflects water
// (those go through `fs_main`): what `shade` does for them without those branches, the sky's
// and the light of moving objects' faces (no liquid is an object's), which a software
// rasterizer would run for every liquid fragment: the warp, the lightmap (lit water) or full
// light, the fog.
@fragment
fn fs_liquid(in: FragmentIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    // A glow is not warped (its coordinates as they are, selected after both are made).
    let warped = liquid_warp(in.uv, frame.params.x);
    let uv = select(in.uv, warped, (in.flags & SURFACE_LIQUID) != 0u);
    let tex = textureSample(materials, material_sampler, uv, in.layer);
    #ifdef UNLIT_LIQUIDS
    let color = plainly_finished(tex.rgb, in);
    #else
    let baked = style_light(in.lightmap_uv, fragment_rows(in)) * frame.params.y;
    let light = select(baked, vec3<f32>(1.0), (in.flags & VERTEX_NO_LIGHTMAP) != 0u);
    let color = plainly_finished(mix(tex.rgb, tex.rgb * light, tex.a), in);
    #endif
    return vec4<f32>(color.rgb, select(1.0, 0.0, (in.flags & SURFACE_GLOW) != 0u));
}

// The camera's sky in a frame that does not tint (those go through `fs_main`): Quake's two
// layers (`fs_skybox`: the level's cubemap), fogged, without the surface shading `shade` runs
// beside it for every fragment and without the other sky's branch.
@fragment
fn fs_sky(in: FragmentIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    return plainly_finished(layered_sky(in.world, in.layer, frame.eye.xyz), in);
}

@fragment
fn fs_skybox(in: FragmentIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    return plainly_finished(skybox_color(in.world, frame.eye.xyz), in);
}

// Quake 3's cloud layers over black (`fs_clouds`) or over the cubemap (`fs_skybox_clouds`):
// entry points of their own, as even a branch around them cost llvmpipe a box-only sky's
// frame time (oa_ctf2's intermission 7.1 → 11.9 ms).
@fragment
fn fs_clouds(in: FragmentIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    return plainly_finished(clouds_over(vec3<f32>(0.0), in.world, frame.eye.xyz), in);
}

@fragment
fn fs_skybox_clouds(in: FragmentIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    let eye = frame.eye.xyz;
    return plainly_finished(clouds_over(skybox_color(in.world, eye), in.world, eye), in);
}

// `finished` for a frame that neither tints nor reflects: fogged and stored, opaque.
fn plainly_finished(shaded: vec3<f32>, in: FragmentIn) -> vec4<f32> {
    return vec4<f32>(stored(saturated(fogged(shaded, in))), 1.0);
}

// A shaded colour as the frame stores it: fogged, tinted by the cells and depth overlays, and
// its alpha (1 but for the top of water over its reflection, and 0 for a glow, which adds),
// premultiplied: the liquids' blend is `src + (1 − alpha)·dst`.
fn finished(shaded: vec3<f32>, in: FragmentIn) -> vec4<f32> {
    var color = fogged(shaded, in);
    if frame.params.z > 1.5 {
        color = mix(color, overlay_tint(records[in.slot], frame.params.z > 2.5), 0.7);
    }
    // Liquids are opaque, as Quake draws them by default (r_wateralpha 1), but for the top
    // of water in the camera's view in a frame that reflects it: blended over the reflection
    // drawn under it by Schlick's Fresnel term for water (F0 = 0.02) at the eye's angle.
    var alpha = 1.0;
    if frame.water.x > 0.5 && (in.flags & VERTEX_WATER_TOP) != 0u && records[in.slot].view == 0u {
        let to_eye = frame.eye.xyz - in.world;
        let cos_theta = clamp(to_eye.z / max(length(to_eye), 1e-3), 0.0, 1.0);
        alpha = 1.0 - (0.02 + 0.98 * pow(1.0 - cos_theta, 5.0));
    }
    if (in.flags & SURFACE_GLOW) != 0u {
        return vec4<f32>(stored(saturated(color)), 0.0);
    }
    return vec4<f32>(stored(saturated(color)) * alpha, alpha);
}

