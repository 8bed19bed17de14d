//! WGSL sources as the program builds them: every variant goes through `build`, so the naga
//! test validates exactly what the GPU gets.
//!
//! Every file of `shaders/` (and the terrain crate's vertex include) is compiled in (`SOURCES`); nothing is read at run time. A small
//! preprocessor reads lines that start with `#`:
//! - `#include NAME` is replaced by the file `shaders/NAME`, itself expanded: shared code lives
//!   in `shaders/*.inc.wgsl`;
//! - `#ifdef NAME` / `#ifndef NAME` … `#else` … `#endif` keep or drop lines by the defines a
//!   variant is built with; every name tested is one of `DEFINES`, and every define given
//!   must be tested somewhere in the shader, so neither a typo nor a variant that lost its part
//!   goes unnoticed.

/// Every file of `shaders/`, by name.
pub(crate) const SOURCES: &[(&str, &str)] = &[
    ("blit.wgsl", include_str!("../shaders/blit.wgsl")),
    ("bloom.wgsl", include_str!("../shaders/bloom.wgsl")),
    ("cache_mip.wgsl", include_str!("../shaders/cache_mip.wgsl")),
    ("overlay.wgsl", include_str!("../shaders/overlay.wgsl")),
    (
        "fullscreen.inc.wgsl",
        include_str!("../shaders/fullscreen.inc.wgsl"),
    ),
    (
        "octagon.inc.wgsl",
        include_str!("../shaders/octagon.inc.wgsl"),
    ),
    ("shadow.wgsl", include_str!("../shaders/shadow.wgsl")),
    (
        "sky_model.inc.wgsl",
        include_str!("../shaders/sky_model.inc.wgsl"),
    ),
    ("srgb.inc.wgsl", include_str!("../shaders/srgb.inc.wgsl")),
    (
        "sun_caster.inc.wgsl",
        include_str!("../shaders/sun_caster.inc.wgsl"),
    ),
    (
        "sun_receiver.inc.wgsl",
        include_str!("../shaders/sun_receiver.inc.wgsl"),
    ),
    ("terrain.wgsl", include_str!("../shaders/terrain.wgsl")),
    ("tonemap.wgsl", include_str!("../shaders/tonemap.wgsl")),
    ("ui.wgsl", include_str!("../shaders/ui.wgsl")),
    ("ui_cover.wgsl", include_str!("../shaders/ui_cover.wgsl")),
    #[cfg(feature = "test-hooks")]
    (
        "terrain_hooks.wgsl",
        include_str!("../shaders/terrain_hooks.wgsl"),
    ),
    (
        "terrain_vertex.inc.wgsl",
        lanthorn_terrain::vertex::VERTEX_WGSL,
    ),
    ("world.wgsl", include_str!("../shaders/world.wgsl")),
    (
        "world_cache.inc.wgsl",
        include_str!("../shaders/world_cache.inc.wgsl"),
    ),
    (
        "world_count.inc.wgsl",
        include_str!("../shaders/world_count.inc.wgsl"),
    ),
    (
        "world_fog.inc.wgsl",
        include_str!("../shaders/world_fog.inc.wgsl"),
    ),
    (
        "world_frame.inc.wgsl",
        include_str!("../shaders/world_frame.inc.wgsl"),
    ),
    (
        "world_ids.inc.wgsl",
        include_str!("../shaders/world_ids.inc.wgsl"),
    ),
    (
        "world_light.inc.wgsl",
        include_str!("../shaders/world_light.inc.wgsl"),
    ),
    (
        "world_liquid.inc.wgsl",
        include_str!("../shaders/world_liquid.inc.wgsl"),
    ),
    (
        "world_sky.inc.wgsl",
        include_str!("../shaders/world_sky.inc.wgsl"),
    ),
    (
        "world_tints.inc.wgsl",
        include_str!("../shaders/world_tints.inc.wgsl"),
    ),
    (
        "world_vertex.inc.wgsl",
        include_str!("../shaders/world_vertex.inc.wgsl"),
    ),
];

/// Includes nested deeper than this are taken for a cycle.
const MAX_INCLUDE_DEPTH: usize = 8;

/// The names a shader may test with `#ifdef`: what a variant can switch.
pub(crate) const DEFINES: &[&str] = &[
    // The adapter clips to the octagon with hardware clip distances (else a fragment discard).
    "CLIP_DISTANCES",
    // The terrain (and the world's moving objects) sample the sun's shadow cascades (a variant,
    // not a uniform branch: a software rasterizer pays for a branch every fragment).
    "SUN_SHADOWS",
    // The terrain's sea shows its reflection and foam (a variant for the same reason).
    "WATER_REFLECTIONS",
    // The terrain samples the point light map, and tints its levels for the overlay (variants
    // for the same reason).
    "POINT_LIGHTS",
    "LEVEL_COLORS",
    // The world's surfaces take the terrain's aerial-perspective fog (a level under a terrain;
    // a variant, so other levels' fragments do not interpolate an unused varying).
    "AERIAL_FOG",
    // Moving objects take their lamps per pixel (a level with lamps and a light grid).
    "OBJECT_LAMPS",
    // The world writes linear, unclamped light into the HDR scene (`FrameSettings::hdr`).
    "LINEAR_OUTPUT",
    // Moving objects' lamps read normal and specular maps (a variant: a software rasterizer
    // runs a branch's texture reads and highlight loop for every fragment).
    "MATERIAL_MAPS",
    // No liquid of the level has a lightmap (Quake's never do): the camera's liquids skip the
    // lightmap fetch a branch would still pay for.
    "UNLIT_LIQUIDS",
];

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ShaderError {
    #[error("{file}:{line}: no file shaders/{name}")]
    MissingFile {
        file: String,
        line: usize,
        name: String,
    },
    #[error("{file}:{line}: includes nest deeper than {MAX_INCLUDE_DEPTH} (a cycle?)")]
    IncludeCycle { file: String, line: usize },
    #[error(
        "{file}:{line}: `{text}` is not a directive (#include, #ifdef, #ifndef, #else, #endif)"
    )]
    UnknownDirective {
        file: String,
        line: usize,
        text: String,
    },
    #[error("{file}:{line}: {name} is not a define shaders can test (render::shaders::DEFINES)")]
    UnknownDefine {
        file: String,
        line: usize,
        name: String,
    },
    #[error("{file}:{line}: #else or #endif without #ifdef")]
    UnmatchedEnd { file: String, line: usize },
    #[error("{file}: #ifdef on line {line} is never closed by #endif")]
    Unclosed { file: String, line: usize },
    #[error("{shader}: built with {name}, which it never tests")]
    UnusedDefine { shader: String, name: String },
}

/// The text of `shaders/{name}`.
pub(crate) fn source(name: &str) -> Option<&'static str> {
    SOURCES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// `shaders/{name}` preprocessed with `defines` set (the module docs).
pub(crate) fn build(name: &str, defines: &[&str]) -> Result<String, ShaderError> {
    let text = source(name).ok_or_else(|| ShaderError::MissingFile {
        file: name.into(),
        line: 0,
        name: name.into(),
    })?;
    let mut pre = Preprocessor {
        defines,
        tested: Vec::new(),
        out: String::with_capacity(text.len()),
    };
    pre.file(name, text, 0)?;
    if let Some(unused) = defines.iter().find(|d| !pre.tested.contains(d)) {
        return Err(ShaderError::UnusedDefine {
            shader: name.into(),
            name: (*unused).into(),
        });
    }
    Ok(pre.out)
}

/// One build's state: what is defined, which defines were tested, the text so far.
struct Preprocessor<'d> {
    defines: &'d [&'d str],
    tested: Vec<&'d str>,
    out: String,
}

/// An `#ifdef` being read: where it opened, whether its lines are kept.
struct Branch {
    line: usize,
    keep: bool,
}

impl Preprocessor<'_> {
    /// Appends `text` (the file `file`) preprocessed; a conditional closes in the file it opens.
    fn file(&mut self, file: &str, text: &str, depth: usize) -> Result<(), ShaderError> {
        let mut open: Vec<Branch> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let at = i + 1;
            let keeping = open.iter().all(|b| b.keep);
            let Some(directive) = line.trim().strip_prefix('#') else {
                if keeping {
                    self.out.push_str(line);
                    self.out.push('\n');
                }
                continue;
            };
            let err_at = |e: fn(String, usize) -> ShaderError| e(file.into(), at);
            let mut words = directive.split_whitespace();
            match (words.next(), words.next()) {
                (Some("include"), Some(name)) if keeping => self.include(file, at, name, depth)?,
                (Some("include"), Some(_)) => {}
                (Some(test @ ("ifdef" | "ifndef")), Some(name)) => {
                    let defined = self.test(file, at, name)?;
                    let keep = defined == (test == "ifdef");
                    open.push(Branch { line: at, keep });
                }
                (Some("else"), None) => match open.last_mut() {
                    Some(b) => b.keep = !b.keep,
                    None => {
                        return Err(err_at(|file, line| ShaderError::UnmatchedEnd {
                            file,
                            line,
                        }))
                    }
                },
                (Some("endif"), None) => {
                    if open.pop().is_none() {
                        return Err(err_at(|file, line| ShaderError::UnmatchedEnd {
                            file,
                            line,
                        }));
                    }
                }
                _ => {
                    return Err(ShaderError::UnknownDirective {
                        file: file.into(),
                        line: at,
                        text: line.trim().into(),
                    })
                }
            }
        }
        match open.first() {
            Some(b) => Err(ShaderError::Unclosed {
                file: file.into(),
                line: b.line,
            }),
            None => Ok(()),
        }
    }

    fn include(
        &mut self,
        file: &str,
        line: usize,
        name: &str,
        depth: usize,
    ) -> Result<(), ShaderError> {
        if depth == MAX_INCLUDE_DEPTH {
            return Err(ShaderError::IncludeCycle {
                file: file.into(),
                line,
            });
        }
        let text = source(name).ok_or_else(|| ShaderError::MissingFile {
            file: file.into(),
            line,
            name: name.into(),
        })?;
        self.file(name, text, depth + 1)
    }

    /// Whether `name` is defined; it must be one of [`DEFINES`].
    fn test(&mut self, file: &str, line: usize, name: &str) -> Result<bool, ShaderError> {
        if !DEFINES.contains(&name) {
            return Err(ShaderError::UnknownDefine {
                file: file.into(),
                line,
                name: name.into(),
            });
        }
        let defined = self.defines.iter().find(|d| **d == name);
        if let Some(d) = defined {
            if !self.tested.contains(d) {
                self.tested.push(d);
            }
        }
        Ok(defined.is_some())
    }
}

/// The defines of a variant that clips to the octagon by hardware clip distances or not.
fn clip_defines(clip_distances: bool) -> &'static [&'static str] {
    if clip_distances {
        &["CLIP_DISTANCES"]
    } else {
        &[]
    }
}

/// Which variant of the terrain shader a pipeline is made from: each feature of the surface's
/// shading that a frame may switch off is a variant, not a uniform branch (a software
/// rasterizer pays for a branch whether or not a fragment takes it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TerrainVariant {
    /// Octagon clipping by hardware clip distances (else a fragment discard).
    pub clip_distances: bool,
    /// The sun's shadow cascades.
    pub sun_shadows: bool,
    /// The sea shows its reflection and foam.
    pub water_reflections: bool,
    /// The point light map.
    pub point_lights: bool,
    /// The level-colours overlay.
    pub level_colors: bool,
}

impl TerrainVariant {
    /// The shading's switches as bits (clip distances apart: the adapter fixes them).
    pub fn bits(&self) -> usize {
        self.sun_shadows as usize
            | (self.water_reflections as usize) << 1
            | (self.point_lights as usize) << 2
            | (self.level_colors as usize) << 3
    }
}

/// The terrain shader of `variant`: shaders/terrain.wgsl with the clipmap vertex functions (the
/// twin of the CPU reference).
pub fn terrain(variant: TerrainVariant) -> String {
    let mut defines = clip_defines(variant.clip_distances).to_vec();
    let switches = [
        (variant.sun_shadows, "SUN_SHADOWS"),
        (variant.water_reflections, "WATER_REFLECTIONS"),
        (variant.point_lights, "POINT_LIGHTS"),
        (variant.level_colors, "LEVEL_COLORS"),
    ];
    defines.extend(switches.iter().filter(|(on, _)| *on).map(|(_, name)| *name));
    build("terrain.wgsl", &defines).unwrap_or_else(|e| panic!("{e}"))
}

/// The terrain shader with the entry points of the test hooks (shaders/terrain_hooks.wgsl).
#[cfg(feature = "test-hooks")]
pub fn terrain_hooks(clip_distances: bool) -> String {
    build("terrain_hooks.wgsl", clip_defines(clip_distances)).unwrap_or_else(|e| panic!("{e}"))
}

/// Which variant of the world shader a pipeline is made from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorldVariant {
    /// Octagon clipping by hardware clip distances (else a fragment discard).
    pub clip_distances: bool,
    /// The terrain's aerial-perspective fog on open-air surfaces.
    pub aerial_fog: bool,
    /// Moving objects in the sun's shadow cascades.
    pub sun_shadows: bool,
    /// Moving objects' lamps per pixel.
    pub object_lamps: bool,
    /// Linear, unclamped light into the HDR scene (else gamma into the LDR frame).
    pub linear_output: bool,
    /// Moving objects' lamps read their materials' normal and specular maps (with
    /// `object_lamps`, in a level whose materials have maps).
    pub material_maps: bool,
    /// No liquid or glow of the level has a lightmap.
    pub unlit_liquids: bool,
}

impl WorldVariant {
    /// The plain variant with octagon clipping by clip distances or by discard.
    pub fn clipped(clip_distances: bool) -> WorldVariant {
        WorldVariant {
            clip_distances,
            ..Default::default()
        }
    }
}

/// The world shader of `variant`.
pub fn world(variant: WorldVariant) -> String {
    let mut defines = clip_defines(variant.clip_distances).to_vec();
    let switches = [
        (variant.object_lamps, "OBJECT_LAMPS"),
        (variant.aerial_fog, "AERIAL_FOG"),
        (variant.sun_shadows, "SUN_SHADOWS"),
        (variant.linear_output, "LINEAR_OUTPUT"),
        (variant.material_maps, "MATERIAL_MAPS"),
        (variant.unlit_liquids, "UNLIT_LIQUIDS"),
    ];
    defines.extend(switches.iter().filter(|(on, _)| *on).map(|(_, name)| *name));
    build("world.wgsl", &defines).unwrap_or_else(|e| panic!("{e}"))
}

/// The culling overlays' shader (lines, overdraw heatmap).
pub fn overlay() -> String {
    build("overlay.wgsl", &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The present pass's shader.
pub fn blit() -> String {
    build("blit.wgsl", &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The tone map's shader (HDR).
pub fn tonemap() -> String {
    build("tonemap.wgsl", &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The bloom pass's shader.
pub fn bloom() -> String {
    build("bloom.wgsl", &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The demo panels' shader (`ui_paint`).
pub fn ui() -> String {
    build("ui.wgsl", &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The UI cover's shader.
pub fn ui_cover() -> String {
    build("ui_cover.wgsl", &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The sun shadow cascades' world caster shader.
pub fn shadow() -> String {
    build("shadow.wgsl", &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The surface cache's mip shader.
pub fn cache_mip() -> String {
    build("cache_mip.wgsl", &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// Every shader variant the program can build, for validation; a name starts with the file the
/// variant is built from.
pub fn all_variants() -> Vec<(String, String)> {
    let world_variants = [
        (true, false, false, false, false),
        (false, false, false, false, false),
        (true, true, false, false, false),
        (false, true, false, false, false),
        (true, true, true, false, false),
        (false, false, true, false, false),
        (true, true, true, true, false),
        (false, false, false, true, false),
        (true, true, true, true, true),
        (false, false, false, false, true),
    ]
    .map(
        |(clip_distances, aerial_fog, sun_shadows, object_lamps, linear_output)| WorldVariant {
            clip_distances,
            aerial_fog,
            sun_shadows,
            object_lamps,
            linear_output,
            material_maps: false,
            // Both ways across the list: plain (the id maps') and lit liquids.
            unlit_liquids: clip_distances,
        },
    );
    // With the material maps: over the most variants, and over the fewest.
    let mapped = [world_variants[8], world_variants[7]].map(|v| WorldVariant {
        material_maps: true,
        ..v
    });
    let mut all: Vec<(String, String)> = (world_variants.iter().chain(&mapped))
        .map(|v| (format!("world.wgsl ({v:?})"), world(*v)))
        .collect();
    // Every terrain switch on and off, each with clip distances and without.
    all.extend((0..32usize).map(|bits| {
        let v = TerrainVariant {
            clip_distances: bits & 16 != 0,
            sun_shadows: bits & 1 != 0,
            water_reflections: bits & 2 != 0,
            point_lights: bits & 4 != 0,
            level_colors: bits & 8 != 0,
        };
        (format!("terrain.wgsl ({v:?})"), terrain(v))
    }));
    all.extend([
        ("blit.wgsl".into(), blit()),
        ("bloom.wgsl".into(), bloom()),
        ("tonemap.wgsl".into(), tonemap()),
        ("cache_mip.wgsl".into(), cache_mip()),
        ("overlay.wgsl".into(), overlay()),
        ("ui_cover.wgsl".into(), ui_cover()),
        ("ui.wgsl".into(), ui()),
        ("shadow.wgsl".into(), shadow()),
        #[cfg(feature = "test-hooks")]
        (
            "terrain_hooks.wgsl (clip distances)".into(),
            terrain_hooks(true),
        ),
        #[cfg(feature = "test-hooks")]
        ("terrain_hooks.wgsl (discard)".into(), terrain_hooks(false)),
    ]);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` preprocessed as a file of its own (named "t") with `defines`.
    fn run(text: &str, defines: &[&str]) -> Result<String, ShaderError> {
        let mut pre = Preprocessor {
            defines,
            tested: Vec::new(),
            out: String::new(),
        };
        pre.file("t", text, 0).map(|()| pre.out)
    }

    #[test]
    fn includes_expand_in_place_and_nest() {
        let s = run("a\n#include octagon.inc.wgsl\nb\n", &[]).unwrap();
        assert!(s.starts_with("a\n// Screen octagons"));
        assert!(s.contains("fn outside_octagon("));
        assert!(s.ends_with("}\nb\n"));
        // terrain.wgsl includes the vertex functions, which survive a second level.
        let twice = run("#include terrain.wgsl", &[]).unwrap();
        assert!(twice.contains("fn terrain_vertex("));
        assert!(!twice.lines().any(|l| l.trim_start().starts_with('#')));
    }

    #[test]
    fn a_missing_include_is_an_error_at_its_line() {
        let err = run("x\n  #include nope.inc.wgsl\n", &[]).unwrap_err();
        assert_eq!(err.to_string(), "t:2: no file shaders/nope.inc.wgsl");
    }

    #[test]
    fn ifdef_keeps_one_branch_and_nests() {
        let text = "a\n#ifdef CLIP_DISTANCES\nb\n#ifndef CLIP_DISTANCES\nc\n#else\nd\n#endif\n#else\ne\n#endif\nf\n";
        assert_eq!(run(text, &["CLIP_DISTANCES"]).unwrap(), "a\nb\nd\nf\n");
        assert_eq!(run(text, &[]).unwrap(), "a\ne\nf\n");
        // An include in a dropped branch is not read (nor its errors).
        let text = "#ifdef CLIP_DISTANCES\n#include nope.inc.wgsl\n#endif\n";
        assert_eq!(run(text, &[]).unwrap(), "");
    }

    #[test]
    fn a_misspelt_define_or_an_unbalanced_branch_is_an_error() {
        let err = run("a\n#ifdef CLIP_DISTANCE\n#endif\n", &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t:2: CLIP_DISTANCE is not a define shaders can test (render::shaders::DEFINES)"
        );
        let err = run("#ifdef CLIP_DISTANCES\nx\n", &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t: #ifdef on line 1 is never closed by #endif"
        );
        let err = run("x\n#endif\n", &[]).unwrap_err();
        assert_eq!(err.to_string(), "t:2: #else or #endif without #ifdef");
        let err = run("#if CLIP_DISTANCES\n", &[]).unwrap_err();
        assert!(err
            .to_string()
            .starts_with("t:1: `#if CLIP_DISTANCES` is not a directive"));
    }

    #[test]
    fn a_define_the_shader_never_tests_is_an_error() {
        // The blit shader clips nothing: it has no octagon clipping to switch.
        let err = build("blit.wgsl", &["CLIP_DISTANCES"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "blit.wgsl: built with CLIP_DISTANCES, which it never tests"
        );
    }

    #[test]
    fn every_variant_differs_only_where_it_clips() {
        for (name, source) in all_variants() {
            assert!(
                !source.lines().any(|l| l.trim_start().starts_with('#')),
                "{name}: a directive left"
            );
        }
        // With clip distances nothing discards outside the octagon; without, nothing writes
        // clip distances.
        for (clip, yes, no) in [
            (true, "clip_distances", "outside_record("),
            (false, "outside_record(", "clip_distances"),
        ] {
            let w = world(WorldVariant {
                clip_distances: clip,
                aerial_fog: true,
                sun_shadows: true,
                object_lamps: true,
                linear_output: true,
                material_maps: true,
                unlit_liquids: true,
            });
            let body = &w[w.find("@vertex").unwrap()..];
            assert!(
                body.contains(yes) && !body.contains(no),
                "world, clip distances {clip}"
            );
        }
    }
}
