// The sun's shadow cascades: the world's casters drawn depth-only into one cascade (no colour
// target, no fragment stage: the rasterizer's depth-only path). The terrain draws its own
// casters with terrain.wgsl's vs_caster into the same cascade.

#include sun_caster.inc.wgsl

@group(0) @binding(0) var<uniform> caster: CasterView;

@vertex
fn vs_world_caster(@location(0) position: vec3<f32>) -> @builtin(position) vec4<f32> {
    return caster.world_to_light * vec4<f32>(position, 1.0);
}
