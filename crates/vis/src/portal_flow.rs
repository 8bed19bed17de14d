//! Thief's portal flow (seed 000): breadth-first from the eye's cell through portals, each
//! portal bounded on screen by an octagon and intersected with the octagon of the cell it leads
//! from; the result is unioned into the cell behind it, which is visited again when its octagon
//! grew. Per-frame buffers are reused: no allocation once warm.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use glam::{Mat4, Vec3, Vec4};

use super::front_to_back::FrontToBack;
use super::screen_octagon::portal_octagon;
use super::{VisibleCell, VisibleSet};
use lanthorn_geom::{Camera, Octagon, Plane};
use lanthorn_level::{portal_flags, Level};

#[path = "water_reflection.rs"]
mod water_reflection;

/// What one traversal did.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowStats {
    /// Cells the flow reached.
    pub cells_reached: u32,
    /// Portals tested against the octagon of the cell they lead from.
    pub portals_tested: u32,
    /// Tested portals the flow went through (or opened a view through).
    pub portals_passed: u32,
    /// Portals in view the flow stopped at because a liquid covers them (`liquid_cover`).
    pub portals_covered: u32,
    /// Cells processed again because their octagon grew.
    pub revisits: u32,
    /// Cells whose re-visit bound was hit (octagon widened to the full screen).
    pub fallbacks: u32,
    /// Microseconds the traversal took.
    pub micros: f64,
}

/// Why the flow stopped at a portal, or that it went through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortalOutcome {
    /// The flow went through (for a mirror or teleporter: a view was opened).
    Passed,
    /// The eye is on the portal's far side.
    BackFacing,
    /// Its screen octagon does not meet the octagon of the cell it leads from.
    OutsideOctagon,
    /// Nothing of it is in front of the near plane.
    BeyondNear,
    /// A mirror or teleporter the flow's view limits (`MAX_VIEWS`, `MAX_VIEW_DEPTH`) left shut.
    ViewLimit,
    /// Closed: a shut door, or flagged `CLOSED` in the level.
    Closed,
    /// A liquid the cell lists covers it from the eye's side (`liquid_cover`): what lies
    /// beyond shows only through the liquid, which hides it.
    Covered,
    /// The cell beyond is not in the level's PVS from the eye (`PortalFlow::pvs_bound`).
    OutsidePvs,
}

/// One portal test of a traced flow (`PortalFlow::trace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortalTest {
    /// The portal tested (`Level::portals` index).
    pub portal: u32,
    /// The view it was tested in (0: the camera).
    pub view: u32,
    /// The cell it leads to.
    pub target: u32,
    /// What the test found.
    pub outcome: PortalOutcome,
}

/// A portal as the flow reads it from one of its cells: packed, in that cell's list, its
/// vertices in one shared array. A frame finds these cold (the rasterizer's threads ran since
/// the last), and a cell's list read in order costs a few misses where each portal's own
/// entry cost one a test.
#[derive(Clone, Copy, Debug)]
struct FlowPortal {
    plane: Plane,
    /// The cell on its other side.
    beyond: u32,
    /// The cell it is listed in is its front (else its back).
    from_front: bool,
    /// The liquid surfaces of the cell it is listed in cover it (`liquid_cover`).
    covered: bool,
    first: u32,
    count: u32,
    /// Index into `transforms` for mirror/teleporter portals.
    transform: Option<u32>,
    /// `portal_flags`, as the level had them when the flow was made (reading one field of the
    /// level's large portals cost a cache miss per portal tested).
    flags: u32,
    /// The depth of the BSP node parting its two cells (`FrontToBack::parting_depth`).
    parting: u32,
    /// Its index in `Level::portals`.
    portal: u32,
}

/// A view to run after the current one: through a transformed portal.
#[derive(Clone, Copy, Debug)]
struct PendingView {
    view_proj: Mat4,
    eye: Vec3,
    cell: u32,
    octagon: Octagon,
    clip_plane: Vec4,
    mirrored: bool,
    depth: u32,
    /// The view it is seen in and the portal it is seen through.
    parent: u32,
    portal: u32,
    /// A water surface's reflection.
    reflection: bool,
}

/// Where a view through a mirror or teleporter starts: the cell beyond, seen through
/// `octagon`, across `portal` of the view `parent`.
struct Beyond {
    cell: u32,
    octagon: Octagon,
    portal: u32,
    parent: u32,
}

impl PendingView {
    /// The view through the portal on `plane` with transform `m`, seen from this one; it
    /// keeps what lies beyond the portal plane as seen from the eye.
    fn through(&self, plane: &Plane, m: Mat4, beyond: Beyond) -> PendingView {
        let d = plane.distance(self.eye);
        let s = if d > 0.0 { -1.0 } else { 1.0 };
        let plane = Vec4::new(plane.normal.x, plane.normal.y, plane.normal.z, -plane.dist) * s;
        PendingView {
            view_proj: self.view_proj * m,
            eye: m.inverse().transform_point3(self.eye),
            cell: beyond.cell,
            octagon: beyond.octagon,
            clip_plane: m.transpose() * plane,
            mirrored: self.mirrored ^ (m.determinant() < 0.0),
            depth: self.depth + 1,
            parent: beyond.parent,
            portal: beyond.portal,
            reflection: false,
        }
    }
}

/// Views through mirrors and teleporters per frame, nested at most this deep.
pub const MAX_VIEWS: usize = 8;
/// Views seen through views are nested at most this deep (a mirror in a mirror).
pub const MAX_VIEW_DEPTH: u32 = 2;

/// Thief's portal flow: from the eye's cell through the portals whose screen octagons meet
/// the octagon of the cell they lead from, nearest first; each reached cell gets the union of
/// the octagons it was entered through. Keeps its buffers between frames.
pub struct PortalFlow {
    /// The level's portal count (the level the flow was made for).
    level_portals: usize,
    transforms: Vec<Mat4>,
    vertices: Vec<Vec3>,
    /// Portals of cell `c`, as seen from it: `cell_portals[cell_first[c]..cell_first[c + 1]]`.
    cell_first: Vec<u32>,
    cell_portals: Vec<FlowPortal>,
    octagon: Vec<Octagon>,
    /// Frame stamp per cell: the octagon is valid when it equals `frame`.
    stamp: Vec<u32>,
    visits: Vec<u16>,
    queued: Vec<bool>,
    frame: u32,
    /// Cells to process, front to back (`front_to_back`): a cell is expanded after the cells
    /// that feed it, so its octagon is complete and re-visits are rare.
    queue: BinaryHeap<(Reverse<u128>, u32)>,
    front_to_back: FrontToBack,
    /// The eye of the view being run.
    eye: Vec3,
    /// The view's cells as they are first expanded: front to back, the order they are drawn
    /// in (in the order they were reached, a cell could come after one it covers: overdraw at
    /// e1m4's first intermission 1.02 instead of 1.10).
    order: Vec<u32>,
    clip_in: Vec<Vec4>,
    clip_out: Vec<Vec4>,
    /// Visits of one cell before its octagon is widened to the full screen.
    pub max_visits: u16,
    /// What the last traversal did.
    pub stats: FlowStats,
    /// Portals crossed from the eye to reach each cell (valid where `stamp` is this frame).
    depth: Vec<u16>,
    /// When `Some`, every portal test of the last run, for the overlays (off by default: the
    /// flow then records nothing).
    pub trace: Option<Vec<PortalTest>>,
    /// Portals passed and covered this run (into `stats`).
    passed: u32,
    covered: u32,
    /// This run went through a portal a liquid covers (within the near plane's reach): cells
    /// under a liquid are in its set (`VisibleSet::nothing_under_liquids`).
    opened_under_liquid: bool,
    /// Portals shut this frame by doors at rest (`vis::movers`), besides those the level
    /// marked `CLOSED` when the flow was made; empty when nothing moves.
    pub shut: Vec<bool>,
    /// Water reflects (`FrameSettings::reflections`): a horizontal water surface the camera
    /// sees from the air opens a view of the air mirrored in its plane, one view per plane,
    /// and the flow does not go under it (the water is opaque: what it shows is its own
    /// colour blended with the reflection, not what lies below).
    pub reflect_water: bool,
    /// Where each water reflection of this frame starts: (its index in the pending views, an
    /// air cell over the water, the octagon of its water surface). The reflected eye lies
    /// under the water, so its view enters the air through every water surface at once.
    water_seeds: Vec<(usize, u32, Octagon)>,
    /// The seeds of the view being run besides its own cell.
    view_seeds: Vec<(u32, Octagon)>,
    /// Per cell, whether the level's PVS lets the camera's view reach it (`Culler` sets it
    /// from GLQuake's marked cells each frame where the level has a PVS; empty: no bound).
    /// `vis` clips each portal sequence exactly, where octagons only bound it, so the flow
    /// then never sends more than the PVS.
    pub pvs_bound: Vec<bool>,
}

impl PortalFlow {
    /// Packs the level's portals for the flow; make one per level.
    pub fn new(level: &Level) -> PortalFlow {
        let n = level.cells.len();
        let mut vertices = Vec::new();
        let mut transforms = Vec::new();
        let front_to_back = FrontToBack::new(&level.bsp, n);
        let covered = crate::liquid_cover::covered_sides(level);
        // Each portal as its front cell sees it (its back cell's differs in two fields).
        let portals: Vec<FlowPortal> = level
            .portals
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let first = vertices.len() as u32;
                vertices.extend_from_slice(&p.polygon);
                let transform = p.transform.map(|m| {
                    transforms.push(Mat4::from_cols_array(&m));
                    transforms.len() as u32 - 1
                });
                FlowPortal {
                    transform,
                    plane: p.plane,
                    beyond: p.back,
                    from_front: true,
                    covered: covered[i][0],
                    first,
                    count: p.polygon.len() as u32,
                    flags: p.flags,
                    parting: front_to_back.parting_depth(p.front, p.back),
                    portal: i as u32,
                }
            })
            .collect();
        let mut cell_first = Vec::with_capacity(n + 1);
        let mut cell_portals = Vec::new();
        for (ci, c) in level.cells.iter().enumerate() {
            cell_first.push(cell_portals.len() as u32);
            let listed = c.portals.iter().filter_map(|&pid| {
                let (p, seen) = (&level.portals.get(pid as usize)?, portals[pid as usize]);
                Some(match p.front == ci as u32 {
                    true => seen,
                    false => FlowPortal {
                        beyond: p.front,
                        from_front: false,
                        covered: covered[pid as usize][1],
                        ..seen
                    },
                })
            });
            cell_portals.extend(listed);
        }
        cell_first.push(cell_portals.len() as u32);
        PortalFlow {
            level_portals: level.portals.len(),
            transforms,
            vertices,
            cell_first,
            cell_portals,
            octagon: vec![Octagon::EMPTY; n],
            stamp: vec![0; n],
            visits: vec![0; n],
            queued: vec![false; n],
            frame: 0,
            queue: BinaryHeap::new(),
            front_to_back,
            eye: Vec3::ZERO,
            order: Vec::new(),
            clip_in: Vec::with_capacity(16),
            clip_out: Vec::with_capacity(16),
            max_visits: 8,
            stats: FlowStats::default(),
            depth: vec![0; n],
            trace: None,
            passed: 0,
            covered: 0,
            opened_under_liquid: false,
            shut: Vec::new(),
            reflect_water: false,
            water_seeds: Vec::new(),
            view_seeds: Vec::new(),
            pvs_bound: Vec::new(),
        }
    }

    fn record(&mut self, portal: u32, view: u32, target: u32, outcome: PortalOutcome) {
        if outcome == PortalOutcome::Passed {
            self.passed += 1;
        }
        if outcome == PortalOutcome::Covered {
            self.covered += 1;
        }
        if let Some(t) = &mut self.trace {
            t.push(PortalTest {
                portal,
                view,
                target,
                outcome,
            });
        }
    }

    /// Fills `out.cells` with the cells seen from `camera` (eye in `eye_cell`), in the order they
    /// were expanded (the BSP's front to back from the eye: no cell covers one before it), each
    /// with its octagon.
    /// With no eye cell (eye in solid), every cell whose box meets the frustum is drawn.
    pub fn run(
        &mut self,
        level: &Level,
        camera: &Camera,
        eye_cell: Option<u32>,
        out: &mut VisibleSet,
    ) {
        let t = Instant::now();
        if self.octagon.len() != level.cells.len() || self.level_portals != level.portals.len() {
            *self = PortalFlow {
                max_visits: self.max_visits,
                trace: self.trace.take(),
                reflect_water: self.reflect_water,
                ..PortalFlow::new(level)
            };
        }
        if let Some(t) = &mut self.trace {
            t.clear();
        }
        self.passed = 0;
        self.covered = 0;
        self.opened_under_liquid = false;
        out.nothing_under_liquids = false;
        out.cells.clear();
        out.flow_depth.clear();
        let mut stats = FlowStats::default();
        let Some(eye_cell) = eye_cell.filter(|c| (*c as usize) < level.cells.len()) else {
            let planes = camera.frustum_planes();
            for (i, c) in level.cells.iter().enumerate() {
                let visible = planes.iter().all(|p| {
                    let corner = Vec3::select(p.normal.cmpge(Vec3::ZERO), c.aabb.max, c.aabb.min);
                    p.distance(corner) >= 0.0
                });
                if visible {
                    out.cells.push(VisibleCell {
                        cell: i as u32,
                        octagon: Octagon::FULL,
                        view: 0,
                    });
                }
            }
            stats.cells_reached = out.cells.len() as u32;
            stats.micros = t.elapsed().as_secs_f64() * 1e6;
            self.stats = stats;
            return;
        };

        out.views.clear();
        self.water_seeds.clear();
        self.view_seeds.clear();
        let mut pending: Vec<PendingView> = Vec::new();
        let main = PendingView {
            view_proj: camera.view_proj(),
            eye: camera.position,
            cell: eye_cell,
            octagon: Octagon::FULL,
            clip_plane: Vec4::W,
            mirrored: false,
            depth: 0,
            parent: 0,
            portal: u32::MAX,
            reflection: false,
        };
        let near_zone = camera.near * 2.0;
        self.run_view(level, &main, (0, near_zone), &mut stats, &mut pending, out);
        // Views through mirrors and teleporters, breadth-first, up to MAX_VIEWS.
        let mut next = 0;
        while next < pending.len() && out.views.len() + 1 < MAX_VIEWS {
            let v = pending[next];
            next += 1;
            // A water reflection starts at every air cell over its water too.
            let seeds = self.water_seeds.iter().filter(|s| s.0 == next - 1);
            self.view_seeds.clear();
            self.view_seeds.extend(seeds.map(|&(_, c, o)| (c, o)));
            out.views.push(super::View {
                view_proj: v.view_proj,
                eye: v.eye,
                clip_plane: v.clip_plane,
                mirrored: v.mirrored,
                parent: v.parent,
                portal: v.portal,
                reflection: v.reflection,
            });
            let index = out.views.len() as u32;
            self.run_view(level, &v, (index, near_zone), &mut stats, &mut pending, out);
        }
        stats.micros = t.elapsed().as_secs_f64() * 1e6;
        stats.portals_passed = self.passed;
        stats.portals_covered = self.covered;
        self.stats = stats;
        out.nothing_under_liquids = !self.opened_under_liquid;
    }

    /// One view's breadth-first flow (nearest first), appending its cells to `out` and the
    /// transformed portals it sees to `pending`.
    fn run_view(
        &mut self,
        level: &Level,
        view: &PendingView,
        (index, near_zone): (u32, f32),
        stats: &mut FlowStats,
        pending: &mut Vec<PendingView>,
        out: &mut VisibleSet,
    ) {
        self.start_view(view);
        let view_proj = view.view_proj;
        let eye = view.eye;

        while let Some((Reverse(key), cell)) = self.queue.pop() {
            self.expand(cell, stats);
            let ci = cell as usize;
            let parent = self.octagon[ci];
            let (a, b) = (
                self.cell_first[ci] as usize,
                self.cell_first[ci + 1] as usize,
            );
            for k in a..b {
                let portal = self.cell_portals[k];
                // Closed in the level, or by a door (`shut`, read every frame: doors open and
                // close live).
                let pid = portal.portal;
                let flags = portal.flags;
                let shut = self.shut.get(pid as usize).copied().unwrap_or(false);
                if portal.count == 0 {
                    continue;
                }
                let target = portal.beyond;
                if flags & portal_flags::CLOSED != 0 || shut {
                    // Traced where it faces the eye, so the portals overlay shows the door.
                    let d = portal.plane.distance(eye);
                    if portal.from_front == (d > 0.0) {
                        self.record(pid, index, target, PortalOutcome::Closed);
                    }
                    continue;
                }
                if target == cell && portal.transform.is_none() {
                    continue;
                }
                stats.portals_tested += 1;
                let d = portal.plane.distance(eye);
                let tested = (target, index);
                let Some(octagon) =
                    self.seen_through(&portal, tested, (d, near_zone), parent, &view_proj)
                else {
                    continue;
                };
                if octagon.is_empty() {
                    self.record(pid, index, target, PortalOutcome::OutsideOctagon);
                    continue;
                }
                if let Some(ti) = portal.transform {
                    // A mirror or teleporter: the space beyond is seen in a new view.
                    let opens = view.depth < MAX_VIEW_DEPTH && d.abs() >= near_zone;
                    let outcome = if opens {
                        PortalOutcome::Passed
                    } else {
                        PortalOutcome::ViewLimit
                    };
                    self.record(pid, index, target, outcome);
                    if opens {
                        let m = self.transforms[ti as usize];
                        let beyond = Beyond {
                            cell: target,
                            octagon,
                            portal: pid,
                            parent: index,
                        };
                        pending.push(view.through(&portal.plane, m, beyond));
                    }
                    continue;
                }
                let beyond = Beyond {
                    cell,
                    octagon,
                    portal: pid,
                    parent: index,
                };
                let level_surface = portal.plane.normal.z.abs() > 0.99;
                let clear = d.abs() >= near_zone;
                if level_surface && self.reflects(level, (cell, target), flags, view, clear) {
                    self.record(pid, index, target, PortalOutcome::Passed);
                    self.open_reflection(view, &portal.plane, beyond, pending);
                    continue;
                }
                // Within the near zone the near plane may cut the liquid open.
                if portal.covered && clear {
                    self.record(pid, index, target, PortalOutcome::Covered);
                    continue;
                }
                if index == 0 && self.pvs_bound.get(target as usize) == Some(&false) {
                    self.record(pid, index, target, PortalOutcome::OutsidePvs);
                    continue;
                }
                self.opened_under_liquid |= portal.covered;
                self.record(pid, index, target, PortalOutcome::Passed);
                self.flow_into(target, octagon, (cell, key, portal.parting), stats);
            }
        }
        out.cells.extend(self.order.iter().map(|&c| VisibleCell {
            cell: c,
            octagon: self.octagon[c as usize],
            view: index,
        }));
        out.flow_depth
            .extend(self.order.iter().map(|&c| self.depth[c as usize]));
        stats.cells_reached += self.order.len() as u32;
    }

    /// `cell` is taken from the queue to be expanded: the first time, it joins the view's
    /// order (front to back); again, it counts as a revisit.
    fn expand(&mut self, cell: u32, stats: &mut FlowStats) {
        let ci = cell as usize;
        self.queued[ci] = false;
        self.visits[ci] += 1;
        if self.visits[ci] > 1 {
            stats.revisits += 1;
        } else {
            self.order.push(cell);
        }
    }

    /// The screen octagon through which the view sees `portal` from the cell it is listed in
    /// (`tested`: the cell beyond, the view), `d` from the eye, in that cell's
    /// octagon `parent`; `None` (recorded) where it faces away or lies wholly beyond the near
    /// plane.
    fn seen_through(
        &mut self,
        portal: &FlowPortal,
        (target, index): (u32, u32),
        (d, near_zone): (f32, f32),
        parent: Octagon,
        view_proj: &Mat4,
    ) -> Option<Octagon> {
        if d.abs() < near_zone {
            // The eye is (almost) in the portal: it may cover the whole parent view.
            return Some(parent);
        }
        // Back-face test: the eye must be on this cell's side of the portal. A mirror or
        // teleporter is one-sided: seen from its front cell only.
        let on_our_side = if portal.from_front {
            d > 0.0
        } else {
            d < 0.0 && portal.transform.is_none()
        };
        if !on_our_side {
            self.record(portal.portal, index, target, PortalOutcome::BackFacing);
            return None;
        }
        let Some(o) = self.project(view_proj, portal) else {
            self.record(portal.portal, index, target, PortalOutcome::BeyondNear);
            return None;
        };
        Some(o.intersect(&parent))
    }

    /// A new frame stamp (cells not stamped with it are unreached) and the queue holding only
    /// the view's eye cell.
    fn start_view(&mut self, view: &PendingView) {
        self.frame += 1;
        // Frame numbers stay below 2³¹ (`FrontToBack::key` keeps one beside a bit).
        if self.frame >= 1 << 31 {
            self.stamp.fill(0);
            self.front_to_back.reset();
            self.frame = 1;
        }
        self.queue.clear();
        self.eye = view.eye;
        self.order.clear();
        self.seed(view.cell, view.octagon);
        // By index, then cleared: the buffer is kept for the next view's seeds.
        for i in 0..self.view_seeds.len() {
            let (cell, octagon) = self.view_seeds[i];
            self.seed(cell, octagon);
        }
        self.view_seeds.clear();
    }

    /// Starts the view's flow at `cell` seen through `octagon` too (or widens it there).
    fn seed(&mut self, cell: u32, octagon: Octagon) {
        let i = cell as usize;
        if self.stamp[i] == self.frame {
            self.octagon[i] = self.octagon[i].union(&octagon);
        } else {
            self.reach(cell, octagon);
        }
        self.depth[i] = 0;
        if !self.queued[i] {
            let key = self.front_to_back.key(cell, self.eye, self.frame);
            self.queue.push((Reverse(key), cell));
            self.queued[i] = true;
        }
    }

    /// The flow passes a portal of `from` (its key, the portal's parting depth) into `target`
    /// seen through `octagon`: `target` is reached, or its octagon grows; either way it is
    /// queued again unless already queued.
    fn flow_into(
        &mut self,
        target: u32,
        octagon: Octagon,
        (from, from_key, parting): (u32, u128, u32),
        stats: &mut FlowStats,
    ) {
        let ti = target as usize;
        let grew = if self.stamp[ti] != self.frame {
            self.reach(target, octagon);
            self.depth[ti] = self.depth[from as usize].saturating_add(1);
            true
        } else {
            let old = self.octagon[ti];
            let new = old.union(&octagon);
            if new != old {
                self.octagon[ti] = new;
                true
            } else {
                false
            }
        };
        if grew && !self.queued[ti] {
            if self.visits[ti] >= self.max_visits && self.octagon[ti] != Octagon::FULL {
                // Conservative: stop refining, widen to the whole screen (it cannot grow
                // again). A cell that just grew to the whole screen by a union is expanded
                // once more too, or what lies past it is cut short.
                stats.fallbacks += 1;
                self.octagon[ti] = Octagon::FULL;
            }
            self.queued[ti] = true;
            let near = (from_key, parting);
            let key = (self.front_to_back).key_from(target, near, self.eye, self.frame);
            self.queue.push((Reverse(key), target));
        }
    }

    fn reach(&mut self, cell: u32, octagon: Octagon) {
        let i = cell as usize;
        self.stamp[i] = self.frame;
        self.octagon[i] = octagon;
        self.visits[i] = 0;
        self.queued[i] = false;
    }

    /// The screen octagon of `portal`, clipped to the near plane; `None` when nothing of it
    /// is in front of the eye. A portal faces the eye from one of its cells, so it is projected
    /// once a view but where that cell is expanded again.
    fn project(&mut self, view_proj: &Mat4, portal: &FlowPortal) -> Option<Octagon> {
        let (first, count) = (portal.first as usize, portal.count as usize);
        let polygon = &self.vertices[first..first + count];
        portal_octagon(view_proj, polygon, (&mut self.clip_in, &mut self.clip_out))
    }
}
