//! Quake `.map` source: the standard id format and Valve 220 (as TrenchBroom writes it).
//! Every error names the line it was found on.

use glam::DVec3;

use crate::texture::TexProjection;
use crate::MAX_COORD;

/// What is wrong in a `.map` file, and the line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {msg}")]
pub struct MapError {
    /// The line (from 1).
    pub line: usize,
    /// What is wrong there.
    pub msg: String,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MapFace {
    /// The three points as written; the plane's outward normal is `(p0 - p1) × (p2 - p1)`.
    pub points: [DVec3; 3],
    pub texture: String,
    pub projection: TexProjection,
    pub line: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MapBrush {
    pub faces: Vec<MapFace>,
    /// Line of the opening brace.
    pub line: usize,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub(crate) struct MapEntity {
    pub pairs: Vec<(String, String)>,
    pub brushes: Vec<MapBrush>,
    pub line: usize,
}

impl MapEntity {
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        #[cfg(test)]
        lanthorn_level::key_reads::note(&self.pairs, key);
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    pub(crate) fn classname(&self) -> &str {
        self.get("classname").unwrap_or("")
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub(crate) struct MapFile {
    pub entities: Vec<MapEntity>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Open,     // {
    Close,    // }
    LParen,   // (
    RParen,   // )
    LBracket, // [
    RBracket, // ]
    Str(String),
    Word(String),
}

struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    line: usize,
    peeked: Option<(Tok, usize)>,
}

impl<'a> Lexer<'a> {
    fn err<T>(&self, line: usize, msg: impl Into<String>) -> Result<T, MapError> {
        Err(MapError {
            line,
            msg: msg.into(),
        })
    }

    fn skip_space(&mut self) {
        while self.pos < self.s.len() {
            let c = self.s[self.pos];
            if c == b'\n' {
                self.line += 1;
                self.pos += 1;
            } else if c.is_ascii_whitespace() {
                self.pos += 1;
            } else if c == b'/' && self.s.get(self.pos + 1) == Some(&b'/') {
                while self.pos < self.s.len() && self.s[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    fn next(&mut self) -> Result<Option<(Tok, usize)>, MapError> {
        if let Some(t) = self.peeked.take() {
            return Ok(Some(t));
        }
        self.skip_space();
        if self.pos >= self.s.len() {
            return Ok(None);
        }
        let line = self.line;
        let c = self.s[self.pos];
        let single = |t| Some((t, line));
        let next_is_space = self
            .s
            .get(self.pos + 1)
            .is_none_or(|c| c.is_ascii_whitespace());
        let tok = match c {
            b'(' => {
                self.pos += 1;
                return Ok(single(Tok::LParen));
            }
            b')' => {
                self.pos += 1;
                return Ok(single(Tok::RParen));
            }
            b'[' => {
                self.pos += 1;
                return Ok(single(Tok::LBracket));
            }
            b']' => {
                self.pos += 1;
                return Ok(single(Tok::RBracket));
            }
            b'{' if next_is_space => {
                self.pos += 1;
                return Ok(single(Tok::Open));
            }
            b'}' if next_is_space => {
                self.pos += 1;
                return Ok(single(Tok::Close));
            }
            b'"' => {
                self.pos += 1;
                let start = self.pos;
                while self.pos < self.s.len() && self.s[self.pos] != b'"' {
                    if self.s[self.pos] == b'\n' {
                        return self.err(
                            line,
                            "unterminated string (a quoted value runs past the end of the line)",
                        );
                    }
                    self.pos += 1;
                }
                if self.pos >= self.s.len() {
                    return self.err(line, "unterminated string at the end of the file");
                }
                let v = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
                self.pos += 1;
                Tok::Str(v)
            }
            _ => {
                let start = self.pos;
                while self.pos < self.s.len() {
                    let c = self.s[self.pos];
                    if c.is_ascii_whitespace()
                        || (self.pos > start && matches!(c, b')' | b']' | b'(' | b'['))
                    {
                        break;
                    }
                    self.pos += 1;
                }
                Tok::Word(String::from_utf8_lossy(&self.s[start..self.pos]).into_owned())
            }
        };
        Ok(Some((tok, line)))
    }

    fn peek(&mut self) -> Result<Option<&(Tok, usize)>, MapError> {
        if self.peeked.is_none() {
            self.peeked = self.next()?;
        }
        Ok(self.peeked.as_ref())
    }

    fn expect(&mut self, want: Tok, what: &str, ctx_line: usize) -> Result<usize, MapError> {
        match self.next()? {
            Some((t, line)) if t == want => Ok(line),
            Some((t, line)) => self.err(line, format!("expected {what}, found {}", describe(&t))),
            None => self.err(
                self.line.max(ctx_line),
                format!("unexpected end of file: expected {what}"),
            ),
        }
    }

    fn number(&mut self, what: &str) -> Result<(f64, usize), MapError> {
        match self.next()? {
            Some((Tok::Word(w), line)) => match w.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok((v, line)),
                Ok(_) => self.err(
                    line,
                    format!("{what} is {}, not a finite number", quoted(&w)),
                ),
                Err(_) => self.err(
                    line,
                    format!("expected a number for {what}, found {}", quoted(&w)),
                ),
            },
            Some((t, line)) => self.err(
                line,
                format!("expected a number for {what}, found {}", describe(&t)),
            ),
            None => self.err(
                self.line,
                format!("unexpected end of file: expected a number for {what}"),
            ),
        }
    }
}

/// A name as a message shows it: itself, or cut after `QUOTE_MAX` characters like `quoted`.
pub(crate) fn cut(s: &str) -> String {
    cut_to(s, QUOTE_MAX)
}

/// `s`, or its first `max` characters and how long it was.
pub(crate) fn cut_to(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((at, _)) => format!("{}… ({} bytes in all)", &s[..at], s.len()),
    }
}

const QUOTE_MAX: usize = 40;

/// A token as a message quotes it: in double quotes, and cut after `QUOTE_MAX` characters
/// (saying how long it was), so a 10 MB token costs a line of stderr, not 10 MB.
pub(crate) fn quoted(s: &str) -> String {
    match s.char_indices().nth(QUOTE_MAX) {
        None => format!("{s:?}"),
        Some((at, _)) => format!("{:?}… ({} bytes in all)", &s[..at], s.len()),
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Open => "'{'".into(),
        Tok::Close => "'}'".into(),
        Tok::LParen => "'('".into(),
        Tok::RParen => "')'".into(),
        Tok::LBracket => "'['".into(),
        Tok::RBracket => "']'".into(),
        Tok::Str(s) | Tok::Word(s) => quoted(s),
    }
}

/// Parses a `.map` file's text.
pub(crate) fn parse(text: &str) -> Result<MapFile, MapError> {
    let mut lx = Lexer {
        s: text.as_bytes(),
        pos: 0,
        line: 1,
        peeked: None,
    };
    let mut map = MapFile::default();
    while let Some((tok, line)) = lx.next()? {
        if tok != Tok::Open {
            return lx.err(
                line,
                format!("expected '{{' to start an entity, found {}", describe(&tok)),
            );
        }
        map.entities.push(parse_entity(&mut lx, line)?);
    }
    Ok(map)
}

fn parse_entity(lx: &mut Lexer, open_line: usize) -> Result<MapEntity, MapError> {
    let mut e = MapEntity {
        line: open_line,
        ..Default::default()
    };
    loop {
        match lx.next()? {
            None => {
                return lx.err(
                    lx.line,
                    format!("unexpected end of file: the entity opened on line {open_line} has no closing '}}'"),
                )
            }
            Some((Tok::Close, _)) => return Ok(e),
            Some((Tok::Str(k), line)) => match lx.next()? {
                Some((Tok::Str(v), _)) => e.pairs.push((k, v)),
                Some((t, l)) => return lx.err(l, format!("key {} has no quoted value (found {})", quoted(&k), describe(&t))),
                None => return lx.err(line, format!("unexpected end of file after key {}", quoted(&k))),
            },
            Some((Tok::Open, line)) => {
                let b = parse_brush(lx, line, e.brushes.len())?;
                e.brushes.push(b);
            }
            Some((t, line)) => {
                return lx.err(line, format!("expected a key, a brush or '}}' in the entity, found {}", describe(&t)))
            }
        }
    }
}

fn parse_brush(lx: &mut Lexer, open_line: usize, index: usize) -> Result<MapBrush, MapError> {
    let mut b = MapBrush {
        faces: Vec::new(),
        line: open_line,
    };
    loop {
        match lx.peek()? {
            None => {
                return lx.err(
                    lx.line,
                    format!("unexpected end of file: brush {index} opened on line {open_line} has no closing '}}'"),
                )
            }
            Some((Tok::Close, _)) => {
                lx.next()?;
                return Ok(b);
            }
            Some((Tok::LParen, _)) => b.faces.push(parse_face(lx)?),
            Some((t, line)) => {
                let (t, line) = (t.clone(), *line);
                let hint = if t == Tok::Open { " (a missing '}' before it?)" } else { "" };
                return lx.err(
                    line,
                    format!("brush {index} (line {open_line}): expected a face '(' or '}}', found {}{hint}", describe(&t)),
                );
            }
        }
    }
}

fn parse_face(lx: &mut Lexer) -> Result<MapFace, MapError> {
    let mut points = [DVec3::ZERO; 3];
    let mut first_line = 0;
    for (i, p) in points.iter_mut().enumerate() {
        let l = lx.expect(Tok::LParen, "'(' before a plane point", 0)?;
        if i == 0 {
            first_line = l;
        }
        for k in 0..3 {
            let (v, line) = lx.number("a point coordinate")?;
            if v.abs() > MAX_COORD {
                return lx.err(line, format!("coordinate {v} is outside ±{MAX_COORD}"));
            }
            p[k] = v;
        }
        lx.expect(Tok::RParen, "')' after a plane point", first_line)?;
    }
    let texture = match lx.next()? {
        Some((Tok::Word(w), _)) | Some((Tok::Str(w), _)) => w,
        Some((t, line)) => {
            return lx.err(
                line,
                format!("expected a texture name, found {}", describe(&t)),
            )
        }
        None => return lx.err(lx.line, "unexpected end of file: expected a texture name"),
    };
    let projection = if matches!(lx.peek()?, Some((Tok::LBracket, _))) {
        let mut axes = [[0.0; 4]; 2];
        for ax in &mut axes {
            lx.expect(Tok::LBracket, "'[' of a Valve 220 texture axis", first_line)?;
            for v in ax.iter_mut() {
                *v = lx.number("a texture axis")?.0;
            }
            lx.expect(Tok::RBracket, "']' after a texture axis", first_line)?;
        }
        let rotation = lx.number("the texture rotation")?.0;
        let scale = [
            lx.number("the texture x scale")?.0,
            lx.number("the texture y scale")?.0,
        ];
        TexProjection::Valve {
            u: axes[0],
            v: axes[1],
            rotation,
            scale,
        }
    } else {
        let offset = [
            lx.number("the texture x offset")?.0,
            lx.number("the texture y offset")?.0,
        ];
        let rotation = lx.number("the texture rotation")?.0;
        let scale = [
            lx.number("the texture x scale")?.0,
            lx.number("the texture y scale")?.0,
        ];
        TexProjection::Standard {
            offset,
            rotation,
            scale,
        }
    };
    // Quake 2 / Quake 3 style extra numbers (contents, flags, value) on the same line: ignored.
    let last_line = lx.line;
    while let Some((Tok::Word(_), line)) = lx.peek()? {
        if *line != last_line {
            break;
        }
        lx.next()?;
    }
    Ok(MapFace {
        points,
        texture,
        projection,
        line: first_line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texture::tex_vecs;

    const ROOM: &str = r#"// a comment
{
"classname" "worldspawn"
"wad" "gfx/base.wad"
{
( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) floor 0 0 0 1 1
( 0 0 64 ) ( 1 0 64 ) ( 0 1 64 ) ceil 16 8 90 0.5 2
( 0 0 0 ) ( 0 0 1 ) ( 0 1 0 ) *water0 0 0 0 1 1
( 64 0 0 ) ( 64 1 0 ) ( 64 0 1 ) sky1 0 0 0 1 1
}
}
{
"classname" "info_player_start"
"origin" "32 32 24"
}
"#;

    #[test]
    fn parses_standard_format() {
        let m = parse(ROOM).unwrap();
        assert_eq!(m.entities.len(), 2);
        assert_eq!(m.entities[0].classname(), "worldspawn");
        assert_eq!(m.entities[0].brushes.len(), 1);
        let b = &m.entities[0].brushes[0];
        assert_eq!(b.line, 5);
        assert_eq!(b.faces.len(), 4);
        assert_eq!(b.faces[1].line, 7);
        assert_eq!(b.faces[2].texture, "*water0");
        assert_eq!(
            b.faces[1].projection,
            TexProjection::Standard {
                offset: [16.0, 8.0],
                rotation: 90.0,
                scale: [0.5, 2.0]
            }
        );
        assert_eq!(m.entities[1].get("origin"), Some("32 32 24"));
    }

    #[test]
    fn parses_valve_220() {
        let text = "{\n\"classname\" \"worldspawn\"\n\"mapversion\" \"220\"\n{\n( -64 -64 -16 ) ( -64 -63 -16 ) ( -64 -64 -15 ) __TB_empty [ 0 -1 0 8 ] [ 0 0 -1 4 ] 0 2 0.5\n}\n}\n";
        let m = parse(text).unwrap();
        let f = &m.entities[0].brushes[0].faces[0];
        assert_eq!(f.line, 5);
        let TexProjection::Valve { u, v, scale, .. } = &f.projection else {
            panic!()
        };
        assert_eq!(*u, [0.0, -1.0, 0.0, 8.0]);
        assert_eq!(*v, [0.0, 0.0, -1.0, 4.0]);
        assert_eq!(*scale, [2.0, 0.5]);
        let tv = tex_vecs(&f.projection, DVec3::NEG_X);
        // s = p·u/scale + offset: y = -10 → 10/2 + 8.
        assert_eq!(tv.st(DVec3::new(0.0, -10.0, 0.0)).0, 13.0);
    }

    #[test]
    fn standard_axes_match_quake_conventions() {
        // A floor: s along +x, t along -y; rotation 90 turns s to... brute-force check by rotating.
        let p = TexProjection::Standard {
            offset: [0.0, 0.0],
            rotation: 0.0,
            scale: [1.0, 1.0],
        };
        let tv = tex_vecs(&p, DVec3::Z);
        assert_eq!((tv.s, tv.t), (DVec3::X, DVec3::NEG_Y));
        let tv = tex_vecs(&p, DVec3::X);
        assert_eq!((tv.s, tv.t), (DVec3::Y, DVec3::NEG_Z));
        // Rotations of 0/90/180/270 keep axes axial and are each a quarter turn of the previous.
        let mut prev = tv.s;
        for r in [90.0, 180.0, 270.0, 360.0] {
            let p = TexProjection::Standard {
                offset: [0.0, 0.0],
                rotation: r,
                scale: [2.0, 2.0],
            };
            let tv = tex_vecs(&p, DVec3::Z);
            let s = tv.s * 2.0;
            assert!(
                s.abs().max_element() == 1.0 && s.abs().min_element() == 0.0,
                "{s}"
            );
            assert_eq!(s.dot(if r == 90.0 { DVec3::X } else { prev }), 0.0);
            prev = s;
        }
    }

    fn err_of(text: &str) -> MapError {
        parse(text).expect_err("should fail")
    }

    #[test]
    fn a_long_token_is_cut_once() {
        for (long, what) in [
            ("9".repeat(10 << 20), "the point coordinate"),
            ("x".repeat(10 << 20), "the point coordinate"),
            ("\"".to_string() + &"k".repeat(10 << 20) + "\"", "a key"),
        ] {
            let text = format!("{{\n\"classname\" \"worldspawn\"\n{{\n( {long} 0 0 )\n}}\n}}\n");
            let text = if what == "a key" {
                format!("{{\n{long} 5\n}}\n")
            } else {
                text
            };
            let e = err_of(&text).msg;
            assert!(e.len() < 300, "{what}: {} bytes", e.len());
            assert_eq!(e.matches("bytes in all").count(), 1, "{what}: {e}");
            assert!(
                e.contains(&(10 << 20).to_string()) || e.contains(&((10 << 20) + 2).to_string()),
                "{e}"
            );
        }
    }

    #[test]
    fn malformed_input_names_the_line() {
        let truncated = &ROOM[..ROOM.find("}\n}").unwrap()];
        let e = err_of(truncated);
        assert!(e.msg.contains("no closing"), "{e}");
        let nan = ROOM.replace("( 64 0 0 )", "( 64 nan 0 )");
        let e = err_of(&nan);
        assert_eq!(e.line, 9);
        assert!(e.msg.contains("finite"), "{e}");
        let huge = ROOM.replace("( 64 0 0 )", "( 64 1e300 0 )");
        let e = err_of(&huge);
        assert_eq!(e.line, 9);
        let e = err_of(&ROOM.replace("floor 0 0 0 1 1", "floor 0 0"));
        assert_eq!(e.line, 7, "{e}");
        let e = err_of("{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 )");
        assert!(e.msg.contains("end of file"), "{e}");
        let e = err_of("{\n\"classname\" \"worldspawn\n}");
        assert_eq!(e.line, 2, "{e}");
        let e = err_of("}\n");
        assert_eq!(e.line, 1);
        // Missing brush close followed by the next brush.
        let e = err_of("{\n{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) a 0 0 0 1 1\n{\n}\n}\n");
        assert_eq!(e.line, 4, "{e}");
        // Garbage bytes never panic.
        for cut in 0..ROOM.len() {
            let _ = parse(&ROOM[..cut]);
        }
    }
}
