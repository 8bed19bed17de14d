//! Where a map's light comes from: the lighting lump (one grey byte a luxel, id's), or
//! coloured light — a `.lit` file beside the map (QLIT version 1: "QLIT", the version, then
//! three bytes a luxel in the lump's order) or the BSPX `RGBLIGHTING` lump (the same three
//! bytes a luxel, inside the file), as ericw-tools' `light -lit` / `-bspxlit` write them. A
//! `.lit` whose size does not match the lighting lump is ignored with a warning, as quakespasm
//! does; the `.lit` comes first, then BSPX, then the lump.

use super::bspx::BspxLump;

/// Which light a map was imported with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LightSource {
    /// The lighting lump: grey.
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
            LightSource::Lump => "lighting lump (grey)",
            LightSource::Lit => ".lit (coloured)",
            LightSource::Bspx => "BSPX RGBLIGHTING (coloured)",
            LightSource::None => "none",
        }
    }
}

/// A map's luxels as the faces read them.
pub(crate) struct Light<'a> {
    pub source: LightSource,
    /// The lighting lump (a face's `light_ofs` indexes it).
    grey: &'a [u8],
    /// Three bytes a luxel, when the light is coloured.
    rgb: Option<&'a [u8]>,
}

impl<'a> Light<'a> {
    /// The light of a map whose lighting lump is `grey`, with the `.lit` file found beside it
    /// and its BSPX lumps; what was ignored, and why, into `warnings`.
    pub(crate) fn choose(
        grey: &'a [u8],
        lit: Option<&'a [u8]>,
        bspx: &[BspxLump<'a>],
        warnings: &mut Vec<String>,
    ) -> Light<'a> {
        let want = 3 * grey.len();
        let coloured = |source, rgb| Light {
            source,
            grey,
            rgb: Some(rgb),
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
            rgb: None,
        }
    }

    /// Whether the map has light at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.grey.is_empty()
    }

    /// Luxels in the lighting lump (the unit of a face's `light_ofs`).
    pub(crate) fn len(&self) -> usize {
        self.grey.len()
    }

    /// `count` luxels from luxel `first` as RGB into `out` (3 bytes each); those past the end
    /// of the light stay as they are. Returns how many were there.
    pub(crate) fn read(&self, first: usize, count: usize, out: &mut [u8]) -> usize {
        let first = first.min(self.grey.len());
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
