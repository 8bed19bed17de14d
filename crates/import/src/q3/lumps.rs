//! IBSP 46's header and lumps into records, each lump checked against the file and its record
//! size before anything is allocated, then every index between records checked (`check`).

use super::*;

const VERSION: i32 = 46;
/// The lumps, in header order.
pub const LUMP_NAMES: [&str; 17] = [
    "entities",
    "shaders",
    "planes",
    "nodes",
    "leafs",
    "leafsurfaces",
    "leafbrushes",
    "models",
    "brushes",
    "brushsides",
    "drawverts",
    "drawindexes",
    "fogs",
    "surfaces",
    "lightmaps",
    "lightgrid",
    "visibility",
];
const HEADER: usize = 8 + 17 * 8;
/// Bytes of each lump's records (1: text or raw bytes).
const RECORD: [usize; 17] = [
    1,
    72,
    16,
    36,
    48,
    4,
    4,
    40,
    12,
    8,
    44,
    4,
    72,
    104,
    LIGHTMAP_BYTES,
    8,
    1,
];

fn i32_at(b: &[u8], o: usize) -> i32 {
    i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

fn f32_at(b: &[u8], o: usize) -> f32 {
    f32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

fn i3(b: &[u8], o: usize) -> [i32; 3] {
    [i32_at(b, o), i32_at(b, o + 4), i32_at(b, o + 8)]
}

fn f3(b: &[u8], o: usize) -> [f32; 3] {
    [f32_at(b, o), f32_at(b, o + 4), f32_at(b, o + 8)]
}

/// A NUL-padded name.
fn name(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// `first`, `count` as a range, where both are whole (checked against their lump in `check`).
fn span(first: i32, count: i32) -> Option<Range<u32>> {
    let (first, count) = (u32::try_from(first).ok()?, u32::try_from(count).ok()?);
    Some(first..first.checked_add(count)?)
}

/// The header's lumps as slices of `bytes`, each inside the file and whole records.
fn lump_slices<'a>(bytes: &'a [u8], file: &str) -> Result<[&'a [u8]; 17], Q3Error> {
    if bytes.len() < HEADER {
        return Err(Q3Error::Truncated {
            file: file.into(),
            len: bytes.len(),
            need: HEADER,
        });
    }
    let version = i32_at(bytes, 4);
    if &bytes[..4] != b"IBSP" || version != VERSION {
        return Err(Q3Error::Version {
            file: file.into(),
            magic: String::from_utf8_lossy(&bytes[..4]).into_owned(),
            version,
        });
    }
    let mut out: [&[u8]; 17] = [&[]; 17];
    for (i, slot) in out.iter_mut().enumerate() {
        let (offset, length) = (i32_at(bytes, 8 + i * 8), i32_at(bytes, 12 + i * 8));
        let problem = |problem: &str| Q3Error::Lump {
            file: file.into(),
            lump: LUMP_NAMES[i],
            offset,
            length,
            problem: problem.into(),
        };
        let end = offset as i64 + length as i64;
        if offset < 0 || length < 0 || end > bytes.len() as i64 {
            return Err(problem("lies outside the file"));
        }
        if length as usize % RECORD[i] != 0 {
            return Err(problem(&format!(
                "is not a whole number of {}-byte records",
                RECORD[i]
            )));
        }
        *slot = &bytes[offset as usize..end as usize];
    }
    Ok(out)
}

/// The records of a lump, each parsed by `parse` (which may refuse one with a problem).
fn records<T>(
    lump: &[u8],
    n: usize,
    file: &str,
    parse: impl Fn(&[u8]) -> Result<T, String>,
) -> Result<Vec<T>, Q3Error> {
    lump.chunks_exact(RECORD[n])
        .enumerate()
        .map(|(index, r)| {
            parse(r).map_err(|problem| Q3Error::Record {
                file: file.into(),
                lump: LUMP_NAMES[n],
                index,
                problem,
            })
        })
        .collect()
}

fn ranges(a: Option<Range<u32>>, b: Option<Range<u32>>) -> Result<[Range<u32>; 2], String> {
    match (a, b) {
        (Some(a), Some(b)) => Ok([a, b]),
        _ => Err("has a negative first index or count".into()),
    }
}

fn index(v: i32, what: &str) -> Result<u32, String> {
    u32::try_from(v).map_err(|_| format!("has a negative {what} ({v})"))
}

fn surface(r: &[u8]) -> Result<Surface, String> {
    let kind = match i32_at(r, 8) {
        1 => SurfaceType::Planar,
        2 => SurfaceType::Patch,
        3 => SurfaceType::TriangleSoup,
        4 => SurfaceType::Flare,
        t => return Err(format!("has surface type {t} (1 to 4 are Quake 3's)")),
    };
    let [vertices, indices] = ranges(
        span(i32_at(r, 12), i32_at(r, 16)),
        span(i32_at(r, 20), i32_at(r, 24)),
    )?;
    let patch = match kind {
        SurfaceType::Patch => [
            index(i32_at(r, 96), "patch width")?,
            index(i32_at(r, 100), "patch height")?,
        ],
        _ => [0, 0],
    };
    Ok(Surface {
        shader: index(i32_at(r, 0), "shader")?,
        fog: i32_at(r, 4),
        kind,
        vertices,
        indices,
        lightmap: i32_at(r, 28),
        lightmap_rect: [i32_at(r, 32), i32_at(r, 36), i32_at(r, 40), i32_at(r, 44)],
        normal: f3(r, 84),
        patch,
    })
}

/// The tree's and the brushes' lumps.
fn read_tree(l: &[&[u8]; 17], map: &mut Ibsp, file: &str) -> Result<(), Q3Error> {
    map.planes = records(l[2], 2, file, |r| {
        Ok(Plane {
            normal: f3(r, 0),
            dist: f32_at(r, 12),
        })
    })?;
    map.nodes = records(l[3], 3, file, |r| {
        Ok(Node {
            plane: index(i32_at(r, 0), "plane")?,
            children: [i32_at(r, 4), i32_at(r, 8)],
            mins: i3(r, 12),
            maxs: i3(r, 24),
        })
    })?;
    map.leaves = records(l[4], 4, file, |r| {
        let [surfaces, brushes] = ranges(
            span(i32_at(r, 32), i32_at(r, 36)),
            span(i32_at(r, 40), i32_at(r, 44)),
        )?;
        Ok(Leaf {
            cluster: i32_at(r, 0),
            area: i32_at(r, 4),
            mins: i3(r, 8),
            maxs: i3(r, 20),
            surfaces,
            brushes,
        })
    })?;
    let list = |n: usize, what: &'static str| records(l[n], n, file, |r| index(i32_at(r, 0), what));
    map.leaf_surfaces = list(5, "surface")?;
    map.leaf_brushes = list(6, "brush")?;
    map.brushes = records(l[8], 8, file, |r| {
        let [sides, _] = ranges(span(i32_at(r, 0), i32_at(r, 4)), Some(0..0))?;
        Ok(Brush {
            sides,
            shader: index(i32_at(r, 8), "shader")?,
        })
    })?;
    map.brush_sides = records(l[9], 9, file, |r| {
        Ok(BrushSide {
            plane: index(i32_at(r, 0), "plane")?,
            shader: index(i32_at(r, 4), "shader")?,
        })
    })?;
    Ok(())
}

/// Every lump into its records.
pub(super) fn read(bytes: &[u8], file: &str) -> Result<Ibsp, Q3Error> {
    let l = lump_slices(bytes, file)?;
    let mut map = Ibsp {
        entities: name(l[0]),
        ..Default::default()
    };
    map.shaders = records(l[1], 1, file, |r| {
        Ok(Shader {
            name: name(&r[..64]),
            surface_flags: i32_at(r, 64),
            content_flags: i32_at(r, 68),
        })
    })?;
    read_tree(&l, &mut map, file)?;
    map.models = records(l[7], 7, file, |r| {
        let [surfaces, brushes] = ranges(
            span(i32_at(r, 24), i32_at(r, 28)),
            span(i32_at(r, 32), i32_at(r, 36)),
        )?;
        Ok(Model {
            mins: f3(r, 0),
            maxs: f3(r, 12),
            surfaces,
            brushes,
        })
    })?;
    map.vertices = records(l[10], 10, file, |r| {
        Ok(Vertex {
            position: f3(r, 0),
            st: [f32_at(r, 12), f32_at(r, 16)],
            lightmap_st: [f32_at(r, 20), f32_at(r, 24)],
            normal: f3(r, 28),
            color: [r[40], r[41], r[42], r[43]],
        })
    })?;
    map.indices = records(l[11], 11, file, |r| index(i32_at(r, 0), "index"))?;
    map.fogs = l[12].len() / RECORD[12];
    map.surfaces = records(l[13], 13, file, surface)?;
    // Some of OpenArena's maps name fog 0 with no fogs: no fog, as engines take it.
    for s in &mut map.surfaces {
        if s.fog < 0 || s.fog as usize >= map.fogs {
            s.fog = -1;
        }
    }
    map.lightmaps = l[14].to_vec();
    map.light_grid = l[15]
        .chunks_exact(8)
        .map(|c| c.try_into().unwrap())
        .collect();
    map.visibility = visibility(l[16], file)?;
    Ok(map)
}

/// The visibility lump: cluster count, row bytes, then the rows.
fn visibility(lump: &[u8], file: &str) -> Result<Option<Visibility>, Q3Error> {
    if lump.is_empty() {
        return Ok(None);
    }
    let problem = |problem: String| Q3Error::Lump {
        file: file.into(),
        lump: "visibility",
        offset: 0,
        length: lump.len() as i32,
        problem,
    };
    if lump.len() < 8 {
        return Err(problem("is shorter than its 8-byte header".into()));
    }
    let (clusters, row) = (i32_at(lump, 0), i32_at(lump, 4));
    let rows = (clusters as i64) * (row as i64);
    if clusters < 0
        || row < 0
        || rows != lump.len() as i64 - 8
        || (row as i64) * 8 < clusters as i64
    {
        return Err(problem(format!(
            "holds {} bytes of rows where its header says {clusters} clusters of {row} bytes",
            lump.len() - 8
        )));
    }
    Ok(Some(Visibility {
        clusters: clusters as u32,
        row_bytes: row as u32,
        bits: lump[8..].to_vec(),
    }))
}

/// Every index between records inside the lump it points into.
pub(super) fn check(map: &Ibsp, file: &str) -> Result<(), Q3Error> {
    let bad = |lump: &'static str, index: usize, problem: String| Q3Error::Record {
        file: file.into(),
        lump,
        index,
        problem,
    };
    let within = |r: &Range<u32>, len: usize, what: &str| -> Result<(), String> {
        match r.end as usize <= len {
            true => Ok(()),
            false => Err(format!("lists {what} {}..{} of {len}", r.start, r.end)),
        }
    };
    let below = |v: u32, len: usize, what: &str| -> Result<(), String> {
        match (v as usize) < len {
            true => Ok(()),
            false => Err(format!("names {what} {v} of {len}")),
        }
    };
    for (i, n) in map.nodes.iter().enumerate() {
        below(n.plane, map.planes.len(), "plane").map_err(|p| bad("nodes", i, p))?;
        for &c in &n.children {
            let ok = match c >= 0 {
                true => (c as usize) < map.nodes.len(),
                false => ((-(c as i64) - 1) as usize) < map.leaves.len(),
            };
            if !ok {
                return Err(bad(
                    "nodes",
                    i,
                    format!("has child {c}, outside the nodes and leafs"),
                ));
            }
        }
    }
    let clusters = map.visibility.as_ref().map(|v| v.clusters as i64);
    for (i, l) in map.leaves.iter().enumerate() {
        within(&l.surfaces, map.leaf_surfaces.len(), "leafsurfaces")
            .map_err(|p| bad("leafs", i, p))?;
        within(&l.brushes, map.leaf_brushes.len(), "leafbrushes")
            .map_err(|p| bad("leafs", i, p))?;
        if clusters.is_some_and(|n| l.cluster as i64 >= n) || l.cluster < -1 {
            return Err(bad(
                "leafs",
                i,
                format!("has cluster {} of {:?}", l.cluster, clusters),
            ));
        }
    }
    for (i, &s) in map.leaf_surfaces.iter().enumerate() {
        below(s, map.surfaces.len(), "surface").map_err(|p| bad("leafsurfaces", i, p))?;
    }
    for (i, &b) in map.leaf_brushes.iter().enumerate() {
        below(b, map.brushes.len(), "brush").map_err(|p| bad("leafbrushes", i, p))?;
    }
    for (i, m) in map.models.iter().enumerate() {
        within(&m.surfaces, map.surfaces.len(), "surfaces").map_err(|p| bad("models", i, p))?;
        within(&m.brushes, map.brushes.len(), "brushes").map_err(|p| bad("models", i, p))?;
    }
    for (i, b) in map.brushes.iter().enumerate() {
        within(&b.sides, map.brush_sides.len(), "brushsides").map_err(|p| bad("brushes", i, p))?;
        below(b.shader, map.shaders.len(), "shader").map_err(|p| bad("brushes", i, p))?;
    }
    for (i, s) in map.brush_sides.iter().enumerate() {
        below(s.plane, map.planes.len(), "plane").map_err(|p| bad("brushsides", i, p))?;
        below(s.shader, map.shaders.len(), "shader").map_err(|p| bad("brushsides", i, p))?;
    }
    for (i, s) in map.surfaces.iter().enumerate() {
        check_surface(map, s).map_err(|p| bad("surfaces", i, p))?;
    }
    Ok(())
}

/// A surface's shader, vertices, indices (triangles of its own vertices), lightmap page and
/// patch grid.
fn check_surface(map: &Ibsp, s: &Surface) -> Result<(), String> {
    if s.shader as usize >= map.shaders.len() {
        return Err(format!(
            "names shader {} of {}",
            s.shader,
            map.shaders.len()
        ));
    }
    if s.vertices.end as usize > map.vertices.len() || s.indices.end as usize > map.indices.len() {
        return Err(format!(
            "lists vertices {:?} of {} and indices {:?} of {}",
            s.vertices,
            map.vertices.len(),
            s.indices,
            map.indices.len()
        ));
    }
    let count = s.vertices.len() as u32;
    let own = &map.indices[s.indices.start as usize..s.indices.end as usize];
    if own.len() % 3 != 0 || own.iter().any(|&i| i >= count) {
        return Err(format!(
            "has indices that are not triangles of its {count} vertices"
        ));
    }
    if s.lightmap >= 0 && s.lightmap as usize >= map.lightmap_pages() {
        return Err(format!(
            "names lightmap page {} of {}",
            s.lightmap,
            map.lightmap_pages()
        ));
    }
    let [w, h] = s.patch;
    let grid_ok =
        w >= 3 && h >= 3 && w % 2 == 1 && h % 2 == 1 && (w as u64 * h as u64) == count as u64;
    if s.kind == SurfaceType::Patch && !grid_ok {
        return Err(format!("is a patch of {w} × {h} control points over {count} vertices (odd sides of at least 3 that cover them)"));
    }
    Ok(())
}
