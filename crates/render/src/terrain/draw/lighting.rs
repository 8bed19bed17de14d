//! Where the terrain's surface is lit (`FrameSettings::terrain_lighting`): the fragment stage
//! of each range of instances, and this frame's instances arranged into such ranges.

use std::ops::Range;

use crate::settings::TerrainLighting;
use crate::shaders::TerrainVariant;
use lanthorn_terrain::{MeshKind, PartRun, Selection, TerrainInstance};

/// The fragment stage a range of instances is drawn with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(in crate::terrain) enum SurfaceShading {
    /// Everything at every pixel.
    Pixel,
    /// Lit at the vertices, the sun's shadow as it reached them.
    Vertex,
    /// Lit at the vertices, the sun's shadow at every pixel: a brush's shadow may fall here.
    VertexShadowedPerPixel,
}

impl SurfaceShading {
    /// The vertex and fragment entry points (shaders/terrain.wgsl) in `variant`: lit per vertex
    /// without the lamps or the sea's reflection, the lean stages that hand on only what their
    /// fragment stage reads (unless `lean` is off).
    pub(in crate::terrain) fn entries(
        self,
        variant: TerrainVariant,
        lean: bool,
    ) -> (&'static str, &'static str) {
        let lean = lean && !variant.point_lights && !variant.water_reflections;
        match (self, lean) {
            (SurfaceShading::Pixel, _) => ("vs_main", "fs_main"),
            (SurfaceShading::Vertex, true) => ("vs_lit", "fs_lit"),
            (SurfaceShading::Vertex, false) => ("vs_main", "fs_vertex_lit"),
            (SurfaceShading::VertexShadowedPerPixel, true) => {
                ("vs_lit_shadowed", "fs_lit_shadowed")
            }
            (SurfaceShading::VertexShadowedPerPixel, false) => {
                ("vs_main", "fs_vertex_lit_shadowed")
            }
        }
    }
}

/// A draw of the surface: a run of a kind's mesh parts over a range of instances, and how it
/// is shaded.
pub(in crate::terrain) type SurfaceDraw = (MeshKind, PartRun, Range<u32>, SurfaceShading);

/// This frame's instances in `instances` and their draws in `draws`: per kind, lit as
/// `lighting` says; lit per vertex, the instances a brush's shadow may fall on (`shadowed`,
/// one flag per instance of the selection; empty: none) first, drawn with their shadows per
/// pixel.
pub(in crate::terrain) fn arrange(
    sel: &Selection,
    lighting: TerrainLighting,
    shadowed: &[bool],
    instances: &mut Vec<TerrainInstance>,
    draws: &mut Vec<SurfaceDraw>,
) {
    instances.clear();
    draws.clear();
    for (kind, run, range) in sel.draws() {
        let (start, end) = (range.start as usize, range.end as usize);
        let all = &sel.instances[start..end];
        if lighting == TerrainLighting::Pixel {
            draws.push((kind, run, range.clone(), SurfaceShading::Pixel));
            instances.extend_from_slice(all);
            continue;
        }
        let flags = shadowed.get(start..end);
        let first = instances.len() as u32;
        if let Some(flags) = flags {
            instances.extend(all.iter().zip(flags).filter(|(_, &s)| s).map(|(i, _)| *i));
        }
        let split = instances.len() as u32;
        match flags {
            Some(flags) => {
                instances.extend(all.iter().zip(flags).filter(|(_, &s)| !s).map(|(i, _)| *i))
            }
            None => instances.extend_from_slice(all),
        }
        let last = instances.len() as u32;
        if split > first {
            draws.push((
                kind,
                run,
                first..split,
                SurfaceShading::VertexShadowedPerPixel,
            ));
        }
        if last > split {
            draws.push((kind, run, split..last, SurfaceShading::Vertex));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(level: u32, x: i32) -> TerrainInstance {
        TerrainInstance {
            offset: [x, 0],
            level,
            rotation: 0,
        }
    }

    /// Each draw keeps its kind's run of parts and its instances (the shadowed ones first, in
    /// order), covers one class, and per-pixel lighting leaves the selection as it is.
    #[test]
    fn arranged_instances_keep_their_kind_run_and_class() {
        let mut sel = Selection {
            instances: (0..7).map(|i| instance(i % 3, i as i32)).collect(),
            ..Default::default()
        };
        let (half, all) = (
            PartRun { first: 3, count: 2 },
            PartRun { first: 0, count: 4 },
        );
        sel.ranges[MeshKind::Tile as usize] = 0..4;
        sel.ranges[MeshKind::Trim as usize] = 4..7;
        sel.runs = vec![
            (MeshKind::Tile, half, 0..3),
            (MeshKind::Tile, all, 3..4),
            (MeshKind::Trim, all, 4..7),
        ];
        let shadowed = [false, true, false, true, true, true, true];
        let (mut instances, mut draws) = (Vec::new(), Vec::new());
        arrange(
            &sel,
            TerrainLighting::Vertex,
            &shadowed,
            &mut instances,
            &mut draws,
        );
        let offsets: Vec<i32> = instances.iter().map(|i| i.offset[0]).collect();
        assert_eq!(offsets, [1, 0, 2, 3, 4, 5, 6]);
        use SurfaceShading::{Pixel, Vertex, VertexShadowedPerPixel as PerPixel};
        assert_eq!(
            draws,
            [
                (MeshKind::Tile, half, 0..1, PerPixel),
                (MeshKind::Tile, half, 1..3, Vertex),
                (MeshKind::Tile, all, 3..4, PerPixel),
                (MeshKind::Trim, all, 4..7, PerPixel),
            ]
        );
        arrange(
            &sel,
            TerrainLighting::Vertex,
            &[],
            &mut instances,
            &mut draws,
        );
        assert_eq!(instances, sel.instances);
        assert_eq!(draws[0], (MeshKind::Tile, half, 0..3, Vertex));
        arrange(
            &sel,
            TerrainLighting::Pixel,
            &shadowed,
            &mut instances,
            &mut draws,
        );
        assert_eq!(instances, sel.instances);
        assert_eq!(draws[2], (MeshKind::Trim, all, 4..7, Pixel));
    }
}
