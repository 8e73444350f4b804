//! Regression tests of what fuzzing the inputs (docs/fuzzing.md) and the
//! review of their readers found: each
//! input here made unolab panic, allocate without bound, hang, or accept a
//! file whose numbers cannot be; each now gets one clear line on stderr and
//! exit status 2 before any work, or runs as it should.

use crate::common::{self, unolab, TempDir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn ok(o: Output) -> Output {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The one line of a refusal (exit status 2, nothing on stdout).
fn refusal(o: &Output) -> String {
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "expected a refusal: {e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
    assert!(!e.contains("panicked"), "{e}");
    e
}

fn tempdir(tag: &str) -> TempDir {
    common::tempdir_created("bad", tag)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn write_json(p: &Path, v: &Value) {
    std::fs::write(p, serde_json::to_string(v).unwrap()).unwrap();
}

/// The experiment the state and shard tests run: two arms and a baseline.
const EXPERIMENT: &str = "fuzz/seeds/state-experiment.toml";

#[test]
fn a_deck_of_billions_of_cards_is_refused_at_once() {
    // Every copy was listed before the deck size was checked: minutes and
    // 16 GB for a count of 4 billion.
    let d = tempdir("deck");
    let f = d.join("big.toml");
    std::fs::write(
        &f,
        "name = \"big\"\n[[deck]]\nfaces = [\"wild\", \"7\"]\ncount = 4294967295\n",
    )
    .unwrap();
    let e = refusal(&unolab(&["run", "--rules", s(&f), "-g", "10"]));
    assert!(
        e.contains("the deck has 21474836475 cards; at most 128 are supported"),
        "{e}"
    );
}

/// The lines of a run's text report that describe its games.
fn game_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| {
            l.starts_with("turns per round")
                || l.starts_with("rounds per match")
                || l.starts_with("cards drawn")
                || l.starts_with("random ")
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn turn_and_round_limits_of_four_billion_run_with_the_same_results() {
    // The turns and rounds-per-match histograms had a bin per value up to
    // the limit: 32 GiB asked for at max_turns=4294967295, and an abort.
    let args = [
        "run",
        "-m",
        "match",
        "-g",
        "20",
        "--seed",
        "3",
        "--threads",
        "1",
    ];
    let plain = ok(unolab(&args));
    let mut big = args.to_vec();
    big.extend([
        "--set",
        "max_turns=4294967295",
        "--set",
        "max_rounds=4294967295",
    ]);
    let big = ok(unolab(&big));
    // No round of these matches comes near either limit: the same games.
    let lines = game_lines(&plain);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines, game_lines(&big));
}

#[test]
fn too_many_shards_are_refused_before_any_work() {
    // A shard of 2^60 made a merge ask for a list of 2^60 slots.
    let d = tempdir("shards");
    let out = d.join("out");
    let o = unolab(&[
        "run",
        "-g",
        "2305843009213693952",
        "--shard",
        "0/1152921504606846976",
        "-o",
        s(&out),
        "-q",
    ]);
    let e = refusal(&o);
    assert!(
        e.contains("1152921504606846976 shards is too many (at most 1000000)"),
        "{e}"
    );
    assert!(!out.exists(), "no state written");
}

/// Two shards of a small run, in `d`.
fn run_shards(d: &Path) -> [PathBuf; 2] {
    for i in 0..2 {
        ok(unolab(&[
            "run",
            "-g",
            "40",
            "-p",
            "3",
            "-s",
            "points,random",
            "--shard",
            &format!("{i}/2"),
            "-o",
            s(d),
            "-q",
        ]));
    }
    [0, 1].map(|i| d.join(format!("shard-000{i}-of-0002.json")))
}

#[test]
fn hand_edited_run_shards_are_refused_by_merge() {
    let d = tempdir("run-shards");
    let files = run_shards(&d);
    ok(unolab(&["merge", s(&d)]));
    let original = read_json(&files[1]);
    // Each edit, and what the refusal says. Before, the first two panicked
    // (a merge of histograms of different sizes) and the others were merged
    // into results that cannot be (more wins than rounds, a seat missing).
    type Edit = fn(&mut Value);
    let edits: [(&str, Edit, &str); 6] = [
        (
            "turn bins cut",
            |v| v["stats"]["turns"]["bins"] = serde_json::json!([0, 1]),
            "its statistics do not have the shape of its configuration",
        ),
        (
            "another turn limit",
            |v| v["config"]["rule_set"]["settings"]["max_turns"] = 77.into(),
            "its statistics do not have the shape of its configuration",
        ),
        (
            "a seat missing",
            |v| {
                v["stats"]["seats"].as_array_mut().unwrap().pop();
            },
            "its statistics do not have the shape of its configuration",
        ),
        (
            "wins that are not rounds",
            |v| {
                let w = v["stats"]["won"].as_u64().unwrap();
                v["stats"]["won"] = (w + 5).into();
                let r = v["stats"]["rounds"].as_u64().unwrap();
                v["stats"]["rounds"] = (r + 5).into();
            },
            "its statistics do not add up",
        ),
        (
            "a penalty count that overflows",
            |v| {
                v["stats"]["uno_penalties_per_round"]["over"] =
                    serde_json::json!({"18446744073709551615": 18446744073709551615u64})
            },
            "its statistics do not add up",
        ),
        (
            "a shard count of 2^60",
            |v| v["shard"]["count"] = 1152921504606846976u64.into(),
            "1152921504606846976 shards is too many",
        ),
    ];
    for (what, edit, says) in edits {
        let mut v = original.clone();
        edit(&mut v);
        write_json(&files[1], &v);
        let e = refusal(&unolab(&["merge", s(&d), "--allow-partial"]));
        assert!(
            e.contains(&format!("{}: {says}", files[1].display())),
            "{what}: {e}"
        );
    }
}

/// An experiment's shard states whose metric sums were edited are refused
/// by merge, as a run's are: a denominator of 5 gave 194 turns a round
/// where the games had 49, and a negative sum of squares an interval of no
/// width (the shards audit, 2026-12-07).
#[test]
fn hand_edited_experiment_shards_are_refused_by_merge() {
    let d = tempdir("exp-shards");
    let f = d.join("e.toml");
    std::fs::write(
        &f,
        "name = \"e\"\n[base]\nplayers = 3\ngames = 40\n[[arm]]\nlabel = \"a\"\n[[arm]]\nlabel = \"b\"\nhouse = [\"stacking=same\"]\n",
    )
    .unwrap();
    let sh = d.join("sh");
    for i in 0..2 {
        ok(unolab(&[
            "experiment",
            "run",
            s(&f),
            "--shard",
            &format!("{i}/2"),
            "--out",
            s(&sh),
            "-q",
        ]));
    }
    ok(unolab(&["merge", s(&sh)]));
    let file = sh.join("shard-0001-of-0002.json");
    let original = read_json(&file);
    type Edit = fn(&mut Value);
    let edits: [(&str, Edit); 3] = [
        ("a denominator", |v| {
            v["state"]["arms"][1]["metrics"][0]["sums"]["x"] = 5.into()
        }),
        ("a negative sum of squares", |v| {
            v["state"]["arms"][1]["metrics"][0]["sums"]["yy"] = (-5).into()
        }),
        ("a sum past its squares", |v| {
            let y = &mut v["state"]["arms"][0]["metrics"][1]["sums"]["y"];
            *y = (y.as_i64().unwrap() * 1000).into();
        }),
    ];
    for (what, edit) in edits {
        let mut v = original.clone();
        edit(&mut v);
        write_json(&file, &v);
        let e = refusal(&unolab(&["merge", s(&sh)]));
        assert!(
            e.contains(&format!("{}: ", file.display()))
                && e.contains("are not those of its games"),
            "{what}: {e}"
        );
    }
}

#[test]
fn a_shard_of_2_to_the_63_games_lists_its_work_a_part_at_a_time() {
    // The games still to play were listed whole before the first one was
    // played: 2^63 games in chunks made a list no memory holds.
    let d = tempdir("long-shard");
    let [f, _] = run_shards(&d);
    let mut v = read_json(&f);
    let n = 1u64 << 63;
    v["config"]["games"] = n.into();
    v["end_game"] = (n / 2).into();
    v["partial"] = true.into();
    let state = unolab::sim::shard::ShardState::from_json(&v.to_string()).unwrap();
    let todo = state.todo(1000, 5);
    let done = state.progress.games_done;
    assert_eq!(
        todo,
        (0..5)
            .map(|i| done + i * 1000..done + (i + 1) * 1000)
            .collect::<Vec<_>>()
    );
    // All of it, in chunks of 2^61: two, the last one ending the shard.
    let all = state.todo(1 << 61, usize::MAX);
    assert_eq!(all, vec![done..done + (1 << 61), done + (1 << 61)..n / 2]);
}

#[test]
fn a_grid_of_millions_of_arms_is_refused() {
    // Four lists of 60 made 12,960,000 arms, built one by one until memory
    // ran out.
    let d = tempdir("grid");
    let f = d.join("grid.toml");
    let list = |v: &dyn Fn(usize) -> String| (0..60).map(v).collect::<Vec<_>>().join(",");
    std::fs::write(
        &f,
        format!(
            "name = \"g\"\n[base]\nstrategies = \"random\"\ngames = 10\n[grid]\nset = [{}]\nhouse = [{}]\nplayers = [{}]\nstrategies = [{}]\n",
            list(&|i| format!("\"max_turns={}\"", 200 + i)),
            list(&|_| "\"\"".into()),
            list(&|i| (2 + i % 9).to_string()),
            list(&|_| "\"random\"".into()),
        ),
    )
    .unwrap();
    let e = refusal(&unolab(&[
        "experiment",
        "run",
        s(&f),
        "-o",
        s(&d.join("out")),
    ]));
    assert!(
        e.contains(
            "the [grid] makes 12960000 arms (the product of its lists' lengths); at most 1000"
        ),
        "{e}"
    );
    // The limit itself is allowed, one more arm is not.
    let sets = |n: usize| {
        let l = (0..n).map(|i| format!("\"max_turns={}\"", 200 + i));
        format!(
            "name = \"g\"\n[base]\nstrategies = \"random\"\ngames = 10\n[grid]\nset = [{}]\n",
            l.collect::<Vec<_>>().join(",")
        )
    };
    std::fs::write(&f, sets(1001)).unwrap();
    let e = refusal(&unolab(&["experiment", "check", s(&f)]));
    assert!(e.contains("the [grid] makes 1001 arms"), "{e}");
    std::fs::write(&f, sets(1000)).unwrap();
    ok(unolab(&["experiment", "check", s(&f)]));
}

/// Edits of an arm's statistics in a saved state or an experiment shard,
/// with what the refusal says. Before, the first panicked and the others
/// were taken.
type StatsEdit = fn(&mut Value);
const STATS_EDITS: [(&str, StatsEdit, &str); 3] = [
    (
        "turn bins cut",
        |st| st["turns"]["bins"] = serde_json::json!([0, 1]),
        "",
    ),
    (
        "a seat missing",
        |st| {
            st["seats"].as_array_mut().unwrap().pop();
        },
        "",
    ),
    (
        "wins that are not rounds",
        |st| {
            let w = st["won"].as_u64().unwrap();
            st["won"] = (w + 5).into();
            let r = st["rounds"].as_u64().unwrap();
            st["rounds"] = (r + 5).into();
        },
        "arm 'stacking': its statistics do not add up",
    ),
];

#[test]
fn an_edited_saved_state_is_refused_on_resume() {
    let d = tempdir("resume");
    let out = d.join("out");
    ok(unolab(&[
        "experiment",
        "run",
        EXPERIMENT,
        "--games",
        "20",
        "-o",
        s(&out),
        "-q",
    ]));
    let path = out.join("state.json");
    let original = read_json(&path);
    ok(unolab(&[
        "experiment",
        "run",
        EXPERIMENT,
        "--games",
        "20",
        "--resume",
        "-o",
        s(&out),
        "-q",
    ]));
    for (what, edit, says) in STATS_EDITS {
        let mut v = original.clone();
        edit(&mut v["arms"][1]["stats"]);
        write_json(&path, &v);
        let e = refusal(&unolab(&[
            "experiment",
            "run",
            EXPERIMENT,
            "--games",
            "20",
            "--resume",
            "-o",
            s(&out),
            "-q",
        ]));
        assert!(e.contains(&path.display().to_string()), "{what}: {e}");
        assert!(e.contains(says), "{what}: {e}");
    }
}

#[test]
fn an_edited_experiment_shard_is_refused_by_merge() {
    let d = tempdir("exp-shard-edited");
    for i in 0..2 {
        ok(unolab(&[
            "experiment",
            "run",
            EXPERIMENT,
            "--games",
            "20",
            "--shard",
            &format!("{i}/2"),
            "-o",
            s(&d),
            "-q",
        ]));
    }
    let f = d.join("shard-0001-of-0002.json");
    let original = read_json(&f);
    for (what, edit, says) in STATS_EDITS {
        let mut v = original.clone();
        edit(&mut v["state"]["arms"][1]["stats"]);
        write_json(&f, &v);
        let e = refusal(&unolab(&["merge", s(&d)]));
        assert!(e.contains(&f.display().to_string()), "{what}: {e}");
        assert!(e.contains(says), "{what}: {e}");
    }
}

#[test]
fn train_numbers_out_of_range_are_named_and_refused_not_clamped() {
    // `--batch 0` was refused as "not a valid game count", `--epochs` above
    // 10,000 and `--search-sims` above 1,000,000 were silently clamped, and a
    // negative `--lr` was read as an unknown flag.
    for (args, says) in [
        (&["--batch", "0"][..], "not a valid batch size"),
        (&["--batch", "2000000"], "valid: 1 to 1048576"),
        (
            &["--epochs", "20000"],
            "not a valid epoch count (valid: 1 to 10000)",
        ),
        (
            &["--search-sims", "2000000"],
            "not a valid simulation count",
        ),
    ] {
        let mut all = vec!["train", "--out", "unused-train-out"];
        all.extend_from_slice(args);
        let e = refusal(&unolab(&all));
        assert!(e.contains(says), "{args:?}: {e}");
    }
    let e = refusal(&unolab(&[
        "train",
        "--out",
        "unused-train-out",
        "--lr",
        "-1",
    ]));
    assert!(!e.contains("unexpected argument"), "{e}");
    assert!(!Path::new("unused-train-out").exists());
}

#[test]
fn what_the_second_probe_of_the_commands_found_is_refused_before_any_work() {
    let dir = tempdir("probe2");
    // A trace of a match with no end ran 1,000 rounds to the cap; run and
    // play refused it.
    let e = refusal(&unolab(&["trace", "--set", "target=0"]));
    assert!(e.contains("a match needs an end"), "{e}");
    // One game per arm: every interval was NaN.
    let e = refusal(&unolab(&[
        "compare",
        "-g",
        "1",
        "-s",
        "points,color",
        "-p",
        "2",
        "--b-house",
        "seven_o",
    ]));
    assert!(e.contains("1 game per arm gives no interval"), "{e}");
    // Tuning against a player that sees every hand: tournaments refuse it.
    let e = refusal(&unolab(&[
        "tune",
        "--field",
        "oracle-400",
        "--generations",
        "1",
        "--population",
        "4",
        "-g",
        "10",
    ]));
    assert!(
        e.contains("sees other players' hands") && e.contains("--allow-oracle"),
        "{e}"
    );
    // A ladder whose ceiling is its reference: every share was 0 / 0.
    let lad = dir.join("l.toml");
    std::fs::write(
        &lad,
        "name = \"l\"\nrules = \"classic\"\nplayers = [2]\ngames = 20\nseed = 1\n\
         field = [\"random\", \"points\"]\nreference = \"points\"\nceiling = \"points\"\n",
    )
    .unwrap();
    let out = dir.join("lout");
    let e = refusal(&unolab(&["ladder", s(&lad), "--out", s(&out), "-q"]));
    assert!(e.contains("is the reference"), "{e}");
    assert!(!out.exists());
    // A population below the least the search takes said "a positive
    // integer", then refused 1 ("at least 4").
    let e = refusal(&unolab(&["tune", "--population", "1"]));
    assert!(e.contains("(valid: 4 to 1048576)"), "{e}");
    // Two different strategies of one name in a tournament's field said
    // "strategy 'tuned' is given twice", as if the user had typed one twice
    // (a preset tuned into tuned.toml takes the name of the built-in).
    std::fs::create_dir_all(&dir).unwrap();
    let twin = dir.join("tuned.toml");
    std::fs::write(
        &twin,
        "name = \"tuned\"\nbase = \"heuristic\"\n[params]\ncolor_weight = 3.0\n",
    )
    .unwrap();
    let field = format!("{},tuned,color", twin.display());
    let tournament =
        |field: &str| refusal(&unolab(&["tournament", "-p", "4", "-g", "30", "-s", field]));
    let e = tournament(&field);
    assert!(
        e.contains("two different strategies are named 'tuned'; rename one"),
        "{e}"
    );
    let e = tournament("tuned,tuned,color");
    assert!(e.contains("strategy 'tuned' is given twice"), "{e}");
    // Games beyond the range below the held-out ones said "too many games
    // per run", naming neither the options nor the limit.
    let e = refusal(&unolab(&[
        "tune",
        "--generations",
        "2",
        "--games",
        "2305843009213693952",
    ]));
    assert!(
        e.contains("--generations x --games is 4611686018427387904 games; at most 2^62 - 1"),
        "{e}"
    );
    let e = refusal(&unolab(&["tune", "--holdout-games", "4611686018427387904"]));
    assert!(
        e.contains("--holdout-games 4611686018427387904 is too many; at most 2^62 - 1"),
        "{e}"
    );
    // games = 0 in a ladder file was "--games must be at least 1".
    let lad0 = dir.join("l0.toml");
    std::fs::write(
        &lad0,
        std::fs::read_to_string(&lad)
            .unwrap()
            .replace("games = 20", "games = 0"),
    )
    .unwrap();
    let e = refusal(&unolab(&["ladder", s(&lad0), "--out", s(&out), "-q"]));
    assert!(e.contains("games = 0") && !e.contains("--games"), "{e}");
    // A malformed ladder file was two lines without a position ("invalid
    // array\nexpected `]`"); the other file readers say the line.
    let bad = dir.join("lbad.toml");
    std::fs::write(&bad, "name = \"x\"\nplayers = [2\n").unwrap();
    let e = refusal(&unolab(&["ladder", s(&bad), "--out", s(&out), "-q"]));
    assert!(
        e.contains("lbad.toml:") && e.contains("invalid array") && e.contains("expected `]`"),
        "{e}"
    );
    assert!(!out.exists());
    // More shards than games: shard 0/200 of 100 games said "games 0..0
    // already finished (0 games)".
    let e = refusal(&unolab(&[
        "run",
        "--shard",
        "0/200",
        "-g",
        "100",
        "-o",
        s(&out),
    ]));
    assert!(e.contains("give at most 100 shards"), "{e}");
    // A clap error names the subcommand's help, which lists its options.
    let e = refusal(&unolab(&["run", "--bogus"]));
    assert!(e.ends_with("(see unolab run --help)\n"), "{e}");
    // A setting's value out of its type's range, in words, not Rust's.
    let e = refusal(&unolab(&["run", "--set", "target=-3"]));
    assert!(
        e.contains("expected a whole number from 0 to 4294967295") && !e.contains("u32"),
        "{e}"
    );
    // Out of the setting's own range, which is narrower than its type's:
    // the setting's range, as for a value of the type's range (hand_size=-1
    // said "from 0 to 4294967295", and 0 is refused too).
    for (item, why) in [
        ("hand_size=-1", "hand_size = -1 is not valid (at least 1)"),
        ("hand_size=0", "hand_size = 0 is not valid (at least 1)"),
        (
            "uno_penalty=-3",
            "uno_penalty = -3 is not valid (valid: 0 to 100)",
        ),
        ("max_rounds=-1", "max_rounds = -1 is not valid (at least 1)"),
    ] {
        let e = refusal(&unolab(&["run", "--set", item]));
        assert_eq!(e, format!("error: {why}\n"), "{item}");
    }
    let file = out.with_extension("rules.toml");
    std::fs::write(&file, "name = \"x\"\n[settings]\nhand_size = -1\n").unwrap();
    let e = refusal(&unolab(&["run", "--rules", s(&file)]));
    assert!(
        e.ends_with("hand_size = -1 is not valid (at least 1)\n"),
        "{e}"
    );
    std::fs::write(&file, "name = \"x\"\n[settings]\nhand_size = 1.5\n").unwrap();
    let e = refusal(&unolab(&["run", "--rules", s(&file)]));
    assert!(
        e.contains("expected a whole number from 1 to 4294967295") && !e.contains("u32"),
        "{e}"
    );
    // The key found in any TOML form (inline table, dotted, quoted).
    for (body, why) in [
        (
            "settings = { hand_size = -1 }",
            "hand_size = -1 is not valid (at least 1)",
        ),
        (
            "settings.hand_size = 1.5",
            "expected a whole number from 1 to 4294967295",
        ),
        (
            "[settings]\n'uno_penalty' = -4",
            "uno_penalty = -4 is not valid (valid: 0 to 100)",
        ),
    ] {
        std::fs::write(&file, format!("name = \"x\"\n{body}\n")).unwrap();
        let e = refusal(&unolab(&["run", "--rules", s(&file)]));
        assert!(e.contains(why), "{body}: {e}");
    }
    // Another problem of the file is not replaced by a setting's range.
    std::fs::write(
        &file,
        "name = \"x\"\n[settings]\nhand_size = 0\nstackng = \"x\"\n",
    )
    .unwrap();
    let e = refusal(&unolab(&["run", "--rules", s(&file)]));
    assert!(e.contains("unknown field `stackng`"), "{e}");
    // Past the type's range upwards, and of the wrong type: the setting's
    // range, both ends ("at least 1" contradicted 5000000000).
    for (item, why) in [
        (
            "hand_size=5000000000",
            "hand_size = 5000000000 is not valid (valid: 1 to 4294967295)",
        ),
        (
            "uno_penalty=1.5",
            "invalid value '1.5' for setting 'uno_penalty': expected a whole number from 0 to 100, not the number 1.5",
        ),
    ] {
        let e = refusal(&unolab(&["run", "--set", item]));
        assert_eq!(e, format!("error: {why}\n"), "{item}");
    }
    // An integer past 64 bits was read as a string ("invalid type: string").
    let e = refusal(&unolab(&["run", "--set", "target=1180591620717411303424"]));
    assert_eq!(
        e,
        "error: invalid value '1180591620717411303424' for setting 'target': the number is too large\n"
    );
    // An arm label with a '|' broke the rows of report.md.
    let f = dir.join("bar.toml");
    std::fs::write(
        &f,
        "name = \"bar\"\n[base]\nplayers = 2\nstrategies = \"points,color\"\ngames = 20\n\
         [[arm]]\nlabel = \"a|b\"\n",
    )
    .unwrap();
    let e = refusal(&unolab(&["experiment", "check", s(&f)]));
    assert!(e.contains("bar.toml:7:") && e.contains("'|'"), "{e}");
    // Resuming a finished run with a lower limit wrote a manifest with more
    // games than its limit.
    let f = dir.join("res.toml");
    std::fs::write(
        &f,
        "name = \"res\"\n[base]\nplayers = 2\nstrategies = \"points,color\"\ngames = 40\n\
         [[arm]]\nlabel = \"a\"\n",
    )
    .unwrap();
    let out = dir.join("rout");
    ok(unolab(&["experiment", "run", s(&f), "-q", "-o", s(&out)]));
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    let e = refusal(&unolab(&[
        "experiment",
        "run",
        s(&f),
        "-q",
        "-o",
        s(&out),
        "--resume",
        "-g",
        "20",
    ]));
    assert!(e.contains("more than the limit of 20"), "{e}");
    assert_eq!(
        std::fs::read_to_string(out.join("manifest.json")).unwrap(),
        manifest
    );
}

#[test]
fn an_experiment_file_names_the_key_and_line_of_what_is_wrong_in_one_line() {
    let dir = tempdir("keys");
    let check = |name: &str, text: &str| {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        refusal(&unolab(&["experiment", "check", s(&f)]))
    };
    // An empty value of a grid's line-ups gave two lines (its empty label,
    // then the empty strategy).
    let e = check(
        "empty.toml",
        "name = \"g\"\n[base]\nplayers = 2\ngames = 10\nstrategies = \"color\"\n\
         [grid]\nstrategies = [\"\", \"points\"]\n",
    );
    assert!(
        e.contains("empty.toml:7:") && e.contains("unknown strategy ''"),
        "{e}"
    );
    // A value of the wrong type did not name its key, and said "i64".
    let e = check(
        "type.toml",
        "name = \"g\"\n[base]\nplayers = \"four\"\ngames = 10\nstrategies = \"color\"\n",
    );
    assert!(
        e.contains("type.toml:3: players: ") && e.contains("expected a whole number"),
        "{e}"
    );
    assert!(!e.contains("i64"), "{e}");
    // An arm's hand size that does not fit the deck was reported at the
    // base's line, not at the arm's own setting.
    let e = check(
        "hand.toml",
        "name = \"g\"\n[base]\nplayers = 2\ngames = 10\nstrategies = \"color\"\n\n\
         [[arm]]\nlabel = \"x\"\nset = [\"hand_size=200\"]\n",
    );
    assert!(
        e.contains("hand.toml:9: arm 'x': ") && e.contains("hand size"),
        "{e}"
    );
    // An empty `set` of a grid is the base's settings, labelled "none".
    let f = dir.join("none.toml");
    std::fs::write(
        &f,
        "name = \"g\"\n[base]\nplayers = 2\ngames = 10\nstrategies = \"color,points\"\n\
         [grid]\nset = [\"\", \"stacking=cross\"]\n",
    )
    .unwrap();
    let o = ok(unolab(&["experiment", "check", s(&f)]));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("none"), "{text}");
}

#[test]
fn counts_take_scientific_notation_when_it_is_a_whole_number() {
    // `-g 1e6` was refused: counts are written that way in papers and in
    // Python. It means exactly 1,000,000; a count that is not a whole
    // number, or does not fit, is still refused with the forms it takes.
    for (given, games) in [
        ("2e2", 200),
        ("2.5E2", 250),
        ("1_0e1", 100),
        ("3e+1", 30),
        ("10e-1", 1),
        ("2_500e-2", 25),
    ] {
        let o = unolab(&[
            "run",
            "-s",
            "random,first",
            "-p",
            "2",
            "-g",
            given,
            "--json",
            "--quiet",
        ]);
        assert!(
            o.status.success(),
            "{given}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["games"], games, "{given}");
    }
    for given in [
        "1.5",
        "2.55e1",
        "1e-3",
        "e6",
        "1e",
        "0e5",
        "1.e",
        "-1e3",
        "15e-1",
        "1_000_",
        "1__0",
        "_10",
        "1_e3",
        "5e-99999999999999999999",
    ] {
        let e = refusal(&unolab(&["run", "-s", "random", "-g", given]));
        assert!(
            e.contains(&format!(
                "'{given}' is not a valid game count (valid: a positive integer, such as 1000000, 1_000_000 or 1e6)"
            )),
            "{given}: {e}"
        );
    }
    // Past 64 bits: too large, not malformed.
    for given in ["1e20", "2e19", "18446744073709551616"] {
        let e = refusal(&unolab(&["run", "-s", "random", "-g", given]));
        assert!(
            e.contains(&format!(
                "'{given}' is too large a game count (at most 18446744073709551615)"
            )),
            "{given}: {e}"
        );
    }
    // A bounded count takes it too, and keeps its bound.
    let e = refusal(&unolab(&[
        "train",
        "--out",
        "unused-train-out",
        "--epochs",
        "2e4",
    ]));
    assert!(
        e.contains("'2e4' is not a valid epoch count (valid: 1 to 10000)"),
        "{e}"
    );
    assert!(!Path::new("unused-train-out").exists());
}

/// What the third probe of the command line (2026-12-04) found: each was
/// accepted, and is now refused in one line before any work.
#[test]
fn what_the_third_probe_of_the_commands_found_is_refused_before_any_work() {
    let dir = tempdir("probe3");
    // B's options that leave it as A played an A/A comparison.
    for b in [
        ["--b-set", "hand_size=7"],
        ["--b-house", ""],
        ["--b-house", "seven_o=false"],
        ["--b-strategies", "random,random"],
    ] {
        let e = refusal(&unolab(&["compare", "-g", "100", "-q", b[0], b[1]]));
        assert_eq!(
            e,
            "error: the two configurations are the same once resolved (B's options change nothing; under the default seating the order of a line-up does not matter, and in round mode target, rounds, max_rounds and quick, which end a match, do not either: --mode match): change the rules, a setting, a house rule or a strategy with the --b-* options\n",
            "{b:?}"
        );
    }
    // A real change still runs.
    ok(unolab(&[
        "compare",
        "-g",
        "100",
        "-q",
        "--b-set",
        "hand_size=6",
    ]));
    // A line-up typed in another order plays A's games under the default
    // seating (an audit found it run as an A/A comparison of rows of 0);
    // under a seating that keeps the order it is a change.
    let reorder = [
        "compare",
        "-p",
        "2",
        "-s",
        "points,color",
        "--b-strategies",
        "color,points",
        "-g",
        "100",
        "-q",
    ];
    let e = refusal(&unolab(&reorder));
    assert!(e.contains("the same once resolved"), "{e}");
    let e = refusal(&unolab(&[&reorder[..], &["--seating", "mixed"]].concat()));
    assert!(e.contains("the same once resolved"), "{e}");
    for seating in ["rotate", "fixed"] {
        ok(unolab(&[&reorder[..], &["--seating", seating]].concat()));
    }
    // An option given twice: the last won silently (args_override_self).
    for cmd in [
        &["run", "-g", "10", "-g", "20"][..],
        &[
            "compare",
            "--seed",
            "1",
            "--seed",
            "2",
            "--b-house",
            "seven_o",
        ][..],
        &["tournament", "-p", "2", "-p", "3"][..],
        &["trace", "--seed", "1", "--seed", "2"][..],
    ] {
        let e = refusal(&unolab(cmd));
        assert!(e.contains("cannot be used multiple times"), "{cmd:?}: {e}");
    }
    // A setting given twice: the later won silently, and a house rule won
    // over a --set of the same key whatever the order.
    let e = refusal(&unolab(&[
        "run",
        "-g",
        "10",
        "-q",
        "--house",
        "stacking=same,stacking=cross",
    ]));
    assert_eq!(
        e,
        "error: 'stacking' is given twice (--house stacking=same, --house stacking=cross): give each setting once\n"
    );
    let e = refusal(&unolab(&[
        "trace",
        "--set",
        "jump_in=false",
        "--house",
        "jump_in",
    ]));
    assert_eq!(
        e,
        "error: 'jump_in' is given twice (--set jump_in=false, --house jump_in): give each setting once\n"
    );
    let e = refusal(&unolab(&[
        "compare",
        "-g",
        "10",
        "-q",
        "--b-set",
        "hand_size=5",
        "--b-set",
        "hand_size=6",
    ]));
    assert!(
        e.contains("'hand_size' is given twice (--b-set hand_size=5, --b-set hand_size=6)"),
        "{e}"
    );
    // B's options add to A's and win over them: not a repetition.
    ok(unolab(&[
        "compare",
        "-g",
        "10",
        "-q",
        "--house",
        "stacking=same",
        "--b-house",
        "stacking=cross",
    ]));

    // A deck too small for the table said "hand size at most 0".
    let tiny = dir.join("tiny.toml");
    std::fs::write(
        &tiny,
        "name = \"tiny\"\n[[deck]]\nfaces = [\"0\"]\ncount = 1\n",
    )
    .unwrap();
    let e = refusal(&unolab(&[
        "run",
        "-q",
        "-g",
        "10",
        "-p",
        "4",
        "--rules",
        s(&tiny),
    ]));
    assert!(
        e.ends_with("but the 'tiny' deck has 4 (too few cards for 4 players: at most 3 players with one card each)\n"),
        "{e}"
    );

    // A file path ending with '/' wrote a file of that name.
    let folder = dir.join("somedir");
    let e = refusal(&unolab(&["trace", "--out", &format!("{}/", s(&folder))]));
    assert!(
        e.ends_with("somedir/ ends with a separator: it names a folder, not a file\n"),
        "{e}"
    );
    assert!(!folder.exists());
    // So did one ending with '/.' (a path's file name skips the '.').
    let e = refusal(&unolab(&["trace", "--out", &format!("{}/.", s(&folder))]));
    assert!(
        e.ends_with("somedir/. ends with '/.': it names a folder, not a file\n"),
        "{e}"
    );
    assert!(!folder.exists());

    // --force replaced a symbolic link (or a FIFO, or a device) by a regular
    // file instead of writing through it.
    #[cfg(unix)]
    {
        let real = dir.join("real.txt");
        std::fs::write(&real, "target").unwrap();
        let link = dir.join("link.jsonl");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let e = refusal(&unolab(&["trace", "--out", s(&link), "--force"]));
        assert!(
            e.contains("link.jsonl is a symbolic link: the file would replace the link"),
            "{e}"
        );
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "target");
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|st| st.success()) {
            let e = refusal(&unolab(&["trace", "--out", s(&fifo), "--force"]));
            assert!(
                e.contains("fifo is not a regular file (a FIFO, a socket or a device)"),
                "{e}"
            );
        }
        let e = refusal(&unolab(&["trace", "--out", "/dev/null", "--force"]));
        assert!(e.contains("/dev/null is not a regular file"), "{e}");
    }

    // A shard beside another run's shard of the same split was accepted,
    // and the two were found not to merge only at the end.
    let shards = dir.join("shards");
    ok(unolab(&[
        "run",
        "-g",
        "40",
        "--seed",
        "3",
        "--shard",
        "1/2",
        "-o",
        s(&shards),
        "-q",
    ]));
    let e = refusal(&unolab(&[
        "run",
        "-g",
        "10",
        "--shard",
        "0/2",
        "-o",
        s(&shards),
        "-q",
    ]));
    assert!(
        e.contains("holds shard-0001-of-0002.json, a shard of another run (")
            && e.contains("seed")
            && e.contains("the shards would not merge; use another --out, or --force"),
        "{e}"
    );
    assert!(!shards.join("shard-0000-of-0002.json").exists());
    ok(unolab(&[
        "run",
        "-g",
        "40",
        "--seed",
        "3",
        "--shard",
        "0/2",
        "-o",
        s(&shards),
        "-q",
    ]));

    // A first shard in a folder of another command's results was written
    // among them; the merge there would then be refused without --force.
    let ran = dir.join("ran");
    ok(unolab(&["run", "-g", "10", "-o", s(&ran), "-q"]));
    let shard = ["run", "-g", "40", "--seed", "3", "--shard", "0/3", "-o"];
    let in_ran = [&shard[..], &[s(&ran), "-q"]].concat();
    let e = refusal(&unolab(&in_ran));
    assert!(
        e.contains("already holds the finished results of a run (manifest.json")
            && e.contains("a shard's state goes into a folder of its own; use another --out, or --force to write it there anyway"),
        "{e}"
    );
    assert!(!ran.join("shard-0000-of-0003.json").exists());
    ok(unolab(&[&in_ran[..], &["--force"]].concat()));
    assert!(ran.join("shard-0000-of-0003.json").is_file());
    assert!(ran.join("summary.csv").is_file());
    // Not so a merge of the shards beside them: the next shard of the same
    // run joins them.
    let three = dir.join("three");
    let in_three = [&shard[..], &[s(&three), "-q"]].concat();
    ok(unolab(&in_three));
    let merge = ["merge", s(&three), "--allow-partial", "-o", s(&three)];
    let o = unolab(&merge);
    assert!(
        three.join("summary.csv").is_file(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut next = in_three.clone();
    next[6] = "1/3";
    ok(unolab(&next));
    assert!(three.join("shard-0001-of-0003.json").is_file());

    // A tournament too short to seat every strategy ranked those that never
    // played.
    let e = refusal(&unolab(&[
        "tournament",
        "-s",
        "color,points,random,first,cautious",
        "-p",
        "2",
        "-g",
        "3",
        "-q",
    ]));
    assert_eq!(
        e,
        "error: 3 games at 2 players seat only some of the 5 strategies: give at least 4 games, so that each plays (a multiple of 5 gives each the same number of seats)\n"
    );
    ok(unolab(&[
        "tournament",
        "-s",
        "color,points,random,first,cautious",
        "-p",
        "2",
        "-g",
        "4",
        "-q",
    ]));
}

/// A difference without variance (no blocked round in either arm) has the
/// interval put together from each arm's own: it was shown as [-100%,
/// +100%] for a rate, then with none at all, where 2,000 rounds without a
/// blocked one do bound how often the arms block.
#[test]
fn a_difference_without_variance_has_the_interval_of_its_arms() {
    let o = ok(unolab(&[
        "compare",
        "--strategies",
        "points,random",
        "--b-seat",
        "1=cautious",
        "-g",
        "2000",
        "--json",
        "-q",
    ]));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["comparisons"].as_array().unwrap();
    let blocked = rows.iter().find(|r| r["metric"] == "blocked_rate").unwrap();
    assert_eq!(blocked["difference"], 0.0, "{blocked}");
    assert_eq!(blocked["untested"], "no variance", "{blocked}");
    // Each arm's own interval is [0, u]: the difference's, arm B minus A,
    // is [-u_A, +u_B] (Newcombe's square-and-add), well inside [-1, 1].
    let arm_hi = |label: &str| {
        v["arms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["arm"] == label && a["metric"] == "blocked_rate")
            .unwrap()["ci95"][1]
            .as_f64()
            .unwrap()
    };
    let (a, b) = (arm_hi("A"), arm_hi("B"));
    let (lo, hi) = (
        blocked["ci95"][0].as_f64().unwrap(),
        blocked["ci95"][1].as_f64().unwrap(),
    );
    assert!(a > 0.0 && a < 0.01, "{a}");
    assert!(
        (lo + a).abs() < 1e-12 && (hi - b).abs() < 1e-12,
        "{blocked}"
    );
}

/// What the probe of `train`, `tune` and `ladder` found (2026-12-04): each
/// was accepted and did harm or nothing; each is refused in one line before
/// any work now. The `train` checks run in a build without the feature too.
#[test]
fn what_the_probe_of_train_tune_and_ladder_found_is_refused_before_any_work() {
    let dir = tempdir("probe-train");
    // A name with a quote or a backslash wrote a preset that did not load.
    let e = refusal(&unolab(&["train", "--name", "a\"b", "--out", s(&dir)]));
    assert!(
        e.contains("invalid name 'a\"b' (valid: letters, digits, '-', '_' and '.'"),
        "{e}"
    );
    let e = refusal(&unolab(&[
        "tune",
        "--name",
        "b\\z",
        "--out",
        s(&dir.join("t.toml")),
    ]));
    assert!(e.contains("invalid name 'b\\z'"), "{e}");
    // A tuned preset named as its start or a field strategy (by --name, or
    // by --out's file name): its figures would read as that strategy's, and
    // a line-up could not hold both (the CLI audit of 2026-12-07).
    let e = refusal(&unolab(&[
        "tune",
        "--name",
        "color",
        "--out",
        s(&dir.join("c.toml")),
    ]));
    assert!(
        e.contains("the tuned preset would be named 'color' (by --name, or by --out's file name), as a strategy of --start or --field"),
        "{e}"
    );
    let e = refusal(&unolab(&["tune", "--out", s(&dir.join("points.toml"))]));
    assert!(e.contains("would be named 'points'"), "{e}");
    assert!(!dir.join("c.toml").exists() && !dir.join("points.toml").exists());
    // A built-in's name is allowed (the shipped strategies/tuned.toml is
    // made so), with a note.
    let o = unolab(&[
        "tune",
        "--generations",
        "1",
        "--population",
        "4",
        "--games",
        "20",
        "--holdout-games",
        "20",
        "--threads",
        "1",
        "-q",
        "--out",
        s(&dir.join("tuned.toml")),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains(
        "note: the tuned preset is named 'tuned', as a built-in strategy: a line-up cannot hold both"
    ));
    // Options of the expert iterations did nothing without --iterations.
    let e = refusal(&unolab(&[
        "train",
        "--refit",
        "--search-sims",
        "3",
        "--out",
        s(&dir),
    ]));
    assert_eq!(
        e,
        "error: --refit, --search-sims apply to the expert iterations: give --iterations N (N >= 1), or leave them out\n"
    );
    // --soft did nothing with a teacher that gives no action values.
    let e = refusal(&unolab(&["train", "--soft", "0.1", "--out", s(&dir)]));
    assert!(
        e.contains("--soft fits the action values of a searching teacher")
            && e.contains("'tuned' gives none"),
        "{e}"
    );
    // The audit of train (2026-12-06): each was accepted and did nothing,
    // or failed only when the work was done.
    let long_name = "a".repeat(201);
    let search = dir.join("halving.toml");
    std::fs::write(
        &search,
        "name = \"halving\"\nbase = \"pimc\"\n[search]\niterations = 8\nhalving = true\n",
    )
    .unwrap();
    for (args, want) in [
        (
            vec!["--players", "2,2"],
            "error: --players '2,2' gives 2 twice (each count is labelled and measured once)\n",
        ),
        (
            vec!["--players", "2,11"],
            "error: --players '2,11': 11 is not a player count (valid: 2 to 10)\n",
        ),
        (
            vec!["--iterations", "1", "--search", "pimc-100", "--search-sims", "5"],
            "error: --search-sims sets the determinizations of the default search; --search PRESET plays its own (its iterations): leave one out\n",
        ),
        (
            vec!["--refit"],
            "error: --refit applies to the expert iterations: give --iterations N (N >= 1), or leave it out\n",
        ),
        (
            vec!["--teacher", "pimc-100", "--soft", "1e-300"],
            "error: --soft 1e-300 is too small (at least 1e-6; 0 fits the teacher's action itself)\n",
        ),
        (
            vec!["--name", &long_name],
            "error: --name is 201 bytes long; at most 200 (the names of its files must fit the file system)\n",
        ),
    ] {
        let mut a = vec!["train", "--out", s(&dir)];
        a.extend(args);
        assert_eq!(refusal(&unolab(&a)), want);
    }
    // --soft with an iterations search that gives no values either.
    let e = refusal(&unolab(&[
        "train",
        "--soft",
        "0.1",
        "--iterations",
        "1",
        "--search",
        s(&search),
        "--out",
        s(&dir),
    ]));
    assert!(
        e.contains("'tuned' gives none, nor does the --search 'halving'; leave --soft out"),
        "{e}"
    );
    // An earlier run's networks were replaced, and its later stages left
    // beside the new ones.
    let nets = dir.join("nets");
    std::fs::create_dir_all(&nets).unwrap();
    for f in [
        "net-0.safetensors",
        "net-0.toml",
        "net-1.toml",
        "netx-0.toml",
        // Not a stage's name: train writes no leading zero.
        "net-01.toml",
    ] {
        std::fs::write(nets.join(f), "x").unwrap();
    }
    let e = refusal(&unolab(&["train", "--out", s(&nets)]));
    assert!(
        e.contains("holds networks of an earlier run named 'net' (net-0.safetensors, net-0.toml, net-1.toml); use another --out or --name, or --force to replace them"),
        "{e}"
    );
    // A ladder's name names its results folder: '' or '../x' wrote into
    // results/ or outside it.
    for name in ["", "../escaped"] {
        let lad = dir.join("bad-name.toml");
        std::fs::write(
            &lad,
            format!("name = \"{name}\"\nplayers = [2]\ngames = 20\nseed = 1\nfield = [\"random\", \"points\"]\nreference = \"random\"\n"),
        )
        .unwrap();
        let e = refusal(&unolab(&["ladder", s(&lad), "-q"]));
        assert!(
            e.contains(&format!(
                "invalid name '{name}' (valid: letters, digits, '-' and '_'"
            )),
            "{e}"
        );
    }
    // --force on a ladder folder left the table sizes the new ladder does
    // not play; and the folder was described as "a run".
    let lad = dir.join("l.toml");
    let text = |players: &str| {
        format!("name = \"l\"\nplayers = {players}\ngames = 20\nseed = 1\nfield = [\"random\", \"points\"]\nreference = \"random\"\nspeed_seconds = 0.05\n")
    };
    let out = dir.join("lout");
    std::fs::write(&lad, text("[2, 3]")).unwrap();
    ok(unolab(&["ladder", s(&lad), "--out", s(&out), "-q"]));
    // Its "Regenerate" command is refused as written without --force.
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains(" -q --force`"), "{md}");
    let e = refusal(&unolab(&["ladder", s(&lad), "--out", s(&out), "-q"]));
    assert!(
        e.contains("already holds the finished results of ladder 'l'"),
        "{e}"
    );
    std::fs::write(&lad, text("[2, 4]")).unwrap();
    ok(unolab(&[
        "ladder",
        s(&lad),
        "--out",
        s(&out),
        "-q",
        "--force",
    ]));
    assert!(out.join("4p").is_dir() && !out.join("3p").exists());
}

/// A file that is not UTF-8 text (here Latin-1) is malformed, whichever
/// command reads it: one line that says so, not the system's "stream did
/// not contain valid UTF-8", and no output folder.
#[test]
fn a_file_that_is_not_utf8_text_is_named_malformed_by_every_reader() {
    let dir = tempdir("latin");
    let latin = dir.join("latin.toml");
    std::fs::write(&latin, b"name = \"caf\xe9\"\n").unwrap();
    let out = dir.join("out");
    let lineup = format!("{},color", s(&latin));
    let cases: [(Vec<&str>, &str); 5] = [
        (
            vec!["experiment", "check", s(&latin)],
            "malformed experiment file: not UTF-8 text",
        ),
        (
            vec!["experiment", "run", s(&latin), "--out", s(&out), "-q"],
            "malformed experiment file: not UTF-8 text",
        ),
        (
            vec!["ladder", s(&latin), "--out", s(&out), "-q"],
            "malformed ladder file",
        ),
        (
            vec!["run", "--rules", s(&latin), "--games", "2"],
            "malformed rule-set file",
        ),
        (
            vec!["run", "--strategies", &lineup, "--games", "2"],
            "malformed strategy file",
        ),
    ];
    for (args, want) in cases {
        let e = refusal(&unolab(&args));
        assert!(
            e.contains(want) && e.contains("not UTF-8 text"),
            "{args:?}: {e}"
        );
        assert!(!e.contains("stream did not contain"), "{args:?}: {e}");
        assert!(!out.exists(), "{args:?} made its output folder");
    }
}

/// A ladder file whose name is not UTF-8 is read by that name (the path is
/// not made lossy on the way): the refusal is about its content, not "No
/// such file".
#[cfg(unix)]
#[test]
fn a_ladder_file_whose_name_is_not_utf8_is_read() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempdir("latin-name");
    let file = dir.join(std::ffi::OsStr::from_bytes(b"lad\xff.toml"));
    std::fs::write(&file, "name = \"x\"\nnope = 1\n").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_unolab"))
        .arg("ladder")
        .arg(&file)
        .args(["--out", s(&dir.join("out")), "-q"])
        .output()
        .unwrap();
    let e = refusal(&o);
    assert!(!e.contains("cannot read"), "{e}");
    assert!(!dir.join("out").exists());
}

#[test]
fn a_word_that_is_not_utf8_is_kept_in_the_manifest_not_a_panic() {
    // `std::env::args` panicked on it after the whole run (the command line
    // is recorded in the manifest), leaving an empty results folder behind.
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let bin = env!("CARGO_BIN_EXE_unolab");
    let d = tempdir("utf8");
    let out = d.join(OsStr::from_bytes(b"out\xff"));
    let o = std::process::Command::new(bin)
        .args(["run", "-q", "-j", "1", "-g", "20", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    ok(o);
    let m = read_json(&out.join("manifest.json"));
    let words: Vec<&str> = (m["command"].as_array().unwrap().iter())
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(words.last().unwrap().ends_with("out\u{fffd}"), "{words:?}");
    let out = d.join(OsStr::from_bytes(b"exp\xfe"));
    let o = std::process::Command::new(bin)
        .args(["experiment", "run", EXPERIMENT, "-q", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    ok(o);
    assert!(out.join("manifest.json").is_file());
    // A stray word where the subcommand goes is refused, not a panic.
    let o = std::process::Command::new(bin)
        .arg(OsStr::from_bytes(b"\xff"))
        .output()
        .unwrap();
    refusal(&o);
}

#[test]
fn a_setting_given_twice_in_a_file_is_refused_and_an_override_takes_its_place() {
    // In an experiment file (and in `rules show`) a setting given twice
    // took the later value silently, a house rule the last whatever the
    // order, where the command line refuses it; and an arm's (or B's)
    // setting lost to a base house rule of the same key.
    let d = tempdir("twice");
    let file = |name: &str, body: &str| {
        let f = d.join(format!("{name}.toml"));
        std::fs::write(
            &f,
            format!("name = \"{name}\"\n[base]\nplayers = 2\ngames = 40\n{body}"),
        )
        .unwrap();
        f
    };
    let check = |f: &Path| refusal(&unolab(&["experiment", "check", s(f)]));
    let base = file(
        "base",
        "house = [\"stacking=same\", \"stacking=cross\"]\n[[arm]]\nlabel = \"x\"\n",
    );
    assert!(
        check(&base).ends_with(
            "base.toml:5: [base] 'stacking' is given twice (house stacking=same, house stacking=cross): give each setting once\n"
        ),
        "{}",
        check(&base)
    );
    let base_mixed = file(
        "mixed",
        "set = [\"jump_in=false\"]\nhouse = [\"jump_in\"]\n[[arm]]\nlabel = \"x\"\n",
    );
    assert!(check(&base_mixed)
        .contains("[base] 'jump_in' is given twice (set jump_in=false, house jump_in)"));
    let arm = file(
        "arm",
        "[[arm]]\nlabel = \"x\"\nset = [\"hand_size=6\", \"hand_size=5\"]\n",
    );
    assert!(
        check(&arm).contains("arm.toml:7: arm 'x': 'hand_size' is given twice"),
        "{}",
        check(&arm)
    );
    let grid = file(
        "grid",
        "[grid]\nset = [\"hand_size=5,hand_size=6\", \"target=100\"]\n",
    );
    assert!(check(&grid).contains("'hand_size' is given twice (set hand_size=5, set hand_size=6)"));
    // An arm's own setting or house rule replaces the base's of that key.
    let over = file(
        "over",
        "set = [\"hand_size=6\"]\nhouse = [\"jump_in,seven_o\"]\n\
         [[arm]]\nlabel = \"plain\"\n[[arm]]\nlabel = \"five\"\nset = [\"hand_size=5\"]\nhouse = [\"jump_in=false\"]\n",
    );
    let out = d.join("over-out");
    ok(unolab(&[
        "experiment",
        "run",
        s(&over),
        "-q",
        "-o",
        s(&out),
    ]));
    let m = read_json(&out.join("manifest.json"));
    let arms = m["arms"].as_array().unwrap();
    let setting = |a: usize, k: &str| arms[a]["rule_set"]["settings"][k].clone();
    assert_eq!(
        (setting(0, "hand_size"), setting(0, "jump_in")),
        (6.into(), true.into())
    );
    assert_eq!(
        (setting(1, "hand_size"), setting(1, "jump_in")),
        (5.into(), false.into())
    );
    assert_eq!(
        (setting(0, "seven_o"), setting(1, "seven_o")),
        (true.into(), true.into())
    );
    // The same for B over A in compare: it said B changes nothing.
    let o = ok(unolab(&[
        "compare",
        "-g",
        "40",
        "-q",
        "--json",
        "--house",
        "jump_in",
        "--b-set",
        "jump_in=false",
    ]));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let arms = v["manifest"]["arms"].as_array().unwrap();
    assert_eq!(arms[0]["rule_set"]["settings"]["jump_in"], true);
    assert_eq!(arms[1]["rule_set"]["settings"]["jump_in"], false);
    // `rules show` refuses what run refuses.
    let e = refusal(&unolab(&[
        "rules",
        "show",
        "classic",
        "--house",
        "seven_o",
        "--set",
        "seven_o=false",
    ]));
    assert_eq!(e, "error: 'seven_o' is given twice (--set seven_o=false, --house seven_o): give each setting once\n");
}

#[test]
fn an_interrupted_trace_writes_nothing_and_removes_the_folders_it_made() {
    // An interrupt ended trace silently (the default signal action) and left
    // the folders made for --out behind, empty.
    let d = tempdir("trace-int");
    for sig in ["-INT", "-TERM"] {
        let out = d.join("new").join("deeper").join("x.jsonl");
        let args = [
            "trace",
            "-s",
            "pimc-1k",
            "-p",
            "6",
            "--set",
            "target=2000",
            "-o",
            s(&out),
        ];
        let o = common::signalled_after(&args, 700, &[sig]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{sig}: {e}");
        assert_eq!(
            e,
            "interrupted: the match was not finished; no trace written\n"
        );
        assert!(
            !d.join("new").exists(),
            "{sig}: the folders made are removed"
        );
    }
}

#[test]
fn a_preset_value_of_the_wrong_kind_is_said_in_words() {
    // A preset's bad number said Rust's type ("expected u32"), where rule
    // and experiment files say what is expected; then the type's range
    // ("from 0 to 4294967295", "0 or more"), where the field's own is
    // narrower and 0 was refused next with a second range.
    let d = tempdir("preset-words");
    for (body, want) in [
        (
            "base = \"pimc\"\n[search]\niterations = -1\n",
            "integer `-1`, expected a whole number from 1 to 1000000",
        ),
        (
            "base = \"pimc\"\n[search]\niterations = 0\n",
            "integer `0`, expected a whole number from 1 to 1000000",
        ),
        (
            "base = \"pimc\"\n[search]\nmodel_turns = 9\n",
            "integer `9`, expected a whole number from 1 to 8",
        ),
        (
            "base = \"external\"\ncommand = [\"true\"]\ntimeout_ms = -5\n",
            "integer `-5`, expected a whole number, 1 or more",
        ),
        (
            "base = \"external\"\ncommand = [\"true\"]\ntimeout_ms = 0\n",
            "integer `0`, expected a whole number, 1 or more",
        ),
        (
            "base = \"heuristic\"\n[params]\npoints_weight = \"x\"\n",
            "expected a number",
        ),
    ] {
        let f = d.join("p.toml");
        std::fs::write(&f, format!("name = \"p\"\n{body}")).unwrap();
        let strategies = format!("{},color", s(&f));
        let e = refusal(&unolab(&["run", "-q", "-g", "10", "-s", &strategies]));
        assert!(e.contains(want), "{e}");
        assert!(
            !e.contains("expected u32") && !e.contains("expected f64"),
            "{e}"
        );
    }
}

#[test]
fn help_that_cannot_be_written_is_an_error() {
    // `--help` and `--version` to a full disk exited 0 having printed nothing.
    for args in [
        &["--help"][..],
        &["run", "--help"],
        &["help", "--help"],
        &["--version"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_unolab"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        let e = refusal(&o);
        assert!(
            e.starts_with("error: cannot write the help: "),
            "{args:?}: {e}"
        );
    }
}

#[test]
fn the_help_of_help_is_the_top_level_help() {
    // `unolab help --help` was clap's "unrecognized subcommand '--help'".
    for flag in ["--help", "-h"] {
        let o = unolab(&["help", flag]);
        assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
        let out = common::stdout(&o);
        assert!(
            out.starts_with("Monte Carlo strategy simulator") && out.contains("Commands:"),
            "{out}"
        );
    }
}

#[test]
fn a_refusal_points_to_the_help_of_the_subcommand_used() {
    // `experiment run` with clashing options pointed to `experiment --help`,
    // which does not list them; `merge /dev/null` said it did not exist.
    let e = refusal(&unolab(&[
        "experiment",
        "run",
        "--resume",
        "--force",
        EXPERIMENT,
    ]));
    assert!(e.ends_with("(see unolab experiment run --help)\n"), "{e}");
    let e = refusal(&unolab(&["run", "-g", "10", "--no-such-option"]));
    assert!(e.ends_with("(see unolab run --help)\n"), "{e}");
    let e = refusal(&unolab(&["merge", "/dev/null"]));
    assert_eq!(
        e,
        "error: /dev/null: not a state file or a folder of them\n"
    );
}

#[test]
fn a_setting_value_is_one_line() {
    // The value was read as TOML after `v = `: a line break brought other
    // keys in, which were dropped silently (hand_size 5, seven_o off).
    for (flag, item) in [
        ("--set", "hand_size=5\nseven_o=true"),
        ("--house", "stacking=same\nseven_o=true"),
    ] {
        let e = refusal(&unolab(&["run", "-q", "-g", "10", flag, item]));
        assert!(e.contains(": a value is one line"), "{e}");
    }
}

#[test]
fn a_bad_deck_entry_names_its_rule_file() {
    // "deck entry 1: unknown colour 'purple'" did not say which file, where
    // every other error of a rule file does.
    let d = tempdir("deck-named");
    let f = d.join("purple.toml");
    std::fs::write(
        &f,
        "name = \"p\"\n[[deck]]\ncolors = [\"purple\"]\nfaces = [\"1\"]\ncount = 2\n",
    )
    .unwrap();
    let e = refusal(&unolab(&["run", "-q", "-g", "10", "--rules", s(&f)]));
    assert!(
        e.ends_with(&format!("rule-set file {}: deck entry 1: unknown colour 'purple' (valid: red, yellow, green, blue)\n", s(&f))),
        "{e}"
    );
}

/// A ladder file's field, reference, ceiling or table sizes that do not fit
/// are refused naming the file (they named nothing: a ladder reads rule sets
/// and presets too, so the line did not say which file was wrong); and a
/// metric given two precision targets in an experiment file is refused with
/// the file's line, by `check` and by `run`.
#[test]
fn a_ladder_or_experiment_that_does_not_fit_names_its_file() {
    let dir = tempdir("names-file");
    std::fs::create_dir_all(&*dir).unwrap();
    let lad = dir.join("lad.toml");
    let base = "name = \"l\"\nseed = 1\ngames = 10\nfield = [\"color\", \"first\"]\nreference = \"color\"\nplayers = [2]\n";
    for (change, why) in [
        (
            "reference = \"bogus\"",
            "reference = 'bogus' is not in the field",
        ),
        ("ceiling = \"color\"", "ceiling = 'color' is the reference"),
        ("players = [2, 2]", "players: 2 is given twice"),
        ("rules = \"nope\"", "unknown rule set 'nope'"),
        (
            "field = [\"color\", \"nobody\"]",
            "unknown strategy 'nobody'",
        ),
    ] {
        let key = change.split(' ').next().unwrap();
        let text: String = base
            .lines()
            .filter(|l| !l.starts_with(key))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            + change
            + "\n";
        std::fs::write(&lad, text).unwrap();
        let e = refusal(&unolab(&[
            "ladder",
            s(&lad),
            "--out",
            s(&dir.join("out")),
            "-q",
        ]));
        assert!(
            e.starts_with(&format!("error: {}: {why}", s(&lad))),
            "{change}: {e}"
        );
        assert!(!dir.join("out").exists());
    }
    let exp = dir.join("exp.toml");
    std::fs::write(
        &exp,
        "name = \"x\"\n[base]\nplayers = 2\nseed = 1\ngames = 100\n[stop]\nprecision = 0.01\nmetrics = [\"win_rate\"]\nprecision_per_metric = { win_rate = 0.02 }\n[[arm]]\nlabel = \"a\"\nstrategies = \"color,first\"\n",
    )
    .unwrap();
    let eout = dir.join("eout");
    for args in [
        &["experiment", "check", s(&exp)][..],
        &["experiment", "run", s(&exp), "--out", s(&eout), "-q"],
    ] {
        let e = refusal(&unolab(args));
        assert_eq!(
            e,
            format!("error: {}:9: [stop] metric 'win_rate' has two precision targets (0.01 as one of the precision's metrics, 0.02 of its own in precision_per_metric); give it one\n", s(&exp)),
            "{args:?}"
        );
        assert!(!eout.exists());
    }
}

/// `--force` with nothing to replace (no `--out`) was taken silently by
/// `run` and `merge` (an audit, 2026-12-06); `--checkpoint` without
/// `--shard` was already refused.
#[test]
fn force_without_out_is_refused() {
    let e = refusal(&unolab(&["run", "-g", "10", "--force"]));
    assert_eq!(
        e,
        "error: --force applies only with --out (it replaces the earlier results there)\n"
    );
    let dir = tempdir("force-merge");
    let e = refusal(&unolab(&["merge", s(&dir), "--force"]));
    assert_eq!(
        e,
        "error: --force applies only with --out (it replaces the earlier results there)\n"
    );
}

/// What a new user's walk through the README found (2026-12-06): a slip
/// in a name gave the whole list and no hint, serde's words for a value of
/// the wrong kind, the wrong kind of file and a missing state named no
/// cause; each is one line that says what to give now.
#[test]
fn a_slip_in_a_name_is_answered_with_the_nearest_one() {
    let dir = tempdir("new-user");
    for (args, want) in [
        (vec!["run", "-s", "pionts,color"], "unknown strategy 'pionts'; did you mean 'points'? (valid: random,"),
        (vec!["run", "-s", "Points,color"], "unknown strategy 'Points'; did you mean 'points'?"),
        (vec!["run", "-r", "clasic"], "unknown rule set 'clasic'; did you mean 'classic'? (valid: classic,"),
        (vec!["run", "-r", "h20"], "did you mean 'h2o'?"),
        (vec!["run", "--house", "seven-o"], "unknown house rule 'seven-o'; did you mean 'seven_o'?"),
        (vec!["run", "--set", "hand_sise=5"], "unknown setting 'hand_sise'; did you mean 'hand_size'?"),
        (
            vec!["run", "--house", "stacking=sam"],
            "invalid value 'sam' for setting 'stacking': 'sam' is not one of: off, same, cross; did you mean 'same'?",
        ),
        (
            vec!["run", "--set", "hand_size=five"],
            "invalid value 'five' for setting 'hand_size': expected a whole number from 1 to 4294967295, not the text \"five\"",
        ),
        (vec!["strategies", "pimc-40"], "unknown strategy 'pimc-40'; did you mean 'pimc-400'?"),
        // Nothing near: no hint.
        (vec!["run", "-s", "zzzzzz,color"], "unknown strategy 'zzzzzz' (valid:"),
    ] {
        let e = refusal(&unolab(&args));
        assert!(e.contains(want), "{args:?}: {e}");
    }
    // A list where one item was given, in an experiment file.
    let text = std::fs::read_to_string("experiments/house-rules.toml").unwrap();
    let one = dir.join("one.toml");
    std::fs::write(
        &one,
        text.replacen(
            "house = [\"stacking=same\"]",
            "house = \"stacking=same\"",
            1,
        ),
    )
    .unwrap();
    let e = refusal(&unolab(&["experiment", "check", s(&one)]));
    assert!(
        e.contains(
            "house: expected a list, such as [\"a\", \"b\"], not the text \"stacking=same\""
        ),
        "{e}"
    );
    // The wrong kind of file names the command that reads it.
    let e = refusal(&unolab(&["experiment", "check", "experiments/ladder.toml"]));
    assert!(
        e.contains("this is a ladder file") && e.contains("unolab ladder FILE"),
        "{e}"
    );
    let e = refusal(&unolab(&[
        "ladder",
        "experiments/house-rules.toml",
        "--games",
        "10",
    ]));
    assert!(
        e.contains("this is an experiment file") && e.contains("unolab experiment run FILE"),
        "{e}"
    );
    // --resume where nothing was saved.
    let none = dir.join("none");
    let e = refusal(&unolab(&[
        "experiment",
        "run",
        "experiments/house-rules.toml",
        "--resume",
        "--out",
        s(&none),
    ]));
    assert!(
        e.contains("holds no saved run to continue (no state.json: a compare or experiment given an output folder saves one as it plays"),
        "{e}"
    );
    // One strategy shown, built in or from its file.
    let o = ok(unolab(&[
        "strategies",
        "pimc-400",
        "experiments/presets/pimc-1k-net-model.toml",
    ]));
    let t = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<&str> = t.lines().filter(|l| !l.starts_with(' ')).take(3).collect();
    assert!(
        rows[1].starts_with("pimc-400 ") && rows[2].starts_with("pimc-1k-net-model "),
        "{t}"
    );
    assert!(
        t.contains("own_rollout=\"net\"") && !t.contains("tuned"),
        "{t}"
    );
}

/// The tournament and ladder audit (2026-12-07): an experiment file holding
/// an oracle was told to use `--allow-oracle`, which `experiment` does not
/// take; a ladder file's too-large `games` was told how to write a seed,
/// and a ladder file's seed above 2^63-1 could not be written at all.
#[test]
fn a_files_messages_name_what_the_file_can_say() {
    let dir = tempdir("file-words");
    std::fs::create_dir_all(&dir).unwrap();
    let exp = dir.join("exo.toml");
    std::fs::write(
        &exp,
        "name = \"exo\"\ndescription = \"oracle\"\n[base]\nplayers = 2\ngames = 4\n\
         [grid]\nstrategies = [\"oracle-400,color\", \"color,points\"]\n",
    )
    .unwrap();
    let e = refusal(&unolab(&["experiment", "check", s(&exp)]));
    assert!(
        e.contains("allow it explicitly with allow_oracle = true in the experiment file"),
        "{e}"
    );
    assert!(!e.contains("--allow-oracle"), "{e}");

    let ladder = |games: &str, seed: &str| {
        let f = dir.join("l.toml");
        std::fs::write(
            &f,
            format!(
                "name = \"l\"\nplayers = [2]\ngames = {games}\nseed = {seed}\n\
                 field = [\"random\", \"points\"]\nreference = \"random\"\nspeed_seconds = 0.01\n"
            ),
        )
        .unwrap();
        let out = dir.join("lout");
        let _ = std::fs::remove_dir_all(&out);
        unolab(&["ladder", s(&f), "--out", s(&out), "-q", "--json"])
    };
    let e = refusal(&ladder("18446744073709551615", "1"));
    assert!(
        e.contains("l.toml:3: games: number too large") && e.contains("only a seed may be larger"),
        "{e}"
    );
    let o = ladder("20", "\"18446744073709551615\"");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("\"seed\":18446744073709551615"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let e = refusal(&ladder("20", "-3"));
    assert!(
        e.contains("l.toml:4: seed: invalid seed -3 (valid: an integer from 0 to"),
        "{e}"
    );
}

/// At a terminal every refusal paints its "error" alike: clap's (an
/// unknown option) was plain where unolab's own (an unknown strategy) was
/// bold red. `script` (util-linux) gives the command a terminal.
#[test]
fn every_refusal_is_painted_alike_at_a_terminal() {
    let bin = env!("CARGO_BIN_EXE_unolab");
    for args in ["run --no-such-option", "run -s no-such-strategy -q"] {
        for no_color in [false, true] {
            let mut c = std::process::Command::new("script");
            c.args(["-qec", &format!("{bin} {args}"), "/dev/null"]);
            if no_color {
                c.env("NO_COLOR", "1");
            } else {
                c.env_remove("NO_COLOR").env("TERM", "xterm");
            }
            let o = c.output().expect("script (util-linux) runs");
            let out = common::stdout(&o);
            let painted = out.starts_with("\x1b[1;31merror\x1b[0m: ");
            assert_eq!(painted, !no_color, "{args}, NO_COLOR {no_color}: {out:?}");
            assert!(out.contains("error"), "{args}: {out:?}");
        }
    }
}

/// A setting of named values given a value of another type names the
/// valid values, with `--set` and in a rule file alike: serde's words
/// ("expected string only, not unit variant", "did not match any variant of
/// untagged enum Raw", "wanted string or table") named none.
#[test]
fn a_setting_of_named_values_given_another_type_lists_them() {
    let d = tempdir("named-values");
    for (item, says) in [
        ("stacking=true", "'true' is not one of: off, same, cross"),
        ("scoring=5", "'5' is not one of: winner, penalty"),
        ("dealer=true", "dealer must be \"random\" or a seat number"),
        ("dealer=1.5", "dealer must be \"random\" or a seat number"),
    ] {
        let e = refusal(&unolab(&["run", "-q", "-g", "1", "--set", item]));
        assert!(e.contains(says), "{item}: {e}");
        let (key, value) = item.split_once('=').unwrap();
        let file = d.join(format!("{key}.toml"));
        for text in [
            format!("name = \"x\"\n\n[settings]\n{key} = {value}\n"),
            format!("name = \"x\"\nsettings = {{ {key} = {value} }}\n"),
        ] {
            std::fs::write(&file, text).unwrap();
            let e = refusal(&unolab(&["run", "-q", "-g", "1", "-r", s(&file)]));
            assert!(e.contains(says) && e.contains(key), "{item}: {e}");
            for serde in ["variant", "untagged", "wanted"] {
                assert!(!e.contains(serde), "{item}: {e}");
            }
        }
    }
}

/// A network preset whose weights file is missing is refused: it played the
/// shipped network of the same file name in silence (the CLI audit), and
/// its manifest named a file that was not there.
#[test]
fn a_network_preset_without_its_weights_file_is_refused() {
    let d = tempdir("net-missing");
    let preset = d.join("mine.toml");
    std::fs::write(
        &preset,
        "name = \"mine\"\nbase = \"net\"\n[net]\nweights = \"net-all.safetensors\"\n",
    )
    .unwrap();
    for args in [
        &[
            "run",
            "-q",
            "-g",
            "10",
            "-p",
            "2",
            "-s",
            &format!("{},color", s(&preset)),
        ][..],
        &["strategies", s(&preset)],
    ] {
        let e = refusal(&unolab(args));
        assert!(
            e.contains("cannot read weights") && e.contains("net-all.safetensors"),
            "{e}"
        );
    }
    // Named by its name, a shipped network preset plays its built-in
    // weights, wherever the command runs.
    ok(unolab(&[
        "run",
        "-q",
        "-g",
        "10",
        "-p",
        "2",
        "-s",
        "net-all,color",
    ]));
}

/// Small refusals and records of the CLI audit: a number with a leading
/// zero was "too large"; a seed of another type in a file named serde's
/// untagged enum; a ladder timed agents for 1e-300 s; a house rule that B
/// overrides left an empty entry ("house rules ;", `"house": [""]`).
#[test]
fn small_refusals_say_what_is_wrong() {
    let d = tempdir("small-refusals");
    let e = refusal(&unolab(&["run", "-q", "-g", "5", "--set", "hand_size=07"]));
    assert!(
        e.contains("write the number without leading zeros (7)"),
        "{e}"
    );
    let e = refusal(&unolab(&["run", "-q", "-g", "5", "--set", "hand_size=5_"]));
    assert!(
        e.contains("write the number with an underscore only between two digits (5)"),
        "{e}"
    );
    let exp = d.join("sd.toml");
    std::fs::write(
        &exp,
        "name = \"x\"\n[base]\nstrategies = \"points\"\nseed = 5.0\n[[arm]]\nlabel = \"a\"\n",
    )
    .unwrap();
    let e = refusal(&unolab(&["experiment", "check", s(&exp)]));
    assert!(
        e.contains("seed: expected a seed: a whole number") && !e.contains("untagged"),
        "{e}"
    );
    let ladder = d.join("l.toml");
    std::fs::write(
        &ladder,
        "name = \"l\"\nplayers = [2]\ngames = 20\nseed = 1\nfield = [\"random\", \"points\"]\nreference = \"random\"\nspeed_seconds = 1e-300\n",
    )
    .unwrap();
    let e = refusal(&unolab(&[
        "ladder",
        s(&ladder),
        "-q",
        "-o",
        s(&d.join("lo")),
    ]));
    assert!(
        e.contains("speed_seconds = 1e-300 must be from 0.001 to 600"),
        "{e}"
    );
    let o = unolab(&[
        "compare",
        "-q",
        "-j",
        "1",
        "-g",
        "20",
        "--house",
        "jump_in",
        "--b-set",
        "jump_in=false",
        "--json",
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let arms = &v["manifest"]["arms"];
    assert_eq!(arms[0]["house"], serde_json::json!(["jump_in"]), "{arms}");
    assert_eq!(arms[1]["house"], serde_json::json!([]), "{arms}");
}

/// `compare --out DIR --resume` without the interrupted run's B options
/// said only that the two configurations are the same, where the interrupt
/// had said "continue with --resume" (the CLI audit).
#[test]
fn a_compare_resumed_without_its_options_says_they_are_needed() {
    let d = tempdir("compare-resume");
    let out = d.join("cr");
    let e = refusal(&unolab(&["compare", "-o", s(&out), "--resume"]));
    assert!(
        e.contains("the two configurations are the same")
            && e.contains("--resume continues with the same command as the interrupted run")
            && e.contains(&format!("{}", out.join("manifest.json").display())),
        "{e}"
    );
    let e = refusal(&unolab(&["compare", "-o", s(&out)]));
    assert!(!e.contains("--resume continues"), "{e}");
}

/// A folder whose finished run kept its state but lost its result files (a
/// disk that filled up as they were written): --resume said there was
/// nothing to do and wrote nothing. It writes them from the state: the
/// same results the run wrote (the CLI audit).
#[test]
fn resume_writes_the_results_a_finished_state_lost() {
    let d = tempdir("lost-results");
    let exp = common::two_arm_experiment(&d, "e.toml", "points,color", 300);
    let out = d.join("so");
    let run = |extra: &[&str]| {
        unolab(
            &[
                &["experiment", "run", s(&exp), "-q", "-j", "1", "-o", s(&out)][..],
                extra,
            ]
            .concat(),
        )
    };
    ok(run(&[]));
    let files = ["manifest.json", "report.md", "arms.csv", "comparisons.csv"];
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap())
        .collect();
    for f in files {
        std::fs::remove_file(out.join(f)).unwrap();
    }
    let o = ok(run(&["--resume"]));
    assert!(
        common::stderr(&o).contains("the results missing from"),
        "{}",
        common::stderr(&o)
    );
    let after: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap())
        .collect();
    // The same results; the manifest as well but for when the run started
    // and how long it took (the state does not keep its start, and the
    // seconds are rounded apart).
    assert!(
        before[1..] == after[1..],
        "the results differ from the run's"
    );
    let timeless = |b: &[u8]| {
        let mut m: Value = serde_json::from_slice(b).unwrap();
        for k in ["started", "elapsed_s"] {
            m.as_object_mut().unwrap().remove(k);
        }
        m
    };
    assert_eq!(timeless(&before[0]), timeless(&after[0]));
    // With its results there, nothing is written again.
    let o = ok(run(&["--resume"]));
    assert!(
        common::stderr(&o).contains("left unchanged"),
        "{}",
        common::stderr(&o)
    );
}

/// A compare whose B changes a setting of a card the deck does not hold
/// (classic has no custom wild) played A's games again and showed rows of
/// "same deals" without a word (the CLI audit): a note says B's change
/// never came into play, in the text and in report.md. A real change gets
/// no such note.
#[test]
fn a_compare_whose_change_never_comes_into_play_says_so() {
    let d = tempdir("aa-compare");
    let out = d.join("c");
    let args = [
        "compare",
        "-q",
        "-j",
        "1",
        "-g",
        "300",
        "-s",
        "points,color",
    ];
    let o = ok(unolab(
        &[&args[..], &["--b-set", "custom_effect=none", "-o", s(&out)]].concat(),
    ));
    let note = "B gave A's figures in every deal played: its change never came into play";
    assert!(
        common::stdout(&o).contains(&format!("note: {note}")),
        "{}",
        common::stdout(&o)
    );
    assert!(common::read(&out.join("report.md")).contains(note));
    let o = ok(unolab(&[&args[..], &["--b-house", "seven_o"]].concat()));
    assert!(!common::stdout(&o).contains("never came into play"));
}

/// A value where a table goes named the Rust type it fills ("expected
/// struct FileGrid, not the number 5"): it says a table.
#[test]
fn a_value_where_a_table_goes_says_a_table() {
    let d = tempdir("table-expected");
    let exp = d.join("g.toml");
    std::fs::write(
        &exp,
        "name = \"x\"\ngrid = 5\n[base]\nstrategies = \"points\"\n[[arm]]\nlabel = \"a\"\n",
    )
    .unwrap();
    let e = refusal(&unolab(&["experiment", "check", s(&exp)]));
    assert!(
        e.ends_with("g.toml:2: grid: expected a table, not the number 5\n"),
        "{e}"
    );
}

/// A file given as rules, a strategy, an experiment or a ladder that is not
/// a regular file: `/dev/zero` was read until the memory ran out (3.8 GB in
/// 9 s), and a named pipe waited for a writer for ever. Refused at once.
#[test]
fn a_device_or_a_pipe_given_as_a_file_is_refused_at_once() {
    let dir = tempdir("not-a-file");
    let fifo = dir.join("fifo.toml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.map(|s| s.success()).unwrap_or(false), "mkfifo");
    let net = dir.join("nz.toml");
    std::fs::write(
        &net,
        "name = \"nz\"\nbase = \"net\"\n[net]\nweights = \"/dev/zero\"\n",
    )
    .unwrap();
    for args in [
        vec!["run", "-r", "/dev/zero", "-g", "10", "-q"],
        vec!["run", "-s", "/dev/zero", "-g", "10", "-q"],
        vec!["experiment", "check", "/dev/zero"],
        vec!["ladder", "/dev/zero"],
        vec!["run", "-r", s(&fifo), "-g", "10", "-q"],
        vec!["strategies", s(&net)],
    ] {
        let e = refusal(&unolab(&args));
        assert!(e.contains("not a regular file"), "{args:?}: {e}");
    }
}
