//! The floor plan: slots on a grid of storeys, grown from the first one by random steps
//! (mostly sideways, some up or down), each step a link the builder turns into a corridor
//! (sideways) or a stair or lift (up); a few extra sideways links make loops.

use std::collections::BTreeMap;

use lanthorn_geom::rng::XorShift as Rng;

/// A slot: `[x, y, storey]`.
pub(super) type Slot = [i32; 3];

/// One room's slot, and whether a wall with a doorway and a window splits it in two.
pub(super) struct SlotRoom {
    pub(super) slot: Slot,
    pub(super) split: bool,
}

pub(super) struct Plan {
    pub(super) rooms: Vec<SlotRoom>,
    /// Pairs of neighbouring rooms, the lower slot first.
    pub(super) links: Vec<(usize, usize)>,
    pub(super) at: BTreeMap<Slot, usize>,
    /// The grid's side in slots.
    pub(super) side: i32,
}

impl Plan {
    pub(super) fn room_at(&self, s: Slot) -> Option<usize> {
        self.at.get(&s).copied()
    }

    /// Whether no room stands anywhere above the room's slot.
    pub(super) fn open_above(&self, i: usize) -> bool {
        let [x, y, f] = self.rooms[i].slot;
        !self.at.keys().any(|s| s[0] == x && s[1] == y && s[2] > f)
    }
}

const STEPS: [Slot; 6] = [
    [1, 0, 0],
    [-1, 0, 0],
    [0, 1, 0],
    [0, -1, 0],
    [0, 0, 1],
    [0, 0, -1],
];

/// A plan of about `rooms` rooms (a split slot is two) on up to `storeys` storeys.
pub(super) fn plan(rng: &mut Rng, rooms: usize, storeys: i32) -> Plan {
    let slots_wanted = (rooms as f64 / 1.35).ceil() as usize;
    let side = ((slots_wanted as f64 / f64::from(storeys.max(1)))
        .sqrt()
        .ceil() as i32
        + 1)
    .max(2);
    let mut p = Plan {
        rooms: Vec::new(),
        links: Vec::new(),
        at: BTreeMap::new(),
        side,
    };
    let mut count = 0;
    add_room(&mut p, rng, [0, 0, 0], &mut count);
    let mut tries = 0;
    while count < rooms && tries < 10_000 {
        tries += 1;
        let from = rng.below(p.rooms.len());
        // Sideways three times as often as up or down.
        let step = STEPS[[0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5][rng.below(15)]];
        let s = p.rooms[from].slot;
        let to = [s[0] + step[0], s[1] + step[1], s[2] + step[2]];
        let inside = (0..2).all(|a| (0..side).contains(&to[a])) && (0..storeys).contains(&to[2]);
        if !inside || p.at.contains_key(&to) {
            continue;
        }
        let new = add_room(&mut p, rng, to, &mut count);
        p.links.push(ordered(&p, from, new));
    }
    extra_links(&mut p, rng);
    p
}

fn add_room(p: &mut Plan, rng: &mut Rng, slot: Slot, count: &mut usize) -> usize {
    let split = rng.unit_f32() < 0.4;
    *count += 1 + usize::from(split);
    p.rooms.push(SlotRoom { slot, split });
    p.at.insert(slot, p.rooms.len() - 1);
    p.rooms.len() - 1
}

/// The pair with the lower slot (by storey, then x, then y) first.
fn ordered(p: &Plan, a: usize, b: usize) -> (usize, usize) {
    let (sa, sb) = (p.rooms[a].slot, p.rooms[b].slot);
    if (sa[2], sa[0], sa[1]) <= (sb[2], sb[0], sb[1]) {
        (a, b)
    } else {
        (b, a)
    }
}

/// Loops: some neighbours side by side that the growth did not link.
fn extra_links(p: &mut Plan, rng: &mut Rng) {
    for a in 0..p.rooms.len() {
        let s = p.rooms[a].slot;
        for step in &STEPS[..4] {
            let t = [s[0] + step[0], s[1] + step[1], s[2]];
            let Some(b) = p.room_at(t) else { continue };
            let pair = ordered(p, a, b);
            if pair.0 == a && !p.links.contains(&pair) && rng.unit_f32() < 0.3 {
                p.links.push(pair);
            }
        }
    }
}
