//! The scene format (`.ron`): an ordered list of CSG operations over space that starts solid,
//! plus entities, sky, terrain and outdoor regions. See README.md for an example.

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::csg;
use super::SceneError;
use crate::geom::DPlane;
use crate::level::Medium;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SceneMedium {
    Solid,
    Air,
    Water,
    Slime,
    Lava,
}

impl SceneMedium {
    pub(super) fn medium(self) -> Medium {
        match self {
            SceneMedium::Solid => Medium::Solid,
            SceneMedium::Air => Medium::Air,
            SceneMedium::Water => Medium::Water,
            SceneMedium::Slime => Medium::Slime,
            SceneMedium::Lava => Medium::Lava,
        }
    }
}

/// A convex brush.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SceneBrush {
    Box {
        min: (f64, f64, f64),
        max: (f64, f64, f64),
    },
    /// Outward planes `normal · p = dist`; inside where `normal · p <= dist` for all.
    Planes(Vec<ScenePlane>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenePlane {
    pub normal: (f64, f64, f64),
    pub dist: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneOp {
    pub brush: SceneBrush,
    pub medium: SceneMedium,
    /// Only these media change ("air becomes water"); absent = everything.
    #[serde(default)]
    pub only: Option<Vec<SceneMedium>>,
    /// Texture of the surfaces this operation's medium shows (walls it builds, liquid tops).
    #[serde(default)]
    pub material: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneTerrain {
    pub heightmap: String,
    pub origin: (f32, f32, f32),
    pub horizontal_scale: f32,
    pub vertical_scale: f32,
}

#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Scene {
    pub ops: Vec<SceneOp>,
    /// Entities as key/value pairs (`classname`, `origin` "x y z", ...).
    #[serde(default)]
    pub entities: Vec<Vec<(String, String)>>,
    /// Cubemap skybox name.
    #[serde(default)]
    pub sky: Option<String>,
    #[serde(default)]
    pub terrain: Option<SceneTerrain>,
    /// Boxes of open space that are outdoor (open to the terrain and sky): cells whose centre
    /// lies inside one are flagged `OUTDOOR`.
    #[serde(default)]
    pub outdoor: Vec<SceneBrush>,
}

pub(super) fn brush_planes(b: &SceneBrush) -> Vec<DPlane> {
    match b {
        SceneBrush::Box { min, max } => csg::box_planes(
            DVec3::new(min.0, min.1, min.2),
            DVec3::new(max.0, max.1, max.2),
        ),
        SceneBrush::Planes(v) => v
            .iter()
            .map(|p| {
                let n = DVec3::new(p.normal.0, p.normal.1, p.normal.2);
                let len = n.length();
                DPlane::new(n / len, p.dist / len)
            })
            .collect(),
    }
}

/// Parses scene text; an error names the line and column.
pub fn parse(text: &str) -> Result<Scene, SceneError> {
    ron::from_str(text).map_err(|e: ron::error::SpannedError| SceneError::Parse {
        line: e.position.line,
        column: e.position.col,
        msg: e.code.to_string(),
    })
}
