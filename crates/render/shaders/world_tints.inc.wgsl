// The cells and depth overlays' tints.

// The cells and depth overlays (params.z 2 and 3; render::overlay::tint_rgb is the twin): a
// colour per cell id, or a ramp over the portals the flow crossed (0 green ... 7+ red).
fn overlay_tint(record: DrawRecord, by_depth: bool) -> vec3<f32> {
    var hue: f32;
    if by_depth {
        hue = 0.33 * (1.0 - min(f32(record.depth), 7.0) / 7.0);
    } else {
        hue = fract(f32(record.cell) * 0.618034);
    }
    let k = fract(vec3<f32>(1.0, 2.0 / 3.0, 1.0 / 3.0) + hue) * 6.0 - 3.0;
    return clamp(abs(k) - 1.0, vec3<f32>(0.0), vec3<f32>(1.0));
}
