//! The entities lump: `{ "key" "value" ... }` blocks, parsed like Quake's tokenizer (quoted or
//! bare tokens, `//` comments, any whitespace), with errors naming the line.

use lanthorn_level::Entity;

use super::Q1Error;

#[derive(Debug, PartialEq)]
enum Tok<'a> {
    Open,
    Close,
    Str(&'a str),
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
}

impl<'a> Lexer<'a> {
    /// Next token and the line it starts on; `Ok(None)` at the end.
    fn next(&mut self) -> Result<Option<(Tok<'a>, usize)>, (usize, String)> {
        let b = self.text.as_bytes();
        loop {
            while self.pos < b.len() && (b[self.pos] as char).is_ascii_whitespace() {
                if b[self.pos] == b'\n' {
                    self.line += 1;
                }
                self.pos += 1;
            }
            if b[self.pos..].starts_with(b"//") {
                while self.pos < b.len() && b[self.pos] != b'\n' {
                    self.pos += 1;
                }
                continue;
            }
            break;
        }
        if self.pos >= b.len() {
            return Ok(None);
        }
        let line = self.line;
        match b[self.pos] {
            b'{' => {
                self.pos += 1;
                Ok(Some((Tok::Open, line)))
            }
            b'}' => {
                self.pos += 1;
                Ok(Some((Tok::Close, line)))
            }
            b'"' => {
                let start = self.pos + 1;
                let Some(len) = self.text[start..].find('"') else {
                    return Err((line, "a quoted string is not closed".into()));
                };
                let s = &self.text[start..start + len];
                self.line += s.matches('\n').count();
                self.pos = start + len + 1;
                Ok(Some((Tok::Str(s), line)))
            }
            _ => {
                let start = self.pos;
                while self.pos < b.len()
                    && !(b[self.pos] as char).is_ascii_whitespace()
                    && !matches!(b[self.pos], b'{' | b'}' | b'"')
                {
                    self.pos += 1;
                }
                Ok(Some((Tok::Str(&self.text[start..self.pos]), line)))
            }
        }
    }
}

/// Parses the entities lump (text up to the first NUL; bytes that are not UTF-8 are replaced).
pub(super) fn parse(lump: &[u8], file: &str) -> Result<Vec<Entity>, Q1Error> {
    let end = lump.iter().position(|&c| c == 0).unwrap_or(lump.len());
    let text = String::from_utf8_lossy(&lump[..end]);
    parse_text(&text).map_err(|(line, detail)| Q1Error::Entities {
        file: file.into(),
        line,
        detail,
    })
}

pub(crate) fn parse_text(text: &str) -> Result<Vec<Entity>, (usize, String)> {
    let mut lx = Lexer {
        text,
        pos: 0,
        line: 1,
    };
    let mut out = Vec::new();
    while let Some((tok, line)) = lx.next()? {
        if tok != Tok::Open {
            return Err((
                line,
                format!("expected '{{' to start an entity, found {tok:?}"),
            ));
        }
        let mut e = Entity::default();
        loop {
            match lx.next()? {
                None => return Err((line, "entity starting here is not closed with '}'".into())),
                Some((Tok::Close, _)) => break,
                Some((Tok::Str(k), kline)) => match lx.next()? {
                    Some((Tok::Str(v), _)) => e.pairs.push((k.to_string(), v.to_string())),
                    other => {
                        return Err((
                            kline,
                            format!("key \"{k}\" has no value (found {:?})", other.map(|t| t.0)),
                        ));
                    }
                },
                Some((Tok::Open, l)) => {
                    return Err((l, "'{' inside an entity (missing '}' before it?)".into()))
                }
            }
        }
        out.push(e);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerant_whitespace_and_errors_name_the_line() {
        let t = "{\r\n\"classname\"   \"worldspawn\"\n\t\"wad\" \"gfx/base.wad\"}\n// c\n{ \"a\" \"b c\" origin \"1 2 3\" }";
        let es = parse_text(t).unwrap();
        assert_eq!(es.len(), 2);
        assert_eq!(es[0].classname(), "worldspawn");
        assert_eq!(es[1].get("a"), Some("b c"));
        assert_eq!(es[1].origin(), Some(glam::Vec3::new(1.0, 2.0, 3.0)));
        assert_eq!(parse_text("{\n\"a\" \"b\"\n\"c\"\n}").unwrap_err().0, 3);
        assert_eq!(parse_text("{\n\"a\" \"b\n").unwrap_err().0, 2);
        assert_eq!(parse_text("\n\n{ \"a\" \"b\"").unwrap_err().0, 3);
        assert!(parse_text("").unwrap().is_empty());
    }
}
