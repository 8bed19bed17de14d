//! What fills a room: its open boxes, the doorway and window through the wall that splits it,
//! angled walls across its corners, columns, lights; pits with rising stairs or liquid, and
//! a train.

use super::build::{hbox, Builder, Room, Split, HALF, T, THEMES};
use super::carve::{Air, Box3};
use super::links::Opening;
use super::map_text::{Brush, Entity};

/// What a pit holds.
#[derive(Clone, Copy)]
enum Pit {
    Rising,
    Liquid(&'static str, &'static str),
}

const WATER: Pit = Pit::Liquid("*water0", "water");
const SLIME: Pit = Pit::Liquid("*slime0", "slime");
const LAVA: Pit = Pit::Liquid("*lava1", "lava");

impl Builder {
    /// Room `i`'s open boxes, its split wall's openings, corners, columns and lights.
    pub(super) fn furnish(&mut self, i: usize) {
        let r = &self.rooms[i];
        let (parts, split, theme, sky, c) = (r.parts.clone(), r.split, r.theme, r.sky, r.c);
        for &b in &parts {
            self.air.push(Air { b, theme, sky });
        }
        if sky {
            self.note(if parts[0].size(2) >= 240 {
                "yard"
            } else {
                "sky"
            });
            self.note("sky");
        }
        if let Some(s) = split {
            self.partition(&parts[0], s, theme);
        }
        let mut cut = Vec::new();
        for (k, part) in parts.iter().enumerate() {
            // The part's face on the split wall: (axis, side) where no corner is cut.
            let keep = split.map(|s| (s.axis, if k == 0 { s.sign } else { -s.sign }));
            cut.push(self.corners(part, keep, theme));
        }
        self.columns(&parts[0], c, &cut[0], theme);
        let top = parts[0].max[2] - 24;
        for d in [[0, 0], [136, 0], [-136, 0], [0, 136], [0, -136]] {
            self.light([c[0] + d[0], c[1] + d[1], top], 300);
        }
        if let Some(p) = parts.get(1) {
            let m = p.centre();
            self.light([m[0], m[1], p.max[2] - 24], 300);
        }
    }

    /// A doorway (maybe arched) and a window through the wall splitting a room.
    fn partition(&mut self, part: &Box3, s: Split, theme: usize) {
        let (a, ca) = (s.axis, 1 - s.axis);
        let (lo, hi) = (part.min[ca] + 16, part.max[ca] - 16);
        let (z, h) = (part.min[2], part.size(2).min(176));
        let u = [s.lo, s.lo + T];
        let wd = self.pick(48, 128, 16);
        let hd = self.pick(72, 112, 8);
        let v = self.pick(lo, hi - wd, 8);
        self.open(hbox(a, u, [v, v + wd], [z, z + hd]), theme);
        if self.chance(0.6) {
            let o = Opening {
                axis: a,
                u,
                v: [v, v + wd],
                z: [z, z + hd],
            };
            self.arch(o, theme);
        }
        let ww = self.pick(32, 96, 16);
        let sill = self.pick(40, 64, 8);
        let wh = self.pick(32, 64, 8).min(h - 16 - sill);
        let left = v - 16 - ww >= lo;
        let right = v + wd + 16 + ww <= hi;
        let at = match (left, right) {
            (true, true) if self.chance(0.5) => self.pick(lo, v - 16 - ww, 8),
            (true, false) => self.pick(lo, v - 16 - ww, 8),
            (_, true) => self.pick(v + wd + 16, hi - ww, 8),
            _ => return,
        };
        self.open(hbox(a, u, [at, at + ww], [z + sill, z + sill + wh]), theme);
        self.note("window");
    }

    /// Angled walls across some corners of a part (not those on its split wall `keep`);
    /// returns the corners cut, as signs.
    fn corners(&mut self, part: &Box3, keep: Option<(usize, i32)>, theme: usize) -> Vec<[i32; 2]> {
        let mut cut = Vec::new();
        let tex = self.textures(theme);
        for sx in [-1, 1] {
            for sy in [-1, 1] {
                let on_split = keep.is_some_and(|(a, s)| [sx, sy][a] == s);
                let max = [0, 1].map(|a| (part.size(a) - 48).min(88));
                if on_split || max[0] < 32 || max[1] < 32 || !self.chance(0.5) {
                    continue;
                }
                let (lx, ly) = (self.pick(32, max[0], 8), self.pick(32, max[1], 8));
                let x = if sx > 0 { part.max[0] } else { part.min[0] };
                let y = if sy > 0 { part.max[1] } else { part.min[1] };
                let z = part.min[2];
                let base = [[x, y, z], [x - sx * lx, y, z], [x, y - sy * ly, z]];
                self.world
                    .push(Brush::prism(&base, [0, 0, part.size(2)], &tex));
                cut.push([sx, sy]);
                self.note("angled wall");
            }
        }
        cut
    }

    /// A column (detail or `func_wall`) or a crate in the quadrants of part 0 off the centre
    /// square that have room and no angled corner.
    fn columns(&mut self, part: &Box3, c: [i32; 2], cut: &[[i32; 2]], theme: usize) {
        for q in [[-1, -1], [-1, 1], [1, -1], [1, 1]] {
            let span = [0, 1].map(|a| {
                if q[a] > 0 {
                    part.max[a] - (c[a] + HALF)
                } else {
                    (c[a] - HALF) - part.min[a]
                }
            });
            if span[0] < 80 || span[1] < 80 || cut.contains(&q) || self.chance(0.4) {
                continue;
            }
            let m = [0, 1].map(|a| (c[a] + q[a] * (HALF + span[a] / 2)) / 8 * 8);
            let (z0, z1) = (part.min[2], part.max[2]);
            match self.rng.below(3) {
                0 => {
                    let (r, h) = (24, 10);
                    let oct = [
                        [r, -h],
                        [r, h],
                        [h, r],
                        [-h, r],
                        [-r, h],
                        [-r, -h],
                        [-h, -r],
                        [h, -r],
                    ];
                    let base: Vec<_> = oct.iter().map(|o| [m[0] + o[0], m[1] + o[1], z0]).collect();
                    let brush = Brush::prism(&base, [0, 0, z1 - z0], &self.textures(theme));
                    self.entities.push(Entity::new("func_detail").brush(brush));
                    self.note("detail");
                }
                1 => {
                    let b = Box3::new([m[0] - 16, m[1] - 16, z0], [m[0] + 16, m[1] + 16, z1]);
                    let e = Entity::new("func_wall").brush(Brush::plain(b, THEMES[theme][0]));
                    self.entities.push(e);
                    self.note("func_wall");
                }
                _ => {
                    let b = Box3::new([m[0] - 24, m[1] - 24, z0], [m[0] + 24, m[1] + 24, z0 + 48]);
                    let tex = super::map_text::by_facing("crate0_side", "crate0_top", "crate0_top");
                    self.entities
                        .push(Entity::new("func_detail").brush(Brush::cuboid(b, &tex)));
                    self.note("detail");
                }
            }
        }
    }
}

impl Builder {
    /// Pits in the free lanes of rooms with nothing below: rising stairs, water, slime and
    /// lava first (one each), then now and then any of them.
    pub(super) fn pits(&mut self) {
        let mut wanted = vec![Pit::Rising, WATER, SLIME, LAVA];
        let start = self.rng.below(wanted.len());
        wanted.rotate_left(start);
        for i in 0..self.rooms.len() {
            let r = &self.rooms[i];
            if !r.ground {
                continue;
            }
            let lanes: Vec<i32> = if r.up {
                vec![(r.slot[2] + 1) % 2]
            } else {
                vec![0, 1]
            };
            for (n, lane) in lanes.into_iter().enumerate() {
                let kind = if !wanted.is_empty() && (n == 0 || self.chance(0.5)) {
                    wanted.remove(0)
                } else if n == 0 && self.chance(0.5) {
                    [Pit::Rising, WATER, SLIME, LAVA][self.rng.below(4)]
                } else {
                    continue;
                };
                self.pit(i, lane, kind);
            }
        }
    }

    fn pit(&mut self, i: usize, lane: i32, kind: Pit) {
        let r = &self.rooms[i];
        let (c, z, theme, y) = (r.c, r.z, r.theme, r.lane(lane));
        let x = [c[0] - 120, c[0] + 120];
        match kind {
            Pit::Liquid(texture, name) => {
                let depth = self.pick(48, 128, 16);
                self.open(hbox(0, x, y, [z - depth, z]), theme);
                self.world
                    .push(Brush::plain(hbox(0, x, y, [z - depth, z - 8]), texture));
                self.note(name);
            }
            Pit::Rising => self.rising_stairs(r_copy(r), x, y, theme),
        }
    }

    /// Four `func_door`s rising out of a pit 64 deep (each `angle` -1, its size less `lip`)
    /// to a stair, opened by a floor button or a trigger on the strip between the lanes.
    fn rising_stairs(&mut self, (c, z): ([i32; 2], i32), x: [i32; 2], y: [i32; 2], theme: usize) {
        let depth = 64;
        self.open(hbox(0, x, y, [z - depth, z]), theme);
        let name = self.name("rise");
        let tex = super::map_text::by_facing("tech02_1", "sfloor4_1", "sfloor4_1");
        for i in 0..4 {
            let h = (depth + 16 * i + 8) / 2;
            let step = hbox(
                0,
                [x[0] + 60 * i, x[0] + 60 * (i + 1)],
                y,
                [z - depth, z - depth + h],
            );
            let e = Entity::new("func_door")
                .with("angle", "-1")
                .with("targetname", &name)
                .with("wait", "-1")
                .with("lip", "8")
                .with("speed", "60");
            self.entities.push(e.brush(Brush::cuboid(step, &tex)));
        }
        let pad = hbox(
            0,
            [c[0] + 64, c[0] + 88],
            [c[1] - 12, c[1] + 12],
            [z, z + 8],
        );
        let trigger = if self.chance(0.5) {
            Entity::new("func_button")
                .with("angle", "-2")
                .with("target", &name)
                .brush(Brush::plain(pad, "+0basebtn"))
        } else {
            let zone = hbox(
                0,
                [c[0] + 48, c[0] + 104],
                [c[1] - 16, c[1] + 16],
                [z, z + 64],
            );
            Entity::new("trigger_once")
                .with("target", &name)
                .brush(Brush::plain(zone, "trigger"))
        };
        self.entities.push(trigger);
        self.note("rising stairs");
    }

    /// A `func_train` looping over the centre square of the tallest room without a stair up,
    /// on four `path_corner`s, 56 below its ceiling.
    pub(super) fn train(&mut self) {
        let best = (0..self.rooms.len()).max_by_key(|&i| {
            let r = &self.rooms[i];
            (!r.up, r.parts[0].size(2), std::cmp::Reverse(i))
        });
        let Some(i) = best else { return };
        let r = &self.rooms[i];
        let (c, zt) = (r.c, r.parts[0].max[2] - 56);
        let first = self.name("path");
        let corners = [[-128, -128], [64, -128], [64, 64], [-128, 64]];
        let names: Vec<String> = (0..4)
            .map(|k| {
                if k == 0 {
                    first.clone()
                } else {
                    self.name("path")
                }
            })
            .collect();
        for k in 0..4 {
            let o = [c[0] + corners[k][0], c[1] + corners[k][1], zt];
            let e = Entity::at("path_corner", o)
                .with("targetname", &names[k])
                .with("target", &names[(k + 1) % 4]);
            self.entities.push(e);
        }
        let o = [c[0] - 128, c[1] - 128, zt];
        let platform = Box3::new(o, [o[0] + 64, o[1] + 64, o[2] + 16]);
        let tex = super::map_text::by_facing("plat_side1", "plat_top1", "plat_top1");
        let e = Entity::new("func_train")
            .with("target", &first)
            .with("speed", "100")
            .brush(Brush::cuboid(platform, &tex));
        self.entities.push(e);
        self.note("train");
    }
}

fn r_copy(r: &Room) -> ([i32; 2], i32) {
    (r.c, r.z)
}
