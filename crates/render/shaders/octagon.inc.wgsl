// Screen octagons (geom::Octagon): min/max of x, y, x+y, x−y, in NDC.

// The octagon as 8 clip distances of clip position `c`, non-negative inside (x − xmin·w,
// xmax·w − x, … for x, y, x+y, x−y): the hardware clips to it and early depth testing survives
// (no discard). Same formula as geom::Octagon::clip_distances.
fn octagon_distances(c: vec4<f32>, oct_min: vec4<f32>, oct_max: vec4<f32>) -> array<f32, 8> {
    let a = vec4<f32>(c.x, c.y, c.x + c.y, c.x - c.y);
    let lo = a - oct_min * c.w;
    let hi = oct_max * c.w - a;
    return array<f32, 8>(lo.x, hi.x, lo.y, hi.y, lo.z, hi.z, lo.w, hi.w);
}

// The same test per fragment, in NDC: the fallback for adapters without clip distances.
fn outside_octagon(ndc: vec2<f32>, oct_min: vec4<f32>, oct_max: vec4<f32>) -> bool {
    let a = vec4<f32>(ndc.x, ndc.y, ndc.x + ndc.y, ndc.x - ndc.y);
    return any(a < oct_min) || any(a > oct_max);
}
