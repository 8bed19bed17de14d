//! Seeded Quake-style levels for tests and benchmarks that are hard on culling: rooms on
//! several storeys joined by corridors with bends, stairs and lifts through holes in the
//! floors, doorways of many sizes (some arched, some with doors or secret doors), windows
//! through walls that split rooms, angled corners, columns, pits with rising stairs or
//! water, slime and lava, trains, sky yards, and lights for the light tools.
//!
//! `generate` writes a `.map` (id's format, integer points) that Lanthorn's compiler and
//! ericw-tools' `qbsp` both read. It is sealed by construction (`carve`): the level is a set of
//! open boxes, and the world's solid is every box's shell less every box. Textures come from
//! `base.wad`, the sky (`sky1`) and lava (`*lava1`) from `start.wad`, which `base.wad` lacks;
//! the worldspawn names both as `gfx/base.wad;gfx/start.wad`, as id's maps name theirs.

mod build;
mod carve;
mod links;
mod map_text;
mod plan;
mod rooms;
#[cfg(test)]
mod tests;

/// What to generate.
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// About how many rooms (a room split by a wall counts twice); 2 to 64.
    pub rooms: u32,
    /// Storeys at most, 1 to 4.
    pub storeys: u32,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            rooms: 16,
            storeys: 3,
        }
    }
}

/// The wads a generated map names (in `gfx/`, relative to the map).
pub const WADS: [&str; 2] = ["base.wad", "start.wad"];

/// The features `generate` tries to put in every level; a level lacking one is generated
/// again from the next attempt's stream (at most 64 attempts).
pub const FEATURES: [&str; 17] = [
    "stairs",
    "lift",
    "bend",
    "narrow doorway",
    "window",
    "arch",
    "angled wall",
    "detail",
    "func_wall",
    "secret door",
    "rising stairs",
    "water",
    "slime",
    "lava",
    "sky",
    "yard",
    "train",
];

/// The text of a `.map` level for `seed`: the same seed and options give the same text.
pub fn generate(seed: u64, options: &GenOptions) -> String {
    generate_counted(seed, options).0
}

/// The level and how many attempts it took (65: none had every feature; the first is kept).
fn generate_counted(seed: u64, options: &GenOptions) -> (String, u64) {
    let mut first = None;
    for attempt in 0..64 {
        let (text, made) = build::level(seed, attempt, options);
        let complete = FEATURES.iter().all(|f| made.contains_key(f))
            && made.get("storeys").is_some_and(|&n| n >= 2);
        if complete {
            return (text, attempt + 1);
        }
        first.get_or_insert(text);
    }
    (first.expect("64 attempts"), 65)
}

/// Writes the level for `seed` to `DIR/generated-SEED.map`, with the wads it names in
/// `DIR/gfx/` (for ericw-tools) and beside it, and Quake's palette beside it (for Lanthorn's
/// compiler), linked or copied from the real data; returns the map's path. For tests: it
/// panics on a file error.
#[cfg(any(test, feature = "test-hooks"))]
pub fn write_level(dir: &std::path::Path, seed: u64, options: &GenOptions) -> std::path::PathBuf {
    let quake = lanthorn_testdata::realdata_dir().join("quake");
    let gfx = dir.join("gfx");
    std::fs::create_dir_all(&gfx).unwrap_or_else(|e| panic!("{}: {e}", gfx.display()));
    let mut links: Vec<(std::path::PathBuf, std::path::PathBuf)> = Vec::new();
    for w in WADS {
        links.push((quake.join("wads").join(w), gfx.join(w)));
        links.push((quake.join("wads").join(w), dir.join(w)));
    }
    links.push((quake.join("palette.lmp"), dir.join("palette.lmp")));
    for (from, to) in links {
        if !to.exists() {
            std::fs::copy(&from, &to)
                .unwrap_or_else(|e| panic!("{} to {}: {e}", from.display(), to.display()));
        }
    }
    let path = dir.join(format!("generated-{seed}.map"));
    std::fs::write(&path, generate(seed, options))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}
