//! What joins rooms: corridors (straight or with two bends) whose mouths are doorways of
//! their own size (some with a door, a secret door or an arch), and stairs or lifts up
//! through a hole in the floor above.

use super::build::{hbox, hpoint, Builder, HALF, STOREY};
use super::carve::P3;
use super::map_text::{Brush, Entity};

/// Corridor widths and heights to pick from.
const WIDTHS: [i32; 5] = [48, 64, 80, 96, 128];
const HEIGHTS: [i32; 4] = [80, 96, 112, 128];

impl Builder {
    /// A corridor between rooms side by side (`a` on the lower side).
    pub(super) fn corridor(&mut self, a: usize, b: usize) {
        let axis = if self.rooms[a].slot[0] != self.rooms[b].slot[0] {
            0
        } else {
            1
        };
        let v_axis = 1 - axis;
        let (ra, rb) = (&self.rooms[a], &self.rooms[b]);
        let (ua, ub, z, c) = (ra.outer.max[axis], rb.outer.min[axis], ra.z, ra.c[v_axis]);
        let themes = (ra.theme, rb.theme);
        let theme = if self.chance(0.5) { themes.0 } else { themes.1 };
        let w = WIDTHS[self.rng.below(WIDTHS.len())];
        let h = HEIGHTS[self.rng.below(HEIGHTS.len())];
        let v1 = self.pick(c - HALF + 32, c + HALF - 32 - w, 8);
        let v2 = if self.chance(0.4) {
            v1
        } else {
            self.pick(c - HALF + 32, c + HALF - 32 - w, 8)
        };
        let (da, db) = (self.pick(16, 32, 8), self.pick(16, 32, 8));
        let (u0, u1) = (ua + da, ub - db);
        let zr = [z, z + h];
        if v1 == v2 {
            self.open(hbox(axis, [u0, u1], [v1, v1 + w], zr), theme);
            self.light(hpoint(axis, (u0 + u1) / 2, v1 + w / 2, z + h - 16), 200);
        } else {
            let um = self.pick(u0 + 32, u1 - 32 - w, 8);
            let (vl, vh) = (v1.min(v2), v1.max(v2) + w);
            self.open(hbox(axis, [u0, um + w], [v1, v1 + w], zr), theme);
            self.open(hbox(axis, [um, um + w], [vl, vh], zr), theme);
            self.open(hbox(axis, [um, u1], [v2, v2 + w], zr), theme);
            self.light(hpoint(axis, um + w / 2, (vl + vh) / 2, z + h - 16), 200);
            self.note("bend");
        }
        for (u, depth, v, room) in [(ua, da, v1, a), (u1, db, v2, b)] {
            let m = Mouth {
                axis,
                u,
                depth,
                v,
                w,
                h,
                z,
            };
            self.mouth(m, theme, room);
        }
    }

    /// A doorway `depth` long from `u` on: narrower and lower than its corridor at times,
    /// with a door, a secret door or an arch now and then.
    fn mouth(&mut self, m: Mouth, theme: usize, room: usize) {
        let wd = (m.w - 16 * self.rng.below(3) as i32).max(48);
        let hd = (m.h - 16 * self.rng.below(3) as i32).max(72);
        let vd = m.v + (m.w - wd) / 16 * 8;
        let b = hbox(m.axis, [m.u, m.u + m.depth], [vd, vd + wd], [m.z, m.z + hd]);
        self.open(b, theme);
        if wd != m.w || hd != m.h {
            self.note("narrow doorway");
        }
        let roll = self.rng.unit_f32();
        if roll < 0.12 {
            let wall = super::build::THEMES[self.rooms[room].theme][0];
            let e =
                Entity::new("func_door_secret").with("angle", if m.axis == 0 { "90" } else { "0" });
            self.entities.push(e.brush(Brush::plain(b, wall)));
            self.note("secret door");
        } else if roll < 0.3 {
            let e = Entity::new("func_door")
                .with("angle", "-1")
                .with("speed", "120")
                .with("wait", "3");
            self.entities.push(e.brush(Brush::plain(b, "edoor01_1")));
            self.note("door");
        } else if roll < 0.6 && wd >= 64 {
            let opening = Opening {
                axis: m.axis,
                u: [m.u, m.u + m.depth],
                v: [vd, vd + wd],
                z: [m.z, m.z + hd],
            };
            self.arch(opening, theme);
        }
    }

    /// An arch in the top corners of an opening: one to three facets a side, or two steps.
    pub(super) fn arch(&mut self, o: Opening, theme: usize) {
        let r = ((o.v[1] - o.v[0]) / 2).min(48);
        let facets = self.rng.below(4);
        let tex = self.textures(theme);
        for side in [0, 1] {
            // Across the opening from its corner: +1 from the low side, -1 from the high one.
            let (v0, dir) = if side == 0 { (o.v[0], 1) } else { (o.v[1], -1) };
            let corner = (v0, o.z[1]);
            let point = |dv: i32, dz: i32| (v0 + dir * dv, o.z[1] - dz);
            let mut tris: Vec<[(i32, i32); 3]> = Vec::new();
            if facets == 0 {
                // Stepped: two boxes a side.
                for (dv, dz) in [(r / 3, 2 * r / 3), (2 * r / 3, r / 3)] {
                    let (a, b) = (v0.min(v0 + dir * dv), v0.max(v0 + dir * dv));
                    let step = hbox(o.axis, o.u, [a, b], [o.z[1] - dz, o.z[1]]);
                    self.world.push(Brush::cuboid(step, &tex));
                }
            } else {
                let arc = |k: usize| {
                    let t = std::f64::consts::FRAC_PI_2 * k as f64 / facets as f64;
                    let (s, c) = t.sin_cos();
                    point(
                        (f64::from(r) * (1.0 - c)).round() as i32,
                        (f64::from(r) * (1.0 - s)).round() as i32,
                    )
                };
                for k in 0..facets {
                    tris.push([corner, arc(k), arc(k + 1)]);
                }
            }
            for t in tris {
                let area =
                    (t[1].0 - t[0].0) * (t[2].1 - t[0].1) - (t[2].0 - t[0].0) * (t[1].1 - t[0].1);
                if area == 0 {
                    continue;
                }
                let base: Vec<P3> = t
                    .iter()
                    .map(|&(v, z)| hpoint(o.axis, o.u[0], v, z))
                    .collect();
                let dir = hpoint(o.axis, o.u[1] - o.u[0], 0, 0);
                self.world.push(Brush::prism(&base, dir, &tex));
            }
        }
        self.note("arch");
    }

    /// A stair (12 steps of 16) or a lift up from room `lo` to the room above, in lane
    /// `storey % 2`, through a hole in the floor above.
    pub(super) fn stairs_or_lift(&mut self, lo: usize) {
        let r = &self.rooms[lo];
        let (c, z, theme) = (r.c, r.z, r.theme);
        let lane = r.lane(r.slot[2] % 2);
        if self.chance(0.6) {
            let width = self.pick(64, 96, 16);
            let y0 = lane[0] + (96 - width) / 16 * 8;
            let dir = [-1, 1][self.rng.below(2)];
            let start = c[0] - 120;
            let tex = self.textures(theme);
            for i in 0..12 {
                let x = if dir > 0 {
                    start + 20 * i
                } else {
                    c[0] + 100 - 20 * i
                };
                let step = hbox(0, [x, x + 20], [y0, y0 + width], [z, z + 16 * (i + 1)]);
                self.world.push(Brush::cuboid(step, &tex));
            }
            self.open(
                hbox(
                    0,
                    [c[0] - 120, c[0] + 120],
                    [y0, y0 + width],
                    [z, z + STOREY],
                ),
                theme,
            );
            self.note("stairs");
        } else {
            let x = c[0] - 40 + self.pick(-64, 64, 8);
            let shaft = hbox(0, [x, x + 80], [lane[0] + 8, lane[0] + 88], [z, z + STOREY]);
            self.open(shaft, theme);
            let side = super::map_text::by_facing("plat_side1", "plat_top1", "plat_top1");
            let e = Entity::new("func_plat").with("speed", "150");
            self.entities.push(e.brush(Brush::cuboid(shaft, &side)));
            self.note("lift");
        }
    }
}

/// A corridor's end: its doorway goes `depth` along `axis` from `u`.
struct Mouth {
    axis: usize,
    u: i32,
    depth: i32,
    v: i32,
    w: i32,
    h: i32,
    z: i32,
}

/// An opening through a wall along `axis`.
pub(super) struct Opening {
    pub(super) axis: usize,
    pub(super) u: [i32; 2],
    pub(super) v: [i32; 2],
    pub(super) z: [i32; 2],
}
