//! What the user switches per frame: the settings every pass reads. A leaf of `render/`:
//! the passes and the Renderer name it; it names none of them.

use lanthorn_level::styles::StyleMode;

/// Per-frame settings a user can toggle.
#[derive(Clone, Copy, Debug)]
pub struct FrameSettings {
    /// Seconds since start (sky scroll, liquid warp).
    pub time: f32,
    /// Lightmap scale: 2 is Quake's overbright.
    pub light_scale: f32,
    /// Every surface at full light (no lightmaps).
    pub fullbright: bool,
    /// How light styles animate (with `time`): Quake's strings, or all held at "m".
    pub light_styles: StyleMode,
    /// Linear texture magnification instead of Quake's nearest.
    pub linear_filtering: bool,
    /// Terrain debug overlays.
    pub terrain: TerrainOverlay,
    /// Which tests each surface of a visible cell must pass (the culling method's: whole cells
    /// for vis-check's truth and `--cull none`, GLQuake's for `--cull pvs`).
    pub surface_tests: SurfaceTests,
    /// The cells / depth overlays' world tint.
    pub tint: OverlayTint,
    /// The overdraw overlay: the frame replaced by its fragments per pixel, counted with this
    /// octagon clipping.
    pub overdraw: Option<OctagonClip>,
    /// The wireframe overlay with polygon-mode lines (`WorldPass::can_draw_wireframe`).
    pub wireframe: bool,
    /// The camera draws what the surface cache holds with one fetch (`world::surface_cache`).
    pub surface_cache: bool,
    /// The cache's surfaces magnified all over are sampled from a view of their finest level
    /// alone (`fs_cached_magnified`); off, through the mipmapped view as the others are. The same
    /// pixels either way (tests/gpu/surface_cache.rs checks it): off costs time, not looks.
    pub magnified_fetch: bool,
    /// The cache's surfaces with at most two texels a pixel blend views of the two finest
    /// levels (`fs_cached_two_levels`); off, they go through the sampler's mipmapped fetch.
    /// Nearly the same pixels (tests/gpu/surface_cache.rs bounds the difference); off costs
    /// time.
    pub two_level_blend: bool,
    /// The frame's depth is cleared once every `depth_bands::BANDS` frames, each frame's
    /// depths in a band above the last's (`render::depth_bands`); off, every frame clears it.
    /// The same pixels either way (tests/gpu/depth_bands.rs checks it): off costs time.
    pub depth_bands: bool,
    /// Bright light bleeds into its surroundings (`render::bloom`).
    pub bloom: bool,
    /// The scene is drawn in linear, unclamped light into a float target and tone-mapped into
    /// the frame (`render::tonemap`); off, the LDR frame as it always was.
    pub hdr: bool,
    /// With HDR, the scene's light is scaled by 2^exposure (stops) before the tone map.
    pub exposure: f32,
    /// The sun's shadow cascades shadow the terrain (`render::shadow`).
    pub shadows: bool,
    /// The terrain's sea reflects the land and the sky, with foam on its shores.
    pub reflections: bool,
    /// Where the terrain's sky and fog colour come from.
    pub sky: SkyMode,
    /// The lamps' point light map lights the terrain (`terrain::lamps`).
    pub point_lights: bool,
    /// Where the terrain's surface is lit: at its vertices (shadows per pixel where a brush's
    /// can fall) or at every pixel.
    pub terrain_lighting: TerrainLighting,
    /// Day, or night: the terrain's sun, sky light and sky dimmed (`--time-of-day`).
    pub time_of_day: TimeOfDay,
    /// The world and the terrain skip the pixels under the demo's opaque panels
    /// (`render::ui_cover`; frames without a UI have nothing to skip).
    pub ui_cover: bool,
    /// Switchable light styles the user flipped from how the level starts them: bit `s − 32`
    /// (the demo's panel; as a trigger would switch them in the game).
    pub switched: u32,
}

impl Default for FrameSettings {
    fn default() -> Self {
        FrameSettings {
            time: 0.0,
            light_scale: 2.0,
            fullbright: false,
            light_styles: StyleMode::Animated,
            linear_filtering: false,
            terrain: TerrainOverlay::default(),
            surface_tests: SurfaceTests::ALL,
            tint: OverlayTint::None,
            overdraw: None,
            wireframe: false,
            switched: 0,
            surface_cache: true,
            magnified_fetch: true,
            two_level_blend: true,
            depth_bands: true,
            bloom: false,
            hdr: false,
            exposure: 0.0,
            shadows: false,
            reflections: false,
            ui_cover: true,
            sky: SkyMode::Cubemap,
            point_lights: false,
            terrain_lighting: TerrainLighting::Vertex,
            time_of_day: TimeOfDay::Day,
        }
    }
}

/// Where the terrain's surface is lit (`--terrain-lighting`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum TerrainLighting {
    /// The colour bands, the sky's and the sun's light at each vertex, interpolated (as the
    /// fog always is); the sun's shadows per pixel on the pieces a brush's shadow can fall on,
    /// per vertex elsewhere (per-pixel shading everywhere costs: docs/performance.md).
    #[default]
    Vertex,
    /// All of it at every pixel.
    Pixel,
}

/// The time of day the terrain is lit for (`--time-of-day`). The world's lightmaps are baked:
/// only daylight baked under its own style (`_sun_style`) dims with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum TimeOfDay {
    /// Full daylight.
    #[default]
    Day,
    /// The sun, the sky light and the sky at 4 % (moonlight): lamps are the main light.
    Night,
}

impl TimeOfDay {
    /// What the terrain's sun, sky light and sky are scaled by.
    pub fn daylight(self) -> f32 {
        match self {
            TimeOfDay::Day => 1.0,
            TimeOfDay::Night => 0.04,
        }
    }
}

/// Where the terrain's sky and its fog's colour come from (`--sky`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum SkyMode {
    /// The level's cubemap skybox, or without one the terrain's gradient from the horizon's
    /// colour to the zenith's.
    #[default]
    Cubemap,
    /// The daylight sky for the sun (`terrain::ScatteringSky`, Preetham et al. 1999).
    Scattering,
}

/// How the world shader tints surfaces for the cells and depth overlays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OverlayTint {
    /// No tint.
    #[default]
    None,
    /// A colour per cell id.
    Cells,
    /// A ramp over the portals the flow crossed to reach the cell.
    Depth,
}

/// Debug overlays of the terrain (the demo panel's checkboxes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TerrainOverlay {
    /// Tint every level with its own colour (blended across the morph band).
    pub level_colors: bool,
    /// Triangle edges on top of the surface (needs POLYGON_MODE_LINE; silently off without it).
    pub wireframe: bool,
    /// Boxes around the drawn tiles (x/y of the tile, z from the min/max pyramid).
    pub tile_bounds: bool,
    /// Boxes (red) around the tiles frustum culling removed.
    pub culled_tiles: bool,
    /// Keep selecting for the camera of the frame this was switched on, so the culled tiles
    /// and the ring layout can be inspected from elsewhere.
    pub freeze_culling: bool,
}

/// Which tests a surface of a visible cell (or object) must pass to be drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfaceTests {
    /// Its box's screen octagon meets its cell's octagon (inside the frustum, too).
    pub octagon: bool,
    /// Its plane faces the eye (only where every pipeline culls back faces: not in levels whose
    /// id pass keeps back faces as occluders).
    pub back_faces: bool,
    /// In the camera's view, once, whichever visible cells list it: clipped to the union of
    /// their octagons (GLQuake marks surfaces once too); off, each visible cell draws its copy
    /// clipped to its own octagon.
    pub once: bool,
    /// Its bounding box is not wholly outside one of the frustum's side planes (quakespasm's
    /// per-surface `R_CullBox`; the octagon test is exact and keeps a subset).
    pub boxes: bool,
}

impl SurfaceTests {
    /// Whole cells: the truth of vis-check, and the baseline the tests are measured against.
    pub const NONE: SurfaceTests = SurfaceTests {
        octagon: false,
        back_faces: false,
        once: false,
        boxes: false,
    };
    /// Every test.
    pub const ALL: SurfaceTests = SurfaceTests {
        octagon: true,
        back_faces: true,
        once: true,
        boxes: false,
    };
    /// GLQuake's as quakespasm has it (`R_MarkSurfaces`): surfaces of the marked leaves, each
    /// once, facing the eye, with a box in the frustum.
    pub const GLQUAKE: SurfaceTests = SurfaceTests {
        octagon: false,
        back_faces: true,
        once: true,
        boxes: true,
    };
}

/// How the octagons clip while counting: the three ways the world pass can be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OctagonClip {
    /// Hardware clip distances (the default): fragments outside the octagon never exist.
    ClipDistances,
    /// A fragment discard: fragments outside the octagon are shaded (if they pass the depth
    /// test) and then thrown away, writing neither depth nor colour.
    Discard,
    /// No octagon clipping: every triangle submitted is drawn whole.
    Off,
}

impl OctagonClip {
    /// Every mode.
    pub const ALL: [OctagonClip; 3] = [
        OctagonClip::ClipDistances,
        OctagonClip::Discard,
        OctagonClip::Off,
    ];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            OctagonClip::ClipDistances => "clip-distances",
            OctagonClip::Discard => "discard",
            OctagonClip::Off => "off",
        }
    }
}
