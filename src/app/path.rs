//! Camera paths (`bench --path FILE.json`): keys in Lanthorn's conventions (Z up, yaw in
//! degrees from +X, pitch positive up), replayed at `speed` world units per frame, positions
//! interpolated linearly along the polyline of keys and yaw along the shortest arc. A path of
//! one key holds the camera still.
//!
//! ```json
//! {"speed": 8, "keys": [{"pos": [480, -352, 110], "yaw": 90, "pitch": 0}, {"pos": [480, 0, 110], "yaw": 90, "pitch": -10}]}
//! ```

use std::path::{Path, PathBuf};

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::geom::CameraSpec;
use crate::level::Level;

/// One key of a path.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathKey {
    pub pos: [f32; 3],
    pub yaw: f32,
    pub pitch: f32,
}

impl From<CameraSpec> for PathKey {
    fn from(c: CameraSpec) -> PathKey {
        PathKey {
            pos: c.position.to_array(),
            yaw: c.yaw,
            pitch: c.pitch,
        }
    }
}

impl PathKey {
    /// The camera at this key.
    pub fn camera(&self) -> CameraSpec {
        CameraSpec {
            position: Vec3::from(self.pos),
            yaw: self.yaw,
            pitch: self.pitch,
        }
    }
}

/// A camera path as written in its file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CameraPath {
    /// World units per frame along the polyline.
    pub speed: f32,
    pub keys: Vec<PathKey>,
}

/// What is wrong with a path file; each names the file (and the key or the place).
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {msg} (a path is {{\"speed\": 8, \"keys\": [{{\"pos\": [x, y, z], \"yaw\": 90, \"pitch\": 0}}, …]}})")]
    Json {
        path: PathBuf,
        line: usize,
        column: usize,
        msg: String,
    },
    #[error("{path}: the path has no keys: add at least one {{\"pos\": [x, y, z], \"yaw\": …, \"pitch\": …}}")]
    Empty { path: PathBuf },
    #[error("{path}: speed {speed} must be a positive number of units per frame")]
    Speed { path: PathBuf, speed: f32 },
    #[error("{path}: key {index}: {field} is not a finite number")]
    NotFinite {
        path: PathBuf,
        index: usize,
        field: &'static str,
    },
    #[error(
        "{path}: key {index} at ({:.0} {:.0} {:.0}) is in solid (in no cell of the level): move it, or pass --allow-solid",
        pos[0], pos[1], pos[2]
    )]
    InSolid {
        path: PathBuf,
        index: usize,
        pos: [f32; 3],
    },
}

impl CameraPath {
    /// Reads and checks a path file; with a level, every key must be in one of its cells
    /// unless `allow_solid`.
    pub fn load(
        path: &Path,
        level: Option<&Level>,
        allow_solid: bool,
    ) -> Result<CameraPath, PathError> {
        let text = std::fs::read_to_string(path).map_err(|error| PathError::Io {
            path: path.into(),
            error,
        })?;
        let camera_path = CameraPath::parse(&text, path)?;
        if let (Some(level), false) = (level, allow_solid) {
            camera_path.check_cells(level, path)?;
        }
        Ok(camera_path)
    }

    /// Parses and checks path text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<CameraPath, PathError> {
        let p: CameraPath = serde_json::from_str(text).map_err(|e| PathError::Json {
            path: path.into(),
            line: e.line(),
            column: e.column(),
            // serde_json's text ends with the place, which the message says first.
            msg: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_string(),
        })?;
        if p.keys.is_empty() {
            return Err(PathError::Empty { path: path.into() });
        }
        if !(p.speed.is_finite() && p.speed > 0.0) {
            return Err(PathError::Speed {
                path: path.into(),
                speed: p.speed,
            });
        }
        for (index, k) in p.keys.iter().enumerate() {
            let fields = [
                ("pos", k.pos.iter().all(|v| v.is_finite())),
                ("yaw", k.yaw.is_finite()),
                ("pitch", k.pitch.is_finite()),
            ];
            if let Some((field, _)) = fields.iter().find(|(_, ok)| !ok) {
                return Err(PathError::NotFinite {
                    path: path.into(),
                    index,
                    field,
                });
            }
        }
        Ok(p)
    }

    fn check_cells(&self, level: &Level, path: &Path) -> Result<(), PathError> {
        if level.cells.is_empty() {
            return Ok(());
        }
        match self
            .keys
            .iter()
            .position(|k| level.locate(Vec3::from(k.pos)).is_none())
        {
            Some(index) => Err(PathError::InSolid {
                path: path.into(),
                index,
                pos: self.keys[index].pos,
            }),
            None => Ok(()),
        }
    }

    /// Writes the path, one key a line (a committed views file reads and diffs view by view),
    /// through a temporary file and a rename.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        let keys: Vec<String> = self
            .keys
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<_, _>>()?;
        let text = format!(
            "{{\"speed\": {}, \"keys\": [\n{}\n]}}\n",
            self.speed,
            keys.join(",\n")
        );
        crate::files::write_atomically(path, text.as_bytes())?;
        Ok(())
    }

    /// The polyline's length in world units.
    pub fn length(&self) -> f32 {
        self.keys
            .windows(2)
            .map(|w| Vec3::from(w[0].pos).distance(Vec3::from(w[1].pos)))
            .sum()
    }

    /// Frames to replay the whole path (at least one; one for a still camera).
    pub fn frames(&self) -> u32 {
        ((self.length() / self.speed).ceil() as u32).max(1)
    }

    /// `frames` cameras `speed` units apart along the path, the last held at its end.
    pub fn cameras(&self, frames: u32) -> Vec<CameraSpec> {
        (0..frames)
            .map(|i| self.at(i as f32 * self.speed))
            .collect()
    }

    /// The camera `distance` units along the path (clamped to its ends).
    pub fn at(&self, distance: f32) -> CameraSpec {
        let mut left = distance.max(0.0);
        for w in self.keys.windows(2) {
            let (a, b) = (Vec3::from(w[0].pos), Vec3::from(w[1].pos));
            let len = a.distance(b);
            if left <= len && len > 0.0 {
                return lerp_key(&w[0], &w[1], left / len);
            }
            left -= len;
        }
        let last = self.keys.last().expect("a checked path has keys");
        lerp_key(last, last, 0.0)
    }
}

/// Records a camera path from a flying camera (the demo's R key): a key whenever the camera
/// has moved `step` units or turned 5° since the last one.
#[derive(Clone, Debug, Default)]
pub struct PathRecorder {
    pub keys: Vec<PathKey>,
}

impl PathRecorder {
    pub fn observe(&mut self, camera: CameraSpec, step: f32) {
        let key = PathKey::from(camera);
        let far_enough = self.keys.last().is_none_or(|last| {
            let turned = ((key.yaw - last.yaw + 540.0).rem_euclid(360.0) - 180.0).abs()
                + (key.pitch - last.pitch).abs();
            Vec3::from(last.pos).distance(camera.position) >= step || turned >= 5.0
        });
        if far_enough {
            self.keys.push(key);
        }
    }

    /// The recorded path, replayed at `speed` units per frame.
    pub fn path(&self, speed: f32) -> CameraPath {
        CameraPath {
            speed,
            keys: self.keys.clone(),
        }
    }
}

/// Between two keys: position and pitch linearly, yaw along the shorter way round.
fn lerp_key(a: &PathKey, b: &PathKey, t: f32) -> CameraSpec {
    let turn = (b.yaw - a.yaw + 540.0).rem_euclid(360.0) - 180.0;
    CameraSpec {
        position: Vec3::from(a.pos).lerp(Vec3::from(b.pos), t),
        yaw: a.yaw + turn * t,
        pitch: a.pitch + (b.pitch - a.pitch) * t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<CameraPath, PathError> {
        CameraPath::parse(text, Path::new("walk.json"))
    }

    #[test]
    fn positions_are_spaced_by_speed_and_yaw_turns_the_short_way() {
        let p = parse(
            r#"{"speed": 10, "keys": [
                {"pos": [0, 0, 0], "yaw": 350, "pitch": 0},
                {"pos": [30, 0, 0], "yaw": 20, "pitch": -30},
                {"pos": [30, 40, 0], "yaw": 20, "pitch": -30}]}"#,
        )
        .unwrap();
        assert_eq!(p.length(), 70.0);
        assert_eq!(p.frames(), 7);
        let cams = p.cameras(9);
        let xs: Vec<[f32; 3]> = cams.iter().map(|c| c.position.to_array()).collect();
        assert_eq!(xs[1], [10.0, 0.0, 0.0]);
        assert_eq!(xs[4], [30.0, 10.0, 0.0]);
        // Held at the end past the path's length.
        assert_eq!(xs[8], [30.0, 40.0, 0.0]);
        // 350° → 20° is +30° through 0, not −330°.
        assert!((cams[1].yaw - 360.0).abs() < 1e-4, "{}", cams[1].yaw);
        assert!((cams[1].pitch + 10.0).abs() < 1e-4);
        // One key: a still camera.
        let still =
            parse(r#"{"speed": 8, "keys": [{"pos": [1, 2, 3], "yaw": 90, "pitch": 5}]}"#).unwrap();
        assert_eq!(still.frames(), 1);
        assert!(still
            .cameras(5)
            .iter()
            .all(|c| c.position == Vec3::new(1.0, 2.0, 3.0)));
    }

    /// A recorded flight keeps a key every `step` units or 5° of turn, and replays through
    /// every key it kept.
    #[test]
    fn a_recorded_flight_replays_through_its_keys() {
        let mut rec = PathRecorder::default();
        let at = |x: f32, yaw: f32| CameraSpec {
            position: Vec3::new(x, 0.0, 0.0),
            yaw,
            pitch: 0.0,
        };
        for i in 0..=40 {
            rec.observe(at(i as f32, 0.0), 8.0); // 1 unit a frame: a key every 8
        }
        rec.observe(at(40.0, 2.0), 8.0); // a small turn: no key
        rec.observe(at(40.0, 90.0), 8.0); // a real one: a key
        let xs: Vec<f32> = rec.keys.iter().map(|k| k.pos[0]).collect();
        assert_eq!(xs, [0.0, 8.0, 16.0, 24.0, 32.0, 40.0, 40.0]);
        let path = rec.path(8.0);
        let replay = path.cameras(path.frames());
        assert_eq!(replay.len(), 5);
        for (i, c) in replay.iter().enumerate() {
            assert_eq!(c.position.x, 8.0 * i as f32);
        }
    }

    #[test]
    fn bad_paths_name_the_file_and_the_key() {
        let msg = |t: &str| parse(t).unwrap_err().to_string();
        assert!(
            msg("{\"speed\": 8,\n \"keys\": [}").starts_with("walk.json:2:"),
            "{}",
            msg("{\"speed\": 8,\n \"keys\": [}")
        );
        assert_eq!(
            msg(r#"{"speed": 8, "keys": []}"#),
            "walk.json: the path has no keys: add at least one {\"pos\": [x, y, z], \"yaw\": …, \"pitch\": …}"
        );
        assert!(
            msg(r#"{"speed": 0, "keys": [{"pos": [0,0,0], "yaw": 0, "pitch": 0}]}"#)
                .contains("speed 0")
        );
        assert_eq!(
            msg(
                r#"{"speed": 8, "keys": [{"pos": [0,0,0], "yaw": 0, "pitch": 0}, {"pos": [0,0,1e39], "yaw": 0, "pitch": 0}]}"#
            ),
            "walk.json: key 1: pos is not a finite number"
        );
        let yard = crate::scenes::builtin::scene();
        let p = parse(r#"{"speed": 8, "keys": [{"pos": [0,0,64], "yaw": 0, "pitch": 0}, {"pos": [99999,0,0], "yaw": 0, "pitch": 0}]}"#)
            .unwrap();
        // A point of the yard's open space (not a cell by index: the yard is several).
        let inside = Vec3::new(0.0, -300.0, 64.0);
        assert!(yard.locate(inside).is_some());
        let p = CameraPath {
            keys: vec![
                PathKey {
                    pos: inside.to_array(),
                    ..p.keys[0]
                },
                p.keys[1],
            ],
            ..p
        };
        let err = p
            .check_cells(&yard, Path::new("walk.json"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("walk.json: key 1 at (99999 0 0) is in solid"),
            "{err}"
        );
    }

    /// The keep's committed paths (`assets/paths/keep.json`, and its corridor alone): every
    /// frame `bench --path` replays lies inside an open cell (the cell's own planes are the
    /// oracle, not only point location), and the tour passes through what it is meant to show:
    /// the corridor and a side room, under the cellar's water, and out in the open.
    #[test]
    fn the_keep_paths_stay_in_open_cells_and_visit_the_keep() {
        use crate::level::{cell_flags, Medium};
        let options = crate::compile::CompileOptions {
            light: false,
            ..Default::default()
        };
        let (level, _) = crate::scenes::embedded::compile("keep.ron", &options).unwrap();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/paths");
        for name in ["keep.json", "keep-corridor.json"] {
            let p = CameraPath::load(&dir.join(name), Some(&level), false).unwrap();
            let cells: Vec<u32> = p
                .cameras(p.frames())
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let cell = level.locate(c.position).filter(|&k| {
                        let cell = &level.cells[k as usize];
                        cell.medium.is_open() && cell.contains(c.position, 0.01)
                    });
                    cell.unwrap_or_else(|| {
                        panic!("{name}: frame {i} at {} is in solid", c.position)
                    })
                })
                .collect();
            let medium = |m: Medium| cells.iter().any(|&k| level.cells[k as usize].medium == m);
            let outdoor = cells
                .iter()
                .any(|&k| level.cells[k as usize].flags & cell_flags::OUTDOOR != 0);
            // The corridor is the cell of the player start; N3 is the cell holding its centre.
            let start = crate::app::start_camera(&level, None).position;
            let corridor = level.locate(start).unwrap();
            let n3 = level.locate(glam::Vec3::new(896.0, 224.0, 56.0)).unwrap();
            assert!(cells.contains(&corridor), "{name} misses the corridor");
            if name == "keep.json" {
                assert!(cells.contains(&n3), "{name} misses the side room N3");
                assert!(medium(Medium::Water), "{name} never goes under water");
                assert!(outdoor, "{name} never goes outdoors");
            } else {
                assert!(
                    cells.iter().all(|&k| k == corridor),
                    "{name} leaves the corridor"
                );
            }
        }
    }
}
