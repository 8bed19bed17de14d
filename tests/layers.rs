//! What the compiler does not check about the layout (docs/ARCHITECTURE.md). Which layer may
//! use which is the crates' dependency lists, so the compiler keeps it; here: no crate of the
//! CPU core lists a GPU or window crate, the level model lists only what it may, and no folder
//! of any crate has an import cycle between its modules. Only code that ships counts: items
//! under `#[cfg(test)]` and the `tests.rs` / `*_tests.rs` files are skipped.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

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

/// Every path the code names, with `a::{b, c::{d}}` groups expanded into `a::b`, `a::c::d`.
fn paths_in(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b':';
    let mut i = 0;
    while i < b.len() {
        if !word(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && word(b[i]) {
            i += 1;
        }
        let run = &code[start..i];
        let mut j = i;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if run.ends_with("::") && b.get(j) == Some(&b'{') {
            let close = matching_brace(b, j);
            for part in split_top_level(&code[j + 1..close]) {
                out.extend(paths_in(&format!("{run}{}", part.trim())));
            }
            i = close + 1;
        } else if run.contains("::") {
            out.push(run.to_string());
        }
    }
    out
}

/// The index of the `}` closing the `{` at `open` (the end of the text if none does).
fn matching_brace(b: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(open) {
        depth += match c {
            b'{' => 1,
            b'}' => -1,
            _ => 0,
        };
        if depth == 0 {
            return k;
        }
    }
    b.len().saturating_sub(1)
}

/// `a, b::{c, d}, e` → `["a", "b::{c, d}", "e"]`.
fn split_top_level(list: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (k, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// A path as the module path it names from inside `module` (`crate::`, `super::`, `self::`
/// resolved; `None` for a path that starts with anything else).
fn absolute(path: &str, module: &[String]) -> Option<Vec<String>> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let first = *segs.first()?;
    let (base, rest): (Vec<String>, &[&str]) = match first {
        "crate" => (Vec::new(), &segs[1..]),
        "self" => (module.to_vec(), &segs[1..]),
        "super" => {
            let ups = segs.iter().take_while(|s| **s == "super").count();
            let keep = module.len().checked_sub(ups)?;
            (module[..keep].to_vec(), &segs[ups..])
        }
        _ => return None,
    };
    let mut out = base;
    out.extend(rest.iter().filter(|s| **s != "self").map(|s| s.to_string()));
    Some(out)
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

/// Per folder (a module path), its child modules and which child names which.
type FolderGraphs =
    std::collections::BTreeMap<Vec<String>, std::collections::BTreeMap<String, BTreeSet<String>>>;

/// Adds the edges one file's shipping code draws between the children of the folders above
/// it: a file of `a/b` naming `a/x/…` makes `b → x` an edge of folder `a`. `modules` holds
/// every module path of the crate (so an item's name is not taken for a module).
fn add_sibling_edges(
    graphs: &mut FolderGraphs,
    module: &[String],
    code: &str,
    modules: &BTreeSet<Vec<String>>,
) {
    for path in paths_in(code) {
        let Some(target) = absolute(&path, module) else {
            continue;
        };
        let k = module
            .iter()
            .zip(&target)
            .take_while(|(a, b)| a == b)
            .count();
        if k >= module.len() || k >= target.len() || !modules.contains(&target[..=k].to_vec()) {
            continue;
        }
        graphs
            .entry(module[..k].to_vec())
            .or_default()
            .entry(module[k].clone())
            .or_default()
            .insert(target[k].clone());
    }
}

/// Every folder's import cycles, each as `folder: a → b → a`.
fn cycles(graphs: &FolderGraphs) -> Vec<String> {
    let mut found = Vec::new();
    for (folder, edges) in graphs {
        let mut done = BTreeSet::new();
        for start in edges.keys() {
            let mut stack = vec![start.clone()];
            walk_for_cycle(edges, &mut stack, &mut done, &mut |cycle| {
                found.push(format!("{}: {}", folder.join("/"), cycle.join(" → ")));
            });
        }
    }
    found
}

/// Depth-first from the last module on `stack`; reports each edge back into the stack.
fn walk_for_cycle(
    edges: &std::collections::BTreeMap<String, BTreeSet<String>>,
    stack: &mut Vec<String>,
    done: &mut BTreeSet<String>,
    report: &mut dyn FnMut(Vec<String>),
) {
    let here = stack.last().unwrap().clone();
    if done.contains(&here) {
        return;
    }
    for next in edges.get(&here).into_iter().flatten() {
        if let Some(at) = stack.iter().position(|m| m == next) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(next.clone());
            report(cycle);
        } else {
            stack.push(next.clone());
            walk_for_cycle(edges, stack, done, report);
            stack.pop();
        }
    }
    done.insert(here);
}

/// The shipping files (not the crate root, not test files) with their module paths.
fn shipping_files(src: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|f| {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            let module = module_path(&f, src);
            // The crate root (lib.rs, main.rs) names every module; test files (`tests.rs`,
            // `*_tests.rs`: declared under `#[cfg(test)]`) are not shipped.
            let root = ["lib", "main"].contains(&module[0].as_str());
            let test_file = name.ends_with("_tests.rs") || name == "tests.rs";
            (!root && !test_file).then_some((f, module))
        })
        .collect()
}

/// The `src` folders of the workspace's packages: the root (the app) and every crate.
fn source_roots() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("src")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    crates.sort();
    out.extend(crates);
    out
}

/// One crate's folders and the edges between their child modules.
fn crate_graphs(src: &Path) -> FolderGraphs {
    let mut all = Vec::new();
    rust_files(src, &mut all);
    let mut modules: BTreeSet<Vec<String>> = BTreeSet::new();
    for f in &all {
        let m = module_path(f, src);
        for k in 1..=m.len() {
            modules.insert(m[..k].to_vec());
        }
    }
    let mut graphs = FolderGraphs::new();
    for (f, module) in &shipping_files(src) {
        let code = shipping_code(&code_only(&std::fs::read_to_string(f).unwrap()));
        add_sibling_edges(&mut graphs, module, &code, &modules);
    }
    graphs
}

#[test]
fn no_folder_has_an_import_cycle() {
    let (mut edges, mut found) = (0, Vec::new());
    let roots = source_roots();
    assert!(roots.len() >= 10, "only {} packages", roots.len());
    for src in &roots {
        let graphs = crate_graphs(src);
        edges += graphs
            .values()
            .flat_map(|g| g.values())
            .map(|e| e.len())
            .sum::<usize>();
        let name = src.parent().unwrap().file_name().unwrap().to_string_lossy();
        found.extend(cycles(&graphs).into_iter().map(|c| format!("{name}: {c}")));
    }
    assert!(edges > 100, "only {edges} edges between sibling modules");
    assert!(found.is_empty(), "import cycles: {found:#?}");
}

/// The cycle finder sees a cycle two folders down, through `super::`, `crate::` and a group.
#[test]
fn the_cycle_finder_catches_a_cycle() {
    let m = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    let modules: BTreeSet<Vec<String>> = ["r", "r/pass", "r/frame", "r/world", "r/world/draws"]
        .iter()
        .map(|s| m(s))
        .collect();
    let mut g = FolderGraphs::new();
    add_sibling_edges(
        &mut g,
        &m("r/pass"),
        "use super::{gpu::Gpu, frame::Stats};",
        &modules,
    );
    add_sibling_edges(
        &mut g,
        &m("r/frame"),
        "use crate::r::world::{draws::X};",
        &modules,
    );
    assert!(cycles(&g).is_empty(), "{:?}", cycles(&g));
    add_sibling_edges(
        &mut g,
        &m("r/world/draws"),
        "fn f(_: super::super::pass::P) {}",
        &modules,
    );
    assert_eq!(cycles(&g), ["r: frame → world → pass → frame"]);
}

/// Crates no package of the CPU core (everything but render and the app) may depend on.
const GPU_AND_WINDOW: &[&str] = &[
    "wgpu",
    "winit",
    "egui",
    "egui-wgpu",
    "egui-winit",
    "pollster",
    "renderdoc-sys",
    "libloading",
    "wgpu-profiler",
];

/// The only outside crates the level model may depend on.
const LEVEL_CRATES: &[&str] = &["lanthorn-geom", "glam", "thiserror", "serde", "log"];

/// The names in a manifest's `[dependencies]` table (not dev- or build-dependencies).
fn dependencies(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
        if inside && !name.is_empty() && !name.starts_with('#') {
            out.push(name.to_string());
        }
    }
    out
}

/// What a package's manifest lists that its layer may not use.
fn forbidden(package: &str, manifest: &str) -> Vec<String> {
    let core = !["render", "app"].contains(&package);
    dependencies(manifest)
        .into_iter()
        .filter(|d| {
            (core && GPU_AND_WINDOW.contains(&d.as_str()))
                || (package == "level" && !LEVEL_CRATES.contains(&d.as_str()))
        })
        .collect()
}

#[test]
fn no_crate_of_the_core_depends_on_the_gpu_or_a_window() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    let mut checked = 0;
    let mut bad = Vec::new();
    for e in std::fs::read_dir(&crates).unwrap().flatten() {
        let package = e.file_name().to_string_lossy().to_string();
        let manifest = std::fs::read_to_string(e.path().join("Cargo.toml")).unwrap();
        assert!(
            !dependencies(&manifest).is_empty(),
            "{package}: no dependencies read"
        );
        checked += 1;
        bad.extend(
            forbidden(&package, &manifest)
                .into_iter()
                .map(|d| format!("{package}: {d}")),
        );
    }
    assert!(checked >= 10, "only {checked} crates");
    assert!(bad.is_empty(), "layering broken: {bad:?}");
}

/// The manifest check catches what it must, and reads only `[dependencies]`.
#[test]
fn the_manifest_check_catches_a_gpu_crate_in_the_core() {
    let vis = "[package]\nname = \"x\"\n[dependencies]\nglam.workspace = true\nwgpu = \"30\"\n\n[dev-dependencies]\nwinit = \"0.30\"\n";
    assert_eq!(forbidden("vis", vis), ["wgpu"]);
    assert!(forbidden("render", vis).is_empty());
    let level = "[dependencies]\nlanthorn-geom.workspace = true\nimage = { version = \"0.25\" }\n";
    assert_eq!(forbidden("level", level), ["image"]);
}

/// The workspace's crates named in the `[dependencies]` of a manifest, but those only a test
/// feature pulls in (`optional = true`: `lanthorn-testdata` behind `test-hooks`).
fn lanthorn_dependencies(manifest: &str) -> BTreeSet<String> {
    let shipping: String = manifest
        .lines()
        .filter(|l| !l.contains("optional = true"))
        .map(|l| format!("{l}\n"))
        .collect();
    dependencies(&shipping)
        .into_iter()
        .filter(|d| d.starts_with("lanthorn-"))
        .collect()
}

/// Per crate of docs/ARCHITECTURE.md's crate table: its folder and the workspace crates its
/// last column names.
fn documented_crates(doc: &str) -> Vec<(String, String, BTreeSet<String>)> {
    let table = doc.split("## Crates").nth(1).unwrap_or_default();
    let table = table.split("\n## ").next().unwrap_or_default();
    let mut out = Vec::new();
    for row in table.lines().filter(|l| l.starts_with("| `lanthorn")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let ticked = |cell: &str| -> Vec<String> {
            cell.split('`')
                .skip(1)
                .step_by(2)
                .map(String::from)
                .collect()
        };
        let head = ticked(cells[0]);
        let (name, folder) = (head[0].clone(), head.get(1).cloned().unwrap_or_default());
        let deps = ticked(cells.last().unwrap())
            .into_iter()
            .filter(|d| d.starts_with("lanthorn-"))
            .collect();
        out.push((name, folder, deps));
    }
    out
}

/// The crate table of docs/ARCHITECTURE.md lists every crate, in its folder, with the
/// dependencies its manifest has: the map is regenerated from the manifests or this fails.
#[test]
fn the_architecture_map_names_each_crates_dependencies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).unwrap();
    let documented = documented_crates(&doc);
    let mut seen = BTreeSet::new();
    for (name, folder, deps) in &documented {
        let dir = if name == "lanthorn" {
            root.to_path_buf()
        } else {
            root.join(folder)
        };
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("{name}: {folder}/Cargo.toml: {e}"));
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "{folder} is not {name}"
        );
        assert_eq!(
            &lanthorn_dependencies(&manifest),
            deps,
            "{name}'s dependencies"
        );
        seen.insert(name.clone());
    }
    let crates: BTreeSet<String> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .map(|e| format!("lanthorn-{}", e.file_name().to_string_lossy()))
        .chain(["lanthorn".to_string()])
        .collect();
    assert_eq!(
        seen, crates,
        "crates in docs/ARCHITECTURE.md against crates/"
    );
}

/// The table reader finds a row's crate, folder and dependencies, and nothing past the table.
#[test]
fn the_architecture_table_reader_reads_rows() {
    let doc = "## Crates\n\n| crate | what | deps |\n|---|---|---|\n| `lanthorn-vis` (`crates/vis`) | the `lanthorn-x` flow | `lanthorn-geom`, `lanthorn-level` (glam) |\n\n## Next\n| `lanthorn-y` (`y`) | - | `lanthorn-z` |\n";
    let rows = documented_crates(doc);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].0, "lanthorn-vis");
    assert_eq!(rows[0].1, "crates/vis");
    let deps: Vec<&str> = rows[0].2.iter().map(String::as_str).collect();
    assert_eq!(deps, ["lanthorn-geom", "lanthorn-level"]);
}
