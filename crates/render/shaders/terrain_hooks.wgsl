// Test hooks of the terrain pass (cargo feature `test-hooks`; render::terrain::hooks): the
// terrain shader plus these entry points.
//   vs_points / fs_points  every mesh vertex of every instance as one pixel holding the
//                          camera-relative position and clip position (GPU vs CPU reference)
//   vs_reference           a full-resolution mesh with eye-relative positions and normals given as
//                          vertex attributes (the brute-force oracle of the screen-space error test)

#include terrain.wgsl

// ---- test hook: vertex positions as pixels ----

struct PointOut {
    @builtin(position) clip: vec4<f32>,
    // camera-relative position (terrain_vertex), w: morph alpha
    @location(0) @interpolate(flat) rel: vec4<f32>,
    // clip position of the surface pass
    @location(1) @interpolate(flat) clip_pos: vec4<f32>,
};

struct PointTargets {
    @location(0) rel: vec4<f32>,
    @location(1) clip_pos: vec4<f32>,
};

// Pixel (vertex_index, instance_index) of a `misc.x` × `misc.y` target.
@vertex
fn vs_points(m: MeshIn, @builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> PointOut {
    let s = terrain_surface(m);
    var out: PointOut;
    let size = view.misc.xy;
    out.clip = vec4<f32>(
        (f32(vi) + 0.5) / size.x * 2.0 - 1.0,
        1.0 - (f32(ii) + 0.5) / size.y * 2.0,
        0.5,
        1.0
    );
    out.rel = vec4<f32>(s.rel, s.alpha);
    out.clip_pos = view.view_proj * vec4<f32>(s.rel + view.eye_offset.xyz, 1.0);
    return out;
}

@fragment
fn fs_points(in: PointOut) -> PointTargets {
    var t: PointTargets;
    t.rel = in.rel;
    t.clip_pos = in.clip_pos;
    return t;
}

// ---- brute-force reference mesh (screen-space error oracle) ----

struct ReferenceVertex {
    // eye-relative position
    @location(0) rel: vec3<f32>,
    @location(1) height: f32,
    @location(2) normal: vec3<f32>,
};

@vertex
fn vs_reference(r: ReferenceVertex) -> SurfaceOut {
    var out: SurfaceOut;
    let rel = r.rel + vec3<f32>(0.0, 0.0, water_lift(r.height));
    out.clip = view.view_proj * vec4<f32>(rel, 1.0);
    out.rel = vec4<f32>(rel, r.height);
    out.normal = vec4<f32>(r.normal, 0.0);
    out.level = 0u;
    out.ndc = out.clip;
    out.fog = fog_at(rel);
    light_vertex(&out, 1.0);
    #ifdef CLIP_DISTANCES
    out.clip_distances = octagon_distances(out.clip, view.oct_min, view.oct_max);
    #endif
    return out;
}
