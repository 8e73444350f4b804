//! The real `unolab` binary: run --json / --out, trace, rules, bad input.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn unolab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_unolab"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("unolab-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn json_run(extra: &[&str]) -> Value {
    let mut args = vec!["run", "--json", "--games", "3000", "--seed", "5"];
    args.extend_from_slice(extra);
    let o = unolab(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("--json prints one JSON object")
}

#[test]
fn run_json_has_every_field_and_is_thread_independent() {
    let a = json_run(&["--threads", "1", "--strategies", "random,points"]);
    let b = json_run(&["--threads", "2", "--strategies", "random,points"]);
    for key in [
        "games",
        "rounds",
        "seed",
        "threads",
        "elapsed_s",
        "rules",
        "players",
        "strategies",
        "seats",
        "turns",
        "blocked",
        "truncated",
    ] {
        assert!(a.get(key).is_some(), "missing {key}");
    }
    assert_eq!(a["games"], 3000);
    assert_eq!(a["rounds"], 3000);
    assert_eq!(a["seed"], 5);
    assert_eq!(a["threads"], 1);
    assert_eq!(b["threads"], 2);
    assert_eq!(a["rules"], "classic");
    assert_eq!(a["players"], 4);
    let s = a["strategies"].as_array().unwrap();
    assert_eq!(s.len(), 2);
    for st in s {
        for key in [
            "name",
            "round_wins",
            "round_win_rate",
            "round_win_ci95",
            "match_wins",
            "points_mean",
        ] {
            assert!(st.get(key).is_some(), "strategy missing {key}");
        }
        let ci = st["round_win_ci95"].as_array().unwrap();
        let rate = st["round_win_rate"].as_f64().unwrap();
        assert!(ci[0].as_f64().unwrap() <= rate && rate <= ci[1].as_f64().unwrap());
    }
    let wins: u64 = s.iter().map(|x| x["round_wins"].as_u64().unwrap()).sum();
    let seat_wins: u64 = a["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["round_wins"].as_u64().unwrap())
        .sum();
    let unfinished = a["blocked"].as_u64().unwrap() + a["truncated"].as_u64().unwrap();
    assert_eq!(wins + unfinished, 3000);
    assert_eq!(seat_wins, wins);
    for key in ["mean", "sd", "p50"] {
        assert!(a["turns"][key].is_number());
    }
    // Same numbers on one or two threads.
    for key in [
        "strategies",
        "seats",
        "turns",
        "first_player",
        "cards_drawn",
        "blocked",
        "truncated",
    ] {
        assert_eq!(a[key], b[key], "{key} differs between thread counts");
    }
}

#[test]
fn run_out_writes_three_files() {
    let dir = tempdir("out");
    let o = unolab(&[
        "run",
        "--mode",
        "match",
        "--games",
        "40",
        "--strategies",
        "color,points,random",
        "--players",
        "3",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let mut lines = summary.lines();
    assert!(lines
        .next()
        .unwrap()
        .starts_with("kind,name,seats,rounds,round_wins"));
    assert_eq!(
        summary
            .lines()
            .filter(|l| l.starts_with("strategy,"))
            .count(),
        3
    );
    assert_eq!(
        summary.lines().filter(|l| l.starts_with("seat,")).count(),
        3
    );
    let dist = std::fs::read_to_string(dir.join("distributions.csv")).unwrap();
    assert!(dist.starts_with("distribution,group,value,count"));
    assert!(dist.contains("points_per_match,color,"));
    assert!(dist.contains("turns_per_round,all,"));
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["games_requested"], 40);
    assert_eq!(m["games_completed"], 40);
    assert_eq!(m["partial"], false);
    assert_eq!(m["mode"], "match");
    assert!(m["command"].as_array().unwrap().len() > 3);
    assert_eq!(m["rule_set"]["settings"]["target"], 500);
    assert!(m["version"].is_string() && m["elapsed_s"].is_number() && m["threads"].is_number());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn trace_is_byte_identical_and_well_formed() {
    let args = [
        "trace",
        "--rules",
        "classic",
        "--players",
        "3",
        "--strategies",
        "random,points",
        "--seed",
        "7",
    ];
    let a = unolab(&args);
    let b = unolab(&args);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let text = stdout(&a);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "match");
    assert_eq!(
        lines[0]["strategies"],
        serde_json::json!(["random", "points", "random"])
    );
    assert_eq!(lines[0]["settings"]["hand_size"], 7);
    assert_eq!(lines.last().unwrap()["type"], "match_end");
    assert!(lines.iter().any(|l| l["type"] == "deal"));
    assert!(lines.iter().any(|l| l["type"] == "round_end"));
    // --out writes the same bytes to a file.
    let dir = tempdir("trace");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.jsonl");
    let mut with_out = args.to_vec();
    with_out.extend(["--out", file.to_str().unwrap()]);
    let o = unolab(&with_out);
    assert!(o.status.success());
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read(&file).unwrap(), a.stdout);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn rules_list_and_show() {
    let o = unolab(&["rules"]);
    assert!(o.status.success());
    let text = stdout(&o);
    for name in ["classic", "h2o", "lilo-stitch", "cars3"] {
        assert!(
            text.lines().any(|l| l.starts_with(name)),
            "{name} missing from {text}"
        );
    }
    let o = unolab(&["rules", "show", "cars3", "--house", "stacking=same"]);
    assert!(o.status.success());
    let shown = stdout(&o);
    assert!(shown.contains("stacking = \"same\""));
    assert!(shown.contains("custom_effect = \"extra_turn\""));
    assert!(shown.contains("wild-swap"));
}

#[test]
fn rules_show_read_back_plays_the_same_games() {
    let dir = tempdir("show");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["classic", "h2o", "lilo-stitch", "cars3"] {
        let o = unolab(&["rules", "show", name]);
        assert!(o.status.success());
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, &o.stdout).unwrap();
        let a = json_run(&["--rules", name, "--players", "5", "--games", "1500"]);
        let b = json_run(&[
            "--rules",
            file.to_str().unwrap(),
            "--players",
            "5",
            "--games",
            "1500",
        ]);
        for key in [
            "strategies",
            "seats",
            "turns",
            "cards_drawn",
            "blocked",
            "truncated",
            "first_player",
        ] {
            assert_eq!(a[key], b[key], "{name}: {key}");
        }
        // And the trace bytes are identical too.
        let ta = unolab(&["trace", "--rules", name, "--seed", "3"]);
        let tb = unolab(&["trace", "--rules", file.to_str().unwrap(), "--seed", "3"]);
        assert_eq!(ta.stdout, tb.stdout, "{name}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Bad input: one line on stderr, exit code 2, nothing on stdout, no panic.
fn bad(args: &[&str], must_mention: &str) {
    let o = unolab(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: one line, got {err}"
    );
    assert!(
        err.contains(must_mention),
        "{args:?}: '{err}' should mention '{must_mention}'"
    );
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    assert!(o.stdout.is_empty(), "{args:?}");
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    bad(&["run", "--rules", "poker"], "unknown rule set 'poker'");
    bad(&["run", "--rules", "poker"], "classic");
    bad(
        &["run", "--strategies", "random,genius"],
        "unknown strategy 'genius'",
    );
    bad(&["run", "--players", "11"], "2 to 10");
    bad(&["run", "--players", "1"], "2 to 10");
    bad(&["trace", "--players", "0"], "2 to 10");
    bad(&["run", "--seed", "abc"], "not a valid seed");
    bad(&["trace", "--seed", "-4"], "not a valid seed");
    bad(
        &["run", "--set", "hand_size=20", "--players", "6"],
        "hand size at most",
    );
    bad(&["run", "--set", "bogus=1"], "unknown setting 'bogus'");
    bad(&["run", "--set", "stacking=sideways"], "stacking");
    bad(
        &["run", "--house", "stacking=same,teleport"],
        "unknown house rule 'teleport'",
    );
    bad(
        &["run", "--set", "uno_catch_chance=1.5"],
        "uno_catch_chance",
    );
    bad(&["run", "--games", "0"], "game count");
    bad(&["run", "--rules", "/nonexistent/x.toml"], "cannot read");
    bad(&["rules", "show", "nope"], "unknown rule set");
    bad(&["run", "--mode", "tournament"], "tournament");
    bad(&["run", "--threads", "0"], "thread count");
}

#[test]
fn a_malformed_file_is_reported_and_no_results_are_written() {
    let dir = tempdir("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("broken.toml");
    std::fs::write(
        &file,
        "name = \"broken\"\n[[deck]]\nfaces = [\"7\"]\ncount = \"two\"\n",
    )
    .unwrap();
    let out = dir.join("results");
    bad(
        &[
            "run",
            "--rules",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        "malformed rule-set file",
    );
    assert!(!out.exists(), "no result directory on bad input");
    let strat = dir.join("s.toml");
    std::fs::write(
        &strat,
        "name = \"s\"\nbase = \"heuristic\"\n[params]\nforget_uno = 7\n",
    )
    .unwrap();
    bad(
        &["run", "--strategies", strat.to_str().unwrap()],
        "forget_uno",
    );
    std::fs::remove_dir_all(&dir).ok();
}
