//! The builder: the plan's rooms given shapes, their open boxes, world brushes and entities,
//! and what it made (so `generate` can try again until every feature is in).

use std::collections::BTreeMap;

use super::carve::P3;
use super::carve::{carve, Air, Box3};
use super::map_text::{by_facing, write_map, Brush, Entity};
use super::plan::{plan, Plan, Slot};
use super::GenOptions;
use lanthorn_geom::rng::XorShift as Rng;

/// Wall thickness.
pub(super) const T: i32 = 16;
/// A slot's side: a room and half of the corridors to its neighbours.
const SLOT: i32 = 896;
/// Floor to floor.
pub(super) const STOREY: i32 = 192;
/// Half the side of the square at a slot's centre that every room holds (stairs, lifts,
/// pits and trains go there, and corridors reach the room within it).
pub(super) const HALF: i32 = 128;

/// Wall, floor and ceiling textures (all in `base.wad`).
pub(super) const THEMES: [[&str; 3]; 8] = [
    ["tech06_1", "sfloor4_2", "ceil1_1"],
    ["twall1_4", "sfloor4_6", "tech03_1"],
    ["tech08_1", "ground1_6", "sfloor3_2"],
    ["tech05_1", "sfloor1_2", "ceil1_1"],
    ["twall2_3", "ground1_2", "tech10_1"],
    ["comp1_1", "sfloor4_5", "tech03_2"],
    ["uwall1_2", "ground1_5", "ceil1_1"],
    ["tech14_1", "sfloor4_8", "tech01_3"],
];

/// The wall that splits a room: the gap `[lo, lo + T]` along `axis`; part 0 (which holds the
/// centre square) is on the `-sign` side of it.
#[derive(Clone, Copy)]
pub(super) struct Split {
    pub(super) axis: usize,
    pub(super) sign: i32,
    pub(super) lo: i32,
}

pub(super) struct Room {
    pub(super) slot: Slot,
    /// The centre of its slot.
    pub(super) c: [i32; 2],
    /// Its floor.
    pub(super) z: i32,
    pub(super) outer: Box3,
    /// One box, or two on either side of `split`.
    pub(super) parts: Vec<Box3>,
    pub(super) split: Option<Split>,
    pub(super) theme: usize,
    pub(super) sky: bool,
    /// A stair or lift leads up from it (in lane `storey % 2`), or arrives from below (in
    /// the other lane).
    pub(super) up: bool,
    pub(super) down: bool,
    /// No room below it: pits may go down.
    pub(super) ground: bool,
}

impl Room {
    /// The y range of a lane (`parity` 0 or 1) of the centre square; lanes run along x over
    /// `[c.x - 120, c.x + 120]`.
    pub(super) fn lane(&self, parity: i32) -> [i32; 2] {
        let y = self.c[1];
        if parity == 0 {
            [y - 112, y - 16]
        } else {
            [y + 16, y + 112]
        }
    }
}

pub(super) struct Builder {
    pub(super) rng: Rng,
    pub(super) air: Vec<Air>,
    pub(super) world: Vec<Brush>,
    pub(super) entities: Vec<Entity>,
    pub(super) rooms: Vec<Room>,
    /// What was made, by feature name.
    pub(super) made: BTreeMap<&'static str, u32>,
    names: u32,
}

impl Builder {
    pub(super) fn note(&mut self, feature: &'static str) {
        *self.made.entry(feature).or_default() += 1;
    }

    /// A fresh `targetname`.
    pub(super) fn name(&mut self, stem: &str) -> String {
        self.names += 1;
        format!("{stem}{}", self.names)
    }

    /// A multiple of `step` in `lo..=hi`.
    pub(super) fn pick(&mut self, lo: i32, hi: i32, step: i32) -> i32 {
        lo + step * self.rng.below(((hi - lo) / step + 1).max(1) as usize) as i32
    }

    pub(super) fn chance(&mut self, p: f32) -> bool {
        self.rng.unit_f32() < p
    }

    pub(super) fn open(&mut self, b: Box3, theme: usize) {
        self.air.push(Air {
            b,
            theme,
            sky: false,
        });
    }

    pub(super) fn textures(&self, theme: usize) -> impl Fn([f64; 3]) -> &'static str {
        let [w, f, c] = THEMES[theme];
        by_facing(w, f, c)
    }

    pub(super) fn light(&mut self, at: P3, level: i32) {
        let e = Entity::at("light", at).with("light", &level.to_string());
        self.entities.push(e);
    }
}

/// A box across `axis` (0: x, 1: y): `u` along it, `v` across it, `z` up.
pub(super) fn hbox(axis: usize, u: [i32; 2], v: [i32; 2], z: [i32; 2]) -> Box3 {
    if axis == 0 {
        Box3::new([u[0], v[0], z[0]], [u[1], v[1], z[1]])
    } else {
        Box3::new([v[0], u[0], z[0]], [v[1], u[1], z[1]])
    }
}

/// A point across `axis` like `hbox`.
pub(super) fn hpoint(axis: usize, u: i32, v: i32, z: i32) -> P3 {
    if axis == 0 {
        [u, v, z]
    } else {
        [v, u, z]
    }
}

/// One try at a level: its text and what it holds.
pub(super) fn level(
    seed: u64,
    attempt: u64,
    options: &GenOptions,
) -> (String, BTreeMap<&'static str, u32>) {
    let mut rng = Rng::seeded(seed ^ (attempt << 48));
    let rooms = options.rooms.clamp(2, 64) as usize;
    let p = plan(&mut rng, rooms, options.storeys.clamp(1, 4) as i32);
    let mut b = Builder {
        rng,
        air: Vec::new(),
        world: Vec::new(),
        entities: Vec::new(),
        rooms: Vec::new(),
        made: BTreeMap::new(),
        names: 0,
    };
    for i in 0..p.rooms.len() {
        let r = b.shape(&p, i);
        b.rooms.push(r);
    }
    for &(lo, hi) in &p.links {
        if b.rooms[lo].slot[2] == b.rooms[hi].slot[2] {
            b.corridor(lo, hi);
        } else {
            b.rooms[lo].up = true;
            b.rooms[hi].down = true;
            b.stairs_or_lift(lo);
        }
    }
    for i in 0..b.rooms.len() {
        b.furnish(i);
    }
    b.pits();
    b.train();
    let storeys = b.rooms.iter().map(|r| r.slot[2]).max().unwrap_or(0) + 1;
    b.made.insert("storeys", storeys as u32);
    let text = b.finish(seed);
    (text, b.made)
}

impl Builder {
    /// The room of plan room `i`: its extents about the slot's centre, height, split, sky.
    fn shape(&mut self, p: &Plan, i: usize) -> Room {
        let [sx, sy, f] = p.rooms[i].slot;
        let off = p.side * SLOT / 2;
        let c = [sx * SLOT - off + SLOT / 2, sy * SLOT - off + SLOT / 2];
        let z = f * STOREY;
        let split = p.rooms[i]
            .split
            .then(|| (self.rng.below(2), [-1, 1][self.rng.below(2)]));
        let mut min = [0; 3];
        let mut max = [0; 3];
        for a in 0..2 {
            for sign in [-1, 1] {
                let e = if split == Some((a, sign)) {
                    self.pick(256, 320, 16)
                } else {
                    self.pick(192, 320, 16)
                };
                if sign < 0 {
                    min[a] = c[a] - e;
                } else {
                    max[a] = c[a] + e;
                }
            }
        }
        let open = p.open_above(i);
        let sky = open && self.chance(0.55);
        let h = if sky {
            self.pick(240, 384, 16)
        } else if open && self.chance(0.35) {
            self.pick(224, 336, 16)
        } else {
            self.pick(128, 176, 16)
        };
        (min[2], max[2]) = (z, z + h);
        let outer = Box3::new(min, max);
        let (parts, split) = match split {
            Some((axis, sign)) => self.split(outer, c, axis, sign),
            None => (vec![outer], None),
        };
        Room {
            slot: p.rooms[i].slot,
            c,
            z,
            outer,
            parts,
            split,
            theme: self.rng.below(THEMES.len()),
            sky,
            up: false,
            down: false,
            ground: f == 0 || p.room_at([sx, sy, f - 1]).is_none(),
        }
    }

    fn split(
        &mut self,
        outer: Box3,
        c: [i32; 2],
        axis: usize,
        sign: i32,
    ) -> (Vec<Box3>, Option<Split>) {
        let extent = if sign > 0 {
            outer.max[axis] - c[axis]
        } else {
            c[axis] - outer.min[axis]
        };
        let off = HALF + 16 + self.pick(0, extent - 256, 8);
        let lo = if sign > 0 {
            c[axis] + off
        } else {
            c[axis] - off - T
        };
        let (mut a, mut b) = (outer, outer);
        if sign > 0 {
            a.max[axis] = lo;
            b.min[axis] = lo + T;
        } else {
            a.min[axis] = lo + T;
            b.max[axis] = lo;
        }
        (vec![a, b], Some(Split { axis, sign, lo }))
    }

    /// The worldspawn (the carved solid and the world brushes), every entity, as text.
    fn finish(&mut self, seed: u64) -> String {
        let solids = carve(&self.air, T);
        let mut world = Entity::new("worldspawn")
            .with("message", &format!("Lanthorn generated level, seed {seed}"))
            .with("wad", "gfx/base.wad;gfx/start.wad")
            .with("worldtype", "2")
            .with("_sunlight", "150");
        for s in &solids {
            let brush = if s.sky {
                Brush::plain(s.b, "sky1")
            } else {
                Brush::cuboid(s.b, &self.textures(s.theme))
            };
            world = world.brush(brush);
        }
        world.brushes.append(&mut self.world);
        let r = &self.rooms[0];
        let start = Entity::at("info_player_start", [r.c[0], r.c[1], r.z + 24]).with("angle", "0");
        let mut all = vec![world, start];
        all.append(&mut self.entities);
        let header = format!(
            "Lanthorn generated level (scenes::generated), seed {seed}\n{} rooms, {} open boxes, {} solid pieces",
            self.rooms.iter().map(|r| r.parts.len()).sum::<usize>(),
            self.air.len(),
            solids.len()
        );
        write_map(&header, &all)
    }
}
