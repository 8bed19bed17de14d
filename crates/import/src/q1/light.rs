//! Where a map's light comes from: the lighting lump (one grey byte a luxel, id's), or
//! coloured light — a `.lit` file beside the map (QLIT version 1: "QLIT", the version, then
//! three bytes a luxel in the lump's order) or the BSPX `RGBLIGHTING` lump (the same three
//! bytes a luxel, inside the file), as ericw-tools' `light -lit` / `-bspxlit` write them. A
//! `.lit` whose size does not match the lighting lump is ignored with a warning, as quakespasm
//! does; the `.lit` comes first, then BSPX, then the lump. A face's luxels are 16 texture units
//! apart, or `1 << shift` with the BSPX `LMSHIFT` lump (one shift a face, ericw-tools' `light
//! -lmshift` and `_lmscale`). ericw-tools then writes those finer maps after the vanilla ones
//! (which other engines keep reading through the faces lump), and says where each face's
//! start in `LMOFFSET` (an int a face) with its styles in `LMSTYLE` (four bytes a face).

use super::bspx::BspxLump;

/// Which light a map was imported with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LightSource {
    /// The lighting lump: grey (Quake), or RGB (Half-Life).
    Lump,
    /// A `.lit` file beside the map.
    Lit,
    /// The BSPX `RGBLIGHTING` lump.
    Bspx,
    /// No light at all (an unlit map: every face fullbright).
    None,
}

impl LightSource {
    /// How `info` names it.
    pub fn name(self) -> &'static str {
        match self {
            LightSource::Lump => "lighting lump",
            LightSource::Lit => ".lit (coloured)",
            LightSource::Bspx => "BSPX RGBLIGHTING (coloured)",
            LightSource::None => "none",
        }
    }
}

/// A map's luxels as the faces read them.
pub(crate) struct Light<'a> {
    pub source: LightSource,
    /// The lighting lump (a face's `light_ofs` indexes it): grey, or RGB in a Half-Life map.
    grey: &'a [u8],
    /// Bytes a face's `light_ofs` counts per luxel: 1, or 3 in a Half-Life map (its offsets
    /// count the RGB lump's bytes).
    offset_unit: usize,
    /// Three bytes a luxel, when the light is coloured.
    rgb: Option<&'a [u8]>,
    /// Per face, its luxel spacing as a power of two, where its luxels start and its styles
    /// (`LMSHIFT`, `LMOFFSET`, `LMSTYLE`); none: 16 units, the faces lump's offset and styles.
    scaled: Option<Scaled<'a>>,
    /// Per face, 40 bytes: its own lightmap projection (`DECOUPLED_LM`): its size, where its
    /// luxels start, and world → luxel coordinates (two rows of four floats).
    decoupled: Option<&'a [u8]>,
}

/// A face's own lightmap projection (BSPX `DECOUPLED_LM`, ericw-tools' `light
/// -world_units_per_luxel`): luxel coordinates are `vecs · (p, 1)`, luxel k's centre at k.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Decoupled {
    pub size: [u32; 2],
    pub offset: i32,
    pub vecs: [[f32; 4]; 2],
}

/// The BSPX lumps that give faces their own lightmap scale.
#[derive(Clone, Copy)]
struct Scaled<'a> {
    shifts: &'a [u8],
    /// An i32 a face (`None`: the faces lump's offsets index the scaled maps).
    offsets: Option<&'a [u8]>,
    /// Four style bytes a face (`None`: the faces lump's styles).
    styles: Option<&'a [u8]>,
}

/// The largest `LMSHIFT` taken (256 texture units a luxel).
const MAX_SHIFT: u8 = 8;

impl<'a> Light<'a> {
    /// The light of a map whose lighting lump is `grey`, with the `.lit` file found beside it
    /// and its BSPX lumps; what was ignored, and why, into `warnings`.
    pub(crate) fn choose(
        (grey, faces): (&'a [u8], usize),
        lit: Option<&'a [u8]>,
        bspx: &[BspxLump<'a>],
        warnings: &mut Vec<String>,
    ) -> Light<'a> {
        let want = 3 * grey.len();
        let scaled = scaled(bspx, faces, warnings);
        let decoupled = per_face(bspx, ("DECOUPLED_LM", 40), faces, warnings);
        let coloured = |source, rgb| Light {
            source,
            grey,
            offset_unit: 1,
            rgb: Some(rgb),
            scaled,
            decoupled,
        };
        if let Some(lit) = lit {
            let version = lit
                .get(4..8)
                .map(|v| i32::from_le_bytes([v[0], v[1], v[2], v[3]]));
            match (lit.get(..4), version) {
                (Some(b"QLIT"), Some(1)) if lit.len() == 8 + want => {
                    return coloured(LightSource::Lit, &lit[8..]);
                }
                (Some(b"QLIT"), Some(1)) => warnings.push(format!(
                    "the .lit beside it holds {} bytes of light, but the lighting lump needs {want} (3 a luxel); it is ignored (compiled for another version of the map?)",
                    lit.len().saturating_sub(8)
                )),
                _ => warnings.push(
                    "the .lit beside it is not a QLIT version 1 file; it is ignored".into(),
                ),
            }
        }
        if let Some(lump) = bspx.iter().find(|l| l.name == "RGBLIGHTING") {
            if lump.data.len() == want {
                return coloured(LightSource::Bspx, lump.data);
            }
            warnings.push(format!(
                "its BSPX RGBLIGHTING lump holds {} bytes, but the lighting lump needs {want} (3 a luxel); it is ignored",
                lump.data.len()
            ));
        }
        Light {
            source: if grey.is_empty() {
                LightSource::None
            } else {
                LightSource::Lump
            },
            grey,
            offset_unit: 1,
            rgb: None,
            scaled,
            decoupled,
        }
    }

    /// The light of a Half-Life map: its lighting lump, three bytes a luxel, which its faces'
    /// offsets count in bytes.
    pub(crate) fn half_life(
        (rgb, faces): (&'a [u8], usize),
        bspx: &[BspxLump<'a>],
        warnings: &mut Vec<String>,
    ) -> Light<'a> {
        let luxels = rgb.len() / 3;
        Light {
            source: if rgb.is_empty() {
                LightSource::None
            } else {
                LightSource::Lump
            },
            // Only its length counts (luxels); the colour is read from `rgb`.
            grey: &rgb[..luxels],
            offset_unit: 3,
            rgb: Some(&rgb[..3 * luxels]),
            scaled: scaled(bspx, faces, warnings),
            decoupled: per_face(bspx, ("DECOUPLED_LM", 40), faces, warnings),
        }
    }

    /// Texture units between face `i`'s luxels: 16, or its `LMSHIFT`'s power of two (a shift
    /// past `MAX_SHIFT` is taken as the largest).
    pub(crate) fn luxel_spacing(&self, i: usize) -> f64 {
        let shift = self
            .scaled
            .and_then(|s| s.shifts.get(i))
            .copied()
            .unwrap_or(4);
        f64::from(1u32 << shift.min(MAX_SHIFT))
    }

    /// Face `i`'s own lightmap projection, when the map gives faces theirs.
    pub(crate) fn decoupled(&self, i: usize) -> Option<Decoupled> {
        let b = self.decoupled?.get(40 * i..40 * i + 40)?;
        let f = |o: usize| f32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let size = |o: usize| u32::from(u16::from_le_bytes([b[o], b[o + 1]]));
        Some(Decoupled {
            size: [size(0), size(2)],
            offset: i32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            vecs: [[f(8), f(12), f(16), f(20)], [f(24), f(28), f(32), f(36)]],
        })
    }

    /// Where face `i`'s luxels start and its four styles: `DECOUPLED_LM` or `LMOFFSET`, and
    /// `LMSTYLE`, where the map has them, else the faces lump's `light_ofs` and `styles`.
    pub(crate) fn face_light(&self, i: usize, light_ofs: i32, styles: [u8; 4]) -> (i32, [u8; 4]) {
        let light_ofs = self.decoupled(i).map_or(light_ofs, |d| d.offset);
        let Some(scaled) = self.scaled else {
            return (light_ofs, styles);
        };
        let offset = scaled
            .offsets
            .and_then(|o| o.get(4 * i..4 * i + 4))
            .map_or(light_ofs, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let styles = scaled
            .styles
            .and_then(|s| s.get(4 * i..4 * i + 4))
            .map_or(styles, |b| [b[0], b[1], b[2], b[3]]);
        (offset, styles)
    }

    /// Whether the map has light at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.grey.is_empty()
    }

    /// Luxels in the lighting lump.
    pub(crate) fn len(&self) -> usize {
        self.grey.len()
    }

    /// `count` luxels from a face's light offset `offset` as RGB into `out` (3 bytes each);
    /// those past the end of the light stay as they are. Returns how many were there.
    pub(crate) fn read(&self, offset: usize, count: usize, out: &mut [u8]) -> usize {
        let first = (offset / self.offset_unit).min(self.grey.len());
        let end = first.saturating_add(count).min(self.grey.len());
        let n = end - first;
        match self.rgb {
            Some(rgb) => out[..3 * n].copy_from_slice(&rgb[3 * first..3 * end]),
            None => {
                for (px, &g) in out.chunks_exact_mut(3).zip(&self.grey[first..end]) {
                    px.fill(g);
                }
            }
        }
        n
    }
}

/// The BSPX `LMSHIFT` lump when it has one byte for each of the `faces`, with `LMOFFSET` and
/// `LMSTYLE` when they fit the face count too; lumps of another size are ignored, with a
/// warning.
fn scaled<'a>(
    bspx: &[BspxLump<'a>],
    faces: usize,
    warnings: &mut Vec<String>,
) -> Option<Scaled<'a>> {
    Some(Scaled {
        shifts: per_face(bspx, ("LMSHIFT", 1), faces, warnings)?,
        offsets: per_face(bspx, ("LMOFFSET", 4), faces, warnings),
        styles: per_face(bspx, ("LMSTYLE", 4), faces, warnings),
    })
}

/// The BSPX lump `name` when it holds `bytes` for each of the `faces`; one of another size is
/// ignored, with a warning.
fn per_face<'a>(
    bspx: &[BspxLump<'a>],
    (name, bytes): (&str, usize),
    faces: usize,
    warnings: &mut Vec<String>,
) -> Option<&'a [u8]> {
    let lump = bspx.iter().find(|l| l.name == name)?;
    if lump.data.len() == bytes * faces {
        return Some(lump.data);
    }
    warnings.push(format!(
        "its BSPX {name} lump holds {} bytes for {faces} faces ({bytes} a face); it is ignored",
        lump.data.len()
    ));
    None
}
