// Sky surfaces: the cubemap skybox, or Quake's scrolling two-layer sky; Quake 3's cloud
// layers over the skybox (or black).

// In control flow that may not be uniform: the clouds' pictures at their finest level.
fn sky_color(world: vec3<f32>, layer: u32, eye: vec3<f32>) -> vec3<f32> {
    let st = cloud_coordinates(world, eye);
    let finest = vec4<f32>(0.0);
    if frame.params.w > 0.5 {
        return clouds_over(skybox_color(world, eye), world, eye, st, finest);
    }
    if frame.clouds.params.x > 0.5 {
        return clouds_over(vec3<f32>(0.0), world, eye, st, finest);
    }
    return layered_sky(world, layer, eye);
}

// The sky of `fs_sky` and `fs_skybox` (uniform control flow): the clouds' pictures mipmapped.
fn sky_with_clouds(under: vec3<f32>, world: vec3<f32>, eye: vec3<f32>) -> vec3<f32> {
    let st = cloud_coordinates(world, eye);
    let steps = vec4<f32>(dpdx(st), dpdy(st));
    return clouds_over(under, world, eye, st, steps);
}

// Quake 3's cloud coordinates (tr_sky.c): the direction from the eye meets a sphere whose top
// lies the dome's height over the eye and whose centre that sphere's radius below the eye;
// they are the angles of the meeting point from the centre to +X and +Y (radians).
fn cloud_coordinates(world: vec3<f32>, eye: vec3<f32>) -> vec2<f32> {
    let d = normalize(world - eye);
    let r = frame.clouds.params.z;
    let h = frame.clouds.params.y;
    let along = -r * d.z + sqrt(r * r * d.z * d.z + 2.0 * r * h + h * h);
    let v = normalize(along * d + vec3<f32>(0.0, 0.0, r));
    return vec2<f32>(acos(clamp(v.x, -1.0, 1.0)), acos(clamp(v.y, -1.0, 1.0)));
}

// The cloud layers over `under` at coordinates `st` (their screen steps: `steps`, xy across,
// zw down), each scaled and scrolled by its layer. None through the box's bottom face.
fn clouds_over(
    under: vec3<f32>, world: vec3<f32>, eye: vec3<f32>, st: vec2<f32>, steps: vec4<f32>
) -> vec3<f32> {
    let d = normalize(world - eye);
    let layers = u32(frame.clouds.params.x + 0.5);
    if layers == 0u || -d.z > max(abs(d.x), abs(d.y)) {
        return under;
    }
    var color = under;
    for (var k = 0u; k < min(layers, 4u); k = k + 1u) {
        let kind = frame.clouds.kinds[k];
        let motion = frame.clouds.motion[k];
        let uv = st * motion.xy + fract(motion.zw * frame.params.x);
        let texel = textureSampleGrad(
            materials, material_sampler, uv, u32(kind.x), steps.xy * motion.xy,
            steps.zw * motion.xy
        );
        switch u32(kind.y + 0.5) {
            case 0u: { color = texel.rgb; }
            case 1u: { color = color + texel.rgb; }
            case 2u: { color = color * texel.rgb; }
            default: { color = mix(color, texel.rgb, texel.a); }
        }
    }
    return color;
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
