//! The one loader: any level file (or a built-in level) by its path. It sits above the model,
//! the compilers, the Quake importer and the built-in levels, and is the only module that
//! knows them all.

#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub(crate) mod cache;
pub mod search;
#[cfg(test)]
mod solid_segment_tests;

pub use lanthorn_import::q1::palette_from_bytes;

use lanthorn_compile::Progress;
use std::path::{Path, PathBuf};

use lanthorn_compile::CompileError;
use lanthorn_import::q1::Q1Error;
use lanthorn_level::{Level, LvlError};

/// Why a level did not load. The file's own error is kept as its type; every message names
/// the file and says each text once.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file's type is none Lanthorn reads.
    #[error(
        "{path}: unknown level type (expected .lvl, .map, .ron, .bsp, or keep / builtin / builtin:maze / builtin:portals)"
    )]
    UnknownType {
        /// The file given.
        path: PathBuf,
    },
    /// A bare map name with no game to look it up in.
    #[error(
        "{path}: no such level file; a Quake map name is looked up in a game: give --basedir QUAKE_DIR (the folder that holds id1)"
    )]
    BareName {
        /// The name given.
        path: PathBuf,
    },
    /// The file could not be read.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A `.lvl` file's error.
    #[error(transparent)]
    Lvl(#[from] LvlError),
    /// The compiler's error (`.map`, `.ron`, the built-in scenes).
    #[error(transparent)]
    Compile(#[from] CompileError),
    /// The Quake importer's error (`.bsp`).
    #[error(transparent)]
    Quake(#[from] Q1Error),
    /// A Quake 3 map that does not import.
    #[error(transparent)]
    Quake3(#[from] lanthorn_import::q3::Q3Error),
    /// The game's search path could not be read.
    #[error(transparent)]
    Search(#[from] search::SearchError),
    /// A map name the game does not have.
    #[error("{name}: no such level file, and no {file} on the game's search path ({searched})")]
    NotInGame {
        /// The name given.
        name: String,
        /// The file looked for (`maps/NAME.bsp`).
        file: String,
        /// Where it was looked for.
        searched: String,
    },
}

/// `load_with` for Quake's normal game (skill 1, not deathmatch).
pub fn load(path: &Path) -> Result<Level, LoadError> {
    load_with(path, lanthorn_level::spawn::SpawnRules::default())
}

/// Loads a level and applies Quake's spawn rules for `rules`' game (`level::spawn`).
pub fn load_with(
    path: &Path,
    rules: lanthorn_level::spawn::SpawnRules,
) -> Result<Level, LoadError> {
    load_with_palette(path, rules, None, &Progress::silent())
}

/// `load_with`, a `.bsp` decoded with `palette` when one is given (`--palette`) instead of
/// the one found near it; a `.map` or `.ron` compiled telling `progress` how its light bake
/// goes.
pub fn load_with_palette(
    path: &Path,
    rules: lanthorn_level::spawn::SpawnRules,
    palette: Option<&[u8; 768]>,
    progress: &Progress,
) -> Result<Level, LoadError> {
    let mut level = load_file(path, palette, progress)?;
    lanthorn_level::spawn::apply(&mut level, rules);
    Ok(level)
}

/// A Quake level by its name on a game's search path (`e1m1` is `maps/e1m1.bsp`, read from the
/// first pak or folder that holds it), with the palette found the same way, and Quake's spawn
/// rules for `rules`' game. Returns the level and where it came from.
pub fn load_from_game(
    name: &str,
    search: &search::SearchPath,
    rules: lanthorn_level::spawn::SpawnRules,
    palette: Option<&[u8; 768]>,
) -> Result<(Level, String), LoadError> {
    let file = search::map_file(name);
    let found = search.read(&file).ok_or_else(|| LoadError::NotInGame {
        name: name.into(),
        file: file.clone(),
        searched: search.describe(),
    })??;
    if found.bytes.starts_with(b"IBSP") {
        let mut level = load_quake3(&found.bytes, &found.origin, search)?;
        lanthorn_level::spawn::apply(&mut level, rules);
        return Ok((level, found.origin));
    }
    let palette = match (palette, search.read("gfx/palette.lmp")) {
        (Some(p), _) => Some(*p),
        (None, Some(p)) => lanthorn_import::q1::palette_from_bytes(&p?.bytes),
        (None, None) => None,
    };
    if palette.is_none() {
        log::warn!(
            "{}: no gfx/palette.lmp on the game's search path ({}), so every texture is a grey checkerboard; give --palette FILE (Quake's gfx/palette.lmp, 768 bytes)",
            found.origin,
            search.describe()
        );
    }
    // Coloured light: `maps/NAME.lit` on the same search path, as Quake engines look for it.
    let lit = search.read(&lit_file(&file)).and_then(Result::ok);
    let mut level = lanthorn_import::q1::from_bytes_with(
        &found.bytes,
        &found.origin,
        palette.as_ref(),
        lit.as_ref().map(|l| l.bytes.as_slice()),
    )?;
    lanthorn_level::spawn::apply(&mut level, rules);
    Ok((level, found.origin))
}

/// A Quake 3 map (`IBSP`) with its textures and shader scripts from `files`; what it could not
/// draw as its game does is said once.
fn load_quake3(
    bytes: &[u8],
    origin: &str,
    files: &dyn lanthorn_import::q3::GameFiles,
) -> Result<Level, LoadError> {
    use lanthorn_import::q3;
    if bytes.get(4..8) != Some(&46i32.to_le_bytes()[..]) {
        let version = bytes
            .get(4..8)
            .map_or(0, |v| i32::from_le_bytes(v.try_into().unwrap()));
        return Err(Q1Error::Ibsp {
            file: origin.into(),
            version,
        }
        .into());
    }
    let map = q3::read(bytes, origin)?;
    let (level, report) = q3::to_level(&map, origin, files)?;
    if !report.missing.is_empty() {
        log::warn!(
            "{origin}: {} of {} materials have no picture on the game's search path and draw as flat grey (first: {})",
            report.missing.len(),
            report.materials,
            report.missing[0]
        );
    }
    if report.faithful < report.drawn {
        log::info!(
            "{origin}: {} of {} surfaces have shader stages Lanthorn does not draw yet (scrolling, animated, glowing or bent); they show their base texture",
            report.drawn - report.faithful,
            report.drawn
        );
    }
    Ok(level)
}

/// The game's search path around a loose Quake 3 map: `GAME/maps/NAME.bsp` reads its
/// textures from `GAME` and the archives in it; a map anywhere else has none.
fn files_around(path: &Path) -> Box<dyn lanthorn_import::q3::GameFiles> {
    let game = path
        .parent()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.eq_ignore_ascii_case("maps"))
        })
        .and_then(Path::parent);
    let search = game.and_then(|g| {
        let base = g.parent()?;
        search::SearchPath::new(base, Some(g.file_name()?.to_str()?)).ok()
    });
    match search {
        Some(s) => Box::new(s),
        None => Box::new(lanthorn_import::q3::NoFiles),
    }
}

/// The `.lit` file beside a map file on a search path (`maps/e1m1.bsp` → `maps/e1m1.lit`).
fn lit_file(map: &str) -> String {
    let stem = map.strip_suffix(".bsp").unwrap_or(map);
    format!("{stem}.lit")
}

/// Whether `path` names a built-in level (`keep`, `builtin`, …) rather than a file.
pub fn is_builtin(path: &Path) -> bool {
    matches!(
        path.to_str(),
        Some("keep" | "builtin" | "builtin:portals" | "builtin:maze")
    )
}

/// The one entry point that loads any level; dispatches on the file type. `keep` is the
/// embedded keep (compiled once, then read from the cache, see `cache`), `builtin` the
/// built-in test scene.
fn load_file(
    path: &Path,
    palette: Option<&[u8; 768]>,
    progress: &Progress,
) -> Result<Level, LoadError> {
    match path.to_str() {
        Some("builtin") => return Ok(lanthorn_compile::scenes::builtin::load()?),
        Some("builtin:portals") => return Ok(lanthorn_compile::scenes::builtin::load_portals()?),
        Some("keep") => return cache::load_embedded(&cache::KEEP, &cache::cache_dir(), progress),
        Some("builtin:maze") => {
            return Ok(lanthorn_compile::scenes::synthetic::maze(
                &lanthorn_compile::scenes::synthetic::MazeSpec {
                    nx: 16,
                    ny: 16,
                    ..Default::default()
                },
            ))
        }
        _ => {}
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("lvl") => Ok(lanthorn_level::file::load_lvl(path)?),
        Some("map") | Some("ron") => compile_cached(path, progress),
        Some("bsp") if starts_with_ibsp(path) => {
            let bytes = std::fs::read(path).map_err(|error| LoadError::Io {
                path: path.into(),
                error,
            })?;
            load_quake3(
                &bytes,
                &path.display().to_string(),
                files_around(path).as_ref(),
            )
        }
        Some("bsp") => Ok(match palette {
            Some(p) => lanthorn_import::q1::load_with_palette(path, Some(p))?,
            None => lanthorn_import::q1::load(path)?,
        }),
        None if !path.exists() && path.components().count() == 1 => {
            Err(LoadError::BareName { path: path.into() })
        }
        _ => Err(LoadError::UnknownType { path: path.into() }),
    }
}

/// Whether the file starts as a Quake 2 or 3 map does.
fn starts_with_ibsp(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok()
        && &magic == b"IBSP"
}

/// Compiles a `.map` or `.ron` source with the default options, keeping the result in a cache
/// (the system temp folder, keyed by the path, the size and modification time of every file
/// the compile reads, the file version and the program's own timestamp) so a second load of an
/// unchanged source is a plain `.lvl` read.
fn compile_cached(path: &Path, progress: &Progress) -> Result<Level, LoadError> {
    use std::hash::{Hash, Hasher};
    let meta = std::fs::metadata(path).map_err(|error| LoadError::Io {
        path: path.into(),
        error,
    })?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.into())
        .hash(&mut h);
    meta.len().hash(&mut h);
    meta.modified().ok().hash(&mut h);
    // A map's wads and palette and a scene's textures are part of its level: a changed one
    // compiles again.
    for file in lanthorn_compile::source_files(path, &Default::default()) {
        let meta = std::fs::metadata(&file).ok();
        (
            file,
            meta.as_ref().map(|m| m.len()),
            meta.and_then(|m| m.modified().ok()),
        )
            .hash(&mut h);
    }
    lanthorn_level::file::VERSION.hash(&mut h);
    // A rebuilt program may compile differently: its own timestamp is part of the key.
    std::env::current_exe()
        .and_then(std::fs::metadata)
        .and_then(|m| m.modified())
        .ok()
        .hash(&mut h);
    let dir = std::env::temp_dir().join("lanthorn-cache");
    let cached = dir.join(format!("{:016x}.lvl", h.finish()));
    if let Ok(level) = lanthorn_level::file::load_lvl(&cached) {
        return Ok(level);
    }
    let options = lanthorn_compile::CompileOptions {
        progress: progress.clone(),
        ..Default::default()
    };
    let (level, stats) = lanthorn_compile::compile(path, &options)?;
    log::info!(
        "compiled {}: {} cells, {} portals in {:.2} s",
        path.display(),
        stats.cells,
        stats.portals,
        stats.seconds
    );
    if std::fs::create_dir_all(&dir).is_ok() {
        if let Err(e) = lanthorn_level::file::save(&level, &cached) {
            log::warn!("could not cache the compiled level: {e}");
        }
    }
    Ok(level)
}

/// Every message says its text once: what `lanthorn` prints (`{:#}` of the error chain) is
/// exactly the file, the place and the cause's own text.
#[cfg(test)]
mod messages {
    use std::path::{Path, PathBuf};

    use super::load;
    use lanthorn_compile::{compile, compile_to_file, CompileOptions};

    fn printed(e: impl std::error::Error + Send + Sync + 'static) -> String {
        format!("{:#}", anyhow::Error::from(e))
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lanthorn-messages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    /// The operating system's own text for opening `path` (the oracle for I/O errors).
    fn os_error(path: &Path) -> String {
        std::fs::File::open(path).unwrap_err().to_string()
    }

    #[test]
    fn a_map_syntax_error_names_the_file_and_line_once() {
        let map = scratch("syntax.map");
        std::fs::write(
            &map,
            "{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) wall 0 0 0 1 1\n\
             ( 0 0 0 ( 1 0 0 ) ( 0 0 1 ) wall 0 0 0 1 1\n}\n}\n",
        )
        .unwrap();
        let expected = format!(
            "{}:5: expected ')' after a plane point, found '('",
            map.display()
        );
        assert_eq!(printed(load(&map).unwrap_err()), expected);
        assert_eq!(
            printed(compile(&map, &CompileOptions::default()).unwrap_err()),
            expected
        );
    }

    #[test]
    fn a_missing_file_says_the_os_error_once() {
        for name in ["nope.map", "nope.ron", "nope.lvl"] {
            let path = scratch(name);
            let expected = format!("{}: {}", path.display(), os_error(&path));
            assert_eq!(printed(load(&path).unwrap_err()), expected, "{name}");
        }
        let path = scratch("nope.bsp");
        assert_eq!(
            printed(load(&path).unwrap_err()),
            format!(
                "{}: cannot read the file: {}",
                path.display(),
                os_error(&path)
            )
        );
    }

    #[test]
    fn a_bad_lvl_names_the_file_once() {
        let path = scratch("junk.lvl");
        std::fs::write(&path, b"junk\n").unwrap();
        assert_eq!(
            printed(load(&path).unwrap_err()),
            format!(
                "{}: not a Lanthorn level: bad magic (expected \"LNTHLVL\")",
                path.display()
            )
        );
    }

    #[test]
    fn writing_into_a_missing_folder_says_the_os_error_once() {
        let scene = scratch("room.ron");
        std::fs::write(
            &scene,
            "Scene(ops: [(brush: Box(min: (0,0,0), max: (64,64,64)), medium: Air)])",
        )
        .unwrap();
        let out = scratch("missing-folder/x.lvl");
        let expected = format!("{}: {}", out.display(), os_error(&out));
        let err = compile_to_file(&scene, &out, &CompileOptions::default()).unwrap_err();
        assert_eq!(printed(err), expected);
    }

    #[test]
    fn a_scene_error_names_the_file_the_operation_and_the_field() {
        let scene = scratch("far.ron");
        std::fs::write(
            &scene,
            "Scene(ops: [(brush: Box(min: (0,0,0), max: (64,64,64)), medium: Air),\n\
             (brush: Box(min: (0,0,0), max: (1e300,1,1)), medium: Air)])",
        )
        .unwrap();
        assert_eq!(
            printed(load(&scene).unwrap_err()),
            format!(
                "{}: operation 1, brush: the brush reaches beyond ±65536",
                scene.display()
            )
        );
        std::fs::write(
            &scene,
            "Scene(ops: [(brush: Box(min: (0,0,0)), medium: Air)])",
        )
        .unwrap();
        assert_eq!(
            printed(load(&scene).unwrap_err()),
            format!(
                "{}: line 1, column 37: Unexpected missing field named `max` in `Box`",
                scene.display()
            )
        );
    }

    /// Loading a leaky map (what `lanthorn info`, `demo`, `capture` do) writes nothing beside
    /// it: no point file (only `compile` writes one, beside its output).
    #[test]
    fn loading_a_leaky_map_writes_no_file() {
        let dir = scratch("leaky-load").with_extension("d");
        std::fs::create_dir_all(&dir).unwrap();
        let map = dir.join("room.map");
        std::fs::write(&map, lanthorn_compile::room_map(Some(1))).unwrap();
        let err = printed(load(&map).unwrap_err());
        assert!(err.contains("no point file was written"), "{err}");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["room.map"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_leak_is_said_once_by_the_compiler() {
        let map = scratch("leaky.map");
        std::fs::write(&map, lanthorn_compile::room_map(Some(1))).unwrap();
        let out = scratch("leaky.lvl");
        let err = compile_to_file(&map, &out, &CompileOptions::default()).unwrap_err();
        let text = printed(err);
        // The file and the entity's line (room_map's player start opens on line 87).
        assert!(
            text.starts_with(&format!(
                "{}:87: leak: entity 4 info_player_start ",
                map.display()
            )),
            "{text}"
        );
        assert_eq!(text.matches("no level was written").count(), 1, "{text}");
        assert_eq!(text.matches("can reach the void").count(), 1, "{text}");
    }
}

#[cfg(test)]
mod caching {
    use lanthorn_compile::{compile, room_map, CompileOptions};

    /// `load` compiles `.map` and `.ron` sources, and the cached second load is equal.
    #[test]
    fn load_compiles_sources_and_caches() {
        let dir = std::env::temp_dir().join(format!("lanthorn-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let map = dir.join("room.map");
        std::fs::write(&map, room_map(None)).unwrap();
        let a = crate::load(&map).unwrap();
        let b = crate::load(&map).unwrap();
        assert!(!a.cells.is_empty());
        assert_eq!(
            lanthorn_level::file::to_bytes(&a),
            lanthorn_level::file::to_bytes(&b)
        );
        let (direct, _) = compile(&map, &CompileOptions::default()).unwrap();
        assert_eq!(direct.cells.len(), a.cells.len());
        let ron = dir.join("scene.ron");
        std::fs::write(
            &ron,
            "Scene(ops: [(brush: Box(min: (0,0,0), max: (64,64,64)), medium: Air)])",
        )
        .unwrap();
        assert_eq!(crate::load(&ron).unwrap().cells.len(), 1);
        std::fs::write(
            &ron,
            "Scene(ops: [(brush: Box(min: (0,0,0)), medium: Air)])",
        )
        .unwrap();
        assert!(crate::load(&ron).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A scene's PNG is part of its cache key: the second load after the PNG changed (the
    /// scene did not) shows the new texture, whose size is the oracle.
    #[test]
    fn a_changed_texture_is_compiled_again() {
        let dir = std::env::temp_dir().join(format!("lanthorn-load-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ron = dir.join("scene.ron");
        std::fs::write(
            &ron,
            "Scene(materials: [(name: \"t\", source: Png(\"t.png\"))], \
             ops: [(brush: Box(min: (0,0,0), max: (64,64,64)), medium: Air, material: Some(\"t\"))])",
        )
        .unwrap();
        let png = dir.join("t.png");
        for size in [8, 16] {
            image::RgbaImage::new(size, size).save(&png).unwrap();
            let level = crate::load(&ron).unwrap();
            let t = level.materials.iter().find(|m| m.name == "t").unwrap();
            assert_eq!((t.width, t.height), (size, size));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
