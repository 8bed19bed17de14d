//! The portal flow against an independent oracle: rays cast through the maze's own door table.

use glam::{Vec2, Vec3};

use super::{EyeTracker, PortalFlow, VisibleSet};
use lanthorn_compile::scenes::synthetic::{maze, maze_doors, MazeSpec};
use lanthorn_geom::{Camera, CameraSpec};

use lanthorn_geom::rng::XorShift as Rng;

/// Rooms a ray from `eye` along `dir` passes through, walking the grid and the door table.
fn ray_rooms(spec: &MazeSpec, east: &[bool], north: &[bool], eye: Vec3, dir: Vec3) -> Vec<u32> {
    let (nx, ny) = (spec.nx as i32, spec.ny as i32);
    let r = spec.room;
    let mut x = (eye.x / r).floor() as i32;
    let mut y = (eye.y / r).floor() as i32;
    let mut rooms = vec![(y * nx + x) as u32];
    let mut p = eye;
    for _ in 0..(nx + ny) * 2 {
        let min = Vec3::new(x as f32 * r, y as f32 * r, 0.0);
        let max = min + Vec3::new(r, r, spec.height);
        let mut t_exit = f32::MAX;
        let mut axis = 3;
        for a in 0..3 {
            if dir[a].abs() < 1e-9 {
                continue;
            }
            let bound = if dir[a] > 0.0 { max[a] } else { min[a] };
            let t = (bound - p[a]) / dir[a];
            if t < t_exit {
                t_exit = t;
                axis = a;
            }
        }
        if axis == 2 || axis == 3 {
            break; // floor or ceiling
        }
        let hit = p + dir * t_exit;
        // Door rectangle on that wall, centred.
        let (along, centre) = if axis == 0 {
            (hit.y, (y as f32 + 0.5) * r)
        } else {
            (hit.x, (x as f32 + 0.5) * r)
        };
        let in_door = (along - centre).abs() < spec.door_width / 2.0 && hit.z < spec.door_height;
        let (nx2, ny2) = if axis == 0 {
            (x + dir.x.signum() as i32, y)
        } else {
            (x, y + dir.y.signum() as i32)
        };
        if nx2 < 0 || ny2 < 0 || nx2 >= nx || ny2 >= ny {
            break;
        }
        let open = if axis == 0 {
            east[(y * nx + x.min(nx2)) as usize]
        } else {
            north[(y.min(ny2) * nx + x) as usize]
        };
        if !(open && in_door) {
            break;
        }
        x = nx2;
        y = ny2;
        p = hit;
        rooms.push((y * nx + x) as u32);
    }
    rooms
}

#[test]
fn every_room_a_ray_reaches_is_visible_within_its_octagon() {
    let spec = MazeSpec {
        nx: 10,
        ny: 10,
        ..Default::default()
    };
    let level = maze(&spec);
    let (east, north) = maze_doors(&spec);
    let mut flow = PortalFlow::new(&level);
    let mut vis = VisibleSet::default();
    let mut rng = Rng(77);
    let mut total_visible = 0usize;
    for _ in 0..300 {
        // Eyes at least 8 units from any wall, floor or ceiling.
        let room = Vec2::new(
            (rng.unit_f32() * 10.0).floor(),
            (rng.unit_f32() * 10.0).floor(),
        );
        let local = Vec2::new(
            8.0 + rng.unit_f32() * (spec.room - 16.0),
            8.0 + rng.unit_f32() * (spec.room - 16.0),
        );
        let eye = (room * spec.room + local).extend(8.0 + rng.unit_f32() * (spec.height - 16.0));
        let spec_cam = CameraSpec {
            position: eye,
            yaw: rng.unit_f32() * 360.0,
            pitch: (rng.unit_f32() - 0.5) * 60.0,
        };
        let cam = Camera::new(spec_cam, 16.0 / 9.0);
        let eye_cell = level.locate(eye);
        flow.run(&level, &cam, eye_cell, &mut vis);
        total_visible += vis.cells.len();
        let tx = (cam.fov_x.to_radians() * 0.5).tan();
        let ty = (cam.fov_y() * 0.5).tan();
        for j in 0..36 {
            for i in 0..64 {
                let ndc = Vec2::new((i as f32 + 0.5) / 32.0 - 1.0, (j as f32 + 0.5) / 18.0 - 1.0);
                let dir =
                    (cam.forward() + cam.right() * ndc.x * tx + cam.up() * ndc.y * ty).normalize();
                for room in ray_rooms(&spec, &east, &north, eye, dir) {
                    let v = vis.cells.iter().find(|c| c.cell == room);
                    let v = v.unwrap_or_else(|| {
                        panic!("room {room} seen by a ray from {eye} is not visible")
                    });
                    assert!(
                        v.octagon.contains(ndc),
                        "room {room}: ray at {ndc} outside its octagon {:?}",
                        v.octagon
                    );
                }
            }
        }
    }
    // The flow is much tighter than "everything": a maze hides most rooms.
    assert!(total_visible < 300 * 100 / 4, "{total_visible}");
}

#[test]
fn eye_in_solid_draws_what_the_frustum_holds() {
    let level = maze(&MazeSpec::default());
    let mut flow = PortalFlow::new(&level);
    let mut vis = VisibleSet::default();
    let cam = Camera::new(
        CameraSpec {
            position: Vec3::new(-100.0, 128.0, 64.0),
            yaw: 0.0,
            pitch: 0.0,
        },
        16.0 / 9.0,
    );
    assert_eq!(level.locate(cam.position), None);
    flow.run(&level, &cam, None, &mut vis);
    assert!(!vis.cells.is_empty());
    // Rooms straight ahead are in; no room behind the eye is.
    assert!(vis.cells.iter().any(|c| c.cell == 1));
    assert!(vis
        .cells
        .iter()
        .all(|c| level.cells[c.cell as usize].aabb.max.x > cam.position.x));
}

#[test]
fn incremental_tracking_equals_point_location_along_random_paths() {
    let spec = MazeSpec {
        nx: 12,
        ny: 12,
        extra_doors: 0.5,
        ..Default::default()
    };
    let level = maze(&spec);
    let mut rng = Rng(5);
    let mut tracker = EyeTracker::new();
    let mut p = Vec3::new(128.0, 128.0, 48.0);
    let mut walked = 0;
    for _ in 0..20000 {
        // Small steps, sometimes a jump (teleport) that needs relocation.
        let step = if rng.unit_f32() < 0.01 {
            Vec3::new(rng.unit_f32() * 3072.0, rng.unit_f32() * 3072.0, 48.0) - p
        } else {
            Vec3::new(rng.unit_f32() - 0.5, rng.unit_f32() - 0.5, 0.0) * 64.0
        };
        p += step;
        p = p.clamp(
            Vec3::new(-50.0, -50.0, 1.0),
            Vec3::new(3122.0, 3122.0, 127.0),
        );
        let got = tracker.update(&level, p);
        let want = level.locate(p);
        match (got, want) {
            (Some(g), Some(w)) => {
                // On a shared face either cell is right.
                assert!(
                    g == w || level.cells[g as usize].contains(p, 0.01),
                    "{p}: {g} vs {w}"
                );
                walked += 1;
            }
            (g, w) => assert_eq!(g.is_some(), w.is_some(), "{p}: {g:?} vs {w:?}"),
        }
    }
    assert!(walked > 1000);
    // Most updates were incremental, not relocations.
    assert!(tracker.relocations < 5000, "{}", tracker.relocations);
}

/// An eye in the maze's first room looking across it, through its doorways.
fn maze_room_camera() -> Camera {
    let spec = CameraSpec {
        position: Vec3::new(128.0, 128.0, 64.0),
        yaw: 45.0,
        pitch: 0.0,
    };
    Camera::new(spec, 16.0 / 9.0)
}

/// A door closes and opens between frames: the same flow reads its shut portals every frame,
/// and with one shut sees exactly what a level without that portal shows.
#[test]
fn closing_a_portal_between_frames_hides_what_it_led_to() {
    let level = maze(&MazeSpec::default());
    let cam = maze_room_camera();
    let eye = level.locate(cam.position);
    let mut flow = PortalFlow::new(&level);
    let mut open = VisibleSet::default();
    flow.run(&level, &cam, eye, &mut open);
    // The first portal the flow went through from the eye's room.
    let first = level.cells[eye.unwrap() as usize]
        .portals
        .iter()
        .copied()
        .find(|&p| {
            let other = level.portals[p as usize].other(eye.unwrap());
            open.cells.iter().any(|c| c.cell == other)
        })
        .expect("the eye sees through a doorway");
    let cells = |v: &VisibleSet| {
        let mut c: Vec<u32> = v.cells.iter().map(|c| c.cell).collect();
        c.sort_unstable();
        c
    };
    flow.shut = vec![false; level.portals.len()];
    flow.shut[first as usize] = true;
    let mut closed = VisibleSet::default();
    flow.run(&level, &cam, eye, &mut closed);
    // The oracle: a fresh flow over the level with that portal removed from its cells.
    let mut without = level.clone();
    for c in &mut without.cells {
        c.portals.retain(|&p| p != first);
    }
    let mut expected = VisibleSet::default();
    PortalFlow::new(&without).run(&without, &cam, eye, &mut expected);
    assert_eq!(cells(&closed), cells(&expected));
    assert!(cells(&closed).len() < cells(&open).len());
    flow.shut[first as usize] = false;
    let mut reopened = VisibleSet::default();
    flow.run(&level, &cam, eye, &mut reopened);
    assert_eq!(cells(&reopened), cells(&open));
}

/// A door that never moves (a Quake 3 door, shut as it spawns) shuts the portals it closes
/// from the culler's first frame: the culler sees what a flow over the level without them sees.
#[test]
fn a_still_door_shuts_its_portals_from_the_first_frame() {
    let mut level = maze(&MazeSpec::default());
    let cam = maze_room_camera();
    let eye = level.locate(cam.position).unwrap();
    let cells = |v: &VisibleSet| {
        let mut c: Vec<u32> = v.cells.iter().map(|c| c.cell).collect();
        c.sort_unstable();
        c
    };
    let mut open = VisibleSet::default();
    super::Culler::new(&level, super::CullMode::Portal).cull(&level, &cam, &mut open);
    let doorway = (level.cells[eye as usize].portals.iter().copied())
        .find(|&p| {
            open.cells
                .iter()
                .any(|c| c.cell == level.portals[p as usize].other(eye))
        })
        .expect("the eye sees through a doorway");
    let mut bounds = lanthorn_geom::Aabb::EMPTY;
    for &v in &level.portals[doorway as usize].polygon {
        bounds.add_point(v);
    }
    level.objects.push(lanthorn_level::Object {
        name: "door".into(),
        bounds,
        closes: vec![doorway],
        ..Default::default()
    });
    let mut shut = VisibleSet::default();
    super::Culler::new(&level, super::CullMode::Portal).cull(&level, &cam, &mut shut);
    let mut without = level.clone();
    for c in &mut without.cells {
        c.portals.retain(|&p| p != doorway);
    }
    let mut expected = VisibleSet::default();
    PortalFlow::new(&without).run(&without, &cam, Some(eye), &mut expected);
    assert_eq!(cells(&shut), cells(&expected));
    assert!(cells(&shut).len() < cells(&open).len());
}

/// A room flooded to z 256, split by a pillar standing in the water (so several air cells lie
/// over the water).
fn flooded_room() -> lanthorn_level::Level {
    let source = r#"Scene(
    materials: [(name: "grey", source: Color((0.5, 0.5, 0.5))), (name: "*water", source: Color((0.1, 0.3, 0.4)))],
    ops: [
        (brush: Box(min: (0, 0, 0), max: (1024, 1024, 640)), medium: Air, material: Some("grey")),
        (brush: Box(min: (448, 448, 0), max: (576, 576, 640)), medium: Solid, material: Some("grey")),
        (brush: Box(min: (0, 0, 0), max: (1024, 1024, 256)), medium: Water, only: Some([Air]), material: Some("*water")),
    ],
    entities: [[("classname", "worldspawn"), ("light", "96")]],
)"#;
    let scene = lanthorn_compile::scene::parse(source).unwrap();
    lanthorn_compile::scene::compile_scene(&scene, &Default::default())
        .unwrap()
        .0
}

/// Over the flooded room's pool (under it for `z` below 256), looking down across it.
fn pool_camera(z: f32) -> Camera {
    let spec = CameraSpec {
        position: Vec3::new(200.0, 100.0, z),
        yaw: 45.0,
        pitch: -25.0,
    };
    Camera::new(spec, 16.0 / 9.0)
}

/// With water reflecting, the eye over the pool sees one view — the air mirrored in the
/// water's plane, seeded in every air cell over the water (the level's own liquid portals are
/// the oracle) — and the flow does not go under the water; off, or with the eye under the
/// water, there is no view. Off, the flow does not go under the water either (it hides what
/// lies under it: `liquid_cover`), but for an eye within the near zone over it (the near plane
/// may cut the water open).
#[test]
fn water_seen_from_the_air_opens_one_reflection_seeded_over_all_of_it() {
    use lanthorn_level::{portal_flags, Medium};
    let level = flooded_room();
    let medium = |c: u32| level.cells[c as usize].medium;
    let mut over_water: Vec<u32> = (level.portals.iter())
        .filter(|p| p.flags & portal_flags::LIQUID_SURFACE != 0)
        .flat_map(|p| [p.front, p.back])
        .filter(|&c| medium(c) == Medium::Air)
        .collect();
    over_water.sort_unstable();
    over_water.dedup();
    assert!(
        over_water.len() > 1,
        "the pillar splits the air: {over_water:?}"
    );
    let run = |z: f32, reflect: bool| {
        let cam = pool_camera(z);
        let mut flow = PortalFlow::new(&level);
        flow.reflect_water = reflect;
        let mut out = VisibleSet::default();
        flow.run(&level, &cam, level.locate(cam.position), &mut out);
        out
    };
    let water_reached = |v: &VisibleSet| {
        v.cells
            .iter()
            .any(|c| c.view == 0 && medium(c.cell) == Medium::Water)
    };
    let off = run(400.0, false);
    assert!(off.views.is_empty() && !water_reached(&off));
    let skimming = run(260.0, false);
    assert!(water_reached(&skimming), "4 units over the water");
    let on = run(400.0, true);
    assert_eq!(on.views.len(), 1, "one reflection for one plane");
    let view = on.views[0];
    assert!(view.reflection && view.mirrored && view.parent == 0);
    assert!((view.eye - Vec3::new(200.0, 100.0, 112.0)).length() < 1e-3);
    // It keeps what lies above the water.
    assert!(
        view.clip_plane
            .dot(Vec3::new(300.0, 300.0, 260.0).extend(1.0))
            > 0.0
    );
    assert!(
        view.clip_plane
            .dot(Vec3::new(300.0, 300.0, 250.0).extend(1.0))
            < 0.0
    );
    assert!(!water_reached(&on));
    // Each air cell over the water is seen in the reflection through all the camera sees of
    // its water surface (a point on the plane is its own mirror image, so the surface's
    // octagon is the camera's).
    let cam = pool_camera(400.0);
    let liquid = level
        .portals
        .iter()
        .filter(|p| p.flags & portal_flags::LIQUID_SURFACE != 0);
    let mut seen = 0;
    for p in liquid {
        let air = if medium(p.front) == Medium::Air {
            p.front
        } else {
            p.back
        };
        let scratch = (&mut Vec::new(), &mut Vec::new());
        let Some(surface) =
            super::screen_octagon::portal_octagon(&cam.view_proj(), &p.polygon, scratch)
        else {
            continue;
        };
        // What the camera sees of it: through its air cell's octagon.
        let Some(seen_through) = on.cells.iter().find(|v| v.view == 0 && v.cell == air) else {
            continue;
        };
        let surface = surface.intersect(&seen_through.octagon);
        if surface.is_empty() {
            continue;
        }
        seen += 1;
        let in_view = on.cells.iter().find(|v| v.view == 1 && v.cell == air);
        let octagon = in_view
            .map(|v| v.octagon)
            .unwrap_or(lanthorn_geom::Octagon::EMPTY);
        assert_eq!(
            octagon.union(&surface),
            octagon,
            "air cell {air}: {octagon:?} misses {surface:?}"
        );
    }
    assert!(seen > 1, "the eye sees {seen} water surfaces");
    let under = run(200.0, true);
    assert!(
        under.views.is_empty(),
        "no reflection seen from under the water"
    );
}

/// `VisibleSet::nothing_under_liquids` says what the flow found: true exactly where no cell it
/// reached lies on the far side of the water from the eye (the cells' own medium is the
/// oracle), over eyes above, under and skimming the flooded room's water (within the near
/// plane's reach the flow goes through), looking several ways.
#[test]
fn the_flow_says_whether_it_reached_under_a_liquid() {
    let level = flooded_room();
    let medium = |c: u32| level.cells[c as usize].medium;
    let mut flow = PortalFlow::new(&level);
    let mut out = VisibleSet::default();
    let (mut clear, mut under) = (0, 0);
    for z in [
        120.0, 200.0, 250.0, 253.0, 255.0, 257.0, 259.0, 262.0, 300.0, 400.0, 600.0,
    ] {
        for (x, y) in [(200.0, 100.0), (850.0, 300.0), (300.0, 850.0)] {
            for yaw in [0.0, 45.0, 135.0, 225.0] {
                for pitch in [-60.0, -20.0, 0.0, 30.0] {
                    let spec = CameraSpec {
                        position: Vec3::new(x, y, z),
                        yaw,
                        pitch,
                    };
                    let cam = Camera::new(spec, 16.0 / 9.0);
                    let Some(eye) = level.locate(cam.position) else {
                        continue;
                    };
                    flow.run(&level, &cam, Some(eye), &mut out);
                    let across =
                        (out.cells.iter()).any(|c| c.view == 0 && medium(c.cell) != medium(eye));
                    assert_eq!(
                        out.nothing_under_liquids, !across,
                        "eye {:?} yaw {yaw} pitch {pitch}",
                        cam.position
                    );
                    clear += out.nothing_under_liquids as u32;
                    under += across as u32;
                }
            }
        }
    }
    assert!(
        clear > 100 && under > 5,
        "{clear} clear, {under} across the water"
    );
}

/// A fence on a doorless wall of the maze (a texture with holes drawn on solid): the room
/// behind it shows through its holes, which no portal leads to. The culler adds that room with
/// the fence's screen region; the same wall without the fence hides it (the oracle: the ray
/// through the fence's centre crosses the wall plane into that room and nowhere else). The
/// same fence standing in the room shows only what the portals lead to.
#[test]
fn a_room_seen_through_a_fence_on_a_wall_is_drawn_where_the_fence_is() {
    use lanthorn_level::{surface_flags, Surface, Vertex};
    let spec = MazeSpec::default();
    let (east, _) = maze_doors(&spec);
    let (nx, r) = (spec.nx as usize, spec.room);
    // A closed wall between room (x, y) and (x + 1, y).
    let k = (0..east.len())
        .find(|&k| !east[k] && k % nx + 1 < nx)
        .expect("a doorless wall");
    let (x, y) = ((k % nx) as f32, (k / nx) as f32);
    let (room, behind) = (k as u32, k as u32 + 1);
    let wall = (x + 1.0) * r;
    let eye = Vec3::new(wall - 40.0, (y + 0.5) * r, 48.0);
    let cam = Camera::new(
        CameraSpec {
            position: eye,
            yaw: 0.0,
            pitch: 0.0,
        },
        16.0 / 9.0,
    );
    let centre = Vec3::new(wall, eye.y, eye.z);
    let seen_at_centre = |level: &lanthorn_level::Level| {
        let mut culler = super::Culler::new(level, super::CullMode::Portal);
        let mut vis = VisibleSet::default();
        culler.cull(level, &cam, &mut vis);
        let ndc = cam.view_proj().project_point3(centre);
        vis.cells
            .iter()
            .any(|c| c.cell == behind && c.octagon.contains(Vec2::new(ndc.x, ndc.y)))
    };
    let mut level = maze(&spec);
    assert!(
        !seen_at_centre(&level),
        "the wall alone hides the room behind it"
    );
    // The fence: a 64-unit square on the wall, facing the eye's room.
    let corner = |dy: f32, dz: f32| Vertex {
        position: Vec3::new(wall - 0.5, eye.y + dy, eye.z + dz),
        ..Default::default()
    };
    level.surfaces.push(Surface {
        vertices: vec![
            corner(-32.0, -32.0),
            corner(32.0, -32.0),
            corner(32.0, 32.0),
            corner(-32.0, 32.0),
        ],
        indices: vec![0, 2, 1, 0, 3, 2],
        normal: -Vec3::X,
        flags: surface_flags::FENCE,
        ..Default::default()
    });
    let fence = level.surfaces.len() as u32 - 1;
    level.cells[room as usize].surfaces.push(fence);
    assert!(
        seen_at_centre(&level),
        "the room behind the fence is drawn where the fence is"
    );
    // The same fence moved into the middle of the eye's room stands in open space: what its
    // holes show the portals lead to, and it opens no window.
    for v in &mut level.surfaces[fence as usize].vertices {
        v.position.x -= 20.0;
    }
    let mut culler = super::Culler::new(&level, super::CullMode::Portal);
    culler.cull(&level, &cam, &mut VisibleSet::default());
    assert!(culler.fences.is_empty(), "a fence in open space");
    assert!(!seen_at_centre(&level), "nothing past the wall behind it");
}

/// An eye at a random point of an open cell, turned a random way, within 30° of level.
fn random_eye(level: &lanthorn_level::Level, rng: &mut Rng) -> CameraSpec {
    loop {
        let p = lanthorn_testdata::point_in_a_cell(level, &mut || rng.unit_f32());
        if level.locate(p).is_some() {
            return CameraSpec {
                position: p,
                yaw: rng.unit_f32() * 360.0,
                pitch: (rng.unit_f32() - 0.5) * 60.0,
            };
        }
    }
}

/// On the id maps, whose BSPs carry id's PVS: from random eyes the camera's flow reaches only
/// cells the PVS lets it (the rows of the file, as GLQuake marks them), where no wall is cut by
/// the near plane; and at e2m6's player start, past a pillar, the bound leaves out cells the
/// octagons alone let through.
#[test]
fn the_flow_on_a_level_with_a_pvs_never_reaches_past_it() {
    let dir = lanthorn_testdata::realdata_dir().join("quake/bsp");
    if !dir.join("e2m6.bsp").is_file() {
        lanthorn_testdata::missing_realdata(&dir);
        return;
    }
    let (mut marked, mut near) = (Vec::new(), Vec::new());
    for (k, name) in ["e1m1", "e2m6", "dm3"].into_iter().enumerate() {
        let level = lanthorn_load::load(&dir.join(format!("{name}.bsp"))).unwrap();
        let mut culler = super::Culler::new(&level, super::CullMode::Portal);
        let mut rng = Rng::seeded(40 + k as u64);
        let (mut checked, mut out) = (0, VisibleSet::default());
        while checked < 60 {
            let spec = random_eye(&level, &mut rng);
            let p = spec.position;
            culler.cull(&level, &Camera::new(spec, 16.0 / 9.0), &mut out);
            if !culler.cut.is_empty() || !culler.fences.is_empty() {
                continue;
            }
            checked += 1;
            super::pvs::mark(&level, p, &mut marked, &mut near);
            for c in out.cells.iter().filter(|c| c.view == 0) {
                assert!(
                    marked[c.cell as usize],
                    "{name} {spec:?}: cell {} past the PVS",
                    c.cell
                );
            }
        }
    }
    let level = lanthorn_load::load(&dir.join("e2m6.bsp")).unwrap();
    let spec = CameraSpec {
        position: Vec3::new(608.0, -496.0, -418.0),
        yaw: 90.0,
        pitch: 0.0,
    };
    let camera = Camera::new(spec, 16.0 / 9.0);
    let mut flow = PortalFlow::new(&level);
    let (mut bounded, mut octagons_alone) = (VisibleSet::default(), VisibleSet::default());
    flow.run(
        &level,
        &camera,
        level.locate(spec.position),
        &mut octagons_alone,
    );
    super::pvs::mark(&level, spec.position, &mut flow.pvs_bound, &mut near);
    flow.run(&level, &camera, level.locate(spec.position), &mut bounded);
    assert!(
        bounded.cells.len() + 10 < octagons_alone.cells.len(),
        "{} cells bounded, {} by octagons alone",
        bounded.cells.len(),
        octagons_alone.cells.len()
    );
}

/// The camera's cells come in the BSP's front-to-back order from the eye, so that drawn in
/// that order no cell covers one drawn before it: on the id maps from random eyes, every two
/// visible cells that each lie in one leaf are in the order a walk of the tree from the eye
/// (the oracle, `ranks_by_walk`) puts their leaves in.
#[test]
fn the_cameras_cells_come_front_to_back() {
    use crate::front_to_back::tests::ranks_by_walk;
    let dir = lanthorn_testdata::realdata_dir().join("quake/bsp");
    if !dir.join("e1m4.bsp").is_file() {
        lanthorn_testdata::missing_realdata(&dir);
        return;
    }
    let mut pairs = 0;
    for (k, name) in ["e1m1", "e1m4", "dm3"].into_iter().enumerate() {
        let level = lanthorn_load::load(&dir.join(format!("{name}.bsp"))).unwrap();
        // How many leaves each cell lies in: those in one are compared.
        let mut leaves = vec![0; level.cells.len()];
        for &c in level.bsp.leaves.iter().flat_map(|l| &l.cells) {
            leaves[c as usize] += 1;
        }
        let mut culler = super::Culler::new(&level, super::CullMode::Portal);
        let mut rng = Rng::seeded(70 + k as u64);
        let mut out = VisibleSet::default();
        let mut eyes = 0;
        while eyes < 60 {
            let spec = random_eye(&level, &mut rng);
            let p = spec.position;
            let camera = Camera::new(spec, 16.0 / 9.0);
            culler.cull(&level, &camera, &mut out);
            // What a wall cut by the near plane or a fence lets through is added after the
            // flow's cells, by index; a portal whose plane passes within the near zone of the
            // eye is crossed from either side (`PortalFlow::seen_through`), against the order.
            let near_zone = |&p: &u32| {
                let d = level.portals[p as usize].plane.distance(spec.position);
                d.abs() < camera.near * 2.0
            };
            let near_portal = (out.cells.iter())
                .flat_map(|c| &level.cells[c.cell as usize].portals)
                .any(near_zone);
            if !culler.cut.is_empty() || !culler.fences.is_empty() || near_portal {
                continue;
            }
            eyes += 1;
            let rank = ranks_by_walk(&level.bsp, level.cells.len(), p);
            let ranked: Vec<(u32, usize)> = (out.cells.iter())
                .filter(|c| c.view == 0 && leaves[c.cell as usize] == 1)
                .filter_map(|c| Some((c.cell, rank[c.cell as usize]?)))
                .collect();
            for w in ranked.windows(2) {
                assert!(
                    w[0].1 < w[1].1,
                    "{name} {spec:?}: cell {} (rank {}) drawn before cell {} (rank {})",
                    w[0].0,
                    w[0].1,
                    w[1].0,
                    w[1].1
                );
            }
            pairs += ranked.len().saturating_sub(1);
        }
    }
    assert!(pairs > 1500, "{pairs} pairs of cells checked");
}
