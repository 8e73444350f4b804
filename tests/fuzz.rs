//! The fuzz targets (`fuzz/src/lib.rs`, included here) in the test suite, on
//! stable and without sanitizers: every committed corpus input of every
//! target (`fuzz/corpus/NAME/`), then mutations of them from a fixed seed
//! (bytes flipped, inserted, deleted, repeated, numbers and tokens that break
//! parsers spliced in, inputs crossed), the same on every run. Each input
//! must return without a panic, within a time that rules out a hang, and
//! (on Linux) without a peak of memory that betrays an unbounded
//! allocation. A failure names the target and shows the input.
//!
//! libFuzzer (`cargo fuzz run NAME`, docs/fuzzing.md) searches far more;
//! this keeps what it found, and every target, exercised on every run.

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod targets;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// Mutations per target and run.
const MUTATIONS: usize = 1500;
/// One input taking this long is a hang (a generous bound: the slowest
/// corpus input takes a few milliseconds in a release build).
const HANG: Duration = Duration::from_secs(20);
/// Peak memory (resident) above this during one input is an unbounded
/// allocation (the suite itself stays far below).
const MEMORY_MB: u64 = 1024;

/// Tokens that break parsers: huge and negative numbers, empty and deep
/// structures, the keys of each format.
const TOKENS: &[&str] = &[
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967295",
    "1152921504606846976",
    "-1",
    "0",
    "1e308",
    "-0.0",
    "nan",
    "inf",
    "NaN",
    "\"\"",
    "[]",
    "{}",
    "[[[[[[[[[[[[[[[[",
    "{\"a\":{\"a\":{\"a\":",
    "\n",
    ",",
    "\"",
    "=",
    "[[deck]]\nfaces = [\"wild\"]\ncount = 4000000000\n",
    "count = 4294967295",
    "hand_size = 4294967295",
    "# set hand_size=100\n",
    "# house stacking=cross\n",
    "# load ext:sh,points,random\n",
    "[grid]\n",
    "players = [2,3,4,5,6,7,8,9,10]\n",
    "\"count\":18446744073709551615",
    "\"games\":1152921504606846976",
    "\"index\":0,\"count\":1152921504606846976",
    "\"bins\":[]",
    "\"over\":{\"18446744073709551615\":18446744073709551615}",
    "{\"answer\":",
    "\"draw\"",
    "\"wild-draw4\"",
    "red-7",
    "quit",
    "\r\n",
    "\u{0}",
    "\u{ff}",
];

/// A small deterministic generator (xorshift64*).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One to four mutations of `input`, `other` a second input to cross with.
fn mutate(g: &mut Gen, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + g.below(4) {
        let at = g.below(v.len() + 1);
        match g.below(7) {
            0 if !v.is_empty() => {
                let i = g.below(v.len());
                v[i] ^= 1 << g.below(8);
            }
            1 => v.insert(at, g.next() as u8),
            2 if !v.is_empty() => {
                let start = g.below(v.len());
                let end = (start + 1 + g.below(16)).min(v.len());
                v.drain(start..end);
            }
            3 if !v.is_empty() => {
                let start = g.below(v.len());
                let end = (start + 1 + g.below(64)).min(v.len());
                let part = v[start..end].to_vec();
                for _ in 0..1 + g.below(8) {
                    v.splice(start..start, part.iter().copied());
                }
            }
            4 | 5 => {
                let t = TOKENS[g.below(TOKENS.len())].as_bytes();
                // Replace a number or word when there is one, else insert.
                let end = v[at..]
                    .iter()
                    .position(|b| !b.is_ascii_alphanumeric() && *b != b'-' && *b != b'.')
                    .map_or(v.len(), |p| at + p);
                v.splice(at..end.max(at), t.iter().copied());
            }
            _ => {
                // Cross: a piece of the other input.
                if !other.is_empty() {
                    let s = g.below(other.len());
                    let e = (s + 1 + g.below(256)).min(other.len());
                    v.splice(at..at, other[s..e].iter().copied());
                }
            }
        }
    }
    v
}

/// The corpus of a target, in file-name order.
fn corpus(name: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

/// Peak resident memory since the last reset, in MiB (Linux only).
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn peak_mb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// The input, shown: as text when it is, else as bytes (cut at 2,000).
fn show(input: &[u8]) -> String {
    let cut = &input[..input.len().min(2000)];
    match std::str::from_utf8(cut) {
        Ok(t) => format!("{t:?}"),
        Err(_) => format!("{cut:?}"),
    }
}

/// Runs `target` on `input` on a thread of its own: a panic or a hang
/// fails with the target's name and the input.
fn check(name: &str, target: fn(&[u8]), input: Vec<u8>, what: &str) {
    let measure = reset_peak();
    let (tx, rx) = mpsc::channel();
    let shown = show(&input);
    let worker = std::thread::Builder::new()
        .name(format!("fuzz-{name}"))
        .spawn(move || {
            let r = std::panic::catch_unwind(|| target(&input));
            let _ = tx.send(r.is_ok());
        })
        .unwrap();
    match rx.recv_timeout(HANG) {
        Ok(true) => {}
        Ok(false) => panic!("fuzz target {name} panicked on {what}: {shown}"),
        Err(_) => panic!(
            "fuzz target {name} did not return within {} s on {what}: {shown}",
            HANG.as_secs()
        ),
    }
    let _ = worker.join();
    if measure {
        if let Some(mb) = peak_mb() {
            assert!(
                mb <= MEMORY_MB,
                "fuzz target {name} reached {mb} MiB on {what}: {shown}"
            );
        }
    }
}

#[test]
fn every_corpus_input_and_mutations_of_them_pass_every_target() {
    for (name, target) in targets::TARGETS {
        let inputs = corpus(name);
        assert!(!inputs.is_empty(), "fuzz/corpus/{name} is empty");
        for (path, input) in &inputs {
            check(name, target, input.clone(), &path.display().to_string());
        }
        let mut g = Gen(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
        for k in 0..MUTATIONS {
            let a = &inputs[g.below(inputs.len())].1;
            let b = &inputs[g.below(inputs.len())].1;
            let m = mutate(&mut g, a, b);
            check(name, target, m, &format!("mutation {k}"));
        }
    }
}

#[test]
fn the_mutator_changes_inputs_and_repeats_itself() {
    let input = b"name = \"x\"\ncount = 4\n".to_vec();
    let run = |seed| {
        let mut g = Gen(seed);
        (0..50)
            .map(|_| mutate(&mut g, &input, b"other"))
            .collect::<Vec<_>>()
    };
    let a = run(7);
    assert_eq!(a, run(7), "the same seed, the same mutations");
    assert!(a.iter().filter(|m| **m != input).count() > 40);
}

/// Structure-aware inputs, as property tests (proptest, a fixed seed, a few
/// hundred cases in all): the committed corpus inputs parsed as the format
/// they are (TOML, JSON lines), with a few of their values replaced by
/// extreme ones or removed, written back and given to their target; and
/// protocol answers and typed lines made from the words each reader knows.
/// Byte mutations rarely get past a parser; these reach the checks behind it.
mod structured {
    use super::{check, corpus, targets};
    use proptest::prelude::*;
    use proptest::sample::{select, Index};
    use proptest::test_runner::{Config, RngSeed};

    fn config(cases: u32) -> Config {
        Config {
            cases,
            rng_seed: RngSeed::Fixed(17),
            failure_persistence: None,
            ..Config::default()
        }
    }

    /// JSON values that break readers: out of range, of the wrong type.
    const EXTREMES: &[&str] = &[
        "0",
        "1",
        "-1",
        "4294967295",
        "4294967296",
        "9223372036854775808",
        "18446744073709551615",
        "1e300",
        "-0.5",
        "\"\"",
        "\"x\"",
        "null",
        "true",
        "[]",
        "{}",
        "[18446744073709551615]",
        "{\"18446744073709551615\": 18446744073709551615}",
    ];

    /// An edit of one leaf (or array, or object) of a document: `None`
    /// removes it.
    type Edit = (Index, Option<&'static str>);

    fn edits() -> impl Strategy<Value = Vec<Edit>> {
        proptest::collection::vec(
            (
                any::<Index>(),
                proptest::option::weighted(0.85, select(EXTREMES)),
            ),
            1..4,
        )
    }

    /// The JSON pointers of every value in `v` (but the root).
    fn pointers(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
        let children: Vec<(String, &serde_json::Value)> = match v {
            serde_json::Value::Object(o) => o
                .iter()
                .map(|(k, c)| (k.replace('~', "~0").replace('/', "~1"), c))
                .collect(),
            serde_json::Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, c)| (i.to_string(), c))
                .collect(),
            _ => Vec::new(),
        };
        for (k, c) in children {
            let p = format!("{at}/{k}");
            out.push(p.clone());
            pointers(c, p, out);
        }
    }

    fn edit_json(v: &mut serde_json::Value, edits: &[Edit]) {
        for (at, to) in edits {
            let mut ps = Vec::new();
            pointers(v, String::new(), &mut ps);
            if ps.is_empty() {
                return;
            }
            let p = &ps[at.index(ps.len())];
            let (parent, key) = p.rsplit_once('/').unwrap();
            let key = key.replace("~1", "/").replace("~0", "~");
            let Some(parent) = v.pointer_mut(parent) else {
                continue;
            };
            match (parent, to) {
                (serde_json::Value::Object(o), None) => {
                    o.remove(&key);
                }
                (serde_json::Value::Array(a), None) => {
                    a.remove(key.parse::<usize>().unwrap());
                }
                (parent, Some(to)) => {
                    let to: serde_json::Value = serde_json::from_str(to).unwrap();
                    match parent {
                        serde_json::Value::Object(o) => {
                            o.insert(key, to);
                        }
                        serde_json::Value::Array(a) => a[key.parse::<usize>().unwrap()] = to,
                        _ => unreachable!(),
                    }
                }
                _ => unreachable!(),
            }
        }
    }

    /// The target named `name`.
    fn target(name: &str) -> fn(&[u8]) {
        targets::TARGETS.iter().find(|(n, _)| *n == name).unwrap().1
    }

    /// Edits of one line of a corpus input of a JSON-lines target.
    fn json_case(name: &str, file: Index, line: Index, e: &[Edit]) {
        // The corpora hold the fuzzers' malformed inputs too: the edits
        // start from the inputs with a line of well-formed JSON, and edit
        // one of those lines.
        let json = |l: &str| serde_json::from_str::<serde_json::Value>(l).ok();
        let inputs: Vec<(std::path::PathBuf, String)> = corpus(name)
            .into_iter()
            .filter_map(|(p, b)| String::from_utf8(b).ok().map(|t| (p, t)))
            .filter(|(_, t)| t.lines().any(|l| json(l).is_some()))
            .collect();
        assert!(
            !inputs.is_empty(),
            "{name}: no well-formed input in the corpus"
        );
        let (path, text) = &inputs[file.index(inputs.len())];
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let good: Vec<usize> = (0..lines.len())
            .filter(|&i| json(&lines[i]).is_some())
            .collect();
        let i = good[line.index(good.len())];
        let mut v = json(&lines[i]).unwrap();
        edit_json(&mut v, e);
        lines[i] = v.to_string();
        let what = format!("{} line {} edited {e:?}", path.display(), i + 1);
        check(name, target(name), lines.join("\n").into_bytes(), &what);
    }

    /// Edits of a corpus input of a TOML target (through JSON: the same
    /// tree; a value TOML cannot hold, such as null, is left out).
    fn toml_case(name: &str, file: Index, e: &[Edit]) {
        // The edits start from the corpus inputs that are well-formed TOML
        // (the corpora hold the fuzzers' malformed inputs too).
        let inputs: Vec<(std::path::PathBuf, String, toml::Value)> = corpus(name)
            .into_iter()
            .filter_map(|(p, b)| {
                let text = String::from_utf8(b).ok()?;
                let t = toml::from_str::<toml::Value>(&text).ok()?;
                Some((p, text, t))
            })
            .collect();
        assert!(
            !inputs.is_empty(),
            "{name}: no well-formed input in the corpus"
        );
        let (path, text, t) = &inputs[file.index(inputs.len())];
        let (text, t) = (text.as_str(), t.clone());
        let mut v = serde_json::to_value(&t).unwrap();
        edit_json(&mut v, e);
        let Ok(t) = serde_json::from_value::<toml::Value>(v) else {
            return;
        };
        let Ok(out) = toml::to_string(&t) else { return };
        // The comment lines of the input (`# set`, `# load`) stay.
        let comments: String = text
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        let what = format!("{} edited {e:?}", path.display());
        check(
            name,
            target(name),
            format!("{comments}{out}").into_bytes(),
            &what,
        );
    }

    proptest! {
        #![proptest_config(config(48))]

        #[test]
        fn shard_and_state_files_with_extreme_values(
            which in 0..3usize, file in any::<Index>(), line in any::<Index>(), e in edits(),
        ) {
            json_case(["run_shard", "experiment_shard", "lockstep_state"][which], file, line, &e);
        }

        #[test]
        fn rule_strategy_and_experiment_files_with_extreme_values(
            which in 0..3usize, file in any::<Index>(), e in edits(),
        ) {
            toml_case(["rules", "strategy", "experiment"][which], file, &e);
        }

        #[test]
        fn protocol_answers_and_typed_lines(
            ruleset in any::<u8>(),
            masks in any::<[u128; 2]>(),
            lines in proptest::collection::vec(
                prop_oneof![
                    select(EXTREMES).prop_map(|v| format!("{{\"answer\": {v}}}")),
                    select(EXTREMES).prop_map(|v| format!("{{\"type\": \"hello\", \"version\": {v}}}")),
                    select(WORDS).prop_map(|w| format!("{{\"answer\": \"{w}\"}}")),
                    select(WORDS).prop_map(str::to_string),
                    "[ -~]{0,12}",
                ],
                1..8,
            ),
        ) {
            let text = lines.join("\n");
            let mut head = vec![ruleset];
            head.extend(masks[0].to_le_bytes());
            let mut protocol = head.clone();
            protocol.extend(text.as_bytes());
            check("protocol", target("protocol"), protocol, &format!("{ruleset} {masks:?} {text:?}"));
            head.extend(masks[1].to_le_bytes());
            head.extend(text.as_bytes());
            check("play_input", target("play_input"), head, &format!("{ruleset} {masks:?} {text:?}"));
        }
    }

    /// Words the protocol and `play` readers know, and near misses.
    const WORDS: &[&str] = &[
        "draw",
        "d",
        "red-7",
        "Red-7",
        "blue-skip",
        "wild",
        "wild-draw4",
        "wild-ohana",
        "red-",
        "-7",
        "0",
        "1",
        "99",
        "18446744073709551616",
        "-1",
        "y",
        "yes",
        "n",
        "no",
        "r",
        "g",
        "b",
        "purple",
        "quit",
        "q",
        "",
        " ",
    ];
}
