//! WGSL sources as the program builds them: every variant goes through these functions, so the
//! naga test validates exactly what the GPU gets.

pub const WORLD: &str = include_str!("../../shaders/world.wgsl");
pub const BLIT: &str = include_str!("../../shaders/blit.wgsl");
pub const TERRAIN: &str = include_str!("../../shaders/terrain.wgsl");

/// The terrain shader: the clipmap vertex functions (`terrain::vertex::VERTEX_WGSL`, the twin of
/// the CPU reference) followed by shaders/terrain.wgsl, clipping the surface to the outdoor
/// octagon by hardware clip distances or by fragment discard.
pub fn terrain(clip_distances: bool) -> String {
    let body = if clip_distances {
        TERRAIN
            .replace(
                "//!CLIP_DISTANCES_OUT",
                "@builtin(clip_distances) clip_distances: array<f32, 8>,",
            )
            .replace(
                "//!CLIP_DISTANCES_WRITE",
                "out.clip_distances = octagon_distances(out.clip);",
            )
            .replace("//!DISCARD_OUTSIDE", "")
    } else {
        TERRAIN
            .replace("//!CLIP_DISTANCES_OUT", "")
            .replace("//!CLIP_DISTANCES_WRITE", "")
            .replace(
                "//!DISCARD_OUTSIDE",
                "if outside_octagon(in.ndc.xy / in.ndc.w) { discard; }",
            )
    };
    // `enable` must open the module, before the vertex functions.
    let enable = if clip_distances {
        "enable clip_distances;\n"
    } else {
        ""
    };
    format!("{enable}{}\n{body}", crate::terrain::vertex::VERTEX_WGSL)
}

/// The world shader with octagon clipping by hardware clip distances or by fragment discard.
pub fn world(clip_distances: bool) -> String {
    let mut s = WORLD.to_string();
    let subst: [(&str, &str); 4] = if clip_distances {
        [
            ("//!CLIP_DISTANCES_ENABLE", "enable clip_distances;"),
            (
                "//!CLIP_DISTANCES_OUT",
                "@builtin(clip_distances) clip_distances: array<f32, 8>,",
            ),
            (
                "//!CLIP_DISTANCES_WRITE",
                "out.clip_distances = octagon_distances(clip, records[slot]);",
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
                "if outside_octagon(in.clip_pos, in.slot) { discard; }",
            ),
        ]
    };
    for (k, v) in subst {
        s = s.replace(k, v);
    }
    s
}

/// Every shader variant the program can build, by name, for validation.
pub fn all_variants() -> Vec<(String, String)> {
    vec![
        ("world (clip distances)".into(), world(true)),
        ("world (discard)".into(), world(false)),
        ("blit".into(), BLIT.to_string()),
        ("terrain (clip distances)".into(), terrain(true)),
        ("terrain (discard)".into(), terrain(false)),
    ]
}
