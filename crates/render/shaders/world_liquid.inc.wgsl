// Liquid surfaces.

// Liquids (water, slime, lava, teleporters): Quake's turbulent warp as quakespasm draws it
// (and software Quake, for 64-texel liquids): each coordinate moves by 1/16 of a repeat along
// a sine of the other, one period per repeat, one radian a second. Drawn fullbright (lit where
// the compiler gave the face a lightmap: lit water) and opaque
// (r_wateralpha 1) by `shade`.
fn liquid_warp(uv: vec2<f32>, time: f32) -> vec2<f32> {
    return uv + 0.0625 * sin(uv.yx * 6.2831853 + vec2<f32>(time, time));
}
