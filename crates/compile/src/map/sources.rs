//! Where a map's textures come from: the WAD2 files it names (in the wad folders of the
//! options, beside it, or in `../wads`) and the Quake palette; and the table that
//! turns texture names into the level's materials.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::brush;
use super::map_file::MapFile;
use super::wad::TextureSizes;
use crate::draft::flat_color;
use crate::CompileOptions;
use lanthorn_level::{material_flags, Material};

/// The Quake palette (`palette.lmp`) in the wad folders, beside the map or one folder up;
/// without one, materials carry sizes and flat colours only.
pub(super) fn load_palette(path: &Path, options: &CompileOptions) -> Option<Vec<u8>> {
    palette_dirs(path, options).iter().find_map(|d| {
        std::fs::read(d.join("palette.lmp"))
            .ok()
            .filter(|p| p.len() >= 768)
    })
}

/// The map's folder (`.` for a bare file name, whose parent is empty).
fn map_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn palette_dirs(path: &Path, options: &CompileOptions) -> Vec<PathBuf> {
    let mut dirs = options.wad_dirs.clone();
    let dir = map_dir(path);
    dirs.extend([dir.clone(), dir.join("gfx"), dir.join("..")]);
    dirs
}

/// Beside the map, in `gfx/` beside it (where id's maps' `"wad" "gfx/base.wad"` points, as
/// ericw-tools reads it) and in `../wads`.
fn wad_dirs(path: &Path, options: &CompileOptions) -> Vec<PathBuf> {
    let mut dirs = options.wad_dirs.clone();
    let dir = map_dir(path);
    dirs.extend([dir.clone(), dir.join("gfx"), dir.join("../wads")]);
    dirs
}

/// The `.wad` files in the wad folders of a map at `path`, sorted by name within a folder.
fn wad_files(path: &Path, options: &CompileOptions) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for d in wad_dirs(path, options) {
        if let Ok(rd) = std::fs::read_dir(d) {
            let mut files: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wad")))
                .collect();
            files.sort();
            all.extend(files);
        }
    }
    all
}

/// Every file a compile of the map at `path` may read besides the map: its wads and palettes.
pub(crate) fn read_files(path: &Path, options: &CompileOptions) -> Vec<PathBuf> {
    let palettes = palette_dirs(path, options)
        .into_iter()
        .map(|d| d.join("palette.lmp"))
        .filter(|p| p.is_file());
    wad_files(path, options)
        .into_iter()
        .chain(palettes)
        .collect()
}

pub(super) fn load_textures(path: &Path, map: &MapFile, options: &CompileOptions) -> TextureSizes {
    let wanted: Vec<String> = map
        .entities
        .first()
        .and_then(|e| e.get("wad"))
        .map(|w| {
            w.split(';')
                .filter_map(|p| {
                    Path::new(p.trim())
                        .file_name()
                        .map(|n| n.to_string_lossy().to_ascii_lowercase())
                })
                .collect()
        })
        .unwrap_or_default();
    let mut t = TextureSizes::default();
    let mut all = wad_files(path, options);
    // The wads the map names first, then the rest.
    all.sort_by_key(|p| {
        let n = p
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        !wanted.contains(&n)
    });
    for f in all {
        if let Err(e) = t.add_wad_file(&f) {
            log::warn!("{e}");
        }
    }
    t
}

/// The level's materials by texture name (case-insensitive), made on first use in the order
/// the surfaces ask for them.
pub(super) struct Materials<'a> {
    textures: &'a TextureSizes,
    palette: Option<Vec<u8>>,
    ids: HashMap<String, u32>,
    pub(super) list: Vec<Material>,
}

impl<'a> Materials<'a> {
    pub(super) fn new(textures: &'a TextureSizes, palette: Option<Vec<u8>>) -> Self {
        Materials {
            textures,
            palette,
            ids: HashMap::new(),
            list: Vec::new(),
        }
    }

    pub(super) fn texture_size(&self, name: &str) -> (u32, u32) {
        self.textures.get(name).unwrap_or((64, 64))
    }

    pub(super) fn id(&mut self, name: &str) -> u32 {
        let key = name.to_ascii_lowercase();
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = self.list.len() as u32;
        let material = self.material(name);
        self.list.push(material);
        self.ids.insert(key, id);
        id
    }

    fn material(&self, name: &str) -> Material {
        let decoded = self
            .palette
            .as_deref()
            .and_then(|p| self.textures.decode(name, p));
        let color = match &decoded {
            Some((rgba, _)) => average_color(rgba),
            None => flat_color(name),
        };
        let (texels, fullbright) = match decoded {
            Some((t, f)) => (Some(t), Some(f)),
            None => (None, None),
        };
        let mut flags = 0;
        if brush::is_sky_texture(name) {
            flags |= material_flags::SKY;
        }
        if name.starts_with('*') {
            flags |= material_flags::LIQUID;
        }
        let (width, height) = self.texture_size(name);
        Material {
            name: name.to_string(),
            width,
            height,
            texels,
            fullbright,
            color,
            flags,
            ..Default::default()
        }
    }
}

/// The average linear colour of RGBA8 texels: it stands in where texels are not drawn.
fn average_color(rgba: &[u8]) -> [f32; 3] {
    let n = (rgba.len() / 4).max(1) as f32;
    let mut c = [0f32; 3];
    for px in rgba.chunks(4) {
        for k in 0..3 {
            c[k] += (px[k] as f32 / 255.0).powf(2.2);
        }
    }
    c.map(|v| v / n)
}
