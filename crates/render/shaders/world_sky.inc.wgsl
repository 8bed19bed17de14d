// Sky surfaces: the cubemap skybox, or Quake's scrolling two-layer sky.

fn sky_color(world: vec3<f32>, layer: u32, eye: vec3<f32>) -> vec3<f32> {
    if frame.params.w > 0.5 {
        return skybox_color(world, eye);
    }
    return layered_sky(world, layer, eye);
}

// The level's cubemap skybox in the direction of `world` from `eye`.
fn skybox_color(world: vec3<f32>, eye: vec3<f32>) -> vec3<f32> {
    // Cube space is world space turned Y-up: (x, z, -y).
    let d = world - eye;
    return textureSampleLevel(skybox, lightmap_sampler, vec3<f32>(d.x, d.z, -d.y), 0.0).rgb;
}

fn layered_sky(world: vec3<f32>, layer: u32, eye: vec3<f32>) -> vec3<f32> {
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
