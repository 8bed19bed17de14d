//! The scenes built into the program (`include_str!` / `include_bytes!` of `assets/`), with
//! the files they name, so the binary runs from any folder: compiled by the scene compiler
//! through the same `SceneFiles` abstraction as `.ron` files on disk.

use crate::scene::{compile_scene_source, EmbeddedFile, SceneFiles};
use crate::{CompileError, CompileOptions, CompileStats};
use lanthorn_level::Level;

/// Every embedded file by its path under `assets/`.
pub static FILES: &[EmbeddedFile] = &[
    (
        "levels/builtin.ron",
        include_str!("../../../../assets/levels/builtin.ron").as_bytes(),
    ),
    (
        "levels/portals.ron",
        include_str!("../../../../assets/levels/portals.ron").as_bytes(),
    ),
    (
        "levels/keep.ron",
        include_str!("../../../../assets/levels/keep.ron").as_bytes(),
    ),
    (
        "textures/stone.png",
        include_bytes!("../../../../assets/textures/stone.png"),
    ),
    (
        "textures/brick.png",
        include_bytes!("../../../../assets/textures/brick.png"),
    ),
    (
        "textures/flagstone.png",
        include_bytes!("../../../../assets/textures/flagstone.png"),
    ),
    (
        "textures/wood.png",
        include_bytes!("../../../../assets/textures/wood.png"),
    ),
    (
        "textures/iron.png",
        include_bytes!("../../../../assets/textures/iron.png"),
    ),
    (
        "textures/plaster.png",
        include_bytes!("../../../../assets/textures/plaster.png"),
    ),
    (
        "textures/roof.png",
        include_bytes!("../../../../assets/textures/roof.png"),
    ),
    (
        "textures/water.png",
        include_bytes!("../../../../assets/textures/water.png"),
    ),
    (
        "textures/lava.png",
        include_bytes!("../../../../assets/textures/lava.png"),
    ),
    (
        "textures/slime.png",
        include_bytes!("../../../../assets/textures/slime.png"),
    ),
    (
        "textures/brass.png",
        include_bytes!("../../../../assets/textures/brass.png"),
    ),
    (
        "textures/flame.png",
        include_bytes!("../../../../assets/textures/flame.png"),
    ),
];

/// The embedded scene `levels/NAME` (`builtin.ron`, `portals.ron`, `keep.ron`), compiled; the files it names are read
/// from the same table, relative to `levels/`.
pub fn compile(
    name: &str,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), CompileError> {
    let files = SceneFiles::Embedded {
        files: FILES,
        dir: "levels",
    };
    let path = files.path(name);
    let bytes = files.read(name).map_err(|error| CompileError::Io {
        path: path.clone(),
        error,
    })?;
    compile_scene_source(&path, &bytes, &files, options)
}

#[cfg(test)]
mod tests {
    /// Every embedded `.ron` compiles, and a name not in the table is the I/O error of a
    /// missing file, naming it.
    #[test]
    fn embedded_scenes_compile() {
        let options = crate::CompileOptions {
            light: false,
            ..Default::default()
        };
        for (name, _) in super::FILES {
            if let Some(scene) = name.strip_prefix("levels/").filter(|n| n.ends_with(".ron")) {
                let (level, _) = super::compile(scene, &options).unwrap_or_else(|e| panic!("{e}"));
                lanthorn_level::file::validate(&level).unwrap();
            }
        }
        let e = super::compile("nope.ron", &options)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "<built-in>/levels/nope.ron: not among the files built into the program"
        );
    }
}
