//! `--terrain HEIGHTMAP` for demo, capture and bench: loading the heightmap into a clipmap.

use crate::geom::CameraSpec;
use crate::terrain::{ClipmapConfig, ClipmapTerrain, Heightmap, HeightmapOptions, HeightmapSpec};

/// What the command line says about the terrain.
#[derive(Clone, Debug)]
pub struct TerrainOptions {
    pub heightmap: HeightmapSpec,
    /// World units between samples (default: 64 for PNG, 32 for procedural).
    pub spacing: Option<f64>,
    /// World units per height unit (default: 0.1 per metre for PNG, 1 for procedural).
    pub vertical_scale: Option<f32>,
    /// Clipmap levels (default 10).
    pub levels: Option<u32>,
    /// Vertices per level side, 2^k − 1 (default 255).
    pub grid: Option<u32>,
}

/// The terrain flags other than the heightmap (`--terrain-spacing`, `-vscale`, `-levels`,
/// `-grid`): they shape `--terrain`'s heightmap or, without it, the level's own terrain.
#[derive(Clone, Copy, Debug, Default)]
pub struct TerrainShape {
    pub spacing: Option<f64>,
    pub vertical_scale: Option<f32>,
    pub levels: Option<u32>,
    pub grid: Option<u32>,
}

impl TerrainShape {
    /// The flags given, as the command line spells them.
    pub fn flags(&self) -> Vec<&'static str> {
        [
            (self.spacing.is_some(), "--terrain-spacing"),
            (self.vertical_scale.is_some(), "--terrain-vscale"),
            (self.levels.is_some(), "--terrain-levels"),
            (self.grid.is_some(), "--terrain-grid"),
        ]
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
        .collect()
    }
}

/// Opens the heightmap and builds the clipmap state (L = 10 levels of 255² vertices unless told
/// otherwise, finest spacing = the sample spacing). Errors name the file or the bad setting.
pub fn load(opts: &TerrainOptions) -> anyhow::Result<ClipmapTerrain> {
    if let Some(s) = opts.spacing {
        if !(s.is_finite() && s > 0.0) {
            anyhow::bail!("--terrain-spacing {s} must be a positive number of world units");
        }
    }
    if let Some(v) = opts.vertical_scale {
        if !(v.is_finite() && v > 0.0) {
            anyhow::bail!("--terrain-vscale {v} must be a positive number");
        }
    }
    let hm = Heightmap::open(
        &opts.heightmap,
        HeightmapOptions {
            horizontal_scale: opts.spacing,
            vertical_scale: opts.vertical_scale,
        },
    )?;
    let mut cfg = ClipmapConfig::for_heightmap(&hm);
    if let Some(l) = opts.levels {
        cfg.levels = l;
    }
    if let Some(g) = opts.grid {
        cfg.grid = g;
    }
    let (w, h) = hm.size();
    log::info!(
        "terrain {}: {w}×{h} samples, {} units apart, {} levels of {}² vertices",
        hm.name,
        hm.horizontal_scale,
        cfg.levels,
        cfg.grid
    );
    Ok(ClipmapTerrain::new(hm, cfg)?)
}

/// The terrain's suggested start: over the middle of the map, looking along +X+Y, slightly down.
pub fn start_camera(terrain: &ClipmapTerrain) -> CameraSpec {
    ClipmapTerrain::suggested_camera(&terrain.heightmap)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sidecar that is a folder: one message naming it, with the OS's text once.
    #[test]
    fn a_sidecar_that_is_a_folder_is_said_once() {
        let dir = std::env::temp_dir().join(format!("lanthorn-sidecar-{}", std::process::id()));
        let png = dir.join("hills.png");
        let sidecar = dir.join("hills.json");
        std::fs::create_dir_all(&sidecar).unwrap();
        image::GrayImage::new(4, 4).save(&png).unwrap();
        let os = std::fs::read_to_string(&sidecar).unwrap_err().to_string();
        let Err(err) = load(&TerrainOptions {
            heightmap: HeightmapSpec::Png(png),
            spacing: None,
            vertical_scale: None,
            levels: None,
            grid: None,
        }) else {
            panic!("a folder is no sidecar")
        };
        assert_eq!(format!("{err:#}"), format!("{}: {os}", sidecar.display()));
    }
}
