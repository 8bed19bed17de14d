//! The scene format (`.ron`): an ordered list of CSG operations over space that starts solid,
//! plus entities, sky, terrain and outdoor regions. See docs/formats.md for an example.

use glam::DVec3;
use serde::{Deserialize, Serialize};

use super::csg;
use super::SceneError;
use lanthorn_geom::DPlane;
use lanthorn_level::Medium;

/// What an operation fills its brush with (the level's `Medium`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SceneMedium {
    /// Walls and floors.
    Solid,
    /// Open air.
    Air,
    /// Water.
    Water,
    /// Slime.
    Slime,
    /// Lava.
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
#[serde(deny_unknown_fields)]
pub enum SceneBrush {
    /// An axis-aligned box.
    Box {
        /// Its least corner.
        min: (f64, f64, f64),
        /// Its greatest corner.
        max: (f64, f64, f64),
    },
    /// Outward planes `normal · p = dist`; inside where `normal · p <= dist` for all.
    Planes(Vec<ScenePlane>),
}

/// One bounding plane of a brush.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenePlane {
    /// Outward normal.
    pub normal: (f64, f64, f64),
    /// `normal · p` of the plane's points.
    pub dist: f64,
}

/// One ordered-CSG operation: a brush filled with a medium.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneOp {
    /// Where.
    pub brush: SceneBrush,
    /// What it fills the brush with.
    pub medium: SceneMedium,
    /// Only these media change ("air becomes water"); absent = everything.
    #[serde(default)]
    pub only: Option<Vec<SceneMedium>>,
    /// Texture of the surfaces this operation's medium shows (walls it builds, liquid tops).
    #[serde(default)]
    pub material: Option<String>,
    /// How that texture lies on the faces (Quake's scale and offset); absent = scale 1, offset 0.
    #[serde(default)]
    pub texture: Option<SceneTexture>,
}

/// How a texture is laid on a face, as Quake's id format does it: axes from the axial plane
/// nearest the face, `scale` 2 makes the texture twice as large, `offset` shifts it in texels.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneTexture {
    /// Quake-style texture scale along u and v (default 1, 1).
    #[serde(default = "unit_scale")]
    pub scale: (f64, f64),
    /// Quake-style texture shift along u and v.
    #[serde(default)]
    pub offset: (f64, f64),
}

fn unit_scale() -> (f64, f64) {
    (1.0, 1.0)
}

impl Default for SceneTexture {
    fn default() -> Self {
        Self {
            scale: unit_scale(),
            offset: (0.0, 0.0),
        }
    }
}

/// A named material of `Scene::materials`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneMaterial {
    /// What operations name it by.
    pub name: String,
    /// Where its texels come from.
    pub source: MaterialSource,
    /// A tangent-space normal map (a PNG the size of the `Png` source; +x along the texture's
    /// u, +y along its v): moving objects' lamps light the material by it.
    #[serde(default)]
    pub normal: Option<String>,
    /// A specular map (a PNG the size of the `Png` source: RGB the specular colour, alpha the
    /// gloss): moving objects' lamps make highlights on it.
    #[serde(default)]
    pub specular: Option<String>,
}

/// Where a material's texels come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum MaterialSource {
    /// A PNG file, its path relative to the scene file.
    Png(String),
    /// A texture generated in code (`floor`, `brick`, `crate`, `sky`: see `procedural`).
    Procedural(String),
    /// A flat colour, linear RGB 0..1.
    Color((f32, f32, f32)),
}

/// The terrain a scene places.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneTerrain {
    /// A heightmap path or `procedural:SIZE`.
    pub heightmap: String,
    /// Where its sample (0, 0) lies in the level.
    pub origin: (f32, f32, f32),
    /// World units between samples.
    pub horizontal_scale: f32,
    /// World units per unit of height.
    pub vertical_scale: f32,
}

/// A scene file: ordered-CSG operations, entities, materials, objects, mirrors, teleporters.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// The operations, applied in order.
    pub ops: Vec<SceneOp>,
    /// Entities as key/value pairs (`classname`, `origin` "x y z", ...).
    #[serde(default)]
    pub entities: Vec<Vec<(String, String)>>,
    /// Cubemap skybox name.
    #[serde(default)]
    pub sky: Option<String>,
    /// The terrain it places, if any.
    #[serde(default)]
    pub terrain: Option<SceneTerrain>,
    /// Boxes of open space that are outdoor (open to the terrain and sky): cells whose centre
    /// lies inside one are flagged `OUTDOOR`.
    #[serde(default)]
    pub outdoor: Vec<SceneBrush>,
    /// Mirrors: the wall faces of open cells inside each brush become one mirror portal (the
    /// rest of the wall stays a surface).
    #[serde(default)]
    pub mirrors: Vec<SceneBrush>,
    /// Teleporters: two wall faces of the same size, each showing the space in front of the
    /// other.
    #[serde(default)]
    pub teleporters: Vec<SceneTeleporter>,
    /// Brush groups outside the CSG world: doors, lifts, lanterns, props.
    #[serde(default)]
    pub objects: Vec<SceneObject>,
    /// Materials with texels (PNG files, generated ones) or a set colour; a material an
    /// operation names that is not listed here is a flat colour derived from its name.
    #[serde(default)]
    pub materials: Vec<SceneMaterial>,
}

/// An object: brushes drawn together, moving together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneObject {
    pub name: String,
    pub brushes: Vec<SceneObjectBrush>,
    /// `None`: it stays where its brushes are (and is lit like the world).
    #[serde(default)]
    pub motion: Option<SceneMotion>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneObjectBrush {
    pub brush: SceneBrush,
    #[serde(default)]
    pub material: Option<String>,
    /// How the material lies on the brush's faces (as an operation's `texture`).
    #[serde(default)]
    pub texture: Option<SceneTexture>,
}

/// How an object moves: offsets from where its brushes are, back and forth at `speed` units a
/// second, resting `wait` seconds at each end; `phase` seconds shift its clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SceneMotion {
    /// Slides open by `open` and back; while shut it closes the portals its box covers.
    Door {
        open: (f32, f32, f32),
        speed: f32,
        #[serde(default)]
        wait: f32,
        #[serde(default)]
        phase: f32,
    },
    /// Along `points` (offsets; the first is usually (0, 0, 0)) and back.
    Path {
        points: Vec<(f32, f32, f32)>,
        speed: f32,
        #[serde(default)]
        wait: f32,
        #[serde(default)]
        phase: f32,
    },
}

/// A teleporter: the wall face inside `from` shows the space in front of the wall face inside
/// `to`, and `to` shows the space in front of `from` (one portal each way).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneTeleporter {
    /// The marker brush holding the first wall face.
    pub from: SceneBrush,
    /// The marker brush holding the second.
    pub to: SceneBrush,
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

/// Parses scene text; an error names the line and column, and the field it is in where the
/// parser's message does not (`Expected float` becomes `field \`max\`: Expected float`).
/// Unknown fields are refused, so a misspelt one is named as itself, not as the real one
/// found missing.
pub fn parse(text: &str) -> Result<Scene, SceneError> {
    ron::from_str(text).map_err(|e: ron::error::SpannedError| {
        let msg = e.code.to_string();
        let msg = match field_before(text, e.position.line, e.position.col) {
            Some(field) if !msg.contains('`') => format!("field `{field}`: {msg}"),
            _ => msg,
        };
        SceneError::Parse {
            line: e.position.line,
            column: e.position.col,
            msg: crate::map::map_file::cut_to(&msg, 240),
        }
    })
}

/// Parses scene bytes: text that is not UTF-8 is an error at the first bad byte.
pub(super) fn parse_bytes(bytes: &[u8]) -> Result<Scene, SceneError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            let start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&good[start..]).chars().count() + 1;
            Err(SceneError::Parse {
                line,
                column,
                msg: format!(
                    "byte 0x{:02x} is not UTF-8: save the scene as UTF-8 text",
                    bytes[e.valid_up_to()]
                ),
            })
        }
    }
}

/// The field whose value holds 1-based (`line`, `col`): the last `name:` before it.
fn field_before(text: &str, line: usize, col: usize) -> Option<String> {
    let offset: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let upto = text
        .get(offset..)?
        .chars()
        .take(col.saturating_sub(1))
        .map(char::len_utf8)
        .sum::<usize>();
    let before = text.get(..offset + upto)?;
    let colon = before.rfind(':')?;
    let name: String = before[..colon]
        .trim_end()
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    (!name.is_empty()).then_some(name)
}
