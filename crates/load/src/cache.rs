//! Scenes embedded in the program (the keep), compiled once and kept as `.lvl` files in the
//! user's cache folder, so a second start reads the compiled level instead of compiling it.
//!
//! The cache file's name holds a hash of everything the compiled level depends on: the scene
//! text, the files it reads, the `.lvl` format version and the program itself (its size and
//! modification time: a rebuilt compiler may compile differently). A cache file that is
//! missing, stale (another key: another name) or unreadable is compiled again, never an error;
//! it is written through a temporary file and a rename (`level::file::save`), so no reader
//! ever sees half a file, and all but the newest few files of the same scene are removed.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use super::LoadError;
use lanthorn_compile::{CompileOptions, Progress};
use lanthorn_level::Level;

/// A scene compiled into the program (`scenes::embedded`): its name as the command line
/// spells it and its file under `assets/levels/`.
pub(crate) struct EmbeddedScene {
    pub(crate) name: &'static str,
    pub(crate) file: &'static str,
}

/// The keep (`assets/levels/keep.ron`), the demo's default level.
pub(crate) const KEEP: EmbeddedScene = EmbeddedScene {
    name: "keep",
    file: "keep.ron",
};

/// The folder compiled levels are cached in: `$XDG_CACHE_HOME/lanthorn`, else
/// `~/.cache/lanthorn`, else the system temp folder's `lanthorn-cache`.
pub(crate) fn cache_dir() -> PathBuf {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    std::env::var_os("XDG_CACHE_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".cache"))
        })
        .map(|d| d.join("lanthorn"))
        .unwrap_or_else(|| std::env::temp_dir().join("lanthorn-cache"))
}

/// The cache key of a scene named `name` compiled from `inputs` (its text and every file it
/// may read), the level format and the program.
fn key(name: &str, inputs: &[&[u8]]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    name.hash(&mut h);
    inputs.hash(&mut h);
    lanthorn_level::file::VERSION.hash(&mut h);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    let exe = std::env::current_exe().and_then(std::fs::metadata).ok();
    exe.as_ref().map(|m| m.len()).hash(&mut h);
    exe.and_then(|m| m.modified().ok()).hash(&mut h);
    h.finish()
}

/// The embedded scene's level: read from the cache in `dir`, or compiled and cached there.
/// Its key covers every file built into the program (the scene's text and the textures it
/// names among them). Only a scene that does not compile is an error; a compile tells
/// `progress` how its light bake goes.
pub(crate) fn load_embedded(
    scene: &EmbeddedScene,
    dir: &Path,
    progress: &Progress,
) -> Result<Level, LoadError> {
    let inputs: Vec<&[u8]> = lanthorn_compile::scenes::embedded::FILES
        .iter()
        .flat_map(|(name, bytes)| [name.as_bytes(), *bytes])
        .collect();
    load_cached(scene.name, &inputs, dir, || compile(scene, progress))
}

/// Compiles an embedded scene (no cache), telling `progress` how its light bake goes.
fn compile(scene: &EmbeddedScene, progress: &Progress) -> Result<Level, LoadError> {
    let options = CompileOptions {
        progress: progress.clone(),
        ..Default::default()
    };
    let (level, stats) = lanthorn_compile::scenes::embedded::compile(scene.file, &options)?;
    log::info!(
        "compiled {}: {} cells, {} portals in {:.2} s",
        scene.name,
        stats.cells,
        stats.portals,
        stats.seconds
    );
    Ok(level)
}

/// The level cached in `dir` under the key of `name` and `inputs`, or `compile`d and cached.
fn load_cached(
    name: &str,
    inputs: &[&[u8]],
    dir: &Path,
    compile: impl FnOnce() -> Result<Level, LoadError>,
) -> Result<Level, LoadError> {
    let path = dir.join(format!("{name}-{:016x}.lvl", key(name, inputs)));
    match lanthorn_level::file::load_lvl(&path) {
        Ok(level) => {
            log::info!("{name}: read the compiled level {}", path.display());
            return Ok(level);
        }
        Err(e) if path.exists() => {
            log::warn!("{name}: the cached level is unreadable ({e}); compiling again")
        }
        Err(_) => log::info!("{name}: not compiled yet; compiling"),
    }
    let level = compile()?;
    store(dir, &path, name, &level);
    Ok(level)
}

/// Cache files of one scene kept besides the current one: the test programs and the
/// `lanthorn` program each have their own key, and evicting each other's would make every
/// start a first start.
const KEEP_OLDER: usize = 3;

/// Writes the cache file (atomically) and removes this scene's oldest other cache files. A
/// folder that cannot be written is a warning: the level was compiled and is used all the same.
fn store(dir: &Path, path: &Path, name: &str, level: &Level) {
    if let Err(e) = std::fs::create_dir_all(dir) {
        log::warn!(
            "{name}: cannot create the cache folder {}: {e}",
            dir.display()
        );
        return;
    }
    if let Err(e) = lanthorn_level::file::save(level, path) {
        log::warn!("{name}: could not cache the compiled level: {e}");
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{name}-");
    let mut others: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let file = p.file_name().and_then(|f| f.to_str()).unwrap_or("");
            p != path && file.starts_with(&prefix) && file.ends_with(".lvl")
        })
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    others.sort_by_key(|o| std::cmp::Reverse(o.0));
    for (_, old) in others.iter().skip(KEEP_OLDER) {
        let _ = std::fs::remove_file(old);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanthorn_level::file::to_bytes;

    /// A test scene: its name and text (the cache's only input).
    struct Text {
        name: &'static str,
        text: &'static str,
    }

    const ROOM: Text = Text {
        name: "room",
        text: "Scene(ops: [(brush: Box(min: (0,0,0), max: (128,128,96)), medium: Air)],
            entities: [[(\"classname\", \"light\"), (\"origin\", \"64 64 64\")]])",
    };
    const HALL: Text = Text {
        name: "room",
        text: "Scene(ops: [(brush: Box(min: (0,0,0), max: (256,128,96)), medium: Air)])",
    };

    fn compile(scene: &Text) -> Result<Level, LoadError> {
        let parsed = lanthorn_compile::scene::parse(scene.text).unwrap();
        let (level, _) =
            lanthorn_compile::scene::compile_scene(&parsed, &CompileOptions::default()).unwrap();
        Ok(level)
    }

    fn load_embedded(scene: &Text, dir: &Path) -> Result<Level, LoadError> {
        load_cached(scene.name, &[scene.text.as_bytes()], dir, || compile(scene))
    }

    fn key(scene: &Text) -> u64 {
        super::key(scene.name, &[scene.text.as_bytes()])
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("lanthorn-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// The oracle: the scene compiled directly, as the bytes of its `.lvl` file.
    fn compiled(scene: &Text) -> Vec<u8> {
        to_bytes(&compile(scene).unwrap())
    }

    fn load(scene: &Text, dir: &Path) -> Vec<u8> {
        to_bytes(&load_embedded(scene, dir).unwrap())
    }

    #[test]
    fn the_first_load_compiles_and_caches_the_second_reads_the_cache() {
        let dir = scratch("reads");
        let first = load(&ROOM, &dir);
        assert_eq!(first, compiled(&ROOM));
        let cached = files(&dir);
        assert_eq!(cached.len(), 1, "{cached:?}");
        assert!(cached[0].starts_with("room-") && cached[0].ends_with(".lvl"));
        // Swap another valid level into the cache file: a second load returns it, so it read
        // the file and compiled nothing.
        let other = compile(&HALL).unwrap();
        lanthorn_level::file::save(&other, &dir.join(&cached[0])).unwrap();
        assert_eq!(load(&ROOM, &dir), to_bytes(&other));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_unreadable_cache_is_compiled_again_and_rewritten() {
        let dir = scratch("bad");
        load_embedded(&ROOM, &dir).unwrap();
        let name = files(&dir).remove(0);
        let path = dir.join(&name);
        let good = std::fs::read(&path).unwrap();
        for junk in [&b"junk"[..], &good[..good.len() / 2], &[][..]] {
            std::fs::write(&path, junk).unwrap();
            assert_eq!(load(&ROOM, &dir), compiled(&ROOM));
            assert_eq!(
                std::fs::read(&path).unwrap(),
                good,
                "the cache was not rewritten"
            );
            // No temporary file is left beside it.
            assert_eq!(files(&dir), vec![name.clone()]);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_changed_scene_gets_a_new_key_and_only_the_newest_files_stay() {
        let dir = scratch("stale");
        load_embedded(&ROOM, &dir).unwrap();
        let first = files(&dir);
        assert_eq!(load(&HALL, &dir), compiled(&HALL));
        assert_ne!(key(&ROOM), key(&HALL));
        assert_eq!(files(&dir).len(), 2, "the other key's file is kept");
        // Old files of the scene (another program's keys) beyond KEEP_OLDER are removed, the
        // oldest first; files of other scenes and other names stay.
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        let mut stale = Vec::new();
        for i in 0..5 {
            let p = dir.join(format!("room-{i:016x}.lvl"));
            std::fs::write(&p, b"stale").unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(old - std::time::Duration::from_secs(i * 60))
                .unwrap();
            stale.push(p);
        }
        std::fs::write(dir.join("keep-0000000000000000.lvl"), b"another scene").unwrap();
        std::fs::remove_file(dir.join(&first[0])).unwrap();
        load_embedded(&ROOM, &dir).unwrap();
        let left = files(&dir);
        assert_eq!(left.len(), 1 + KEEP_OLDER + 1, "{left:?}");
        assert!(left.contains(&first[0]));
        assert!(left.contains(&"keep-0000000000000000.lvl".to_string()));
        // The HALL file is the newest other, then the two newest stale ones; the rest went.
        assert!(stale[..2].iter().all(|p| p.exists()), "{left:?}");
        assert!(stale[2..].iter().all(|p| !p.exists()), "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_folder_that_cannot_be_written_still_gives_the_level() {
        // A file where the folder should be: nothing can be cached, the level still loads.
        let dir = scratch("blocked");
        std::fs::write(&dir, b"a file, not a folder").unwrap();
        assert_eq!(load(&ROOM, &dir), compiled(&ROOM));
        let _ = std::fs::remove_file(&dir);
    }
}
