//! `lanthorn vis-check`: the culling methods against the truth. Per random view the truth is
//! every surface's id rendered with no culling at all; each method's submitted surfaces must
//! contain every visible one, and the id image rendered with its culling and octagons must equal
//! the unculled one pixel for pixel (a differing pixel means an octagon was too tight).

use glam::Vec3;

mod check;
mod holes;

use self::check::{Check, Counters, View};
use super::bench::quantile;
use super::views::{self, Rng, ViewSampler};
use crate::geom::{Camera, CameraSpec};
use crate::level::Level;
use crate::render::overdraw::{FragmentCounter, OverdrawCounter};
use crate::render::settings::FrameSettings;
use crate::render::target::FrameTarget;
use crate::render::world::IdFrame;
use crate::render::world::OctagonClip;
use crate::render::world::WorldPass;
use crate::render::Gpu;
use crate::vis::{CullMode, Culler, VisibleSet};

#[derive(Clone, Debug)]
pub struct VisCheckOptions {
    pub views: u32,
    pub seed: u64,
    pub size: (u32, u32),
    /// Eyes keep at least this distance from every cell boundary.
    pub clearance: f32,
    /// Fixed views to check (a views file) instead of `views` random ones from `seed`.
    pub views_list: Option<Vec<CameraSpec>>,
    /// Where to write the evidence of the worst views (`--dump`).
    pub dump: Option<std::path::PathBuf>,
    /// Id images clip octagons with hardware clip distances (a software rasterizer cracks at octagon
    /// edges) instead of the exact fragment test.
    pub clip_distances: bool,
    /// Count fragments for `overdraw` (one more render a method and view; three for portal).
    pub overdraw: bool,
    /// The level's clock: where moving objects are, which doors are shut.
    pub time: f32,
}

impl Default for VisCheckOptions {
    fn default() -> Self {
        VisCheckOptions {
            views: 200,
            seed: 1,
            size: (640, 360),
            clearance: 8.0,
            views_list: None,
            dump: None,
            clip_distances: false,
            overdraw: true,
            time: 0.0,
        }
    }
}

/// One method's totals over all views.
#[derive(Clone, Debug, Default)]
pub struct MethodTotals {
    pub method: &'static str,
    /// Truly visible surfaces the method did not submit.
    pub missed_surfaces: u64,
    /// Pixels whose id differs from the unculled frame.
    pub differing_pixels: u64,
    /// Per view: triangles submitted / triangles of truly visible surfaces.
    pub ratios: Vec<f64>,
    pub micros: Vec<f64>,
    pub cells: Vec<f64>,
    /// Of `missed_surfaces` and `differing_pixels`, those at eyes where the near plane cuts a
    /// wall (the eye sees through solid there: only the portal method's cut-wall step draws
    /// what lies behind, GLQuake's PVS does not).
    pub at_cut_walls: (u64, u64),
    /// Missed surfaces and differing pixels the truth shows only through holes in the level
    /// (`holes`: along a line through solid, or through a crack no wider than a pixel where
    /// walls touch), counted apart from the two above.
    pub through_holes: (u64, u64),
    /// Missed surfaces the truth shows only as grazes of their edges (`holes::Sight::Graze`:
    /// no pixel's ray meets the surface itself), counted apart from `missed_surfaces`; their
    /// pixels stay in `differing_pixels`.
    pub grazes: u64,
    /// Differing pixels where the surface drawn and the truth's lie at the same depth along
    /// the pixel's ray (a CPU ray cast: coplanar surfaces that overlap, which the rasterizer
    /// splits between them by rounding), or both cover it only by rounding their outlines
    /// (`holes::Holes::edge_tie`), counted apart from `differing_pixels`.
    pub depth_ties: u64,
    /// Missed surfaces whose every pixel in the truth the method's image shows as such a tie
    /// (leaving them out changes no pixel), counted apart from `missed_surfaces`.
    pub tied_misses: u64,
    /// `pvs` and `pvs-cells` at eyes in a sky leaf, where GLQuake marks every leaf and
    /// quakespasm draws nothing: (views, missed surfaces, differing pixels), counted apart.
    pub at_sky_eyes: (u64, u64, u64),
    /// Views with a miss, for reproducing: the camera and what was missed.
    pub worst: Vec<(CameraSpec, u64, u64)>,
    /// Per octagon mode (`OctagonClip::ALL` order), per view: fragments that pass the depth
    /// test ÷ pixels the truth covers. Portal is counted in every mode, the others with clip
    /// distances only.
    pub overdraw: [Vec<f64>; 3],
    /// Per view, portal with clip distances: fragment-shader invocations by the pipeline
    /// statistics ÷ covered pixels (on a software rasterizer every rasterized fragment).
    pub rasterized: Vec<f64>,
}

impl MethodTotals {
    /// One view's figures: (missed surfaces, differing pixels), (submitted, visible)
    /// triangles, whether the near plane cut a wall there, the culler that ran, visible cells.
    fn add_view(
        &mut self,
        (missed, differing): (u64, u64),
        (submitted, visible): (u64, u64),
        (cut_wall, sky_eye): (bool, bool),
        culler: &Culler,
        cells: usize,
    ) {
        if sky_eye && matches!(culler.mode, CullMode::Pvs | CullMode::PvsCells) {
            self.at_sky_eyes.0 += 1;
            self.at_sky_eyes.1 += missed;
            self.at_sky_eyes.2 += differing;
            return;
        }
        self.missed_surfaces += missed;
        self.differing_pixels += differing;
        if cut_wall {
            self.at_cut_walls.0 += missed;
            self.at_cut_walls.1 += differing;
        }
        if visible > 0 {
            self.ratios.push(submitted as f64 / visible as f64);
        }
        // The flow alone for the portal method (the eye tracker relocates on every jump
        // between random views, which a moving camera does not do).
        self.micros.push(if culler.mode == CullMode::Portal {
            culler.flow.stats.micros
        } else {
            culler.micros
        });
        self.cells.push(cells as f64);
    }

    pub fn false_negatives(&self) -> u64 {
        self.missed_surfaces + self.differing_pixels
    }
    pub fn mean_ratio(&self) -> f64 {
        mean(&self.ratios)
    }
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

#[derive(Clone, Debug, Default)]
pub struct VisCheckReport {
    pub views: u32,
    pub methods: Vec<MethodTotals>,
    /// Mean truly visible triangles per view.
    pub visible_triangles: f64,
}

/// A random eye inside an open cell, `clearance` units from every boundary plane.
fn random_eye(level: &Level, rng: &mut Rng, clearance: f32) -> Option<Vec3> {
    for _ in 0..10_000 {
        let c = (rng.unit_f32() * level.cells.len() as f32) as usize % level.cells.len().max(1);
        let cell = level.cells.get(c)?;
        let s = cell.aabb.size();
        if s.min_element() < 2.0 * clearance {
            continue;
        }
        let p = cell.aabb.min + Vec3::new(rng.unit_f32(), rng.unit_f32(), rng.unit_f32()) * s;
        if cell.planes.iter().all(|pl| pl.distance(p) >= clearance)
            && level.locate(p) == Some(c as u32)
        {
            return Some(p);
        }
    }
    None
}

/// The random views of a check: eyes inside open cells, `clearance` from their walls, random
/// yaw, pitch within ±30°; the same for the same seed.
pub fn random_views(level: &Level, opts: &VisCheckOptions) -> anyhow::Result<Vec<CameraSpec>> {
    let mut rng = Rng::seeded(opts.seed);
    (0..opts.views)
        .map(|_| {
            let Some(eye) = random_eye(level, &mut rng, opts.clearance) else {
                anyhow::bail!(
                    "no open cell leaves {} units of room for an eye",
                    opts.clearance
                );
            };
            Ok(CameraSpec {
                position: eye,
                yaw: rng.unit_f32() * 360.0,
                pitch: (rng.unit_f32() - 0.5) * 60.0,
            })
        })
        .collect()
}

/// The views of `sampler` (`--views`), `opts.views` of them from `opts.seed`; near-portal and
/// walk eyes in solid are skipped with one note.
pub fn sample_views(
    level: &Level,
    sampler: ViewSampler,
    opts: &VisCheckOptions,
) -> anyhow::Result<Vec<CameraSpec>> {
    let count = opts.views as usize;
    let start = || super::start_camera(level, None);
    let sampled = match sampler {
        ViewSampler::Random => return random_views(level, opts),
        ViewSampler::NearPortals => views::near_portal_views(level, count, opts.seed),
        ViewSampler::Walk => views::walk_views(level, start(), count, opts.seed),
        ViewSampler::Portals => {
            let mut near = views::near_portal_views(level, count.div_ceil(2), opts.seed);
            let walk = views::walk_views(level, start(), count / 2, opts.seed);
            near.views.extend(walk.views);
            near.in_solid += walk.in_solid;
            near
        }
    };
    if sampled.in_solid > 0 {
        eprintln!(
            "vis-check: {} of {count} sampled views are in solid and are skipped",
            sampled.in_solid
        );
    }
    if sampled.views.is_empty() {
        anyhow::bail!("no sampled view is in an open cell of this level (it has no portals?)");
    }
    Ok(sampled.views)
}

/// Pixels of `img` that match neither truth.
pub fn run(gpu: &Gpu, level: &Level, opts: &VisCheckOptions) -> anyhow::Result<VisCheckReport> {
    let size = opts.size;
    let aspect = size.0 as f32 / size.1 as f32;
    let mut check = Check {
        gpu,
        level,
        opts,
        world: WorldPass::create_clipped(
            gpu,
            level,
            crate::render::target::GAMMA_COLOR_FORMAT,
            opts.clip_distances,
        ),
        frame: IdFrame::create(gpu, size),
        counters: opts.overdraw.then(|| Counters {
            depth_tested: OverdrawCounter::create(gpu, size),
            rasterized: FragmentCounter::create(gpu),
            target: FrameTarget::create(gpu, size),
        }),
        triangles: level
            .surfaces
            .iter()
            .map(|s| s.indices.len() as u64 / 3)
            .collect(),
        vis: VisibleSet::default(),
        everything: VisibleSet::default(),
        holes: holes::Holes::new(level),
    };
    let mut methods = vec![CullMode::Portal];
    if level.pvs.is_some() {
        methods.extend([CullMode::Pvs, CullMode::PvsCells]);
    }
    methods.push(CullMode::Frustum);
    let mut totals: Vec<MethodTotals> = methods
        .iter()
        .map(|m| MethodTotals {
            method: m.name(),
            ..Default::default()
        })
        .collect();
    let specs = match &opts.views_list {
        Some(v) => v.clone(),
        None => random_views(level, opts)?,
    };
    // One culler per method for the whole run, as in a running program (warm buffers; the eye
    // tracker relocates when a view jumps).
    let mut cullers: Vec<Culler> = methods.iter().map(|m| Culler::new(level, *m)).collect();
    let mut truth_culler = Culler::new(level, CullMode::None);
    let mut visible_tris_sum = 0.0;
    let mut views = 0;
    for (i, spec) in specs.iter().enumerate() {
        if i % 50 == 0 && i > 0 {
            eprintln!("vis-check: {i}/{} views", specs.len());
        }
        let view = View {
            index: i,
            spec,
            camera: Camera::new(*spec, aspect),
            settings: FrameSettings {
                time: opts.time,
                // The cache draws the surfaces it holds first, whatever the cell order, and
                // which it holds changes from one prepare to the next: depth ties would then
                // go one way in the truth and the other in a method's frame.
                surface_cache: false,
                ..Default::default()
            },
        };
        let truth = check.truth(&mut truth_culler, &view);
        visible_tris_sum += truth.visible_tris as f64;
        views += 1;
        // Whether the near plane cuts a wall at this eye (the portal culler runs first).
        let mut cut_wall = false;
        for (culler, total) in cullers.iter_mut().zip(totals.iter_mut()) {
            check.method(culler, total, &view, &truth, &mut cut_wall)?;
        }
    }
    Ok(VisCheckReport {
        views,
        methods: totals,
        visible_triangles: visible_tris_sum / views.max(1) as f64,
    })
}

impl VisCheckReport {
    pub fn to_json(&self) -> serde_json::Value {
        let mut fneg = serde_json::Map::new();
        let mut ratio = serde_json::Map::new();
        let mut missed = serde_json::Map::new();
        let mut pixels = serde_json::Map::new();
        let mut cells = serde_json::Map::new();
        let mut overdraw = serde_json::Map::new();
        let mut at_cut = serde_json::Map::new();
        let mut holes = serde_json::Map::new();
        let mut grazes = serde_json::Map::new();
        let mut ties = serde_json::Map::new();
        let mut tied = serde_json::Map::new();
        let mut sky = serde_json::Map::new();
        for m in &self.methods {
            let modes: serde_json::Map<String, serde_json::Value> = OctagonClip::ALL
                .iter()
                .zip(&m.overdraw)
                .filter(|(_, v)| !v.is_empty())
                .map(|(c, v)| (c.name().to_string(), mean(v).into()))
                .collect();
            if !modes.is_empty() {
                overdraw.insert(m.method.into(), modes.into());
            }
            fneg.insert(m.method.into(), m.false_negatives().into());
            ratio.insert(m.method.into(), m.mean_ratio().into());
            missed.insert(m.method.into(), m.missed_surfaces.into());
            pixels.insert(m.method.into(), m.differing_pixels.into());
            at_cut.insert(m.method.into(), serde_json::json!(m.at_cut_walls));
            holes.insert(m.method.into(), serde_json::json!(m.through_holes));
            grazes.insert(m.method.into(), m.grazes.into());
            ties.insert(m.method.into(), m.depth_ties.into());
            tied.insert(m.method.into(), m.tied_misses.into());
            sky.insert(m.method.into(), serde_json::json!(m.at_sky_eyes));
            cells.insert(m.method.into(), quantile(&m.cells, 0.5).into());
        }
        let portal = self.methods.iter().find(|m| m.method == "portal");
        serde_json::json!({
            "views": self.views,
            "false_negatives": fneg,
            "missed_surfaces": missed,
            "differing_pixels": pixels,
            "missed_at_cut_walls": at_cut,
            "through_holes": holes,
            "grazed_surfaces": grazes,
            "depth_ties": ties,
            "tied_misses": tied,
            "at_sky_eyes": sky,
            "submitted_over_visible": ratio,
            "cells_visible_median": cells,
            "flow_us_median": portal.map(|p| quantile(&p.micros, 0.5)).unwrap_or(0.0),
            "overdraw_mean": overdraw,
            "fragments_rasterized_mean": portal
                .filter(|p| !p.rasterized.is_empty())
                .map(|p| mean(&p.rasterized)),
            "visible_triangles_mean": self.visible_triangles,
        })
    }

    pub fn print_table(&self) {
        println!(
            "views {}; truly visible triangles per view (mean) {:.0}",
            self.views, self.visible_triangles
        );
        println!(
            "{:<9} {:>8} {:>8} {:>14} {:>11} {:>9} {:>9}",
            "method", "missed", "pixels", "submitted/vis", "cells(med)", "µs(med)", "overdraw"
        );
        for m in &self.methods {
            println!(
                "{:<9} {:>8} {:>8} {:>14.2} {:>11.0} {:>9.1} {:>9.2}",
                m.method,
                m.missed_surfaces,
                m.differing_pixels,
                m.mean_ratio(),
                quantile(&m.cells, 0.5),
                quantile(&m.micros, 0.5),
                mean(&m.overdraw[0]),
            );
            if m.overdraw[1].len() + m.rasterized.len() > 0 {
                println!(
                    "    overdraw by octagon clipping: clip distances {:.2}, discard {:.2}, off {:.2}; rasterized fragments (pipeline statistics) {:.2} a pixel",
                    mean(&m.overdraw[0]),
                    mean(&m.overdraw[1]),
                    mean(&m.overdraw[2]),
                    mean(&m.rasterized)
                );
            }
            if m.through_holes != (0, 0) {
                println!(
                    "    not counted: seen only through holes in the level (along lines through solid, or cracks where walls touch): {} surfaces, {} pixels",
                    m.through_holes.0, m.through_holes.1
                );
            }
            if m.depth_ties > 0 {
                println!(
                    "    not counted: {} pixels where the surface drawn and the truth's tie (overlapping coplanar surfaces, or both covering it only by rounding their edges)",
                    m.depth_ties
                );
            }
            if m.tied_misses > 0 {
                println!(
                    "    not counted as missed: {} surfaces whose every pixel ties with the surface drawn there",
                    m.tied_misses
                );
            }
            if m.grazes > 0 {
                println!(
                    "    not counted as missed: {} surfaces seen only as grazes of their edges (their pixels are counted unless the surface drawn there is a graze too)",
                    m.grazes
                );
            }
            if m.at_sky_eyes.0 > 0 {
                println!(
                    "    not counted: {} views with the eye in a sky leaf (GLQuake draws nothing there): {} surfaces, {} pixels",
                    m.at_sky_eyes.0, m.at_sky_eyes.1, m.at_sky_eyes.2
                );
            }
            if m.at_cut_walls != (0, 0) {
                println!(
                    "    of these at eyes where the near plane cuts a wall: {} surfaces, {} pixels",
                    m.at_cut_walls.0, m.at_cut_walls.1
                );
            }
            for (c, miss, px) in &m.worst {
                println!(
                    "    miss at --camera {},{},{},{},{}: {miss} surfaces, {px} pixels",
                    c.position.x, c.position.y, c.position.z, c.yaw, c.pitch
                );
            }
        }
    }
}

/// What makes `lanthorn vis-check` fail: the portal method missing a surface of a level
/// Lanthorn compiled, or more than `max_missed_pixels` differing pixels per 300 views on an
/// imported one (whose own geometry leaves single-pixel cracks).
#[derive(Clone, Copy, Debug)]
pub struct VisCheckLimits {
    pub max_missed_pixels: u64,
}

/// `lanthorn vis-check`: runs the check and prints the table (and the JSON line); fails when
/// the portal method exceeds `limits`.
pub fn run_command(
    gpu: &Gpu,
    level: &Level,
    opts: &VisCheckOptions,
    json: bool,
    limits: VisCheckLimits,
) -> anyhow::Result<()> {
    let report = run(gpu, level, opts)?;
    report.print_table();
    if json {
        println!("{}", serde_json::to_string(&report.to_json())?);
    }
    let Some(portal) = report.methods.iter().find(|m| m.method == "portal") else {
        return Ok(());
    };
    let imported = level.pvs.is_some();
    let allowed = (limits.max_missed_pixels * report.views as u64).div_ceil(300);
    if !imported && portal.missed_surfaces > 0 {
        anyhow::bail!(
            "portal culling missed {} visible surfaces (of a level Lanthorn compiled, it must miss none); the worst views are listed above",
            portal.missed_surfaces
        );
    }
    if imported && portal.differing_pixels > allowed {
        anyhow::bail!(
            "portal culling left {} differing pixels over {} views, more than --max-missed-pixels {} per 300 views allows ({allowed})",
            portal.differing_pixels,
            report.views,
            limits.max_missed_pixels
        );
    }
    Ok(())
}

/// The views of a views file whose eyes are in open cells of `level`; the others are skipped
/// with one note (the views of an imported map, checked on the map compiled by Lanthorn,
/// whose cells differ slightly).
pub fn views_in_cells(file: &std::path::Path, level: &Level) -> anyhow::Result<Vec<CameraSpec>> {
    let path = super::path::CameraPath::load(file, Some(level), true)?;
    let all = path.keys.len();
    let views: Vec<CameraSpec> = path
        .keys
        .iter()
        .map(super::path::PathKey::camera)
        .filter(|v| level.locate(v.position).is_some())
        .collect();
    if views.len() < all {
        eprintln!(
            "vis-check: {}: {} of {all} views are in solid in this level and are skipped",
            file.display(),
            all - views.len()
        );
    }
    if views.is_empty() {
        anyhow::bail!(
            "{}: no view is in an open cell of this level",
            file.display()
        );
    }
    Ok(views)
}

/// Writes views as a camera-path file (`app::path`), so `--views-file` reads them back.
pub fn write_views(path: &std::path::Path, views: &[CameraSpec]) -> anyhow::Result<()> {
    super::path::CameraPath {
        speed: 8.0,
        keys: views.iter().map(|&v| v.into()).collect(),
    }
    .save(path)
}

#[cfg(test)]
#[path = "views_files_tests.rs"]
mod views_files;
