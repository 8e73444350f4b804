//! The house rules of `src/`, read from the source files themselves:
//! - the layers import only downwards: engine < agents < sim < lab < report
//!   < cli (a file of a layer never names `crate::` of a layer above it);
//! - no file is longer than 800 lines;
//! - no circle of imports between files (`crate::...` and `super::...`
//!   paths, in `use` lines or inline; a child naming its own parent module,
//!   whose `mod` and re-exports make the child part of it, is not an import).
//!
//! Each check is also run on a small planted example, so that a check that
//! stopped seeing anything would fail.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: [&str; 6] = ["engine", "agents", "sim", "lab", "report", "cli"];
const MAX_LINES: usize = 800;

/// Every `.rs` file under `dir`, as paths relative to `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// The module path of a file: `engine/game/mod.rs` -> `engine::game`,
/// `engine/rng.rs` -> `engine::rng`; `lib.rs`, `main.rs` -> "".
fn module_of(file: &Path) -> String {
    let mut parts: Vec<String> = file
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts.join("::")
}

/// The code of a file without comments (line comments and doc comments), so
/// that a module named in prose is not an import.
fn code(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The layer a `crate::` path names, if any.
fn layer_named(path: &str) -> Option<&'static str> {
    LAYERS
        .iter()
        .copied()
        .find(|l| path == *l || path.starts_with(&format!("{l}::")))
}

/// `crate::x::y` paths and `use super::...` paths of a file's code, as
/// absolute module paths (`super` resolved against the file's module).
fn imports(module: &str, is_mod_file: bool, code: &str) -> Vec<String> {
    let mut out = Vec::new();
    // The module `super` means here: for `a/b.rs` (module a::b) it is `a`;
    // for `a/b/mod.rs` (module a::b) it is also `a`.
    let _ = is_mod_file;
    let parent = match module.rfind("::") {
        Some(i) => module[..i].to_string(),
        None => String::new(),
    };
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect::<String>()
            .trim_end_matches(':')
            .to_string()
    };
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        out.push(ident(&code[i + "crate::".len()..]));
    }
    for (i, _) in code.match_indices("super::") {
        let before = code[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let p = ident(&code[i + "super::".len()..]);
        out.push(if parent.is_empty() {
            p
        } else {
            format!("{parent}::{p}")
        });
    }
    out
}

/// The file module a path lands in: the longest prefix of `path` that is a
/// module of `modules`.
fn resolve<'a>(path: &str, modules: &'a BTreeSet<String>) -> Option<&'a String> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len())
        .rev()
        .map(|k| parts[..k].join("::"))
        .find_map(|p| modules.get(&p))
}

/// Upward imports: `(file, layer named)` for every file of a layer that names
/// a layer above it.
fn upward(files: &[(PathBuf, String)]) -> Vec<(String, String)> {
    let mut bad = Vec::new();
    for (file, text) in files {
        let Some(own) = file.iter().next().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let Some(rank) = LAYERS.iter().position(|l| *l == own) else {
            continue;
        };
        let module = module_of(file);
        for p in imports(&module, false, &code(text)) {
            if let Some(l) = layer_named(&p) {
                if LAYERS.iter().position(|x| *x == l).unwrap() > rank {
                    bad.push((file.display().to_string(), p));
                }
            }
        }
    }
    bad
}

/// A circle of imports between files, if there is one.
fn circle(files: &[(PathBuf, String)]) -> Option<Vec<String>> {
    let modules: BTreeSet<String> = files.iter().map(|(f, _)| module_of(f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, text) in files {
        let m = module_of(file);
        let is_mod = file.ends_with("mod.rs");
        for p in imports(&m, is_mod, &code(text)) {
            let Some(to) = resolve(&p, &modules) else {
                continue;
            };
            // A module's own ancestors hold it (`mod` plus re-exports): not an import.
            let ancestor = to.is_empty() || m == *to || m.starts_with(&format!("{to}::"));
            if !ancestor {
                edges.entry(m.clone()).or_default().insert(to.clone());
            }
        }
    }
    // Depth-first search with colours.
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let i = stack.iter().position(|s| s == m).unwrap();
                    let mut c = stack[i..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, edges, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = visit(n, &edges, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

fn src_files() -> Vec<(PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    rust_files(&src)
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(src.join(&f)).unwrap();
            (f, text)
        })
        .collect()
}

#[test]
fn layers_import_only_downwards() {
    let files = src_files();
    assert!(files.len() > 30, "read {} files", files.len());
    let bad = upward(&files);
    assert!(
        bad.is_empty(),
        "imports that run up the layers (engine < agents < sim < lab < report < cli): {bad:?}"
    );
}

#[test]
fn no_file_is_longer_than_800_lines() {
    let long: Vec<(String, usize)> = src_files()
        .iter()
        .map(|(f, t)| (f.display().to_string(), t.lines().count()))
        .filter(|(_, n)| *n > MAX_LINES)
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:?}");
}

#[test]
fn no_circle_of_imports() {
    let c = circle(&src_files());
    assert!(
        c.is_none(),
        "a circle of imports: {}",
        c.unwrap().join(" -> ")
    );
}

#[test]
fn the_checks_see_planted_faults() {
    let f = |p: &str, t: &str| (PathBuf::from(p), t.to_string());
    // An engine file naming the agents layer, in code (not in a comment).
    let files = vec![
        f("engine/x.rs", "use crate::agents::Seat;\n"),
        f(
            "engine/y.rs",
            "//! see crate::agents\nuse crate::engine::x;\n",
        ),
        f(
            "cli/z.rs",
            "use unolab::agents; fn f() { crate::engine::x::g() }\n",
        ),
    ];
    assert_eq!(
        upward(&files),
        vec![("engine/x.rs".to_string(), "agents::Seat".to_string())]
    );
    // A circle through a sibling's `super::` import; a child's use of its
    // parent is not one.
    let files = vec![
        f("cli/mod.rs", "mod a; mod b; pub use a::A;\n"),
        f("cli/a.rs", "use super::Fail; fn f() { super::b::g() }\n"),
        f("cli/b.rs", "use crate::cli::a::A;\n"),
    ];
    let c = circle(&files).expect("the planted circle");
    assert!(c.contains(&"cli::a".to_string()) && c.contains(&"cli::b".to_string()));
    let files = vec![
        f("cli/mod.rs", "mod a; use a::A;\n"),
        f("cli/a.rs", "use super::Fail;\n"),
    ];
    assert_eq!(circle(&files), None);
}
