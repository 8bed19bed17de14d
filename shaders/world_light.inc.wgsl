// Baked light: Quake's light styles summed from the lightmap, and an opaque surface lit by it.

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


// An opaque surface's colour: its texel lit by its styled lightmap (or its unlit light), with
// fullbright texels (alpha 0) unlit. The camera's direct path and the surface cache's bake
// both shade with it.
fn lit_opaque(tex: vec4<f32>, lightmap_uv: vec2<f32>, scales: vec4<f32>, flags: u32, unlit: vec3<f32>) -> vec3<f32> {
    let baked = style_light(lightmap_uv, scales, flags) * frame.params.y;
    let light = select(baked, unlit, (flags & VERTEX_NO_LIGHTMAP) != 0u);
    let color = mix(tex.rgb, tex.rgb * light, tex.a);
    return min(color, vec3<f32>(1.0));
}
