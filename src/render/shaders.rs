//! WGSL sources as the program builds them: every variant goes through [`build`], so the naga
//! test validates exactly what the GPU gets.
//!
//! Every file of `shaders/` is compiled in ([`SOURCES`]); nothing is read at run time. A line
//! `//!include NAME` is replaced by the file `shaders/NAME`, itself expanded: shared code lives
//! in `shaders/*.inc.wgsl`. A marker `//!NAME` elsewhere is where a variant puts its own text
//! ([`substitute`]). A missing include, a missing marker or one left unreplaced is an error.

/// Every file of `shaders/`, by name.
pub(crate) const SOURCES: &[(&str, &str)] = &[
    ("blit.wgsl", include_str!("../../shaders/blit.wgsl")),
    (
        "cache_mip.wgsl",
        include_str!("../../shaders/cache_mip.wgsl"),
    ),
    ("overlay.wgsl", include_str!("../../shaders/overlay.wgsl")),
    (
        "octagon.inc.wgsl",
        include_str!("../../shaders/octagon.inc.wgsl"),
    ),
    ("srgb.inc.wgsl", include_str!("../../shaders/srgb.inc.wgsl")),
    ("terrain.wgsl", include_str!("../../shaders/terrain.wgsl")),
    #[cfg(feature = "test-hooks")]
    (
        "terrain_hooks.wgsl",
        include_str!("../../shaders/terrain_hooks.wgsl"),
    ),
    (
        "terrain_vertex.inc.wgsl",
        crate::terrain::vertex::VERTEX_WGSL,
    ),
    ("world.wgsl", include_str!("../../shaders/world.wgsl")),
];

/// Includes nested deeper than this are taken for a cycle.
const MAX_INCLUDE_DEPTH: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ShaderError {
    #[error("{shader}: no file shaders/{name}")]
    MissingFile { shader: String, name: String },
    #[error("{shader}: includes nest deeper than {MAX_INCLUDE_DEPTH} (a cycle?)")]
    IncludeCycle { shader: String },
    #[error("{shader}: no marker //!{marker} to replace")]
    MissingMarker { shader: String, marker: String },
    #[error("{shader}: marker //!{marker} left unreplaced")]
    UnreplacedMarker { shader: String, marker: String },
}

/// The text of `shaders/{name}`.
pub(crate) fn source(name: &str) -> Option<&'static str> {
    SOURCES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// `shaders/{name}` with its includes expanded and every marker replaced ([`substitute`]).
pub(crate) fn build(name: &str, markers: &[(&str, &str)]) -> Result<String, ShaderError> {
    let text = source(name).ok_or_else(|| ShaderError::MissingFile {
        shader: name.into(),
        name: name.into(),
    })?;
    substitute(name, &expand_includes(name, text)?, markers)
}

/// `text` (of the shader `shader`, for messages) with every `//!include NAME` line replaced by
/// that file, expanded in turn.
pub(crate) fn expand_includes(shader: &str, text: &str) -> Result<String, ShaderError> {
    expand(shader, text, 0)
}

fn expand(shader: &str, text: &str, depth: usize) -> Result<String, ShaderError> {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let Some(name) = line.trim().strip_prefix("//!include ") else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        if depth == MAX_INCLUDE_DEPTH {
            return Err(ShaderError::IncludeCycle {
                shader: shader.into(),
            });
        }
        let name = name.trim();
        let included = source(name).ok_or_else(|| ShaderError::MissingFile {
            shader: shader.into(),
            name: name.into(),
        })?;
        out.push_str(&expand(shader, included, depth + 1)?);
    }
    Ok(out)
}

/// Replaces every marker `//!NAME` of `source` by the text `markers` gives NAME. A marker of
/// `markers` that `source` lacks, or one of `source` that `markers` lacks, is an error: a
/// variant cannot silently lose its part.
pub(crate) fn substitute(
    shader: &str,
    source: &str,
    markers: &[(&str, &str)],
) -> Result<String, ShaderError> {
    let mut out = String::with_capacity(source.len());
    let mut used = vec![false; markers.len()];
    let mut rest = source;
    while let Some(at) = rest.find("//!") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..len];
        let i = markers
            .iter()
            .position(|(m, _)| *m == name)
            .ok_or_else(|| ShaderError::UnreplacedMarker {
                shader: shader.into(),
                marker: name.into(),
            })?;
        out.push_str(markers[i].1);
        used[i] = true;
        rest = &after[len..];
    }
    out.push_str(rest);
    match used.iter().position(|u| !u) {
        Some(i) => Err(ShaderError::MissingMarker {
            shader: shader.into(),
            marker: markers[i].0.into(),
        }),
        None => Ok(out),
    }
}

/// The octagon clipping markers: hardware clip distances (written by `write`), or a fragment
/// discard (`discard`) where the adapter has none.
fn clip_markers(
    clip_distances: bool,
    write: &'static str,
    discard: &'static str,
) -> [(&'static str, &'static str); 4] {
    if clip_distances {
        [
            ("CLIP_DISTANCES_ENABLE", "enable clip_distances;"),
            (
                "CLIP_DISTANCES_OUT",
                "@builtin(clip_distances) clip_distances: array<f32, 8>,",
            ),
            ("CLIP_DISTANCES_WRITE", write),
            ("DISCARD_OUTSIDE", ""),
        ]
    } else {
        [
            ("CLIP_DISTANCES_ENABLE", ""),
            ("CLIP_DISTANCES_OUT", ""),
            ("CLIP_DISTANCES_WRITE", ""),
            ("DISCARD_OUTSIDE", discard),
        ]
    }
}

/// The terrain shader: shaders/terrain.wgsl with the clipmap vertex functions (the twin of the
/// CPU reference), clipping the surface to the outdoor octagon by hardware clip distances or by
/// fragment discard.
pub fn terrain(clip_distances: bool) -> String {
    build("terrain.wgsl", &terrain_markers(clip_distances))
        .expect("shaders/terrain.wgsl: an include or marker is missing")
}

/// The terrain shader with the entry points of the test hooks (shaders/terrain_hooks.wgsl).
#[cfg(feature = "test-hooks")]
pub fn terrain_hooks(clip_distances: bool) -> String {
    build("terrain_hooks.wgsl", &terrain_markers(clip_distances))
        .expect("shaders/terrain_hooks.wgsl: an include or marker is missing")
}

fn terrain_markers(clip_distances: bool) -> [(&'static str, &'static str); 4] {
    clip_markers(
        clip_distances,
        "out.clip_distances = octagon_distances(out.clip, view.oct_min, view.oct_max);",
        "if outside_octagon(in.ndc.xy / in.ndc.w, view.oct_min, view.oct_max) { discard; }",
    )
}

/// The world shader with octagon clipping by hardware clip distances or by fragment discard.
pub fn world(clip_distances: bool) -> String {
    let markers = clip_markers(
        clip_distances,
        "out.clip_distances = octagon_distances(clip, record.oct_min, record.oct_max);",
        "if outside_record(in.clip_pos, in.slot) { discard; }",
    );
    build("world.wgsl", &markers).expect("shaders/world.wgsl: an include or marker is missing")
}

/// The culling overlays' shader (lines, overdraw heatmap).
pub fn overlay() -> String {
    build("overlay.wgsl", &[])
        .expect("shaders/overlay.wgsl: an include is missing or a marker left")
}

/// The present pass's shader.
pub fn blit() -> String {
    build("blit.wgsl", &[]).expect("shaders/blit.wgsl: an include is missing or a marker left")
}

/// The surface cache's mip shader.
pub fn cache_mip() -> String {
    build("cache_mip.wgsl", &[])
        .expect("shaders/cache_mip.wgsl: an include is missing or a marker left")
}

/// Every shader variant the program can build, for validation; a name starts with the file the
/// variant is built from.
pub fn all_variants() -> Vec<(String, String)> {
    vec![
        ("world.wgsl (clip distances)".into(), world(true)),
        ("world.wgsl (discard)".into(), world(false)),
        ("blit.wgsl".into(), blit()),
        ("cache_mip.wgsl".into(), cache_mip()),
        ("overlay.wgsl".into(), overlay()),
        ("terrain.wgsl (clip distances)".into(), terrain(true)),
        ("terrain.wgsl (discard)".into(), terrain(false)),
        #[cfg(feature = "test-hooks")]
        (
            "terrain_hooks.wgsl (clip distances)".into(),
            terrain_hooks(true),
        ),
        #[cfg(feature = "test-hooks")]
        ("terrain_hooks.wgsl (discard)".into(), terrain_hooks(false)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_expand_in_place_and_nest() {
        let s = expand_includes("t", "a\n//!include octagon.inc.wgsl\nb\n").unwrap();
        assert!(s.starts_with("a\n// Screen octagons"));
        assert!(s.contains("fn outside_octagon("));
        assert!(s.ends_with("}\nb\n"));
        // terrain.wgsl includes the vertex functions, which survive a second level.
        let twice = expand_includes("t", "//!include terrain.wgsl").unwrap();
        assert!(twice.contains("fn terrain_vertex("));
        assert!(!twice.contains("//!include"));
    }

    #[test]
    fn a_missing_include_is_an_error() {
        assert_eq!(
            expand_includes("world.wgsl", "x\n  //!include nope.inc.wgsl\n"),
            Err(ShaderError::MissingFile {
                shader: "world.wgsl".into(),
                name: "nope.inc.wgsl".into()
            })
        );
    }

    #[test]
    fn markers_are_replaced_as_whole_names() {
        let s = substitute("t", "a //!B c //!BC\n//!B", &[("B", "1"), ("BC", "2")]);
        assert_eq!(s.as_deref(), Ok("a 1 c 2\n1"));
    }

    #[test]
    fn a_missing_marker_is_reported() {
        let err = substitute("t", "a //!B", &[("B", "1"), ("DISCARD_OUTSIDE", "")]);
        assert_eq!(
            err,
            Err(ShaderError::MissingMarker {
                shader: "t".into(),
                marker: "DISCARD_OUTSIDE".into()
            })
        );
        // The blit shader clips nothing: it has no clip markers.
        let err = build("blit.wgsl", &clip_markers(false, "", "")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "blit.wgsl: no marker //!CLIP_DISTANCES_ENABLE to replace"
        );
    }

    #[test]
    fn an_unreplaced_marker_is_reported() {
        assert_eq!(
            substitute("t", "a //!B //!C", &[("B", "1")]),
            Err(ShaderError::UnreplacedMarker {
                shader: "t".into(),
                marker: "C".into()
            })
        );
        // The world shader with one clip marker forgotten.
        let err = build("world.wgsl", &clip_markers(false, "", "")[..3]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "world.wgsl: marker //!DISCARD_OUTSIDE left unreplaced"
        );
    }

    #[test]
    fn every_variant_builds() {
        for (name, source) in all_variants() {
            assert!(!source.contains("//!"), "{name}");
        }
    }
}
