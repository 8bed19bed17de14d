//! One interface over the culling methods the CLI offers: `--cull portal|pvs|frustum|none`.

use std::time::Instant;

use glam::Vec3;

use super::objects::ObjectLinks;
use super::portal_views::frustum_planes;
use super::{EyeTracker, PortalFlow, VisibleCell, VisibleObject, VisibleSet};
use lanthorn_geom::{Aabb, Camera, Octagon, Plane};
use lanthorn_level::{cell_flags, Level};

/// How a frame finds what it draws (`--cull`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CullMode {
    /// Thief's portal flow with per-cell octagons.
    #[default]
    Portal,
    /// GLQuake's: the leaves in the eye leaf's precomputed PVS (imported BSPs) whose boxes
    /// meet the frustum; their surfaces drawn once each, facing the eye.
    Pvs,
    /// The same leaves, every surface of each drawn (the whole-cell PVS baseline).
    PvsCells,
    /// Cell boxes against the frustum.
    Frustum,
    /// Everything.
    None,
}

impl std::str::FromStr for CullMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "portal" => CullMode::Portal,
            "pvs" => CullMode::Pvs,
            "pvs-cells" => CullMode::PvsCells,
            "frustum" => CullMode::Frustum,
            "none" => CullMode::None,
            _ => {
                return Err(format!(
                    "unknown culling method {s:?}: use portal, pvs, pvs-cells, frustum or none"
                ))
            }
        })
    }
}

impl CullMode {
    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            CullMode::Portal => "portal",
            CullMode::Pvs => "pvs",
            CullMode::PvsCells => "pvs-cells",
            CullMode::Frustum => "frustum",
            CullMode::None => "none",
        }
    }
}

/// Whether surface `s` is a fence (its texture has holes). Detail ones count too: a grate on a
/// detail brush may stand over a wall that draws nothing (am_underworks2), and through its holes
/// the eye sees past that wall, where no portal leads.
fn is_fence(level: &Level, s: u32) -> bool {
    level
        .surfaces
        .get(s as usize)
        .is_some_and(|x| x.flags & lanthorn_level::surface_flags::FENCE != 0)
}

/// Whether fence surface `s` may show what no portal leads to: a unit to either side of it
/// lie points of cells no open portal joins, or solid (it is drawn on a brush, or over one
/// that draws nothing). One that stands wholly in open space (Quake 3's trees and other
/// models, non-solid shaders) shows through its holes only what the eye would see were it
/// not there, which the flow reaches through the portals.
fn opens_a_window(level: &Level, s: u32) -> bool {
    if !is_fence(level, s) {
        return false;
    }
    let surface = &level.surfaces[s as usize];
    !surface.indices.chunks_exact(3).all(|t| {
        let Some(corners) = triangle(surface, t) else {
            return true;
        };
        let n = (corners[1] - corners[0]).cross(corners[2] - corners[0]);
        let Some(n) = n.try_normalize() else {
            return true;
        };
        let centre = (corners[0] + corners[1] + corners[2]) / 3.0;
        // Its centre and its corners pulled a tenth of the way in, a unit to either side.
        let points = [centre, corners[0], corners[1], corners[2]].map(|p| p + (centre - p) * 0.1);
        points.iter().all(|&p| {
            let (front, back) = (level.locate(p + n), level.locate(p - n));
            front.zip(back).is_some_and(|(a, b)| joined(level, a, b))
        })
    })
}

/// Cells `a` and `b` are one, or share an open portal.
fn joined(level: &Level, a: u32, b: u32) -> bool {
    a == b
        || level.cells[a as usize].portals.iter().any(|&p| {
            level.portals.get(p as usize).is_some_and(|p| {
                p.flags & lanthorn_level::portal_flags::CLOSED == 0
                    && ((p.front, p.back) == (a, b) || (p.front, p.back) == (b, a))
            })
        })
}

/// A triangle's corners.
fn triangle(surface: &lanthorn_level::Surface, t: &[u32]) -> Option<[Vec3; 3]> {
    let at = |k: usize| surface.vertices.get(t[k] as usize).map(|v| v.position);
    Some([at(0)?, at(1)?, at(2)?])
}

/// True when the box is at least partly inside all the planes.
pub fn box_in_frustum(planes: &[Plane], b: &Aabb) -> bool {
    planes.iter().all(|p| {
        let corner = Vec3::select(p.normal.cmpge(Vec3::ZERO), b.max, b.min);
        p.distance(corner) >= 0.0
    })
}

/// Per-view culling state: the eye tracker and the flow's reusable buffers.
pub struct Culler {
    /// The method this culler runs.
    pub mode: CullMode,
    /// Which cell the eye is in, kept from frame to frame.
    pub tracker: EyeTracker,
    /// The portal flow and its reusable buffers.
    pub flow: PortalFlow,
    /// The objects, where they are and the cells they are linked to.
    pub links: ObjectLinks,
    object_stamp: Vec<u32>,
    frame: u32,
    /// Microseconds spent in the last `cull` call.
    pub micros: f64,
    /// Of which: locating the eye, the method's cells (the flow), and the objects.
    pub stage_micros: CullStages,
    /// The level has mirrors or teleporters (looked at once, not every frame).
    portal_views: bool,
    /// Per cell, its entry in the camera's view of the visible set (reused buffer).
    index: Vec<u32>,
    /// Where the near plane cut a wall this frame (`Octagon::EMPTY`: nowhere).
    pub cut: Octagon,
    /// The screen region of this frame's visible fence surfaces (`fence_windows`).
    pub fences: Octagon,
    /// Per cell: it lists a fence surface that opens a window (`opens_a_window`: textures
    /// with holes, which show what is behind the solid they are drawn on).
    has_fences: Vec<bool>,
    /// Per level surface: it is such a fence (empty: the level has none).
    window_fences: Vec<bool>,
    /// GLQuake's marked cells and the leaves near the eye (`--cull pvs`; reused buffers).
    marked: Vec<bool>,
    near: Vec<u32>,
    /// The leaves `PortalFlow::pvs_bound` was marked from.
    bound_leaves: Vec<u32>,
    /// The rule GLQuake marked the last frame's cells by.
    pub pvs_rule: super::pvs::PvsRule,
}

/// Microseconds per culling stage of the last `cull` call.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CullStages {
    /// Finding the eye's cell.
    pub locate: f64,
    /// The method's cells (the portal flow, PVS marking or frustum test).
    pub cells: f64,
    /// The visible objects.
    pub objects: f64,
}

impl Culler {
    /// The views through mirrors and teleporters for a method without the flow, each view's
    /// cells picked by the method's own rule from beyond the portal.
    fn add_portal_views(&self, level: &Level, camera: &Camera, out: &mut VisibleSet) {
        let mode = self.mode;
        let mut pick = |level: &Level, beyond: u32, planes: &[Plane; 5], cells: &mut Vec<u32>| {
            for (i, c) in level.cells.iter().enumerate() {
                let in_pvs = match (&level.pvs, mode) {
                    (Some(pvs), CullMode::Pvs | CullMode::PvsCells) => {
                        beyond as usize == i || pvs.visible(beyond, i as u32)
                    }
                    _ => true,
                };
                if in_pvs && (mode == CullMode::None || box_in_frustum(planes, &c.aabb)) {
                    cells.push(i as u32);
                }
            }
        };
        super::portal_views::add_portal_views(level, camera, out, &mut pick);
    }

    /// A culler for `level` running `mode`.
    pub fn new(level: &Level, mode: CullMode) -> Culler {
        let mut flow = PortalFlow::new(level);
        super::movers::shut_still_doors(level, &mut flow.shut);
        let any_fence = (0..level.surfaces.len() as u32).any(|s| is_fence(level, s));
        let window_fences: Vec<bool> = match any_fence {
            true => (0..level.surfaces.len() as u32)
                .map(|s| opens_a_window(level, s))
                .collect(),
            false => Vec::new(),
        };
        Culler {
            mode,
            tracker: EyeTracker::new(),
            flow,
            links: ObjectLinks::new(level),
            object_stamp: Vec::new(),
            frame: 0,
            micros: 0.0,
            stage_micros: CullStages::default(),
            portal_views: level.portals.iter().any(|p| p.transform.is_some()),
            index: Vec::new(),
            cut: Octagon::EMPTY,
            fences: Octagon::EMPTY,
            has_fences: level
                .cells
                .iter()
                .map(|c| {
                    c.surfaces
                        .iter()
                        .any(|&s| window_fences.get(s as usize) == Some(&true))
                })
                .collect(),
            window_fences,
            marked: Vec::new(),
            near: Vec::new(),
            bound_leaves: Vec::new(),
            pvs_rule: super::pvs::PvsRule::Everything,
        }
    }

    /// Puts the moving objects where they are at `time` and shuts the portals of the doors
    /// at rest (`vis::movers`); a level where nothing moves costs nothing.
    pub fn animate(&mut self, level: &Level, time: f64) {
        if !self.links.moving.is_empty() {
            super::movers::animate(level, &mut self.links, &mut self.flow.shut, time);
        }
    }

    /// Lights each moving object where it now is: `light` of its box gives its light from the
    /// level's grid (`None`: the level has none) and the light to multiply its lightmaps by.
    pub fn light_moving_objects(
        &mut self,
        mut light: impl FnMut(Aabb) -> (Option<lanthorn_level::GridLight>, [f32; 3]),
    ) {
        for k in 0..self.links.moving.len() {
            let i = self.links.moving[k] as usize;
            (self.links.ambient[i], self.links.lights[i]) = light(self.links.bounds[i]);
        }
    }

    /// The screen regions of the visible cells' fence surfaces (each surface's triangles within
    /// its cell's octagon), with the surface's plane when it has one: their holes show what lies
    /// behind the solid they are drawn on, which no portal leads to.
    fn fence_windows(
        &self,
        level: &Level,
        camera: &Camera,
        out: &VisibleSet,
    ) -> Vec<(Octagon, Option<Plane>)> {
        let view_proj = camera.view_proj();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut windows = Vec::new();
        let cells = out.cells.iter().filter(|c| c.view == 0);
        for c in cells.filter(|c| self.has_fences.get(c.cell as usize) == Some(&true)) {
            let cell = &level.cells[c.cell as usize];
            let opens = |s: &&u32| self.window_fences.get(**s as usize) == Some(&true);
            for s in cell.surfaces.iter().filter(opens) {
                let surface = &level.surfaces[*s as usize];
                let mut region = Octagon::EMPTY;
                for t in surface.indices.chunks_exact(3) {
                    let Some(tri) = triangle(surface, t) else {
                        continue;
                    };
                    let Some(o) =
                        super::screen_octagon::portal_octagon(&view_proj, &tri, (&mut a, &mut b))
                    else {
                        continue;
                    };
                    let piece = o.intersect(&c.octagon).intersect(&Octagon::FULL);
                    if !piece.is_empty() {
                        region = region.union(&piece);
                    }
                }
                let plane = (surface.normal != Vec3::ZERO).then(|| {
                    let d = surface
                        .vertices
                        .first()
                        .map_or(0.0, |v| surface.normal.dot(v.position));
                    Plane::new(surface.normal, d)
                });
                if !region.is_empty() {
                    windows.push((region, plane));
                }
            }
        }
        windows
    }

    /// The objects whose box `keep` passes against a view's frustum, in the camera's view and
    /// every view through a mirror or teleporter (with that view's octagon): the methods
    /// without a flow.
    fn objects_in_views(
        &self,
        camera: &Camera,
        out: &mut VisibleSet,
        keep: impl Fn(&[Plane], &Aabb) -> bool,
    ) {
        out.objects.clear();
        for view in 0..=out.views.len() as u32 {
            let (planes, octagon) = match view {
                0 => (camera.frustum_planes(), Octagon::FULL),
                v => {
                    let cells = out.cells.iter().filter(|c| c.view == v);
                    let octagon = cells.fold(Octagon::EMPTY, |o, c| o.union(&c.octagon));
                    (
                        frustum_planes(&out.views[v as usize - 1].view_proj),
                        octagon,
                    )
                }
            };
            for (i, b) in self.links.bounds.iter().enumerate() {
                if !b.is_empty() && keep(&planes, b) {
                    out.objects.push(VisibleObject {
                        object: i as u32,
                        view,
                        octagon,
                        origin: self.links.origins[i],
                        light: self.links.lights[i],
                        ambient: self.links.ambient[i],
                        first_cell: u32::MAX,
                    });
                }
            }
        }
    }

    /// Fills `out` with what `camera` may see of `level` by this culler's method: cells with their
    /// octagons, the views through mirrors and teleporters, the objects.
    pub fn cull(&mut self, level: &Level, camera: &Camera, out: &mut VisibleSet) {
        let t = Instant::now();
        out.cells.clear();
        out.objects.clear();
        out.views.clear();
        out.flow_depth.clear();
        out.nothing_under_liquids = false;
        let planes = camera.frustum_planes();
        match self.mode {
            CullMode::None => {
                *out = VisibleSet::everything(level);
            }
            CullMode::Frustum => {
                for (i, c) in level.cells.iter().enumerate() {
                    if box_in_frustum(&planes, &c.aabb) {
                        out.cells.push(VisibleCell {
                            cell: i as u32,
                            octagon: Octagon::FULL,
                            view: 0,
                        });
                    }
                }
            }
            CullMode::Pvs | CullMode::PvsCells => {
                self.locate(level, camera);
                let (marked, near) = (&mut self.marked, &mut self.near);
                self.pvs_rule = super::pvs::mark(level, camera.position, marked, near);
                // As quakespasm: leaf boxes against the four side planes (its frustum has no
                // near plane), and a sky leaf's surfaces are never marked.
                for (i, c) in level.cells.iter().enumerate() {
                    let sky = c.flags & cell_flags::SKY_LEAF != 0;
                    if self.marked[i] && !sky && box_in_frustum(&planes[1..], &c.aabb) {
                        out.cells.push(VisibleCell {
                            cell: i as u32,
                            octagon: Octagon::FULL,
                            view: 0,
                        });
                    }
                }
            }
            CullMode::Portal => {
                let eye = self.locate(level, camera);
                self.cut = Octagon::EMPTY;
                self.fences = Octagon::EMPTY;
                self.bound_flow_by_pvs(level, camera);
                self.flow.run(level, camera, eye, out);
                if eye.is_some() {
                    self.add_cells_past_cut_walls(level, camera, out);
                }
            }
        }
        if matches!(self.mode, CullMode::None | CullMode::Frustum) {
            self.locate(level, camera);
        }
        if self.mode != CullMode::Portal && self.portal_views {
            self.add_portal_views(level, camera, out);
        }
        let cells_done = std::time::Instant::now();
        let eye_in_open_space = self.tracker.cell().is_some();
        out.eye_outside = !eye_in_open_space && !level.cells.is_empty();
        match self.mode {
            CullMode::Portal if eye_in_open_space => {
                // Objects through the cells they are linked to, clipped to those cells' octagons.
                self.frame = self.frame.wrapping_add(1).max(1);
                self.links.cull(
                    camera,
                    (&out.cells, &out.views),
                    &mut self.object_stamp,
                    self.frame,
                    &mut out.objects,
                );
                self.add_objects_past_cut_walls(camera, out);
            }
            CullMode::Portal => {}
            // No culling: every object in every view.
            CullMode::None => self.objects_in_views(camera, out, |_, _| true),
            _ => self.objects_in_views(camera, out, box_in_frustum),
        }
        self.micros = t.elapsed().as_secs_f64() * 1e6;
        self.stage_micros.objects = cells_done.elapsed().as_secs_f64() * 1e6;
        self.stage_micros.cells =
            self.micros - self.stage_micros.objects - self.stage_micros.locate;
    }

    /// Where the level has a PVS, the camera's flow goes only into the cells GLQuake marks
    /// (`pvs::mark`: the eye leaf's PVS, the fat PVS beside a liquid), so it never sends more
    /// than the PVS; no bound where every cell is marked. The marks are made again only when
    /// the eye's leaves change (a frame usually stays in its leaf).
    fn bound_flow_by_pvs(&mut self, level: &Level, camera: &Camera) {
        let rule = super::pvs::eye_leaves(level, camera.position, &mut self.near);
        let bound = &mut self.flow.pvs_bound;
        if rule == super::pvs::PvsRule::Everything {
            bound.clear();
        } else if bound.len() != level.cells.len() || self.bound_leaves != self.near {
            super::pvs::mark_from(level, rule, &self.near, bound);
        }
        self.bound_leaves.clone_from(&self.near);
    }

    /// Where the near plane cuts a wall (the eye within ~6 units of it), or a fence surface
    /// of a visible cell lets the eye through its holes, the screen shows what lies beyond
    /// through solid: every cell in that part of the frustum is added (or its octagon
    /// widened) with that region as its octagon.
    fn add_cells_past_cut_walls(&mut self, level: &Level, camera: &Camera, out: &mut VisibleSet) {
        let seen = out.cells.iter().filter(|c| c.view == 0).map(|c| c.cell);
        let reach = super::near_plane::near_reach(camera);
        // Only an object that shuts portals hides cells the flow cannot reach: past any other
        // object the flow sees through portals anyway (objects do not occlude in it).
        let objects = (self.links.bounds.iter().zip(&self.links.origins))
            .zip(&level.objects)
            .filter(|(_, o)| !o.closes.is_empty())
            .filter(|((b, _), _)| !b.is_empty() && b.distance_to(camera.position) <= reach)
            .map(|((_, origin), o)| (o.surfaces.as_slice(), *origin));
        // An eye inside a shut door sees through its back faces from the start: every ray.
        let in_a_door = (self.links.bounds.iter().zip(&level.objects)).any(|(b, o)| {
            !o.closes.is_empty() && !b.is_empty() && b.distance_to(camera.position) <= 0.0
        });
        self.cut = match in_a_door {
            true => Octagon::FULL,
            false => super::near_plane::cut_wall_octagon(level, camera, seen, objects),
        };
        let mut windows = self.fence_windows(level, camera, out);
        self.fences = windows.iter().fold(Octagon::EMPTY, |u, w| u.union(&w.0));
        if !self.cut.is_empty() {
            windows.push((self.cut, None));
        }
        if windows.is_empty() {
            return;
        }
        self.index.clear();
        self.index.resize(level.cells.len(), u32::MAX);
        for (i, c) in out.cells.iter().enumerate().filter(|(_, c)| c.view == 0) {
            self.index[c.cell as usize] = i as u32;
        }
        // What a window shows may lie under a liquid, as the flow's own cells do not.
        out.nothing_under_liquids = false;
        for (region, beyond) in windows {
            self.add_cells_in_window(level, camera, out, region, beyond);
        }
    }

    /// Adds every cell in the part of the frustum behind `region` on screen (and, given a
    /// plane, with part of its box on the far side of it from the eye) with `region` as its
    /// octagon, or widens the octagon of one already visible.
    fn add_cells_in_window(
        &mut self,
        level: &Level,
        camera: &Camera,
        out: &mut VisibleSet,
        region: Octagon,
        beyond: Option<Plane>,
    ) {
        let (min, max) = (
            glam::Vec2::new(region.min[0], region.min[1]),
            glam::Vec2::new(region.max[0], region.max[1]),
        );
        let planes = camera.screen_frustum_planes(min, max);
        let has_depth = out.flow_depth.len() == out.cells.len();
        // The far side of the window's plane, facing away from the eye.
        let far_side = beyond.map(|p| match p.distance(camera.position) >= 0.0 {
            true => p.flipped(),
            false => p,
        });
        for (i, c) in level.cells.iter().enumerate() {
            let past = far_side.is_none_or(|p| box_in_frustum(std::slice::from_ref(&p), &c.aabb));
            if !past || !box_in_frustum(&planes, &c.aabb) {
                continue;
            }
            match self.index[i] {
                u32::MAX => {
                    self.index[i] = out.cells.len() as u32;
                    out.cells.push(VisibleCell {
                        cell: i as u32,
                        octagon: region,
                        view: 0,
                    });
                    if has_depth {
                        out.flow_depth.push(1);
                    }
                }
                k => {
                    let o = &mut out.cells[k as usize].octagon;
                    *o = o.union(&region);
                }
            }
        }
    }

    /// The objects in the part of the frustum where the near plane cuts a wall or a fence
    /// lets the eye through (one hidden in solid shows there too), with that region as their
    /// octagon.
    fn add_objects_past_cut_walls(&self, camera: &Camera, out: &mut VisibleSet) {
        let cut = self.cut.union(&self.fences);
        if cut.is_empty() {
            return;
        }
        let planes = camera.screen_frustum_planes(
            glam::Vec2::new(cut.min[0], cut.min[1]),
            glam::Vec2::new(cut.max[0], cut.max[1]),
        );
        for (i, b) in self.links.bounds.iter().enumerate() {
            if b.is_empty() || !box_in_frustum(&planes, b) {
                continue;
            }
            let seen = out
                .objects
                .iter_mut()
                .find(|o| o.view == 0 && o.object == i as u32);
            match seen {
                Some(o) => o.octagon = o.octagon.union(&cut),
                None => out.objects.push(VisibleObject {
                    object: i as u32,
                    view: 0,
                    octagon: cut,
                    origin: self.links.origins[i],
                    light: self.links.lights[i],
                    ambient: self.links.ambient[i],
                    first_cell: u32::MAX,
                }),
            }
        }
    }

    /// Locates the eye (timed as the `locate` stage).
    fn locate(&mut self, level: &Level, camera: &Camera) -> Option<u32> {
        let t = Instant::now();
        let eye = self.tracker.update(level, camera.position);
        self.stage_micros.locate = t.elapsed().as_secs_f64() * 1e6;
        eye
    }
}
