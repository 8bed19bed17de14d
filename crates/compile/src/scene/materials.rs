//! A scene's materials and how each face wears one. `Scene::materials` lists the materials
//! with texels (a PNG beside the scene, a generated texture) or a set colour; any other name
//! an operation uses is a flat colour derived from the name. A face's look is a `FaceStyle`:
//! the material plus its Quake-style texture scale and offset; the CSG carries style ids, so
//! regions with different textures are never merged.

use std::collections::HashMap;
use std::io::Cursor;

use glam::DVec3;
use image::ImageDecoder;

use super::files::SceneFiles;
use super::procedural::{procedural, NAMES};
use super::scene_file::{MaterialSource, Scene, SceneTexture};
use super::SceneError;
use crate::draft::flat_color;
use crate::surfaces::SurfaceSpec;
use crate::texture::{tex_vecs, TexProjection};
use lanthorn_level::{material_flags, surface_flags, Material};

/// Largest PNG side accepted, in texels (the renderer resamples every material to 256²).
pub(super) const MAX_TEXTURE_SIDE: u32 = 4096;

/// Size of a material without texels, for its texture coordinates (as Quake's 64² default).
const FLAT_SIZE: u32 = 64;

/// How a face wears its material: which one, its size in texels, and the texture's scale and
/// offset (Quake's id convention).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct FaceStyle {
    pub(super) material: u32,
    pub(super) size: (u32, u32),
    pub(super) texture: SceneTexture,
}

impl FaceStyle {
    /// The surface spec of a face with outward (front) `normal`: texture axes from the axial
    /// plane nearest the face, divided by the scale, plus the offset in texels; a lightmap
    /// every `luxel_size` texels unless `flags` say sky or liquid.
    pub(super) fn spec(&self, normal: DVec3, flags: u32, luxel_size: f64) -> SurfaceSpec {
        let t = self.texture;
        let projection = TexProjection::Standard {
            offset: [t.offset.0, t.offset.1],
            rotation: 0.0,
            scale: [t.scale.0, t.scale.1],
        };
        let lit = flags & (surface_flags::LIQUID | surface_flags::SKY) == 0;
        SurfaceSpec {
            tex: tex_vecs(&projection, normal),
            tex_size: self.size,
            material: self.material,
            flags,
            luxel: lit.then_some(luxel_size),
        }
    }
}

/// The scale and offset of a `texture` field, or why they cannot be used.
pub(super) fn check_texture(t: &SceneTexture) -> Result<(), String> {
    let (sx, sy) = t.scale;
    if !(sx.is_finite() && sy.is_finite() && sx.abs() > 1e-6 && sy.abs() > 1e-6) {
        return Err(format!(
            "scale ({sx}, {sy}) has a zero or non-finite component: give two non-zero \
             numbers, (1.0, 1.0) for one texel per unit"
        ));
    }
    let (ox, oy) = t.offset;
    if !(ox.is_finite() && oy.is_finite()) {
        return Err(format!(
            "offset ({ox}, {oy}) is not finite: give two numbers of texels"
        ));
    }
    Ok(())
}

/// The scene's materials by name, and the face styles made of them.
#[derive(Default)]
pub(super) struct SceneMaterials {
    ids: HashMap<String, u32>,
    pub(super) list: Vec<Material>,
    /// Which materials `Scene::materials` listed (they keep their own colour as sky).
    listed: usize,
    pub(super) styles: Vec<FaceStyle>,
    style_ids: HashMap<(u32, [u64; 4]), u32>,
}

impl SceneMaterials {
    /// The listed materials, loaded (PNG files through `files`): each bad one is an error
    /// naming it and its field.
    pub(super) fn new(scene: &Scene, files: &SceneFiles) -> Result<Self, SceneError> {
        let mut out = SceneMaterials::default();
        for (index, m) in scene.materials.iter().enumerate() {
            let error = |field: &'static str, msg: String| SceneError::Material {
                index,
                name: m.name.clone(),
                field,
                msg,
            };
            if m.name.is_empty() {
                return Err(error("name", "the name is empty: name the material".into()));
            }
            if let Some(&first) = out.ids.get(&m.name) {
                return Err(error(
                    "name",
                    format!("the name is listed twice (first as material {first}): keep one"),
                ));
            }
            let mut material = load(&m.source, files).map_err(|msg| error("source", msg))?;
            material.normal = load_map(m.normal.as_deref(), &material, files)
                .map_err(|msg| error("normal", msg))?;
            material.specular = load_map(m.specular.as_deref(), &material, files)
                .map_err(|msg| error("specular", msg))?;
            material.name = m.name.clone();
            if m.name.starts_with('*') {
                material.flags |= material_flags::LIQUID;
            }
            out.ids.insert(m.name.clone(), out.list.len() as u32);
            out.list.push(material);
        }
        out.listed = out.list.len();
        Ok(out)
    }

    /// The material `name`: a listed one, or a new flat colour derived from the name
    /// (liquid when it starts with `*`).
    pub(super) fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        self.list.push(Material {
            name: name.into(),
            width: FLAT_SIZE,
            height: FLAT_SIZE,
            color: flat_color(name),
            flags: if name.starts_with('*') {
                material_flags::LIQUID
            } else {
                0
            },
            ..Default::default()
        });
        let id = self.list.len() as u32 - 1;
        self.ids.insert(name.to_string(), id);
        id
    }

    /// The style id of material `name` worn with `texture` (default: scale 1, offset 0). The
    /// texture must have passed `check_texture`.
    pub(super) fn style(&mut self, name: &str, texture: Option<&SceneTexture>) -> u32 {
        let material = self.id(name);
        let texture = texture.copied().unwrap_or_default();
        let (s, o) = (texture.scale, texture.offset);
        let key = (material, [s.0, s.1, o.0, o.1].map(f64::to_bits));
        if let Some(&id) = self.style_ids.get(&key) {
            return id;
        }
        let m = &self.list[material as usize];
        self.styles.push(FaceStyle {
            material,
            size: (m.width, m.height),
            texture,
        });
        let id = self.styles.len() as u32 - 1;
        self.style_ids.insert(key, id);
        id
    }

    /// The surface spec of a face of material `name` worn with `texture`, facing `normal`, with
    /// a lightmap every `luxel_size` texels (`None`: none, as a moving object's): what an
    /// object brush's face needs (`texture` checked with `check_texture` first).
    pub(super) fn face_spec(
        &mut self,
        name: &str,
        texture: Option<&SceneTexture>,
        normal: DVec3,
        flags: u32,
        luxel_size: Option<f64>,
    ) -> SurfaceSpec {
        let style = self.style(name, texture);
        let mut spec = self.styles[style as usize].spec(normal, flags, luxel_size.unwrap_or(0.0));
        if luxel_size.is_none() {
            spec.luxel = None;
        }
        spec
    }

    /// The style of the sky shown through outdoor cells' open faces in a scene without a
    /// terrain: the material `sky`, flagged sky (a listed one keeps its texels and colour).
    pub(super) fn sky(&mut self) -> u32 {
        let style = self.style("sky", None);
        let m = self.styles[style as usize].material as usize;
        let material = &mut self.list[m];
        material.flags |= material_flags::SKY;
        if m >= self.listed {
            material.color = [0.45, 0.6, 0.8];
        }
        style
    }
}

/// A listed material's texels (or colour) from its source, or what is wrong with it.
fn load(source: &MaterialSource, files: &SceneFiles) -> Result<Material, String> {
    match source {
        MaterialSource::Png(name) => load_png(name, files),
        MaterialSource::Procedural(name) => procedural(name).ok_or_else(|| {
            format!(
                "there is no procedural texture \"{name}\": use one of {}",
                NAMES.join(", ")
            )
        }),
        &MaterialSource::Color((r, g, b)) => {
            if ![r, g, b].iter().all(|c| (0.0..=1.0).contains(c)) {
                return Err(format!(
                    "colour ({r}, {g}, {b}) is outside 0..1: give linear RGB from 0 to 1"
                ));
            }
            Ok(Material {
                width: FLAT_SIZE,
                height: FLAT_SIZE,
                color: [r, g, b],
                ..Default::default()
            })
        }
    }
}

/// A normal or specular map named `name` for `material` (whose texels it must match in size),
/// or none.
fn load_map(
    name: Option<&str>,
    material: &Material,
    files: &SceneFiles,
) -> Result<Option<Vec<u8>>, String> {
    let Some(name) = name else { return Ok(None) };
    if material.texels.is_none() {
        return Err(format!(
            "{name}: a map needs a Png source of the same size; this material has no texels"
        ));
    }
    let map = load_png(name, files)?;
    if (map.width, map.height) != (material.width, material.height) {
        return Err(format!(
            "{} is {}×{} texels but the material's texture is {}×{}: make them the same size",
            files.path(name).display(),
            map.width,
            map.height,
            material.width,
            material.height
        ));
    }
    Ok(map.texels)
}

/// A PNG's texels (RGBA8), its size checked before it is decoded.
fn load_png(name: &str, files: &SceneFiles) -> Result<Material, String> {
    let path = files.path(name);
    let shown = path.display();
    let bytes = files.read(name).map_err(|e| {
        format!("cannot read {shown}: {e}: put the PNG there or fix the path (it is relative to the scene file)")
    })?;
    let not_png =
        |e: image::ImageError| format!("{shown} is not a readable PNG ({e}): re-save it as a PNG");
    let decoder = image::codecs::png::PngDecoder::new(Cursor::new(&*bytes)).map_err(not_png)?;
    let (w, h) = decoder.dimensions();
    if w == 0 || h == 0 || w > MAX_TEXTURE_SIDE || h > MAX_TEXTURE_SIDE {
        return Err(format!(
            "{shown} is {w}×{h} texels: a texture must be 1 to {MAX_TEXTURE_SIDE} texels on a side"
        ));
    }
    let image = image::DynamicImage::from_decoder(decoder)
        .map_err(not_png)?
        .into_rgba8();
    let texels = image.into_raw();
    // The mean colour stands in where a texel array is not drawn (a flat fallback).
    let mut sum = [0u64; 3];
    for t in texels.chunks_exact(4) {
        for k in 0..3 {
            sum[k] += t[k] as u64;
        }
    }
    let n = (w as u64 * h as u64 * 255) as f32;
    Ok(Material {
        width: w,
        height: h,
        color: sum.map(|s| s as f32 / n),
        texels: Some(texels),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A face spec worked out by hand: a face with normal −Y (Quake axes +X and −Z) of the
    /// 64² crate, scale (0.5, 4), offset (3, −2): at (10, 0, 20), s = 10 / 0.5 + 3 = 23 and
    /// t = −20 / 4 − 2 = −7 texels; the same style twice is one style.
    #[test]
    fn face_spec_lays_the_texture_as_quake_does() {
        let scene = super::super::parse(
            r#"Scene(materials: [(name: "crate", source: Procedural("crate"))], ops: [])"#,
        )
        .unwrap();
        let mut m = SceneMaterials::new(&scene, &SceneFiles::Dir(".".into())).unwrap();
        let t = SceneTexture {
            scale: (0.5, 4.0),
            offset: (3.0, -2.0),
        };
        let spec = m.face_spec("crate", Some(&t), -DVec3::Y, 0, Some(16.0));
        assert_eq!(
            (spec.material, spec.tex_size, spec.luxel),
            (0, (64, 64), Some(16.0))
        );
        assert_eq!(spec.tex.st(DVec3::new(10.0, 0.0, 20.0)), (23.0, -7.0));
        assert_eq!(m.style("crate", Some(&t)), m.style("crate", Some(&t)));
        assert_eq!(m.styles.len(), 1);
        // Liquids and sky have no lightmap.
        let water = m.face_spec("*water", None, DVec3::Z, surface_flags::LIQUID, Some(16.0));
        // A moving object's face: no lightmap.
        assert_eq!(m.face_spec("crate", None, DVec3::Z, 0, None).luxel, None);
        assert_eq!(water.luxel, None);
        assert_eq!(
            m.list[water.material as usize].flags,
            material_flags::LIQUID
        );
    }

    /// Maps load with their material; a map of another size than the texture, or on a
    /// material without a PNG, is one error naming the material and the field.
    #[test]
    fn maps_load_and_bad_ones_are_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("lanthorn-scene-maps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let save = |name: &str, side: u32| {
            image::RgbaImage::from_pixel(side, side, image::Rgba([128, 128, 255, 255]))
                .save(dir.join(name))
                .unwrap();
        };
        save("t.png", 8);
        save("n.png", 8);
        save("small.png", 4);
        let files = SceneFiles::Dir(dir);
        let load = |materials: &str| {
            let text = format!("Scene(materials: [{materials}], ops: [])");
            SceneMaterials::new(&super::super::parse(&text).unwrap(), &files)
        };
        let ok = load(
            r#"(name: "a", source: Png("t.png"), normal: Some("n.png"), specular: Some("n.png"))"#,
        )
        .unwrap();
        assert_eq!(ok.list[0].normal.as_ref().map(Vec::len), Some(8 * 8 * 4));
        assert!(ok.list[0].specular.is_some());
        let e = load(r#"(name: "a", source: Png("t.png"), normal: Some("small.png"))"#)
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("material 0 (\"a\"), normal: "), "{e}");
        assert!(
            e.contains("normal") && e.contains("4×4") && e.contains("8×8"),
            "{e}"
        );
        let e = load(r#"(name: "flat", source: Color((0.5, 0.5, 0.5)), specular: Some("n.png"))"#)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("specular") && e.contains("no texels"), "{e}");
    }
}
