//! The command line's flags that the library's messages name.
//!
//! The library's errors are shared with the `unolab` binary, so a message
//! says how to mend a command the way the command line would
//! (`--games must be at least 1`, `allow it explicitly with
//! --allow-oracle`). A front-end that is not the command line (the Python
//! package) names its own options instead: it translates exactly these
//! flags, and leaves every other `--` alone, such as one in a strategy's
//! name or a file's that a message quotes.
//!
//! The test below reads the library's sources and fails when a message
//! names a flag that is not listed here.

/// Every flag of `unolab` that a message of the library can name, the
/// longest first where one begins another (`--b-seat` before `--b-*`).
pub const MESSAGE_FLAGS: &[&str] = &[
    "--allow-oracle",
    "--allow-partial",
    "--b-seat",
    "--b-*",
    "--duplicate",
    "--field",
    "--force",
    "--games",
    "--generations",
    "--holdout-games",
    "--json",
    "--mode",
    "--name",
    "--out",
    "--population",
    "--precision",
    "--resume",
    "--seating",
    "--set",
    "--shard",
    "--start",
    "--threads",
];

/// The flag of [`MESSAGE_FLAGS`] that `text` starts with, if it ends there
/// (`--set` in `--set key=VALUE`, not in `--settings`).
pub fn message_flag(text: &str) -> Option<&'static str> {
    MESSAGE_FLAGS.iter().copied().find(|f| {
        text.starts_with(f)
            && !text[f.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Flags of other programs that a message names (`sbatch --array`).
    const OTHER_PROGRAMS: &[&str] = &["--array"];

    /// The text of every string literal in `src`, outside comments (a
    /// small lexer: plain and raw strings, escapes, char literals).
    fn string_literals(src: &str) -> Vec<String> {
        let b = src.as_bytes();
        let mut out = Vec::new();
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
                // A char literal of a quote or a backslash: '"', '\'', '\\', '\"'.
                b'\'' if b.get(i + 2) == Some(&b'\'') && b[i + 1] != b'\\' => i += 3,
                b'\'' if b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'') => i += 4,
                b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                    && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
                {
                    let mut j = i + 1;
                    while b.get(j) == Some(&b'#') {
                        j += 1;
                    }
                    if b.get(j) != Some(&b'"') {
                        i += 1;
                        continue;
                    }
                    let hashes = j - i - 1;
                    let close: String = std::iter::once('"')
                        .chain(std::iter::repeat_n('#', hashes))
                        .collect();
                    let start = j + 1;
                    let end = src[start..].find(&close).map_or(b.len(), |k| start + k);
                    out.push(src[start..end].to_string());
                    i = end + close.len();
                }
                b'"' => {
                    let start = i + 1;
                    let mut j = start;
                    while j < b.len() && b[j] != b'"' {
                        j += if b[j] == b'\\' { 2 } else { 1 };
                    }
                    out.push(src[start..j.min(b.len())].to_string());
                    i = j + 1;
                }
                _ => i += 1,
            }
        }
        out
    }

    /// Every `--word` that starts a word in `text`.
    fn flags_in(text: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut rest = text;
        let mut before: Option<char> = None;
        while let Some(k) = rest.find("--") {
            let prev = rest[..k]
                .chars()
                .last()
                .or(if k == 0 { before } else { None });
            let after = &rest[k + 2..];
            let len = after
                .find(|c: char| !(c.is_ascii_lowercase() || c == '-' || c == '*'))
                .unwrap_or(after.len());
            let starts_word = prev.is_none_or(|c| !(c.is_alphanumeric() || "-_./\\".contains(c)));
            if starts_word && len > 0 && after.starts_with(|c: char| c.is_ascii_lowercase()) {
                found.push(format!("--{}", after[..len].trim_end_matches('-')));
            }
            before = Some('-');
            rest = &after[len..];
        }
        found
    }

    fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                sources(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    #[test]
    fn the_lexer_finds_strings_and_skips_comments() {
        let src = "// \"--no\"\nlet a = \"x --games 1\"; /* \"--no\" */ let c = '\"'; let r = r#\"--set \"k\"\"#;";
        let lits = string_literals(src);
        assert_eq!(
            lits,
            vec!["x --games 1".to_string(), "--set \"k\"".to_string()]
        );
        assert_eq!(
            flags_in("give --b-* options, a--b, --set k"),
            vec!["--b-*", "--set"]
        );
    }

    #[test]
    fn every_flag_a_library_message_names_is_listed() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let mut named = std::collections::BTreeSet::new();
        for f in &files {
            let rel = f.strip_prefix(&src).unwrap();
            if rel.starts_with("cli") || rel == Path::new("main.rs") || rel == Path::new("flags.rs")
            {
                continue;
            }
            let text = std::fs::read_to_string(f).unwrap();
            for lit in string_literals(&text) {
                for flag in flags_in(&lit) {
                    named.insert((flag, rel.display().to_string()));
                }
            }
        }
        assert!(
            named.iter().any(|(f, _)| f == "--games"),
            "the scan found nothing: {named:?}"
        );
        let unlisted: Vec<_> = named
            .iter()
            .filter(|(f, _)| message_flag(f).is_none() && !OTHER_PROGRAMS.contains(&f.as_str()))
            .collect();
        assert!(
            unlisted.is_empty(),
            "messages name flags missing from MESSAGE_FLAGS: {unlisted:?}"
        );
    }

    #[test]
    fn a_flag_ends_where_its_word_ends() {
        assert_eq!(message_flag("--set k=v"), Some("--set"));
        assert_eq!(message_flag("--settings"), None);
        assert_eq!(message_flag("--seating fixed"), Some("--seating"));
        assert_eq!(message_flag("--b-seat: '7'"), Some("--b-seat"));
        assert_eq!(message_flag("--b-* options"), Some("--b-*"));
        assert_eq!(message_flag("--games"), Some("--games"));
        assert_eq!(message_flag("--bar"), None);
    }
}
