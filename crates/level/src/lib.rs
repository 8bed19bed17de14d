//! The `Level`: the one in-memory world model every producer (compiler, Quake importer, light
//! baker) writes and every consumer (vis, light, render) reads, and its `.lvl` file; `files`
//! writes any output whole or not at all. See docs/ARCHITECTURE.md.

#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod files;

pub mod file;
#[cfg(any(test, feature = "key-reads"))]
pub mod key_reads;
pub mod light_grid;
pub mod motion;
mod solid_segment;
pub use solid_segment::GRAZE;
pub mod spawn;
pub mod styles;
pub mod tjunctions;
pub mod validate;

use glam::{Vec2, Vec3};

use lanthorn_geom::{Aabb, Plane};

pub use file::{load_lvl, save, LvlError};
pub use light_grid::{GridLight, GridSun, LightGrid};
pub use motion::Motion;
pub use styles::LightStyles;

/// What fills a region of space. Ordered-CSG operations write media; cells are the open ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Medium {
    #[default]
    /// Nothing can be there: walls and floors.
    Solid = 0,
    /// Open air.
    Air = 1,
    /// Open, under water.
    Water = 2,
    /// Open, under slime.
    Slime = 3,
    /// Open, under lava.
    Lava = 4,
}

impl Medium {
    /// Whether it is open space (a cell can hold it).
    pub fn is_open(self) -> bool {
        self != Medium::Solid
    }
    /// Water, slime or lava.
    pub fn is_liquid(self) -> bool {
        matches!(self, Medium::Water | Medium::Slime | Medium::Lava)
    }
    /// From its stored byte (`None` for an unknown one).
    pub fn from_u8(v: u8) -> Option<Medium> {
        Some(match v {
            0 => Medium::Solid,
            1 => Medium::Air,
            2 => Medium::Water,
            3 => Medium::Slime,
            4 => Medium::Lava,
            _ => return None,
        })
    }
}

/// Cell flags.
pub mod cell_flags {
    /// Open to the terrain and the sky (draws the terrain clipped to its octagon).
    pub const OUTDOOR: u32 = 1;
    /// Sees a sky surface.
    pub const SKY_VISIBLE: u32 = 2;
    /// The open world around a compiled outdoor level (the space no operation built, next to
    /// outdoor cells): a stand-in cell the size of the level's box with no surfaces, joined by
    /// portals to every open face of the outdoor cells, so outdoor regions see each other across
    /// the sky. Point location never returns it; the eye tracker uses it for an eye in no cell.
    pub const OUTSIDE: u32 = 4;
    /// An imported Quake leaf of sky contents: GLQuake marks the whole level for an eye in one.
    pub const SKY_LEAF: u32 = 8;
}

/// A convex polyhedron of open space: the unit of visibility.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    /// Bounding planes, facing into the cell: inside where every `distance(p) >= 0`.
    pub planes: Vec<Plane>,
    /// Its bounding box.
    pub aabb: Aabb,
    /// What fills it.
    pub medium: Medium,
    /// `cell_flags`.
    pub flags: u32,
    /// Portals that touch this cell (either side).
    pub portals: Vec<u32>,
    /// Surfaces drawn when this cell is visible; a surface may be listed by several cells.
    pub surfaces: Vec<u32>,
}

impl Cell {
    /// Whether `p` is inside every plane, `eps` outside counting as in.
    pub fn contains(&self, p: Vec3, eps: f32) -> bool {
        self.planes.iter().all(|pl| pl.distance(p) >= -eps)
    }
}

/// Portal flags.
pub mod portal_flags {
    /// The portal is also a visible liquid surface (air/water boundary).
    pub const LIQUID_SURFACE: u32 = 1;
    /// Closed (e.g. by a door): blocks the flow.
    pub const CLOSED: u32 = 2;
}

/// A convex polygon shared by two open cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Portal {
    /// Its corners in order, on `plane`.
    pub polygon: Vec<Vec3>,
    /// `front` lies on the plane's positive side, `back` on its negative side.
    pub plane: Plane,
    /// The cell on the plane's positive side.
    pub front: u32,
    /// The cell on its negative side.
    pub back: u32,
    /// Mirror or teleporter: maps points seen through the portal (front side) into the view
    /// space beyond it. Column-major 4×4.
    pub transform: Option<[f32; 16]>,
    /// `portal_flags`.
    pub flags: u32,
}

impl Portal {
    /// The cell on the other side from `cell`.
    pub fn other(&self, cell: u32) -> u32 {
        if self.front == cell {
            self.back
        } else {
            self.front
        }
    }
}

/// Surface flags.
pub mod surface_flags {
    /// Drawn as sky.
    pub const SKY: u32 = 1;
    /// The top of a liquid.
    pub const LIQUID: u32 = 2;
    /// Drawn blended over what is behind it.
    pub const TRANSLUCENT: u32 = 4;
    /// From detail brushes: never splits cells.
    pub const DETAIL: u32 = 8;
    /// Drawn only where its material's texels are opaque (Quake's `{` fence textures).
    pub const FENCE: u32 = 16;
    /// Added to what is behind it, at full light, hiding nothing (Quake 3's glows:
    /// `blendFunc add` over nothing): drawn with the liquids, after the solid surfaces.
    pub const GLOW: u32 = 32;
}

/// One vertex of a world surface.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vertex {
    /// Where it is (world space; object space for an object's surface).
    pub position: Vec3,
    /// Texture coordinates in texture repeats (1.0 = one texture width).
    pub uv: Vec2,
    /// Lightmap coordinates in luxels relative to the surface's lightmap rect origin
    /// (the atlas position is `rect.xy + lightmap_uv`).
    pub lightmap_uv: Vec2,
}

/// A planar polygon of world geometry, triangulated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Surface {
    /// Its vertices.
    pub vertices: Vec<Vertex>,
    /// Triangles, as indices into `vertices`, counter-clockwise seen from the front (the open side).
    pub indices: Vec<u32>,
    /// Its plane's unit normal, towards its front (the open side).
    pub normal: Vec3,
    /// Its material (`Level::materials` index).
    pub material: u32,
    /// Where its lightmap lies in the atlas (`None`: unlit or fullbright).
    pub lightmap: Option<LightmapRect>,
    /// The light style of each lightmap slot (slot `k` lies in atlas layer `k` at `lightmap`).
    pub styles: LightStyles,
    /// `surface_flags`.
    pub flags: u32,
}

/// A rectangle of luxels in the level's lightmap atlas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LightmapRect {
    /// Left column in the atlas.
    pub x: u32,
    /// Top row in the atlas.
    pub y: u32,
    /// Luxels across.
    pub width: u32,
    /// Luxels down.
    pub height: u32,
}

/// Material flags.
pub mod material_flags {
    /// A sky texture.
    pub const SKY: u32 = 1;
    /// A liquid's texture (Quake's `*` names).
    pub const LIQUID: u32 = 2;
    /// Drawn blended over what is behind it.
    pub const TRANSLUCENT: u32 = 4;
    /// Its texels' alpha says where it is there (0: a hole), as Quake's `{` fence textures.
    pub const FENCE: u32 = 8;
}

/// A texture or colour surfaces are drawn with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Material {
    /// Its name (a Quake texture's, or a scene material's).
    pub name: String,
    /// Texels across.
    pub width: u32,
    /// Texels down.
    pub height: u32,
    /// RGBA8, `width * height * 4` bytes, or `None` when only the size is known.
    pub texels: Option<Vec<u8>>,
    /// One byte per texel, 255 where the colour is fullbright (Quake palette entries 224–255).
    pub fullbright: Option<Vec<u8>>,
    /// Flat colour used when there are no texels (linear RGB 0..1).
    pub color: [f32; 3],
    /// `material_flags`.
    pub flags: u32,
    /// A tangent-space normal map at the texels' size (RGBA8: xyz as `0.5 + 0.5·n`; +x along
    /// the texture's u, +y along its v), or `None`. Moving objects' lamps light by it.
    pub normal: Option<Vec<u8>>,
    /// A specular map at the texels' size (RGBA8: RGB the specular colour, A the gloss: the
    /// Blinn-Phong exponent 2^(1 + 10·A)), or `None` (no highlights).
    pub specular: Option<Vec<u8>>,
    /// How fast its picture moves across its surfaces, in repeats a second along u and v
    /// (Quake 3's `tcMod scroll`); zero for a still one. Not kept in `.lvl` files.
    pub scroll: [f32; 2],
    /// Pictures shown in turn in its place (Quake 3's `animMap`); `None` for one picture.
    /// Not kept in `.lvl` files.
    pub animation: Option<Animation>,
}

/// A material's pictures shown in turn: `frames` materials from `first` on in
/// `Level::materials`, `rate` a second, the first at time 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Animation {
    /// The first picture's material.
    pub first: u32,
    /// How many pictures (at least 1).
    pub frames: u32,
    /// Pictures a second.
    pub rate: f32,
}

impl Material {
    /// Whether it has a normal or a specular map.
    pub fn has_maps(&self) -> bool {
        self.normal.is_some() || self.specular.is_some()
    }
}

/// The level's lightmap atlas, RGB8, in layers: layer `k` holds every surface's slot-`k`
/// lightmap at the surface's rect (most surfaces use layer 0 alone; Quake faces with several
/// light styles use up to four).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lightmaps {
    /// Luxels across.
    pub width: u32,
    /// Luxels down.
    pub height: u32,
    /// The layers one after another, each `width * height * 3` bytes.
    pub texels: Vec<u8>,
}

impl Lightmaps {
    /// Number of layers (0 for an empty atlas).
    pub fn layers(&self) -> usize {
        let layer = self.width as usize * self.height as usize * 3;
        self.texels.len().checked_div(layer).unwrap_or(0)
    }
}

/// A movable or separately drawn thing: a brush model (door, lift, button) or a prop.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object {
    /// Its name (the entity's `targetname` or classname, or the scene object's name).
    pub name: String,
    /// Indices into `Level::surfaces`; no cell lists them. Vertices are in object space.
    pub surfaces: Vec<u32>,
    /// Object-space bounds.
    pub bounds: Aabb,
    /// Translation from object space to world space.
    pub origin: Vec3,
    /// The entity it came from, if any.
    pub entity: Option<u32>,
    /// How it moves (`None`: it stays at `origin`).
    pub motion: Option<Motion>,
    /// Portals it closes while it is at rest (a door in its frame).
    pub closes: Vec<u32>,
}

/// Entity key/value pairs in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Entity {
    /// Its keys and values, in file order.
    pub pairs: Vec<(String, String)>,
}

impl Entity {
    /// An entity of these key/value pairs, in order.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Entity {
        Entity {
            pairs: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// Sets `key` to `value` (replacing its value, or adding the pair at the end).
    pub fn set(&mut self, key: &str, value: String) {
        match self.pairs.iter_mut().find(|(k, _)| k == key) {
            Some(pair) => pair.1 = value,
            None => self.pairs.push((key.to_string(), value)),
        }
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        #[cfg(any(test, feature = "key-reads"))]
        key_reads::note(&self.pairs, key);
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    /// Its `classname` (empty when none).
    pub fn classname(&self) -> &str {
        self.get("classname").unwrap_or("")
    }
    /// Its `origin` as three numbers, if it has one that parses.
    pub fn origin(&self) -> Option<Vec3> {
        let v: Vec<f32> = self
            .get("origin")?
            .split_whitespace()
            .filter_map(|s| s.parse().ok())
            .collect();
        (v.len() == 3).then(|| Vec3::new(v[0], v[1], v[2]))
    }
}

/// What the level's sky surfaces show.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sky {
    /// Material of the two-layer Quake sky, if the level uses one.
    pub material: Option<u32>,
    /// Name of a cubemap skybox, if the level names one.
    pub cubemap: Option<String>,
    /// A sky box the level carries: the materials of its six pictures, facing +X, −X, +Y, −Y,
    /// +Z, −Z, each as seen from inside as Quake 3 lays them out (`SKY_BOX_FACES`). Not kept in
    /// `.lvl` files (Quake 3 maps are read from their BSP).
    pub faces: Option<[u32; 6]>,
    /// Quake 3's cloud layers, drawn over the far box (or black) where the box has none. Not
    /// kept in `.lvl` files.
    pub clouds: Option<Clouds>,
}

/// Most cloud layers a sky has (the renderer's uniform holds this many).
pub const MAX_CLOUD_LAYERS: usize = 4;

/// Quake 3's cloud layers (`skyParms` and the sky shader's stages, `tr_sky.c`): pictures on a
/// dome `height` units over the eye, part of a sphere 4096 units in radius whose centre lies
/// that far below the eye. A direction `d` meets it at `p`, and the picture's coordinates are
/// the angles of `p` (from the centre) to +X and to +Y, in radians, moved by each layer's
/// `scale` and `scroll`. No layer is drawn in the directions through the box's bottom face.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clouds {
    /// The dome's height over the eye (`skyParms`' second word, > 0).
    pub height: f32,
    /// The layers, drawn in order (at most `MAX_CLOUD_LAYERS`).
    pub layers: Vec<CloudLayer>,
}

/// The radius of the sphere the cloud dome is part of (`tr_sky.c`'s `radiusWorld`).
pub const CLOUD_SPHERE_RADIUS: f32 = 4096.0;

/// One cloud layer: a picture, how it moves and how it covers what lies under it.
#[derive(Clone, Debug, PartialEq)]
pub struct CloudLayer {
    /// Its picture.
    pub material: u32,
    /// The picture's coordinates are `angles · scale + scroll · seconds` (the stage's `tcMod
    /// scale` and `scroll` in their order, folded into one).
    pub scale: Vec2,
    /// Repeats a second along s and t.
    pub scroll: Vec2,
    /// How it covers what is under it.
    pub blend: CloudBlend,
}

/// How a cloud layer covers what is under it (its stage's `blendFunc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloudBlend {
    /// Replaces it (no `blendFunc`).
    Replace,
    /// Adds to it (`add`, `GL_ONE GL_ONE`).
    Add,
    /// Multiplies it (`filter`, `GL_DST_COLOR GL_ZERO`).
    Multiply,
    /// Over it by the picture's alpha (`blend`).
    Alpha,
}

/// How a picture of `Sky::faces` lies: for a point of the face at `(s, t)` ∈ \[−1, 1\]² (`s`
/// to the picture's right, `t` up it), the direction is `s`·`right` + `t`·`up` + `out`. Quake
/// 3's box (`tr_sky.c`): the side pictures stand upright, the top's up is −X, the bottom's +X.
pub const SKY_BOX_FACES: [(Vec3, Vec3, Vec3); 6] = [
    (Vec3::X, Vec3::NEG_Y, Vec3::Z),
    (Vec3::NEG_X, Vec3::Y, Vec3::Z),
    (Vec3::Y, Vec3::X, Vec3::Z),
    (Vec3::NEG_Y, Vec3::NEG_X, Vec3::Z),
    (Vec3::Z, Vec3::NEG_Y, Vec3::NEG_X),
    (Vec3::NEG_Z, Vec3::NEG_Y, Vec3::X),
];

/// Where a level places a terrain.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TerrainRef {
    /// A heightmap path or `procedural:SIZE`.
    pub heightmap: String,
    /// Where the heightmap's sample (0, 0) lies in the level.
    pub origin: Vec3,
    /// World units between samples.
    pub horizontal_scale: f32,
    /// World units per unit of height.
    pub vertical_scale: f32,
}

/// A child of a BSP node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BspChild {
    /// An inner node (`Bsp::nodes` index).
    Node(u32),
    /// A leaf (`Bsp::leaves` index).
    Leaf(u32),
}

/// An inner node: a splitting plane and its two sides.
#[derive(Clone, Debug, PartialEq)]
pub struct BspNode {
    /// The splitting plane.
    pub plane: Plane,
    /// [front (positive side), back].
    pub children: [BspChild; 2],
    /// The box of everything below it.
    pub aabb: Aabb,
}

/// A BSP leaf: the cells inside it (none for solid leaves).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BspLeaf {
    /// The cells (`Level::cells` indices).
    pub cells: Vec<u32>,
}

/// BSP over cells: point location, front-to-back order, node boxes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bsp {
    /// Its inner nodes.
    pub nodes: Vec<BspNode>,
    /// Its leaves.
    pub leaves: Vec<BspLeaf>,
    /// The root, or `None` for an empty tree.
    pub root: Option<BspChild>,
}

/// Where a level compiled with `--allow-leak` leaks: the path from the entity that reaches the
/// void to the void, a point every 2 units (as the `.pts` file), and the entity.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeakPath {
    /// The entity's classname and its line in the source.
    pub entity: String,
    /// The entity's line in the source file.
    pub line: u32,
    /// The path, a point every 2 units.
    pub points: Vec<Vec3>,
    /// The brushes the path runs through that do not seal, each with why (empty: it leaves
    /// through a gap between brushes).
    pub crossings: Vec<String>,
}

/// Precomputed potentially-visible sets from an imported BSP file: one bit row per cell.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pvs {
    /// Bytes a cell's row holds (one bit a cell).
    pub row_bytes: usize,
    /// Every cell's row, one after another.
    pub rows: Vec<u8>,
}

impl Pvs {
    /// Whether cell `to` is in cell `from`'s set.
    pub fn visible(&self, from: u32, to: u32) -> bool {
        let i = from as usize * self.row_bytes + (to as usize >> 3);
        self.rows.get(i).is_some_and(|b| b & (1 << (to & 7)) != 0)
    }
}

/// The world.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Level {
    /// The convex cells of open space.
    pub cells: Vec<Cell>,
    /// The portals between them (and mirrors, teleporters).
    pub portals: Vec<Portal>,
    /// Every surface: the cells' and the objects'.
    pub surfaces: Vec<Surface>,
    /// The tree that locates points in cells.
    pub bsp: Bsp,
    /// What surfaces are drawn with.
    pub materials: Vec<Material>,
    /// The lightmap atlas.
    pub lightmaps: Lightmaps,
    /// Doors, lifts, plats and props: brush models drawn apart from the cells.
    pub objects: Vec<Object>,
    /// The entities, as the source had them.
    pub entities: Vec<Entity>,
    /// The sky, if any surface shows it.
    pub sky: Option<Sky>,
    /// The terrain the level places, if any.
    pub terrain: Option<TerrainRef>,
    /// The potentially visible sets an imported Quake map came with.
    pub pvs: Option<Pvs>,
    /// The light of moving objects where they go (`None`: they are lit by the lightmap below
    /// them, as Quake's `R_LightPoint` does).
    pub light_grid: Option<LightGrid>,
    /// The leak of a level compiled with `--allow-leak` (none in a sealed one).
    pub leak: Option<LeakPath>,
}

impl Level {
    /// Adds a portal and lists it in the portals of both its cells; returns its id.
    pub fn add_portal(&mut self, portal: Portal) -> u32 {
        let id = self.portals.len() as u32;
        self.cells[portal.front as usize].portals.push(id);
        self.cells[portal.back as usize].portals.push(id);
        self.portals.push(portal);
        id
    }

    /// Bounds of all cells (or of all surfaces when there are no cells).
    pub fn bounds(&self) -> Aabb {
        let mut b = Aabb::EMPTY;
        for c in &self.cells {
            b = b.union(&c.aabb);
        }
        if b.is_empty() {
            for s in &self.surfaces {
                for v in &s.vertices {
                    b.add_point(v.position);
                }
            }
        }
        b
    }

    /// The cell holding `p`: BSP descent, then the leaf's cells by their planes; `None` in solid.
    pub fn locate(&self, p: Vec3) -> Option<u32> {
        let mut child = self.bsp.root?;
        let mut steps = 0;
        loop {
            match child {
                BspChild::Node(n) => {
                    let node = self.bsp.nodes.get(n as usize)?;
                    child = if node.plane.distance(p) >= 0.0 {
                        node.children[0]
                    } else {
                        node.children[1]
                    };
                }
                BspChild::Leaf(l) => {
                    let leaf = self.bsp.leaves.get(l as usize)?;
                    // A leaf may hold several cells; a point outside all of them is in solid.
                    return leaf.cells.iter().copied().find(|&c| {
                        self.cells
                            .get(c as usize)
                            .is_some_and(|cell| cell.contains(p, 0.01))
                    });
                }
            }
            steps += 1;
            if steps > self.bsp.nodes.len() + 1 {
                return None;
            }
        }
    }

    /// The `OUTSIDE` cell, if the level has one.
    pub fn outside_cell(&self) -> Option<u32> {
        self.cells
            .iter()
            .position(|c| c.flags & cell_flags::OUTSIDE != 0)
            .map(|i| i as u32)
    }

    /// The player start (`info_player_start`, else a deathmatch or coop start) as a camera:
    /// the eye 22 units above the entity origin, looking along its `angle`.
    pub fn player_start(&self) -> Option<lanthorn_geom::CameraSpec> {
        let e = [
            "info_player_start",
            "info_player_deathmatch",
            "info_player_coop",
        ]
        .iter()
        .find_map(|cls| self.entities.iter().find(|e| e.classname() == *cls))?;
        let o = e.origin()?;
        let yaw = e
            .get("angle")
            .and_then(|a| a.trim().parse::<f32>().ok())
            .unwrap_or(0.0);
        Some(lanthorn_geom::CameraSpec {
            position: o + Vec3::Z * 22.0,
            yaw,
            pitch: 0.0,
        })
    }

    /// Triangles of every surface.
    pub fn triangle_count(&self) -> usize {
        self.surfaces.iter().map(|s| s.indices.len() / 3).sum()
    }
}

/// A holder of a level can borrow it or own it (a headless command lends the app its level;
/// the demo gives it one).
impl<'l> From<&'l Level> for std::borrow::Cow<'l, Level> {
    fn from(level: &'l Level) -> Self {
        std::borrow::Cow::Borrowed(level)
    }
}

impl From<Level> for std::borrow::Cow<'_, Level> {
    fn from(level: Level) -> Self {
        std::borrow::Cow::Owned(level)
    }
}
