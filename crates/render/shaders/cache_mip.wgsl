// Surface cache mips (render::world::surface_cache): each level of a region from the level
// above, a 2x2 box in gamma space as Quake's own mips are made. A region starts and ends on
// whole texels of every level, so a box never reaches into a neighbour's region.

@group(0) @binding(0) var source: texture_2d<f32>;

@vertex
fn vs_mip(@location(0) position: vec2<f32>) -> @builtin(position) vec4<f32> {
    return vec4<f32>(position, 0.0, 1.0);
}

@fragment
fn fs_mip(@builtin(position) at: vec4<f32>) -> @location(0) vec4<f32> {
    let p = vec2<i32>(at.xy) * 2;
    let sum = textureLoad(source, p, 0) + textureLoad(source, p + vec2<i32>(1, 0), 0)
        + textureLoad(source, p + vec2<i32>(0, 1), 0) + textureLoad(source, p + vec2<i32>(1, 1), 0);
    return sum * 0.25;
}
