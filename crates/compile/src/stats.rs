//! Counts and stage times of one compile, and the one stage timer both front ends use.

use std::time::Instant;

use lanthorn_level::{cell_flags, Level};

/// Counts and times of one compile.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct CompileStats {
    /// Brushes read.
    pub brushes: usize,
    /// Brushes that built no solid, each warned about.
    pub failed_brushes: usize,
    /// What the compiler warned about.
    pub warnings: Vec<String>,
    /// Nodes of the point-location tree.
    pub bsp_nodes: usize,
    /// Its leaves.
    pub bsp_leaves: usize,
    /// Cells made.
    pub cells: usize,
    /// Portals made.
    pub portals: usize,
    /// Surfaces made.
    pub surfaces: usize,
    /// Their triangles.
    pub triangles: usize,
    /// Objects (brush entities, scene objects).
    pub objects: usize,
    /// Materials.
    pub materials: usize,
    /// It leaked (and `--allow-leak` let it through).
    pub leak: bool,
    /// Lights baked (entity lights plus the sun)…
    pub lights: usize,
    /// …and shadow rays cast.
    pub light_rays: u64,
    /// Luxels lit.
    pub luxels: usize,
    /// The light bake's seconds…
    pub light_seconds: f64,
    /// …and of them the seconds spent finding the bounce's emitters.
    pub bounce_seconds: f64,
    /// Cells open to the terrain and sky (`OUTDOOR`), the `OUTSIDE` cell included.
    pub outdoor_cells: usize,
    /// (stage, seconds) in order.
    pub stages: Vec<(String, f64)>,
    /// The whole compile's seconds.
    pub seconds: f64,
}

impl CompileStats {
    /// The counts of an already built level (for `lanthorn info`): no brushes, times or leak.
    pub fn of_level(level: &Level) -> CompileStats {
        let mut stats = CompileStats {
            lights: {
                let l = lanthorn_light::lights::level_lights(level);
                l.sources + l.sun.is_some() as usize
            },
            ..Default::default()
        };
        stats.count(level);
        stats
    }

    /// Fills the counts of the finished level.
    pub(crate) fn count(&mut self, level: &Level) {
        self.bsp_nodes = level.bsp.nodes.len();
        self.bsp_leaves = level.bsp.leaves.len();
        self.cells = level.cells.len();
        self.portals = level.portals.len();
        self.surfaces = level.surfaces.len();
        self.triangles = level.triangle_count();
        self.objects = level.objects.len();
        self.materials = level.materials.len();
        self.outdoor_cells = outdoor_cells(level);
    }

    /// One JSON object for `lanthorn compile --json`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// Cells open to the terrain and sky, the `OUTSIDE` cell included.
pub fn outdoor_cells(level: &Level) -> usize {
    level
        .cells
        .iter()
        .filter(|c| c.flags & cell_flags::OUTDOOR != 0)
        .count()
}

/// Times the stages of a compile into `CompileStats::stages` (and the log).
pub(crate) struct StageTimer {
    start: Instant,
    last: Instant,
}

impl StageTimer {
    pub(crate) fn start() -> StageTimer {
        let now = Instant::now();
        StageTimer {
            start: now,
            last: now,
        }
    }

    /// Ends stage `name`: its time since the previous lap.
    pub(crate) fn lap(&mut self, stats: &mut CompileStats, name: &str) {
        let now = Instant::now();
        let seconds = (now - self.last).as_secs_f64();
        stats.stages.push((name.to_string(), seconds));
        log::info!("compile: {name} {seconds:.3} s");
        self.last = now;
    }

    /// Seconds since the compile started.
    pub(crate) fn total(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }
}
