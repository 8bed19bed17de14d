//! Light styles, as Quake animates them: a face stores up to four lightmaps, each under a style
//! number; the light it shows is the sum of each map times its style's current brightness.
//!
//! Quake's game code (`worldspawn` in world.qc) gives styles 0–11 animation strings; the client
//! steps them at 10 Hz (`frame = floor(time · 10)`), and a letter's brightness is
//! `(letter − 'a') · 22 / 256`: "a" is dark, "m" is normal (264/256), "z" about double.
//! Styles 32–62 are the switchable lights the light tool assigns to targeted lights: "m" when
//! on, "a" when off; they start on unless their light entity has spawnflag 1 (START_OFF).
//! Styles the game never sets read 256/256, as in Quake's renderers.

use super::Entity;

/// Style slots per surface (Quake's `MAXLIGHTMAPS`).
pub const MAX_SLOTS: usize = 4;
/// Styles the renderer knows (Quake's `MAX_LIGHTSTYLES`).
pub const MAX_STYLES: usize = 64;
/// A slot that holds no lightmap; the slots after it are unused too.
pub const NO_STYLE: u8 = 255;
/// The first style the light tool gives to switchable lights.
pub const FIRST_SWITCHABLE: u8 = 32;
/// The last one (63 is world.qc's "testing" style, always "a").
pub const LAST_SWITCHABLE: u8 = 62;
/// Style frames per second.
pub const FRAMES_PER_SECOND: f64 = 10.0;

/// The animation strings world.qc gives styles 0–11.
pub const ANIMATED: [&str; 12] = [
    "m",
    "mmnmmommommnonmmonqnmmo",
    "abcdefghijklmnopqrstuvwxyzyxwvutsrqponmlkjihgfedcba",
    "mmmmmaaaaammmmmaaaaaabcdefgabcdefg",
    "mamamamamama",
    "jklmnopqrstuvwxyzyxwvutsrqponmlkj",
    "nmonqnmomnmomomno",
    "mmmaaaabcdefgmmmmaaaammmaamm",
    "mmmaaammmaaammmabcdefaaaammmmabcdefmmmaaaa",
    "aaaaaaaazzzzzzzz",
    "mmamammmmammamamaaamammma",
    "abcdefghijklmnopqrrqponmlkjihgfedcba",
];

/// A surface's style per lightmap slot: slot `k` is layer `k` of the level's lightmap atlas,
/// at the surface's rect. Slots end at the first [`NO_STYLE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LightStyles(pub [u8; MAX_SLOTS]);

impl Default for LightStyles {
    /// One lightmap, style 0 (what the light baker writes).
    fn default() -> Self {
        LightStyles([0, NO_STYLE, NO_STYLE, NO_STYLE])
    }
}

impl LightStyles {
    /// The styles of the slots in use, in slot order.
    pub fn slots(&self) -> impl Iterator<Item = u8> + '_ {
        self.0.iter().copied().take_while(|&s| s != NO_STYLE)
    }

    /// How many slots are in use.
    pub fn count(&self) -> usize {
        self.slots().count()
    }

    /// The four bytes packed little-endian into one word (slot 0 in the low byte), as the
    /// world shader reads them.
    pub fn packed(&self) -> u32 {
        u32::from_le_bytes(self.0)
    }
}

/// How styles animate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StyleMode {
    /// Quake's animation strings at 10 Hz.
    #[default]
    Animated,
    /// Every style at "m" (quakespasm's `QS_LIGHTSTYLES=1` reference).
    Normal,
}

/// The brightness of one style letter: `(letter − 'a') · 22 / 256`; a byte outside a–z reads
/// as the nearest letter.
pub fn letter_value(letter: u8) -> f32 {
    let k = letter.clamp(b'a', b'z') - b'a';
    k as f32 * 22.0 / 256.0
}

/// Brightness of "m", the normal light.
pub fn normal_value() -> f32 {
    letter_value(b'm')
}

/// A string's brightness at style frame `frame`.
fn string_value(s: &str, frame: u64) -> f32 {
    let b = s.as_bytes();
    letter_value(b[(frame % b.len() as u64) as usize])
}

/// The style frame at `seconds` (negative and non-finite times are frame 0).
pub fn frame_at(seconds: f64) -> u64 {
    let f = (seconds * FRAMES_PER_SECOND).floor();
    if f.is_finite() && f > 0.0 {
        f as u64
    } else {
        0
    }
}

/// Which switchable styles are off: bit `s − 32`, for every light entity with a style in
/// 32..=62 and spawnflag 1 (START_OFF), as Quake's `light` spawn function sets them.
pub fn switched_off(entities: &[Entity]) -> u32 {
    let mut off = 0u32;
    for e in entities
        .iter()
        .filter(|e| e.classname().starts_with("light"))
    {
        let style = e.get("style").and_then(|s| s.trim().parse::<i64>().ok());
        let flags = e
            .get("spawnflags")
            .and_then(|s| s.trim().parse::<i64>().ok());
        if let (Some(s), Some(f)) = (style, flags) {
            if (FIRST_SWITCHABLE as i64..=LAST_SWITCHABLE as i64).contains(&s) && f & 1 != 0 {
                off |= 1 << (s - FIRST_SWITCHABLE as i64);
            }
        }
    }
    off
}

/// The level's switchable styles, once each in style order: the style, the `targetname` of
/// its lights and whether they start off (what the demo's panel lists to switch).
pub fn switchable(entities: &[Entity]) -> Vec<(u8, String, bool)> {
    let off = switched_off(entities);
    let mut found: Vec<(u8, String, bool)> = Vec::new();
    for e in entities
        .iter()
        .filter(|e| e.classname().starts_with("light"))
    {
        let style = e.get("style").and_then(|s| s.trim().parse::<u8>().ok());
        let Some(style) = style.filter(|s| (FIRST_SWITCHABLE..=LAST_SWITCHABLE).contains(s)) else {
            continue;
        };
        if found.iter().all(|f| f.0 != style) {
            let name = e.get("targetname").unwrap_or("").to_string();
            found.push((style, name, off & (1 << (style - FIRST_SWITCHABLE)) != 0));
        }
    }
    found.sort();
    found
}

/// The switchable styles of the lights named `names` (their `targetname`s), as a bit mask
/// (bit `s − 32`); an unknown name is an error listing the level's names.
pub fn switch_mask(entities: &[Entity], names: &[String]) -> Result<u32, String> {
    let known = switchable(entities);
    let mut mask = 0;
    for name in names {
        let Some((style, ..)) = known.iter().find(|k| &k.1 == name) else {
            let list: Vec<&str> = known.iter().map(|k| k.1.as_str()).collect();
            return Err(format!(
                "no switchable light is named {name:?} (the level's: {})",
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                }
            ));
        };
        mask |= 1 << (style - FIRST_SWITCHABLE);
    }
    Ok(mask)
}

/// Every style's brightness at `seconds`: the multiplier of the lightmaps stored under it.
pub fn scales(seconds: f64, mode: StyleMode, off: u32) -> [f32; MAX_STYLES] {
    let frame = frame_at(seconds);
    std::array::from_fn(|style| {
        if mode == StyleMode::Normal {
            return normal_value();
        }
        match style {
            s if s < ANIMATED.len() => string_value(ANIMATED[s], frame),
            s if (FIRST_SWITCHABLE as usize..=LAST_SWITCHABLE as usize).contains(&s) => {
                if off & (1 << (s - FIRST_SWITCHABLE as usize)) != 0 {
                    letter_value(b'a')
                } else {
                    normal_value()
                }
            }
            63 => letter_value(b'a'),
            // Never set by the game: Quake's renderers read 256.
            _ => 1.0,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quake's style values as its client computes them (`cl_lightstyle[j].map[k] - 'a'`, × 22,
    /// in 1/256 units), from world.qc's strings typed in again here, so a slip in the table
    /// above fails; at 10 Hz.
    #[test]
    fn animated_styles_follow_quakes_strings_at_10_hz() {
        let quake: [(u32, &str); 12] = [
            (0, "m"),
            (1, "mmnmmommommnonmmonqnmmo"),
            (2, "abcdefghijklmnopqrstuvwxyzyxwvutsrqponmlkjihgfedcba"),
            (3, "mmmmmaaaaammmmmaaaaaabcdefgabcdefg"),
            (4, "mamamamamama"),
            (5, "jklmnopqrstuvwxyzyxwvutsrqponmlkj"),
            (6, "nmonqnmomnmomomno"),
            (7, "mmmaaaabcdefgmmmmaaaammmaamm"),
            (8, "mmmaaammmaaammmabcdefaaaammmmabcdefmmmaaaa"),
            (9, "aaaaaaaazzzzzzzz"),
            (10, "mmamammmmammamamaaamammma"),
            (11, "abcdefghijklmnopqrrqponmlkjihgfedcba"),
        ];
        // 0.05 s into each frame, over 60 s: every frame of every string, several times round.
        for frame in 0..600u64 {
            let t = frame as f64 / 10.0 + 0.05;
            let s = scales(t, StyleMode::Animated, 0);
            for (style, string) in quake {
                let c = string.as_bytes()[(frame % string.len() as u64) as usize];
                let value_256 = (c - b'a') as u32 * 22;
                assert_eq!(
                    s[style as usize] * 256.0,
                    value_256 as f32,
                    "style {style} at frame {frame} ({t} s)"
                );
            }
        }
        // Landmarks: "a" is dark, "m" is 264/256, "z" is 550/256.
        let at = |style: usize, frame: u64| {
            scales(frame as f64 / 10.0 + 0.01, StyleMode::Animated, 0)[style]
        };
        assert_eq!(at(2, 0), 0.0);
        assert_eq!(at(2, 12), 264.0 / 256.0);
        assert_eq!(at(2, 25), 550.0 / 256.0);
        assert_eq!(at(9, 8), 550.0 / 256.0);
        // A frame lasts 0.1 s: style 4 alternates m, a.
        assert_eq!(scales(0.099, StyleMode::Animated, 0)[4], 264.0 / 256.0);
        assert_eq!(scales(0.1, StyleMode::Animated, 0)[4], 0.0);
    }

    #[test]
    fn switchable_styles_start_on_unless_start_off_and_normal_holds_m() {
        let light = |style: &str, flags: &str| Entity {
            pairs: vec![
                ("classname".into(), "light_fluoro".into()),
                ("style".into(), style.into()),
                ("spawnflags".into(), flags.into()),
                ("targetname".into(), "t1".into()),
            ],
        };
        let lights = [
            light("33", "1"),
            light("34", "0"),
            light("5", "1"),
            light("33", "1"),
        ];
        let off = switched_off(&lights);
        assert_eq!(off, 1 << 1);
        assert_eq!(
            switchable(&lights),
            [(33, "t1".to_string(), true), (34, "t1".to_string(), false)]
        );
        assert_eq!(switch_mask(&lights, &["t1".into()]), Ok(1 << 1));
        let e = switch_mask(&lights, &["t9".into()]).unwrap_err();
        assert!(
            e.contains("\"t9\"") && e.contains("(the level's: t1, t1)"),
            "{e}"
        );
        let s = scales(3.0, StyleMode::Animated, off);
        assert_eq!(s[32], 264.0 / 256.0);
        assert_eq!(s[33], 0.0);
        assert_eq!(s[34], 264.0 / 256.0);
        assert_eq!(s[63], 0.0, "world.qc's testing style is \"a\"");
        assert_eq!(s[20], 1.0, "a style the game never sets reads 256/256");
        let n = scales(3.0, StyleMode::Normal, off);
        assert!(n.iter().all(|&v| v == 264.0 / 256.0));
    }

    #[test]
    fn slots_end_at_the_first_empty_one() {
        assert_eq!(LightStyles::default().count(), 1);
        let s = LightStyles([0, 1, NO_STYLE, 3]);
        assert_eq!(s.slots().collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(s.packed(), 0x03ff_0100);
        assert_eq!(frame_at(-1.0), 0);
        assert_eq!(frame_at(f64::NAN), 0);
        assert_eq!(frame_at(1.25), 12);
    }
}
