// Clipmap terrain vertex functions: the WGSL twin of src/terrain/vertex.rs
// (`vertex_position`, which reads this file as `terrain::vertex::VERTEX_WGSL`). Same inputs, same
// f32 operations in the same order, so the GPU result can be compared against the CPU reference.
// A shader includes it (an include line, see render::shaders) and binds:
//   - `TerrainFrame` (48 bytes, `terrain::TerrainFrame`) as a uniform,
//   - one `TerrainInstance` (16 bytes, `terrain::TerrainInstance`) per instance (instance-stepped vertex
//     buffer or a storage buffer indexed by `instance_index`),
//   - the per-level height windows as a `texture_2d_array<f32>` (R32Float, layer = level,
//     `window_size`² texels, filled from `terrain::HeightUpdates`),
//   - the mesh vertex (`vec2<i32>`, format Sint32x2) from `terrain::ClipmapMeshes`.

struct TerrainFrame {
    anchor: vec2<i32>,
    window_size: u32,
    levels: u32,
    camera_offset: vec4<f32>,
    base_spacing: f32,
    morph_start: f32,
    morph_width: f32,
    tile_quads: u32,
}

struct TerrainInstance {
    offset: vec2<i32>,
    level: u32,
    rotation: u32,
}

// Quarter turns counter-clockwise.
fn terrain_rotate(r: u32, v: vec2<i32>) -> vec2<i32> {
    switch (r & 3u) {
        case 0u: { return v; }
        case 1u: { return vec2<i32>(-v.y, v.x); }
        case 2u: { return vec2<i32>(-v.x, -v.y); }
        default: { return vec2<i32>(v.y, -v.x); }
    }
}

// Euclidean `a mod n` (n > 0). Integer division has no SIMD form on CPUs, so software
// rasterizers run `%` lane by lane; the quotient is estimated in f32 instead (off by
// at most one for |a| < 2^24) and corrected exactly in integers: same result as `rem_euclid`.
fn terrain_emod(a: i32, n: i32) -> i32 {
    let q = i32(floor(f32(a) / f32(n)));
    var r = a - q * n;
    r = select(r, r + n, r < 0);
    r = select(r, r - n, r >= n);
    return r;
}

// Height of grid point `g` of `level` from its toroidal window.
fn terrain_height(heights: texture_2d_array<f32>, f: TerrainFrame, level: u32, g: vec2<i32>) -> f32 {
    let n = i32(f.window_size);
    return textureLoad(heights, vec2<i32>(terrain_emod(g.x, n), terrain_emod(g.y, n)), i32(level), 0).r;
}

// The coarser level's surface at `g` (odd/odd follows the (0,0)-(1,1) diagonal): the mean of the
// two neighbours along the odd axes, without a branch per parity: at even/even both samples are
// `g` itself and 0.5 · (h + h) = h exactly, so this equals the CPU reference bit for bit.
fn terrain_coarse_height(heights: texture_2d_array<f32>, f: TerrainFrame, level: u32, g: vec2<i32>) -> f32 {
    let odd = g & vec2<i32>(1, 1);
    return 0.5 * (terrain_height(heights, f, level, g - odd) + terrain_height(heights, f, level, g + odd));
}

fn terrain_morph_alpha(f: TerrainFrame, level: u32, rel_xy: vec2<f32>) -> f32 {
    // The coarsest level has nothing to morph towards (a select, not an early return).
    let spacing = f.base_spacing * f32(1u << level);
    let d = max(abs(rel_xy.x), abs(rel_xy.y)) / spacing;
    return select(clamp((d - f.morph_start) / f.morph_width, 0.0, 1.0), 0.0, level + 1u >= f.levels);
}

// Level grid point of a local mesh vertex.
fn terrain_grid_point(inst: TerrainInstance, local: vec2<i32>) -> vec2<i32> {
    return inst.offset + terrain_rotate(inst.rotation, local);
}

// Camera-relative position (world units, Z up) of a local mesh vertex: multiply by the view
// rotation (no translation) and the projection.
fn terrain_vertex(heights: texture_2d_array<f32>, f: TerrainFrame, inst: TerrainInstance, local: vec2<i32>) -> vec3<f32> {
    let g = terrain_grid_point(inst, local);
    let gb = g << vec2<u32>(inst.level, inst.level);
    let rel_xy = vec2<f32>(gb - f.anchor) * f.base_spacing - f.camera_offset.xy;
    let alpha = terrain_morph_alpha(f, inst.level, rel_xy);
    let hf = terrain_height(heights, f, inst.level, g);
    var z = hf;
    if (alpha > 0.0) {
        let hc = terrain_coarse_height(heights, f, inst.level, g);
        z = hf + (hc - hf) * alpha;
    }
    return vec3<f32>(rel_xy, z - f.camera_offset.z);
}

// Surface normal from the level's own samples (central differences; the window's one-texel
// border makes the neighbours of every drawn vertex available).
fn terrain_normal(heights: texture_2d_array<f32>, f: TerrainFrame, level: u32, g: vec2<i32>) -> vec3<f32> {
    let s = 2.0 * f.base_spacing * f32(1u << level);
    let dx = terrain_height(heights, f, level, g + vec2<i32>(1, 0)) - terrain_height(heights, f, level, g - vec2<i32>(1, 0));
    let dy = terrain_height(heights, f, level, g + vec2<i32>(0, 1)) - terrain_height(heights, f, level, g - vec2<i32>(0, 1));
    return normalize(vec3<f32>(-dx / s, -dy / s, 1.0));
}
