//! The argument groups several commands share (culling and frame settings, spawn rules,
//! overlays, GPU features, terrain) and the parsers of their values.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use crate::app;
use crate::geom::CameraSpec;
use crate::render::{Gpu, GpuOptions, OptionalFeature};
use crate::vis::CullMode;

/// Texture magnification.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Filter {
    /// Quake's look.
    #[default]
    Nearest,
    Linear,
}

/// How light styles animate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Styles {
    /// Quake's strings at 10 Hz.
    #[default]
    Animated,
    /// Every style at "m".
    Normal,
}

/// A switch given as `on` or `off`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    #[default]
    On,
    Off,
}

/// The overdraw overlay's octagon clipping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OverdrawOctagons {
    #[default]
    ClipDistances,
    Discard,
    Off,
}

#[derive(Args, Clone, Default)]
pub struct CullArgs {
    /// Culling method: portal (default), pvs (GLQuake's, levels that carry one), pvs-cells, frustum, none.
    #[arg(long, default_value = "portal")]
    pub(crate) cull: CullMode,
    /// Texture magnification: nearest (Quake's look, default) or linear.
    #[arg(long, value_enum, default_value_t)]
    pub(crate) filter: Filter,
    /// Light styles: animated (Quake's strings at 10 Hz, default) or normal (every style "m").
    #[arg(long, value_enum, default_value_t)]
    pub(crate) styles: Styles,
    /// Hold the clock at SECONDS (light styles, sky scroll, liquid warp); capture draws at 0
    /// without it, bench and the demo run the clock.
    #[arg(long, value_name = "SECONDS", value_parser = parse_time)]
    pub(crate) time: Option<f32>,
    /// Surface cache: on (default; the camera draws baked texture × light with one fetch) or
    /// off (every surface shaded from its material and lightmap each frame).
    #[arg(long, value_enum, default_value_t)]
    pub(crate) surface_cache: OnOff,
    /// Depth bands: on (default; the depth is cleared once every 12 frames, each frame's
    /// depths in a band of the depth range above the frames' before it, which spares a
    /// software rasterizer the clears) or off (the depth cleared every frame). The same
    /// pixels either way.
    #[arg(long, value_enum, default_value_t)]
    pub(crate) depth_bands: OnOff,
    /// Bloom: light brighter than a threshold bleeds into its surroundings (off by default).
    #[arg(long)]
    pub(crate) bloom: bool,
    /// HDR: the scene in linear, unclamped light in a float target, tone-mapped (Khronos PBR
    /// Neutral) into the frame; bloom then blooms only light past white (off by default).
    #[arg(long)]
    pub(crate) hdr: bool,
    /// With `--hdr`: the scene's light scaled by 2^STOPS before the tone map (default 0).
    #[arg(long, value_name = "STOPS", default_value_t = 0.0, allow_negative_numbers = true, value_parser = parse_exposure)]
    pub(crate) exposure: f32,
    /// Sun shadows: two cascades of the level's sun shadow the terrain (off by default).
    #[arg(long)]
    pub(crate) shadows: bool,
    /// Water reflections: the level's water mirrors the room above it and the terrain's sea
    /// the land and the sky (Fresnel-blended; the sea moved by waves, with foam on its shores;
    /// off by default).
    #[arg(long)]
    pub(crate) reflections: bool,
    /// The terrain's sky and fog colour: cubemap (the level's skybox, or the terrain's
    /// gradient without one; default) or scattering (the daylight model for the level's sun).
    #[arg(long, value_enum, default_value_t)]
    pub(crate) sky: crate::render::settings::SkyMode,
    /// The lamps (light entities with `_lamp` "1") light the terrain through the point light
    /// map.
    #[arg(long)]
    pub(crate) point_lights: bool,
    /// Day, or night: the terrain's sun, sky light and sky dimmed to moonlight.
    #[arg(long, value_enum, default_value_t)]
    pub(crate) time_of_day: crate::render::settings::TimeOfDay,
    /// Where the terrain is lit: vertex (default; the sun's shadows per pixel where a brush's
    /// shadow can fall, per vertex elsewhere) or pixel (all of it at every pixel).
    #[arg(long, value_enum, default_value_t)]
    pub(crate) terrain_lighting: crate::render::settings::TerrainLighting,
    /// Switchable lights to flip from how the level starts them, by `targetname`
    /// (comma-separated): on where they start off, off where they start on.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub(crate) switch: Vec<String>,
}

impl CullArgs {
    /// The frame settings for `level`: [`CullArgs::settings`] with `--switch`'s lights.
    pub(crate) fn settings_for(
        &self,
        level: &crate::level::Level,
    ) -> anyhow::Result<crate::render::settings::FrameSettings> {
        let mut settings = self.settings();
        settings.switched = crate::level::styles::switch_mask(&level.entities, &self.switch)
            .map_err(|e| anyhow::anyhow!("--switch: {e}"))?;
        Ok(settings)
    }

    pub(crate) fn settings(&self) -> crate::render::settings::FrameSettings {
        use crate::level::styles::StyleMode;
        crate::render::settings::FrameSettings {
            linear_filtering: self.filter == Filter::Linear,
            light_styles: match self.styles {
                Styles::Normal => StyleMode::Normal,
                Styles::Animated => StyleMode::Animated,
            },
            time: self.time.unwrap_or(0.0),
            surface_cache: self.surface_cache == OnOff::On,
            depth_bands: self.depth_bands == OnOff::On,
            bloom: self.bloom,
            hdr: self.hdr,
            exposure: self.exposure,
            shadows: self.shadows,
            reflections: self.reflections,
            sky: self.sky,
            point_lights: self.point_lights,
            time_of_day: self.time_of_day,
            terrain_lighting: self.terrain_lighting,
            ..Default::default()
        }
    }
}

/// The game a Quake level is shown as: where a bare level name is found (`--basedir`,
/// `--game`) and which brush entities spawn (Quake's `spawnflags`).
#[derive(Args, Clone, Default)]
pub struct SpawnArgs {
    /// Quake's install folder (the one holding id1, as quakespasm's -basedir): a LEVEL that is
    /// no file, like `e1m1`, is `maps/e1m1.bsp` read from its paks and folders. Default: the
    /// current folder when it holds id1.
    #[arg(long, value_name = "DIR")]
    pub(crate) basedir: Option<PathBuf>,
    /// A mod folder beside id1 searched before it (as quakespasm's -game).
    #[arg(long, value_name = "MOD")]
    pub(crate) game: Option<String>,
    /// Quake's palette (gfx/palette.lmp, 768 bytes) to decode a map's textures with, in place
    /// of the one found beside the map or on the game's search path.
    #[arg(long, value_name = "FILE")]
    pub(crate) palette: Option<PathBuf>,
    /// Skill 0 (easy), 1 (normal, the default, as quakespasm), 2 (hard) or 3 (nightmare):
    /// brush entities flagged "not in" this skill are left out.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub(crate) skill: u8,
    /// Leave out the brush entities flagged "not in deathmatch".
    #[arg(long)]
    pub(crate) deathmatch: bool,
}

impl SpawnArgs {
    pub(crate) fn rules(&self) -> crate::level::spawn::SpawnRules {
        crate::level::spawn::SpawnRules {
            skill: self.skill,
            deathmatch: self.deathmatch,
        }
    }

    /// The game: its search path (from `--basedir`, or the current folder when it holds id1)
    /// and spawn rules.
    pub(crate) fn game(&self) -> anyhow::Result<app::Game> {
        let basedir = match (&self.basedir, &self.game) {
            (Some(dir), _) => Some(dir.clone()),
            (None, Some(_)) => Some(PathBuf::from(".")),
            (None, None) => Path::new("id1").is_dir().then(|| PathBuf::from(".")),
        };
        let search = basedir
            .map(|dir| crate::load::search::SearchPath::new(&dir, self.game.as_deref()))
            .transpose()?;
        let palette = match &self.palette {
            Some(path) => Some(read_palette_arg(path)?),
            None => None,
        };
        Ok(app::Game {
            rules: self.rules(),
            search,
            palette,
        })
    }
}

/// `--palette FILE`: one error naming the file when it is unreadable or too short.
fn read_palette_arg(path: &Path) -> anyhow::Result<[u8; 768]> {
    let bytes = std::fs::read(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read the palette: {e}", path.display()))?;
    crate::load::palette_from_bytes(&bytes).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: not a Quake palette ({} bytes; gfx/palette.lmp holds 768: 256 RGB colours)",
            path.display(),
            bytes.len()
        )
    })
}

pub(crate) fn parse_time(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(format!("expected seconds ≥ 0, e.g. 2.5, got {s:?}")),
    }
}

/// `--exposure`: stops, finite and within ±16 (2^16 already turns any scene white or black).
pub(crate) fn parse_exposure(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(e) if e.is_finite() && e.abs() <= 16.0 => Ok(e),
        _ => Err(format!(
            "expected stops from -16 to 16, e.g. 1.5, got {s:?}"
        )),
    }
}

#[derive(Args, Clone, Default)]
pub struct OverlayArgs {
    /// Culling debug overlays (comma-separated): portals, octagons, cells, depth,
    /// culled-surfaces, frozen, overdraw, wireframe, leak (on by default in a level compiled
    /// with --allow-leak).
    #[arg(long, value_name = "NAMES")]
    pub(crate) overlay: Option<crate::render::overlay::OverlaySet>,
    /// Freeze culling at this camera (X,Y,Z,YAW,PITCH) while drawing from --camera.
    #[arg(long, allow_hyphen_values = true, value_name = "X,Y,Z,YAW,PITCH")]
    pub(crate) cull_camera: Option<CameraSpec>,
    /// The overdraw overlay's octagon clipping: clip-distances (default), discard or off.
    #[arg(long, value_enum, default_value_t)]
    pub(crate) overdraw_octagons: OverdrawOctagons,
}

impl OverlayArgs {
    pub(crate) fn overlays(&self) -> app::overlays::Overlays {
        use crate::render::world::OctagonClip;
        let mut set = self.overlay.unwrap_or_default();
        set.frozen |= self.cull_camera.is_some();
        app::overlays::Overlays {
            set,
            cull_camera: self.cull_camera,
            overdraw_clip: match self.overdraw_octagons {
                OverdrawOctagons::Discard => OctagonClip::Discard,
                OverdrawOctagons::Off => OctagonClip::Off,
                OverdrawOctagons::ClipDistances => OctagonClip::ClipDistances,
            },
        }
    }
}

#[derive(Args, Clone, Default)]
pub struct GpuArgs {
    /// Switch optional GPU features off on purpose (comma-separated): clip-distances,
    /// indirect-first-instance, timestamp-query, polygon-mode-line, pipeline-statistics. Also
    /// LANTHORN_DISABLE.
    #[arg(long, value_name = "FEATURES", global = true)]
    pub(crate) disable: Option<String>,
}

impl GpuArgs {
    pub(crate) fn options(&self) -> anyhow::Result<GpuOptions> {
        let disable = match &self.disable {
            Some(s) => {
                OptionalFeature::parse_list(s).map_err(|e| anyhow::anyhow!("--disable: {e}"))?
            }
            None => Vec::new(),
        };
        Ok(GpuOptions { disable })
    }
}

#[derive(Args, Clone, Default)]
pub struct TerrainArgs {
    /// Clipmap terrain: a 16-bit grayscale PNG with a JSON sidecar, or procedural:SIZE[:SEED].
    /// Without a LEVEL only the terrain is drawn.
    #[arg(long, value_name = "HEIGHTMAP")]
    pub(crate) terrain: Option<crate::terrain::HeightmapSpec>,
    /// World units between heightmap samples (default: 64 for PNG, 32 for procedural).
    #[arg(long, value_name = "UNITS")]
    pub(crate) terrain_spacing: Option<f64>,
    /// World units per heightmap height unit (PNG: per metre, default 0.1; procedural: 1).
    #[arg(long, value_name = "SCALE")]
    pub(crate) terrain_vscale: Option<f32>,
    /// Clipmap levels (1..=24, default 10).
    #[arg(long, value_name = "L")]
    pub(crate) terrain_levels: Option<u32>,
    /// Clipmap vertices per level side, 2^k − 1 (default from the heightmap's detail: 127, or 255
    /// for a rough one; each halving is 4× fewer triangles).
    #[arg(long, value_name = "N")]
    pub(crate) terrain_grid: Option<u32>,
}

impl TerrainArgs {
    /// The flags that shape a terrain, `--terrain`'s or the level's own.
    pub(crate) fn shape(&self) -> app::terrain::TerrainShape {
        app::terrain::TerrainShape {
            spacing: self.terrain_spacing,
            vertical_scale: self.terrain_vscale,
            levels: self.terrain_levels,
            grid: self.terrain_grid,
        }
    }

    pub(crate) fn options(&self) -> Option<app::terrain::TerrainOptions> {
        Some(app::terrain::TerrainOptions {
            heightmap: self.terrain.clone()?,
            spacing: self.terrain_spacing,
            vertical_scale: self.terrain_vscale,
            levels: self.terrain_levels,
            grid: self.terrain_grid,
        })
    }
}

/// An image file to write: only PNG is written, so any other extension is refused rather
/// than filled with PNG bytes.
pub(crate) fn png_path(s: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(s);
    match p.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("png") => Ok(p),
        _ => Err(format!(
            "{s}: only PNG images are written; name the file FILE.png"
        )),
    }
}

pub(crate) fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WxH, e.g. 1280x720, got {s:?}"))?;
    let w: u32 = w.parse().map_err(|_| format!("bad width in {s:?}"))?;
    let h: u32 = h.parse().map_err(|_| format!("bad height in {s:?}"))?;
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("size {s:?} must be between 1x1 and 16384x16384"));
    }
    Ok((w, h))
}

/// The world a command draws: the level (or the keep) with its terrain and spawn rules, checked
/// against the culling method it is to be drawn with.
pub(crate) fn load_world(
    level: Option<&std::path::Path>,
    camera: Option<CameraSpec>,
    terrain: &TerrainArgs,
    spawn: &SpawnArgs,
    cull: &CullArgs,
) -> anyhow::Result<app::World> {
    let terrain = (terrain.options(), terrain.shape());
    let world = app::load_world(
        level,
        camera,
        (terrain.0.as_ref(), terrain.1),
        &spawn.game()?,
    )?;
    app::check_cull(&world, cull.cull)?;
    Ok(world)
}

/// The headless GPU of a command: a lost device or a GPU error is one message and exit 1.
pub(crate) fn headless(gpu: &GpuArgs) -> anyhow::Result<Gpu> {
    let gpu = Gpu::headless(&gpu.options()?)?;
    gpu.exit_on_device_loss();
    Ok(gpu)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        cull: CullArgs,
    }

    /// `--depth-bands` reaches the frame settings: on unless switched off.
    #[test]
    fn depth_bands_switch_reaches_the_frame_settings() {
        let settings = |args: &[&str]| {
            let all = std::iter::once("lanthorn").chain(args.iter().copied());
            Cli::try_parse_from(all).unwrap().cull.settings()
        };
        assert!(settings(&[]).depth_bands);
        assert!(settings(&["--depth-bands", "on"]).depth_bands);
        assert!(!settings(&["--depth-bands", "off"]).depth_bands);
        assert!(Cli::try_parse_from(["lanthorn", "--depth-bands", "sometimes"]).is_err());
    }
}
