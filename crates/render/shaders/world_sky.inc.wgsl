// Sky surfaces: the cubemap skybox, or Quake's scrolling two-layer sky; Quake 3's cloud
// layers over the skybox (or black).

// In control flow that may not be uniform: the clouds' pictures at their finest level.
fn sky_color(world: vec3<f32>, layer: u32, eye: vec3<f32>) -> vec3<f32> {
    if frame.params.w > 0.5 {
        return clouds_at_finest_level_over(skybox_color(world, eye), world, eye);
    }
    if frame.clouds.params.x > 0.5 {
        return clouds_at_finest_level_over(vec3<f32>(0.0), world, eye);
    }
    return layered_sky(world, layer, eye);
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

// Layer `k`'s picture coordinates at cloud coordinates `st`: scaled, then scrolled.
fn cloud_uv(st: vec2<f32>, k: u32) -> vec2<f32> {
    let motion = frame.clouds.motion[k];
    return st * motion.xy + fract(motion.zw * frame.params.x);
}

fn cloud_layers() -> u32 {
    return min(u32(frame.clouds.params.x + 0.5), 4u);
}

// Layer `k`'s `texel` over `color`: replacing it, added, multiplied or over it by its alpha.
fn cloud_layer_over(color: vec3<f32>, texel: vec4<f32>, k: u32) -> vec3<f32> {
    switch u32(frame.clouds.kinds[k].y + 0.5) {
        case 0u: { return texel.rgb; }
        case 1u: { return color + texel.rgb; }
        case 2u: { return color * texel.rgb; }
        default: { return mix(color, texel.rgb, texel.a); }
    }
}

// `clouds` where the direction from the eye is not through the box's bottom face, which the
// game leaves without clouds; `under` there.
fn unless_through_the_bottom(clouds: vec3<f32>, under: vec3<f32>, d: vec3<f32>) -> vec3<f32> {
    return select(clouds, under, -d.z > max(abs(d.x), abs(d.y)));
}

// The cloud layers over `under` (for `fs_sky` and `fs_skybox`, in uniform control flow: their
// pictures mipmapped by the screen's derivatives).
fn clouds_over(under: vec3<f32>, world: vec3<f32>, eye: vec3<f32>) -> vec3<f32> {
    let st = cloud_coordinates(world, eye);
    var color = under;
    for (var k = 0u; k < cloud_layers(); k = k + 1u) {
        let picture = u32(frame.clouds.kinds[k].x);
        color = cloud_layer_over(color, textureSample(materials, material_sampler, cloud_uv(st, k), picture), k);
    }
    return unless_through_the_bottom(color, under, world - eye);
}

// `clouds_over` in any control flow, sampling the pictures' finest level.
fn clouds_at_finest_level_over(under: vec3<f32>, world: vec3<f32>, eye: vec3<f32>) -> vec3<f32> {
    let st = cloud_coordinates(world, eye);
    var color = under;
    for (var k = 0u; k < cloud_layers(); k = k + 1u) {
        let uv = cloud_uv(st, k);
        let texel = textureSampleLevel(materials_finest, material_sampler, uv, u32(frame.clouds.kinds[k].x), 0.0);
        color = cloud_layer_over(color, texel, k);
    }
    return unless_through_the_bottom(color, under, world - eye);
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
    let back = textureSampleLevel(materials_finest, material_sampler, back_uv, layer, 0.0).rgb;
    let front = textureSampleLevel(materials_finest, material_sampler, front_uv, layer, 0.0).rgb;
    let front_alpha = select(1.0, 0.0, dot(front, vec3<f32>(1.0)) < 0.02);
    return mix(back, front, front_alpha);
}
