//! WGSL sources as the program builds them: every variant goes through these functions, so the
//! naga test validates exactly what the GPU gets.
//!
//! Every file of `shaders/` is compiled in ([`SOURCES`]); nothing is read at run time. A line
//! `//!include NAME` is replaced by the file `shaders/NAME`, itself expanded: shared code lives
//! in `shaders/*.inc.wgsl`. Including a file that is not there is an error.

/// Every file of `shaders/`, by name.
pub(crate) const SOURCES: &[(&str, &str)] = &[
    ("blit.wgsl", include_str!("../../shaders/blit.wgsl")),
    (
        "octagon.inc.wgsl",
        include_str!("../../shaders/octagon.inc.wgsl"),
    ),
    ("srgb.inc.wgsl", include_str!("../../shaders/srgb.inc.wgsl")),
    ("terrain.wgsl", include_str!("../../shaders/terrain.wgsl")),
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
    #[error("{shader}: no file shaders/{name} to include")]
    MissingInclude { shader: String, name: String },
    #[error("{shader}: includes nest deeper than {MAX_INCLUDE_DEPTH} (a cycle?)")]
    IncludeCycle { shader: String },
}

/// The text of `shaders/{name}`.
pub(crate) fn source(name: &str) -> Option<&'static str> {
    SOURCES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
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
        let included = source(name).ok_or_else(|| ShaderError::MissingInclude {
            shader: shader.into(),
            name: name.into(),
        })?;
        out.push_str(&expand(shader, included, depth + 1)?);
    }
    Ok(out)
}

/// `shaders/{name}` with its includes expanded; panics when an include is missing (a build
/// error of the program, which the shader tests catch).
fn expanded(name: &str) -> String {
    let text = source(name).unwrap_or_else(|| panic!("no shader shaders/{name}"));
    expand_includes(name, text).unwrap_or_else(|e| panic!("{e}"))
}

/// The terrain shader: shaders/terrain.wgsl with the clipmap vertex functions (the twin of the
/// CPU reference), clipping the surface to the outdoor octagon by hardware clip distances or by
/// fragment discard.
pub fn terrain(clip_distances: bool) -> String {
    let source = expanded("terrain.wgsl");
    if clip_distances {
        source
            .replace("//!CLIP_DISTANCES_ENABLE", "enable clip_distances;")
            .replace(
                "//!CLIP_DISTANCES_OUT",
                "@builtin(clip_distances) clip_distances: array<f32, 8>,",
            )
            .replace(
                "//!CLIP_DISTANCES_WRITE",
                "out.clip_distances = octagon_distances(out.clip, view.oct_min, view.oct_max);",
            )
            .replace("//!DISCARD_OUTSIDE", "")
    } else {
        source
            .replace("//!CLIP_DISTANCES_ENABLE", "")
            .replace("//!CLIP_DISTANCES_OUT", "")
            .replace("//!CLIP_DISTANCES_WRITE", "")
            .replace(
                "//!DISCARD_OUTSIDE",
                "if outside_octagon(in.ndc.xy / in.ndc.w, view.oct_min, view.oct_max) { discard; }",
            )
    }
}

/// The world shader with octagon clipping by hardware clip distances or by fragment discard.
pub fn world(clip_distances: bool) -> String {
    let mut s = expanded("world.wgsl");
    let subst: [(&str, &str); 4] = if clip_distances {
        [
            ("//!CLIP_DISTANCES_ENABLE", "enable clip_distances;"),
            (
                "//!CLIP_DISTANCES_OUT",
                "@builtin(clip_distances) clip_distances: array<f32, 8>,",
            ),
            (
                "//!CLIP_DISTANCES_WRITE",
                "out.clip_distances = octagon_distances(clip, record.oct_min, record.oct_max);",
            ),
            ("//!DISCARD_OUTSIDE", ""),
        ]
    } else {
        [
            ("//!CLIP_DISTANCES_ENABLE", ""),
            ("//!CLIP_DISTANCES_OUT", ""),
            ("//!CLIP_DISTANCES_WRITE", ""),
            (
                "//!DISCARD_OUTSIDE",
                "if outside_record(in.clip_pos, in.slot) { discard; }",
            ),
        ]
    };
    for (k, v) in subst {
        s = s.replace(k, v);
    }
    s
}

/// The present pass's shader.
pub fn blit() -> String {
    expanded("blit.wgsl")
}

/// Every shader variant the program can build, by name, for validation.
pub fn all_variants() -> Vec<(String, String)> {
    vec![
        ("world (clip distances)".into(), world(true)),
        ("world (discard)".into(), world(false)),
        ("blit".into(), blit()),
        ("terrain (clip distances)".into(), terrain(true)),
        ("terrain (discard)".into(), terrain(false)),
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
            Err(ShaderError::MissingInclude {
                shader: "world.wgsl".into(),
                name: "nope.inc.wgsl".into()
            })
        );
    }
}
