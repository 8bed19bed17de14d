// Baked light: Quake's light styles summed from the lightmap, and an opaque surface lit by it.

// A shaded colour clamped where the LDR frame saturates; the HDR scene (LINEAR_OUTPUT) keeps
// what lies past white (the lightmaps' ×2 overbright).
fn saturated(c: vec3<f32>) -> vec3<f32> {
    #ifdef LINEAR_OUTPUT
    return c;
    #else
    return min(c, vec3<f32>(1.0));
    #endif
}

// What the pass stores for a colour shaded in Quake's gamma space: itself, into the LDR
// frame's raw view; or the linear light it stands for, into the HDR scene.
fn stored(c: vec3<f32>) -> vec3<f32> {
    #ifdef LINEAR_OUTPUT
    return srgb_to_linear_unclamped(c);
    #else
    return c;
    #endif
}

// Brightness of light style `style` this frame (0 for an empty slot, 255).
fn style_scale(style: u32) -> f32 {
    return select(frame.styles[(style >> 2u) & 15u][style & 3u], 0.0, style == 255u);
}

// A surface's light as a 3×4 matrix (rows R, G, B) applied to its atlas texel: each slot's
// style brightness this frame times the slot's colour, in the layout the atlas packed the
// surface in (render::world::light_atlas::Packing: one style in RGB; two with slot 1 grey in
// A; three or four grey in the channels, coloured by their tints). Built once per vertex, so a
// fragment pays one fetch and three dot products whatever its styles.
struct StyleRows {
    r: vec4<f32>,
    g: vec4<f32>,
    b: vec4<f32>,
};

fn style_rows(styles: u32, tints: vec4<u32>, flags: u32) -> StyleRows {
    let s = vec4<f32>(
        style_scale(styles & 255u),
        style_scale((styles >> 8u) & 255u),
        style_scale((styles >> 16u) & 255u),
        style_scale(styles >> 24u),
    );
    let t0 = unpack4x8unorm(tints.x).rgb * s.x;
    let t1 = unpack4x8unorm(tints.y).rgb * s.y;
    let t2 = unpack4x8unorm(tints.z).rgb * s.z;
    let t3 = unpack4x8unorm(tints.w).rgb * s.w;
    if (flags & VERTEX_PACKED_STYLES) == 0u {
        return StyleRows(vec4<f32>(s.x, 0.0, 0.0, 0.0), vec4<f32>(0.0, s.x, 0.0, 0.0), vec4<f32>(0.0, 0.0, s.x, 0.0));
    }
    if ((styles >> 16u) & 255u) == 255u {
        return StyleRows(vec4<f32>(s.x, 0.0, 0.0, t1.r), vec4<f32>(0.0, s.x, 0.0, t1.g), vec4<f32>(0.0, 0.0, s.x, t1.b));
    }
    return StyleRows(vec4<f32>(t0.r, t1.r, t2.r, t3.r), vec4<f32>(t0.g, t1.g, t2.g, t3.g), vec4<f32>(t0.b, t1.b, t2.b, t3.b));
}

// Quake's light styles: the texel's slots summed by `rows`, clamped where Quake's 8-bit
// lightmaps saturate (the ×2 overbright comes after). One fetch (a second, or a loop over
// slots, costs a software rasterizer much of the world pass).
fn style_light(lightmap_uv: vec2<f32>, rows: StyleRows) -> vec3<f32> {
    let uv = lightmap_uv / vec2<f32>(textureDimensions(lightmap));
    let t = textureSampleLevel(lightmap, lightmap_sampler, uv, 0.0);
    return min(vec3<f32>(dot(rows.r, t), dot(rows.g, t), dot(rows.b, t)), vec3<f32>(1.0));
}


// An opaque surface's colour: its texel lit by its styled lightmap (or its unlit light), with
// fullbright texels (alpha 0) unlit. The camera's direct path and the surface cache's bake
// both shade with it.
fn lit_opaque(tex: vec4<f32>, lightmap_uv: vec2<f32>, rows: StyleRows, flags: u32, unlit: vec3<f32>) -> vec3<f32> {
    let baked = style_light(lightmap_uv, rows) * frame.params.y;
    let light = select(baked, unlit, (flags & VERTEX_NO_LIGHTMAP) != 0u);
    let color = mix(tex.rgb, tex.rgb * light, tex.a);
    return saturated(color);
}
