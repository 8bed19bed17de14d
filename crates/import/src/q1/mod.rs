//! Quake BSP29 importer: id Software's compiled maps onto the [`Level`] model.
//!
//! - Open leaves of model 0 (empty, water, slime, lava; sky counts as air) become cells,
//!   bounded by the node planes on their path from the root; leaf 0 and solid leaves none.
//! - Every face becomes a surface with the same index (`level.surfaces[i]` is face `i`);
//!   cells list the faces their marksurfaces name. Faces of brush models 1..N are listed by
//!   their [`Object`] only.
//! - Lightmaps: each lit face's luxels go into one atlas (`light::atlas`), its map of light
//!   style slot `k` into layer `k` (the surface's `styles` say which style each is). Sky and
//!   liquid faces, and all faces of a map without light data, have `lightmap: None` (draw
//!   fullbright). A normal face without light data gets one black luxel, as Quake shows it
//!   dark.
//! - Portals are generated from the node tree (see `portals`); the file's PVS is kept by
//!   cell in `level.pvs`.
//! - Textures are decoded with the Quake palette: [`load`] looks for it near the file
//!   ([`palette_near`]; a game's search path has its own: `load::load_from_game`). Without a
//!   palette, materials have sizes but no texels, and `load` says so once on stderr.
//!
//! Every lump offset and length and every index is checked: bad input gives a [`Q1Error`]
//! naming the file, the lump and the record, never a panic.

mod bspx;
pub(crate) mod entities;
mod faces;
mod light;
mod lightgrid;
mod lumps;

mod textures;
mod tree;
mod vis;
mod wad3;

#[cfg(test)]
mod format_tests;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use glam::Vec3;

pub use self::light::LightSource;

use lanthorn_geom::Aabb;
use lanthorn_level::{
    cell_flags, portal_flags, surface_flags, Cell, Entity, Level, Lightmaps, Material, Object,
    Portal, Sky, Surface,
};
use lanthorn_light::atlas::{self, AtlasError, LuxelBlock};

/// Why a `.bsp` file cannot be imported; each names the file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum Q1Error {
    /// The file could not be read.
    #[error("{path}: cannot read the file: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// Shorter than a header.
    #[error("{file}: only {len} bytes, a BSP29 header needs {need}: the file is truncated or not a Quake .bsp")]
    Truncated {
        /// The file.
        file: String,
        /// Its bytes.
        len: usize,
        /// The bytes a header needs.
        need: usize,
    },
    /// A Quake 2 or Quake 3 map (`IBSP`), which the importer does not read yet.
    #[error("{file}: a Quake 2 or Quake 3 map (\"IBSP\" version {version}); Lanthorn imports Quake 1 and Half-Life maps (BSP29, BSP2, 2PSB, BSP30), not these yet")]
    Ibsp {
        /// The file.
        file: String,
        /// Its IBSP version (38 Quake 2, 46 Quake 3).
        version: i32,
    },
    /// Not one of the Quake BSP layouts.
    #[error("{file}: BSP version {version} is not a Quake map's (version 29, \"BSP2\" or \"2PSB\") or Half-Life's (30); Quake 2 and 3 maps (\"IBSP\") are not supported")]
    Version {
        /// The file.
        file: String,
        /// The version it has.
        version: i32,
    },
    /// A lump's data is inconsistent.
    #[error("{file}: corrupt {lump} lump: {detail}. The file is damaged: recompile the map or extract it again")]
    Corrupt {
        /// The file.
        file: String,
        /// The lump.
        lump: &'static str,
        /// What is wrong in it.
        detail: String,
    },
    /// The BSP tree is no tree.
    #[error(
        "{file}: corrupt nodes lump: node {node} has child node {child}, which does not lie deeper in the tree \
         (a cycle or a shared subtree). The file is damaged: recompile the map"
    )]
    NodeCycle {
        /// The file.
        file: String,
        /// The node.
        node: u32,
        /// Its child that does not lie deeper.
        child: u32,
    },
    /// The entity text does not parse.
    #[error("{file}: entities lump, line {line}: {detail}. Fix the entity text (e.g. with an entity editor) or recompile")]
    Entities {
        /// The file.
        file: String,
        /// The line of the entity text.
        line: usize,
        /// What is wrong there.
        detail: String,
    },
    /// The lightmaps do not pack into an atlas.
    #[error("{file}: lightmap atlas: {error}")]
    Atlas {
        /// The file.
        file: String,
        /// Why the lightmaps did not pack.
        error: AtlasError,
    },
}

impl Q1Error {
    /// A `Corrupt` error for `file`'s `lump`.
    pub fn corrupt(file: &str, lump: &'static str, detail: impl Into<String>) -> Self {
        Q1Error::Corrupt {
            file: file.into(),
            lump,
            detail: detail.into(),
        }
    }
}

/// Reads a 768-byte palette file.
pub fn read_palette(path: &Path) -> Option<[u8; 768]> {
    palette_from_bytes(&std::fs::read(path).ok()?)
}

/// The palette from the shared real data (`quake/palette.lmp`), read once (tests).
#[cfg(test)]
pub(crate) fn default_palette() -> Option<&'static [u8; 768]> {
    use std::sync::OnceLock;
    static PAL: OnceLock<Option<[u8; 768]>> = OnceLock::new();
    PAL.get_or_init(|| read_palette(&lanthorn_testdata::realdata_dir().join("quake/palette.lmp")))
        .as_ref()
}

/// Loads a `.bsp` file with the palette found near it ([`palette_near`]); when there is none,
/// warns once (`log`) with what to give, and the textures are a grey checkerboard.
pub fn load(path: &Path) -> Result<Level, Q1Error> {
    // A Half-Life map's textures carry their own palettes.
    let version = std::fs::File::open(path).ok().and_then(|mut f| {
        let mut v = [0u8; 4];
        std::io::Read::read_exact(&mut f, &mut v).ok()?;
        Some(i32::from_le_bytes(v))
    });
    if version == Some(lumps::HL_VERSION) {
        return load_with_palette(path, None);
    }
    let palette = match palette_near(path) {
        Ok(p) => Some(p),
        Err(missing) => {
            log::warn!("{missing}");
            None
        }
    };
    load_with_palette(path, palette.as_ref())
}

/// Loads a `.bsp` file with the given palette (`None`: materials without texels), and the
/// coloured light of the `.lit` file beside it when there is one.
pub fn load_with_palette(path: &Path, palette: Option<&[u8; 768]>) -> Result<Level, Q1Error> {
    let bytes = std::fs::read(path).map_err(|error| Q1Error::Io {
        path: path.into(),
        error,
    })?;
    let lit = std::fs::read(path.with_extension("lit")).ok();
    let file = path.display().to_string();
    let mut level = from_bytes_with(&bytes, &file, palette, lit.as_deref())?;
    if lumps::BspFormat::of([bytes[0], bytes[1], bytes[2], bytes[3]])
        == Some(lumps::BspFormat::Hl30)
    {
        // A Half-Life map's textures may live in WAD3 files beside it.
        if let Some(w) = wad3::fill_missing(&mut level.materials, &level.entities, path) {
            log::warn!("{file}: {w}");
        }
    }
    Ok(level)
}

/// What `info` says of a Quake BSP: its layout, the BSPX lumps it carries and where its
/// light comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct BspReport {
    /// "BSP29", "BSP2" or "2PSB".
    pub format: &'static str,
    /// The names of its BSPX lumps, in file order (those Lanthorn does not read are listed
    /// too).
    pub bspx_lumps: Vec<String>,
    /// The light it is imported with (`lit`: the `.lit` found beside it).
    pub light: LightSource,
}

/// Describes a Quake BSP held in memory (see [`BspReport`]) without importing it.
pub fn describe(bytes: &[u8], file: &str, lit: Option<&[u8]>) -> Result<BspReport, Q1Error> {
    let l = lumps::read(bytes, file)?;
    let bspx = bspx::lumps(bytes, file)?;
    let light = match l.format {
        lumps::BspFormat::Hl30 => {
            light::Light::half_life((l.lighting, l.faces.len()), &bspx, &mut Vec::new())
        }
        _ => light::Light::choose((l.lighting, l.faces.len()), lit, &bspx, &mut Vec::new()),
    };
    Ok(BspReport {
        format: l.format.name(),
        bspx_lumps: bspx.iter().map(|x| x.name.to_string()).collect(),
        light: light.source,
    })
}

/// Where a palette is looked for around a map, nearest first, in each folder from the map's
/// own up to three above it: a downloaded map sits beside Quake's files (`palette.lmp`,
/// `gfx/palette.lmp`), in a game's `maps/` (`../gfx/palette.lmp`), or beside an install
/// (`id1/`, where the shareware and retail games keep it in `pak0.pak`). In a folder, a pak
/// comes before its loose files, as in Quake's search path.
const PALETTE_PLACES: [&str; 5] = [
    "pak0.pak",
    "palette.lmp",
    "gfx/palette.lmp",
    "id1/pak0.pak",
    "id1/gfx/palette.lmp",
];

/// The Quake palette near a map file (see `PALETTE_PLACES`), or the warning that says where
/// it was looked for and what to give.
pub fn palette_near(path: &Path) -> Result<[u8; 768], String> {
    let start = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Absolute, so a bare `e1m1.bsp` in a game's maps/ folder can look above it.
    let start = std::fs::canonicalize(&start).unwrap_or(start);
    let mut dir = Some(start.as_path());
    for _ in 0..4 {
        let Some(d) = dir else { break };
        for place in PALETTE_PLACES {
            let file = d.join(place);
            let found = if place.ends_with(".pak") {
                palette_in_pak(&file)
            } else {
                read_palette(&file)
            };
            if let Some(p) = found {
                return Ok(p);
            }
        }
        dir = d.parent();
    }
    Err(format!(
        "{}: no Quake palette found (pak0.pak, palette.lmp or gfx/palette.lmp, or those in id1/, in its folder or the three above it), so every texture is a grey checkerboard; give --palette FILE (Quake's gfx/palette.lmp, 768 bytes) or --basedir QUAKE_DIR (the folder that holds id1)",
        path.display()
    ))
}

/// `gfx/palette.lmp` from a PACK archive, if the file is one and holds it.
fn palette_in_pak(path: &Path) -> Option<[u8; 768]> {
    if !path.is_file() {
        return None;
    }
    let pak = crate::pak::Pak::open(path).ok()?;
    let bytes = pak.read(pak.find("gfx/palette.lmp")?).ok()?;
    palette_from_bytes(&bytes)
}

/// The first 768 bytes of a palette file, when it has them.
pub fn palette_from_bytes(b: &[u8]) -> Option<[u8; 768]> {
    (b.len() >= 768).then(|| std::array::from_fn(|i| b[i]))
}

/// Imports a BSP29 file held in memory with the shared real data's palette (tests); `name`
/// names it in errors.
#[cfg(test)]
pub(crate) fn from_bytes(bytes: &[u8], name: &str) -> Result<Level, Q1Error> {
    from_bytes_with_palette(bytes, name, default_palette())
}

/// Imports with an explicit palette (`None`: materials without texels); what is wrong but
/// loads anyway, as Quake loads it, is said once on stderr.
pub fn from_bytes_with_palette(
    bytes: &[u8],
    file: &str,
    palette: Option<&[u8; 768]>,
) -> Result<Level, Q1Error> {
    from_bytes_with(bytes, file, palette, None)
}

/// Imports with an explicit palette and the bytes of the map's `.lit` file, when it has one
/// (coloured light, used when it matches the map's lighting lump).
pub fn from_bytes_with(
    bytes: &[u8],
    file: &str,
    palette: Option<&[u8; 768]>,
    lit: Option<&[u8]>,
) -> Result<Level, Q1Error> {
    let (level, warnings) = import(bytes, file, palette, lit)?;
    for w in warnings {
        log::warn!("{file}: {w}");
    }
    Ok(level)
}

/// The import and its warnings.
fn import(
    bytes: &[u8],
    file: &str,
    palette: Option<&[u8; 768]>,
    lit: Option<&[u8]>,
) -> Result<(Level, Vec<String>), Q1Error> {
    let l = lumps::read(bytes, file)?;
    check_numbers(&l, file)?;
    check_models(&l, file)?;
    let bspx = bspx::lumps(bytes, file)?;
    let mut said = Vec::new();
    let light = match l.format {
        lumps::BspFormat::Hl30 => {
            light::Light::half_life((l.lighting, l.faces.len()), &bspx, &mut said)
        }
        _ => light::Light::choose((l.lighting, l.faces.len()), lit, &bspx, &mut said),
    };
    let entities = entities::parse(l.entities, file)?;
    let mut materials = match l.format {
        lumps::BspFormat::Hl30 => textures::decode_half_life(l.textures, file)?,
        _ => textures::decode(l.textures, palette, file)?,
    };
    let mut tree = tree::build(&l, file)?;
    let (mut surfaces, lightmaps, warnings) =
        surfaces_and_lightmaps((&l, &light), &materials, file)?;
    // After the surfaces: the pictures' copies go at the end, numbered past every texture.
    textures::animate_chains(&mut materials);
    said.extend(warnings);
    let mut warnings = said;
    let mut cells = std::mem::take(&mut tree.cells);
    list_cell_surfaces(&l, &tree, &mut cells, &surfaces, file)?;
    let portals = portals_of(&l, &tree, &mut cells);
    let pvs = vis::build(&l, &tree.leaf_cell, &tree.cell_leaf, file)?;
    repair_world_tjunctions(&l, &mut surfaces);
    let objects = brush_models(&l, &surfaces, &entities);
    // The compiler's light grid for moving objects, when it wrote one.
    let light_grid = bspx
        .iter()
        .find(|x| x.name == "LIGHTGRID_OCTREE")
        .and_then(|x| match lightgrid::read(x.data) {
            Ok(grid) => Some(grid),
            Err(e) => {
                warnings.push(format!("its BSPX LIGHTGRID_OCTREE lump is ignored: {e}"));
                None
            }
        });
    let sky = sky(&materials, &entities);
    let level = Level {
        cells,
        portals,
        surfaces,
        bsp: tree.bsp,
        materials,
        lightmaps,
        objects,
        entities,
        sky,
        terrain: None,
        pvs,
        light_grid,
        leak: None,
    };
    Ok((level, warnings))
}

/// Planes, vertices and texture vectors must be finite (and planes unit length).
fn check_numbers(l: &lumps::Lumps, file: &str) -> Result<(), Q1Error> {
    for (i, p) in l.planes.iter().enumerate() {
        let len = Vec3::from(p.normal).length();
        if !p.dist.is_finite() || !(len - 1.0).abs().lt(&0.01) {
            return Err(Q1Error::corrupt(
                file,
                "planes",
                format!(
                    "plane {i}: normal {:?} is not unit length or dist {} is not finite",
                    p.normal, p.dist
                ),
            ));
        }
    }
    for (i, v) in l.vertexes.iter().enumerate() {
        if !v.iter().all(|c| c.is_finite() && c.abs() < 1e6) {
            return Err(Q1Error::corrupt(
                file,
                "vertexes",
                format!("vertex {i}: {v:?} is not a finite coordinate"),
            ));
        }
    }
    for (i, t) in l.texinfo.iter().enumerate() {
        if !t
            .vecs
            .iter()
            .flatten()
            .all(|c| c.is_finite() && c.abs() < 1e6)
        {
            return Err(Q1Error::corrupt(
                file,
                "texinfo",
                format!(
                    "texinfo {i}: texture vectors {:?} are not finite or absurdly large",
                    t.vecs
                ),
            ));
        }
    }
    Ok(())
}

/// Model 0 (the world) must exist and every model's faces must lie in the faces lump.
fn check_models(l: &lumps::Lumps, file: &str) -> Result<(), Q1Error> {
    if l.models.is_empty() {
        return Err(Q1Error::corrupt(
            file,
            "models",
            "no models (model 0 is the world)",
        ));
    }
    for (i, m) in l.models.iter().enumerate() {
        if m.first_face < 0
            || m.num_faces < 0
            || m.first_face as i64 + m.num_faces as i64 > l.faces.len() as i64
        {
            return Err(Q1Error::corrupt(
                file,
                "models",
                format!(
                    "model {i}: faces {}+{} run past the {} faces",
                    m.first_face,
                    m.num_faces,
                    l.faces.len()
                ),
            ));
        }
    }
    Ok(())
}

/// One surface per face, and the faces' luxels (every style slot, grey or coloured as the
/// map's light is) packed into one layered RGB atlas.
fn surfaces_and_lightmaps(
    (l, light): (&lumps::Lumps, &light::Light),
    materials: &[Material],
    file: &str,
) -> Result<(Vec<Surface>, Lightmaps, Vec<String>), Q1Error> {
    let mut surfaces = Vec::with_capacity(l.faces.len());
    let mut warnings = Vec::new();
    let mut blocks: Vec<(usize, u32, u32, Vec<u8>)> = Vec::new();
    for i in 0..l.faces.len() {
        let f = faces::build((l, light), i, materials, file)?;
        warnings.extend(f.warning);
        if let Some((w, h, rgb)) = f.luxels {
            blocks.push((i, w, h, rgb));
        }
        surfaces.push(f.surface);
    }
    let luxel_blocks: Vec<LuxelBlock> = blocks
        .iter()
        .map(|(_, w, h, rgb)| LuxelBlock {
            width: *w,
            height: *h,
            rgb,
        })
        .collect();
    let (lightmaps, rects) = atlas::pack(&luxel_blocks).map_err(|error| Q1Error::Atlas {
        file: file.into(),
        error,
    })?;
    for ((i, ..), r) in blocks.iter().zip(rects) {
        surfaces[*i].lightmap = Some(r);
    }
    // Said once: the first face, and how many more.
    if warnings.len() > 1 {
        let more = warnings.len() - 1;
        warnings.truncate(1);
        warnings[0] += &format!(" (and {more} more faces whose light runs past the lump)");
    }
    Ok((surfaces, lightmaps, warnings))
}

/// Cells list the faces their leaves mark.
fn list_cell_surfaces(
    l: &lumps::Lumps,
    tree: &tree::Tree,
    cells: &mut [Cell],
    surfaces: &[Surface],
    file: &str,
) -> Result<(), Q1Error> {
    for (c, cell) in cells.iter_mut().enumerate() {
        let li = tree.cell_leaf[c] as usize;
        let lf = &l.leafs[li];
        let (first, n) = (lf.first_mark as usize, lf.num_marks as usize);
        let Some(marks) = l.marksurfaces.get(first..first + n) else {
            return Err(Q1Error::corrupt(
                file,
                "leafs",
                format!(
                    "leaf {li}: marksurfaces {first}+{n} run past the {} marksurfaces",
                    l.marksurfaces.len()
                ),
            ));
        };
        for &m in marks {
            if m as usize >= surfaces.len() {
                return Err(Q1Error::corrupt(
                    file,
                    "marksurfaces",
                    format!(
                        "marksurface of leaf {li}: face {m} is not one of the {} faces",
                        surfaces.len()
                    ),
                ));
            }
            if !cell.surfaces.contains(&(m as u32)) {
                cell.surfaces.push(m as u32);
            }
            if surfaces[m as usize].flags & surface_flags::SKY != 0 {
                cell.flags |= cell_flags::SKY_VISIBLE;
            }
        }
        if lf.contents == -6 {
            cell.flags |= cell_flags::SKY_VISIBLE;
        }
    }
    Ok(())
}

/// Portals between the cells, generated from the node planes; liquid surfaces where the
/// media differ.
fn portals_of(l: &lumps::Lumps, tree: &tree::Tree, cells: &mut [Cell]) -> Vec<Portal> {
    let w = &l.models[0];
    let extent = w
        .mins
        .iter()
        .chain(&w.maxs)
        .fold(0.0f64, |a, &v| a.max((v as f64).abs()));
    let half_size = if extent.is_finite() {
        (extent * 4.0 + 1024.0).clamp(8192.0, 1e6)
    } else {
        1e6
    };
    let mut portals =
        crate::portalize::generate(&tree.bsp, &tree.leaf_cell, &tree.parent, half_size);
    for (i, p) in portals.iter_mut().enumerate() {
        let (mf, mb) = (
            cells[p.front as usize].medium,
            cells[p.back as usize].medium,
        );
        if mf != mb && (mf.is_liquid() || mb.is_liquid()) {
            p.flags |= portal_flags::LIQUID_SURFACE;
        }
        cells[p.front as usize].portals.push(i as u32);
        cells[p.back as usize].portals.push(i as u32);
    }
    portals
}

/// Quake's faces meet in T-junctions (its renderers sparkle there): insert the shared
/// vertices so world surfaces are watertight. Brush models move, so only model 0's faces.
fn repair_world_tjunctions(l: &lumps::Lumps, surfaces: &mut [Surface]) {
    if let Some(world) = l.models.first() {
        let ids: Vec<u32> = (world.first_face as u32..(world.first_face + world.num_faces) as u32)
            .filter(|&i| (i as usize) < surfaces.len())
            .collect();
        let added = lanthorn_level::tjunctions::repair_tjunctions(surfaces, &ids);
        log::debug!("{added} T-junction vertices inserted");
    }
}

/// Brush models 1..N as objects, bounded by their geometry — but not the triggers': Quake's
/// game code clears a trigger's model when it spawns (`InitTrigger`), so it is never drawn.
fn brush_models(l: &lumps::Lumps, all_surfaces: &[Surface], entities: &[Entity]) -> Vec<Object> {
    let entity_of = |name: &str| entities.iter().position(|e| e.get("model") == Some(name));
    let drawn = |name: &str| {
        entity_of(name).is_none_or(|e| !entities[e].classname().starts_with("trigger_"))
    };
    l.models
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(i, _)| drawn(&format!("*{i}")))
        .map(|(i, m)| {
            let name = format!("*{i}");
            let (mn, mx) = (Vec3::from(m.mins), Vec3::from(m.maxs));
            let surfaces: Vec<u32> =
                (m.first_face as u32..(m.first_face + m.num_faces) as u32).collect();
            // The file's model bounds sit one unit inside the geometry: culling needs the
            // geometry's own bounds.
            let mut bounds = Aabb::new(mn.min(mx), mn.max(mx));
            for &s in &surfaces {
                if let Some(s) = all_surfaces.get(s as usize) {
                    for v in &s.vertices {
                        bounds.add_point(v.position);
                    }
                }
            }
            Object {
                surfaces,
                bounds,
                origin: Vec3::ZERO,
                entity: entity_of(&name).map(|e| e as u32),
                name,
                ..Default::default()
            }
        })
        .collect()
}

fn sky(materials: &[Material], entities: &[Entity]) -> Option<Sky> {
    materials
        .iter()
        .position(|m| m.flags & lanthorn_level::material_flags::SKY != 0)
        .map(|i| Sky {
            material: Some(i as u32),
            // Several Quake ports read a skybox name from worldspawn's "sky" key.
            cubemap: entities
                .first()
                .and_then(|e| e.get("sky"))
                .map(str::to_string),
            faces: None,
            clouds: None,
        })
}

#[cfg(test)]
mod lvl_round_trip {
    use lanthorn_level::file::{from_bytes, to_bytes, validate};

    /// The Quake importer's levels pass the same checks and round-trip byte for byte.
    #[test]
    fn imported_bsp_levels_save_and_load() {
        let dir = lanthorn_testdata::realdata_dir().join("quake/bsp");
        if !dir.join("e1m1.bsp").exists() {
            lanthorn_testdata::missing_realdata(&dir);
            return;
        }
        for name in ["e1m1", "dm3"] {
            let level = super::load(&dir.join(format!("{name}.bsp"))).unwrap();
            validate(&level).unwrap_or_else(|e| panic!("{name}: {e}"));
            let bytes = to_bytes(&level);
            let back = from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(to_bytes(&back), bytes, "{name}");
            assert_eq!(back.cells.len(), level.cells.len());
        }
    }
}
