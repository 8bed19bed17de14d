//! Quake 3's shader scripts (`scripts/*.shader`): each names a material and describes it in
//! stages. This reads what a level needs to pick a material's picture: the images its stages
//! map, its `qer_editorimage`, its sky box and `surfaceparm`s, and counts the directives it
//! does not act on. Within a file the first definition of a name wins.

use std::collections::HashMap;

/// The cloud height the game takes where `skyParms` gives none (`-`, 0).
const DEFAULT_CLOUD_HEIGHT: f32 = 512.0;

/// One shader of a script.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShaderScript {
    /// Its name (a texture path without extension, lower case).
    pub name: String,
    /// Its stages, in order.
    pub stages: Vec<Stage>,
    /// `qer_editorimage`: the picture an editor shows.
    pub editor_image: Option<String>,
    /// `skyParms`' far box (`env/NAME`), `-` given as none.
    pub sky_box: Option<String>,
    /// `skyParms`' cloud height (none without `skyParms`; 512 where it gives none, `-`, or 0,
    /// as the game takes it).
    pub cloud_height: Option<f32>,
    /// Its `surfaceparm`s, lower case.
    pub surface_parms: Vec<String>,
    /// `cull none` / `cull disable` / `cull twosided`: both sides drawn.
    pub two_sided: bool,
    /// `polygonOffset`: a decal, drawn over the surface it lies on.
    pub decal: bool,
    /// Its first `deformVertexes` kind (`wave`, `autosprite`, …), lower case.
    pub deform: Option<String>,
}

/// One stage: a picture and how it is blended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stage {
    /// `map`, `clampMap` or `animMap`'s first image (`$lightmap`, `$whiteimage` as written).
    pub image: Option<String>,
    /// `blendFunc`'s words, lower case (`add`, `filter`, `blend`, or the two GL factors).
    pub blend: Vec<String>,
    /// `rgbGen`'s first word, lower case (`identity`, `vertex`, `wave`, …).
    pub rgb_gen: Option<String>,
    /// Its directives' names, lower case.
    pub directives: Vec<String>,
    /// Its `tcMod`s' kinds (`scroll`, `scale`, `rotate`, `turb`, …), lower case, in order.
    pub tc_mods: Vec<String>,
    /// Its first `tcMod scroll`: texture repeats a second along s and t.
    pub scroll: Option<[f32; 2]>,
    /// `animMap`'s pictures a second and its pictures (`image` is the first).
    pub anim_map: Option<(f32, Vec<String>)>,
    /// Its `tcMod scale`s and `scroll`s folded in their order into one motion.
    pub motion: TextureMotion,
}

impl Stage {
    /// How it covers what is under it as a cloud layer (`None`: a blend no cloud layer has).
    pub fn cloud_blend(&self) -> Option<lanthorn_level::CloudBlend> {
        use lanthorn_level::CloudBlend;
        match self.blend.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            [] | ["gl_one", "gl_zero"] => Some(CloudBlend::Replace),
            ["add"] | ["gl_one", "gl_one"] => Some(CloudBlend::Add),
            ["filter"] | ["gl_dst_color", "gl_zero"] | ["gl_zero", "gl_src_color"] => {
                Some(CloudBlend::Multiply)
            }
            ["blend"] | ["gl_src_alpha", "gl_one_minus_src_alpha"] => Some(CloudBlend::Alpha),
            _ => None,
        }
    }
}

/// Texture coordinates moved as `st · scale + scroll · seconds`: a stage's `tcMod scale`s and
/// `scroll`s in their order (a scale after a scroll scales its speed too).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureMotion {
    /// Multiplies the coordinates.
    pub scale: [f32; 2],
    /// Repeats a second added to them.
    pub scroll: [f32; 2],
}

impl Default for TextureMotion {
    fn default() -> Self {
        TextureMotion {
            scale: [1.0; 2],
            scroll: [0.0; 2],
        }
    }
}

impl TextureMotion {
    /// Applies one `tcMod` (`scale A B` or `scroll A B`; others leave it as it is).
    fn then(mut self, kind: &str, a: f32, b: f32) -> TextureMotion {
        match kind {
            "scale" => {
                self.scale = [self.scale[0] * a, self.scale[1] * b];
                self.scroll = [self.scroll[0] * a, self.scroll[1] * b];
            }
            "scroll" => self.scroll = [self.scroll[0] + a, self.scroll[1] + b],
            _ => {}
        }
        self
    }
}

/// How a material's base picture is put on the screen, by its stage's `blendFunc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Opaque (no blend, or multiplied by what is under it).
    Opaque,
    /// Blended by its alpha: drawn where its alpha is over a half, as a fence.
    AlphaBlended,
    /// Added to what is under it (a glow over nothing): drawn as a glow (`surface_flags::GLOW`).
    Additive,
    /// Multiplying what is behind it, as the first stage (`GL_DST_COLOR …`, `filter`: water that
    /// brightens the floor under it, tinted glass): not drawn, which is nearer the game's
    /// picture than the base picture drawn opaque.
    Tints,
}

/// How a material's surfaces take light.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lighting {
    /// By their lightmap (a `$lightmap` stage, or no script).
    Lightmap,
    /// By their vertices' colours (`rgbGen vertex` or `exactVertex`, no lightmap stage).
    Vertex,
    /// Not at all: the texture as it is (lava, lights, skies).
    Fullbright,
}

impl ShaderScript {
    /// Whether the level draws it as its game does: every stage is the lightmap, or a
    /// texture drawn as it is (`rgbGen identity`) either first (opaque, or added over what is
    /// behind: a glow) or multiplied by what is under it (`blendFunc filter`), or an
    /// alpha-tested texture (a fence); nothing moves but the base picture's scroll, nothing
    /// animates, glows on top or bends the surface. Anything else falls back to its base
    /// image.
    pub fn drawn_as_one_texture(&self) -> bool {
        self.fallback().is_none()
    }

    /// The first thing of it the level does not draw (`None`: it draws it as its game does):
    /// `sky box`, `blendFunc …`, `rgbGen …`, `tcMod …`, or the directive's name.
    pub fn fallback(&self) -> Option<String> {
        // None, `GL_ONE GL_ZERO` (the same: it replaces), or multiplied by what is under it.
        let plain_blend = |b: &[String]| {
            b.is_empty()
                || b == ["gl_one", "gl_zero"]
                || b == ["filter"]
                || b == ["gl_dst_color", "gl_zero"]
                || b == ["gl_zero", "gl_src_color"]
        };
        let plain_rgb = |r: Option<&str>| {
            matches!(
                r,
                None | Some("identity" | "identitylighting" | "vertex" | "exactvertex")
            )
        };
        // Added over nothing as the first stage: a glow (`Coverage::Additive`).
        let glow = |k: usize, b: &[String]| k == 0 && (b == ["add"] || b == ["gl_one", "gl_one"]);
        if self.cloud_height.is_some() {
            return self.sky_fallback();
        }
        if let Some(d) = &self.deform {
            return Some(format!("deformVertexes {d}"));
        }
        let base = self.base_stage();
        for (k, st) in self.stages.iter().enumerate() {
            if !(plain_blend(&st.blend) || glow(k, &st.blend)) {
                return Some(format!("blendFunc {}", st.blend.join(" ")));
            }
            if st.image.as_deref() == Some("$lightmap") {
                continue;
            }
            if !plain_rgb(st.rgb_gen.as_deref()) {
                return Some(format!("rgbGen {}", st.rgb_gen.as_deref().unwrap_or("")));
            }
            // The base picture's stage may scroll (`Material::scroll`); nothing else moves.
            let moving = st
                .tc_mods
                .iter()
                .find(|m| Some(k) != base || *m != "scroll");
            if let Some(m) = moving {
                return Some(format!("tcMod {m}"));
            }
            // The base picture's stage may animate (`Material::animation`).
            let animates = Some(k) == base && st.anim_map.is_some();
            let unsupported = |d: &&String| match d.as_str() {
                "animmap" => !animates,
                "tcgen" | "alphagen" | "depthfunc" | "videomap" => true,
                _ => false,
            };
            if let Some(d) = st.directives.iter().find(unsupported) {
                return Some(d.clone());
            }
        }
        None
    }

    /// What of a sky (`skyParms`) the level does not draw: its far box and up to
    /// `MAX_CLOUD_LAYERS` stages of a picture scaled and scrolled, replacing, adding to,
    /// multiplying or blended over what is under them.
    fn sky_fallback(&self) -> Option<String> {
        if self.stages.len() > lanthorn_level::MAX_CLOUD_LAYERS {
            return Some("more than 4 cloud layers".into());
        }
        for st in &self.stages {
            if st.cloud_blend().is_none() {
                return Some(format!("cloud layer blendFunc {}", st.blend.join(" ")));
            }
            if let Some(m) = st.tc_mods.iter().find(|m| *m != "scale" && *m != "scroll") {
                return Some(format!("cloud layer tcMod {m}"));
            }
            let unsupported = ["animmap", "tcgen", "alphagen", "rgbgen", "alphafunc"];
            if let Some(d) = st
                .directives
                .iter()
                .find(|d| unsupported.contains(&d.as_str()))
            {
                return Some(format!("cloud layer {d}"));
            }
        }
        None
    }

    /// The stage of its base picture: the first whose image is not the lightmap or white.
    fn base_stage(&self) -> Option<usize> {
        (self.stages.iter()).position(|st| st.image.as_deref().is_some_and(|i| !i.starts_with('$')))
    }

    /// How fast its base picture scrolls (`tcMod scroll` on its stage), in repeats a second.
    pub fn scroll(&self) -> Option<[f32; 2]> {
        self.stages.get(self.base_stage()?)?.scroll
    }

    /// Its base picture's `animMap`: pictures a second, and the pictures.
    pub fn anim_map(&self) -> Option<&(f32, Vec<String>)> {
        self.stages.get(self.base_stage()?)?.anim_map.as_ref()
    }

    /// How its base picture covers what is under it (`Coverage`). An alpha test
    /// (`alphaFunc`) on the base's stage makes it a fence too.
    pub fn coverage(&self) -> Coverage {
        let Some(k) = self.base_stage() else {
            return Coverage::Opaque;
        };
        let base = &self.stages[k];
        let reads_behind = base
            .blend
            .first()
            .is_some_and(|b| b == "gl_dst_color" || b == "filter");
        if k == 0 && reads_behind {
            return Coverage::Tints;
        }
        // A later stage's alpha test lays its picture over an opaque base: only the base's own
        // makes holes.
        let alpha_test = base.directives.iter().any(|d| d == "alphafunc");
        let b: Vec<&str> = base.blend.iter().map(String::as_str).collect();
        match b.as_slice() {
            _ if alpha_test => Coverage::AlphaBlended,
            ["blend"] | ["gl_src_alpha", "gl_one_minus_src_alpha"] => Coverage::AlphaBlended,
            ["add"] | ["gl_one", "gl_one"] | ["gl_src_alpha", "gl_one"] => Coverage::Additive,
            _ => Coverage::Opaque,
        }
    }

    /// How its surfaces take light.
    pub fn lighting(&self) -> Lighting {
        let images = || self.stages.iter().filter_map(|s| s.image.as_deref());
        if self.stages.is_empty() || images().any(|i| i == "$lightmap") {
            Lighting::Lightmap
        } else if self
            .stages
            .iter()
            .any(|s| matches!(s.rgb_gen.as_deref(), Some("vertex" | "exactvertex")))
        {
            Lighting::Vertex
        } else {
            Lighting::Fullbright
        }
    }

    /// The picture a material shows when drawn as one texture: the first stage's image that is
    /// not the lightmap or white, else the editor's image.
    pub fn base_image(&self) -> Option<&str> {
        self.stages
            .iter()
            .filter_map(|s| s.image.as_deref())
            .find(|i| !i.starts_with('$'))
            .or(self.editor_image.as_deref())
    }
}

/// Words of a script, each with whether a line break came before it. `//` and `/* */`
/// comments are skipped; a quoted word may hold spaces.
fn words(text: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let (mut i, mut newline) = (0, true);
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            newline = true;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                newline |= b[i] == b'\n';
                i += 1;
            }
            i += 2;
        } else if c == b'"' {
            let start = i + 1;
            i = start;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += 1;
            }
            out.push((newline, text[start..i.min(b.len())].to_string()));
            i += 1;
            newline = false;
        } else if c == b'{' || c == b'}' {
            out.push((newline, (c as char).to_string()));
            i += 1;
            newline = false;
        } else {
            let start = i;
            while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'{' && b[i] != b'}' {
                i += 1;
            }
            out.push((newline, text[start..i].to_string()));
            newline = false;
        }
    }
    out
}

/// A directive: its name and the words after it on its line.
fn directive<'a>(words: &'a [(bool, String)], at: &mut usize) -> (String, Vec<&'a str>) {
    let name = words[*at].1.to_ascii_lowercase();
    *at += 1;
    let mut args = Vec::new();
    while *at < words.len() && !words[*at].0 && words[*at].1 != "{" && words[*at].1 != "}" {
        args.push(words[*at].1.as_str());
        *at += 1;
    }
    (name, args)
}

/// Parses one script's text into `into`, keeping a name's first definition. Text that does not
/// follow the layout (a name, then a braced body) is skipped up to the next name.
pub fn parse_into(text: &str, into: &mut HashMap<String, ShaderScript>) {
    let words = words(text);
    let mut at = 0;
    while at < words.len() {
        let name = words[at].1.to_ascii_lowercase();
        at += 1;
        if words.get(at).map(|w| w.1.as_str()) != Some("{") {
            continue;
        }
        at += 1;
        let shader = body(&words, &mut at, name.clone());
        into.entry(name).or_insert(shader);
    }
}

/// A shader's body after its `{`, up to and past its `}`.
fn body(words: &[(bool, String)], at: &mut usize, name: String) -> ShaderScript {
    let mut s = ShaderScript {
        name,
        ..Default::default()
    };
    while *at < words.len() {
        match words[*at].1.as_str() {
            "}" => {
                *at += 1;
                break;
            }
            "{" => {
                *at += 1;
                s.stages.push(stage(words, at));
            }
            _ => {
                let (d, args) = directive(words, at);
                let arg = |k: usize| args.get(k).map(|a| a.to_ascii_lowercase());
                match d.as_str() {
                    "qer_editorimage" => s.editor_image = arg(0),
                    "surfaceparm" => s.surface_parms.extend(arg(0)),
                    "skyparms" => {
                        s.sky_box = arg(0).filter(|b| b != "-");
                        let height = arg(1).and_then(|h| h.parse::<f32>().ok());
                        let height = height.filter(|h| h.is_finite() && *h > 0.0);
                        s.cloud_height = Some(height.unwrap_or(DEFAULT_CLOUD_HEIGHT));
                    }
                    "polygonoffset" => s.decal = true,
                    "deformvertexes" => s.deform = s.deform.take().or(arg(0)),
                    "cull" => {
                        s.two_sided =
                            matches!(arg(0).as_deref(), Some("none" | "disable" | "twosided"))
                    }
                    _ => {}
                }
            }
        }
    }
    s
}

/// A stage's body after its `{`, up to and past its `}`.
fn stage(words: &[(bool, String)], at: &mut usize) -> Stage {
    let mut st = Stage::default();
    while *at < words.len() {
        match words[*at].1.as_str() {
            "}" => {
                *at += 1;
                break;
            }
            "{" => *at += 1, // malformed: a stage inside a stage; read on
            _ => {
                let (d, args) = directive(words, at);
                let lower: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
                match d.as_str() {
                    "map" | "clampmap" => st.image = lower.first().cloned(),
                    // animMap FREQUENCY IMAGE…: its first image.
                    "animmap" => {
                        st.image = lower.get(1).cloned();
                        let rate = lower.first().and_then(|r| r.parse::<f32>().ok());
                        let rate = rate.filter(|r| r.is_finite() && *r >= 0.0);
                        // Quake 3 takes at most 8 pictures.
                        let pictures = lower.iter().skip(1).take(8).cloned().collect::<Vec<_>>();
                        st.anim_map = rate.filter(|_| !pictures.is_empty()).map(|r| (r, pictures));
                    }
                    "blendfunc" => st.blend = lower,
                    "rgbgen" => st.rgb_gen = lower.first().cloned(),
                    "tcmod" => {
                        st.tc_mods.extend(lower.first().cloned());
                        let speed = |k: usize| lower.get(k).and_then(|v| v.parse::<f32>().ok());
                        let finite = |v: &[f32; 2]| v.iter().all(|x| x.is_finite());
                        if st.scroll.is_none() && lower.first().is_some_and(|m| m == "scroll") {
                            st.scroll = speed(1).zip(speed(2)).map(|(u, v)| [u, v]).filter(finite);
                        }
                        if let (Some(kind), Some(a), Some(b)) = (lower.first(), speed(1), speed(2))
                        {
                            let moved = st.motion.then(kind, a, b);
                            let ok = moved
                                .scale
                                .iter()
                                .chain(&moved.scroll)
                                .all(|v| v.is_finite());
                            st.motion = if ok { moved } else { st.motion };
                        }
                    }
                    _ => {}
                }
                st.directives.push(d);
            }
        }
    }
    st
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tcMod scale` then `scroll` moves by the speed as written; `scroll` then `scale` scales
    /// the speed too (`(st + v·t)·k`), as the game applies them in turn.
    #[test]
    fn a_stages_scales_and_scrolls_fold_in_their_order() {
        let mut all = HashMap::new();
        let text = "textures/skies/x {\n skyparms full 756 -\n { map a.tga\n tcmod scale 2 3
            tcmod scroll -0.01 0.02 }\n { map b.tga\n blendfunc add\n tcmod scroll 0.5 0.25
            tcmod scale 2 4\n tcmod rotate 10 }\n { map c.tga\n tcmod scale 2 nan } }";
        parse_into(text, &mut all);
        let sky = &all["textures/skies/x"];
        assert_eq!(
            (sky.sky_box.as_deref(), sky.cloud_height),
            (Some("full"), Some(756.0))
        );
        let m: Vec<TextureMotion> = sky.stages.iter().map(|s| s.motion).collect();
        assert_eq!(
            m[0],
            TextureMotion {
                scale: [2.0, 3.0],
                scroll: [-0.01, 0.02]
            }
        );
        assert_eq!(
            m[1],
            TextureMotion {
                scale: [2.0, 4.0],
                scroll: [1.0, 1.0]
            }
        );
        assert_eq!(
            m[2],
            TextureMotion::default(),
            "a scale that is no number is skipped"
        );
        let mut none = HashMap::new();
        parse_into("s { skyparms env/a - - } t { surfaceparm sky }", &mut none);
        assert_eq!(none["s"].cloud_height, Some(512.0), "the game's default");
        assert_eq!(none["t"].cloud_height, None, "no skyParms");
    }

    #[test]
    fn stages_images_and_parms_are_read_and_the_first_definition_wins() {
        let text = r#"
// a comment { not a brace }
textures/base_wall/Metal  /* block
comment */
{
    qer_editorimage textures/base_wall/metal_ed.tga
    surfaceparm metalsteps
    cull none
    {
        map $lightmap
        rgbGen identity
    }
    {
        map textures/base_wall/metal.tga
        blendFunc GL_DST_COLOR GL_ZERO
    }
}
textures/skies/blue
{
    skyParms env/blue 512 -
    surfaceparm sky
    {
        animMap 2 textures/skies/a.tga textures/skies/b.tga
        tcMod scroll 0.1 0
    }
}
textures/base_wall/metal { { map textures/other.tga } }
glow { { map $lightmap } { map g.tga
 blendFunc GL_ONE GL_ONE } }
web { polygonOffset { map web.tga
 blendfunc blend } }
grate { { map grate.tga
 alphaFunc GE128 } { map $lightmap
 blendFunc filter } }
panel { { map panel.jpg } { map lights.tga
 alphaFunc GE128 } }
halo { { map halo.tga
 blendFunc add } }
pool { { map caustic.jpg
 blendFunc gl_dst_color gl_one } { map $lightmap
 blendFunc gl_dst_color gl_zero } }
lava { { map lava.tga
 tcMod scroll 0.05 -0.1 } { map $lightmap
 blendFunc filter } }
spin { { map spin.tga
 tcMod scroll 1 0
 tcMod rotate 30 } }
fire { { animMap 10 f1.tga f2.tga f3.tga
 blendFunc add } }
flame { deformVertexes autoSprite { animMap 10 f1.tga f2.tga } }
"#;
        let mut all = HashMap::new();
        parse_into(text, &mut all);
        let m = &all["textures/base_wall/metal"];
        assert_eq!(m.stages.len(), 2);
        assert_eq!(m.base_image(), Some("textures/base_wall/metal.tga"));
        assert_eq!(m.stages[1].blend, ["gl_dst_color", "gl_zero"]);
        assert_eq!(m.surface_parms, ["metalsteps"]);
        assert_eq!(m.lighting(), Lighting::Lightmap);
        assert!(m.drawn_as_one_texture());
        assert_eq!(m.coverage(), Coverage::Opaque);
        assert!(m.two_sided);
        let sky = &all["textures/skies/blue"];
        assert_eq!(sky.sky_box.as_deref(), Some("env/blue"));
        assert_eq!(sky.base_image(), Some("textures/skies/a.tga"));
        assert_eq!(sky.stages[0].directives, ["animmap", "tcmod"]);
        assert_eq!(sky.lighting(), Lighting::Fullbright);
        assert!(!sky.drawn_as_one_texture());
        assert_eq!(all["glow"].coverage(), Coverage::Additive);
        assert_eq!(all["web"].coverage(), Coverage::AlphaBlended);
        assert!(all["web"].decal && !all["glow"].decal);
        assert_eq!(all["grate"].coverage(), Coverage::AlphaBlended);
        assert_eq!(all["panel"].coverage(), Coverage::Opaque);
        // A first stage multiplying what is behind tints it; over the lightmap it is plain.
        assert_eq!(all["pool"].coverage(), Coverage::Tints);
        assert_eq!(m.coverage(), Coverage::Opaque);
        // A glow alone is drawn as the game does; one over the lightmap is not.
        assert_eq!(all["halo"].coverage(), Coverage::Additive);
        assert!(all["halo"].drawn_as_one_texture() && !all["glow"].drawn_as_one_texture());
        // A scrolling base picture is drawn as the game does; scrolling and turning is not.
        assert_eq!(all["lava"].scroll(), Some([0.05, -0.1]));
        assert!(all["lava"].drawn_as_one_texture());
        assert_eq!(all["spin"].stages[0].tc_mods, ["scroll", "rotate"]);
        assert!(!all["spin"].drawn_as_one_texture());
        assert_eq!(all["textures/skies/blue"].scroll(), Some([0.1, 0.0]));
        // An animated base picture is drawn as the game does (its pictures in turn).
        let fire = &all["fire"];
        assert_eq!(
            fire.anim_map(),
            Some(&(
                10.0,
                vec!["f1.tga".into(), "f2.tga".into(), "f3.tga".into()]
            ))
        );
        assert_eq!((fire.base_image(), fire.fallback()), (Some("f1.tga"), None));
        // Bending the surface is not drawn.
        assert_eq!(
            all["flame"].fallback().as_deref(),
            Some("deformVertexes autosprite")
        );
        assert_eq!(all.len(), 12);
    }

    #[test]
    fn damaged_scripts_end_without_panic() {
        let mut all = HashMap::new();
        for text in ["a {", "a { {", "}", "{ }", "a \"b", "/* open", "x { map }"] {
            parse_into(text, &mut all);
        }
        assert!(all.contains_key("x"));
        assert_eq!(all["x"].base_image(), None);
    }
}
