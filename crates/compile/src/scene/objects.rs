//! A scene's objects: groups of brushes outside the CSG world (doors, lifts, lanterns, props).
//! Each object's faces are its brushes' faces less the parts inside its other brushes; a
//! moving object gets no lightmap (it is lit where it is, each frame), a fixed one is baked
//! like the world. A door closes the portals its closed box covers.

use glam::{DVec3, Vec3};

use super::csg;
use super::materials::{check_texture, SceneMaterials};
use super::scene_file::{brush_planes, Scene, SceneBrush, SceneMotion, SceneObject};
use super::SceneError;
use crate::draft::{ObjectDraft, SurfaceDraft};
use crate::polyhedron::PlanePool;
use lanthorn_geom::{Aabb, DPlane, DPolygon};
use lanthorn_level::{Level, Medium, Motion};

/// Slack (units) around a shut door's box within which a portal counts as covered.
const DOOR_COVER_SLACK: f32 = 1.0;

/// Distances below this count as on a plane.
const ON_PLANE: f64 = 1e-6;

/// The scene's objects as drafts, in scene order.
pub(super) fn object_drafts(
    scene: &Scene,
    materials: &mut SceneMaterials,
    luxel_size: f64,
) -> Result<Vec<ObjectDraft>, SceneError> {
    scene
        .objects
        .iter()
        .enumerate()
        .map(|(index, o)| object_draft(index, o, materials, luxel_size))
        .collect()
}

fn object_draft(
    index: usize,
    o: &SceneObject,
    materials: &mut SceneMaterials,
    luxel_size: f64,
) -> Result<ObjectDraft, SceneError> {
    let error = |field: String, msg: String| SceneError::Object {
        index,
        name: o.name.clone(),
        field,
        msg,
    };
    if o.brushes.is_empty() {
        return Err(error(
            "brushes".into(),
            "an object needs at least one brush".into(),
        ));
    }
    let motion = o.motion.as_ref().map(scene_motion);
    if let Some(Err(e)) = motion.as_ref().map(Motion::check) {
        return Err(error("motion".into(), e));
    }
    let brushes: Vec<Vec<DPlane>> = o.brushes.iter().map(|b| brush_planes(&b.brush)).collect();
    let mut surfaces = Vec::new();
    for (i, b) in o.brushes.iter().enumerate() {
        let field = format!("brushes[{i}]");
        let Some(poly) =
            crate::polyhedron::Poly::from_planes(&mut PlanePool::default(), &brushes[i])
        else {
            return Err(error(field, "the brush is empty or unbounded".into()));
        };
        if poly
            .min
            .abs()
            .max_element()
            .max(poly.max.abs().max_element())
            > crate::MAX_COORD
        {
            return Err(error(
                field,
                format!("the brush reaches beyond ±{}", crate::MAX_COORD),
            ));
        }
        if let Some(t) = &b.texture {
            check_texture(t).map_err(|msg| error(format!("brushes[{i}].texture"), msg))?;
        }
        let material = b.material.as_deref().unwrap_or("wall");
        if material.starts_with('*') {
            return Err(error(
                format!("brushes[{i}].material"),
                format!(
                    "\"{material}\" is a liquid material (its name starts with `*`); an \
                     object is solid: give it a material name without `*` (liquids are \
                     operations with a Water, Slime or Lava medium)"
                ),
            ));
        }
        let luxel = motion.is_none().then_some(luxel_size);
        for face in &poly.faces {
            let normal = face.winding.area_vector().normalize();
            for piece in outside_others(&face.winding, normal, i, &brushes) {
                surfaces.push(SurfaceDraft {
                    points: piece.points,
                    normal,
                    spec: materials.face_spec(material, b.texture.as_ref(), normal, 0, luxel),
                    cells: Vec::new(),
                });
            }
        }
    }
    Ok(ObjectDraft {
        name: o.name.clone(),
        entity: None,
        surfaces,
        motion,
    })
}

fn scene_motion(m: &SceneMotion) -> Motion {
    let v = |p: &(f32, f32, f32)| Vec3::new(p.0, p.1, p.2);
    match m {
        SceneMotion::Door {
            open,
            speed,
            wait,
            phase,
        } => Motion {
            points: vec![Vec3::ZERO, v(open)],
            speed: *speed,
            wait: *wait,
            phase: *phase,
        },
        SceneMotion::Path {
            points,
            speed,
            wait,
            phase,
        } => Motion {
            points: points.iter().map(v).collect(),
            speed: *speed,
            wait: *wait,
            phase: *phase,
        },
    }
}

/// The parts of brush `own`'s face that lie outside every other brush of the object. Where
/// two brushes' faces share a plane, facing the same way, the later brush keeps it; faces
/// back to back are both inside.
fn outside_others(
    face: &DPolygon,
    normal: DVec3,
    own: usize,
    brushes: &[Vec<DPlane>],
) -> Vec<DPolygon> {
    let mut pieces = vec![face.clone()];
    for (j, planes) in brushes.iter().enumerate() {
        if j == own {
            continue;
        }
        pieces = pieces
            .into_iter()
            .flat_map(|p| subtract(p, normal, planes, j > own))
            .collect();
    }
    pieces
}

/// `poly` less the convex brush `planes` (outward): the pieces outside it.
fn subtract(poly: DPolygon, normal: DVec3, planes: &[DPlane], later: bool) -> Vec<DPolygon> {
    let mut out = Vec::new();
    let mut inside = poly.clone();
    for q in planes {
        let d0 = q.distance(inside.points[0]);
        let on = inside
            .points
            .iter()
            .all(|&p| q.distance(p).abs() < ON_PLANE);
        if on && d0.abs() < ON_PLANE {
            let same_way = q.normal.dot(normal) > 0.0;
            if same_way && !later {
                return vec![poly]; // a coplanar face of an earlier brush: this one keeps it
            }
            continue; // back to back, or a later brush keeps it: counts as inside
        }
        let (front, back) = inside.split(q, ON_PLANE);
        if !front.is_empty() && front.area() > 1e-6 {
            out.push(front);
        }
        inside = back;
        if inside.is_empty() || inside.area() <= 1e-6 {
            // Nothing of it inside this brush: it stays whole.
            return vec![poly];
        }
    }
    out
}

/// The portals a door at rest covers: portals in the planes of its box's faces (a unit of
/// slack) that lie within the face. Mirrors and teleporters are never closed.
pub(super) fn covered_portals(level: &Level, door: &Aabb) -> Vec<u32> {
    (0..level.portals.len() as u32)
        .filter(|&p| {
            let portal = &level.portals[p as usize];
            portal.transform.is_none() && !portal.polygon.is_empty() && covers(door, portal)
        })
        .collect()
}

fn covers(door: &Aabb, portal: &lanthorn_level::Portal) -> bool {
    let n = portal.plane.normal.abs();
    // The axis the portal faces along (doorways are axial; a slanted portal is never covered).
    let axis = if n.x > 0.999 {
        0
    } else if n.y > 0.999 {
        1
    } else if n.z > 0.999 {
        2
    } else {
        return false;
    };
    let at = portal.polygon[0][axis];
    let gap = (door.min[axis] - at).max(at - door.max[axis]).max(0.0);
    gap <= DOOR_COVER_SLACK
        && portal.polygon.iter().all(|v| {
            (0..3).filter(|&k| k != axis).all(|k| {
                v[k] >= door.min[k] - DOOR_COVER_SLACK && v[k] <= door.max[k] + DOOR_COVER_SLACK
            })
        })
}

/// The CSG cuts a door's doorway at the door's faces: its shut box (just inside its two large
/// faces, `inset_thin_axis`) as an operation writing air over air. The material only keeps the
/// region from merging back into the doorway (an air region shows no material): a door set
/// into its doorway, thinner than the wall, then has portals just inside its faces to close,
/// and the doorway's jambs in front of it stay visible.
pub(super) fn door_cuts(scene: &Scene) -> Vec<csg::Op> {
    scene
        .objects
        .iter()
        .enumerate()
        .filter(|(_, o)| matches!(o.motion, Some(SceneMotion::Door { .. })))
        .map(|(i, o)| {
            let mut b = (DVec3::INFINITY, DVec3::NEG_INFINITY);
            for brush in &o.brushes {
                if let SceneBrush::Box { min, max } = &brush.brush {
                    b.0 = b.0.min(DVec3::new(min.0, min.1, min.2));
                    b.1 = b.1.max(DVec3::new(max.0, max.1, max.2));
                }
            }
            (i, b)
        })
        .filter(|(_, (min, max))| min.cmplt(*max).all())
        .map(|(i, (min, max))| (i, inset_thin_axis(min, max)))
        .map(|(i, (min, max))| csg::Op {
            planes: csg::box_planes(min, max),
            medium: Medium::Air,
            only: Some(vec![Medium::Air]),
            material: u32::MAX - i as u32,
            cut: true,
        })
        .collect()
}

/// A door's box pulled in along its thinnest axis (by a quarter of its thickness, at most
/// half a unit), so the portals cut there lie inside the shut door: the doorway's surfaces
/// between them end inside the door instead of touching its faces edge-on, where a pixel
/// along the edge could show the doorway's inside past a shut door.
fn inset_thin_axis(min: DVec3, max: DVec3) -> (DVec3, DVec3) {
    let size = max - min;
    let axis = (0..3)
        .min_by(|&a, &b| size[a].total_cmp(&size[b]))
        .unwrap_or(0);
    let mut inset = DVec3::ZERO;
    inset[axis] = (size[axis] / 4.0).min(0.5);
    (min + inset, max - inset)
}

/// Fills in the portals each door closes; a door that covers none is an error naming it.
pub(super) fn link_doors(scene: &Scene, level: &mut Level) -> Result<(), SceneError> {
    for (index, o) in scene.objects.iter().enumerate() {
        if !matches!(o.motion, Some(SceneMotion::Door { .. })) {
            continue;
        }
        let object = &level.objects[index];
        let bounds = Aabb::new(
            object.bounds.min + object.origin,
            object.bounds.max + object.origin,
        );
        let closes = covered_portals(level, &bounds);
        if closes.is_empty() {
            return Err(SceneError::Object {
                index,
                name: o.name.clone(),
                field: "motion".into(),
                msg: "the door covers no portal: place its shut box in a doorway (open space \
                      on both sides), spanning the doorway's width and height"
                    .into(),
            });
        }
        level.objects[index].closes = closes;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{compile_scene, parse};
    use crate::CompileOptions;
    use glam::Vec3;
    use lanthorn_geom::{Camera, CameraSpec};
    use lanthorn_level::{Level, Medium};
    use lanthorn_vis::{CullMode, Culler, VisibleSet};

    /// The door tests' scene (tests/scenes/door.ron): a corridor, a doorway, a room, a door
    /// (3 s shut, 2 s up, 3 s open, 2 s down) and a lantern patrolling the corridor.
    pub(crate) const DOOR_SCENE: &str = include_str!("../../../../tests/scenes/door.ron");

    fn door_level() -> Level {
        compile_scene(&parse(DOOR_SCENE).unwrap(), &CompileOptions::default())
            .unwrap()
            .0
    }

    fn visible_cells(level: &Level, culler: &mut Culler, time: f64) -> Vec<u32> {
        let cam = Camera::new(
            CameraSpec {
                position: Vec3::new(100.0, 64.0, 56.0),
                yaw: 28.6,
                pitch: 0.0,
            },
            16.0 / 9.0,
        );
        culler.animate(level, time);
        let mut vis = VisibleSet::default();
        culler.cull(level, &cam, &mut vis);
        let mut cells: Vec<u32> = vis.cells.iter().map(|c| c.cell).collect();
        cells.sort_unstable();
        cells
    }

    /// The door closes both portals of its doorway; shut, the flow sees exactly what the same
    /// level with those portals taken out of their cells sees; open, the room is visible.
    #[test]
    fn a_shut_door_hides_the_room_and_an_open_one_shows_it() {
        let level = door_level();
        let door = &level.objects[0];
        assert_eq!(door.closes.len(), 2, "corridor–doorway and doorway–room");
        for &p in &door.closes {
            let c = &level.portals[p as usize].polygon;
            assert!(c
                .iter()
                .all(|v| (200.0..=264.0).contains(&v.x) && v.z <= 96.0));
        }
        let room = level.locate(Vec3::new(232.0, 300.0, 60.0)).unwrap();
        let mut removed = level.clone();
        for cell in &mut removed.cells {
            cell.portals.retain(|p| !door.closes.contains(p));
        }
        let mut culler = Culler::new(&level, CullMode::Portal);
        let without = visible_cells(&removed, &mut Culler::new(&removed, CullMode::Portal), 0.0);
        for shut in [0.0, 1.0, 2.9, 10.5] {
            let cells = visible_cells(&level, &mut culler, shut);
            assert_eq!(cells, without, "t = {shut}");
            assert!(!cells.contains(&room));
        }
        for open in [3.5, 5.0, 7.9, 9.5] {
            let cells = visible_cells(&level, &mut culler, open);
            assert!(cells.contains(&room), "t = {open}: {cells:?}");
        }
        // The traced flow reports the door's portal facing the eye as closed while it is shut
        // (the portals overlay draws it blue), and never once it opens.
        let closed = |culler: &Culler| {
            let trace = culler.flow.trace.as_deref().unwrap_or(&[]);
            trace
                .iter()
                .filter(|t| t.outcome == lanthorn_vis::portal_flow::PortalOutcome::Closed)
                .map(|t| t.portal)
                .collect::<Vec<u32>>()
        };
        culler.flow.trace = Some(Vec::new());
        visible_cells(&level, &mut culler, 1.0);
        let shut = closed(&culler);
        assert!(
            shut.len() == 1 && door.closes.contains(&shut[0]),
            "{shut:?}"
        );
        visible_cells(&level, &mut culler, 5.0);
        assert!(closed(&culler).is_empty());
    }

    /// Object faces are the union's boundary: the lantern's two boxes overlap, so its area is
    /// the two boxes' surface less the parts inside the other (worked out by hand).
    #[test]
    fn an_objects_faces_are_its_brushes_union() {
        let level = door_level();
        let area = |o: usize| -> f32 {
            level.objects[o]
                .surfaces
                .iter()
                .map(|&s| {
                    let s = &level.surfaces[s as usize];
                    s.indices
                        .chunks(3)
                        .map(|t| {
                            let p = |i: u32| s.vertices[i as usize].position;
                            (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])).length() / 2.0
                        })
                        .sum::<f32>()
                })
                .sum()
        };
        // Box A 16×16×20, box B 8×8×40 through its middle: A's surface 2·(256 + 320 + 320)
        // less its top and bottom holes (2·64), plus B's sides outside A (4·8·20) and B's
        // ends (2·64).
        let want = 2.0 * (256.0 + 320.0 + 320.0) - 128.0 + 640.0 + 128.0;
        assert!((area(1) - want).abs() < 0.01, "{} vs {want}", area(1));
        // The door: one box, all six faces.
        assert!((area(0) - 2.0 * (64.0 * 8.0 + 64.0 * 96.0 + 8.0 * 96.0)).abs() < 0.01);
        // Moving objects carry no lightmap (they are lit where they are).
        assert!(level.objects[0]
            .surfaces
            .iter()
            .all(|&s| level.surfaces[s as usize].lightmap.is_none()));
        // Corridor, room, and the doorway cut in three at the door's faces.
        let air = level
            .cells
            .iter()
            .filter(|c| c.medium == Medium::Air)
            .count();
        assert_eq!(air, 5);
    }

    /// docs/formats.md's objects example, in the door scene's corridor: the docs cannot drift.
    #[test]
    fn readme_objects_example_compiles() {
        let readme = include_str!("../../../../docs/formats.md");
        let start = readme
            .find("```\nobjects: [")
            .expect("docs/formats.md has an objects example")
            + 4;
        let end = start + readme[start..].find("```").unwrap();
        let ops_end = DOOR_SCENE.find("    entities:").unwrap();
        let text = format!("{}{})", &DOOR_SCENE[..ops_end], &readme[start..end]);
        let (level, _) = compile_scene(&parse(&text).unwrap(), &CompileOptions::default()).unwrap();
        assert_eq!(level.objects.len(), 3);
        assert_eq!(level.objects[0].closes.len(), 2);
        assert!(level.objects[1].motion.is_some() && level.objects[2].motion.is_none());
    }

    #[test]
    fn bad_objects_are_errors_naming_them() {
        let err = |text: &str| {
            let s = parse(text).unwrap();
            compile_scene(&s, &CompileOptions::default())
                .unwrap_err()
                .to_string()
        };
        let room = "(brush: Box(min: (0, 0, 0), max: (256, 256, 128)), medium: Air)";
        let e = err(&format!(
            "Scene(ops: [{room}], objects: [(name: \"gate\", brushes: [(brush: Box(min: (300, 10, 0), max: (310, 20, 50)))], motion: Some(Door(open: (0, 0, 40), speed: 10)))])"
        ));
        assert_eq!(
            e,
            "object 0 (gate), motion: the door covers no portal: place its shut box in a \
             doorway (open space on both sides), spanning the doorway's width and height"
        );
        let e = err(&format!(
            "Scene(ops: [{room}], objects: [(name: \"lift\", brushes: [(brush: Box(min: (10, 10, 0), max: (20, 20, 5)))], motion: Some(Path(points: [(0, 0, 0)], speed: 10)))])"
        ));
        assert_eq!(
            e,
            "object 0 (lift), motion: a motion needs at least two points"
        );
        let e = err(&format!(
            "Scene(ops: [{room}], objects: [(name: \"a\", brushes: [(brush: Box(min: (1, 1, 1), max: (2, 2, 2)))]), (name: \"b\", brushes: [(brush: Planes([(normal: (1, 0, 0), dist: 5)]))])])"
        ));
        assert_eq!(
            e,
            "object 1 (b), brushes[0]: the brush is empty or unbounded"
        );
        let e = err(&format!(
            "Scene(ops: [{room}], objects: [(name: \"raft\", brushes: [(brush: Box(min: (1, 1, 1), max: (2, 2, 2)), material: Some(\"*water\"))])])"
        ));
        assert_eq!(
            e,
            "object 0 (raft), brushes[0].material: \"*water\" is a liquid material (its name \
             starts with `*`); an object is solid: give it a material name without `*` (liquids \
             are operations with a Water, Slime or Lava medium)"
        );
        let e = err(&format!(
            "Scene(ops: [{room}], objects: [(name: \"c\", brushes: [])])"
        ));
        assert_eq!(
            e,
            "object 0 (c), brushes: an object needs at least one brush"
        );
    }
}
