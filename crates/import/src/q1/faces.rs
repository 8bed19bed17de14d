//! Faces → surfaces: vertex loops from edges/surfedges, fan triangles wound counter-clockwise
//! from the visible side, texture and lightmap coordinates, and each face's lightmap blocks,
//! one per light style (extents computed the way Quake's light tool does, in double precision).

use glam::{DVec3, Vec2, Vec3};

use lanthorn_level::styles::{self, LightStyles};
use lanthorn_level::{material_flags, surface_flags, Material, Surface, Vertex};

use super::light::{Decoupled, Light};
use super::lumps::{Lumps, RawFace, RawTexinfo};
use super::Q1Error;

/// Texinfo flag: sky or liquid, no lightmap.
pub(super) const TEX_SPECIAL: i32 = 1;
/// The most edges a face may have: compilers split faces far below this (id's qbsp at 64
/// points), and a damaged count of thousands of edges would make the triangulation crawl.
pub(super) const MAX_FACE_EDGES: i32 = 1024;
/// Largest lightmap side accepted, in luxels (Quake's own limit is 18; modern tools go higher).
pub(super) const MAX_LUXELS: i64 = 257;

/// A face's lightmap geometry, as Quake computes it (luxels `spacing` texture units apart: 16,
/// or the face's `LMSHIFT`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Extents {
    /// `floor(min_s / spacing)` and `floor(min_t / spacing)`.
    pub min_luxel: [i64; 2],
    /// Luxels per axis: `ceil(max / spacing) - floor(min / spacing) + 1`.
    pub size: [i64; 2],
    /// Texture units between luxels.
    pub spacing: f64,
}

impl Extents {
    pub(super) fn luxels(&self) -> usize {
        (self.size[0] * self.size[1]) as usize
    }
}

/// Texture-space (s, t) of a point, in double precision from the file's floats.
pub(super) fn st(ti: &RawTexinfo, p: DVec3) -> [f64; 2] {
    let f = |v: &[f32; 4]| p.x * v[0] as f64 + p.y * v[1] as f64 + p.z * v[2] as f64 + v[3] as f64;
    [f(&ti.vecs[0]), f(&ti.vecs[1])]
}

pub(super) fn extents(ti: &RawTexinfo, points: &[DVec3], spacing: f64) -> Extents {
    let mut mins = [f64::INFINITY; 2];
    let mut maxs = [f64::NEG_INFINITY; 2];
    for &p in points {
        let v = st(ti, p);
        for k in 0..2 {
            // Computed in doubles, then rounded to a float, as quakespasm does: the light
            // tools rounded so, and a double just under a luxel edge (e2m1: 31.999999999999993
            // for 32) would add a luxel column the lighting lump does not have.
            let v = v[k] as f32 as f64;
            mins[k] = mins[k].min(v);
            maxs[k] = maxs[k].max(v);
        }
    }
    let mut e = Extents {
        min_luxel: [0; 2],
        size: [1; 2],
        spacing,
    };
    for k in 0..2 {
        if mins[k].is_finite() && maxs[k].is_finite() {
            // `as` saturates, so absurd coordinates give absurd (rejected) sizes, never a panic.
            let lo = (mins[k] / spacing).floor() as i64;
            let hi = (maxs[k] / spacing).ceil() as i64;
            e.min_luxel[k] = lo;
            e.size[k] = hi.saturating_sub(lo).saturating_add(1);
        }
    }
    e
}

/// Number of light styles stored for a face (styles up to the first 255).
#[cfg(test)]
pub(super) fn style_count(f: &RawFace) -> usize {
    f.styles.iter().take_while(|&&s| s != 255).count()
}

/// One face, resolved: its vertex loop (file order) and texinfo.
pub(super) struct FaceGeom {
    pub points: Vec<DVec3>,
    pub texinfo: RawTexinfo,
    pub material: u32,
    pub normal: Vec3,
}

/// Resolves face `i`'s indices (plane, texinfo, miptex, surfedges, edges, vertexes).
pub(super) fn face_geom(
    l: &Lumps,
    i: usize,
    num_materials: usize,
    file: &str,
) -> Result<FaceGeom, Q1Error> {
    let f = &l.faces[i];
    let bad = |what: String| Q1Error::corrupt(file, "faces", format!("face {i}: {what}"));
    let plane = l.planes.get(f.plane as usize).ok_or_else(|| {
        bad(format!(
            "plane {} is not one of the {} planes",
            f.plane,
            l.planes.len()
        ))
    })?;
    let ti = *usize::try_from(f.texinfo)
        .ok()
        .and_then(|t| l.texinfo.get(t))
        .ok_or_else(|| {
            bad(format!(
                "texinfo {} is not one of the {}",
                f.texinfo,
                l.texinfo.len()
            ))
        })?;
    if ti.miptex < 0 || ti.miptex as usize >= num_materials {
        return Err(Q1Error::corrupt(
            file,
            "texinfo",
            format!(
                "texinfo {} (of face {i}): texture {} is not one of the {num_materials}",
                f.texinfo, ti.miptex
            ),
        ));
    }
    if f.first_edge < 0
        || f.num_edges < 0
        || f.first_edge as i64 + f.num_edges as i64 > l.surfedges.len() as i64
    {
        return Err(bad(format!(
            "edges {}..{}+{} run past the {} surfedges",
            f.first_edge,
            f.first_edge,
            f.num_edges,
            l.surfedges.len()
        )));
    }
    if f.num_edges > MAX_FACE_EDGES {
        return Err(bad(format!(
            "{} edges, more than a real face has ({MAX_FACE_EDGES} at most)",
            f.num_edges
        )));
    }
    let mut points = Vec::with_capacity(f.num_edges as usize);
    for k in 0..f.num_edges as usize {
        let se = l.surfedges[f.first_edge as usize + k];
        let e = se.unsigned_abs() as usize;
        let edge = l.edges.get(e).ok_or_else(|| {
            Q1Error::corrupt(
                file,
                "surfedges",
                format!(
                    "surfedge {} (of face {i}): edge {se} is not one of the {}",
                    f.first_edge as usize + k,
                    l.edges.len()
                ),
            )
        })?;
        let v = if se >= 0 { edge[0] } else { edge[1] } as usize;
        let p = l.vertexes.get(v).ok_or_else(|| {
            Q1Error::corrupt(
                file,
                "edges",
                format!(
                    "edge {e} (of face {i}): vertex {v} is not one of the {}",
                    l.vertexes.len()
                ),
            )
        })?;
        points.push(DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64));
    }
    let n = Vec3::from(plane.normal);
    Ok(FaceGeom {
        points,
        texinfo: ti,
        material: ti.miptex as u32,
        normal: if f.side != 0 { -n } else { n },
    })
}

/// A surface without its lightmap rect, and the luxels of its lightmaps (RGB, three bytes a
/// luxel, one map per style slot one after another) when it has them.
pub(super) struct BuiltFace {
    pub surface: Surface,
    pub luxels: Option<(u32, u32, Vec<u8>)>,
    /// What was wrong but loaded anyway, as Quake loads it (light data cut short).
    pub warning: Option<String>,
}

/// The face's styles, checked: each slot in use must name one of Quake's 64 styles.
fn face_styles(f: &RawFace, i: usize, file: &str) -> Result<LightStyles, Q1Error> {
    let st = LightStyles(f.styles);
    if let Some((k, s)) = st
        .slots()
        .enumerate()
        .find(|&(_, s)| s as usize >= styles::MAX_STYLES)
    {
        return Err(Q1Error::corrupt(
            file,
            "faces",
            format!(
                "face {i}: light style {s} in slot {k} is not below {} (Quake's MAX_LIGHTSTYLES)",
                styles::MAX_STYLES
            ),
        ));
    }
    Ok(st)
}

/// Face `i`'s lightmaps as RGB (three bytes a luxel) from the map's light: `n` luxels per
/// style slot, the slots stored one after another from the face's light offset. A face whose
/// styles are all empty shows black, under style 0. Light data that runs past the end of the
/// lump is cut there and the missing luxels are black, with a warning: quakespasm reads such
/// a face as far as the lump goes (id's own maps of the registered episodes end a few bytes
/// short).
fn face_luxels(
    light: &Light,
    f: &RawFace,
    i: usize,
    n: usize,
    file: &str,
) -> Result<(Vec<u8>, LightStyles, Option<String>), Q1Error> {
    let st = face_styles(f, i, file)?;
    let count = st.count();
    if count == 0 {
        return Ok((vec![0; 3 * n], LightStyles::default(), None));
    }
    let len = light.len();
    let mut luxels = vec![0; 3 * n * count];
    let read = light.read(f.light_ofs as usize, n * count, &mut luxels);
    let short = n * count - read;
    let warning = (short > 0).then(|| {
        format!(
            "face {i}: light data at {} + {n}x{count} bytes runs {short} bytes past the lighting lump ({len} bytes); those luxels are black",
            f.light_ofs
        )
    });
    Ok((luxels, st, warning))
}

/// A face's surface flags from its material's.
fn surface_flags_of(mat: &Material) -> u32 {
    [
        (material_flags::SKY, surface_flags::SKY),
        (material_flags::LIQUID, surface_flags::LIQUID),
        (material_flags::TRANSLUCENT, surface_flags::TRANSLUCENT),
        (material_flags::FENCE, surface_flags::FENCE),
    ]
    .iter()
    .filter(|(m, _)| mat.flags & m != 0)
    .fold(0, |f, (_, s)| f | s)
}

/// Where point `p` (texture coordinates `st`) lies in its face's lightmap, in luxels from its
/// corner (luxel k's centre at k + 0.5): along the texture at the extents' spacing, or in the
/// face's own projection (`DECOUPLED_LM`, whose luxel k's centre is at k).
fn lightmap_uv(p: DVec3, [s, t]: [f64; 2], ext: &Extents, decoupled: Option<Decoupled>) -> Vec2 {
    if let Some(d) = decoupled {
        let at =
            |v: [f32; 4]| p.dot(DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64)) + v[3] as f64;
        return Vec2::new((at(d.vecs[0]) + 0.5) as f32, (at(d.vecs[1]) + 0.5) as f32);
    }
    let base = ext.min_luxel.map(|m| m as f64 * ext.spacing);
    Vec2::new(
        ((s - base[0]) / ext.spacing + 0.5) as f32,
        ((t - base[1]) / ext.spacing + 0.5) as f32,
    )
}

/// Builds face `i`. Lightmaps: sky and liquid faces (texinfo SPECIAL or a sky/liquid
/// material) have none (drawn fullbright, as Quake does); so do all faces of a map without a
/// lighting lump. A normal face without light data (offset -1) gets a single black luxel
/// (1×1 block, every `lightmap_uv` = (0.5, 0.5)): Quake shows such faces dark. A lit face
/// keeps a map per light style, each shown at its style's current brightness.
pub(super) fn build(
    (l, light): (&Lumps, &Light),
    i: usize,
    materials: &[Material],
    file: &str,
) -> Result<BuiltFace, Q1Error> {
    let g = face_geom(l, i, materials.len(), file)?;
    // Where its luxels start and its styles, as the map's light says (BSPX `LMOFFSET`).
    let raw = l.faces[i];
    let (light_ofs, styles) = light.face_light(i, raw.light_ofs, raw.styles);
    let f = &RawFace {
        light_ofs,
        styles,
        ..raw
    };
    let mat = &materials[g.material as usize];
    let flags = surface_flags_of(mat);
    // Lit water: a liquid face the compiler gave light (ericw-tools' `qbsp -splitturb`, no
    // SPECIAL flag, a light offset) is lit like any face; other liquids stay fullbright.
    let lit_liquid = flags & surface_flags::LIQUID != 0 && f.light_ofs >= 0;
    let special = g.texinfo.flags & TEX_SPECIAL != 0
        || flags & surface_flags::SKY != 0
        || (flags & surface_flags::LIQUID != 0 && !lit_liquid);
    let decoupled = light.decoupled(i);
    let ext = match decoupled {
        Some(d) => Extents {
            min_luxel: [0; 2],
            size: d.size.map(i64::from),
            spacing: 16.0,
        },
        None => extents(&g.texinfo, &g.points, light.luxel_spacing(i)),
    };

    let unlit = !special && !light.is_empty() && f.light_ofs == -1;
    let mut face_styles = LightStyles::default();
    let mut warning = None;
    let luxels = if special || light.is_empty() {
        None
    } else if unlit {
        Some((1, 1, vec![0; 3]))
    } else if f.light_ofs < 0 {
        return Err(Q1Error::corrupt(
            file,
            "faces",
            format!("face {i}: light offset {} is negative", f.light_ofs),
        ));
    } else {
        if ext.size[0] > MAX_LUXELS || ext.size[1] > MAX_LUXELS {
            return Err(Q1Error::corrupt(
                file,
                "faces",
                format!(
                    "face {i}: lightmap of {}x{} luxels exceeds {MAX_LUXELS} (bad surface extents)",
                    ext.size[0], ext.size[1]
                ),
            ));
        }
        let (rgb, st, short) = face_luxels(light, f, i, ext.luxels(), file)?;
        face_styles = st;
        warning = short;
        Some((ext.size[0] as u32, ext.size[1] as u32, rgb))
    };

    // Wind the loop counter-clockwise seen from the visible side.
    let mut points = g.points;
    let area = lanthorn_geom::DPolygon::new(points.clone()).area_vector();
    if area.dot(g.normal.as_dvec3()) < 0.0 {
        points.reverse();
    }
    let (tw, th) = (mat.width.max(1) as f64, mat.height.max(1) as f64);
    let vertices: Vec<Vertex> = points
        .iter()
        .map(|&p| {
            let [s, t] = st(&g.texinfo, p);
            Vertex {
                position: p.as_vec3(),
                uv: Vec2::new((s / tw) as f32, (t / th) as f32),
                lightmap_uv: match unlit {
                    true => Vec2::splat(0.5),
                    false => lightmap_uv(p, [s, t], &ext, decoupled),
                },
            }
        })
        .collect();
    // Quake's outlines carry the T-junction vertices id's qbsp inserted: cut with no flat
    // triangle (or fanned from the centre).
    let (vertices, indices) = lanthorn_level::tjunctions::cut_surface(vertices, &points);
    Ok(BuiltFace {
        surface: Surface {
            vertices,
            indices,
            normal: g.normal,
            material: g.material,
            lightmap: None,
            styles: face_styles,
            flags,
        },
        luxels,
        warning,
    })
}
