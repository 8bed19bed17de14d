// The world's vertices: placed by their draw record's view and origin, clipped to its
// octagon, with each lightmap slot's style brightness looked up once per vertex.

struct WorldVertex {
    @location(0) position: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) lightmap_uv: vec2<f32>,
    @location(3) layer: u32,
    @location(4) flags: u32,
    @location(5) surface: u32,
    @location(6) styles: u32,
    @location(7) unlit: f32,
    @location(8) style_tints: vec4<u32>,
};

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    #ifdef CLIP_DISTANCES
    @builtin(clip_distances) clip_distances: array<f32, 8>,
    #endif
    @location(0) uv: vec2<f32>,
    @location(1) lightmap_uv: vec2<f32>,
    @location(2) @interpolate(flat) layer: u32,
    @location(3) @interpolate(flat) flags: u32,
    @location(4) @interpolate(flat) slot: u32,
    @location(5) world: vec3<f32>,
    @location(6) clip_pos: vec4<f32>,
    @location(7) @interpolate(flat) surface: u32,
    // The texel-to-light matrix (style_rows: this frame's style brightnesses times the slots'
    // colours): made per vertex, not per fragment.
    @location(8) @interpolate(flat) light_r: vec4<f32>,
    // The light of a surface without a lightmap: shaded by its normal on the CPU, times its
    // record's light (a moving object's, sampled below it); with the object lamps, a grid-lit
    // face's lamps per vertex added (interpolated across the face).
    #ifdef OBJECT_LAMPS
    @location(9) unlit: vec3<f32>,
    #else
    @location(9) @interpolate(flat) unlit: vec3<f32>,
    #endif
    @location(10) @interpolate(flat) light_g: vec4<f32>,
    @location(11) @interpolate(flat) light_b: vec4<f32>,
    #ifdef AERIAL_FOG
    // The fog's colour (gamma) and share, per vertex (`aerial_fog`).
    @location(12) fog: vec4<f32>,
    #endif
    #ifdef SUN_SHADOWS
    // A grid-lit object face's direct sunlight, added where the cascades see the sun.
    @location(13) @interpolate(flat) sun_light: vec3<f32>,
    #endif
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
    @location(8) @interpolate(flat) light_r: vec4<f32>,
    // The light of a surface without a lightmap: shaded by its normal on the CPU, times its
    // record's light (a moving object's, sampled below it); with the object lamps, a grid-lit
    // face's lamps per vertex added (interpolated across the face).
    #ifdef OBJECT_LAMPS
    @location(9) unlit: vec3<f32>,
    #else
    @location(9) @interpolate(flat) unlit: vec3<f32>,
    #endif
    @location(10) @interpolate(flat) light_g: vec4<f32>,
    @location(11) @interpolate(flat) light_b: vec4<f32>,
    #ifdef AERIAL_FOG
    // The fog's colour (gamma) and share, per vertex (`aerial_fog`).
    @location(12) fog: vec4<f32>,
    #endif
    #ifdef SUN_SHADOWS
    // A grid-lit object face's direct sunlight, added where the cascades see the sun.
    @location(13) @interpolate(flat) sun_light: vec3<f32>,
    #endif
};

@vertex
fn vs_main(v: WorldVertex, @builtin(instance_index) slot: u32) -> VertexOut {
    var out: VertexOut;
    let record = records[slot];
    let world = v.position + record.origin.xyz;
    let clip = frame.views[record.view].view_proj * vec4<f32>(world, 1.0);
    out.clip = clip;
    #ifdef CLIP_DISTANCES
    out.clip_distances = octagon_distances(clip, record.oct_min, record.oct_max);
    #endif
    // A scrolling material moves by its speed times the time, modulo one repeat; an animated
    // one shows the picture of the moment.
    let motion = material_motion[v.layer];
    let time = frame.params.x;
    out.uv = v.uv + fract(bitcast<vec2<f32>>(motion.xy) * time);
    out.lightmap_uv = v.lightmap_uv;
    let pictures = motion.w >> 16u;
    let picture = u32(max(floor(time * bitcast<f32>(motion.z)), 0.0)) % max(pictures, 1u);
    out.layer = select(v.layer, (motion.w & 65535u) + picture, pictures > 0u);
    out.flags = v.flags;
    out.slot = slot;
    out.world = world;
    out.clip_pos = clip;
    out.surface = v.surface;
    let rows = style_rows(v.styles, v.style_tints, v.flags);
    out.light_r = rows.r;
    out.light_g = rows.g;
    out.light_b = rows.b;
    out.unlit = unlit_light(v, record.light);
    #ifdef OBJECT_LAMPS
    if (record.light & GRID_LIT) != 0u {
        out.unlit += vertex_lamps_light(world, face_normal(v.surface), record.cell);
    }
    #endif
    #ifdef SUN_SHADOWS
    out.sun_light = vec3<f32>(0.0);
    if (record.light & GRID_LIT) != 0u {
        out.sun_light = object_light_word(OBJECT_LIGHT_WORDS * v.surface + 1u);
    }
    #endif
    #ifdef AERIAL_FOG
    out.fog = aerial_fog_of(v.flags, world - frame.views[record.view].eye.xyz);
    #endif
    return out;
}

// The light of a surface without a lightmap: a grid-lit object's face's own, else its CPU
// normal shade times its record's light.
fn unlit_light(v: WorldVertex, light: u32) -> vec3<f32> {
    if (light & GRID_LIT) != 0u {
        return object_light_word(OBJECT_LIGHT_WORDS * v.surface);
    }
    return v.unlit * unpack4x8unorm(light).rgb * (255.0 / f32(LIGHT_UNIT));
}

// A light of the object light buffer: ten bits a channel, red lowest.
fn object_light_word(i: u32) -> vec3<f32> {
    let o = object_light[i];
    let bits = vec3<u32>(o & 1023u, (o >> 10u) & 1023u, (o >> 20u) & 1023u);
    return vec3<f32>(bits) / f32(OBJECT_LIGHT_UNIT);
}

// The fragment's light without a lightmap, and the highlights added over the lit colour.
struct Unlit {
    light: vec3<f32>,
    specular: vec3<f32>,
};

// A grid-lit object's face adds, with the shadow cascades, its direct sunlight where the sun
// reaches, and its lamps per pixel (capped as a lightmap is); where its material has maps
// (MATERIAL_MAPS), the lamps at the mapped normal and their highlights (the maps read once).
fn fragment_unlit(in: FragmentIn) -> Unlit {
    var light = in.unlit;
    var specular = vec3<f32>(0.0);
    var added = false;
    #ifdef SUN_SHADOWS
    if any(in.sun_light > vec3<f32>(0.0)) {
        light += in.sun_light * world_sun_shadow(in.world);
        added = true;
    }
    #endif
    #ifdef OBJECT_LAMPS
    let record = records[in.slot];
    if (record.light & GRID_LIT) != 0u {
        // The face's normal from the object light buffer (a varying more would pass the
        // limit of inter-stage variables with clip distances), shaped by its normal map.
        let face = mapped_face(in);
        light += lamps_light(in.world, face.normal, record.cell);
        added = true;
        #ifdef MATERIAL_MAPS
        if (in.flags & VERTEX_MAPPED) != 0u {
            let eye = frame.views[record.view].eye.xyz;
            specular = lamps_specular(in.world, face.normal, eye, record.cell, face.specular);
        }
        #endif
    }
    #endif
    return Unlit(select(light, min(light, vec3<f32>(frame.params.y)), added), specular);
}

#ifdef OBJECT_LAMPS
// A grid-lit face's normal, from the object light buffer.
fn face_normal(surface: u32) -> vec3<f32> {
    return normalize(unpack4x8snorm(object_light[OBJECT_LIGHT_WORDS * surface + 2u]).xyz);
}

// Lamp slot `slot` of object `u32::MAX − cell` (its record's cell): where it is and its
// light (xyz, w), its colour scaled on the CPU and its falloff (rgb, w), its angle scale (x)
// (render::world::object_lamps: per object the per-pixel slots, then the per-vertex ones).
fn lamp_slot(cell: u32, slot: u32) -> array<vec4<f32>, 3> {
    let base = ((4294967295u - cell) * (LAMPS_PER_OBJECT + VERTEX_LAMPS) + slot) * LAMP_VECTORS;
    return array<vec4<f32>, 3>(object_lamps[base], object_lamps[base + 1u], object_lamps[base + 2u]);
}

// A lamp seen from the level point `p`: the unit direction to it and its light there before
// the angle, `light − wait·d` (not below 0; the CPU's `object_lamps::lamp_at`).
struct LampAt {
    to: vec3<f32>,
    value: f32,
};

fn lamp_at(lamp: array<vec4<f32>, 3>, p: vec3<f32>) -> LampAt {
    let to = lamp[0].xyz - p;
    let d = length(to);
    return LampAt(to / max(d, 1e-3), max(lamp[0].w - lamp[1].w * d, 0.0));
}

// Lamp slot `slot` at the level point `p` of a face facing `n`: Quake's
// `(light − wait·d) · ((1 − a) + a·cos)`.
fn lamp_light(p: vec3<f32>, n: vec3<f32>, cell: u32, slot: u32) -> vec3<f32> {
    let lamp = lamp_slot(cell, slot);
    let seen = lamp_at(lamp, p);
    let cos = dot(n, seen.to);
    let value = seen.value;
    let angle = lamp[2].x;
    let response = select(0.0, (1.0 - angle) + angle * cos, cos > 0.0);
    return lamp[1].rgb * (value * response);
}

// The highlights of the object's strongest lamps at `p` on a face facing `n` seen from `eye`:
// Blinn-Phong in the specular texel's colour, its alpha the gloss (the exponent
// 2^(1 + 10·gloss)), each lamp's light as it reaches the face.
fn lamps_specular(p: vec3<f32>, n: vec3<f32>, eye: vec3<f32>, cell: u32, specular: vec4<f32>) -> vec3<f32> {
    let view = normalize(eye - p);
    let exponent = exp2(1.0 + 10.0 * specular.a);
    var sum = vec3<f32>(0.0);
    for (var k = 0u; k < LAMPS_PER_OBJECT; k++) {
        let lamp = lamp_slot(cell, k);
        let seen = lamp_at(lamp, p);
        let highlight = pow(max(dot(n, normalize(seen.to + view)), 0.0), exponent);
        sum += lamp[1].rgb * (seen.value * select(0.0, highlight, dot(n, seen.to) > 0.0));
    }
    return sum * specular.rgb;
}

// A grid-lit face at a fragment as its material's maps shape it: its normal (the normal map
// in the face's texture frame, or the face's own) and its specular texel (zero: none).
// Level 0 of the maps: a mip level needs derivatives, which need uniform control flow.
struct MappedFace {
    normal: vec3<f32>,
    specular: vec4<f32>,
};

fn mapped_face(in: FragmentIn) -> MappedFace {
    let n = face_normal(in.surface);
    #ifdef MATERIAL_MAPS
    if (in.flags & VERTEX_MAPPED) != 0u {
        let t = textureSampleLevel(normal_maps, material_sampler, in.uv, in.layer, 0.0).xyz * 2.0 - 1.0;
        let base = OBJECT_LIGHT_WORDS * in.surface;
        let u = unpack4x8snorm(object_light[base + 3u]).xyz;
        let v = unpack4x8snorm(object_light[base + 4u]).xyz;
        let specular = textureSampleLevel(specular_maps, material_sampler, in.uv, in.layer, 0.0);
        return MappedFace(normalize(u * t.x + v * t.y + n * t.z), specular);
    }
    #endif
    return MappedFace(n, vec4<f32>(0.0));
}

// The object's strongest lamps, per pixel.
fn lamps_light(p: vec3<f32>, n: vec3<f32>, cell: u32) -> vec3<f32> {
    var sum = vec3<f32>(0.0);
    for (var k = 0u; k < LAMPS_PER_OBJECT; k++) {
        sum += lamp_light(p, n, cell, k);
    }
    return sum;
}

// The next strongest, per vertex.
fn vertex_lamps_light(p: vec3<f32>, n: vec3<f32>, cell: u32) -> vec3<f32> {
    var sum = vec3<f32>(0.0);
    for (var k = 0u; k < VERTEX_LAMPS; k++) {
        sum += lamp_light(p, n, cell, LAMPS_PER_OBJECT + k);
    }
    return sum;
}
#endif

#ifdef SUN_SHADOWS
// A level point in cascade `c`'s map: texture coordinates and depth; nudged a texel towards
// the sun so a face flush with a caster does not shadow itself.
fn world_sun_coords(c: u32, p: vec3<f32>) -> vec3<f32> {
    let t = select(frame.shadow.y, frame.shadow.x, c == 0u);
    let q = frame.shadow_to_light[c] * vec4<f32>(p + frame.fog.sun.xyz * t, 1.0);
    return vec3<f32>(q.x * 0.5 + 0.5, 0.5 - q.y * 0.5, q.z);
}

// How much of the sun reaches the level point `p` (the terrain's lookup, `cascaded_sun`).
fn world_sun_shadow(p: vec3<f32>) -> f32 {
    let near = world_sun_coords(0u, p);
    let far = world_sun_coords(1u, p);
    let d = length(p - frame.eye.xyz);
    return cascaded_sun(shadow_maps, shadow_compare, near, far, d, frame.shadow.zw);
}
#endif

#ifndef CLIP_DISTANCES
// Outside the octagon of the fragment's draw record (the discard fallback).
fn outside_record(clip: vec4<f32>, slot: u32) -> bool {
    let r = records[slot];
    return outside_octagon(clip.xy / clip.w, r.oct_min, r.oct_max);
}
#endif

// The fragment's texel-to-light matrix (style_rows) from its varyings.
fn fragment_rows(in: FragmentIn) -> StyleRows {
    return StyleRows(in.light_r, in.light_g, in.light_b);
}
