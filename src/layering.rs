//! The layout's rules, checked on the source text (see docs/ARCHITECTURE.md): which top-level
//! module may name which, and which crates the CPU core and the level model may use. Only
//! code that ships counts: items under `#[cfg(test)]` and the `tests.rs` / `testutil.rs`
//! files are skipped, because tests may build their input with a higher module or use a
//! sibling as their oracle (the Quake importer checks the compiler).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Top-level module → the top-level modules its shipping code may name.
const ALLOWED: &[(&str, &[&str])] = &[
    ("geom", &[]),
    ("files", &[]),
    ("rng", &[]),
    ("level", &["geom", "files"]),
    ("light", &["geom", "level"]),
    ("import", &["geom", "level", "light"]),
    ("compile", &["geom", "level", "light", "files"]),
    ("scenes", &["geom", "level", "compile", "rng"]),
    ("load", &["level", "compile", "import", "scenes"]),
    ("vis", &["geom", "level"]),
    ("terrain", &["geom"]),
    ("render", &["geom", "level", "light", "vis", "terrain"]),
    (
        "app",
        &[
            "geom", "level", "compile", "light", "load", "scenes", "vis", "terrain", "render",
            "files", "rng",
        ],
    ),
];

/// Crates the CPU core (everything but `render` and `app`) must not name.
const GPU_AND_WINDOW: &[&str] = &[
    "wgpu",
    "winit",
    "egui",
    "egui_wgpu",
    "egui_winit",
    "pollster",
];

/// The only outside crates the level model may use.
const LEVEL_CRATES: &[&str] = &["std", "core", "alloc", "glam", "serde", "thiserror", "log"];

/// Every outside crate the project depends on (the names a path could start with).
const DEPENDENCIES: &[&str] = &[
    "wgpu",
    "winit",
    "egui",
    "egui_wgpu",
    "egui_winit",
    "glam",
    "bytemuck",
    "pollster",
    "image",
    "clap",
    "thiserror",
    "anyhow",
    "log",
    "env_logger",
    "serde",
    "serde_json",
    "ron",
    "guillotiere",
];

/// Crate-root items that are not modules (any module may use them).
const ROOT_ITEMS: &[&str] = &["realdata_dir"];

/// One rule broken: the file and what it names.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Violation {
    file: String,
    names: String,
}

/// Source text without comments, string and char literals (so prose and messages that
/// mention a module do not count).
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            // A char literal ('x', '\n', '{'), not a lifetime ('a).
            b'\'' if b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\') => {
                i += if b.get(i + 1) == Some(&b'\\') { 4 } else { 3 };
                out.push_str("' '");
            }
            c => {
                out.push(c as char);
                i += 1;
            }
        }
    }
    out
}

/// The code without the items under `#[cfg(test)]` (a one-line item or a braced block).
fn shipping_code(code: &str) -> String {
    let mut out = String::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mut depth = 0i64;
        let mut opened = false;
        for item in lines.by_ref() {
            depth += item.matches('{').count() as i64 - item.matches('}').count() as i64;
            opened |= item.contains('{');
            let attribute = item.trim_start().starts_with("#[");
            if !attribute && ((opened && depth <= 0) || (!opened && item.trim_end().ends_with(';')))
            {
                break;
            }
        }
    }
    out
}

/// `src/a/b/c.rs` → `["a", "b", "c"]`; `mod.rs` names its folder.
fn module_path(file: &Path, src: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The top-level modules and outside crates a file's shipping code names.
fn names_in(code: &str, module: &[String]) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut modules, mut crates) = (BTreeSet::new(), BTreeSet::new());
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .filter(|w| w.contains("::"))
        .collect();
    for w in words {
        let segs: Vec<&str> = w.split("::").filter(|s| !s.is_empty()).collect();
        let Some(&first) = segs.first() else { continue };
        if first == "crate" {
            if let Some(m) = segs.get(1) {
                modules.insert(m.to_string());
            }
        } else if first == "super" {
            let ups = segs.iter().take_while(|s| **s == "super").count();
            if ups >= module.len() {
                if let Some(m) = segs.get(ups) {
                    modules.insert(m.to_string());
                }
            }
        } else if DEPENDENCIES.contains(&first) || ["std", "core", "alloc"].contains(&first) {
            crates.insert(first.to_string());
        }
    }
    let top = module.first().cloned().unwrap_or_default();
    modules.retain(|m| *m != top && !ROOT_ITEMS.contains(&m.as_str()));
    (modules, crates)
}

/// The rules broken by one file's source.
fn check_file(name: &str, module: &[String], src: &str) -> Vec<Violation> {
    let Some(top) = module.first() else {
        return Vec::new();
    };
    let Some((_, allowed)) = ALLOWED.iter().find(|(m, _)| m == top) else {
        return vec![Violation {
            file: name.into(),
            names: format!("top-level module {top} has no row in ALLOWED"),
        }];
    };
    let (modules, crates) = names_in(&shipping_code(&code_only(src)), module);
    let mut bad: Vec<String> = modules
        .iter()
        .filter(|m| !allowed.contains(&m.as_str()))
        .map(|m| format!("crate::{m}"))
        .collect();
    let core = !["render", "app"].contains(&top.as_str());
    bad.extend(
        crates
            .iter()
            .filter(|c| {
                (core && GPU_AND_WINDOW.contains(&c.as_str()))
                    || (top == "level" && !LEVEL_CRATES.contains(&c.as_str()))
            })
            .cloned(),
    );
    bad.into_iter()
        .map(|names| Violation {
            file: name.into(),
            names,
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_module_names_only_what_its_layer_may_use() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut violations = Vec::new();
    let mut checked = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        let module = module_path(f, &src);
        // The crate root (lib.rs, main.rs) names every module; test files (`tests.rs`,
        // `*_tests.rs`: declared under `#[cfg(test)]`) are not shipped.
        let root = ["lib", "main"].contains(&module[0].as_str());
        let test_file = name.ends_with("_tests.rs");
        if root || test_file || ["tests.rs", "testutil.rs", "layering.rs"].contains(&name.as_ref())
        {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        violations.extend(check_file(&f.display().to_string(), &module, &text));
        checked += 1;
    }
    assert!(checked > 50, "only {checked} files checked");
    assert!(violations.is_empty(), "layering broken: {violations:#?}");
}

/// The checker itself catches what it must (a mutation of a real file would, too).
#[test]
fn the_checker_catches_bad_imports() {
    let m = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    let bad_level = "use crate::geom::Aabb;\nuse crate::light::atlas;\nfn f() { let _ = image::open(\"x\"); }\n";
    let v = check_file("level/x.rs", &m("level/x"), bad_level);
    let names: Vec<&str> = v.iter().map(|v| v.names.as_str()).collect();
    assert_eq!(names, ["crate::light", "image"]);
    let gpu_in_vis = "fn f(d: &wgpu::Device) {}\n// wgpu in a comment is fine\nconst S: &str = \"crate::render\";\n";
    let v = check_file("vis/x.rs", &m("vis/x"), gpu_in_vis);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].names, "wgpu");
    let up = "use super::super::super::app::demo;\nuse super::super::stats::X;\n";
    let v = check_file("compile/map/x.rs", &m("compile/map/x"), up);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].names, "crate::app");
    // Test-only items do not count; what follows them does.
    let tests_then_code = "#[cfg(test)]\nmod tests {\n    use crate::load::load;\n    fn f() { if true { } }\n}\nuse crate::render::Gpu;\n";
    let v = check_file("light/x.rs", &m("light/x"), tests_then_code);
    let names: Vec<&str> = v.iter().map(|v| v.names.as_str()).collect();
    assert_eq!(names, ["crate::render"]);
    let one_line = "#[cfg(test)]\nuse crate::app::World;\nuse crate::scenes::builtin;\n";
    let v = check_file("import/x.rs", &m("import/x"), one_line);
    assert_eq!(v[0].names, "crate::scenes");
}
