//! What the culling overlays draw, as clip-space line vertices built on the CPU with no GPU:
//! portal outlines coloured by the flow's outcome, visible cells' octagons, the frozen culling
//! camera's frustum and eye, and the outlines of surfaces the per-surface test dropped.

use glam::{Mat4, Vec2, Vec3, Vec4};

use crate::world::{CullReason, WorldMesh};
use lanthorn_geom::{Camera, Octagon};
use lanthorn_level::Level;
use lanthorn_vis::{PortalOutcome, PortalTest, VisibleSet};

pub use crate::pass::OverlayVertex;

impl OverlayVertex {
    /// The vertex buffer's attributes (of the WGSL `OverlayVertex`).
    pub(crate) const ATTRIBUTES: [wgpu::VertexAttribute; 2] =
        wgpu::vertex_attr_array![0 => Float32x4, 1 => Unorm8x4];
}

/// A portal's colour in the `portals` overlay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PortalColour {
    /// Rejected (back-facing, outside the octagon, beyond the near plane, view limits).
    Red,
    /// Not passed, but the cell behind it is visible by another path.
    Yellow,
    /// Closed by a shut door (or by the level): the flow stops there.
    Blue,
    /// The flow went through it.
    Green,
}

impl PortalColour {
    /// The outline's colour as RGBA8, as an overlay vertex carries it.
    pub fn rgba(self) -> [u8; 4] {
        match self {
            PortalColour::Green => [40, 230, 60, 255],
            PortalColour::Blue => [70, 140, 255, 255],
            PortalColour::Yellow => [250, 220, 40, 255],
            PortalColour::Red => [240, 50, 40, 255],
        }
    }
}

/// Each tested portal's colour per view, by precedence: green if the flow passed it in that
/// view; else blue if it is closed (a shut door) or a liquid covers it; else yellow if the cell behind it is visible
/// in that view; else red. Sorted by
/// (view, portal).
pub fn portal_colours(trace: &[PortalTest], visible: &VisibleSet) -> Vec<(u32, u32, PortalColour)> {
    let mut out: Vec<(u32, u32, PortalColour)> = Vec::new();
    for t in trace {
        let colour = if t.outcome == PortalOutcome::Passed {
            PortalColour::Green
        } else if matches!(t.outcome, PortalOutcome::Closed | PortalOutcome::Covered) {
            PortalColour::Blue
        } else if visible
            .cells
            .iter()
            .any(|c| c.view == t.view && c.cell == t.target)
        {
            PortalColour::Yellow
        } else {
            PortalColour::Red
        };
        out.push((t.view, t.portal, colour));
    }
    out.sort();
    // Keep the best colour of each (view, portal): the last after sorting.
    let mut best: Vec<(u32, u32, PortalColour)> = Vec::with_capacity(out.len());
    for e in out {
        match best.last_mut() {
            Some(b) if (b.0, b.1) == (e.0, e.1) => b.2 = b.2.max(e.2),
            _ => best.push(e),
        }
    }
    best
}

/// Where the overlays are seen from and what was culled from where.
pub struct OverlayView<'a> {
    /// The camera the frame is drawn from.
    pub camera: &'a Camera,
    /// The camera culling ran from (the frozen one, or `camera`).
    pub culling: &'a Camera,
    /// What culling found visible from `culling`: the cells and the views they are seen in.
    pub visible: &'a VisibleSet,
}

impl OverlayView<'_> {
    /// View `v`'s world-to-clip transform as the drawing camera sees it: the drawing camera
    /// times the portal transforms that lead to view `v`.
    fn view_proj(&self, v: u32) -> Mat4 {
        let draw = self.camera.view_proj();
        if v == 0 {
            return draw;
        }
        match self.visible.views.get(v as usize - 1) {
            Some(view) => draw * self.culling.view_proj().inverse() * view.view_proj,
            None => draw,
        }
    }
}

fn push_line(out: &mut Vec<OverlayVertex>, a: Vec4, b: Vec4, color: [u8; 4]) {
    out.push(OverlayVertex {
        clip: a.to_array(),
        color,
    });
    out.push(OverlayVertex {
        clip: b.to_array(),
        color,
    });
}

/// Portal outlines coloured by `portal_colours`; in mirror and teleporter views dashed.
pub fn portal_lines(
    level: &Level,
    trace: &[PortalTest],
    view: &OverlayView<'_>,
    out: &mut Vec<OverlayVertex>,
) {
    for (v, p, colour) in portal_colours(trace, view.visible) {
        let Some(portal) = level.portals.get(p as usize) else {
            continue;
        };
        let vp = view.view_proj(v);
        let n = portal.polygon.len();
        for i in 0..n {
            let (a, b) = (portal.polygon[i], portal.polygon[(i + 1) % n]);
            if v == 0 {
                push_line(out, vp * a.extend(1.0), vp * b.extend(1.0), colour.rgba());
            } else {
                dashed(out, &vp, a, b, colour.rgba());
            }
        }
    }
}

/// A world segment as 8 dashes.
fn dashed(out: &mut Vec<OverlayVertex>, vp: &Mat4, a: Vec3, b: Vec3, color: [u8; 4]) {
    const DASHES: usize = 8;
    for k in 0..DASHES {
        let t0 = k as f32 / DASHES as f32;
        let t1 = t0 + 0.5 / DASHES as f32;
        let p = a.lerp(b, t0).extend(1.0);
        let q = a.lerp(b, t1).extend(1.0);
        push_line(out, *vp * p, *vp * q, color);
    }
}

/// The corners of an octagon (NDC), in order; none when it is empty.
pub fn octagon_corners(o: &Octagon) -> Vec<Vec2> {
    if o.is_empty() {
        return Vec::new();
    }
    // The screen square cut by the octagon's 8 half-planes.
    let mut poly = vec![
        Vec2::new(-4.0, -4.0),
        Vec2::new(4.0, -4.0),
        Vec2::new(4.0, 4.0),
        Vec2::new(-4.0, 4.0),
    ];
    let axes = [
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, 1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(1.0, -1.0),
    ];
    for (i, axis) in axes.iter().enumerate() {
        poly = clip_2d(&poly, |p| p.dot(*axis) - o.min[i]);
        poly = clip_2d(&poly, |p| o.max[i] - p.dot(*axis));
    }
    poly
}

fn clip_2d(poly: &[Vec2], dist: impl Fn(Vec2) -> f32) -> Vec<Vec2> {
    let mut out = Vec::with_capacity(poly.len() + 1);
    for i in 0..poly.len() {
        let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
        let (dp, dq) = (dist(p), dist(q));
        if dp >= 0.0 {
            out.push(p);
        }
        if (dp >= 0.0) != (dq >= 0.0) {
            out.push(p + (q - p) * (dp / (dp - dq)));
        }
    }
    out
}

/// Each visible cell's octagon as an outline (the culling camera's screen regions), a colour
/// per view.
pub fn octagon_lines(visible: &VisibleSet, out: &mut Vec<OverlayVertex>) {
    const VIEW_COLOURS: [[u8; 4]; 3] = [
        [80, 200, 255, 255],
        [255, 120, 255, 255],
        [255, 170, 60, 255],
    ];
    for c in &visible.cells {
        let corners = octagon_corners(&c.octagon);
        let colour = VIEW_COLOURS[(c.view as usize).min(VIEW_COLOURS.len() - 1)];
        for i in 0..corners.len() {
            let (a, b) = (corners[i], corners[(i + 1) % corners.len()]);
            push_line(
                out,
                Vec4::new(a.x, a.y, 0.5, 1.0),
                Vec4::new(b.x, b.y, 0.5, 1.0),
                colour,
            );
        }
    }
}

/// The culling camera's frustum (to `depth` units) and a cross at its eye, seen from the
/// drawing camera.
pub fn frustum_lines(view: &OverlayView<'_>, depth: f32, out: &mut Vec<OverlayVertex>) {
    const COLOUR: [u8; 4] = [255, 255, 255, 255];
    let cull = view.culling;
    let vp = view.camera.view_proj();
    let inverse = cull.view_proj().inverse();
    // Reverse-Z, infinite far: a point `d` units ahead has NDC depth near / d.
    let corner = |x: f32, y: f32, d: f32| inverse.project_point3(Vec3::new(x, y, cull.near / d));
    let eye = cull.position;
    let far: Vec<Vec3> = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
        .iter()
        .map(|&(x, y)| corner(x, y, depth))
        .collect();
    let clip = |p: Vec3| vp * p.extend(1.0);
    for i in 0..4 {
        push_line(out, clip(eye), clip(far[i]), COLOUR);
        push_line(out, clip(far[i]), clip(far[(i + 1) % 4]), COLOUR);
    }
    let s = 8.0;
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        push_line(
            out,
            clip(eye - axis * s),
            clip(eye + axis * s),
            [255, 60, 200, 255],
        );
    }
}

/// The culled-surfaces overlay's colour per reason.
pub fn reason_rgba(reason: CullReason) -> [u8; 4] {
    match reason {
        CullReason::Frustum => [60, 140, 255, 255],
        CullReason::Octagon => [255, 150, 30, 255],
        CullReason::BackFace => [230, 60, 230, 255],
    }
}

/// Outlines of the surfaces the per-surface test dropped, a colour per reason.
pub fn culled_surface_lines(
    mesh: &WorldMesh,
    culled: &[(u32, CullReason)],
    view: &OverlayView<'_>,
    out: &mut Vec<OverlayVertex>,
) {
    let vp = view.camera.view_proj();
    for &(surface, reason) in culled {
        let Some(c) = mesh.surface_cull.get(surface as usize) else {
            continue;
        };
        let first = c.first_corner as usize;
        let corners = &mesh.outlines[first..first + c.corner_count as usize];
        for i in 0..corners.len() {
            let (a, b) = (corners[i], corners[(i + 1) % corners.len()]);
            push_line(
                out,
                vp * a.extend(1.0),
                vp * b.extend(1.0),
                reason_rgba(reason),
            );
        }
    }
}

/// The wireframe overlay without polygon-mode lines: every triangle edge of the surfaces of
/// the camera view's visible cells, as lines.
pub fn wireframe_lines(mesh: &WorldMesh, view: &OverlayView<'_>, out: &mut Vec<OverlayVertex>) {
    const COLOUR: [u8; 4] = [230, 230, 230, 255];
    let vp = view.camera.view_proj();
    let at = |i: u32| {
        let p = Vec3::from(mesh.vertices[i as usize].position);
        vp * p.extend(1.0)
    };
    for c in view.visible.cells.iter().filter(|c| c.view == 0) {
        for ranges in &mesh.cell_ranges {
            let Some(r) = ranges.get(c.cell as usize) else {
                continue;
            };
            let indices = &mesh.indices[r.first as usize..(r.first + r.count) as usize];
            for t in indices.chunks_exact(3) {
                for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                    push_line(out, at(a), at(b), COLOUR);
                }
            }
        }
    }
}

/// Everything the line overlays of `set` draw this frame.
pub fn overlay_lines(
    level: &Level,
    set: &super::OverlaySet,
    view: &OverlayView<'_>,
    trace: &[PortalTest],
) -> Vec<OverlayVertex> {
    let mut out = Vec::new();
    if set.portals {
        portal_lines(level, trace, view, &mut out);
    }
    if set.octagons {
        octagon_lines(view.visible, &mut out);
    }
    if set.frozen {
        frustum_lines(view, 256.0, &mut out);
    }
    if set.leak {
        leak_lines(level, view, &mut out);
    }
    if set.light_grid {
        light_grid_lines(level, view, &mut out);
    }
    out
}

/// How far from the eye the light grid overlay draws points (units).
pub const LIGHT_GRID_REACH: f32 = 768.0;

/// The light grid's open points in the camera's visible cells (a level without cells: all),
/// in front of the eye and within [`LIGHT_GRID_REACH`] of it (but not nearer than a spacing),
/// each a cross a quarter of the spacing wide in the colour of its light: the mean over the
/// sphere of its harmonics and of the sun as far as it sees it (every style at full
/// brightness), as a lightmap would show it (÷ 255, × 2, capped). Points in solid are left out.
pub fn light_grid_lines(level: &Level, view: &OverlayView<'_>, out: &mut Vec<OverlayVertex>) {
    let Some(grid) = &level.light_grid else {
        return;
    };
    let vp = view.camera.view_proj();
    let eye = view.camera.position;
    let arm = grid.spacing * 0.125;
    let mut seen = vec![false; level.cells.len()];
    for c in view.visible.cells.iter().filter(|c| c.view == 0) {
        if let Some(s) = seen.get_mut(c.cell as usize) {
            *s = true;
        }
    }
    let in_view = |p: Vec3| match level.locate(p) {
        Some(c) => seen.get(c as usize).copied().unwrap_or(false),
        None => level.cells.is_empty(),
    };
    let [nx, ny, _] = grid.size.map(|n| n as usize);
    for i in 0..grid.point_count() {
        let at = [
            (i % nx) as u32,
            (i / nx % ny) as u32,
            (i / (nx * ny)) as u32,
        ];
        let p = grid.position(at);
        let d = p.distance(eye);
        let near_enough = (grid.spacing.min_element()..=LIGHT_GRID_REACH).contains(&d);
        if !near_enough || (p - eye).dot(view.camera.forward()) <= 0.0 || !in_view(p) {
            continue;
        }
        let Some(rgba) = point_rgba(grid, i) else {
            continue;
        };
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            let (a, b) = (p - axis * arm, p + axis * arm);
            push_line(out, vp * a.extend(1.0), vp * b.extend(1.0), rgba);
        }
    }
}

/// The overlay colour of grid point `i` (`None` in solid).
fn point_rgba(grid: &lanthorn_level::LightGrid, i: usize) -> Option<[u8; 4]> {
    if grid.styles.get(i)?.count() == 0 {
        return None;
    }
    // The mean over the sphere of a harmonic set is its constant term times Y₀₀ (the others
    // integrate to 0); of the sun's `0.5 + 0.5 cos` on the half facing it and 0 on the other,
    // ½ ∫₀¹ (0.5 + 0.5 t) dt = 0.375 of its value.
    let mut mean = Vec3::ZERO;
    for (_, sh) in grid.point_slots(i) {
        mean += sh.0[0] * lanthorn_geom::sh::basis(Vec3::Z)[0];
    }
    let seen = grid.sun_visible.get(i).map_or(0.0, |&v| v as f32 / 255.0);
    mean += grid.sun.map_or(Vec3::ZERO, |s| s.rgb * (0.375 * seen));
    let c = (mean / 255.0 * 2.0).min(Vec3::ONE).max(Vec3::ZERO) * 255.0;
    Some([c.x as u8, c.y as u8, c.z as u8, 255])
}

/// The leak overlay's colour: bright magenta, which no Quake texture is.
pub const LEAK_RGBA: [u8; 4] = [255, 40, 255, 255];

/// The level's leak path (see `Level::leak`) as one polyline from the entity to the void, and
/// the entity marked by a 16-unit cross on the three axes. Nothing in a level without a leak.
pub fn leak_lines(level: &Level, view: &OverlayView<'_>, out: &mut Vec<OverlayVertex>) {
    let Some(leak) = &level.leak else { return };
    let vp = view.camera.view_proj();
    for w in leak.points.windows(2) {
        push_line(out, vp * w[0].extend(1.0), vp * w[1].extend(1.0), LEAK_RGBA);
    }
    if let Some(&at) = leak.points.first() {
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            let (a, b) = (at - axis * 16.0, at + axis * 16.0);
            push_line(out, vp * a.extend(1.0), vp * b.extend(1.0), LEAK_RGBA);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanthorn_geom::{CameraSpec, Plane};
    use lanthorn_level::{Cell, Portal};

    /// Three cells in a row along +X (0: x 0..100, 1: 100..200, 2: 200..300), 100 high and
    /// wide, joined by portals at x = 100 (0–1) and x = 200 (1–2); and a fourth cell (3) behind
    /// cell 0 (x −100..0) through a portal at x = 0.
    fn row() -> Level {
        let cell = |x0: f32| {
            let min = Vec3::new(x0, 0.0, 0.0);
            let max = min + Vec3::splat(100.0);
            Cell {
                planes: vec![
                    Plane::new(Vec3::X, min.x),
                    Plane::new(-Vec3::X, -max.x),
                    Plane::new(Vec3::Y, min.y),
                    Plane::new(-Vec3::Y, -max.y),
                    Plane::new(Vec3::Z, min.z),
                    Plane::new(-Vec3::Z, -max.z),
                ],
                aabb: lanthorn_geom::Aabb { min, max },
                ..Default::default()
            }
        };
        let mut level = Level {
            cells: vec![cell(0.0), cell(100.0), cell(200.0), cell(-100.0)],
            // One leaf holding every cell: location tests each cell's planes.
            bsp: lanthorn_level::Bsp {
                nodes: vec![],
                leaves: vec![lanthorn_level::BspLeaf {
                    cells: vec![0, 1, 2, 3],
                }],
                root: Some(lanthorn_level::BspChild::Leaf(0)),
            },
            ..Default::default()
        };
        // Doorways: a 40×40 hole in the middle of each wall, y and z 30..70.
        let portal = |x: f32, front: u32, back: u32| Portal {
            polygon: vec![
                Vec3::new(x, 30.0, 30.0),
                Vec3::new(x, 70.0, 30.0),
                Vec3::new(x, 70.0, 70.0),
                Vec3::new(x, 30.0, 70.0),
            ],
            plane: Plane::new(Vec3::X, x),
            front,
            back,
            transform: None,
            flags: 0,
        };
        for (x, front, back) in [(100.0, 1, 0), (200.0, 2, 1), (0.0, 0, 3)] {
            level.add_portal(portal(x, front, back));
        }
        level
    }

    fn colours_from(spec: CameraSpec) -> Vec<(u32, PortalColour)> {
        let level = row();
        let camera = Camera::new(spec, 16.0 / 9.0);
        let mut culler = lanthorn_vis::Culler::new(&level, lanthorn_vis::CullMode::Portal);
        culler.flow.trace = Some(Vec::new());
        let mut visible = VisibleSet::default();
        culler.cull(&level, &camera, &mut visible);
        let trace = culler.flow.trace.clone().unwrap();
        portal_colours(&trace, &visible)
            .into_iter()
            .map(|(_, p, c)| (p, c))
            .collect()
    }

    #[test]
    fn portals_ahead_are_green_and_the_one_behind_is_red() {
        // In cell 0 looking down +X through both doorways: the flow passes portals 0 (x = 100)
        // and 1 (x = 200); portal 2 (x = 0) is behind the eye, its cell 3 unseen.
        let spec = CameraSpec {
            position: Vec3::new(50.0, 50.0, 50.0),
            yaw: 0.0,
            pitch: 0.0,
        };
        let colours = colours_from(spec);
        assert_eq!(
            colours,
            vec![
                (0, PortalColour::Green),
                (1, PortalColour::Green),
                (2, PortalColour::Red)
            ]
        );
    }

    #[test]
    fn a_portal_off_screen_is_red_unless_its_cell_is_seen_another_way() {
        // Looking up +Y in cell 1: neither doorway of cell 1 is on screen (both rejected),
        // so cells 0 and 2 are unseen: red.
        let spec = CameraSpec {
            position: Vec3::new(150.0, 50.0, 50.0),
            yaw: 90.0,
            pitch: 0.0,
        };
        let colours = colours_from(spec);
        assert_eq!(
            colours,
            vec![(0, PortalColour::Red), (1, PortalColour::Red)]
        );
        // Yellow: a rejected portal whose cell is visible anyway. With the trace of a view
        // that passed portal 0 once and rejected it once, green wins; a rejected test of a
        // portal into a cell in the visible set is yellow.
        let visible = VisibleSet {
            cells: vec![lanthorn_vis::VisibleCell {
                cell: 2,
                octagon: Octagon::FULL,
                view: 0,
            }],
            ..Default::default()
        };
        let test = |portal, target, outcome| PortalTest {
            portal,
            view: 0,
            target,
            outcome,
        };
        let trace = [
            test(0, 1, PortalOutcome::OutsideOctagon),
            test(0, 1, PortalOutcome::Passed),
            test(1, 2, PortalOutcome::OutsideOctagon),
            test(2, 3, PortalOutcome::BackFacing),
            // A shut door into the visible cell 2: blue, over yellow.
            test(3, 2, PortalOutcome::Closed),
        ];
        assert_eq!(
            portal_colours(&trace, &visible),
            vec![
                (0, 0, PortalColour::Green),
                (0, 1, PortalColour::Yellow),
                (0, 2, PortalColour::Red),
                (0, 3, PortalColour::Blue)
            ]
        );
    }

    /// The light grid overlay: a three-line cross per open point in front of the eye within
    /// reach, in the colour its light would give a lightmap (oracle, written out: a uniform 100
    /// luxel values and a sun of (80, 40, 0) the point sees: (100 + 0.375 · sun) / 255 × 2, red
    /// capped; 50 alone and unseen sun: 100); none for the point in solid, behind the eye or
    /// out of reach.
    #[test]
    fn light_grid_points_are_crosses_in_their_lights_colour() {
        use lanthorn_geom::sh::Sh9;
        use lanthorn_level::{GridSun, LightGrid, LightStyles};
        let uniform = |v: f32| {
            let mut sh = Sh9::ZERO;
            sh.add_uniform(Vec3::splat(v));
            sh
        };
        let open = LightStyles::default();
        let solid = LightStyles([255; 4]);
        // Points along +X at 100, 200, 300, 400 (the last out of reach from x = -400).
        let styles = vec![open, open, solid, open];
        let grid = LightGrid {
            origin: Vec3::new(100.0, 0.0, 0.0),
            spacing: Vec3::splat(100.0),
            size: [4, 1, 1],
            first: LightGrid::firsts(&styles),
            styles,
            slots: vec![uniform(100.0), uniform(50.0), uniform(100.0)],
            sun: Some(GridSun {
                direction: -Vec3::Z,
                rgb: Vec3::new(80.0, 40.0, 0.0),
            }),
            sun_visible: vec![255, 0, 255, 255],
            ..Default::default()
        };
        let level = Level {
            light_grid: Some(grid),
            ..Default::default()
        };
        let camera = Camera::new(
            CameraSpec {
                position: Vec3::new(-400.0, 0.0, 0.0),
                yaw: 0.0,
                pitch: 0.0,
            },
            16.0 / 9.0,
        );
        let visible = VisibleSet::default();
        let view = OverlayView {
            camera: &camera,
            culling: &camera,
            visible: &visible,
        };
        let mut out = Vec::new();
        light_grid_lines(&level, &view, &mut out);
        let colours: Vec<[u8; 4]> = out.iter().map(|v| v.color).collect();
        let first = [
            255,
            ((100.0 + 0.375 * 40.0) / 255.0 * 2.0 * 255.0) as u8,
            200,
            255,
        ];
        let second = [100, 100, 100, 255];
        assert_eq!(colours, [[first; 6], [second; 6]].concat());
        // Seen from beyond the last point, looking back: the points behind the eye are left out.
        let behind = Camera::new(
            CameraSpec {
                position: Vec3::new(500.0, 0.0, 0.0),
                yaw: 0.0,
                pitch: 0.0,
            },
            16.0 / 9.0,
        );
        let view = OverlayView {
            camera: &behind,
            culling: &behind,
            visible: &visible,
        };
        out.clear();
        light_grid_lines(&level, &view, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn octagon_corners_bound_the_octagon_exactly() {
        let o = Octagon {
            min: [-0.5, -0.5, -0.8, -0.8],
            max: [0.5, 0.5, 0.8, 0.8],
        };
        let corners = octagon_corners(&o);
        assert_eq!(corners.len(), 8);
        // Every corner on the boundary: inside, and on at least one of the 8 bounds.
        for c in &corners {
            let a = [c.x, c.y, c.x + c.y, c.x - c.y];
            let on =
                (0..4).any(|i| (a[i] - o.min[i]).abs() < 1e-5 || (a[i] - o.max[i]).abs() < 1e-5);
            assert!(on && o.contains(*c * 0.999), "{c}");
        }
        assert!(octagon_corners(&Octagon::EMPTY).is_empty());
    }
}
