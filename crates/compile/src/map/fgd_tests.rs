//! The TrenchBroom entity definitions (`editors/trenchbroom/Lanthorn/lanthorn.fgd`) against
//! what Lanthorn reads, both ways: a `.map` is generated from the definitions (each class
//! alone, every key set, once at its defaults and once with every flag and number set), compiled
//! and loaded the way `load` does while every key lookup is recorded (`level::key_reads`).
//! No key read goes undocumented, no documented key goes unread; and every class name the
//! compiler and loader test for is a class of the file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lanthorn_level::key_reads;

const FGD: &str = "editors/trenchbroom/Lanthorn/lanthorn.fgd";
/// Keys every entity has and that are no option: the class itself, and a point entity's
/// origin (TrenchBroom writes it; no definition lists it).
const IMPLICIT: [&str; 2] = ["classname", "origin"];
const TARGET: &str = "lanthorn_target";

#[derive(Clone, Debug, Default)]
struct Key {
    kind: String,
    default: Option<String>,
    flags: Vec<u32>,
}

#[derive(Clone, Debug, Default)]
struct Class {
    kind: String,
    bases: Vec<String>,
    keys: BTreeMap<String, Key>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Str(String),
    Word(String),
    Punct(char),
}

fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '"' => out.push(Tok::Str(chars.by_ref().take_while(|&c| c != '"').collect())),
            '@' | '[' | ']' | '(' | ')' | '=' | ':' | ',' => out.push(Tok::Punct(c)),
            c if c.is_whitespace() => {}
            c => {
                let mut w = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_whitespace() || "@[]()=:,\"".contains(n) {
                        break;
                    }
                    w.push(n);
                    chars.next();
                }
                out.push(Tok::Word(w));
            }
        }
    }
    out
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn next(&mut self) -> Tok {
        self.at += 1;
        self.toks
            .get(self.at - 1)
            .cloned()
            .unwrap_or_else(|| panic!("{FGD}: ends early"))
    }
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }
    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(&Tok::Punct(c));
        self.at += usize::from(hit);
        hit
    }
    fn expect(&mut self, c: char) {
        let t = self.next();
        assert_eq!(t, Tok::Punct(c), "{FGD}: token {}", self.at);
    }
    fn text(&mut self) -> String {
        match self.next() {
            Tok::Str(s) | Tok::Word(s) => s,
            t => panic!("{FGD}: {t:?} where a word was expected (token {})", self.at),
        }
    }
    /// Skips a parenthesised list, returning its words.
    fn group(&mut self) -> Vec<String> {
        self.expect('(');
        let mut words = Vec::new();
        while !self.eat(')') {
            if let Tok::Word(w) | Tok::Str(w) = self.next() {
                words.push(w);
            }
        }
        words
    }

    fn class(&mut self) -> (String, Class) {
        self.expect('@');
        let mut class = Class {
            kind: self.text(),
            ..Class::default()
        };
        while !self.eat('=') {
            let attr = self.text();
            let words = self.group();
            if attr == "base" {
                class.bases = words;
            }
        }
        let name = self.text();
        if self.eat(':') {
            self.text();
        }
        self.expect('[');
        while !self.eat(']') {
            let (k, key) = self.key();
            class.keys.insert(k, key);
        }
        (name, class)
    }

    fn key(&mut self) -> (String, Key) {
        let name = self.text();
        let mut key = Key {
            kind: self.group().concat().to_ascii_lowercase(),
            ..Key::default()
        };
        // `: "description" : default : "long description"`, each optional.
        for part in 0..3 {
            if !self.eat(':') {
                break;
            }
            let t = self.text();
            if part == 1 {
                key.default = Some(t);
            }
        }
        if self.eat('=') {
            self.expect('[');
            while !self.eat(']') {
                let value = self.text();
                self.expect(':');
                self.text();
                if self.eat(':') {
                    self.text();
                }
                if key.kind == "flags" {
                    key.flags.push(value.parse().expect("a flag is a number"));
                }
            }
        }
        (name, key)
    }
}

/// The workspace's root (the editor files live there).
fn workspace() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn definitions() -> BTreeMap<String, Class> {
    let path = workspace().join(FGD);
    let text = std::fs::read_to_string(&path).expect("the .fgd is in the repository");
    let mut p = Parser {
        toks: tokens(&text),
        at: 0,
    };
    let mut classes = BTreeMap::new();
    while p.peek().is_some() {
        let (name, class) = p.class();
        assert!(
            classes.insert(name.clone(), class).is_none(),
            "{name} twice"
        );
    }
    classes
}

/// A class's keys with its bases' (a key's flags merged).
fn keys_of(classes: &BTreeMap<String, Class>, name: &str) -> BTreeMap<String, Key> {
    let class = &classes[name];
    let mut keys: BTreeMap<String, Key> = BTreeMap::new();
    let inherited = class.bases.iter().flat_map(|b| keys_of(classes, b));
    for (k, key) in inherited.chain(class.keys.clone()) {
        let slot = keys.entry(k).or_default();
        let flags: Vec<u32> = slot.flags.iter().chain(&key.flags).copied().collect();
        *slot = Key { flags, ..key };
        slot.flags.sort_unstable();
        slot.flags.dedup();
    }
    keys
}

/// How a generated entity sets its keys: all at their defaults, or set to something that is
/// not a default (numbers 100) with one of its flags, so that keys read only in some cases
/// (a door's `lip` only when it starts open) are read.
#[derive(Clone, Copy, Debug)]
enum Variant {
    Defaults,
    Set { flag: u32 },
}

/// The variants that reach every case of `keys`: the defaults, then one per flag.
fn variants(keys: &BTreeMap<String, Key>) -> Vec<Variant> {
    let flags = keys.get("spawnflags").map_or(&[][..], |k| &k.flags[..]);
    let mut v = vec![Variant::Defaults, Variant::Set { flag: 0 }];
    v.extend(flags.iter().map(|&flag| Variant::Set { flag }));
    v
}

fn pairs(keys: &BTreeMap<String, Key>, variant: Variant) -> String {
    let mut s = String::new();
    for (k, key) in keys {
        let v = match (variant, key.kind.as_str()) {
            (_, "target_source" | "target_destination") => TARGET.into(),
            (Variant::Defaults, "flags") => "0".into(),
            (Variant::Set { flag }, "flags") => flag.to_string(),
            (Variant::Defaults, _) if key.default.is_some() => key.default.clone().unwrap(),
            (_, "integer" | "choices") => "100".into(),
            (_, "color1") => "1 0.5 0.25".into(),
            _ => key.default.clone().unwrap_or_else(|| "lanthorn".into()),
        };
        s += &format!("\"{k}\" \"{v}\"\n");
    }
    s
}

/// A sealed room holding `class` (a brush in the room for a solid class, a point else) and a
/// point entity the lights can aim at.
fn map_with(classes: &BTreeMap<String, Class>, class: &str, variant: Variant) -> String {
    use super::tests::box_brush;
    let (t, r) = (16.0, 256.0);
    let mut s = String::from("{\n\"classname\" \"worldspawn\"\n");
    s += &pairs(&keys_of(classes, "worldspawn"), variant);
    for axis in 0..3 {
        for side in [-1.0, 1.0] {
            let (mut a, mut b) = ([-r - t; 3], [r + t; 3]);
            if side < 0.0 {
                b[axis] = -r;
            } else {
                a[axis] = r;
            }
            s += &box_brush(a, b, "wall");
        }
    }
    s += "}\n{\n\"classname\" \"info_null\"\n\"origin\" \"64 64 64\"\n";
    s += &format!("\"targetname\" \"{TARGET}\"\n}}\n");
    if class != "worldspawn" {
        s += &format!("{{\n\"classname\" \"{class}\"\n");
        s += &pairs(&keys_of(classes, class), variant);
        if classes[class].kind == "SolidClass" {
            s += &box_brush([16.0, 16.0, 16.0], [48.0, 48.0, 48.0], "door");
        } else {
            s += "\"origin\" \"0 0 64\"\n";
        }
        s += "}\n";
    }
    s
}

/// Compiles and loads `text` as `load` would (every game's spawn rules), recording the reads.
fn reads_of(text: &str, path: &Path) -> BTreeSet<key_reads::Read> {
    std::fs::write(path, text).unwrap();
    let ((), reads) = key_reads::recorded(|| {
        let options = super::CompileOptions::default();
        let (level, _) = crate::compile(path, &options).unwrap_or_else(|e| panic!("{e}\n{text}"));
        for skill in 0..=3 {
            for deathmatch in [false, true] {
                let rules = lanthorn_level::spawn::SpawnRules { skill, deathmatch };
                lanthorn_level::spawn::apply(&mut level.clone(), rules);
            }
        }
        level.player_start();
        lanthorn_level::styles::switched_off(&level.entities);
        lanthorn_light::lights::level_lights(&level);
    });
    reads
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanthorn-fgd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("fgd.map")
}

#[test]
fn the_fgd_documents_exactly_the_keys_lanthorn_reads() {
    let classes = definitions();
    let concrete: Vec<&String> = classes
        .iter()
        .filter(|(_, c)| c.kind != "BaseClass")
        .map(|(n, _)| n)
        .collect();
    let path = scratch();
    let mut read = BTreeSet::new();
    for class in &concrete {
        for variant in variants(&keys_of(&classes, class)) {
            read.extend(reads_of(&map_with(&classes, class, variant), &path));
        }
    }
    let read: BTreeSet<(String, String)> = read
        .into_iter()
        .filter(|(_, k)| !IMPLICIT.contains(&k.as_str()))
        .collect();
    let documented: BTreeSet<(String, String)> = concrete
        .iter()
        .flat_map(|c| keys_of(&classes, c).into_keys().map(|k| (c.to_string(), k)))
        .collect();
    let undocumented: Vec<_> = read.difference(&documented).collect();
    let ignored: Vec<_> = documented.difference(&read).collect();
    assert!(
        undocumented.is_empty(),
        "read but not in {FGD}: {undocumented:?}"
    );
    assert!(ignored.is_empty(), "in {FGD} but never read: {ignored:?}");
    eprintln!(
        "{FGD}: {} classes, {} class keys, all read",
        concrete.len(),
        documented.len()
    );
}

/// Every class name the compiler, the light baker and the loader test for (a string literal
/// in their code) is a class of the file, or the prefix of one.
#[test]
fn every_class_the_code_tests_for_is_defined() {
    let classes = definitions();
    let crates = workspace().join("crates");
    let mut named = BTreeSet::new();
    for dir in [
        "compile/src/map",
        "compile/src",
        "light/src",
        "level/src",
        "load/src",
    ] {
        for entry in std::fs::read_dir(crates.join(dir)).unwrap().flatten() {
            let p = entry.path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if !name.ends_with(".rs") || name.contains("tests") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            // Only the shipping part: a file's own test module comes last.
            let code = text.split("#[cfg(test)]\nmod").next().unwrap_or("");
            for lit in code.split('"').skip(1).step_by(2) {
                let classlike = lit == "worldspawn"
                    || ["func_", "info_", "light_", "trigger_"]
                        .iter()
                        .any(|p| lit.starts_with(p));
                if classlike && lit.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    named.insert(lit.to_string());
                }
            }
        }
    }
    assert!(named.contains("func_detail") && named.contains("worldspawn"));
    let missing: Vec<_> = named
        .iter()
        .filter(|n| !classes.keys().any(|c| c.starts_with(n.as_str())))
        .collect();
    assert!(
        missing.is_empty(),
        "tested for in the code, not in {FGD}: {missing:?}"
    );
}

/// The game configuration and the profiles are JSON TrenchBroom can read, name the definitions
/// file that is there, and run the tool the configuration declares.
#[test]
fn the_game_configuration_names_what_is_there() {
    let dir = workspace().join("editors/trenchbroom/Lanthorn");
    let json = |name: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let config = json("GameConfig.cfg");
    for def in config["entities"]["definitions"].as_array().unwrap() {
        assert!(dir.join(def.as_str().unwrap()).is_file(), "{def}");
    }
    let formats: Vec<&str> = config["fileformats"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["format"].as_str())
        .collect();
    assert_eq!(formats, ["Standard", "Valve"]);
    let tool = config["compilationTools"][0]["name"].as_str().unwrap();
    let profiles = json("CompilationProfiles.cfg");
    for p in profiles["profiles"].as_array().unwrap() {
        let tasks = p["tasks"].as_array().unwrap();
        assert!(tasks.iter().any(|t| t["tool"] == format!("${{{tool}}}")
            && t["parameters"]
                .as_str()
                .is_some_and(|a| a.starts_with("compile "))));
    }
    let engines = json("GameEngineProfiles.cfg");
    let launch = engines["profiles"][0]["parameters"].as_str().unwrap();
    assert!(launch.starts_with("demo ") && launch.ends_with("--watch"));
}
