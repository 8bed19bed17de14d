use std::collections::BTreeSet;

use glam::{Mat4, Vec3, Vec4};

use super::*;
use lanthorn_level::{surface_flags, Cell, Level, Object, Surface, Vertex};
use lanthorn_vis::{View, VisibleCell, VisibleObject};

fn eye_at(position: Vec3, yaw: f32) -> lanthorn_geom::CameraSpec {
    lanthorn_geom::CameraSpec {
        position,
        yaw,
        pitch: 0.0,
    }
}

/// The screen rectangle from corner `lo` to `hi` (NDC) as an octagon.
fn rectangle(lo: glam::Vec2, hi: glam::Vec2) -> Octagon {
    Octagon::from_points([
        lo,
        hi,
        glam::Vec2::new(lo.x, hi.y),
        glam::Vec2::new(hi.x, lo.y),
    ])
}

/// `build_draws` with no surface tests (whole cells, as before per-surface culling).
fn whole_cells(
    mesh: &WorldMesh,
    visible: &VisibleSet,
    max_records: usize,
    multi_draw: bool,
) -> DrawList {
    let camera = Camera::new(eye_at(Vec3::ZERO, 0.0), 1.0);
    build_draws(
        mesh,
        &DrawInputs {
            visible,
            camera: &camera,
            max_records,
            multi_draw,
            tests: SurfaceTests::NONE,
            cache: None,
        },
    )
}

/// The camera's draw inputs for `visible` with `tests`, records to spare, multi-draw, no cache.
fn inputs_with<'a>(
    visible: &'a VisibleSet,
    camera: &'a Camera,
    tests: SurfaceTests,
) -> DrawInputs<'a> {
    DrawInputs {
        visible,
        camera,
        max_records: 256,
        multi_draw: true,
        tests,
        cache: None,
    }
}

/// A quad (two triangles) with the given surface flags.
fn quad(flags: u32) -> Surface {
    let v = |x: f32, y: f32| Vertex {
        position: Vec3::new(x, y, 0.0),
        ..Default::default()
    };
    Surface {
        vertices: vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)],
        indices: vec![0, 1, 2, 0, 2, 3],
        flags,
        ..Default::default()
    }
}

/// Three cells in a row and a door: cell 0 has a wall (surface 0) and a sky (1); cells 1
/// and 2 have walls (2, 4) and share a pool's surface (3); the door is surface 5.
fn three_cells() -> Level {
    let cell = |surfaces: Vec<u32>| Cell {
        surfaces,
        ..Default::default()
    };
    Level {
        surfaces: vec![
            quad(0),
            quad(surface_flags::SKY),
            quad(0),
            quad(surface_flags::LIQUID),
            quad(0),
            quad(0),
        ],
        cells: vec![cell(vec![0, 1]), cell(vec![2, 3]), cell(vec![4, 3])],
        objects: vec![Object {
            surfaces: vec![5],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn octagon(x0: f32, x1: f32) -> Octagon {
    Octagon {
        min: [x0, -0.5, x0 - 0.5, x0 - 0.5],
        max: [x1, 0.5, x1 + 0.5, x1 + 0.5],
    }
}

fn seen(cell: u32, octagon: Octagon, view: u32) -> VisibleCell {
    VisibleCell {
        cell,
        octagon,
        view,
    }
}

/// Each command as (record slot, the surfaces its indices belong to): read back through
/// the vertices, not the mesh's range bookkeeping.
fn drawn(mesh: &WorldMesh, list: &DrawList, batch: usize) -> Vec<(u32, BTreeSet<u32>)> {
    let (first, count) = list.batches[batch];
    list.commands[first as usize..(first + count) as usize]
        .iter()
        .map(|c| {
            let range = c.first_index as usize..(c.first_index + c.index_count) as usize;
            let surfaces = mesh.indices[range]
                .iter()
                .map(|&i| mesh.vertices[i as usize].surface)
                .collect();
            (c.first_instance, surfaces)
        })
        .collect()
}

fn set(s: &[u32]) -> BTreeSet<u32> {
    s.iter().copied().collect()
}

const CAMERA_OPAQUE: usize = 0;
const CAMERA_SKY: usize = 1;
const CAMERA_LIQUID: usize = 3;
const PORTAL_OPAQUE: usize = 4;
const PORTAL_LIQUID: usize = 7;
const MIRRORED_OPAQUE: usize = 8;

#[test]
fn the_camera_view_gets_a_record_per_cell_object_and_liquid() {
    let level = three_cells();
    let mesh = WorldMesh::build(&level, &[]);
    let (a, b, c) = (octagon(-0.2, 0.4), octagon(-0.9, -0.1), octagon(0.1, 0.3));
    let visible = VisibleSet {
        cells: vec![seen(2, a, 0), seen(1, b, 0)],
        objects: vec![VisibleObject {
            object: 0,
            view: 0,
            octagon: c,
            origin: Vec3::new(1.0, 2.0, 3.0),
            light: [0.5, 1.0, 2.0],
            ambient: None,
            first_cell: u32::MAX,
        }],
        ..Default::default()
    };
    let origin = [[1.0, 2.0, 3.0, 0.0]];
    let list = whole_cells(&mesh, &visible, 256, true);
    let record = |octagon, cell, origin| DrawRecord {
        octagon,
        view: 0,
        cell,
        depth: 0,
        light: if cell == u32::MAX && origin != [0.0; 4] {
            32 | (64 << 8) | (128 << 16)
        } else {
            LIGHT_ONE
        },
        origin,
    };
    assert_eq!(
        list.records,
        [
            record(a, 2, [0.0; 4]),
            record(b, 1, [0.0; 4]),
            record(c, u32::MAX, origin[0]),
            // The pool, once, seen through both cells that list it.
            record(a.union(&b), u32::MAX, [0.0; 4]),
        ]
    );
    // Front to back: cell 2's wall, cell 1's wall, then the door; no sky is visible.
    assert_eq!(
        drawn(&mesh, &list, CAMERA_OPAQUE),
        [(0, set(&[4])), (1, set(&[2])), (2, set(&[5]))]
    );
    assert!(drawn(&mesh, &list, CAMERA_SKY).is_empty());
    assert_eq!(drawn(&mesh, &list, CAMERA_LIQUID), [(3, set(&[3]))]);
    for batch in super::KINDS..BATCHES {
        assert!(drawn(&mesh, &list, batch).is_empty(), "batch {batch}");
    }
    assert_eq!(
        list.stats,
        WorldStats {
            draw_calls: 2,
            sub_draws: 4,
            views: 1,
            triangles: 8,
            surfaces: 3,
            ..Default::default()
        }
    );
    // Without multi-draw every sub-draw is its own draw command.
    let direct = whole_cells(&mesh, &visible, 256, false);
    assert_eq!(direct.stats.draw_calls, 4);
    assert_eq!(direct.commands.len(), list.commands.len());
}

/// The sky's surfaces are counted apart (quakespasm's wpoly leaves them out), as many as the
/// sky batch's commands draw, read back through their vertices.
#[test]
fn the_sky_drawn_is_counted_apart() {
    let level = three_cells();
    let mesh = WorldMesh::build(&level, &[]);
    let visible = VisibleSet {
        cells: vec![
            seen(0, octagon(-0.5, 0.5), 0),
            seen(1, octagon(-0.9, -0.1), 0),
        ],
        ..Default::default()
    };
    let list = whole_cells(&mesh, &visible, 256, true);
    let sky: BTreeSet<u32> = drawn(&mesh, &list, CAMERA_SKY)
        .into_iter()
        .flat_map(|(_, s)| s)
        .collect();
    assert_eq!(sky, set(&[1]));
    assert_eq!(list.stats.sky_surfaces, sky.len() as u32);
    // Cell 0's wall and sky, cell 1's wall and pool.
    assert_eq!(list.stats.surfaces, 4);
}

#[test]
fn portal_views_draw_their_own_liquids_and_mirrors_their_own_batch() {
    let level = three_cells();
    let mesh = WorldMesh::build(&level, &[]);
    let view = |mirrored| View {
        view_proj: Mat4::IDENTITY,
        eye: Vec3::ZERO,
        clip_plane: Vec4::Z,
        mirrored,
        parent: 0,
        portal: 0,
        reflection: false,
    };
    let full = Octagon::FULL;
    let visible = VisibleSet {
        cells: vec![seen(0, full, 0), seen(1, full, 1), seen(2, full, 2)],
        views: vec![view(false), view(true)],
        ..Default::default()
    };
    let list = whole_cells(&mesh, &visible, 256, true);
    let views: Vec<u32> = list.records.iter().map(|r| r.view).collect();
    assert_eq!(views, [0, 1, 2], "no camera-view liquid record");
    assert_eq!(drawn(&mesh, &list, CAMERA_OPAQUE), [(0, set(&[0]))]);
    assert_eq!(drawn(&mesh, &list, CAMERA_SKY), [(0, set(&[1]))]);
    assert!(drawn(&mesh, &list, CAMERA_LIQUID).is_empty());
    assert_eq!(drawn(&mesh, &list, PORTAL_OPAQUE), [(1, set(&[2]))]);
    // Through the teleporter the pool is drawn with its cell's record.
    assert_eq!(drawn(&mesh, &list, PORTAL_LIQUID), [(1, set(&[3]))]);
    assert_eq!(drawn(&mesh, &list, MIRRORED_OPAQUE), [(2, set(&[4]))]);
    assert_eq!(list.stats.views, 3);
}

#[test]
fn records_beyond_the_buffer_are_not_drawn() {
    let level = three_cells();
    let mesh = WorldMesh::build(&level, &[]);
    let visible = VisibleSet::everything(&level);
    let all = whole_cells(&mesh, &visible, 256, true);
    assert_eq!(all.records.len(), 5, "3 cells, the door, the pool");
    let cut = whole_cells(&mesh, &visible, 2, true);
    assert_eq!(cut.records, all.records[..2]);
    assert!(cut.commands.iter().all(|c| c.first_instance < 2));
    assert_eq!(
        drawn(&mesh, &cut, CAMERA_OPAQUE),
        [(0, set(&[0])), (1, set(&[2]))]
    );
    assert_eq!(drawn(&mesh, &cut, CAMERA_SKY), [(0, set(&[1]))]);
}

/// A builder reused across frames gives what a fresh one gives (its stamps and scratch
/// never leak between frames).
#[test]
fn a_warm_builder_matches_a_fresh_one() {
    let level = three_cells();
    let mesh = WorldMesh::build(&level, &[]);
    let frames = [
        VisibleSet::everything(&level),
        VisibleSet {
            cells: vec![seen(2, octagon(0.0, 0.5), 0)],
            ..Default::default()
        },
        VisibleSet::everything(&level),
    ];
    let mut warm = DrawBuilder::default();
    for visible in &frames {
        let camera = Camera::new(eye_at(Vec3::ZERO, 0.0), 1.0);
        let inputs = DrawInputs {
            visible,
            camera: &camera,
            max_records: 256,
            multi_draw: true,
            tests: SurfaceTests::ALL,
            cache: None,
        };
        let fresh = build_draws(&mesh, &inputs);
        let got = warm.build(&mesh, &inputs);
        assert_eq!(got.records, fresh.records);
        assert_eq!(got.batches, fresh.batches);
        assert_eq!(got.stats, fresh.stats);
    }
}

/// A wall in the plane x = `x` facing `facing` (±1 along x), over y0..y1 and z -20..20.
fn wall(x: f32, y0: f32, y1: f32, facing: f32) -> Surface {
    let v = |y: f32, z: f32| Vertex {
        position: Vec3::new(x, y, z),
        ..Default::default()
    };
    let mut vertices = vec![v(y0, -20.0), v(y1, -20.0), v(y1, 20.0), v(y0, 20.0)];
    if facing > 0.0 {
        vertices.reverse();
    }
    Surface {
        vertices,
        indices: vec![0, 1, 2, 0, 2, 3],
        normal: Vec3::X * facing,
        ..Default::default()
    }
}

/// The eye at the origin looks along +X (+Y is to its left): which walls of its cell are
/// drawn, against what is in front, facing it, on screen and inside the cell's octagon.
#[test]
fn surfaces_outside_the_view_or_facing_away_are_not_drawn() {
    let surfaces = vec![
        wall(100.0, -20.0, 20.0, -1.0),  // 0: ahead, facing the eye: drawn
        wall(100.0, -20.0, 20.0, 1.0),   // 1: ahead, its back to the eye
        wall(-100.0, -20.0, 20.0, 1.0),  // 2: behind the eye, facing it
        wall(100.0, 300.0, 340.0, -1.0), // 3: ahead but far left, off screen
        wall(100.0, -60.0, -20.0, -1.0), // 4: ahead, right of 0, facing the eye: drawn
        wall(100.0, 40.0, 80.0, -1.0),   // 5: ahead, on the left half of the screen
    ];
    let level = Level {
        surfaces,
        cells: vec![Cell {
            surfaces: (0..6).collect(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let mesh = WorldMesh::build(&level, &[]);
    let camera = Camera::new(eye_at(Vec3::ZERO, 0.0), 1.0);
    let draw = |octagon: Octagon, tests| {
        let visible = VisibleSet {
            cells: vec![seen(0, octagon, 0)],
            ..Default::default()
        };
        let inputs = DrawInputs {
            visible: &visible,
            camera: &camera,
            max_records: 256,
            multi_draw: true,
            tests,
            cache: None,
        };
        build_draws(&mesh, &inputs)
    };
    let surfaces_of = |list: &DrawList| -> BTreeSet<u32> {
        drawn(&mesh, list, CAMERA_OPAQUE)
            .into_iter()
            .flat_map(|(_, s)| s)
            .collect()
    };
    let whole = draw(Octagon::FULL, SurfaceTests::NONE);
    assert_eq!(surfaces_of(&whole), set(&[0, 1, 2, 3, 4, 5]));
    let culled = draw(Octagon::FULL, SurfaceTests::ALL);
    assert_eq!(surfaces_of(&culled), set(&[0, 4, 5]));
    // 0, 3, 4 and 5 face the same way and lie together: the off-screen 3 splits them
    // into two sub-draws (0, then 4 and 5 merged).
    assert_eq!(culled.stats.sub_draws, 2);
    assert_eq!(culled.stats.triangles, 6);
    // The cell seen only through the right half of the screen: 5 is on the left.
    let right_half = rectangle(glam::Vec2::new(0.0, -1.0), glam::Vec2::ONE);
    assert_eq!(
        surfaces_of(&draw(right_half, SurfaceTests::ALL)),
        set(&[0, 4])
    );
    // Each test alone.
    let plane_only = SurfaceTests {
        octagon: false,
        back_faces: true,
        once: false,
        boxes: false,
    };
    assert_eq!(
        surfaces_of(&draw(Octagon::FULL, plane_only)),
        set(&[0, 2, 3, 4, 5])
    );
    let octagon_only = SurfaceTests {
        octagon: true,
        back_faces: false,
        once: false,
        boxes: false,
    };
    assert_eq!(
        surfaces_of(&draw(Octagon::FULL, octagon_only)),
        set(&[0, 1, 4, 5])
    );
}

/// `--cull pvs` is GLQuake's method as quakespasm draws it. Its oracle is the peer itself:
/// quakespasm 0.95.1's world-polygon counts (`r_speeds`) on e1m1 at 1280×720 at the three
/// cameras of ../shared/tools/quakespasm/RUN.md. Its `fov_adapt` is on unless turned off
/// (`qs_shot.sh` sets `scr_fov_adapt`, which is not a quakespasm cvar), so `fov 90` there
/// is 106.26° across a 16:9 window: 244, 293, 623; with `fov_adapt 0` (90° across): 241,
/// 258, 536 (measured 2026-12-02 with `QS_EXTRA="fov_adapt 0"`).
#[test]
fn glquake_surface_counts_match_quakespasm() {
    let path = lanthorn_testdata::realdata_dir().join("quake/bsp/e1m1.bsp");
    if !path.exists() {
        lanthorn_testdata::missing_realdata(&path);
        return;
    }
    let level = lanthorn_load::load(&path).unwrap();
    let mesh = WorldMesh::build(&level, &[]);
    let count = |spec: &str, fov_x: f32| {
        let mut spec: lanthorn_geom::CameraSpec = spec.parse().unwrap();
        // Quakespasm's eye sits 1/32 off every axis (to stay off node planes).
        spec.position += Vec3::splat(1.0 / 32.0);
        let mut camera = Camera::new(spec, 1280.0 / 720.0);
        camera.fov_x = fov_x;
        let mut visible = VisibleSet::default();
        lanthorn_vis::Culler::new(&level, lanthorn_vis::CullMode::Pvs).cull(
            &level,
            &camera,
            &mut visible,
        );
        visible.objects.clear(); // the world model only, as quakespasm draws it
        let inputs = DrawInputs {
            visible: &visible,
            camera: &camera,
            max_records: usize::MAX,
            multi_draw: true,
            tests: SurfaceTests::GLQUAKE,
            cache: None,
        };
        build_draws(&mesh, &inputs).stats.surfaces
    };
    // quakespasm's AdaptFovx: a 4:3 field of view widened to the window.
    let adapted = 2.0 * (16.0f32 / 9.0 * 0.75).atan().to_degrees();
    let cameras = [
        ("480,-352,110,90,0", 244, 241),
        ("-112,704,56,45,-20", 293, 258),
        ("1376,1936,64,135,-20", 623, 536),
    ];
    for (spec, adapted_count, narrow_count) in cameras {
        assert_eq!(count(spec, adapted), adapted_count, "{spec} at {adapted}°");
        assert_eq!(count(spec, 90.0), narrow_count, "{spec} at 90°");
    }
}

/// With the surface cache, each camera surface the builder draws goes where the plan's state
/// of every surface (worked out for all of them at once) says: the cached batches, or drawn
/// directly and asked to bake; the triangles drawn are those drawn with no cache. On e1m1
/// from its intermission cameras and random eyes, several frames each with the bakes done.
#[test]
fn the_cache_routes_each_drawn_surface_by_its_state() {
    use crate::world::surface_cache::{state, SurfacePlan};
    use lanthorn_level::styles::{StyleMode, MAX_STYLES};
    let path = lanthorn_testdata::realdata_dir().join("quake/bsp/e1m1.bsp");
    if !path.exists() {
        return lanthorn_testdata::missing_realdata(&path);
    }
    let level = lanthorn_load::load(&path).unwrap();
    let mesh = WorldMesh::build(&level, &[]);
    let mut plan = SurfacePlan::new(&level, &mesh);
    let mut flow = lanthorn_vis::PortalFlow::new(&level);
    let mut visible = VisibleSet::default();
    let mut builder = DrawBuilder::default();
    let scales = [1.0; MAX_STYLES];
    let (mut cached, mut baked) = (0, 0);
    let mut rnd = lanthorn_testdata::unit_random(5);
    let mut eyes = vec![
        (Vec3::new(1376.0, 1936.0, 64.0), 135.0),
        (Vec3::new(480.0, -352.0, 110.0), 90.0),
    ];
    for _ in 0..6 {
        let eye = lanthorn_testdata::point_in_a_cell(&level, &mut rnd);
        eyes.push((eye, rnd() * 360.0));
    }
    for (eye, yaw) in eyes {
        let camera = Camera::new(eye_at(eye, yaw), 16.0 / 9.0);
        flow.run(&level, &camera, level.locate(eye), &mut visible);
        for _frame in 0..3 {
            let all = plan.states(eye, 640.0, &scales, StyleMode::Normal);
            plan.begin_frame(eye, 640.0, &scales, StyleMode::Normal);
            let inputs = DrawInputs {
                visible: &visible,
                camera: &camera,
                max_records: usize::MAX,
                multi_draw: true,
                tests: SurfaceTests::ALL,
                cache: Some(&plan),
            };
            let list = builder.build(&mesh, &inputs).clone();
            let direct = build_draws(
                &mesh,
                &DrawInputs {
                    cache: None,
                    ..inputs
                },
            );
            assert_eq!(list.stats.triangles, direct.stats.triangles, "eye {eye}");
            // None made a no-op by `keep_within_indices`: the builder pushes no empty run.
            assert!(list.commands.iter().all(|c| c.index_count > 0), "eye {eye}");
            let held = [
                state::CACHED,
                state::CACHED_MAGNIFIED,
                state::CACHED_TWO_LEVELS,
            ];
            for &s in &list.cached_surfaces {
                let st = all[s as usize];
                assert!(held.contains(&st), "{s}: {st}");
            }
            let with = |want| {
                let of = |s: &&u32| all[**s as usize] == want;
                list.cached_surfaces.iter().filter(of).count() as u32
            };
            assert_eq!(list.stats.magnified, with(state::CACHED_MAGNIFIED));
            assert_eq!(list.stats.two_levels, with(state::CACHED_TWO_LEVELS));
            for &s in &list.bake_surfaces {
                assert_eq!(all[s as usize], state::BAKE, "surface {s}, eye {eye}");
            }
            (cached, baked) = (
                cached + list.cached_surfaces.len(),
                baked + list.bake_surfaces.len(),
            );
            plan.plan(&list.cached_surfaces, &list.bake_surfaces);
        }
    }
    assert!(
        cached > 100 && baked > 100,
        "{cached} drawn cached, {baked} asked to bake"
    );
}

/// A wall two visible cells list is drawn once, with a record of its own: the union of the
/// two cells' octagons; walls of one cell keep that cell's record.
#[test]
fn a_surface_of_several_visible_cells_is_drawn_once_with_their_union() {
    let cell = |surfaces: Vec<u32>| Cell {
        surfaces,
        ..Default::default()
    };
    let level = Level {
        surfaces: vec![quad(0), quad(0), quad(0)],
        cells: vec![cell(vec![0, 1]), cell(vec![0, 2])],
        ..Default::default()
    };
    let mesh = WorldMesh::build(&level, &[]);
    let (a, b) = (octagon(-0.9, -0.1), octagon(0.2, 0.6));
    let visible = VisibleSet {
        cells: vec![seen(1, a, 0), seen(0, b, 0)],
        ..Default::default()
    };
    let camera = Camera::new(eye_at(Vec3::ZERO, 0.0), 1.0);
    let once = SurfaceTests {
        once: true,
        ..SurfaceTests::NONE
    };
    let inputs = inputs_with(&visible, &camera, once);
    let list = build_draws(&mesh, &inputs);
    assert_eq!(list.records.len(), 3, "two cells and the shared wall");
    assert_eq!(list.records[2].octagon, a.union(&b));
    assert_eq!(list.records[2].cell, u32::MAX);
    let mut got = drawn(&mesh, &list, CAMERA_OPAQUE);
    got.sort();
    assert_eq!(got, [(0, set(&[2])), (1, set(&[1])), (2, set(&[0]))]);
    assert_eq!(list.stats.surfaces, 3);
    // Per cell, the wall is drawn twice, each time with its cell's octagon.
    let per_cell = whole_cells(&mesh, &visible, 256, true);
    let mut got = drawn(&mesh, &per_cell, CAMERA_OPAQUE);
    got.sort();
    assert_eq!(got, [(0, set(&[0, 2])), (1, set(&[0, 1]))]);
    // No room for its record: drawn per cell, still conservative.
    let tight = build_draws(
        &mesh,
        &DrawInputs {
            max_records: 2,
            ..inputs
        },
    );
    assert_eq!(tight.records.len(), 2);
    assert_eq!(tight.stats.triangles, per_cell.stats.triangles);
}

/// A curved surface's points (here a box's corners) pass the octagon test where some point
/// of their bounds shows in the octagon: never short (points sampled all through the box,
/// projected, are the oracle), and where the near plane cuts them not the whole screen (a box
/// at the eye's left never meets the right half).
#[test]
fn a_curved_surface_beside_the_eye_meets_only_the_octagons_its_bounds_show_in() {
    let camera = Camera::new(eye_at(Vec3::ZERO, 0.0), 16.0 / 9.0);
    let vp = camera.view_proj();
    let right_half = rectangle(glam::Vec2::new(0.0, -1.0), glam::Vec2::ONE);
    // Looking along +X, +Y is to the left: a box from behind the eye to far ahead, on the left.
    let left = [Vec3::new(-50.0, 10.0, -20.0), Vec3::new(300.0, 60.0, 20.0)];
    assert!(!points_meet_octagon(&vp, &left, Vec3::ZERO, &right_half));
    assert!(points_meet_octagon(&vp, &left, Vec3::ZERO, &Octagon::FULL));
    let mut rng = lanthorn_geom::rng::XorShift::seeded(11);
    let (mut shown, mut passed_unseen) = (0, 0);
    for _ in 0..400 {
        let mut r = |a: f32, b: f32| a + (b - a) * rng.unit_f32();
        let a = Vec3::new(r(-200.0, 200.0), r(-200.0, 200.0), r(-100.0, 100.0));
        let b = a + Vec3::new(r(1.0, 300.0), r(1.0, 300.0), r(1.0, 200.0));
        let (lo, hi) = (
            glam::Vec2::new(r(-1.0, 0.8), r(-1.0, 0.8)),
            glam::Vec2::new(0.2, 0.2),
        );
        let octagon = rectangle(lo, lo + hi);
        let shows = (0..2000).any(|_| {
            let p = Vec3::new(r(a.x, b.x), r(a.y, b.y), r(a.z, b.z));
            let c = vp * p.extend(1.0);
            c.w - c.z >= 0.0 && octagon.contains(glam::Vec2::new(c.x, c.y) / c.w)
        });
        let corners = lanthorn_geom::Aabb::new(a, b).corners();
        let passes = points_meet_octagon(&vp, &corners, Vec3::ZERO, &octagon);
        assert!(
            passes || !shows,
            "box {a} {b} shows in {octagon:?} but fails"
        );
        shown += usize::from(shows);
        passed_unseen += usize::from(passes && !shows);
    }
    assert!(shown > 40 && shown < 360, "{shown} of 400 boxes show");
    assert!(
        passed_unseen < 40,
        "{passed_unseen} boxes pass that no sample shows"
    );
}

/// A sub-draw that would read past the index buffer (its end, or `first + count` past u32)
/// draws nothing; the others stay as they were.
#[test]
fn sub_draws_past_the_indices_draw_nothing() {
    let command = |first_index: u32, index_count: u32| DrawCommand {
        index_count,
        instance_count: 1,
        first_index,
        base_vertex: 0,
        first_instance: 7,
    };
    let mut commands = vec![
        command(0, 30),
        command(27, 3),
        command(27, 6),
        command(30, 0),
        command(31, 3),
        command(u32::MAX, 3),
        command(3, u32::MAX),
    ];
    keep_within_indices(&mut commands, 30);
    let counts: Vec<u32> = commands.iter().map(|c| c.index_count).collect();
    assert_eq!(counts, [30, 3, 0, 0, 0, 0, 0]);
    assert!(commands.iter().all(|c| c.first_instance == 7));
}

/// An object is drawn just before the first visible cell it is linked to (front to back: it
/// may cover what that cell and those after it show), in its own record, whether each cell's
/// surfaces are tested where they are listed or once a frame (`SurfaceTests::once`); one found
/// otherwise (`first_cell` none) comes after every cell.
#[test]
fn an_object_is_drawn_before_the_first_cell_it_is_seen_in() {
    let level = three_cells();
    let mesh = WorldMesh::build(&level, &[]);
    let (a, b, c) = (octagon(-0.2, 0.4), octagon(-0.9, -0.1), octagon(0.1, 0.3));
    let object = |first_cell| VisibleObject {
        object: 0,
        view: 0,
        octagon: c,
        origin: Vec3::ZERO,
        light: [1.0; 3],
        ambient: None,
        first_cell,
    };
    let camera = Camera::new(eye_at(Vec3::ZERO, 0.0), 1.0);
    for once in [false, true] {
        for (first_cell, order) in [(1, [4, 5, 2]), (0, [5, 4, 2]), (u32::MAX, [4, 2, 5])] {
            let visible = VisibleSet {
                cells: vec![seen(2, a, 0), seen(1, b, 0)],
                objects: vec![object(first_cell)],
                ..Default::default()
            };
            let tests = SurfaceTests {
                once,
                ..SurfaceTests::NONE
            };
            let list = build_draws(&mesh, &inputs_with(&visible, &camera, tests));
            let surfaces: Vec<u32> = drawn(&mesh, &list, CAMERA_OPAQUE)
                .into_iter()
                .flat_map(|(_, s)| s)
                .collect();
            assert_eq!(surfaces, order, "first cell {first_cell}, once {once}");
            // The door's record is its own, wherever it stands.
            let door = list.records.iter().find(|r| r.cell == u32::MAX).unwrap();
            assert_eq!(door.octagon, c);
            // World surfaces only: the door is not counted.
            assert_eq!(
                list.stats.surfaces, 3,
                "first cell {first_cell}, once {once}"
            );
        }
    }
}
