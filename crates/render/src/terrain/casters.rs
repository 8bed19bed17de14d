//! The terrain's shadow casters: per cascade, the pieces (and the parts of their meshes) whose
//! bounds fall where the cascade casts.

use glam::Vec3;

use super::draw::CasterPiece;
use crate::shadow::{casts_into, CASCADES};
use lanthorn_geom::cascades::Cascade;
use lanthorn_geom::Camera;
use lanthorn_terrain::clipmap::{instance_aabb, part_aabb, ClipmapSelector};
use lanthorn_terrain::{ClipmapConfig, ClipmapMeshes, Heightmap, MeshKind, MinMaxPyramid, PartRun};

/// Per shadow cascade, the instances of its selector's selection for `camera` whose bounds
/// (the pyramid's height range, the terrain placed at `origin` in the level) fall in its box
/// from the sun, with the run of their mesh's parts that does, by kind and run; the seams,
/// which have no area, are left out.
pub(super) fn caster_instances(
    cascades: Option<&[Cascade; CASCADES]>,
    (cfg, heightmap, pyramid): (&ClipmapConfig, &Heightmap, &mut MinMaxPyramid),
    (selectors, meshes): (&mut [ClipmapSelector; CASCADES], &ClipmapMeshes),
    camera: &Camera,
    origin: Vec3,
) -> [Vec<CasterPiece>; CASCADES] {
    let Some(cascades) = cascades else {
        return Default::default();
    };
    let mut out: [Vec<_>; CASCADES] = Default::default();
    for ((c, list), selector) in cascades.iter().zip(out.iter_mut()).zip(selectors) {
        let selection = selector.select(camera, heightmap, pyramid);
        for (kind, _, range) in selection.draws() {
            if kind == MeshKind::Seam {
                continue;
            }
            let parts = &meshes.get(kind).parts;
            for inst in &selection.instances[range.start as usize..range.end as usize] {
                let b = instance_aabb(cfg, kind, inst, heightmap, pyramid);
                if !casts_into(c, &b.translated(origin)) {
                    continue;
                }
                let mask = parts.iter().enumerate().fold(0, |mask, (i, part)| {
                    let b = part_aabb(cfg, part, inst, heightmap, pyramid);
                    mask | (casts_into(c, &b.translated(origin)) as u32) << i
                });
                if mask != 0 {
                    list.push((kind, PartRun::covering(mask, parts.len()), *inst));
                }
            }
        }
        // Few draws: one per kind and run.
        list.sort_by_key(|&(kind, run, _)| (kind, run));
    }
    out
}

#[cfg(test)]
mod tests {
    use glam::{DVec3, Vec3};

    use super::*;
    use lanthorn_geom::cascades::{fit_cascades, CascadeConfig};
    use lanthorn_geom::rng::XorShift;
    use lanthorn_geom::CameraSpec;
    use lanthorn_terrain::vertex::vertex_position;
    use lanthorn_terrain::DirectHeights;

    /// Whether triangle `tri` (level coordinates) reaches where `c` casts: its bounds in the
    /// sun's clip space overlap the part of the sun's view the camera's view lies in
    /// (`Cascade::seen`) and the depth range, as `casts_into` asks of a box.
    fn casts(c: &Cascade, tri: [DVec3; 3]) -> bool {
        let q = tri.map(|p| c.project(p));
        let lo = q[0].min(q[1]).min(q[2]);
        let hi = q[0].max(q[1]).max(q[2]);
        let [x0, y0, x1, y1] = c.seen;
        let e = 1e-6;
        lo.x <= x1 - e
            && hi.x >= x0 + e
            && lo.y <= y1 - e
            && hi.y >= y0 + e
            && lo.z <= 1.0
            && hi.z >= 0.0
    }

    /// No triangle (true heights, morphed) of a part left out of a cascade's casters — a
    /// part outside its piece's run, or a piece dropped — reaches where the cascade casts;
    /// and parts are left out of pieces that are drawn.
    #[test]
    fn the_casters_left_out_cast_nothing() {
        let hm = Heightmap::procedural(2048, 5);
        let cfg = ClipmapConfig::new(6, 31, 16.0).unwrap();
        let meshes = ClipmapMeshes::new(&cfg);
        let direct = DirectHeights { hm: &hm, cfg };
        let mut pyramid = MinMaxPyramid::new(&hm);
        let selector = |coarsen| {
            let mut s = ClipmapSelector::new(cfg).unwrap();
            s.cull = false;
            s.coarsen = coarsen;
            s
        };
        let mut selectors = [selector(0), selector(1)];
        let mut rng = XorShift(31);
        let origin = Vec3::new(-3000.0, 2000.0, 50.0);
        let (mut parts_left_out, mut checked) = (0, 0);
        for _ in 0..12 {
            let (x, y) = (
                rng.range_f64(-8000.0, 8000.0),
                rng.range_f64(-8000.0, 8000.0),
            );
            let ground = hm.height_at(x, y) as f64;
            let spec = CameraSpec {
                position: (DVec3::new(x, y, ground + rng.range_f64(20.0, 600.0)).as_vec3()
                    + origin),
                yaw: rng.range_f64(0.0, 360.0) as f32,
                pitch: rng.range_f64(-40.0, 10.0) as f32,
            };
            let camera = Camera::new(spec, 16.0 / 9.0);
            let sun = Vec3::new(0.5, -0.3, -rng.range_f64(0.2, 0.9) as f32).normalize();
            let cascades = fit_cascades(&camera, sun, &CascadeConfig::default());
            let local = Camera {
                position: camera.position - origin,
                ..camera
            };
            let lists = caster_instances(
                Some(&cascades),
                (&cfg, &hm, &mut pyramid),
                (&mut selectors, &meshes),
                &local,
                origin,
            );
            for (i, (c, list)) in cascades.iter().zip(&lists).enumerate() {
                let selection = selectors[i].select(&local, &hm, &mut pyramid).clone();
                for (kind, _, range) in selection.draws() {
                    if kind == MeshKind::Seam {
                        continue;
                    }
                    let mesh = meshes.get(kind);
                    for inst in &selection.instances[range.start as usize..range.end as usize] {
                        let drawn: Vec<usize> = list
                            .iter()
                            .filter(|(k, _, d)| *k == kind && d == inst)
                            .flat_map(|(_, run, _)| run.parts(mesh.parts.len()))
                            .collect();
                        let at = |v: [i32; 2]| {
                            let rel = vertex_position(&selection.frame, inst, v, &direct);
                            let f = &selection.frame;
                            let eye = DVec3::new(
                                f.anchor[0] as f64 * cfg.base_spacing + f.camera_offset[0] as f64,
                                f.anchor[1] as f64 * cfg.base_spacing + f.camera_offset[1] as f64,
                                f.camera_offset[2] as f64,
                            );
                            rel.as_dvec3() + eye + origin.as_dvec3()
                        };
                        for (p, part) in mesh.parts.iter().enumerate() {
                            if drawn.contains(&p) {
                                continue;
                            }
                            parts_left_out += !drawn.is_empty() as usize;
                            let first = 3 * part.first_triangle as usize;
                            let end = first + 3 * part.triangles as usize;
                            for t in mesh.indices[first..end].chunks_exact(3) {
                                let tri = [0, 1, 2].map(|k| at(mesh.vertices[t[k] as usize]));
                                checked += 1;
                                assert!(
                                    !casts(c, tri),
                                    "cascade {i}: {kind:?} {inst:?} part {p} left out but casts"
                                );
                            }
                        }
                    }
                }
            }
        }
        eprintln!(
            "{checked} triangles left out checked; {parts_left_out} parts of drawn pieces left out"
        );
        assert!(checked > 10_000 && parts_left_out > 20);
    }
}
