// sRGB transfer functions (texels and skyboxes are sRGB-encoded; the passes shade in linear).

// Decodes an sRGB colour (clamped to [0, 1] first) to linear.
fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let x = clamp(c, vec3<f32>(0.0), vec3<f32>(1.0));
    return select(pow((x + 0.055) / 1.055, vec3<f32>(2.4)), x / 12.92, x <= vec3<f32>(0.04045));
}

// Decodes sRGB-encoded values with the curve's power segment carried on past 1: Quake's
// overbright light in gamma space stands for linear light past white (the HDR scene).
fn srgb_to_linear_unclamped(c: vec3<f32>) -> vec3<f32> {
    let x = max(c, vec3<f32>(0.0));
    return select(pow((x + 0.055) / 1.055, vec3<f32>(2.4)), x / 12.92, x <= vec3<f32>(0.04045));
}

// Encodes linear colour to sRGB (for surfaces that do not encode it themselves).
fn linear_to_srgb(c: vec3<f32>) -> vec3<f32> {
    let lo = c * 12.92;
    let hi = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, c <= vec3<f32>(0.0031308));
}
