//! Lanthorn scene source (`.ron`): ordered CSG operations. See README.md.

use std::path::Path;

use super::compile::{CompileError, CompileOptions, CompileStats};
use super::Level;

pub fn compile_scene_file(
    path: &Path,
    _options: &CompileOptions,
) -> Result<(Level, CompileStats), CompileError> {
    Err(CompileError::Scene {
        path: path.into(),
        msg: "scene files are not supported yet".into(),
    })
}
