//! From CSG regions to the level's cells: open regions become cells (outdoor where an
//! `outdoor` box holds their centre); contacts between two open regions become portals (and
//! liquid surfaces where the media differ), contacts between open and solid become walls. An
//! outdoor cell is open where it borders space no operation wrote: with a terrain those faces
//! are portals into one more cell, OUTSIDE; without one they are sky.

use glam::DVec3;

use super::csg::{self, Contact, Region, Regions};
use super::materials::FaceStyle;
use super::scene_file::{brush_planes, Scene};
use crate::draft::SurfaceDraft;
use lanthorn_geom::{Aabb, DPlane};
use lanthorn_level::{cell_flags, portal_flags, surface_flags, Cell, Level, Medium, Portal};

/// The cells made from a scene's regions, and how to reach them.
pub(super) struct SceneCells {
    /// Per region, its cell if it is open.
    pub(super) cell_of: Vec<Option<u32>>,
    /// Per cell, whether an `outdoor` box holds its centre.
    pub(super) outdoor: Vec<bool>,
    /// The OUTSIDE cell, with a terrain and outdoor cells.
    pub(super) outside: Option<u32>,
    /// The sky style of open faces, without a terrain.
    pub(super) open_sky: Option<u32>,
    pub(super) luxel_size: f64,
    /// The face styles the regions' `material` ids index.
    pub(super) styles: Vec<FaceStyle>,
}

/// Open regions become cells, in region order.
pub(super) fn add_cells(scene: &Scene, regions: &Regions, level: &mut Level) -> SceneCells {
    let mut cell_of = vec![None; regions.regions.len()];
    let mut outdoor = Vec::new();
    for (i, r) in regions.regions.iter().enumerate() {
        if !r.medium.is_open() {
            continue;
        }
        cell_of[i] = Some(level.cells.len() as u32);
        let centre = r.poly.center();
        let is_outdoor = scene
            .outdoor
            .iter()
            .any(|b| brush_planes(b).iter().all(|p| p.distance(centre) <= 0.0));
        outdoor.push(is_outdoor);
        let flags = if is_outdoor { cell_flags::OUTDOOR } else { 0 };
        level
            .cells
            .push(r.poly.cell(&regions.pool, r.medium, flags));
    }
    SceneCells {
        cell_of,
        outdoor,
        outside: None,
        open_sky: None,
        luxel_size: 16.0,
        styles: Vec::new(),
    }
}

/// With a terrain, the open world beyond the outdoor cells' open faces is one more cell
/// (OUTSIDE, the regions' box): outdoor regions see each other across the sky.
pub(super) fn add_outside_cell(regions: &Regions, level: &mut Level) -> u32 {
    let id = level.cells.len() as u32;
    let planes = csg::box_planes(regions.min, regions.max)
        .iter()
        .map(|p| p.flipped().to_f32())
        .collect();
    level.cells.push(Cell {
        planes,
        aabb: Aabb::new(regions.min.as_vec3(), regions.max.as_vec3()),
        medium: Medium::Air,
        flags: cell_flags::OUTDOOR | cell_flags::OUTSIDE,
        portals: Vec::new(),
        surfaces: Vec::new(),
    });
    id
}

impl SceneCells {
    /// Whether `solid`, seen from `cell`, is an open face: the cell is outdoor and no
    /// operation wrote that solid.
    fn is_open(&self, cell: u32, solid: &Region) -> bool {
        self.outdoor[cell as usize] && !solid.written
    }

    /// Portals and surface drafts from every contact; returns the drafts and how many faces
    /// were open to the terrain or sky.
    pub(super) fn add_contacts(
        &self,
        regions: &Regions,
        level: &mut Level,
    ) -> (Vec<SurfaceDraft>, usize) {
        let mut drafts = Vec::new();
        let mut open_faces = 0;
        for c in &csg::contacts(regions) {
            let (ra, rb) = (&regions.regions[c.a], &regions.regions[c.b]);
            match (self.cell_of[c.a], self.cell_of[c.b]) {
                (Some(a), Some(b)) => {
                    self.add_portal(c, regions, (a, ra), (b, rb), level, &mut drafts)
                }
                // Solid b seen from open a: faces -n, wound the other way.
                (Some(a), None) => {
                    open_faces += self.is_open(a, rb) as usize;
                    self.add_wall(c, regions, a, rb, true, level, &mut drafts);
                }
                (None, Some(b)) => {
                    open_faces += self.is_open(b, ra) as usize;
                    self.add_wall(c, regions, b, ra, false, level, &mut drafts);
                }
                (None, None) => {}
            }
        }
        (drafts, open_faces)
    }

    /// A portal between open cells `a` and `b` (front `b`); where their media differ, the
    /// liquid's surface too, seen from both sides.
    fn add_portal(
        &self,
        c: &Contact,
        regions: &Regions,
        (a, ra): (u32, &Region),
        (b, rb): (u32, &Region),
        level: &mut Level,
        drafts: &mut Vec<SurfaceDraft>,
    ) {
        let liquid = ra.medium != rb.medium;
        let plane = *regions.pool.get(c.plane);
        link_portal(level, &c.winding.points, plane, b, a, liquid);
        if !liquid {
            return;
        }
        let liq = if ra.medium.is_liquid() { ra } else { rb };
        let n = plane.normal; // outward from a, towards b
        let flags = surface_flags::LIQUID;
        drafts.push(self.draft(c.winding.points.clone(), n, liq.material, flags, b));
        let mut rev = c.winding.points.clone();
        rev.reverse();
        drafts.push(self.draft(rev, -n, liq.material, flags, a));
    }

    /// The contact between open `cell` and `solid`: a wall, or where it is open, a sky surface
    /// (no terrain) or a portal into OUTSIDE. `solid_is_b`: the contact's plane faces the
    /// solid (its normal points from `cell` into it).
    #[allow(clippy::too_many_arguments)]
    fn add_wall(
        &self,
        c: &Contact,
        regions: &Regions,
        cell: u32,
        solid: &Region,
        solid_is_b: bool,
        level: &mut Level,
        drafts: &mut Vec<SurfaceDraft>,
    ) {
        let plane = *regions.pool.get(c.plane);
        // The face as seen from the cell: wound counter-clockwise, normal into the cell.
        let (points, normal) = if solid_is_b {
            let mut rev = c.winding.points.clone();
            rev.reverse();
            (rev, -plane.normal)
        } else {
            (c.winding.points.clone(), plane.normal)
        };
        if !self.is_open(cell, solid) {
            drafts.push(self.draft(points, normal, solid.material, 0, cell));
        } else if let Some(sky) = self.open_sky {
            drafts.push(self.draft(points, normal, sky, surface_flags::SKY, cell));
        } else if let Some(out) = self.outside {
            // Seen from OUTSIDE: the other winding, the plane facing it.
            let (points, plane) = if solid_is_b {
                (c.winding.points.clone(), plane)
            } else {
                let mut rev = c.winding.points.clone();
                rev.reverse();
                (rev, plane.flipped())
            };
            link_portal(level, &points, plane, out, cell, false);
        }
    }

    /// A surface of face style `style` (a region's `material`).
    fn draft(
        &self,
        points: Vec<DVec3>,
        normal: DVec3,
        style: u32,
        flags: u32,
        cell: u32,
    ) -> SurfaceDraft {
        SurfaceDraft {
            points,
            normal,
            spec: self.styles[style as usize].spec(normal, flags, self.luxel_size),
            cells: vec![cell],
        }
    }
}

/// Adds a portal (`front` on the plane's positive side) and lists it in both cells.
fn link_portal(
    level: &mut Level,
    points: &[DVec3],
    plane: DPlane,
    front: u32,
    back: u32,
    liquid: bool,
) {
    level.add_portal(Portal {
        polygon: points.iter().map(|p| p.as_vec3()).collect(),
        plane: plane.to_f32(),
        front,
        back,
        transform: None,
        flags: if liquid {
            portal_flags::LIQUID_SURFACE
        } else {
            0
        },
    });
}
