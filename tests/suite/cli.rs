//! The real `unolab` binary: run --json / --out, trace, rules, bad input.

use crate::common::{self, stderr, stdout, terminated_after, unolab, TempDir};
use serde_json::Value;

fn tempdir(tag: &str) -> TempDir {
    common::tempdir("cli", tag)
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
    // turns has the fields of the other distributions (count and min were
    // missing).
    let keys = |k: &str| -> Vec<String> {
        let mut v: Vec<String> = a[k].as_object().unwrap().keys().cloned().collect();
        v.sort();
        v
    };
    assert_eq!(keys("turns"), keys("cards_drawn"));
    assert_eq!(a["turns"]["count"], 3000);
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
    assert!(dist.contains("points_per_seat_per_match,color,"));
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
        // (json_run gives --games: a flag given twice is refused.)
        let a = json_run(&["--rules", name, "--players", "5"]);
        let b = json_run(&["--rules", file.to_str().unwrap(), "--players", "5"]);
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
    // A hand size no table can be dealt: printed, every run refused it.
    bad(
        &["rules", "show", "classic", "--set", "hand_size=54"],
        "hand_size = 54: no table can be dealt from the 'classic' deck of 108 cards (2 players need 2 x 54 + 1 start card = 109; hand size at most 53 for 2 players)",
    );
    bad(&["run", "--mode", "tournament"], "tournament");
    // A match longer than the safety bound allows is refused, not cut
    // short at max_rounds.
    bad(
        &["trace", "--set", "rounds=1200", "--set", "target=0"],
        "rounds = 1200 is past max_rounds = 1000",
    );
    bad(
        &["run", "--mode", "match", "--set", "rounds=1001"],
        "raise max_rounds with it (max_rounds = 1001)",
    );
    // Quick play ends a match after one round: more rounds are refused,
    // not ignored.
    bad(
        &[
            "run",
            "--mode",
            "match",
            "--set",
            "quick=true",
            "--set",
            "rounds=5",
        ],
        "quick = true ends a match after its first round, and rounds = 5 asks for 5 rounds",
    );
    // So is a target score (rlcard's rules play quick), which was ignored
    // without a word.
    bad(
        &[
            "run",
            "--rules",
            "rlcard",
            "--mode",
            "match",
            "--set",
            "target=200",
        ],
        "quick = true ends a match after its first round, and target = 200 asks for a match to 200 points",
    );
    // A number past the setting's own range is said with that range, and
    // serde's words do not repeat the value.
    bad(
        &["run", "--set", "max_turns=18446744073709551615"],
        "max_turns = 18446744073709551615 is not valid (valid: 1 to 4294967295)",
    );
    bad(
        &["run", "--mode", "match", "--set", "target=-1"],
        "invalid value '-1' for setting 'target': expected a whole number from 0 to 4294967295",
    );
    let raised = unolab(&[
        "rules",
        "show",
        "classic",
        "--set",
        "rounds=1200",
        "--set",
        "max_rounds=1200",
    ]);
    assert!(raised.status.success(), "{}", stderr(&raised));
    bad(&["run", "--threads", "0"], "thread count");
    // The valid values, the missing argument and clap's suggestion survive
    // the one-line error.
    bad(&["run", "--mode", "foo"], "possible values: round, match");
    bad(&["rules", "show"], "<NAME>");
    bad(&["run", "--gamez", "5"], "'--games'");
    bad(&["run", "--threads", "1024"], "thread count");
    bad(&["completions", "tcsh"], "possible values");
}

#[test]
fn an_unwritable_out_is_refused_before_any_game() {
    // /proc does not allow new folders: refused at once, naming the path.
    let start = std::time::Instant::now();
    bad(
        &["run", "--games", "50000000", "--out", "/proc/unolab-x"],
        "/proc/unolab-x",
    );
    assert!(
        start.elapsed().as_secs() < 20,
        "refused before playing 50 million games"
    );
    // A file where the folder should be.
    let dir = tempdir("notadir");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("f");
    std::fs::write(&file, "x").unwrap();
    bad(
        &[
            "run",
            "--games",
            "50000000",
            "--out",
            file.to_str().unwrap(),
        ],
        "not a directory",
    );
    // A folder inside a read-only one (root ignores permissions: only check
    // when the permission really holds).
    use std::os::unix::fs::PermissionsExt;
    let ro = dir.join("ro");
    std::fs::create_dir_all(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(ro.join("probe"), "x").is_err() {
        bad(
            &[
                "run",
                "--games",
                "50000000",
                "--out",
                ro.join("sub").to_str().unwrap(),
            ],
            "cannot create",
        );
    }
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn sigterm_keeps_finished_work() {
    let dir = tempdir("term");
    let o = terminated_after(
        &[
            "run",
            "--games",
            "2000000000",
            "--threads",
            "1",
            "--json",
            "--out",
            dir.to_str().unwrap(),
        ],
        1500,
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("the summary is printed");
    assert_eq!(v["partial"], true);
    let games = v["games"].as_u64().unwrap();
    assert!(games > 0 && games < 2_000_000_000, "{games}");
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["partial"], true);
    assert_eq!(m["games_completed"].as_u64(), Some(games));
}

/// A partial duplicate run counts the deals it played: its header and
/// JSON gave the deals asked for (100,000,000 beside 1.6 million rounds).
#[test]
fn a_partial_duplicate_run_counts_the_deals_it_played() {
    let args = [
        "run",
        "--games",
        "300000000",
        "--players",
        "3",
        "--duplicate",
        "--threads",
        "1",
    ];
    let o = terminated_after(&[&args[..], &["--json"]].concat(), 1000);
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("the summary is printed");
    let games = v["games"].as_u64().unwrap();
    assert!(
        v["partial"] == true && games > 0 && games < 300_000_000,
        "{games}"
    );
    assert_eq!(v["deals"].as_u64(), Some(games / 3));
    let o = terminated_after(&args, 1000);
    let out = stdout(&o);
    assert!(
        out.contains("PARTIAL") && !out.contains("100000000 deals"),
        "{out}"
    );
}

/// With no round won (every round cut by the turn limit), the shares of
/// won rounds by position are undefined: they read 0.00% [0.00%, 100.00%]
/// in the text, the JSON and summary.csv (the CLI audit).
#[test]
fn position_shares_of_no_won_round_are_undefined() {
    let dir = tempdir("no-won");
    let args = [
        "run",
        "-q",
        "-j",
        "1",
        "-g",
        "300",
        "-p",
        "2",
        "-s",
        "points,color",
        "--set",
        "max_turns=5",
    ];
    let out = stdout(&unolab(&args));
    assert!(
        out.contains("wins by position in order of play from the first mover: not shown, as undefined (no round was won)")
            && !out.contains("+0:"),
        "{out}"
    );
    let o = unolab(&[&args[..], &["--json", "--out", dir.to_str().unwrap()]].concat());
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    for p in v["first_player"].as_array().unwrap() {
        assert!(p["win_rate"].is_null() && p["win_ci95"].is_null(), "{p}");
    }
    let csv = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let row = csv.lines().find(|l| l.starts_with("position,+0,")).unwrap();
    assert!(!row.contains("0.000000,0.000000,1.000000"), "{row}");
}

#[test]
fn quantiles_past_4096_are_exact_and_values_numeric() {
    let dir = tempdir("q");
    let o = unolab(&[
        "run",
        "--mode",
        "match",
        "--set",
        "target=5000",
        "--games",
        "60",
        "--players",
        "2",
        "--json",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let mp = &v["strategies"][0]["match_points"];
    let q: Vec<f64> = ["p25", "p50", "p75", "max"]
        .iter()
        .map(|k| mp[k].as_f64().unwrap())
        .collect();
    // 60 matches to 5,000 points between two players: the loser's totals
    // spread well below the winner's, so the quartiles cannot all be the max.
    assert!(q[0] < q[3] && q[0] <= q[1] && q[1] <= q[2], "{q:?}");
    let dist = std::fs::read_to_string(dir.join("distributions.csv")).unwrap();
    let mut rows = 0;
    for line in dist.lines().skip(1) {
        let value = line.split(',').nth(2).unwrap();
        assert!(
            value.parse::<u64>().is_ok(),
            "value '{value}' is not a number"
        );
        rows += 1;
    }
    assert!(
        dist.contains("points_per_seat_per_match,random,5"),
        "values past 4096 kept"
    );
    assert!(rows > 100);
}

#[test]
fn labels_settings_and_per_seat_rates() {
    // Penalty scoring: the points figure says what it is.
    let o = unolab(&[
        "run",
        "--set",
        "scoring=penalty",
        "--mode",
        "match",
        "--set",
        "target=200",
        "--games",
        "200",
        "--house",
        "stacking=cross",
        "--strategies",
        "points,random,random,random",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("penalty points per seat per round (points)"),
        "{text}"
    );
    assert!(!text.contains("points per round won"), "{text}");
    // Every changed setting is in the header.
    assert!(text.contains("settings: "), "{text}");
    for want in ["scoring=penalty", "target=200", "stacking=cross"] {
        assert!(
            text.lines().nth(1).unwrap().contains(want),
            "{want}: {text}"
        );
    }
    // Per-seat match wins are reported with their interval.
    assert!(text.contains("match wins"));
    let v = json_run(&[
        "--strategies",
        "points,random,random,random",
        "--set",
        "hand_size=5",
        "--house",
        "seven_o",
    ]);
    assert_eq!(v["changed_settings"]["hand_size"], 5);
    assert_eq!(v["changed_settings"]["seven_o"], true);
    assert_eq!(v["rule_set"]["settings"]["hand_size"], 5);
    // Win rate per seat held: random holds three seats, its per-seat rate is
    // its share divided by three, next to the fair share 1/4.
    let r = &v["strategies"][1];
    assert_eq!(r["name"], "random");
    assert_eq!(r["seats"], 3);
    let share = r["round_win_rate"].as_f64().unwrap();
    let per_seat = r["round_win_rate_per_seat"].as_f64().unwrap();
    assert!((per_seat - share / 3.0).abs() < 1e-5);
    assert_eq!(r["fair_share"], 0.25);
    let ci = r["round_win_rate_per_seat_ci95"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() < per_seat && per_seat < ci[1].as_f64().unwrap());
    // Round mode: no match figures at all.
    assert!(r["match_win_rate_per_seat"].is_null() && v["tied_matches"].is_null());
    let dir = tempdir("round");
    let o = unolab(&["run", "--games", "300", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success());
    let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let head: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = summary.lines().nth(1).unwrap().split(',').collect();
    for col in ["matches", "match_wins", "match_win_rate", "match_ci95_low"] {
        let i = head.iter().position(|h| *h == col).unwrap();
        assert_eq!(row[i], "", "{col} must be empty in round mode");
    }
}

#[test]
fn run_says_which_seating_and_duplicate_play_it_used() {
    // The default seating is mixed, in the text and the JSON; --duplicate
    // says so, with its deals and intervals clustered by deal.
    let o = unolab(&[
        "run",
        "-s",
        "points,color,random",
        "-g",
        "60",
        "--seed",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.contains("seating: mixed") && t.contains("all 12 in turn"),
        "{t}"
    );
    assert!(!t.contains("duplicate"), "{t}");
    let o = unolab(&[
        "run",
        "-s",
        "points,color,random",
        "-g",
        "60",
        "--duplicate",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(t.contains("duplicate play: 60 deals"), "{t}");
    assert!(t.contains("clustered by deal"), "{t}");
    let j = json_run(&["-s", "points,color", "--duplicate", "--seating", "rotate"]);
    assert_eq!(j["seating"], "rotate");
    assert_eq!(j["duplicate"], true);
    assert_eq!(j["deals"], 3000);
    assert_eq!(
        j["intervals"],
        "clustered by deal (delta method, Student's t over the deals) for shares and means"
    );
    let j = json_run(&["-s", "points,color"]);
    assert_eq!(j["seating"], "mixed");
    assert_eq!(j["arrangements"], 6);
    // manifest.json says it too (docs/guide.md): it lacked the arrangements
    // and the deals.
    let dir = tempdir("seating-manifest");
    let out = dir.join("out");
    let o = unolab(&[
        "run",
        "-s",
        "points,color,random",
        "-g",
        "20",
        "--duplicate",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["seating"], "mixed");
    assert_eq!(m["arrangements"], 12);
    assert_eq!(m["duplicate"], true);
    assert_eq!(m["deals"], 20);
    let o = unolab(&["run", "-g", "10", "--duplicate", "--seating", "fixed"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn a_quick_match_without_a_winner_is_not_a_tie() {
    let v: Value = {
        let o = unolab(&[
            "run",
            "--mode",
            "match",
            "--set",
            "quick=true",
            "--set",
            "max_turns=10",
            "--games",
            "500",
            "--json",
        ]);
        assert!(o.status.success());
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let truncated = v["truncated"].as_u64().unwrap();
    assert!(truncated > 0);
    assert_eq!(v["tied_matches"], 0);
    assert_eq!(
        v["no_winner_matches"].as_u64(),
        Some(truncated + v["blocked"].as_u64().unwrap())
    );
}

#[test]
fn manifest_records_strategies_as_data_and_a_preset_keeps_its_name() {
    let dir = tempdir("manifest");
    std::fs::create_dir_all(&dir).unwrap();
    let preset = dir.join("chaos.toml");
    std::fs::write(&preset, "name = \"chaos\"\nbase = \"random\"\n").unwrap();
    let out = dir.join("out");
    let o = unolab(&[
        "run",
        "--games",
        "500",
        "--strategies",
        &format!("{},points", preset.display()),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["strategies"][0]["name"], "chaos");
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let lineup = m["lineup"].as_array().unwrap();
    assert_eq!(lineup[0]["name"], "chaos");
    assert_eq!(lineup[0]["base"], "random");
    assert_eq!(lineup[1]["name"], "points");
    assert_eq!(lineup[1]["base"], "heuristic");
    assert_eq!(lineup[1]["params"]["points_weight"], 1.0);
    assert!(m["started_utc"].as_str().unwrap().ends_with('Z'));
    assert!(m["version"].is_string());
    assert!(m.get("git_commit").is_some());
}

#[test]
fn strategies_is_a_table_and_completions_print() {
    let o = unolab(&["strategies"]);
    let text = stdout(&o);
    assert!(text.starts_with("name"), "{text}");
    assert!(
        !text.contains("HeuristicParams"),
        "no Rust debug output: {text}"
    );
    assert!(text.contains("points_weight=1.0"));
    // A search preset: its budget, its rollout policy and what it sets away
    // from the defaults; --all adds the rest.
    let belief = |t: &str| {
        let lines: Vec<&str> = t.lines().collect();
        let i = lines
            .iter()
            .position(|l| l.starts_with("pimc-1k-belief "))
            .expect("pimc-1k-belief is listed");
        lines[i + 1].trim().to_string()
    };
    assert_eq!(
        belief(&text),
        "[search]: iterations=1000, rollout=\"color\", model=\"color\", model_turns=6, model_tries=16, model_sampler=\"chain\""
    );
    let all = stdout(&unolab(&["strategies", "--all"]));
    assert!(belief(&all).contains("widen=0.0, guide=\"\", prune=0, model=\"color\""));
    // The oracle's own keys (0: it sees every hand), which --all left out.
    let oracle = all
        .lines()
        .skip_while(|l| !l.starts_with("oracle-400 "))
        .nth(1)
        .expect("oracle-400 is listed");
    assert!(
        oracle.ends_with(", sees_next=0, sees_previous=0"),
        "{oracle}"
    );
    assert!(all.lines().count() == text.lines().count() - 1, "{all}");
    let o = unolab(&["completions", "bash"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("unolab"));
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
        // The line and key, not the parser's quoted line and carets.
        "broken.toml: line 4: count: expected a whole number from 0 to 4294967295, not the text \"two\"",
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
    let file = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    // A key missing from the whole file names no line (it blamed line 1).
    let nameless = file("nameless.toml", "# a comment\nbase = \"random\"\n");
    let o = unolab(&["run", "--strategies", nameless.to_str().unwrap()]);
    assert_eq!(
        stderr(&o).trim(),
        format!(
            "error: malformed strategy file {}: missing field `name`",
            nameless.display()
        )
    );
    // A misspelt base is said as such, with a [params] table too.
    let typo = file(
        "typo.toml",
        "name = \"t\"\nbase = \"heuristc\"\n[params]\npoints_weight = 2.0\n",
    );
    bad(
        &["run", "--strategies", typo.to_str().unwrap()],
        "base 'heuristc' is unknown (valid: heuristic,",
    );
    // Card points are a u16: a larger value is refused, not scored as 65535.
    let points = file(
        "points.toml",
        "name = \"p\"\n[points]\nwild = 70000\n[[deck]]\nfaces = [\"wild\", \"1\"]\ncount = 4\n",
    );
    bad(
        &["run", "--rules", points.to_str().unwrap()],
        "line 3: wild: invalid value: integer `70000`, expected a whole number from 0 to 65535",
    );
}

#[test]
fn long_strategy_names_keep_the_columns_and_short_flags_work() {
    let dir = tempdir("long");
    std::fs::create_dir_all(&dir).unwrap();
    let preset = dir.join("long.toml");
    std::fs::write(
        &preset,
        "name = \"a-very-long-strategy-name-indeed\"\nbase = \"heuristic\"\n",
    )
    .unwrap();
    let list = format!("{},random", preset.display());
    let o = unolab(&["run", "-g", "400", "-p", "3", "-s", &list, "-j", "1", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("strategy"))
        .take(3)
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    // The "seats" column ends at the same place on the header and both rows.
    let head_end = lines[0].find("seats").unwrap() + "seats".len();
    for row in &lines[1..] {
        let name_end = row.find(' ').unwrap();
        let seats_end = name_end + row[name_end..].find(|c: char| c != ' ').unwrap() + 1;
        assert_eq!(seats_end, head_end, "columns shifted:\n{text}");
    }
    assert!(text.contains("a-very-long-strategy-name-indeed"));
    assert!(text.contains("3 players, 400 rounds"));
}

#[test]
fn wide_and_combining_characters_in_names_keep_the_columns() {
    // Padding counted characters: a name of wide characters (two columns
    // each) pushed its row right, one with a combining mark pulled it left.
    let dir = tempdir("wide");
    std::fs::create_dir_all(&dir).unwrap();
    let (jp, cafe) = (dir.join("jp.toml"), dir.join("cafe.toml"));
    std::fs::write(&jp, "name = \"日本語\"\nbase = \"heuristic\"\n").unwrap();
    std::fs::write(&cafe, "name = \"cafe\u{301}\"\nbase = \"heuristic\"\n").unwrap();
    let list = format!("{},{},color", jp.display(), cafe.display());
    let o = unolab(&["run", "-g", "300", "-p", "3", "-s", &list, "-j", "1", "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    // "strategy" is 8 columns, the widest name; then " {:>5}" for seats.
    assert!(text.contains("\nstrategy seats "), "{text}");
    assert!(text.contains("\n日本語       1 "), "{text}");
    assert!(text.contains("\ncafe\u{301}         1 "), "{text}");
    assert!(text.contains("\ncolor        1 "), "{text}");
    // A tournament's table and head-to-head matrix too.
    let o = unolab(&[
        "tournament",
        "-s",
        &list,
        "-p",
        "2",
        "-g",
        "60",
        "-j",
        "1",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let matrix: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("head-to-head"))
        .skip(1)
        .take(4)
        .collect();
    // Every line of the matrix is 8 + 3 x 11 columns wide (the names here:
    // CJK ideographs count two columns, the combining acute accent none).
    let cols = |l: &str| -> usize {
        l.chars()
            .map(|c| match c as u32 {
                0x300..=0x36f => 0,
                0x3000..=0x9fff => 2,
                _ => 1,
            })
            .sum()
    };
    assert_eq!(matrix.len(), 4, "{text}");
    for l in &matrix {
        assert_eq!(cols(l), 41, "{l:?} in\n{text}");
    }
    // An experiment's table: the metric column (metric:group, the group a
    // strategy's name) is 34 columns, so the baseline's value starts at
    // column 28 + 1 + 34 + 1 = 64 on every row.
    let jp_color = format!("{},color", jp.display());
    let o = unolab(&[
        "compare",
        "-s",
        &jp_color,
        "-p",
        "2",
        "--b-house",
        "stacking=same",
        "-g",
        "300",
        "-q",
        "--threads",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let rows: Vec<&str> = text.lines().filter(|l| l.contains(" win_rate:")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    for row in rows {
        let at = row.find('%').unwrap();
        let start = row[..at].rfind(' ').unwrap() + 1;
        assert_eq!(cols(&row[..start]), 64, "{row:?} in\n{text}");
    }
}

#[test]
fn help_texts_name_only_files_of_the_repository() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut named: Vec<(String, String)> = Vec::new();
    let outputs: [&[&str]; 5] = [
        &["--help"],
        &["play", "--help"],
        &["trace", "--help"],
        &["run", "--help"],
        &["strategies"],
    ];
    for args in outputs {
        let o = unolab(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let text = stdout(&o);
        let words = text.split(|c: char| c.is_whitespace() || "()`,;:".contains(c));
        for w in words.map(|w| w.trim_end_matches('.')) {
            if w.ends_with(".md") {
                named.push((args.join(" "), w.to_string()));
            }
        }
    }
    for (args, file) in &named {
        assert!(
            root.join(file).is_file(),
            "`unolab {args}` names {file}, which is not a file of the repository"
        );
    }
    for (args, file) in [
        ("--help", "docs/trace.md"),
        ("play --help", "docs/trace.md"),
        ("strategies", "docs/agents.md"),
    ] {
        assert!(
            named.iter().any(|(a, f)| a == args && f == file),
            "`unolab {args}` should name {file}: {named:?}"
        );
    }
}

#[test]
fn a_rule_set_file_named_after_a_built_in_with_other_cards_says_so_in_the_header() {
    // `rules show classic` edited to 14 wilds printed "rules classic ...
    // settings: the defaults of classic", the header of real classic.
    let dir = common::tempdir_created("cli", "cards14");
    let shown = unolab(&["rules", "show", "classic"]);
    assert!(shown.status.success());
    let text = stdout(&shown).replace("count = 4", "count = 14");
    let f = dir.join("c14.toml");
    std::fs::write(&f, &text).unwrap();
    let run = |rules: &str| {
        let o = unolab(&["run", "-r", rules, "-p", "2", "-g", "20", "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let edited = run(f.to_str().unwrap());
    assert!(
        edited.contains("cards: a rule-set file named classic whose deck or points are not the built-in classic's"),
        "{edited}"
    );
    assert!(!run("classic").contains("cards:"));
    // The file as shown, or with another description, is classic's cards:
    // no line.
    let same = dir.join("same.toml");
    let described = stdout(&shown).replacen("description = \"", "description = \"mine: ", 1);
    assert_ne!(described, stdout(&shown));
    std::fs::write(&same, described).unwrap();
    assert!(!run(same.to_str().unwrap()).contains("cards:"));
}

#[test]
fn one_round_or_match_says_why_its_mean_has_no_interval() {
    // It said "the clusters' sums were not kept", which was not the reason.
    for (args, why) in [
        (&["-g", "1"][..], "(no interval from 1 round)"),
        (
            &["-g", "1", "-m", "match"][..],
            "(no interval from 1 match)",
        ),
    ] {
        let mut a = vec!["run", "-p", "3", "-s", "points,color", "-q"];
        a.extend(args);
        let o = unolab(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(
            out.lines()
                .any(|l| l.starts_with("turns per round: ") && l.contains(why)),
            "{out}"
        );
        // A strategy's points per round won count its won rounds (of one
        // round, 1 or 0), not the rounds or the clusters' sums.
        if args.len() == 2 {
            let points: Vec<&str> = out
                .lines()
                .filter(|l| l.starts_with("points per round won ("))
                .collect();
            assert_eq!(points.len(), 2, "{out}");
            // The winner's mean has no interval; the others' have no value
            // at all (it read "mean 0.00 (no interval from 0 won rounds)").
            assert_eq!(
                points
                    .iter()
                    .filter(|l| l.contains("(no interval from 1 won round)"))
                    .count(),
                1,
                "{out}"
            );
            assert_eq!(
                points
                    .iter()
                    .filter(|l| l.ends_with(": no value (0 won rounds)"))
                    .count(),
                1,
                "{out}"
            );
        }
    }
}

#[test]
fn a_mean_without_a_value_is_no_figure() {
    // One heads-up round: the loser has no round won, so no points per
    // round won. It read "0.0" in the table, "mean 0.00 ... max 0" in the
    // lines and 0.0 in --json and summary.csv: a figure without data.
    let dir = tempdir("novalue");
    let out = dir.join("out");
    let args = ["run", "-g", "1", "-s", "points,random", "-p", "2", "-q"];
    let o = unolab(&[&args[..], &["-o", out.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    let row = t.lines().find(|l| l.starts_with("random ")).unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[4..7], ["[0.00%,", "79.35%]", "-"], "{row}");
    assert!(
        t.contains("points per round won (random): no value (0 won rounds)\n"),
        "{t}"
    );
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = csv
        .lines()
        .find(|l| l.starts_with("strategy,random,"))
        .unwrap()
        .split(',')
        .collect();
    for col in ["points_mean", "points_sd", "points_p50"] {
        let i = head.iter().position(|h| *h == col).unwrap();
        assert_eq!(row[i], "", "{col} in {csv}");
    }
    let j: Value =
        serde_json::from_str(&stdout(&unolab(&[&args[..], &["--json"]].concat()))).unwrap();
    let random = j["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "random")
        .unwrap();
    assert!(random["points_mean"].is_null(), "{random}");
    assert_eq!(random["round_points"]["count"], 0);
    assert!(random["round_points"]["mean"].is_null(), "{random}");
}

/// With rounds that no one won, `run`'s text says the fair share no longer
/// holds (it printed 50% beside a strategy at 2.6% with 1,900 of 2,000
/// rounds truncated, and said so only on its last line; the experiments
/// audit); with every round won it says nothing more.
#[test]
fn run_says_when_rounds_without_a_winner_put_the_fair_share_out_of_reach() {
    let text = |extra: &[&str]| {
        let mut a = vec!["run", "-p", "2", "-s", "points,color", "-g", "200", "-q"];
        a.extend(extra);
        let o = unolab(&a);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let cut = text(&["--set", "max_turns=20"]);
    let line = cut
        .lines()
        .find(|l| l.contains("rounds had no winner"))
        .unwrap_or_else(|| panic!("{cut}"));
    assert!(
        line.contains("of 200 rounds had no winner (blocked or truncated, last line): the fair share holds when every round has one"),
        "{line}"
    );
    assert!(!text(&[]).contains("had no winner"));
}

/// Settings that only end a match change no round: a round-mode compare
/// whose B differs only in them is refused as the same configuration (it
/// played a whole A/B of identical deals), and a run that is given one says
/// so (the command-line audit, 2026-12-07); in match mode both are taken.
#[test]
fn match_only_settings_in_round_mode_are_named() {
    let o = unolab(&[
        "compare",
        "-j",
        "1",
        "-q",
        "-g",
        "20",
        "-s",
        "points,color",
        "--b-set",
        "target=200",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "in round mode target, rounds, max_rounds and quick, which end a match, do not either"
        ),
        "{}",
        stderr(&o)
    );
    let o = unolab(&[
        "compare",
        "-j",
        "1",
        "-q",
        "-g",
        "20",
        "-m",
        "match",
        "-s",
        "points,color",
        "--b-set",
        "target=200",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = unolab(&[
        "run",
        "-j",
        "1",
        "-q",
        "-g",
        "20",
        "--set",
        "target=200",
        "--set",
        "rounds=3",
    ]);
    assert!(o.status.success());
    assert_eq!(
        stderr(&o).trim(),
        "note: target, rounds end a match and change no round: this run plays rounds (--mode match plays matches)"
    );
    let o = unolab(&[
        "run",
        "-j",
        "1",
        "-q",
        "-g",
        "20",
        "-m",
        "match",
        "--set",
        "target=200",
    ]);
    assert!(
        o.status.success() && stderr(&o).is_empty(),
        "{}",
        stderr(&o)
    );
}

/// An interval end that rounds to the fair share but is not it is shown
/// with the decimals that tell its side: the first mover's position under
/// seven_o read "[25.00%, 25.38%]" where its lower end is 25.0027%, above
/// the fair 25% (the report's "detected only just").
#[test]
fn an_interval_end_next_to_the_fair_share_shows_its_side() {
    let o = unolab(&[
        "run",
        "--players",
        "4",
        "--strategies",
        "points,color,random,cautious",
        "--house",
        "seven_o",
        "--games",
        "200000",
        "--seed",
        "2026",
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("+0:   25.19%  [25.003%, 25.38%]"), "{out}");
    assert!(out.contains("+1:   25.19%  [24.997%, 25.38%]"), "{out}");
}

/// Blocked and truncated rounds and UNO penalties come with a rate per
/// round and its interval: Wilson over independent rounds, the clusters'
/// (the deals') under duplicate play; in the text and the JSON alike.
#[test]
fn rounds_without_a_winner_and_uno_penalties_have_a_rate_with_its_interval() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "-p",
            "4",
            "-s",
            "points,color,forgetful,cautious",
            "--set",
            "max_turns=60",
            "--set",
            "uno_catch_chance=0.5",
            "-g",
            "4000",
            "--seed",
            "11",
            "-j",
            "2",
            "-q",
        ];
        args.extend_from_slice(extra);
        let o = unolab(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let text = run(&[]);
    let v: serde_json::Value = serde_json::from_str(&run(&["--json"])).unwrap();
    let (rounds, truncated) = (
        v["rounds"].as_u64().unwrap(),
        v["truncated"].as_u64().unwrap(),
    );
    assert!(
        truncated > 100 && truncated < rounds,
        "{truncated} of {rounds}"
    );
    let (lo, hi) = unolab::sim::stats::wilson95(truncated, rounds);
    let t = &v["truncated_rate"];
    let near = |x: &serde_json::Value, y: f64| (x.as_f64().unwrap() - y).abs() < 1e-6;
    assert!(near(&t["rate"], truncated as f64 / rounds as f64), "{t}");
    assert!(near(&t["ci95"][0], lo) && near(&t["ci95"][1], hi), "{t}");
    let line = format!(
        "truncated rounds: {truncated} ({:.2}% [{:.2}%, {:.2}%] of rounds)",
        100.0 * truncated as f64 / rounds as f64,
        100.0 * lo,
        100.0 * hi
    );
    assert!(text.contains(&line), "{line}\n{text}");
    // No blocked round: 0% with Wilson's upper end above it.
    assert_eq!(v["blocked"], 0);
    assert!(v["blocked_rate"]["ci95"][1].as_f64().unwrap() > 0.0);
    // UNO penalties: a mean per round, inside its interval.
    let p = &v["uno_penalties_per_round"];
    let (m, plo, phi) = (
        p["mean"].as_f64().unwrap(),
        p["mean_ci95"][0].as_f64().unwrap(),
        p["mean_ci95"][1].as_f64().unwrap(),
    );
    assert!(
        v["uno_penalties"].as_u64().unwrap() > 100 && plo < m && m < phi,
        "{p}"
    );
    assert!(
        text.contains(&format!("({m:.4} [{plo:.4}, {phi:.4}] per round)")),
        "{text}"
    );
    // Duplicate play: the deals' interval (the same deal is played once per
    // rotation: its rounds truncate together, so the interval is wider).
    let d: serde_json::Value = serde_json::from_str(&run(&["--duplicate", "--json"])).unwrap();
    let t = &d["truncated_rate"];
    let (r, lo, hi) = (
        t["rate"].as_f64().unwrap(),
        t["ci95"][0].as_f64().unwrap(),
        t["ci95"][1].as_f64().unwrap(),
    );
    let (rounds, truncated) = (
        d["rounds"].as_u64().unwrap(),
        d["truncated"].as_u64().unwrap(),
    );
    let (wlo, whi) = unolab::sim::stats::wilson95(truncated, rounds);
    assert!(
        lo < r && r < hi && hi - lo > whi - wlo,
        "{t} against Wilson [{wlo}, {whi}]"
    );
    assert!(d["uno_penalties_per_round"]["mean_ci95"].is_array(), "{d}");
}
