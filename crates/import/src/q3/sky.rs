//! A Quake 3 map's sky: the first sky shader's material, its script's far box (`skyParms
//! env/NAME`: pictures `NAME_rt`, `_lf`, `_bk`, `_ft`, `_up`, `_dn`, facing +X, −X, +Y, −Y, +Z,
//! −Z in Quake 3's box) as six more materials when all six are found, and its stages as cloud
//! layers over it (`skyParms`' cloud height; each stage's picture, `tcMod scale` and `scroll`,
//! and `blendFunc`). A box the game does not find (`skyParms full …` names none) is not drawn,
//! as the game draws none.

use std::collections::HashMap;

use glam::Vec2;
use lanthorn_level::{
    material_flags, CloudBlend, CloudLayer, Clouds, Material, Sky, MAX_CLOUD_LAYERS,
};

use super::materials::{mean_colour, texture, GameFiles, SURF_SKY};
use super::shaders::ShaderScript;
use super::Ibsp;

/// The level's sky, with the pictures it needs appended to `materials`.
pub(super) fn sky(
    map: &Ibsp,
    scripts: &HashMap<String, ShaderScript>,
    files: &dyn GameFiles,
    materials: &mut Vec<Material>,
) -> Option<Sky> {
    let i = materials
        .iter()
        .position(|m| m.flags & material_flags::SKY != 0)?;
    let script = map
        .shaders
        .iter()
        .filter(|sh| sh.surface_flags & SURF_SKY != 0)
        .find_map(|sh| scripts.get(&sh.name.to_ascii_lowercase()));
    let faces = script
        .and_then(|s| s.sky_box.as_deref())
        .and_then(|name| far_box(name, files, materials));
    let clouds = script.and_then(|s| clouds(s, files, materials));
    Some(Sky {
        material: Some(i as u32),
        cubemap: None,
        faces,
        clouds,
    })
}

/// The six pictures of the far box `name` as materials, when all are found.
fn far_box(name: &str, files: &dyn GameFiles, materials: &mut Vec<Material>) -> Option<[u32; 6]> {
    const SIDES: [&str; 6] = ["rt", "lf", "bk", "ft", "up", "dn"];
    let pictures: Vec<(u32, u32, Vec<u8>)> = SIDES
        .iter()
        .map(|side| texture(files, &format!("{name}_{side}")))
        .collect::<Option<_>>()?;
    let first = materials.len() as u32;
    for ((w, h, rgba), side) in pictures.into_iter().zip(SIDES) {
        materials.push(picture(format!("{name}_{side}"), w, h, rgba));
    }
    Some(std::array::from_fn(|k| first + k as u32))
}

fn picture(name: String, width: u32, height: u32, rgba: Vec<u8>) -> Material {
    Material {
        name,
        width,
        height,
        color: mean_colour(&rgba),
        texels: Some(rgba),
        ..Default::default()
    }
}

/// The script's stages as cloud layers (the first `MAX_CLOUD_LAYERS` whose picture is found),
/// when it gives a cloud height.
fn clouds(
    s: &ShaderScript,
    files: &dyn GameFiles,
    materials: &mut Vec<Material>,
) -> Option<Clouds> {
    let height = s.cloud_height?;
    let mut layers = Vec::new();
    for st in s.stages.iter().take(MAX_CLOUD_LAYERS) {
        let Some(name) = st.image.as_deref().filter(|n| !n.starts_with('$')) else {
            continue;
        };
        let Some((w, h, rgba)) = texture(files, name) else {
            continue;
        };
        layers.push(CloudLayer {
            material: materials.len() as u32,
            scale: Vec2::from(st.motion.scale),
            scroll: Vec2::from(st.motion.scroll),
            // A blend no cloud layer has adds, as most sky stages over the first do.
            blend: st.cloud_blend().unwrap_or(CloudBlend::Add),
        });
        materials.push(picture(name.to_string(), w, h, rgba));
    }
    (!layers.is_empty()).then_some(Clouds { height, layers })
}
