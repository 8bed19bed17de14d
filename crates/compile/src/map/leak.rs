//! Leaks: the first point entity the outside flood reaches, the path from it to the void
//! written densely (a point every 2 units, as qbsp's point file, which Quake's `pointfile`
//! command and editors read), and the brushes on that path that do not seal, with why — what
//! an author needs to find the hole.

use std::path::Path;

use glam::DVec3;

use super::brush::Contents;
use super::entity_brushes::{EntityBrushes, Group};
use super::map_file::{cut, quoted, MapFile};
use super::tree::Tree;
use crate::CompileStats;
use lanthorn_level::LeakPath;

/// Spacing of the points of the path (qbsp's).
const STEP: f64 = 2.0;

/// A leak found by the flood.
pub(super) struct Leak {
    pub entity: usize,
    pub classname: String,
    pub line: usize,
    pub position: DVec3,
    /// From the entity to the void, a point every `STEP` units.
    pub points: Vec<DVec3>,
    /// The brushes the path runs through that do not seal, each with why.
    pub crossings: Vec<String>,
}

impl Leak {
    pub(super) fn level_path(&self) -> LeakPath {
        LeakPath {
            entity: self.classname.clone(),
            line: u32::try_from(self.line).unwrap_or(u32::MAX),
            points: self.points.iter().map(|p| p.as_vec3()).collect(),
            crossings: self.crossings.clone(),
        }
    }

    /// The point file's text: `x y z` a line.
    pub(super) fn pointfile_text(&self) -> String {
        self.points
            .iter()
            .map(|p| format!("{:.3} {:.3} {:.3}\n", p.x, p.y, p.z))
            .collect()
    }

    /// What the author is told beyond the entity: the non-sealing brushes on the path.
    pub(super) fn crossings_text(&self) -> String {
        if self.crossings.is_empty() {
            "no brush lies on the path: it runs through a gap between brushes (or through a \
             brush skipped with a warning)"
                .into()
        } else {
            format!(
                "the path runs through brushes that do not seal: {}",
                self.crossings.join("; ")
            )
        }
    }
}

/// The first point entity (in file order) standing in a leaf the outside flood reached.
pub(super) fn find(
    map: &MapFile,
    brushes: &EntityBrushes,
    tree: &Tree,
    from: &[Option<u32>],
) -> Option<Leak> {
    for (ei, e) in map.entities.iter().enumerate().skip(1) {
        let Some(p) = e.get("origin").and_then(parse_origin) else {
            continue;
        };
        let Some(l) = tree.leaf_at_tie(p, false) else {
            continue;
        };
        if !(tree.is_open(l) && tree.leaves[l as usize].outside) {
            continue;
        }
        let points = densify(&tree.leak_path(p, from));
        return Some(Leak {
            entity: ei,
            classname: cut(e.classname()),
            line: e.line,
            position: p,
            crossings: crossings(map, brushes, &points),
            points,
        });
    }
    None
}

/// Fills in the leak in the stats (and its warning) and writes the point file, if wanted.
pub(super) fn record(
    leak: &Leak,
    path: &Path,
    leak_file: Option<&Path>,
    stats: &mut CompileStats,
) -> Result<(), lanthorn_level::files::WriteError> {
    stats.leak = true;
    if let Some(f) = leak_file {
        lanthorn_level::files::write_atomically(f, leak.pointfile_text().as_bytes())?;
    }
    stats.warnings.push(format!(
        "{}:{}: leak: entity {} {} at ({:.0} {:.0} {:.0}) reaches the void; {}",
        path.display(),
        leak.line,
        leak.entity,
        leak.classname,
        leak.position.x,
        leak.position.y,
        leak.position.z,
        leak.crossings_text()
    ));
    Ok(())
}

fn parse_origin(text: &str) -> Option<DVec3> {
    let v: Vec<f64> = text
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect();
    (v.len() == 3 && v.iter().all(|c| c.is_finite())).then(|| DVec3::new(v[0], v[1], v[2]))
}

/// The polyline through `waypoints` with a point every `STEP` units along each segment (and
/// every waypoint kept).
fn densify(waypoints: &[DVec3]) -> Vec<DVec3> {
    let mut out = Vec::new();
    for w in waypoints.windows(2) {
        let (a, b) = (w[0], w[1]);
        // Bounded: waypoints lie in the root box, a few hundred thousand units at most.
        let n = ((b - a).length() / STEP).ceil().clamp(1.0, 1e6) as usize;
        out.extend((0..n).map(|i| a.lerp(b, i as f64 / n as f64)));
    }
    out.extend(waypoints.last());
    out
}

/// Every brush some point of the path lies inside that does not seal, once, in brush order.
fn crossings(map: &MapFile, brushes: &EntityBrushes, points: &[DVec3]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, b) in brushes.brushes.iter().enumerate() {
        let why = match non_sealing_reason(map, brushes, i) {
            Some(w) => w,
            None => continue,
        };
        let on_path = points.iter().any(|&p| {
            (0..3).all(|k| p[k] >= b.min[k] - 0.01 && p[k] <= b.max[k] + 0.01)
                && b.contains(p, 0.01)
        });
        if on_path {
            let class = map.entities[b.entity].classname();
            out.push(format!(
                "entity {} ({}) brush {} (line {}): {why}",
                b.entity,
                cut(class),
                b.index,
                b.line
            ));
        }
    }
    out
}

/// Why brush `i` does not seal, or `None` when it does.
fn non_sealing_reason(map: &MapFile, brushes: &EntityBrushes, i: usize) -> Option<String> {
    let b = &brushes.brushes[i];
    let class = map.entities[b.entity].classname();
    match brushes.groups[i] {
        Group::Trigger => {
            return Some(format!(
                "{} brushes are separate models and never seal",
                cut(class)
            ))
        }
        Group::Object => {
            return Some(format!(
                "brush entities ({}) are separate models and never seal",
                cut(class)
            ))
        }
        Group::World => {}
    }
    if b.detail {
        return Some("func_detail brushes never seal (make it a world brush)".into());
    }
    let face = brushes.faces[i]
        .last()
        .map(|f| (quoted(&f.texture), f.line));
    let (tex, line) = face.unwrap_or_default();
    let because = format!(
        "its last face (line {line}) is {tex}, and id's rule takes a brush's contents from it"
    );
    match b.contents {
        Contents::Solid | Contents::Sky => None,
        Contents::Clip => Some(format!("{because}: player clip, which does not seal")),
        Contents::Nothing => Some(format!("{because}: a tool brush, which does not seal")),
        Contents::Water | Contents::Slime | Contents::Lava => {
            Some(format!("{because}: a liquid, which does not seal"))
        }
    }
}
