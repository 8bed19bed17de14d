//! A Quake 3 map's materials: the shader scripts on the game's path, each shader's picture
//! (the script's base image or the texture of its own name), how its surfaces are drawn
//! (flags, light, what falls back) and the animations' pictures.

use std::collections::HashMap;

use lanthorn_level::{material_flags, surface_flags, Animation, Material};

use super::shaders::{self, Coverage, Lighting, ShaderScript};
use super::Ibsp;

/// The game's files a map's materials come from (Quake 3's search path).
pub trait GameFiles {
    /// `name`'s bytes from the first place that holds it.
    fn read(&self, name: &str) -> Option<Vec<u8>>;
    /// The names of the files in `folder` (e.g. `scripts`) whose names end in `ext`.
    fn list(&self, folder: &str, ext: &str) -> Vec<String>;
}

/// No game files: materials get their sizes from nothing and draw as flat colours.
pub struct NoFiles;

impl GameFiles for NoFiles {
    fn read(&self, _: &str) -> Option<Vec<u8>> {
        None
    }
    fn list(&self, _: &str, _: &str) -> Vec<String> {
        Vec::new()
    }
}

/// Quake 3's `SURF_SKY`.
pub(super) const SURF_SKY: i32 = 0x4;
/// `SURF_NODRAW`.
const SURF_NODRAW: i32 = 0x80;
/// `CONTENTS_LAVA | CONTENTS_SLIME | CONTENTS_WATER`.
const CONTENTS_LIQUID: i32 = 8 | 16 | 32;
/// `CONTENTS_FOG`: a fog volume's sides, drawn as fog, not as walls.
const CONTENTS_FOG: i32 = 64;
/// `CONTENTS_TRANSLUCENT`.
const CONTENTS_TRANSLUCENT: i32 = 0x2000_0000;
/// Textures larger than this on a side are not read (a damaged header would ask for more).
const MAX_TEXTURE_SIDE: u32 = 4096;

/// Every shader script on the game's path, by name. A name two files define takes the
/// definition of the file last by name, as ioquake3 joins the files' text in reverse order and
/// takes the first definition it finds.
pub(super) fn read_scripts(files: &dyn GameFiles) -> HashMap<String, ShaderScript> {
    let mut all = HashMap::new();
    let mut names = files.list("scripts", ".shader");
    names.sort_by_key(|n| std::cmp::Reverse(n.to_ascii_lowercase()));
    for name in names {
        if let Some(bytes) = files.read(&name) {
            shaders::parse_into(&String::from_utf8_lossy(&bytes), &mut all);
        }
    }
    all
}

/// The materials, one per shader, and each shader's surface flags.
pub(super) struct Materials {
    pub(super) list: Vec<Material>,
    /// Per shader: `surface_flags` of its surfaces, or `None` for shaders that draw nothing.
    pub(super) flags: Vec<Option<u32>>,
    /// Per shader: how its surfaces take light.
    pub(super) lighting: Vec<Lighting>,
    /// Per shader: the first thing of it not drawn as the game draws it (`None`: drawn so).
    pub(super) fallback: Vec<Option<String>>,
    /// Shaders a script describes.
    pub(super) scripted: usize,
    /// Shaders whose picture was not found (drawn as a flat grey).
    pub(super) missing: Vec<String>,
    /// Materials before the animations' pictures: one a shader.
    pub(super) shaders: usize,
}

pub(super) fn materials(
    map: &Ibsp,
    scripts: &HashMap<String, ShaderScript>,
    files: &dyn GameFiles,
) -> Materials {
    let mut list = Vec::with_capacity(map.shaders.len());
    let mut flags = Vec::with_capacity(map.shaders.len());
    let mut lighting = Vec::with_capacity(map.shaders.len());
    let mut fallback = Vec::with_capacity(map.shaders.len());
    let (mut scripted, mut missing) = (0, Vec::new());
    for sh in &map.shaders {
        let name = sh.name.to_ascii_lowercase();
        let script = scripts.get(&name);
        scripted += script.is_some() as usize;
        let picture = script.and_then(|s| s.base_image()).unwrap_or(&name);
        let texels = texture(files, picture);
        if texels.is_none() && sh.surface_flags & (SURF_NODRAW | SURF_SKY) == 0 {
            missing.push(name.clone());
        }
        let sky = sh.surface_flags & SURF_SKY != 0;
        let liquid = sh.content_flags & CONTENTS_LIQUID != 0;
        let blended =
            script.is_some_and(|s| s.stages.first().is_some_and(|st| !st.blend.is_empty()));
        let translucent = sh.content_flags & CONTENTS_TRANSLUCENT != 0 && (liquid || blended);
        let coverage = script.map_or(Coverage::Opaque, ShaderScript::coverage);
        let fence = coverage == Coverage::AlphaBlended;
        let mut m = Material {
            name: sh.name.clone(),
            color: [0.5; 3],
            scroll: script.and_then(ShaderScript::scroll).unwrap_or_default(),
            ..Default::default()
        };
        if let Some((w, h, rgba)) = texels {
            m.color = mean_colour(&rgba);
            (m.width, m.height, m.texels) = (w, h, Some(rgba));
        }
        m.flags = (sky as u32 * material_flags::SKY)
            | (liquid as u32 * material_flags::LIQUID)
            | (translucent as u32 * material_flags::TRANSLUCENT)
            | (fence as u32 * material_flags::FENCE);
        // A decal lies on another surface and bounds nothing: detail.
        let detail = script.is_some_and(|s| s.decal);
        let drawn = sh.surface_flags & SURF_NODRAW == 0
            && sh.content_flags & CONTENTS_FOG == 0
            && coverage != Coverage::Tints;
        // Added over what is behind it (a teleporter's field, a light's halo): a glow.
        let glow = coverage == Coverage::Additive && !sky;
        flags.push(drawn.then_some(
            (sky as u32 * surface_flags::SKY)
                | (liquid as u32 * surface_flags::LIQUID)
                | (translucent as u32 * surface_flags::TRANSLUCENT)
                | (fence as u32 * surface_flags::FENCE)
                | (detail as u32 * surface_flags::DETAIL)
                | (glow as u32 * surface_flags::GLOW),
        ));
        list.push(m);
        lighting.push(script.map_or(Lighting::Lightmap, ShaderScript::lighting));
        fallback.push(script.and_then(ShaderScript::fallback));
    }
    let shaders = list.len();
    animations(map, scripts, files, &mut list);
    Materials {
        list,
        flags,
        lighting,
        fallback,
        scripted,
        missing,
        shaders,
    }
}

/// Each shader whose base picture is an `animMap` gets its pictures as a run of materials at
/// the end of `list` (one a picture; one not found shows the shader's own) and an animation
/// over them.
fn animations(
    map: &Ibsp,
    scripts: &HashMap<String, ShaderScript>,
    files: &dyn GameFiles,
    list: &mut Vec<Material>,
) {
    for (i, sh) in map.shaders.iter().enumerate() {
        let script = scripts.get(&sh.name.to_ascii_lowercase());
        let Some((rate, pictures)) = script.and_then(ShaderScript::anim_map) else {
            continue;
        };
        let first = list.len() as u32;
        for (k, picture) in pictures.iter().enumerate() {
            let name = format!("{}#{k}", sh.name);
            // The first picture is the shader's own, read already; one not found shows it too.
            let frame = match (k > 0).then(|| texture(files, picture)).flatten() {
                Some((width, height, rgba)) => Material {
                    name,
                    width,
                    height,
                    color: mean_colour(&rgba),
                    texels: Some(rgba),
                    flags: list[i].flags,
                    scroll: list[i].scroll,
                    ..Default::default()
                },
                None => Material {
                    name,
                    ..list[i].clone()
                },
            };
            list.push(frame);
        }
        list[i].animation = Some(Animation {
            first,
            frames: pictures.len() as u32,
            rate: *rate,
        });
    }
}

/// A picture by name, as Quake 3 finds it: the name's own extension, else `.tga`, `.jpg`,
/// `.png`. RGBA8 with its size.
pub(super) fn texture(files: &dyn GameFiles, name: &str) -> Option<(u32, u32, Vec<u8>)> {
    let stem = name
        .rsplit_once('.')
        .filter(|(_, ext)| !ext.contains('/'))
        .map_or(name, |(s, _)| s);
    let tries = [name.to_string()]
        .into_iter()
        .chain(["tga", "jpg", "png"].map(|e| format!("{stem}.{e}")));
    tries
        .filter_map(|n| files.read(&n))
        .find_map(|b| decode(&b))
}

/// Decodes a TGA, JPEG or PNG; `None` for anything else or too large.
fn decode(bytes: &[u8]) -> Option<(u32, u32, Vec<u8>)> {
    // TGA has no magic number: a file that is not a known format is tried as one.
    let format = image::guess_format(bytes).unwrap_or(image::ImageFormat::Tga);
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_TEXTURE_SIDE);
    limits.max_image_height = Some(MAX_TEXTURE_SIDE);
    reader.limits(limits);
    let img = reader.decode().ok()?.to_rgba8();
    Some((img.width(), img.height(), img.into_raw()))
}

/// The mean colour of RGBA8 texels, in linear RGB 0..1.
pub(super) fn mean_colour(rgba: &[u8]) -> [f32; 3] {
    let n = (rgba.len() / 4).max(1) as f64;
    let mut sum = [0.0f64; 3];
    for px in rgba.chunks_exact(4) {
        for k in 0..3 {
            sum[k] += (px[k] as f64 / 255.0).powf(2.2);
        }
    }
    sum.map(|s| (s / n) as f32)
}
