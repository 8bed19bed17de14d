// Liquid surfaces.

// Liquids (water, slime, lava, teleporters): Quake's turbulent warp as quakespasm draws it
// (and software Quake, for 64-texel liquids): each coordinate moves by 1/16 of a repeat along
// a sine of the other, one period per repeat, one radian a second. Drawn fullbright (lit where
// the compiler gave the face a lightmap: lit water) and opaque
// (r_wateralpha 1) by `shade`.
fn liquid_warp(uv: vec2<f32>, time: f32) -> vec2<f32> {
    return uv + 0.0625 * turn_sine(uv.yx + vec2<f32>(time, time) * 0.15915494);
}

// sin(2π·turns), a parabola through each half-turn refined once (within 0.0011 of the sine):
// llvmpipe's `sin` reduces the range and runs a long polynomial for every pixel.
fn turn_sine(turns: vec2<f32>) -> vec2<f32> {
    let t = fract(turns) * 2.0 - 1.0;
    let y = 4.0 * t * (1.0 - abs(t));
    return -(y + 0.225 * (y * abs(y) - y));
}
