// One sun cascade as its casters are drawn into it (render::shadow::CasterView): the sun's clip
// space from world positions (the world's vertices) and from eye-relative ones (the terrain's).
// Depth is reverse-Z: 1 nearest the sun.

struct CasterView {
    world_to_light: mat4x4<f32>,
    rel_to_light: mat4x4<f32>,
};
