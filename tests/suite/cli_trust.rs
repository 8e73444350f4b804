//! The real `unolab` binary on what issue 17 found: saved work is never
//! replaced silently, an interrupt keeps every game played, a compare says
//! what A and B are and how a challenger does, precision per metric, and the
//! smaller things a user tripped on.

use crate::common::{
    self, read, signalled_after, stderr, stdout, terminated_after, unolab, TempDir,
};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn tempdir(tag: &str) -> TempDir {
    common::tempdir("trust", tag)
}

/// A command a manifest records, without its first word (the program).
fn command_after_program(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a command: {v}"))
        .iter()
        .skip(1)
        .map(|w| w.as_str().unwrap().to_string())
        .collect()
}

/// A small experiment file in `dir` named `name`, with `extra` lines in
/// `[base]` and `stop` lines in `[stop]`.
fn experiment_file(dir: &Path, name: &str, extra: &str, stop: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join(format!("{name}.toml"));
    let stop = if stop.is_empty() {
        String::new()
    } else {
        format!("[stop]\n{stop}\n")
    };
    std::fs::write(
        &p,
        format!(
            "name = \"{name}\"\nbaseline = \"plain\"\n\n[base]\nplayers = 3\nstrategies = \"points,color,random\"\ngames = 300\nseed = 4\n{extra}\n{stop}\n[[arm]]\nlabel = \"plain\"\n\n[[arm]]\nlabel = \"seven\"\nhouse = [\"seven_o\"]\n"
        ),
    )
    .unwrap();
    p
}

#[test]
fn compare_says_what_a_and_b_are_and_how_the_challenger_does() {
    let dir = tempdir("ab");
    let o = unolab(&[
        "compare",
        "-s",
        "points,color,random",
        "-p",
        "3",
        "--b-seat",
        "0=first",
        "-g",
        "600",
        "-j",
        "1",
        "-q",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("\nA: rules classic; 3 players; line-up points, color, random\n"),
        "{text}"
    );
    assert!(
        text.contains("\nB: rules classic; 3 players; line-up first, color, random\n"),
        "{text}"
    );
    // The challenger's own win rate, with its interval, and the replaced
    // strategy's in A, as arms.csv has them.
    let line = text
        .lines()
        .find(|l| l.starts_with("B: challenger first "))
        .unwrap_or_else(|| panic!("no challenger line: {text}"));
    let arms = read(&dir.join("arms.csv"));
    let value = |arm: &str, group: &str| -> f64 {
        let row = arms
            .lines()
            .find(|l| l.starts_with(&format!("{arm},win_rate,{group},")))
            .unwrap_or_else(|| panic!("{arm} {group}: {arms}"));
        row.split(',').nth(3).unwrap().parse().unwrap()
    };
    let first = format!("first {:.2}% [", 100.0 * value("B", "first"));
    let points = format!("points {:.2}% [", 100.0 * value("A", "points"));
    assert!(
        line.contains(&first) && line.contains(&points),
        "{line} / {first} / {points}"
    );
    // And in the report's "What changes".
    let md = read(&dir.join("report.md"));
    let changes = md
        .split("## What changes against the baseline")
        .nth(1)
        .expect("a What changes section");
    assert!(
        changes.contains(&format!("- B: challenger {}", &first)),
        "{changes}"
    );
    // A line-up change that brings no new strategy has no challenger line.
    let o = unolab(&[
        "compare",
        "-s",
        "points,color,random",
        "-p",
        "3",
        "--b-house",
        "seven_o",
        "-g",
        "300",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("challenger"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("\nB: rules classic; house rules seven_o; 3 players;"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn precision_per_metric_and_a_target_not_reached_is_said() {
    let base = [
        "compare",
        "-s",
        "points,color,random",
        "-p",
        "3",
        "--b-house",
        "seven_o",
        "--batch",
        "100",
        "-q",
        "--json",
    ];
    let run = |extra: &[&str]| -> (Value, String) {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        let o = unolab(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
        let mut t: Vec<&str> = base.iter().copied().filter(|x| *x != "--json").collect();
        t.extend_from_slice(extra);
        let o = unolab(&t);
        (v, stdout(&o))
    };
    // A loose target for points per round alone: reached at the first
    // boundary, whatever the (much wider, in points) other intervals.
    let (v, text) = run(&["-g", "5000", "--precision", "points_per_round=1000"]);
    assert_eq!(
        v["manifest"]["stopped_by"], "precision",
        "{}",
        v["manifest"]
    );
    assert_eq!(v["manifest"]["clusters"].as_u64(), Some(100));
    assert_eq!(
        v["manifest"]["precision_targets"],
        serde_json::json!([["points_per_round", 1000.0]])
    );
    assert_eq!(v["manifest"]["precision_reached"], true);
    assert!(text.contains("(precision reached)"), "{text}");
    assert!(!text.contains("NOT reached"), "{text}");
    // A target the game limit cannot reach: said, naming the widest interval.
    let (v, text) = run(&[
        "-g",
        "200",
        "--precision",
        "win_rate=0.0001,points_per_round=1000",
    ]);
    assert_eq!(v["manifest"]["stopped_by"], "game limit");
    assert_eq!(v["manifest"]["precision_reached"], false);
    assert!(text.contains("(precision NOT reached)"), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("precision NOT reached"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("±0.0001 for win_rate, ±1000 for points_per_round")
            && line.contains("3 of 4 intervals wider than asked")
            && line.contains("the widest, win_rate:"),
        "{line}"
    );
    // A bad metric is one line before any game.
    let o = unolab(&[
        "compare",
        "--b-house",
        "seven_o",
        "--precision",
        "wins=0.01",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown metric 'wins'"),
        "{}",
        stderr(&o)
    );
    // In a file: [stop] precision_per_metric, checked like the rest.
    let dir = tempdir("prec");
    let f = experiment_file(
        &dir,
        "pm",
        "",
        "precision_per_metric = { turns_per_round = 1000.0 }\nbatch = 50",
    );
    let o = unolab(&[
        "experiment",
        "run",
        f.to_str().unwrap(),
        "-q",
        "-o",
        dir.join("out").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("50 games per arm (precision reached)"),
        "{}",
        stdout(&o)
    );
    let f = experiment_file(&dir, "pm2", "", "precision_per_metric = { turns = 1.0 }");
    let o = unolab(&["experiment", "check", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown metric 'turns' in precision_per_metric"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn check_lists_the_arms_and_seeds_take_the_whole_u64_range() {
    let dir = tempdir("check");
    let f = experiment_file(&dir, "c", "", "");
    let o = unolab(&["experiment", "check", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\n  arm 'plain' (baseline)\n  arm 'seven'\n"),
        "{}",
        stdout(&o)
    );
    // 2^64-1 as a string, as `run --seed` takes it.
    let f = experiment_file(&dir, "big", "seed = \"18446744073709551615\"", "");
    let text = read(&f).replace("seed = 4\n", "");
    std::fs::write(&f, text).unwrap();
    let o = unolab(&["experiment", "check", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("seed 18446744073709551615"),
        "{}",
        stdout(&o)
    );
    let text = read(&f).replace("\"18446744073709551615\"", "-3");
    std::fs::write(&f, text).unwrap();
    let o = unolab(&["experiment", "check", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid seed -3 (valid: an integer from 0 to 18446744073709551615"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_experiment_never_replaces_saved_work_without_force() {
    let dir = tempdir("refuse");
    let f = experiment_file(&dir, "r", "", "");
    let g = experiment_file(&dir, "other", "", "");
    let out = dir.join("out");
    let (f, g, o_) = (
        f.to_str().unwrap(),
        g.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let o = unolab(&["experiment", "run", f, "-q", "-o", o_]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = read(&out.join("report.md"));
    // The report holds nothing of the machine: no threads, no time, no path
    // to the program.
    assert!(
        !report.contains(" s.\n") && !report.contains("thread"),
        "{report}"
    );
    assert!(
        report.contains("Produced by `unolab experiment run "),
        "{report}"
    );
    // The same experiment again, and another one: refused, nothing changed.
    for (file, says) in [(f, "--resume"), (g, "not of this one")] {
        let o = unolab(&["experiment", "run", file, "-q", "-o", o_]);
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
        let e = stderr(&o);
        assert!(
            e.contains(o_) && e.contains(says) && e.contains("--force"),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
        assert_eq!(read(&out.join("report.md")), report);
    }
    // --force starts over.
    let o = unolab(&["experiment", "run", g, "-q", "--force", "-o", o_]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(read(&out.join("report.md")).starts_with("# other"));
}

#[test]
fn a_failed_experiment_names_its_arm_and_leaves_no_folder() {
    let dir = tempdir("fail");
    // A program that exits at its fifth request: the arm that uses it fails.
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("f.toml");
    std::fs::write(
        &f,
        "name = \"f\"\nbaseline = \"plain\"\n[base]\nplayers = 2\nstrategies = \"points,points\"\ngames = 50\n[[arm]]\nlabel = \"plain\"\n[[arm]]\nlabel = \"the-bot\"\nstrategies = \"points,ext:bad=python3 tests/bots/faulty.py crash 5\"\n"
    )
    .unwrap();
    let out = dir.join("new").join("out");
    let o = unolab(&[
        "experiment",
        "run",
        f.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("arm 'the-bot'"), "{}", stderr(&o));
    assert!(!dir.join("new").exists(), "an empty --out folder was left");
}

#[test]
fn sigterm_keeps_every_game_of_an_experiment_and_resume_gives_the_same_bits() {
    // One batch far larger than what is played before the signal: before,
    // nothing short of a batch boundary survived an interrupt.
    let dir = tempdir("term");
    let f = experiment_file(&dir, "t", "", "batch = 100000000");
    let out = dir.join("out");
    let o = terminated_after(
        &[
            "experiment",
            "run",
            f.to_str().unwrap(),
            "-g",
            "100000000",
            "-j",
            "2",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ],
        2500,
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let m: Value = serde_json::from_str(&read(&out.join("manifest.json"))).unwrap();
    assert_eq!(m["partial"], true, "{m}");
    let kept = m["clusters"].as_u64().unwrap();
    assert!(kept > 0 && kept < 100_000_000, "{kept}");
    let first_s = m["elapsed_s"].as_f64().unwrap();
    assert!(first_s > 1.0, "{m}");
    // Rerun without --resume: refused, naming --resume, the state untouched.
    let state = read(&out.join("state.json"));
    let o = unolab(&[
        "experiment",
        "run",
        f.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("interrupted") && stderr(&o).contains("--resume"),
        "{}",
        stderr(&o)
    );
    assert_eq!(read(&out.join("state.json")), state);
    // Resumed to a limit on one thread, the same bits as one uninterrupted run.
    let limit = (kept + 500).to_string();
    let o = unolab(&[
        "experiment",
        "run",
        f.to_str().unwrap(),
        "-g",
        &limit,
        "-j",
        "1",
        "-q",
        "--resume",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The resumed run's seconds count those played before the interrupt
    // (they were this command's alone).
    let m: Value = serde_json::from_str(&read(&out.join("manifest.json"))).unwrap();
    assert!(m["elapsed_s"].as_f64().unwrap() >= first_s, "{m}");
    let whole = dir.join("whole");
    let o = unolab(&[
        "experiment",
        "run",
        f.to_str().unwrap(),
        "-g",
        &limit,
        "-j",
        "3",
        "-q",
        "-o",
        whole.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for file in ["arms.csv", "comparisons.csv", "distributions.csv"] {
        assert_eq!(read(&out.join(file)), read(&whole.join(file)), "{file}");
    }
}

#[test]
fn base_errors_are_the_bases_and_name_the_wrong_setting() {
    let dir = tempdir("base");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("b.toml");
    std::fs::write(
        &f,
        "name = \"b\"\n[base]\nset = [\"ohana_fill_to=200\"]\n\n[[arm]]\nlabel = \"a\"\n",
    )
    .unwrap();
    let o = unolab(&["experiment", "check", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("b.toml:3: [base] ohana_fill_to = 200 is not valid (valid: 0 to 100)"),
        "{e}"
    );
    assert!(!e.contains("arm 'a'") && !e.contains("uno_penalty"), "{e}");
    // An unknown setting of the base: the base's, once, with two arms.
    std::fs::write(
        &f,
        "name = \"b\"\n[base]\nset = [\"hand_sise=5\"]\n\n[[arm]]\nlabel = \"a\"\n[[arm]]\nlabel = \"c\"\nset = [\"target=9\"]\n",
    )
    .unwrap();
    let o = unolab(&["experiment", "check", f.to_str().unwrap()]);
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("b.toml:3: [base] set: ") && e.contains("hand_sise"),
        "{e}"
    );
    // An arm's own error stays the arm's.
    std::fs::write(
        &f,
        "name = \"b\"\n[base]\nplayers = 2\n\n[[arm]]\nlabel = \"a\"\n[[arm]]\nlabel = \"c\"\nset = [\"ohana_fill_to=101\"]\n",
    )
    .unwrap();
    let o = unolab(&["experiment", "check", f.to_str().unwrap()]);
    let e = stderr(&o);
    assert!(
        e.contains("arm 'c': ohana_fill_to = 101 is not valid"),
        "{e}"
    );
    // And on the command line.
    let o = unolab(&["run", "-g", "10", "--set", "ohana_fill_to=200"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("ohana_fill_to = 200 is not valid (valid: 0 to 100)"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("uno_penalty"), "{}", stderr(&o));
}

#[test]
fn parameters_of_a_base_without_any_are_refused() {
    let dir = tempdir("params");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("r.toml");
    std::fs::write(
        &p,
        "name = \"r\"\nbase = \"random\"\n[params]\npoints_weight = 5.0\n",
    )
    .unwrap();
    let o = unolab(&["run", "-g", "10", "-s", &format!("{},first", p.display())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("base 'random' takes no [params]"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn matches_stopped_by_max_rounds_are_reported_not_counted_as_ties() {
    let o = unolab(&[
        "run",
        "-m",
        "match",
        "--set",
        "max_turns=5",
        "--set",
        "max_rounds=3",
        "-p",
        "3",
        "-g",
        "60",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    // Every round is truncated at 5 turns: no points, every match stopped at
    // the cap with its lead shared.
    assert_eq!(v["max_rounds_matches"], 60, "{v}");
    assert_eq!(v["max_rounds_without_winner"], 60);
    assert_eq!(v["tied_matches"], 0);
    let o = unolab(&[
        "run",
        "-m",
        "match",
        "--set",
        "max_turns=5",
        "--set",
        "max_rounds=3",
        "-p",
        "3",
        "-g",
        "60",
    ]);
    assert!(
        stdout(&o)
            .contains("matches stopped by max_rounds = 3 before the target or round count: 60"),
        "{}",
        stdout(&o)
    );
    // A normal match ends at the target: none stopped, and the text is silent.
    let o = unolab(&["run", "-m", "match", "-g", "20", "--json"]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["max_rounds_matches"], 0);
    let o = unolab(&["run", "-m", "match", "-g", "20"]);
    assert!(!stdout(&o).contains("max_rounds"), "{}", stdout(&o));
}

#[test]
fn partial_results_are_marked_in_every_file() {
    let dir = tempdir("partial");
    let shards = dir.join("shards");
    let s = shards.to_str().unwrap();
    let o = unolab(&[
        "run", "-g", "400", "--seed", "3", "--shard", "0/2", "-q", "-o", s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Another split into the same folder is refused.
    let o = unolab(&[
        "run", "-g", "400", "--seed", "3", "--shard", "0/3", "-q", "-o", s,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let merged = dir.join("merged");
    let o = unolab(&[
        "merge",
        s,
        "--allow-partial",
        "-o",
        merged.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = read(&merged.join("summary.csv"));
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(",illegal,partial"), "{csv}");
    assert!(lines.all(|l| l.ends_with(",true")), "{csv}");
    // A whole run says false.
    let whole = dir.join("whole");
    let o = unolab(&["run", "-g", "400", "-q", "-o", whole.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = read(&whole.join("summary.csv"));
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",false")), "{csv}");
    // A tournament cut short: ratings.csv and ratings.svg say so.
    let t = dir.join("t");
    let o = terminated_after(
        &[
            "tournament",
            "-s",
            "points,color,random,first",
            "-g",
            "2000000000",
            "-j",
            "1",
            "-q",
            "-o",
            t.to_str().unwrap(),
        ],
        2000,
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let csv = read(&t.join("ratings.csv"));
    assert!(
        csv.lines().next().unwrap().ends_with(",fair_share,partial"),
        "{csv}"
    );
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",true")), "{csv}");
    assert!(
        read(&t.join("ratings.svg")).contains("PARTIAL: "),
        "no mark in ratings.svg"
    );
    // And a tournament into a folder with results: refused, then --force.
    let o = unolab(&[
        "tournament",
        "-s",
        "points,first",
        "-p",
        "2",
        "-g",
        "100",
        "-q",
        "-o",
        t.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    let o = unolab(&[
        "tournament",
        "-s",
        "points,first",
        "-p",
        "2",
        "-g",
        "100",
        "-q",
        "--force",
        "-o",
        t.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(read(&t.join("ratings.csv"))
        .lines()
        .skip(1)
        .all(|l| l.ends_with(",false")));
}

#[test]
fn file_outputs_create_missing_folders_alike() {
    let dir = tempdir("folders");
    let trace = dir.join("a").join("b").join("t.jsonl");
    let o = unolab(&["trace", "--seed", "2", "-o", trace.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(trace.is_file());
    let preset = dir.join("c").join("d").join("p.toml");
    let tune = [
        "tune",
        "--generations",
        "1",
        "--population",
        "4",
        "-g",
        "20",
        "--holdout-games",
        "20",
        "-p",
        "2",
        "--field",
        "points",
    ];
    let o = unolab(&[&tune[..], &["-q", "-o", preset.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(preset.is_file());
    // Without -q, the end of the search says what the held-out evaluation
    // plays (it was silent however long it took).
    let o = unolab(&tune);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "generation 1/1: mean"
        ) && stderr(&o).contains(
            "\nheld-out evaluation: 20 games each of the mean and color against the field, and of the mean against color"
        ),
        "{}",
        stderr(&o)
    );
    // The mean's share carries its interval, which holds it; the best's
    // and the elite's, chosen on those games, none.
    let e = stderr(&o);
    let line = e
        .lines()
        .find(|l| l.starts_with("generation 1/1: mean "))
        .unwrap();
    let nums: Vec<f64> = line["generation 1/1: mean ".len()..]
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|w| !w.is_empty())
        .take(3)
        .map(|w| w.parse().unwrap())
        .collect();
    assert!(
        line.contains("% [") && nums[1] <= nums[0] && nums[0] <= nums[2] && nums[2] > nums[1],
        "{line}"
    );
    let chosen = &line[line.find("]  best ").expect(line)..];
    assert!(!chosen[1..].contains('['), "{line}");
    // And neither replaces its file without --force.
    let o = unolab(&["trace", "--seed", "2", "-o", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
}

#[test]
fn an_interrupt_stops_a_search_run_within_a_deal_and_a_doubled_signal_keeps_the_work() {
    // Two things lost an interrupted search run: the runner handed out work
    // in units of 1,024 games, so a run of 400 searched games could not be
    // stopped at all; and `timeout -s INT` delivers the interrupt twice (to
    // the process and to its group), which counted as "quit at once,
    // keeping nothing".
    let dir = tempdir("search-int");
    let out = dir.join("out");
    let o = signalled_after(
        &[
            "run",
            "-p",
            "2",
            "-s",
            "pimc-1k,color",
            "-g",
            "400",
            "-j",
            "2",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ],
        2000,
        &["-INT", "-INT"],
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{e}");
    assert!(e.contains("stopping after the games in progress"), "{e}");
    assert!(e.contains("interrupted: "), "{e}");
    let m: Value = serde_json::from_str(&read(&out.join("manifest.json"))).unwrap();
    assert_eq!(m["partial"], true, "{m}");
    let csv = read(&out.join("summary.csv"));
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",true")), "{csv}");
    assert_eq!(m["games_requested"], 400, "{m}");
    let played = m["games_completed"].as_u64().unwrap();
    assert!(played > 0 && played < 400, "{m}");
}

/// A tournament state (`text`, version 2, a field of `k`) as version 1
/// wrote it: each composition's wins by strategy of the field.
fn as_version_1(text: &str, k: usize) -> String {
    let mut v: Value = serde_json::from_str(text).unwrap();
    v["version"] = serde_json::json!(1);
    crate::common::counts_as_version_1(&mut v["results"], k);
    v.to_string()
}

#[test]
fn an_interrupted_tournament_resumes_to_the_uninterrupted_ratings() {
    // An interrupted tournament kept its partial results but could only be
    // played again whole (the ladder's rungs, 425 s, too). Its finished
    // games are always the first ones (units are handed out in order and
    // every unit taken is finished), so their counts are saved and
    // --resume plays the rest: the same files as one uninterrupted run.
    let dir = tempdir("tour-resume");
    let (part, whole) = (dir.join("part"), dir.join("whole"));
    let args = |out: &Path| -> Vec<String> {
        [
            "tournament",
            "-s",
            "pimc-100,color,random",
            "-p",
            "3",
            "-g",
            "1200",
            "-q",
            "-o",
            out.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let a = args(&part);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let mut first: Vec<&str> = a.clone();
    first.extend(["-j", "2"]);
    let o = signalled_after(&first, 1000, &["-INT"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{e}");
    assert!(
        e.contains("the same command with --resume continues it"),
        "{e}"
    );
    assert!(part.join("state.json").is_file());
    // The same folder without --resume is refused, saying how to continue.
    let o = unolab(&a);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "continue them where they were started (--resume), or --force to replace them"
        ),
        "{}",
        stderr(&o)
    );
    // A damaged state (a count no game could make) is refused in one line;
    // it was added to the new games' counts, then failed an interval's
    // check with a panic.
    let state = part.join("state.json");
    let kept = read(&state);
    let mut v: Value = serde_json::from_str(&kept).unwrap();
    v["results"]["wins"][0] = serde_json::json!(1_000_000);
    std::fs::write(&state, v.to_string()).unwrap();
    let mut again0 = a.clone();
    again0.push("--resume");
    let o = unolab(&again0);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("its counts are not those of the games it says it holds"),
        "{}",
        stderr(&o)
    );
    // Counts of another table size (a seat too many) were taken, and the
    // ratings changed silently.
    let mut v: Value = serde_json::from_str(&kept).unwrap();
    v["results"]["seats"][0] = serde_json::json!(v["results"]["seats"][0].as_u64().unwrap() + 1);
    std::fs::write(&state, v.to_string()).unwrap();
    let o = unolab(&again0);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("its counts are not those of tables of 3 players"),
        "{}",
        stderr(&o)
    );
    // The state records its format version; another version is refused in
    // one line (there was none to check).
    let mut v: Value = serde_json::from_str(&kept).unwrap();
    assert_eq!(v["version"], 2, "{v}");
    v["version"] = serde_json::json!(3);
    std::fs::write(&state, v.to_string()).unwrap();
    let o = unolab(&again0);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("tournament state format version 3 (this unolab reads versions 1 to 2)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stderr(&o).trim_end().lines().count(), 1, "{}", stderr(&o));
    std::fs::write(&state, &kept).unwrap();
    // Another field is refused, in one line, before any game.
    let mut other = a.clone();
    other[2] = "pimc-100,color,points";
    other.push("--resume");
    let o = unolab(&other);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("it is another tournament (not the same: field)"),
        "{e}"
    );
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    // A copy of the state as version 1 wrote it (each composition's wins
    // by strategy of the field, not by seat), to resume below.
    let old = dir.join("old");
    std::fs::create_dir_all(&old).unwrap();
    for e in std::fs::read_dir(&part).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), old.join(e.file_name())).unwrap();
    }
    std::fs::write(old.join("state.json"), as_version_1(&kept, 3)).unwrap();
    // The same command resumes it on another thread count.
    let mut again = a.clone();
    again.extend(["-j", "1", "--resume"]);
    let o = unolab(&again);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !part.join("state.json").exists(),
        "a finished tournament keeps no state"
    );
    let w = args(&whole);
    let w: Vec<&str> = w.iter().map(String::as_str).collect();
    let o = unolab(&w);
    assert!(o.status.success(), "{}", stderr(&o));
    let o1 = args(&old);
    let mut o1: Vec<&str> = o1.iter().map(String::as_str).collect();
    o1.push("--resume");
    let o = unolab(&o1);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in ["ratings.csv", "head_to_head.csv"] {
        assert_eq!(read(&part.join(f)), read(&whole.join(f)), "{f}");
        assert_eq!(read(&old.join(f)), read(&whole.join(f)), "{f}, version 1");
    }
    let m: Value = serde_json::from_str(&read(&part.join("manifest.json"))).unwrap();
    assert_eq!(m["partial"], false, "{m}");
    // The manifest names the command that started it, then the one that
    // continued it (it named only the last, `--resume`, whose options
    // repeat nothing), and the seconds of both.
    assert_eq!(command_after_program(&m["command"]), first, "{m}");
    assert_eq!(m["continued_by"].as_array().map(Vec::len), Some(1), "{m}");
    assert_eq!(command_after_program(&m["continued_by"][0]), again, "{m}");
    let one: Value = serde_json::from_str(&read(&whole.join("manifest.json"))).unwrap();
    assert_eq!(one["continued_by"], serde_json::json!([]), "{one}");
    assert!(m["elapsed_s"].as_f64().unwrap() >= 1.0, "{m}");
    // Nothing left to resume.
    let o = unolab(&again);
    assert!(
        stderr(&o).contains("holds no interrupted tournament"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_interrupted_ladder_resumes_to_the_uninterrupted_ratings() {
    // An interrupted ladder kept its partial results, but could only be
    // played again whole ("a ladder does not resume"). Now each table size
    // played is saved in state.json (its tournament's finished games, its
    // speeds once every agent was timed) and --resume plays the rest: the
    // tournaments' files are those of one uninterrupted ladder.
    let dir = tempdir("ladder-resume");
    std::fs::create_dir_all(&dir).unwrap();
    let lad = dir.join("l.toml");
    std::fs::write(
        &lad,
        "name = \"l\"\nplayers = [2, 3]\ngames = 500\nseed = 8\nfield = [\"pimc-100\", \"color\", \"random\"]\nreference = \"random\"\nceiling = \"color\"\nspeed_seconds = 0.05\n",
    )
    .unwrap();
    let (part, whole) = (dir.join("part"), dir.join("whole"));
    let args = |out: &Path| -> Vec<String> {
        [
            "ladder",
            lad.to_str().unwrap(),
            "-q",
            "--out",
            out.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let a = args(&part);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let mut first = a.clone();
    first.extend(["--threads", "2"]);
    let o = signalled_after(&first, 1000, &["-INT"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{e}");
    assert!(
        e.contains("the same command with --resume continues it"),
        "{e}"
    );
    assert!(part.join("state.json").is_file());
    // The same folder without --resume is refused, saying how to continue.
    let o = unolab(&a);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "continue them where they were started (--resume), or --force to replace them"
        ),
        "{}",
        stderr(&o)
    );
    // The same folder resumed by a ladder file of another name: refused (it
    // went on, and the folder's ladder took the new name).
    let renamed = dir.join("m.toml");
    std::fs::write(&renamed, read(&lad).replace("name = \"l\"", "name = \"m\"")).unwrap();
    let o = unolab(&[
        "ladder",
        renamed.to_str().unwrap(),
        "-q",
        "--out",
        part.to_str().unwrap(),
        "--resume",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("holds the ladder 'l', not 'm': give its own ladder file"),
        "{}",
        stderr(&o)
    );
    // The plot says it is partial, with the games played (its title gave
    // the file's games per table size, as if finished), and so does the
    // manifest, which a redraw reads.
    let svg = read(&part.join("ladder.svg"));
    assert!(
        svg.contains("PARTIAL: games played: ") && svg.contains("(of 500 per table size)"),
        "{svg}"
    );
    let manifest = read(&part.join("manifest.json"));
    assert!(
        manifest.contains("\"partial_note\": \"games played: "),
        "{manifest}"
    );
    // The partial report says how to continue it (it offered to play it
    // again from the start with --force).
    let report = read(&part.join("report.md"));
    assert!(
        report.contains("\nContinue: `unolab ladder")
            && report.contains(" --resume`")
            && !report.contains("Regenerate"),
        "{report}"
    );
    // A damaged state is refused in one line: counts of another table size
    // changed the ratings silently (another field's counts: a unit test of
    // report::ladder).
    let state = part.join("state.json");
    let kept = read(&state);
    let mut resume = a.clone();
    resume.push("--resume");
    {
        let want = "its counts are not those of tables of 2 players";
        let mut v: Value = serde_json::from_str(&kept).unwrap();
        let r = &mut v["rungs"][0]["results"];
        r["seats"][0] = serde_json::json!(r["seats"][0].as_u64().unwrap() + 1);
        std::fs::write(&state, v.to_string()).unwrap();
        let o = unolab(&resume);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(want) && e.contains("state.json"), "{e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    }
    // Its format version: another is refused in one line; a state written
    // before states recorded one (no "version") resumes, below.
    let mut v: Value = serde_json::from_str(&kept).unwrap();
    assert_eq!(v["version"], 2, "{v}");
    v["version"] = serde_json::json!(7);
    std::fs::write(&state, v.to_string()).unwrap();
    let o = unolab(&resume);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("ladder state format version 7 (this unolab reads versions 1 to 2)"),
        "{e}"
    );
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    v.as_object_mut().unwrap().remove("version");
    std::fs::write(&state, v.to_string()).unwrap();
    // Another ladder (here another number of games) is refused in one
    // line, before any game.
    let mut other = a.clone();
    other.extend(["--games", "400", "--resume"]);
    let o = unolab(&other);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("it is another ladder (not the same: games)"),
        "{e}"
    );
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    // The same command resumes it, on another thread count.
    let mut again = a.clone();
    again.extend(["--threads", "1", "--resume"]);
    let o = unolab(&again);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !part.join("state.json").exists(),
        "a finished ladder keeps no state"
    );
    let w = args(&whole);
    let w: Vec<&str> = w.iter().map(String::as_str).collect();
    let o = unolab(&w);
    assert!(o.status.success(), "{}", stderr(&o));
    for sub in ["2p", "3p"] {
        for f in ["ratings.csv", "head_to_head.csv"] {
            assert_eq!(
                read(&part.join(sub).join(f)),
                read(&whole.join(sub).join(f)),
                "{sub}/{f}"
            );
        }
    }
    let m: Value = serde_json::from_str(&read(&part.join("manifest.json"))).unwrap();
    assert_eq!(m["partial"], false, "{m}");
    // The command that started it, then the one that continued it; the
    // report's "Regenerate" is the first (with --force), not `--resume`.
    assert_eq!(command_after_program(&m["command"]), first, "{m}");
    assert_eq!(command_after_program(&m["continued_by"][0]), again, "{m}");
    let report = read(&part.join("report.md"));
    assert!(
        report.contains("Regenerate: `unolab ladder") && !report.contains("--resume"),
        "{report}"
    );
    // ladder.csv: the same ratings (its speeds are timings).
    let ratings = |d: &Path| -> Vec<String> {
        read(&d.join("ladder.csv"))
            .lines()
            .map(|l| l.split(',').take(12).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(ratings(&part), ratings(&whole));
    // Nothing left to resume.
    let o = unolab(&again);
    assert!(
        stderr(&o).contains("holds no interrupted ladder"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn report_words_count_every_significant_difference_positions_too() {
    // Moving `cautious` from seat 1 to seat 2 under fixed seating changes
    // only who sits where: the significant differences are positional.
    // report.md said "No difference was detected" over them, the words
    // leaving position_win_rate out.
    let dir = tempdir("positions");
    let out = dir.join("out");
    let o = unolab(&[
        "compare",
        "-s",
        "random,cautious,random,random",
        "--b-strategies",
        "random,random,cautious,random",
        "--seating",
        "fixed",
        "--set",
        "dealer=3",
        "--set",
        "start_card_effects=false",
        "-g",
        "3000",
        "--threads",
        "1",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("comparisons of position_win_rate are not shown here, 2 of the "),
        "{text}"
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(!md.contains("No difference was detected"), "{md}");
    assert!(
        md.contains("- **B**: share of won rounds by position after the first mover: +1 -"),
        "{md}"
    );
    assert!(
        md.contains("- **B**: share of won rounds by position after the first mover: +2 +"),
        "{md}"
    );
}

#[test]
fn a_second_interrupt_before_any_game_finished_leaves_no_file_and_the_folder_reusable() {
    // A second interrupt quits at once, keeping nothing: no half-written
    // result may be left behind, and the folder the first attempt claimed
    // must take the next run without --force (nothing in it was saved
    // work). A decision of this search between two actions plays two
    // million rollouts, seconds even on a fast host, and every seat is
    // such a search (a tournament's field of two copies under two names),
    // so no game finishes between the two interrupts. (With `color` in the
    // field, a tournament game of `color` alone finished at once on CI.)
    let dir = tempdir("twice-int");
    std::fs::create_dir_all(&dir).unwrap();
    let mut slow = Vec::new();
    for name in ["slow", "slow2"] {
        let p = dir.join(format!("{name}.toml"));
        std::fs::write(
            &p,
            format!("name = \"{name}\"\nbase = \"pimc\"\n\n[search]\niterations = 1000000\nrollout = \"color\"\n"),
        )
        .unwrap();
        slow.push(p.to_str().unwrap().to_string());
    }
    let s = &slow[0];
    let same = format!("{s},{s},{s},{s}");
    let field = format!("{s},{}", slow[1]);
    for (cmd, lineup, extra) in [
        ("run", &same, &[][..]),
        ("tournament", &field, &[][..]),
        ("compare", &same, &["--b-seat", "0=color"][..]),
    ] {
        let out = dir.join(format!("out-{cmd}"));
        let mut args = vec![
            cmd, "-p", "4", "-s", lineup, "-g", "4", "-j", "1", "-q", "--seed", "3", "-o",
        ];
        args.push(out.to_str().unwrap());
        args.extend_from_slice(extra);
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_unolab"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id().to_string();
        // The folder is claimed before the first game, after the handler
        // is in place: the first interrupt comes once it is there (a
        // loaded host may take long to start the process).
        let start = std::time::Instant::now();
        while !out.exists() && start.elapsed() < std::time::Duration::from_secs(20) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // The second signal counts as a second interrupt only a second or
        // more after the first was handled (one interrupt can come twice);
        // on a loaded host the handler may run late, so 2.5 s apart.
        for pause in [100, 2500] {
            std::thread::sleep(std::time::Duration::from_millis(pause));
            assert!(std::process::Command::new("kill")
                .args(["-INT", &pid])
                .status()
                .unwrap()
                .success());
        }
        let o = child.wait_with_output().unwrap();
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(130), "{cmd}: {e}");
        assert!(e.contains("interrupt again to quit at once"), "{cmd}: {e}");
        assert!(!e.contains("panicked"), "{cmd}: {e}");
        // Said in lines of their own (no blank line where stderr is not a
        // terminal), the quit confirmed last.
        assert!(
            e.starts_with("stopping after the games in progress"),
            "{cmd}: {e}"
        );
        assert!(
            e.ends_with("quit at once: nothing more is written\n"),
            "{cmd}: {e}"
        );
        let left: Vec<_> = std::fs::read_dir(&out)
            .map(|d| d.map(|f| f.unwrap().file_name()).collect())
            .unwrap_or_default();
        assert!(left.is_empty(), "{cmd} left {left:?}");
        // The folder takes the next run as it is.
        let mut again = vec![cmd, "-p", "2", "-s", "points,color", "-g", "20", "-q", "-o"];
        again.push(out.to_str().unwrap());
        again.extend_from_slice(extra);
        let o = unolab(&again);
        assert!(o.status.success(), "{cmd}: {}", stderr(&o));
        assert!(out.join("manifest.json").is_file(), "{cmd}");
    }
}

/// An interrupt that comes during `tune`'s held-out evaluation ended
/// nothing: the evaluation played to its end and the command exited 0. It
/// now stops after the games in progress, writes the preset with the
/// figures of the held-out games played (a prefix of its range, named in
/// the file) and exits 130.
#[test]
fn an_interrupt_during_the_held_out_evaluation_of_tune_ends_it_and_keeps_the_preset() {
    let dir = tempdir("tune-holdout-int");
    let preset = dir.join("p.toml");
    let o = terminated_after(
        &[
            "tune",
            "--generations",
            "1",
            "--population",
            "4",
            "-g",
            "20",
            "--holdout-games",
            "200000000",
            "-p",
            "2",
            "--field",
            "points",
            "-j",
            "1",
            "-q",
            "-o",
            preset.to_str().unwrap(),
        ],
        1500,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    // The search is over when the interrupt comes: it says it waits for
    // the held-out games in progress (during the search, the generation).
    assert!(
        err.contains("stopping after the held-out games in progress, keeping what is finished"),
        "{err}"
    );
    let last = err.trim_end().lines().last().unwrap();
    let played: u64 = last
        .strip_prefix("interrupted during the held-out evaluation: ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        last.ends_with(&format!(
            "{played} of 200000000 games played; the preset is the mean after 1 of 1 generations"
        )),
        "{err}"
    );
    assert!(played > 0 && played < 200_000_000, "{err}");
    let text = read(&preset);
    assert!(
        text.contains(&format!("# Held-out: games 2^62 .. 2^62+{played} of seed "))
            && text.contains(&format!("interrupted: {played} of 200000000 games")),
        "{text}"
    );
    // The search itself was not cut short, and the preset plays.
    assert!(text.contains("1 of 1 generations x 4 candidates"), "{text}");
    assert!(!text.contains("of the seed), interrupted"), "{text}");
    let o = unolab(&[
        "run",
        "-p",
        "2",
        "-s",
        preset.to_str().unwrap(),
        "-g",
        "10",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A network preset records its network's digest: a tournament interrupted
/// with one network was continued with another under the same file name
/// (retrained in place), mixing the two in one result; and a preset (or a
/// saved strategy) that names a digest is refused over another network.
/// A network preset `mine` in `dir` with a copy of the shipped `net`'s
/// weights beside it: (the weight file, the preset file).
fn network_preset_in(dir: &Path) -> (PathBuf, PathBuf) {
    let weights = dir.join("mine.safetensors");
    std::fs::copy("strategies/net.safetensors", &weights).unwrap();
    let preset = dir.join("mine.toml");
    std::fs::write(
        &preset,
        "name = \"mine\"\nbase = \"net\"\n[net]\nweights = \"mine.safetensors\"\n",
    )
    .unwrap();
    (weights, preset)
}

#[test]
fn a_saved_run_is_not_continued_with_another_network_under_the_same_name() {
    let dir = tempdir("net-digest");
    std::fs::create_dir_all(&dir).unwrap();
    let (weights, preset) = network_preset_in(&dir);
    let out = dir.join("t");
    let field = format!("tuned,color,{}", preset.display());
    let args = [
        "tournament",
        "-q",
        "-p",
        "4",
        "-g",
        "300000000",
        "--seed",
        "9",
        "-j",
        "1",
        "-s",
        field.as_str(),
        "-o",
        out.to_str().unwrap(),
    ];
    let o = terminated_after(&args, 1500);
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let state = read(&out.join("state.json"));
    let digest = {
        let m: Value = serde_json::from_str(&state).unwrap();
        let mine = m["tournament"]["field"]
            .as_array()
            .and_then(|v| v.iter().find(|s| s["name"] == "mine"))
            .cloned()
            .unwrap_or_else(|| panic!("{state}"));
        mine["params"]["digest"].as_str().unwrap().to_string()
    };
    assert_eq!(digest.len(), 16, "{state}");
    // Retrained in place: another network, the same file.
    std::fs::copy("strategies/net-all.safetensors", &weights).unwrap();
    let mut again = args.to_vec();
    again.push("--resume");
    let o = unolab(&again);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("it is another tournament (not the same: field)"),
        "{}",
        stderr(&o)
    );
    // A preset that names the digest of the first network.
    std::fs::write(
        &preset,
        format!("name = \"mine\"\nbase = \"net\"\n[net]\nweights = \"mine.safetensors\"\ndigest = \"{digest}\"\n"),
    )
    .unwrap();
    let lineup = format!("{},color", preset.display());
    let o = unolab(&["run", "-q", "-g", "10", "-s", &lineup]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("holds another network than the one recorded (digest")
            && stderr(&o).contains(&format!(
                "recorded {digest}): the weight file changed since"
            )),
        "{}",
        stderr(&o)
    );
    // The first network back: the preset plays, and the run continues.
    std::fs::copy("strategies/net.safetensors", &weights).unwrap();
    let o = unolab(&["run", "-q", "-g", "10", "-s", &lineup]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_search_preset_records_the_digest_of_each_network_it_uses() {
    let dir = common::tempdir_created("trust", "search-digest");
    let (weights, net) = network_preset_in(&dir);
    let search = dir.join("s.toml");
    std::fs::write(
        &search,
        format!(
            "name = \"s\"\nbase = \"pimc\"\n[search]\niterations = 4\nown_rollout = \"{}\"\n",
            net.display()
        ),
    )
    .unwrap();
    let lineup = format!("{},{},pimc-100", search.display(), net.display());
    // The line-up's descriptions in a run's manifest: the search's, the
    // network preset's and those of a search that uses no network.
    let described = |out: &str| -> (Value, Value, Value) {
        let out = dir.join(out);
        let o = unolab(&[
            "run",
            "-q",
            "-p",
            "3",
            "-g",
            "2",
            "-s",
            &lineup,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let m: Value = serde_json::from_str(&read(&out.join("manifest.json"))).unwrap();
        let l = &m["lineup"];
        (l[0].clone(), l[1].clone(), l[2].clone())
    };
    let (s, n, plain) = described("first");
    let digest = n["params"]["digest"].as_str().unwrap().to_string();
    assert_eq!(digest.len(), 16, "{n}");
    assert_eq!(
        s["networks"],
        serde_json::json!({ "own_rollout": digest }),
        "{s}"
    );
    // Retrained in place: the search's description changes with it.
    std::fs::copy("strategies/net-all.safetensors", &weights).unwrap();
    let (s2, n2, _) = described("second");
    let digest2 = n2["params"]["digest"].as_str().unwrap();
    assert_ne!(digest2, digest);
    assert_eq!(s2["networks"]["own_rollout"], digest2, "{s2}");
    // A search that uses no network describes none.
    assert_eq!(plain["base"], "pimc", "{plain}");
    assert!(plain.get("networks").is_none(), "{plain}");
}

#[test]
fn a_change_seen_in_every_deal_is_reported_with_an_interval_and_undefined_rows_are_said() {
    // B's turn limit truncates every round; A's never does: the difference
    // has no variance, but it is no less a change (it was "no variance",
    // without an interval, and left out of what changes).
    let dir = tempdir("constant");
    let o = unolab(&[
        "compare",
        "-s",
        "points,color,random,cautious",
        "--b-set",
        "max_turns=12",
        "-g",
        "300",
        "-j",
        "1",
        "-q",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = read(&dir.join("comparisons.csv"));
    let row: Vec<&str> = csv
        .lines()
        .find(|l| l.contains(",truncated_rate,"))
        .unwrap_or_else(|| panic!("no truncated_rate row: {csv}"))
        .split(',')
        .collect();
    assert_eq!(row[14], "constant in each arm", "{row:?}");
    let (diff, lo, hi): (f64, f64, f64) = (
        row[6].parse().unwrap(),
        row[7].parse().unwrap(),
        row[8].parse().unwrap(),
    );
    assert_eq!(diff, 1.0);
    // From each arm's own interval: 300 rounds put each end about 1.3
    // points from 0 and 100%.
    assert!(lo > 0.95 && lo < 1.0 && hi == 1.0, "{row:?}");
    let report = read(&dir.join("report.md"));
    assert!(
        report.contains("Differences seen in every deal played (each arm's value never varied, and the two differ)")
            && report.contains("truncated rounds +100.00 pp ["),
        "{report}"
    );
    // No round of B is won: its shares of won rounds are undefined, and said
    // to be, on the screen and in the report.
    let text = stdout(&o);
    assert!(
        text.contains("B: not shown, as undefined") && text.contains("first_mover_win_rate:all"),
        "{text}"
    );
    assert!(report.contains("B: not shown, as undefined"), "{report}");
    assert!(text.contains("constant"), "{text}");

    // The win rate of the only strategy at tables of 2 and 4 players is
    // 1/players in each arm: an identity of each table, not a change found,
    // so it stays "no variance", out of what changes.
    let exp = dir.join("sizes.toml");
    std::fs::write(
        &exp,
        "name = \"sizes\"\nbaseline = \"4 players\"\n\n[base]\nstrategies = \"points\"\ngames = 200\nseed = 3\n\n[grid]\nplayers = [2, 4]\n",
    )
    .unwrap();
    let out = dir.join("sizes");
    let o = unolab(&[
        "experiment",
        "run",
        exp.to_str().unwrap(),
        "-j",
        "1",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = read(&out.join("comparisons.csv"));
    let row = csv
        .lines()
        .find(|l| l.contains(",win_rate,points,"))
        .unwrap_or_else(|| panic!("no win_rate row: {csv}"));
    assert!(row.ends_with(",no variance"), "{row}");
    assert!(!read(&out.join("report.md")).contains("the same in every deal played (each"));
}
