//! The Quake BSP file layouts — id's BSP29 and the two that widen its 16-bit fields, BSP2
//! and its predecessor 2PSB (RMQ's) — into one set of records: header, lumps and their
//! fixed-size records, read with every offset and length checked. Index checks between lumps
//! happen where the indices are used.

use super::Q1Error;

pub(super) const VERSION: i32 = 29;
/// Half-Life's version.
pub(super) const HL_VERSION: i32 = 30;

/// Which of the three layouts a file has (its first four bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BspFormat {
    /// id's Quake BSP (version 29): 16-bit node, leaf, face, edge and mark-surface indices,
    /// 16-bit bounding boxes.
    Bsp29,
    /// "2PSB" (RMQ's first widening): 32-bit indices, 16-bit bounding boxes.
    Bsp2Rmq,
    /// "BSP2": 32-bit indices, float bounding boxes.
    Bsp2,
    /// Half-Life's BSP (version 30): BSP29's records, RGB light, textures with their own
    /// palettes.
    Hl30,
}

impl BspFormat {
    /// The layout the first four bytes name, `None` for another file.
    pub(crate) fn of(magic: [u8; 4]) -> Option<BspFormat> {
        match &magic {
            b"BSP2" => Some(BspFormat::Bsp2),
            b"2PSB" => Some(BspFormat::Bsp2Rmq),
            _ if i32::from_le_bytes(magic) == VERSION => Some(BspFormat::Bsp29),
            _ if i32::from_le_bytes(magic) == HL_VERSION => Some(BspFormat::Hl30),
            _ => None,
        }
    }

    /// Its name as tools print it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            BspFormat::Bsp29 => "BSP29",
            BspFormat::Bsp2Rmq => "2PSB",
            BspFormat::Bsp2 => "BSP2",
            BspFormat::Hl30 => "BSP30 (Half-Life)",
        }
    }

    /// Whether its records are id's 16-bit ones (BSP29 and Half-Life's).
    fn narrow(self) -> bool {
        matches!(self, BspFormat::Bsp29 | BspFormat::Hl30)
    }
}

/// Lump numbers and names, in header order.
pub(super) const LUMP_NAMES: [&str; 15] = [
    "entities",
    "planes",
    "textures",
    "vertexes",
    "visibility",
    "nodes",
    "texinfo",
    "faces",
    "lighting",
    "clipnodes",
    "leafs",
    "marksurfaces",
    "edges",
    "surfedges",
    "models",
];
pub(super) const ENTITIES: usize = 0;
pub(super) const PLANES: usize = 1;
pub(super) const TEXTURES: usize = 2;
pub(super) const VERTEXES: usize = 3;
pub(super) const VISIBILITY: usize = 4;
pub(super) const NODES: usize = 5;
pub(super) const TEXINFO: usize = 6;
pub(super) const FACES: usize = 7;
pub(super) const LIGHTING: usize = 8;
pub(super) const LEAFS: usize = 10;
pub(super) const MARKSURFACES: usize = 11;
pub(super) const EDGES: usize = 12;
pub(super) const SURFEDGES: usize = 13;
pub(super) const MODELS: usize = 14;

pub(super) const HEADER_SIZE: usize = 4 + 15 * 8;

pub(super) fn i16_at(b: &[u8], o: usize) -> i16 {
    i16::from_le_bytes([b[o], b[o + 1]])
}
pub(super) fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
pub(super) fn i32_at(b: &[u8], o: usize) -> i32 {
    i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
pub(super) fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
pub(super) fn f32_at(b: &[u8], o: usize) -> f32 {
    f32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn vec3_at(b: &[u8], o: usize) -> [f32; 3] {
    [f32_at(b, o), f32_at(b, o + 4), f32_at(b, o + 8)]
}
/// Three shorts widened to floats (a BSP29 or 2PSB bounding box corner).
fn i16x3_at(b: &[u8], o: usize) -> [f32; 3] {
    [i16_at(b, o), i16_at(b, o + 2), i16_at(b, o + 4)].map(f32::from)
}

#[derive(Clone, Copy, Debug)]
pub(super) struct RawPlane {
    pub normal: [f32; 3],
    pub dist: f32,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct RawNode {
    pub plane: u32,
    /// >= 0: node index; < 0: leaf `-(c + 1)`.
    pub children: [i32; 2],
    pub mins: [f32; 3],
    pub maxs: [f32; 3],
}

#[derive(Clone, Copy, Debug)]
pub(super) struct RawTexinfo {
    pub vecs: [[f32; 4]; 2],
    pub miptex: i32,
    pub flags: i32,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct RawFace {
    pub plane: u32,
    pub side: i32,
    pub first_edge: i32,
    pub num_edges: i32,
    pub texinfo: i32,
    pub styles: [u8; 4],
    pub light_ofs: i32,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct RawLeaf {
    pub contents: i32,
    pub vis_ofs: i32,
    pub mins: [f32; 3],
    pub maxs: [f32; 3],
    pub first_mark: u32,
    pub num_marks: u32,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct RawModel {
    pub mins: [f32; 3],
    pub maxs: [f32; 3],
    pub head_node: i32,
    pub vis_leafs: i32,
    pub first_face: i32,
    pub num_faces: i32,
}

/// The file split into its lumps, each parsed into records.
pub(super) struct Lumps<'a> {
    pub format: BspFormat,
    pub entities: &'a [u8],
    pub planes: Vec<RawPlane>,
    pub textures: &'a [u8],
    pub vertexes: Vec<[f32; 3]>,
    pub visibility: &'a [u8],
    pub nodes: Vec<RawNode>,
    pub texinfo: Vec<RawTexinfo>,
    pub faces: Vec<RawFace>,
    pub lighting: &'a [u8],
    pub leafs: Vec<RawLeaf>,
    pub marksurfaces: Vec<u32>,
    pub edges: Vec<[u32; 2]>,
    pub surfedges: Vec<i32>,
    pub models: Vec<RawModel>,
}

/// Parses the header and every lump we use.
pub(super) fn read<'a>(bytes: &'a [u8], file: &str) -> Result<Lumps<'a>, Q1Error> {
    if bytes.len() < HEADER_SIZE {
        return Err(Q1Error::Truncated {
            file: file.into(),
            len: bytes.len(),
            need: HEADER_SIZE,
        });
    }
    let magic = [bytes[0], bytes[1], bytes[2], bytes[3]];
    if &magic == b"IBSP" {
        return Err(Q1Error::Ibsp {
            file: file.into(),
            version: i32_at(bytes, 4),
        });
    }
    let Some(format) = BspFormat::of(magic) else {
        return Err(Q1Error::Version {
            file: file.into(),
            version: i32_at(bytes, 0),
        });
    };
    let mut raw: [&[u8]; 15] = [&[]; 15];
    for (i, slot) in raw.iter_mut().enumerate() {
        let ofs = i32_at(bytes, 4 + i * 8);
        let len = i32_at(bytes, 8 + i * 8);
        let end = ofs as i64 + len as i64;
        if ofs < 0 || len < 0 || end > bytes.len() as i64 {
            return Err(Q1Error::corrupt(
                file,
                LUMP_NAMES[i],
                format!("header says offset {ofs}, length {len}, but the file has {} bytes (truncated?)", bytes.len()),
            ));
        }
        *slot = &bytes[ofs as usize..end as usize];
    }
    let wide = !format.narrow();
    Ok(Lumps {
        format,
        entities: raw[ENTITIES],
        planes: records(file, PLANES, raw[PLANES], 20, |b| RawPlane {
            normal: vec3_at(b, 0),
            dist: f32_at(b, 12),
        })?,
        textures: raw[TEXTURES],
        vertexes: records(file, VERTEXES, raw[VERTEXES], 12, |b| vec3_at(b, 0))?,
        visibility: raw[VISIBILITY],
        nodes: nodes(file, format, raw[NODES])?,
        texinfo: records(file, TEXINFO, raw[TEXINFO], 40, texinfo)?,
        faces: faces(file, format, raw[FACES])?,
        lighting: raw[LIGHTING],
        leafs: leafs(file, format, raw[LEAFS])?,
        marksurfaces: match wide {
            false => records(file, MARKSURFACES, raw[MARKSURFACES], 2, |b| {
                u16_at(b, 0).into()
            })?,
            true => records(file, MARKSURFACES, raw[MARKSURFACES], 4, |b| u32_at(b, 0))?,
        },
        edges: match wide {
            false => records(file, EDGES, raw[EDGES], 4, |b| {
                [u16_at(b, 0), u16_at(b, 2)].map(u32::from)
            })?,
            true => records(file, EDGES, raw[EDGES], 8, |b| [u32_at(b, 0), u32_at(b, 4)])?,
        },
        surfedges: records(file, SURFEDGES, raw[SURFEDGES], 4, |b| i32_at(b, 0))?,
        models: records(file, MODELS, raw[MODELS], 64, |b| RawModel {
            mins: vec3_at(b, 0),
            maxs: vec3_at(b, 12),
            head_node: i32_at(b, 36),
            vis_leafs: i32_at(b, 52),
            first_face: i32_at(b, 56),
            num_faces: i32_at(b, 60),
        })?,
    })
}

fn texinfo(b: &[u8]) -> RawTexinfo {
    let v = |o: usize| {
        [
            f32_at(b, o),
            f32_at(b, o + 4),
            f32_at(b, o + 8),
            f32_at(b, o + 12),
        ]
    };
    RawTexinfo {
        vecs: [v(0), v(16)],
        miptex: i32_at(b, 32),
        flags: i32_at(b, 36),
    }
}

/// The nodes: 24 bytes in BSP29 (short children and box, short face range), 32 in 2PSB (int
/// children and face range), 44 in BSP2 (float box).
fn nodes(file: &str, format: BspFormat, data: &[u8]) -> Result<Vec<RawNode>, Q1Error> {
    match format {
        BspFormat::Bsp29 | BspFormat::Hl30 => records(file, NODES, data, 24, |b| RawNode {
            plane: u32_at(b, 0),
            children: [i16_at(b, 4), i16_at(b, 6)].map(i32::from),
            mins: i16x3_at(b, 8),
            maxs: i16x3_at(b, 14),
        }),
        BspFormat::Bsp2Rmq => records(file, NODES, data, 32, |b| RawNode {
            plane: u32_at(b, 0),
            children: [i32_at(b, 4), i32_at(b, 8)],
            mins: i16x3_at(b, 12),
            maxs: i16x3_at(b, 18),
        }),
        BspFormat::Bsp2 => records(file, NODES, data, 44, |b| RawNode {
            plane: u32_at(b, 0),
            children: [i32_at(b, 4), i32_at(b, 8)],
            mins: vec3_at(b, 12),
            maxs: vec3_at(b, 24),
        }),
    }
}

/// The faces: 20 bytes in BSP29 (short plane, side, edge count and texinfo), 28 in BSP2 and
/// 2PSB (ints).
fn faces(file: &str, format: BspFormat, data: &[u8]) -> Result<Vec<RawFace>, Q1Error> {
    match format {
        BspFormat::Bsp29 | BspFormat::Hl30 => records(file, FACES, data, 20, |b| RawFace {
            plane: u16_at(b, 0).into(),
            side: i16_at(b, 2).into(),
            first_edge: i32_at(b, 4),
            num_edges: i16_at(b, 8).into(),
            texinfo: i16_at(b, 10).into(),
            styles: [b[12], b[13], b[14], b[15]],
            light_ofs: i32_at(b, 16),
        }),
        _ => records(file, FACES, data, 28, |b| RawFace {
            plane: u32_at(b, 0),
            side: i32_at(b, 4),
            first_edge: i32_at(b, 8),
            num_edges: i32_at(b, 12),
            texinfo: i32_at(b, 16),
            styles: [b[20], b[21], b[22], b[23]],
            light_ofs: i32_at(b, 24),
        }),
    }
}

/// The leaves: 28 bytes in BSP29 (short box and mark-surface range), 32 in 2PSB (int range),
/// 44 in BSP2 (float box).
fn leafs(file: &str, format: BspFormat, data: &[u8]) -> Result<Vec<RawLeaf>, Q1Error> {
    match format {
        BspFormat::Bsp29 | BspFormat::Hl30 => records(file, LEAFS, data, 28, |b| RawLeaf {
            contents: i32_at(b, 0),
            vis_ofs: i32_at(b, 4),
            mins: i16x3_at(b, 8),
            maxs: i16x3_at(b, 14),
            first_mark: u16_at(b, 20).into(),
            num_marks: u16_at(b, 22).into(),
        }),
        BspFormat::Bsp2Rmq => records(file, LEAFS, data, 32, |b| RawLeaf {
            contents: i32_at(b, 0),
            vis_ofs: i32_at(b, 4),
            mins: i16x3_at(b, 8),
            maxs: i16x3_at(b, 14),
            first_mark: u32_at(b, 20),
            num_marks: u32_at(b, 24),
        }),
        BspFormat::Bsp2 => records(file, LEAFS, data, 44, |b| RawLeaf {
            contents: i32_at(b, 0),
            vis_ofs: i32_at(b, 4),
            mins: vec3_at(b, 8),
            maxs: vec3_at(b, 20),
            first_mark: u32_at(b, 32),
            num_marks: u32_at(b, 36),
        }),
    }
}

fn records<T>(
    file: &str,
    lump: usize,
    data: &[u8],
    size: usize,
    parse: impl Fn(&[u8]) -> T,
) -> Result<Vec<T>, Q1Error> {
    if data.len() % size != 0 {
        return Err(Q1Error::corrupt(
            file,
            LUMP_NAMES[lump],
            format!(
                "length {} is not a multiple of its {size}-byte record",
                data.len()
            ),
        ));
    }
    Ok(data.chunks_exact(size).map(parse).collect())
}
