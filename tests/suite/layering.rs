//! The house rules of `src/`, read from the source files themselves:
//! - the layers import only downwards: engine < agents < sim < lab < report
//!   < cli (a file of a layer never names `crate::` of a layer above it);
//! - no file is longer than 800 lines;
//! - no circle of imports between files (`crate::...` and `super::...`
//!   paths and a module's own children by name, in `use` lines or inline;
//!   a child naming what its parent only re-exports, which the parent's
//!   `mod` makes part of it, is not an import of the parent, but naming
//!   what the parent itself defines is; a path through a `pub use`, the
//!   crate root's among them, is followed to the module that defines it).
//!
//! Each check is also run on a small planted example, so that a check that
//! stopped seeing anything would fail.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: [&str; 6] = ["engine", "agents", "sim", "lab", "report", "cli"];
const MAX_LINES: usize = 800;
/// Modules whose files are one type's parts (`Game`'s `impl` blocks spread
/// over child files that use the parent's definitions and back): one node
/// for the circle check.
const UNITS: [&str; 1] = ["engine::game"];

/// The node of a module for the circle check: its unit, or itself.
fn node(m: &str) -> String {
    UNITS
        .iter()
        .find(|u| m == **u || m.starts_with(&format!("{u}::")))
        .map_or(m.to_string(), |u| u.to_string())
}

/// Every `.rs` file under `dir`, as paths relative to `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    crate::common::files_under(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect()
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
/// A file's inline test module (`#[cfg(test)] mod tests`, at its end) is
/// left out: its `super::` is the file itself.
fn code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    // An inline test module (`mod tests {`) is cut with the rest of the
    // file; a test module in a file of its own (`mod tests;`) is one line.
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines[i + 1..]
                    .iter()
                    .find(|l| !l.trim().is_empty())
                    .is_some_and(|l| {
                        let l = l.trim();
                        l.starts_with("mod ") && !l.ends_with(';')
                    })
        })
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The layer a crate-root re-export of `lib.rs` comes from, by name
/// (`crate::Seat` is `agents::Seat`).
fn root_reexports(files: &[(PathBuf, String)]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Some((_, lib)) = files.iter().find(|(f, _)| f == Path::new("lib.rs")) else {
        return out;
    };
    for line in code(lib).lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let rest = rest.trim_end_matches(';');
        let (path, names) = match rest.find("::{") {
            Some(i) => (&rest[..i], rest[i + 3..].trim_end_matches('}')),
            None => match rest.rfind("::") {
                Some(i) => (&rest[..i], &rest[i + 2..]),
                None => continue,
            },
        };
        for n in names.split(',') {
            let n = n.trim();
            if !n.is_empty() {
                out.insert(n.to_string(), format!("{path}::{n}"));
            }
        }
    }
    out
}

/// The layer a `crate::` path names, if any.
fn layer_named(path: &str) -> Option<&'static str> {
    LAYERS
        .iter()
        .copied()
        .find(|l| path == *l || path.starts_with(&format!("{l}::")))
}

/// `a::b`, or `b` when `a` is the crate root ("").
fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}::{b}")
    }
}

/// `crate::x::y` paths, `super::...` paths and paths through the file's own
/// child modules (`mod walk;` ... `walk::SimTable`) of a file's code, as
/// absolute module paths (`super` resolved against the file's module), each
/// with the names a brace group after it lists (`super::{Root, Sim}`).
fn imports(module: &str, code: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    // The module `super` means here: for `a/b.rs` (module a::b) it is `a`;
    // for `a/b/mod.rs` (module a::b) it is also `a`.
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
    // The names of a brace group right after the path at `at`.
    let names = |at: &str| -> Vec<String> {
        let p = ident(at);
        let rest = &at[p.len()..];
        // `super::*`, `x::*`: everything the module holds.
        if rest.starts_with('*') || rest.starts_with("::*") {
            return vec!["*".to_string()];
        }
        // `super::{A, B}`: the group right after the `::` already read.
        let group = match p.is_empty() {
            true => rest.strip_prefix('{'),
            false => rest.strip_prefix("::{"),
        };
        match group {
            Some(rest) => rest[..rest.find('}').unwrap_or(rest.len())]
                .split(',')
                .map(|n| ident(n.trim()))
                .filter(|n| !n.is_empty())
                .collect(),
            None => Vec::new(),
        }
    };
    let starts_in = |text: &str, i: usize, extra: char| {
        let before = text[..i].chars().last();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == extra)
    };
    for (i, _) in code.match_indices("crate::") {
        if starts_in(code, i, '_') {
            let at = &code[i + "crate::".len()..];
            out.push((ident(at), names(at)));
        }
    }
    for (i, _) in code.match_indices("super::") {
        if starts_in(code, i, ':') {
            let at = &code[i + "super::".len()..];
            let p = ident(at);
            out.push((
                if p.is_empty() {
                    parent.clone()
                } else {
                    join(&parent, &p)
                },
                names(at),
            ));
        }
    }
    // The file's own children: `mod x;` and then `x::...`.
    let children: Vec<String> = code
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l
                .strip_prefix("pub(crate) ")
                .or(l.strip_prefix("pub "))
                .unwrap_or(l);
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect();
    // A re-export of a child (`pub use walk::Plan;`) makes the child's items
    // the parent's; it is not the parent's code using them.
    let own: String = code
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            !(l.starts_with("pub use ") || l.starts_with("pub(crate) use "))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let code = own.as_str();
    for c in &children {
        let pat = format!("{c}::");
        for (i, _) in code.match_indices(&pat) {
            let self_path =
                code[..i].ends_with("self::") && starts_in(code, i - "self::".len(), ':');
            // `use std::{process::Command}` names std's `process`, not a
            // child `process`; `use self::{walk::A}` names the child.
            let other_group = group_prefix(code, i).is_some_and(|g| g != "self" && !g.is_empty());
            if (starts_in(code, i, ':') || self_path) && !other_group {
                let at = &code[i..];
                out.push((join(module, &ident(at)), names(at)));
            }
        }
    }
    out
}

/// The path before the brace group that holds byte `at` of `code`
/// (`std` for `use std::{io, process::Command}` at `process`), if `at` is
/// inside one: "" for a group with nothing before it.
fn group_prefix(code: &str, at: usize) -> Option<&str> {
    let mut depth = 0usize;
    for (i, c) in code[..at].char_indices().rev() {
        match c {
            '}' => depth += 1,
            '{' if depth > 0 => depth -= 1,
            '{' => {
                let before = code[..i].trim_end().trim_end_matches("::");
                let start = before
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .map_or(0, |k| k + 1);
                return Some(&before[start..]);
            }
            ';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// Whether a file's code defines an item named `name` (not a re-export);
/// `*` (a glob) asks whether it defines any item.
fn defines(code: &str, name: &str) -> bool {
    code.lines().any(|l| {
        let mut l = l.trim();
        if let Some(r) = l.strip_prefix("pub") {
            l = r.trim_start();
            if l.starts_with('(') {
                l = l[l.find(')').map_or(0, |i| i + 1)..].trim_start();
            }
        }
        // `const fn`, `unsafe fn`, `async fn` (and `const unsafe fn`) are fns.
        for q in ["const ", "unsafe ", "async "] {
            if l.strip_prefix(q).is_some_and(|r| {
                let r = r.trim_start();
                r.starts_with("fn ") || r.starts_with("unsafe fn ")
            }) {
                l = l[q.len()..].trim_start();
                l = l.strip_prefix("unsafe ").unwrap_or(l);
            }
        }
        [
            "struct ",
            "enum ",
            "fn ",
            "trait ",
            "type ",
            "const ",
            "static ",
            "union ",
            "macro_rules! ",
        ]
        .iter()
        .any(|k| {
            if name == "*" {
                // Any item: a file of `mod` and `pub use` lines alone
                // defines nothing a glob could take.
                return l.starts_with(k);
            }
            l.strip_prefix(k).is_some_and(|r| {
                r.starts_with(name)
                    && !r[name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
        })
    })
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

/// The paths an import names, with the crate root's re-exports followed:
/// `crate::Seat::custom` is `agents::Seat::custom`, and `crate::{Seat,
/// engine}` names `agents::Seat` and `engine`. Other paths as they are.
fn through_roots(p: &str, listed: &[String], roots: &BTreeMap<String, String>) -> Vec<String> {
    if p.is_empty() {
        return listed
            .iter()
            .filter(|n| *n != "*")
            .map(|n| {
                let first = n.split("::").next().unwrap_or(n);
                match roots.get(first) {
                    Some(r) => format!("{r}{}", &n[first.len()..]),
                    None => n.clone(),
                }
            })
            .collect();
    }
    let first = p.split("::").next().unwrap_or(p);
    match roots.get(first) {
        Some(r) => vec![format!("{r}{}", &p[first.len()..])],
        None => vec![p.to_string()],
    }
}

/// Where a `pub use` of the module it lands in takes the path's item from:
/// `agents::Seat`, with `pub use seat::Seat;` in `agents/mod.rs`, is
/// `agents::seat::Seat` (followed again from there, a few times at most).
fn follow_reexports(
    path: &str,
    codes: &BTreeMap<String, String>,
    modules: &BTreeSet<String>,
) -> String {
    let mut p = path.to_string();
    for _ in 0..8 {
        let Some(to) = resolve(&p, modules) else {
            break;
        };
        let rest = p[to.len()..].trim_start_matches(':').to_string();
        let name = rest.split("::").next().unwrap_or("").to_string();
        if name.is_empty() {
            break;
        }
        let Some(from) = reexport_source(&codes[to], &name) else {
            break;
        };
        let parent = match to.rfind("::") {
            Some(i) => to[..i].to_string(),
            None => String::new(),
        };
        let abs = if let Some(r) = from.strip_prefix("crate::") {
            r.to_string()
        } else if let Some(r) = from.strip_prefix("super::") {
            join(&parent, r)
        } else if let Some(r) = from.strip_prefix("self::") {
            join(to, r)
        } else {
            join(to, &from)
        };
        let next = join(&abs, &rest);
        if next == p {
            break;
        }
        p = next;
    }
    p
}

/// The path a module's `pub use` (or `pub(crate) use`) of `name` takes it
/// from: `seat` for `pub use seat::Seat;` or `pub use seat::{Seat, Human};`.
fn reexport_source(code: &str, name: &str) -> Option<String> {
    for l in code.lines() {
        let l = l.trim();
        let Some(rest) = l
            .strip_prefix("pub use ")
            .or_else(|| l.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        let rest = rest.trim_end_matches(';');
        let (path, names) = match rest.find("::{") {
            Some(i) => (&rest[..i], rest[i + 3..].trim_end_matches('}')),
            None => match rest.rfind("::") {
                Some(i) => (&rest[..i], &rest[i + 2..]),
                None => continue,
            },
        };
        if names.split(',').any(|n| n.trim() == name) {
            return Some(path.to_string());
        }
    }
    None
}

/// Upward imports: `(file, layer named)` for every file of a layer that names
/// a layer above it.
fn upward(files: &[(PathBuf, String)]) -> Vec<(String, String)> {
    let roots = root_reexports(files);
    let mut bad = Vec::new();
    for (file, text) in files {
        let Some(own) = file.iter().next().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let Some(rank) = LAYERS.iter().position(|l| *l == own) else {
            continue;
        };
        let module = module_of(file);
        for (p, listed) in imports(&module, &code(text)) {
            for p in through_roots(&p, &listed, &roots) {
                if let Some(l) = layer_named(&p) {
                    if LAYERS.iter().position(|x| *x == l).unwrap() > rank {
                        bad.push((file.display().to_string(), p));
                    }
                }
            }
        }
    }
    bad
}

/// A circle of imports between files, if there is one.
fn circle(files: &[(PathBuf, String)]) -> Option<Vec<String>> {
    let modules: BTreeSet<String> = files.iter().map(|(f, _)| module_of(f)).collect();
    let codes: BTreeMap<String, String> =
        files.iter().map(|(f, t)| (module_of(f), code(t))).collect();
    let roots = root_reexports(files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, text) in &codes {
        let mut paths = Vec::new();
        for (p, listed) in imports(m, text) {
            // A crate-root path names where its re-export comes from.
            if p.is_empty() {
                for q in through_roots(&p, &listed, &roots) {
                    paths.push((q, Vec::new()));
                }
            } else {
                let q = through_roots(&p, &listed, &roots).remove(0);
                paths.push((q, listed));
            }
        }
        for (p, listed) in paths {
            let p = follow_reexports(&p, &codes, &modules);
            let Some(to) = resolve(&p, &modules) else {
                continue;
            };
            if m == to {
                continue;
            }
            // A module's own ancestors hold it (`mod` plus re-exports): naming
            // what an ancestor re-exports is not an import; naming what it
            // defines is.
            let ancestor = to.is_empty() || m.starts_with(&format!("{to}::"));
            if ancestor {
                let rest = p[to.len()..].trim_start_matches(':');
                let named = match rest.split("::").next() {
                    Some(n) if !n.is_empty() => vec![n.to_string()],
                    _ => listed,
                };
                if !named.iter().any(|n| defines(&codes[to], n)) {
                    continue;
                }
            }
            let (a, b) = (node(m), node(to));
            if a != b {
                edges.entry(a).or_default().insert(b);
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
    // The same name through the crate root's re-export.
    let files = vec![
        f(
            "lib.rs",
            "pub mod agents;\npub use agents::{Seat, StrategySpec};\n",
        ),
        f("engine/x.rs", "use crate::Seat;\n"),
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
        f("cli/mod.rs", "mod a;\nuse a::A;\n"),
        f("cli/a.rs", "use super::Fail;\n"),
    ];
    assert_eq!(circle(&files), None);
    // A parent that defines what its child uses, and uses the child by
    // name: a circle through the parent's own code.
    let files = vec![
        f(
            "cli/mod.rs",
            "mod a;\nmod b;\npub struct Sim;\nfn f() { a::g() }\n",
        ),
        f("cli/a.rs", "use super::b::B;\n"),
        f("cli/b.rs", "use super::{Root, Sim};\n"),
    ];
    let c = circle(&files).expect("the planted circle through the parent");
    // A test module in a file of its own hides nothing below it.
    let files = vec![
        f("cli/mod.rs", "mod a;\nmod b;\n"),
        f("cli/a.rs", "#[cfg(test)]\nmod tests;\nuse super::b::B;\n"),
        f("cli/b.rs", "use super::a::A;\n"),
    ];
    assert!(circle(&files).is_some(), "the circle below `mod tests;`");
    assert!(c.contains(&"cli".to_string()) && c.contains(&"cli::b".to_string()));
    planted_gaps_of_2026_12_05();
    // The child naming only what the parent re-exports is not one, nor a
    // test module's `super::*`.
    let files = vec![
        f(
            "cli/mod.rs",
            "mod a;\nmod b;\npub use b::B;\nfn f() { a::g() }\n",
        ),
        f(
            "cli/a.rs",
            "use super::B;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
        ),
        f("cli/b.rs", "pub struct B;\n"),
    ];
    assert_eq!(circle(&files), None);
}

/// What the layering check missed until 2026-12-05, planted.
fn planted_gaps_of_2026_12_05() {
    let f = |p: &str, t: &str| (PathBuf::from(p), t.to_string());
    let lib = f(
        "lib.rs",
        "pub mod agents;\npub mod engine;\npub use agents::{Seat, StrategySpec};\n",
    );
    // A path through a crate-root re-export, and a brace group of the
    // crate root.
    let files = vec![
        lib.clone(),
        f("engine/x.rs", "fn f() { crate::Seat::custom(1) }\n"),
        f("engine/y.rs", "use crate::{engine::x, StrategySpec};\n"),
    ];
    assert_eq!(
        upward(&files),
        vec![
            (
                "engine/x.rs".to_string(),
                "agents::Seat::custom".to_string()
            ),
            (
                "engine/y.rs".to_string(),
                "agents::StrategySpec".to_string()
            ),
        ]
    );
    // A circle through a crate-root re-export: engine::x uses agents'
    // Seat, agents::seat uses engine::x.
    let files = vec![
        lib.clone(),
        f("agents/mod.rs", "mod seat;\npub use seat::Seat;\n"),
        f(
            "agents/seat.rs",
            "use crate::engine::x::g;\npub struct Seat;\n",
        ),
        f("engine/mod.rs", "pub mod x;\n"),
        f("engine/x.rs", "use crate::{Seat};\npub fn g() {}\n"),
    ];
    assert!(
        circle(&files).is_some(),
        "the circle through crate::{{Seat}}"
    );
    // A `const fn` (or `unsafe fn`) the parent defines and the child uses,
    // the parent using the child by name.
    for def in [
        "pub const fn limit() -> u32 { 1 }",
        "pub(crate) unsafe fn limit() {}",
    ] {
        let files = vec![
            f(
                "cli/mod.rs",
                &format!("mod a;\n{def}\nfn f() {{ a::g() }}\n"),
            ),
            f("cli/a.rs", "use super::limit;\npub fn g() {}\n"),
        ];
        assert!(circle(&files).is_some(), "the circle through {def}");
    }
    // A macro the parent defines and the child names by path.
    let files = vec![
        f(
            "cli/mod.rs",
            "mod a;\nmacro_rules! said { () => {} }\nfn f() { a::g() }\n",
        ),
        f("cli/a.rs", "use super::said;\npub fn g() {}\n"),
    ];
    assert!(circle(&files).is_some(), "the circle through a macro");
    // An ordinary child's `use super::*` takes what the parent defines.
    let files = vec![
        f(
            "cli/mod.rs",
            "mod a;\npub struct Fail;\nfn f() { a::g() }\n",
        ),
        f("cli/a.rs", "use super::*;\npub fn g() {}\n"),
    ];
    assert!(circle(&files).is_some(), "the circle through super::*");
    // A parent of `mod` and `pub use` lines gives a glob nothing.
    let files = vec![
        f("cli/mod.rs", "mod a;\nmod b;\npub use b::B;\n"),
        f("cli/a.rs", "use super::*;\n"),
        f("cli/b.rs", "pub struct B;\nfn f() { crate::cli::a::g() }\n"),
    ];
    assert_eq!(circle(&files), None);
    // `std::{process::Command}` is not the child `process`; `self::{..}` is.
    let parent = |group: &str| {
        f(
            "cli/mod.rs",
            &format!("mod process;\nuse {group}::{{process::Command}};\npub struct Fail;\n"),
        )
    };
    let child = f("cli/process.rs", "use super::Fail;\npub struct Command;\n");
    assert_eq!(circle(&[parent("std"), child.clone()]), None);
    assert!(circle(&[parent("self"), child]).is_some());
}
