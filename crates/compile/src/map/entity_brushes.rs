//! Every entity's brushes built from their faces, each with its contents (from its textures)
//! and its entity's group: the world (worldspawn, `func_group`, `func_detail*`), triggers
//! (no surfaces, no sealing) and objects (doors, lifts, ...: drawn apart from the world).

use std::path::Path;

use super::brush::{self, Brush, Contents};
use super::map_file::{MapBrush, MapFace, MapFile};
use crate::CompileStats;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Group {
    World,
    Trigger,
    Object,
}

pub(super) fn entity_group(index: usize, class: &str) -> Group {
    if index == 0
        || class == "worldspawn"
        || class == "func_group"
        || class.starts_with("func_detail")
    {
        Group::World
    } else if class.starts_with("trigger_") {
        Group::Trigger
    } else {
        Group::Object
    }
}

/// The brushes of a map that built; `faces[i]` are brush `i`'s map faces (texture names and
/// projections), `groups[i]` its entity's group.
pub(super) struct EntityBrushes<'a> {
    pub(super) brushes: Vec<Brush>,
    pub(super) faces: Vec<&'a [MapFace]>,
    pub(super) groups: Vec<Group>,
}

impl<'a> EntityBrushes<'a> {
    /// Builds every brush; one that does not enclose a volume is skipped with a warning naming
    /// its line, entity and brush.
    pub(super) fn build(map: &'a MapFile, path: &Path, stats: &mut CompileStats) -> Self {
        let mut out = EntityBrushes {
            brushes: Vec::new(),
            faces: Vec::new(),
            groups: Vec::new(),
        };
        for (ei, e) in map.entities.iter().enumerate() {
            let class = e.classname();
            let group = entity_group(ei, class);
            for (bi, mb) in e.brushes.iter().enumerate() {
                stats.brushes += 1;
                match build_brush(mb, ei, bi, class, group) {
                    Ok(b) => {
                        out.brushes.push(b);
                        out.faces.push(&mb.faces);
                        out.groups.push(group);
                    }
                    Err(w) => {
                        log::warn!("{}: {w}", path.display());
                        stats.warnings.push(w);
                        stats.failed_brushes += 1;
                    }
                }
            }
        }
        out
    }

    /// The map face of side `side` of brush `brush`.
    pub(super) fn face(&self, brush: usize, side: usize) -> &MapFace {
        &self.faces[brush][self.brushes[brush].sides[side].face]
    }

    /// Whether a side can show a surface (tool textures never do).
    pub(super) fn draws(&self, brush: usize, side: usize) -> bool {
        !brush::is_tool_texture(&self.face(brush, side).texture)
    }

    /// Indices of the brushes in `group`.
    pub(super) fn in_group(&self, group: Group) -> Vec<usize> {
        (0..self.brushes.len())
            .filter(|&i| self.groups[i] == group)
            .collect()
    }
}

fn build_brush(
    mb: &MapBrush,
    ei: usize,
    bi: usize,
    class: &str,
    group: Group,
) -> Result<Brush, String> {
    let mut planes = Vec::with_capacity(mb.faces.len());
    for (fi, f) in mb.faces.iter().enumerate() {
        let Some(p) = brush::map_plane(&f.points) else {
            return Err(format!(
                "line {}: entity {ei} ({class}) brush {bi}: the face's three points are collinear; brush skipped",
                f.line
            ));
        };
        planes.push((p, fi));
    }
    let sides = brush::build(&planes, crate::MAX_COORD).map_err(|err| {
        format!(
            "line {}: entity {ei} ({class}) brush {bi}: {err}; brush skipped",
            mb.line
        )
    })?;
    let (min, max) = brush::bounds(&sides);
    Ok(Brush {
        sides,
        min,
        max,
        contents: brush_contents(mb, group),
        entity: ei,
        index: bi,
        line: mb.line,
        detail: class.starts_with("func_detail"),
    })
}

/// A brush's contents as id's qbsp decides them: from one face, the last one written in the
/// file (qbsp's parser prepends each face, and `LoadBrush` looks at the list's head). Only
/// `clip` (the whole name), `*…` (liquid: `*lava…`, `*slime…`, any other `*` water) and
/// `sky…` are special, and liquid and sky only in the world (qbsp's `worldmodel`: entities
/// never get water); everything else — `trigger` included — is solid. Trigger entities are
/// separate models in Quake, so their brushes never touch the world: nothing here.
/// `hint`, `hintskip` and `origin`, names TrenchBroom and ericw-tools give tool brushes and
/// that no id wad holds, make nothing too.
pub(super) fn brush_contents(mb: &MapBrush, group: Group) -> Contents {
    if group == Group::Trigger {
        return Contents::Nothing;
    }
    let Some(face) = mb.faces.last() else {
        return Contents::Solid;
    };
    match brush::texture_contents(&face.texture) {
        Some(Contents::Clip) => Contents::Clip,
        Some(Contents::Nothing) => Contents::Nothing,
        Some(c) if group == Group::World => c,
        _ => Contents::Solid,
    }
}
