// The overdraw overlay's and bench's fragment count.

// Overdraw counting (render::world::count_pass): a fragment that gets here adds one to an R8
// target (additive blending, 1/255 each).
@fragment
fn fs_count(in: FragmentIn) -> @location(0) vec4<f32> {
    #ifndef CLIP_DISTANCES
    if outside_record(in.clip_pos, in.slot) { discard; }
    #endif
    return count_fragment(in);
}

// The whole triangle, octagon ignored: what a fragment-discard octagon test shades.
@fragment
fn fs_count_unclipped(in: FragmentIn) -> @location(0) vec4<f32> {
    return count_fragment(in);
}

fn count_fragment(in: FragmentIn) -> vec4<f32> {
    // The camera view's plane is (0, 0, 0, 1): nothing is before it.
    if dot(frame.views[records[in.slot].view].clip_plane, vec4<f32>(in.world, 1.0)) < 0.0 {
        discard;
    }
    return vec4<f32>(1.0 / 255.0);
}
