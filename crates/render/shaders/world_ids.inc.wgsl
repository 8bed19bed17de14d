// The vis-check ground truth: surface ids, portal marks and the far plane behind portals.

// The vis-check ground truth: which surface covers each pixel (id + 1; 0 = nothing). In an
// outdoor level (back faces not culled) a surface seen from behind is the outside of the level's
// solid (e.g. from an outdoor cell over an unbuilt roof): it hides what is behind it and shows
// nothing.
@fragment
fn fs_ids(in: FragmentIn, @builtin(front_facing) front: bool) -> @location(0) u32 {
    return surface_id(in, front);
}

// A fence's ids: none where its texels are holes (what is behind shows through).
@fragment
fn fs_ids_fence(in: FragmentIn, @builtin(front_facing) front: bool) -> @location(0) u32 {
    if fence_hole(in) {
        discard;
    }
    return surface_id(in, front);
}

// The id a fragment of `in` leaves, clipped to its octagon and its view's portal plane.
fn surface_id(in: FragmentIn, front: bool) -> u32 {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    // Views through mirrors and teleporters: what lies before the portal plane is clipped.
    if dot(frame.views[records[in.slot].view].clip_plane, vec4<f32>(in.world, 1.0)) < 0.0 {
        discard;
    }
    return select(0u, in.surface + 1u, front);
}

// The id pass's portal marks: a mirror's or teleporter's polygon in the view it is seen in
// (`instance_index`), clipped by that view's portal plane like its surfaces.
struct PortalMarkOut {
    // Drawn twice (depth, then depth-equal): the same depths both times.
    @builtin(position) @invariant clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) @interpolate(flat) view: u32,
};

@vertex
fn vs_portal_mark(@location(0) position: vec3<f32>, @builtin(instance_index) view: u32) -> PortalMarkOut {
    var out: PortalMarkOut;
    out.clip = frame.views[view].view_proj * vec4<f32>(position, 1.0);
    out.world = position;
    out.view = view;
    return out;
}

@fragment
fn fs_portal_mark(in: PortalMarkOut) -> @location(0) u32 {
    if dot(frame.views[in.view].clip_plane, vec4<f32>(in.world, 1.0)) < 0.0 {
        discard;
    }
    return 0u;
}

// A full-screen triangle at the far plane (reverse-Z: depth 0): where a portal was marked, the
// view beyond starts from an empty depth and no surface.
@vertex
fn vs_far_plane(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let corner = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(corner * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_no_surface() -> @location(0) u32 {
    return 0u;
}
