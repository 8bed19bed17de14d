// The world shader's frame: its views, per-draw records, bindings (group 0) and flag bits.

// A view: the camera (0), or the view through a mirror or teleporter portal.
struct WorldView {
    view_proj: mat4x4<f32>,
    // Fragments with dot(clip_plane, (p, 1)) < 0 lie on the near side of the portal: discarded.
    clip_plane: vec4<f32>,
    // The eye in this view's space.
    eye: vec4<f32>,
};

// The aerial-perspective fog of a level under a terrain (render::world::fog::WorldFog): the
// terrain's exp² fog over the world's surfaces, in the sky's colour in each direction.
struct WorldFog {
    // x: the distance where the fog reaches 63 %, y: its strength (0: none), z: daylight (the
    // sky's colour is dimmed by it), w: the sky's colour from 0 its gradient, 1 the skybox, 2
    // the daylight model
    params: vec4<f32>,
    // xyz: unit vector towards the sun
    sun: vec4<f32>,
    zenith: vec4<f32>,
    horizon: vec4<f32>,
    // The daylight model (sky_model.inc.wgsl)
    sky: array<vec4<f32>, 6>,
};

// Quake 3's cloud layers over the sky (render::world::SkyClouds; world_sky.inc.wgsl).
struct SkyClouds {
    // x: layers (0: none), y: the dome's height over the eye, z: the sphere's radius
    params: vec4<f32>,
    // Per layer: x: its picture's material layer, y: its blend (0 replace, 1 add, 2 multiply,
    // 3 over by alpha)
    kinds: array<vec4<f32>, 4>,
    // Per layer: xy: scale, zw: repeats a second
    motion: array<vec4<f32>, 4>,
};

struct WorldFrame {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    // x: time in seconds, y: lightmap scale (2 = Quake overbright), z: 1 = fullbright debug,
    // w: 1 = sky surfaces show the cubemap skybox
    params: vec4<f32>,
    // Every light style's brightness this frame (style s is styles[s / 4][s % 4]).
    styles: array<vec4<f32>, 16>,
    views: array<WorldView, 8>,
    fog: WorldFog,
    // Level coordinates → each sun shadow cascade's clip space (this frame's fit, whose maps
    // were drawn before the world: render::world::shadows)
    shadow_to_light: array<mat4x4<f32>, 2>,
    // x, y: world units per texel of cascade 0 / 1; z, w: the view distance where the shadows
    // start fading out / are gone (the SUN_SHADOWS variant reads them)
    shadow: vec4<f32>,
    // x: 1 = the tops of water show the reflection the flow opened for them (VERTEX_WATER_TOP)
    water: vec4<f32>,
    clouds: SkyClouds,
};

struct DrawRecord {
    oct_min: vec4<f32>,
    oct_max: vec4<f32>,
    view: u32,
    cell: u32,
    // Portals the flow crossed to reach the cell (the depth tint).
    depth: u32,
    // An object lit where it is: RGB bytes, 64 = 1 (render::world::draws::LIGHT_UNIT); or
    // GRID_LIT: its faces' lights are in object_light.
    light: u32,
    // Object translation (zero for cells).
    origin: vec4<f32>,
};

@group(0) @binding(0) var<uniform> frame: WorldFrame;
@group(0) @binding(1) var<storage, read> records: array<DrawRecord>;
// RGB: a one-style surface's light; a surface with several styles has its slots packed as
// render::world::light_atlas::Packing says (style_rows reads them back).
@group(0) @binding(2) var lightmap: texture_2d<f32>;
@group(0) @binding(3) var lightmap_sampler: sampler;
@group(0) @binding(4) var materials: texture_2d_array<f32>;
@group(0) @binding(5) var material_sampler: sampler;
@group(0) @binding(6) var skybox: texture_cube<f32>;
// Per surface three words: the light of a grid-lit object's face (ten bits a channel, red
// lowest, OBJECT_LIGHT_UNIT = 1) from the level's light grid at its normal, the sun's direct
// light apart, and the face's normal (four signed bytes) (render::world::object_light).
@group(0) @binding(7) var<storage, read> object_light: array<u32>;

#ifdef OBJECT_LAMPS
// Per moving object its four strongest lamps (per pixel), then the next four (per vertex),
// three vectors each (render::world::object_lamps).
@group(0) @binding(8) var<storage, read> object_lamps: array<vec4<f32>>;
// The materials' normal and specular maps, layer for layer (render::materials::MaterialMaps).
@group(0) @binding(9) var normal_maps: texture_2d_array<f32>;
@group(0) @binding(10) var specular_maps: texture_2d_array<f32>;
#endif
// Each material layer's motion (render::materials::motion_words): its scroll in repeats a
// second (x, y: f32 bits; Quake 3's `tcMod scroll`), its animation's pictures a second (z: f32
// bits) and first picture's layer and count (w: low 16 bits, high 16; `animMap`).
@group(0) @binding(11) var<storage, read> material_motion: array<vec4<u32>>;
// `materials`' finest level alone: what is read at level 0 (the sky) is read from it, as
// llvmpipe samples a view of one level without the per-pixel level offsets it spends on a
// mipmapped view even at an explicit level (render::materials::MaterialArray::finest_view).
@group(0) @binding(12) var materials_finest: texture_2d_array<f32>;

#ifdef SUN_SHADOWS
// The sun's shadow cascades (render::shadow), group 2 of the colour pipelines.
@group(2) @binding(0) var shadow_maps: texture_depth_2d_array;
@group(2) @binding(1) var shadow_compare: sampler_comparison;
#endif

const SURFACE_SKY: u32 = 1u;
const SURFACE_LIQUID: u32 = 2u;
const SURFACE_FENCE: u32 = 16u;
const SURFACE_GLOW: u32 = 32u;
const VERTEX_NO_LIGHTMAP: u32 = 65536u;
const LIGHT_UNIT: u32 = 64u;
const GRID_LIT: u32 = 2147483648u;
const OBJECT_LIGHT_UNIT: u32 = 256u;
const LAMPS_PER_OBJECT: u32 = 4u;
const VERTEX_LAMPS: u32 = 4u;
const LAMP_VECTORS: u32 = 3u;
const VERTEX_PACKED_STYLES: u32 = 131072u;
const VERTEX_OUTDOOR: u32 = 262144u;
const VERTEX_WATER_TOP: u32 = 524288u;
const VERTEX_MAPPED: u32 = 1048576u;
const OBJECT_LIGHT_WORDS: u32 = 5u;
