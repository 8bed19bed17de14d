// The world's aerial-perspective fog (variant AERIAL_FOG: a level under a terrain): what the
// terrain's `fog_at` gives its ground, per vertex, in gamma for the world pass's raw view.

#ifdef AERIAL_FOG
// The sky's linear colour in direction `d` as the terrain's fog shows it (terrain.wgsl
// `day_sky_color`), dimmed at night.
fn fog_sky(d: vec3<f32>) -> vec3<f32> {
    let f = frame.fog;
    var c: vec3<f32>;
    if f.params.w > 1.5 {
        c = perez_sky(d, f.sun.xyz, f.sky);
    } else if f.params.w > 0.5 {
        // Below the horizon the skybox's horizon ring; cube space is world space turned Y-up.
        let h = vec3<f32>(d.x, d.y, max(d.z, 0.0) + 1e-3);
        let texel = textureSampleLevel(skybox, lightmap_sampler, vec3<f32>(h.x, h.z, -h.y), 0.0);
        c = srgb_to_linear(texel.rgb);
    } else {
        c = mix(f.horizon.rgb, f.zenith.rgb, pow(max(d.z, 0.0), 0.45));
    }
    return c * f.params.z;
}

// The fog over a point at `rel` from the eye: its colour (gamma) and share.
fn aerial_fog(rel: vec3<f32>) -> vec4<f32> {
    let d = length(rel);
    let x = d / max(frame.fog.params.x, 1e-3);
    let share = (1.0 - exp(-x * x)) * frame.fog.params.y;
    return vec4<f32>(linear_to_srgb(fog_sky(rel / max(d, 1e-6))), share);
}

// The fog of a vertex with `flags` at `rel` from the eye: none indoors (indoor air does not
// scatter the sky's light) nor on sky surfaces (they are the sky).
fn aerial_fog_of(flags: u32, rel: vec3<f32>) -> vec4<f32> {
    let open_air = (flags & VERTEX_OUTDOOR) != 0u && (flags & SURFACE_SKY) == 0u;
    return select(vec4<f32>(0.0), aerial_fog(rel), open_air);
}
#endif
