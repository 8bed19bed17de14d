//! WGSL sources as the program builds them: every variant goes through these functions, so the
//! naga test validates exactly what the GPU gets.

pub const WORLD: &str = include_str!("../../shaders/world.wgsl");
pub const BLIT: &str = include_str!("../../shaders/blit.wgsl");
pub const TERRAIN: &str = include_str!("../../shaders/terrain.wgsl");

/// The terrain shader: the clipmap vertex functions (`terrain::vertex::VERTEX_WGSL`, the twin of
/// the CPU reference) followed by shaders/terrain.wgsl.
pub fn terrain() -> String {
    format!("{}\n{}", crate::terrain::vertex::VERTEX_WGSL, TERRAIN)
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
        ("terrain".into(), terrain()),
    ]
}
