//! A map's surfaces as drafts for the back half: the world's merged face fragments listed by
//! the cells they touch, and each brush entity's faces as an object.

use glam::DVec3;

use super::entity_brushes::{entity_group, EntityBrushes, Group};
use super::faces::{csg_faces, merge_fragments, Fragment};
use super::map_file::{MapFace, MapFile};
use super::sources::Materials;
use super::tree::Tree;
use crate::draft::{ObjectDraft, SurfaceDraft};
use crate::surfaces::SurfaceSpec;
use crate::CompileOptions;
use lanthorn_level::surface_flags;

/// The world brushes' visible faces, clipped by the brushes that cover them and merged.
pub(super) fn world_fragments(brushes: &EntityBrushes) -> Vec<Fragment> {
    let world = brushes.in_group(Group::World);
    merge_fragments(csg_faces(&brushes.brushes, &world, &|b, s| {
        brushes.draws(b, s)
    }))
}

/// World fragments that touch a cell, each listed by every cell it touches.
pub(super) fn world_surfaces(
    fragments: Vec<Fragment>,
    brushes: &EntityBrushes,
    tree: &Tree,
    options: &CompileOptions,
    materials: &mut Materials,
) -> Vec<SurfaceDraft> {
    let mut drafts = Vec::new();
    let mut touched = Vec::new();
    for f in fragments {
        touched.clear();
        tree.touching_leaves(&f.winding, f.normal, &mut touched);
        let cells: Vec<u32> = touched
            .iter()
            .filter_map(|&l| tree.leaves[l as usize].cell)
            .collect();
        if cells.is_empty() {
            continue;
        }
        let mut draft = fragment_draft(&f, brushes, options, materials);
        if brushes.brushes[f.brush].detail {
            draft.spec.flags |= surface_flags::DETAIL;
        }
        draft.cells = cells;
        drafts.push(draft);
    }
    drafts
}

/// Every brush entity that is not part of the world and not a trigger: its faces, clipped
/// among its own brushes, as one object named by its class and `targetname`.
pub(super) fn objects(
    map: &MapFile,
    brushes: &EntityBrushes,
    options: &CompileOptions,
    materials: &mut Materials,
) -> Vec<ObjectDraft> {
    let mut objects = Vec::new();
    for (ei, e) in map.entities.iter().enumerate() {
        if entity_group(ei, e.classname()) != Group::Object {
            continue;
        }
        let group: Vec<usize> = (0..brushes.brushes.len())
            .filter(|&i| brushes.brushes[i].entity == ei)
            .collect();
        if group.is_empty() {
            continue;
        }
        let fragments = merge_fragments(csg_faces(&brushes.brushes, &group, &|b, s| {
            brushes.draws(b, s)
        }));
        let surfaces = fragments
            .iter()
            .map(|f| fragment_draft(f, brushes, options, materials))
            .collect();
        let name = e
            .get("targetname")
            .map(|t| format!("{} {t}", e.classname()))
            .unwrap_or_else(|| e.classname().into());
        objects.push(ObjectDraft {
            name,
            entity: Some(ei as u32),
            surfaces,
            motion: None,
        });
    }
    objects
}

fn fragment_draft(
    f: &Fragment,
    brushes: &EntityBrushes,
    options: &CompileOptions,
    materials: &mut Materials,
) -> SurfaceDraft {
    let b = &brushes.brushes[f.brush];
    let face = brushes.face(f.brush, f.side);
    SurfaceDraft {
        points: f.winding.points.clone(),
        normal: f.normal,
        spec: surface_spec(face, b.sides[f.side].plane.normal, options, materials),
        cells: Vec::new(),
    }
}

fn surface_spec(
    face: &MapFace,
    normal: DVec3,
    options: &CompileOptions,
    materials: &mut Materials,
) -> SurfaceSpec {
    let material = materials.id(&face.texture);
    let sky = super::brush::is_sky_texture(&face.texture);
    let liquid = face.texture.starts_with('*');
    let mut flags = 0;
    if sky {
        flags |= surface_flags::SKY;
    }
    if liquid {
        flags |= surface_flags::LIQUID;
    }
    SurfaceSpec {
        tex: crate::texture::tex_vecs(&face.projection, normal),
        tex_size: materials.texture_size(&face.texture),
        material,
        flags,
        luxel: (!(sky || liquid)).then_some(options.luxel_size),
    }
}
