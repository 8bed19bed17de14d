//! Quake's spawn rules for brush entities, applied once after a level loads: which entities a
//! game of a given skill leaves out, and doors that start open.

use glam::Vec3;

use super::{Entity, Level};

/// Not in easy, medium, hard (skill 0, 1, 2–3) and not in deathmatch: Quake's `spawnflags`
/// bits that remove an entity at spawn.
const NOT_IN_SKILL: [u32; 3] = [256, 512, 1024];
const NOT_IN_DEATHMATCH: u32 = 2048;
/// A `func_door`'s START_OPEN: it spawns at its open position (and closes when triggered).
const START_OPEN: u32 = 1;
/// Quake's default `lip`: how much of a door stays in its frame when open.
const DEFAULT_LIP: f32 = 8.0;

/// The game the level is shown as: `--skill`, `--deathmatch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpawnRules {
    /// 0 easy, 1 normal (quakespasm's default), 2 hard, 3 nightmare.
    pub skill: u8,
    /// A deathmatch game (entities flagged not-in-deathmatch are left out).
    pub deathmatch: bool,
}

impl Default for SpawnRules {
    fn default() -> Self {
        SpawnRules {
            skill: 1,
            deathmatch: false,
        }
    }
}

impl SpawnRules {
    /// Quake leaves this entity out of this game. An episode gate stands only once its episode
    /// is done: a new game has none done, so none stands.
    pub fn removes(&self, e: &Entity) -> bool {
        if e.classname() == "func_episodegate" {
            return true;
        }
        let flags = spawnflags(e);
        let skill = NOT_IN_SKILL[usize::from(self.skill.min(2))];
        flags & skill != 0 || (self.deathmatch && flags & NOT_IN_DEATHMATCH != 0)
    }
}

fn spawnflags(e: &Entity) -> u32 {
    e.get("spawnflags")
        .and_then(|s| s.trim().parse::<f32>().ok())
        .filter(|f| f.is_finite() && *f >= 0.0)
        .map_or(0, |f| f as u32)
}

/// What `apply` did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpawnReport {
    /// Names of the objects left out.
    pub removed: Vec<String>,
    /// Names of the doors moved to their open position.
    pub opened: Vec<String>,
}

/// Removes the objects whose entity this game leaves out and moves every still `func_door`
/// with START_OPEN to its open position. Objects without an entity, and those with a motion of
/// their own (Lanthorn's doors), are left as they are.
pub fn apply(level: &mut Level, rules: SpawnRules) -> SpawnReport {
    let mut report = SpawnReport::default();
    let entities = &level.entities;
    let entity = |e: Option<u32>| e.and_then(|i| entities.get(i as usize));
    let mut kept = Vec::with_capacity(level.objects.len());
    for mut o in std::mem::take(&mut level.objects) {
        let Some(e) = entity(o.entity) else {
            kept.push(o);
            continue;
        };
        if rules.removes(e) {
            report.removed.push(o.name);
            continue;
        }
        if o.motion.is_none() && e.classname() == "func_door" && spawnflags(e) & START_OPEN != 0 {
            // Quake's model bounds sit one unit inside the brushes.
            let size = (o.bounds.size() - Vec3::splat(2.0)).max(Vec3::ZERO);
            o.origin += open_offset(e, size);
            // Open, it shuts no portal (a Quake 3 door's area portal).
            o.closes.clear();
            report.opened.push(o.name.clone());
        }
        kept.push(o);
    }
    level.objects = kept;
    report
}

/// How far a Quake door moves to open: along its `angle` (-1 up, -2 down, else a yaw in
/// degrees) by its size along that direction less its `lip`, as QuakeC's `func_door` does.
pub fn open_offset(e: &Entity, size: Vec3) -> Vec3 {
    let number = |key: &str| {
        e.get(key)
            .and_then(|s| s.trim().parse::<f32>().ok())
            .filter(|v| v.is_finite())
    };
    let angle = number("angle").unwrap_or(0.0);
    let dir = if angle == -1.0 {
        Vec3::Z
    } else if angle == -2.0 {
        -Vec3::Z
    } else {
        let (s, c) = angle.to_radians().sin_cos();
        Vec3::new(c, s, 0.0)
    };
    let lip = number("lip").unwrap_or(DEFAULT_LIP);
    dir * (dir.dot(size).abs() - lip)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Object;
    use lanthorn_geom::Aabb;

    fn entity(pairs: &[(&str, &str)]) -> Entity {
        Entity::from_pairs(pairs)
    }

    /// Each skill removes exactly its own bit (hard and nightmare share one); deathmatch its.
    #[test]
    fn skill_bits_remove_their_entities() {
        for (flags, removed_in) in [
            (256, [true, false, false, false]),
            (512, [false, true, false, false]),
            (1024, [false, false, true, true]),
            (256 + 1024, [true, false, true, true]),
            (1, [false; 4]),
        ] {
            let e = entity(&[("spawnflags", &flags.to_string())]);
            for skill in 0..4u8 {
                let rules = SpawnRules {
                    skill,
                    deathmatch: false,
                };
                assert_eq!(
                    rules.removes(&e),
                    removed_in[skill as usize],
                    "{flags} {skill}"
                );
            }
        }
        let dm = entity(&[("spawnflags", "2048")]);
        assert!(!SpawnRules::default().removes(&dm));
        assert!(SpawnRules {
            skill: 1,
            deathmatch: true
        }
        .removes(&dm));
    }

    /// QuakeC's door: a 64-wide door sliding along +y by its width less an 8-unit lip; an
    /// up-moving one by its height; a door with lip 0 by all of it.
    #[test]
    fn doors_open_by_their_size_less_the_lip() {
        let size = Vec3::new(16.0, 64.0, 96.0);
        let at = |pairs: &[(&str, &str)]| open_offset(&entity(pairs), size);
        assert!((at(&[("angle", "90")]) - Vec3::new(0.0, 56.0, 0.0)).length() < 1e-4);
        assert!((at(&[("angle", "-1")]) - Vec3::new(0.0, 0.0, 88.0)).length() < 1e-4);
        assert!(
            (at(&[("angle", "-2"), ("lip", "0")]) - Vec3::new(0.0, 0.0, -96.0)).length() < 1e-4
        );
        assert!((at(&[("angle", "180")]) - Vec3::new(-8.0, 0.0, 0.0)).length() < 1e-4);
    }

    /// `apply` drops the skill-flagged object and opens the START_OPEN one, which then shuts
    /// no portal; others stay, and shut theirs.
    #[test]
    fn apply_removes_and_opens() {
        let mut level = Level::default();
        level.entities = vec![
            entity(&[
                ("classname", "func_door"),
                ("spawnflags", "513"),
                ("angle", "-1"),
            ]),
            entity(&[
                ("classname", "func_door"),
                ("spawnflags", "1"),
                ("angle", "-1"),
            ]),
            entity(&[("classname", "func_wall")]),
        ];
        for i in 0..3 {
            level.objects.push(Object {
                name: format!("*{}", i + 1),
                entity: Some(i),
                bounds: Aabb::new(Vec3::ZERO, Vec3::new(34.0, 66.0, 98.0)),
                closes: vec![i, i + 1],
                ..Default::default()
            });
        }
        let report = apply(&mut level, SpawnRules::default());
        assert_eq!(report.removed, vec!["*1".to_string()]);
        assert_eq!(report.opened, vec!["*2".to_string()]);
        assert_eq!(level.objects.len(), 2);
        assert_eq!(level.objects[0].origin, Vec3::new(0.0, 0.0, 88.0));
        assert_eq!(level.objects[1].origin, Vec3::ZERO);
        assert!(level.objects[0].closes.is_empty());
        assert_eq!(level.objects[1].closes, vec![2, 3]);
    }
}
