// The sun's shadow cascades as a surface receives them (render::shadow): both maps are layers
// of one array, so a point costs one 2×2 PCF fetch whichever cascade holds it (a software
// rasterizer runs both sides of a branch: with a map each, every pixel paid two fetches).

// How much of the sun reaches a point at `near` / `far` in the cascades (texture coordinates
// and reverse depth in each), `d` from the eye: 1 lit, 0 in shadow, from the near cascade
// where it holds the point with two texels to spare for the filter, else the far one, which
// fades out between `fade.x` and `fade.y`; outside both (or beyond the far side), lit.
fn cascaded_sun(maps: texture_depth_2d_array, compare: sampler_comparison, near: vec3<f32>, far: vec3<f32>, d: f32, fade: vec2<f32>) -> f32 {
    let margin = 2.0 / f32(textureDimensions(maps).x);
    let in_near = all(near.xy > vec2<f32>(margin)) && all(near.xy < vec2<f32>(1.0 - margin)) && near.z > 0.0;
    let p = select(far, near, in_near);
    let outside = any(p.xy < vec2<f32>(0.0)) || any(p.xy > vec2<f32>(1.0)) || p.z <= 0.0;
    let lit = textureSampleCompareLevel(maps, compare, p.xy, select(1, 0, in_near), p.z);
    let faded = select(mix(lit, 1.0, smoothstep(fade.x, fade.y, d)), lit, in_near);
    return select(faded, 1.0, outside);
}
