// The UI cover: the rectangles of the opaque UI panels written into the frame's depth at the
// nearest depth (reverse-Z: 1) before the world and the terrain draw, so their fragments under
// the panels fail the depth test before they are shaded (seed 003's scissor under the UI, for
// panels anywhere on the screen). The colour is only cleared: the panels cover it.

struct Cover {
    // Up to 8 rectangles in NDC: (min x, min y, max x, max y); `count` of them are drawn.
    rects: array<vec4<f32>, 8>,
};

@group(0) @binding(0) var<uniform> cover: Cover;

@vertex
fn vs_cover(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let r = cover.rects[min(i / 6u, 7u)];
    // Two triangles over the corners (min, min), (max, min), (max, max), (min, max).
    var corners = array<u32, 6>(0u, 1u, 2u, 0u, 2u, 3u);
    let k = corners[i % 6u];
    let x = select(r.x, r.z, k == 1u || k == 2u);
    let y = select(r.y, r.w, k >= 2u);
    return vec4<f32>(x, y, 1.0, 1.0);
}

@fragment
fn fs_cover() -> @location(0) vec4<f32> {
    return vec4<f32>(0.0);
}
