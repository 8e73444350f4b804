//! External agents over the JSON Lines protocol (docs/protocol.md): the example
//! bot in real games, the exchange itself, every fault with its outcome, and no
//! program left running after a run, an error or a Ctrl-C.

use crate::common::{self, TempDir};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_unolab");
const SIMPLE: &str = "ext:python3 bots/simple.py";

fn unolab(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A scratch folder for one test, created empty, removed when the test ends.
fn tempdir(tag: &str) -> TempDir {
    common::tempdir_created("ext", tag)
}

/// The faulty test bot with a mode, the decision it misbehaves at, a pid file
/// and a log file.
fn faulty(name: &str, mode: &str, n: u32, dir: &Path) -> String {
    format!(
        "ext:{name}=python3 tests/bots/faulty.py {mode} {n} {} {}",
        dir.join("pids").display(),
        dir.join("log").display()
    )
}

/// A preset file `NAME.toml` in `dir` (base = "external") running the faulty
/// test bot with `mode`, its decision `n` and a pid file, then the lines
/// `extra` (such as `timeout_ms = ...`).
fn faulty_preset(dir: &Path, name: &str, mode: &str, n: u32, extra: &str) -> std::path::PathBuf {
    let preset = dir.join(format!("{name}.toml"));
    std::fs::write(
        &preset,
        format!(
            "name = \"{name}\"\nbase = \"external\"\ncommand = [\"python3\", \"tests/bots/faulty.py\", \"{mode}\", \"{n}\", \"{}\"]\n{extra}",
            dir.join("pids").display()
        ),
    )
    .unwrap();
    preset
}

fn pid_file(dir: &Path, name: &str) -> Vec<u32> {
    std::fs::read_to_string(dir.join(name))
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

/// The process ids the bots recorded (one line per program).
fn pids(dir: &Path) -> Vec<u32> {
    pid_file(dir, "pids")
}

/// The process ids of the helpers the bots started (`+helper` modes).
fn helper_pids(dir: &Path) -> Vec<u32> {
    pid_file(dir, "pids-helpers")
}

/// The state letter and process group of a process, from /proc.
fn state_and_group(stat: &str) -> Option<(char, u32)> {
    let mut f = stat.rsplit(')').next()?.split_whitespace();
    let state = f.next()?.chars().next()?;
    let group = f.nth(1)?.parse().ok()?;
    Some((state, group))
}

/// A process is gone when /proc has no entry for it (or only a zombie's).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(s) => state_and_group(&s).is_some_and(|(st, _)| st == 'Z'),
    }
}

/// The processes of process group `group` that are running (not zombies).
fn group_members(group: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        if let Some((st, g)) = state_and_group(&stat) {
            if g == group && st != 'Z' {
                out.push(pid);
            }
        }
    }
    out
}

/// Every program the bots recorded, every helper they started and every
/// other process of their process groups has ended (those left are killed,
/// so that a failing test leaves nothing behind).
fn assert_all_gone(dir: &Path) {
    let p = pids(dir);
    assert!(!p.is_empty(), "the bot recorded its pid");
    let mut left = Vec::new();
    // Ended programs are reaped by unolab before it exits; each program is
    // the leader of its own process group.
    for pid in p {
        if !gone(pid) {
            left.push(pid);
        }
        left.extend(group_members(pid));
    }
    left.extend(helper_pids(dir).into_iter().filter(|&h| !gone(h)));
    left.sort_unstable();
    left.dedup();
    if !left.is_empty() {
        for pid in &left {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
        panic!("processes left running: {left:?}");
    }
}

/// Runs unolab with stdout and stderr in files of `dir`; a run that has not
/// ended after `limit` (a hang: far beyond its normal time) is killed, with
/// what it left, and fails the test.
fn unolab_bounded(args: &[&str], dir: &Path, limit: Duration) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
        .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let left = std::panic::catch_unwind(|| assert_all_gone(dir)).is_err();
            panic!(
                "unolab {args:?} had not ended after {} s (processes left: {left})",
                limit.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: std::fs::read(dir.join("stdout")).unwrap(),
        stderr: std::fs::read(dir.join("stderr")).unwrap(),
    }
}

/// The lines a program read, from a log of the faulty bot.
fn read_log(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Checks the order of what one program heard: the `hello` first, then
/// matches, each a `match_start`, its rounds (a `round_start`, decisions, a
/// `round_end`, numbered from 1) and exactly one `match_end` before the next
/// `match_start`. Returns the number of matches.
fn check_notice_order(msgs: &[Value]) -> usize {
    #[derive(PartialEq, Debug)]
    enum At {
        Between,
        InMatch,
        InRound,
    }
    assert_eq!(msgs[0]["type"], "hello");
    let mut at = At::Between;
    let (mut matches, mut round) = (0, 0u64);
    for (i, m) in msgs.iter().enumerate().skip(1) {
        let t = m["type"].as_str().unwrap();
        let bad =
            |at: &At, round: u64| format!("message {i} ({t}) while {at:?} in round {round}: {m}");
        match t {
            "match_start" => {
                assert_eq!(at, At::Between, "{}", bad(&at, round));
                matches += 1;
                round = 0;
                at = At::InMatch;
            }
            "round_start" => {
                assert_eq!(at, At::InMatch, "{}", bad(&at, round));
                round += 1;
                assert_eq!(m["obs"]["round"], round, "{}", bad(&at, round));
                at = At::InRound;
            }
            "decide" => assert_eq!(at, At::InRound, "{}", bad(&at, round)),
            "round_end" => {
                assert_eq!(at, At::InRound, "{}", bad(&at, round));
                assert_eq!(m["round"], round, "{}", bad(&at, round));
                at = At::InMatch;
            }
            "match_end" => {
                assert_eq!(at, At::InMatch, "{}", bad(&at, round));
                assert_eq!(m["rounds"], round, "{}", bad(&at, round));
                at = At::Between;
            }
            _ => panic!("{}", bad(&at, round)),
        }
    }
    assert_eq!(at, At::Between, "the last match has no match_end");
    let count = |t: &str| msgs.iter().filter(|m| m["type"] == t).count();
    assert_eq!(count("match_start"), count("match_end"));
    matches
}

fn run_json(args: &[&str]) -> Value {
    let mut all = vec!["run", "--json", "--quiet"];
    all.extend_from_slice(args);
    let o = unolab(&all);
    assert!(o.status.success(), "{}", text(&o.stderr));
    serde_json::from_str(&text(&o.stdout)).unwrap()
}

#[test]
fn the_example_bot_plays_real_games_the_same_on_any_threads() {
    let args = |t: &'static str| {
        vec![
            "--strategies",
            "ext:python3 bots/simple.py,random",
            "--players",
            "3",
            "--games",
            "120",
            "--seed",
            "9",
            "--threads",
            t,
        ]
    };
    let a = run_json(&args("1"));
    let b = run_json(&args("2"));
    assert_eq!(a["strategies"], b["strategies"]);
    assert_eq!(a["seats"], b["seats"]);
    let s = &a["strategies"][0];
    assert_eq!(s["name"], "simple");
    assert_eq!(s["illegal"], 0);
    // It plays the highest card it may and keeps wilds: it beats random.
    let wins = s["round_wins"].as_u64().unwrap();
    assert!(wins > 80, "simple won {wins} of 120 rounds");
}

#[test]
fn a_trace_with_the_bot_and_matches_to_a_target() {
    let o = unolab(&[
        "trace",
        "--players",
        "2",
        "--seed",
        "3",
        "--strategies",
        &format!("{SIMPLE},first"),
        "--set",
        "target=200",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let lines: Vec<Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["strategies"][0], "simple");
    assert_eq!(lines.last().unwrap()["type"], "match_end");
    assert!(lines
        .iter()
        .any(|l| l["type"] == "play" && l["player"] == 0));
}

#[test]
fn the_exchange_has_hello_notices_and_every_decision_with_legal_answers() {
    let dir = tempdir("talk");
    // House rules that raise every decision: stacking, seven-o swaps,
    // challenges, jump-in, and a drawn card that may be played.
    let o = unolab(&[
        "run",
        "--quiet",
        "--json",
        "--players",
        "3",
        "--games",
        "40",
        "--threads",
        "1",
        "--mode",
        "match",
        "--set",
        "target=100",
        "--fixed-seats",
        "--house",
        "stacking=cross,seven_o,bluff_challenge,jump_in",
        "--strategies",
        &format!("{},random,first", faulty("talk", "ok", 1, &dir)),
        "--seed",
        "2",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let log = std::fs::read_to_string(dir.join("log")).unwrap();
    let msgs: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(msgs[0]["type"], "hello");
    assert_eq!(msgs[0]["version"], 1);
    assert_eq!(msgs[0]["settings"]["jump_in"], true);
    assert_eq!(msgs[0]["deck"].as_array().unwrap().len(), 108);
    assert_eq!(msgs[1]["type"], "match_start");
    assert_eq!(msgs[2]["type"], "round_start");
    let count = |t: &str| msgs.iter().filter(|m| m["type"] == t).count();
    assert_eq!(count("hello"), 1, "one program for the whole run");
    assert_eq!(count("match_end"), 40);
    assert_eq!(check_notice_order(&msgs), 40);
    assert!(count("round_end") >= 40);
    let mut kinds = std::collections::BTreeSet::new();
    for m in msgs.iter().filter(|m| m["type"] == "decide") {
        let d = m["decision"].as_str().unwrap();
        kinds.insert(d.to_string());
        let obs = &m["obs"];
        for key in [
            "seat",
            "round",
            "turn",
            "hand",
            "top",
            "color",
            "direction",
            "hand_sizes",
            "draw_pile",
            "discard",
            "totals",
            "pending_draw",
            "known",
        ] {
            assert!(obs.get(key).is_some(), "{d}: obs lacks {key}");
        }
        // The colour is null only while a wild start card awaits its colour.
        if obs["color"].is_null() {
            assert!(d == "color" && obs["turn"] == 0, "{m}");
        }
        assert!(
            !m["legal"].as_array().unwrap().is_empty(),
            "{d}: no legal answers"
        );
        if d == "play" {
            let hand: Vec<&str> = obs["hand"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            for c in m["legal"].as_array().unwrap() {
                let c = c.as_str().unwrap();
                assert!(c == "draw" || hand.contains(&c), "legal {c} not in hand");
            }
        }
        if d == "stack" {
            assert!(obs["pending_draw"].as_u64().unwrap() > 0);
        }
    }
    for d in [
        "play",
        "play_drawn",
        "color",
        "uno",
        "target",
        "stack",
        "challenge",
        "jump_in",
    ] {
        assert!(
            kinds.contains(d),
            "no {d} decision was asked; asked: {kinds:?}"
        );
    }
    let end = msgs.iter().find(|m| m["type"] == "match_end").unwrap();
    assert!(end["totals"].as_array().unwrap().len() == 3 && !end["rounds"].is_null());
    assert_all_gone(&dir);
}

#[test]
fn every_match_start_has_its_rounds_and_one_match_end_in_traces_and_runs() {
    // A trace: one match of several rounds.
    let dir = tempdir("order-trace");
    let o = unolab(&[
        "trace",
        "--players",
        "2",
        "--seed",
        "1",
        "--set",
        "target=100",
        "--strategies",
        &format!("{},random", faulty("order", "ok", 1, &dir)),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let msgs = read_log(&dir.join("log"));
    assert_eq!(check_notice_order(&msgs), 1);
    let end = msgs.iter().find(|m| m["type"] == "match_end").unwrap();
    assert!(end["rounds"].as_u64().unwrap() > 1, "{end}");
    assert_all_gone(&dir);

    // A run of matches with two programs (two line-up seats) that rotate
    // through the four seats: each hears every match, in order.
    let dir = tempdir("order-run");
    let spec = format!(
        "ext:order=python3 tests/bots/faulty.py ok 1 {} {},random",
        dir.join("pids").display(),
        dir.join("log-{pid}").display()
    );
    let o = unolab(&[
        "run",
        "--quiet",
        "--mode",
        "match",
        "--players",
        "4",
        "--games",
        "12",
        "--threads",
        "1",
        "--set",
        "target=100",
        "--seed",
        "4",
        "--strategies",
        &spec,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let p = pids(&dir);
    assert_eq!(p.len(), 2, "one program per line-up seat");
    for pid in p {
        let msgs = read_log(&dir.join(format!("log-{pid}")));
        assert_eq!(check_notice_order(&msgs), 12, "program {pid}");
    }
    assert_all_gone(&dir);
}

#[test]
fn the_legal_list_leaves_out_a_wild_beside_a_matching_card_under_wild_when_matching_false() {
    let dir = tempdir("wildmatch");
    let o = unolab(&[
        "run",
        "--quiet",
        "--json",
        "--players",
        "3",
        "--games",
        "30",
        "--threads",
        "1",
        "--set",
        "wild_when_matching=false",
        "--set",
        "strict=true",
        "--fixed-seats",
        "--strategies",
        &format!("{},random,first", faulty("wild", "ok", 1, &dir)),
        "--seed",
        "5",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let log = std::fs::read_to_string(dir.join("log")).unwrap();
    let msgs: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(msgs[0]["settings"]["wild_when_matching"], false);
    // A token's colour and face: "red-draw2" is ("red", "draw2"), "wild" is (None, "wild").
    let split = |t: &str| -> (Option<String>, String) {
        match t.split_once('-') {
            Some((c, f)) if ["red", "yellow", "green", "blue"].contains(&c) => {
                (Some(c.to_string()), f.to_string())
            }
            _ => (None, t.to_string()),
        }
    };
    let (mut offered, mut refused) = (0, 0);
    for m in msgs
        .iter()
        .filter(|m| m["type"] == "decide" && m["decision"] == "play")
    {
        let obs = &m["obs"];
        let color = obs["color"].as_str().unwrap();
        let (_, top_face) = split(obs["top"].as_str().unwrap());
        let hand: Vec<&str> = obs["hand"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let matching = hand.iter().any(|t| match split(t) {
            (Some(c), f) => c == color || f == top_face,
            (None, _) => false,
        });
        let legal: Vec<&str> = m["legal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        if hand.contains(&"wild") {
            if legal.contains(&"wild") {
                assert!(!matching, "wild offered beside a matching card: {m}");
                offered += 1;
            } else {
                assert!(matching, "wild refused without a matching card: {m}");
                refused += 1;
            }
        }
    }
    assert!(
        offered > 0 && refused > 0,
        "offered {offered}, refused {refused}"
    );
    assert_all_gone(&dir);
}

#[test]
fn a_program_that_does_not_exist_is_refused_before_any_work() {
    let o = unolab(&[
        "run",
        "--strategies",
        "ext:./no/such/bot.py,random",
        "--games",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("ext:./no/such/bot.py") && e.contains("does not exist"),
        "{e}"
    );
    assert!(o.stdout.is_empty());
    let o = unolab(&[
        "run",
        "--strategies",
        "ext:no-such-program-xyz,random",
        "--games",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("'no-such-program-xyz' is not on PATH"));
}

#[test]
fn a_folder_or_a_file_without_its_executable_bit_is_refused_before_any_work() {
    let dir = tempdir("noexec");
    let f = dir.join("bot.sh");
    std::fs::write(&f, "#!/bin/sh\n").unwrap(); // not executable
    for (prog, why) in [
        (f.display().to_string(), "is not executable"),
        (dir.display().to_string(), "is a directory"),
    ] {
        let spec = format!("ext:{prog},random");
        let out = dir.join("out");
        let o = unolab(&[
            "run",
            "--strategies",
            &spec,
            "--games",
            "5",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2));
        let e = text(&o.stderr);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(&format!("'{prog}' {why}")), "{e}");
        assert!(o.stdout.is_empty() && !out.exists(), "no work done");
    }
}

#[test]
fn a_program_that_cannot_start_stops_the_run_naming_the_seat() {
    // Executable, but its interpreter does not exist: found by the check,
    // refused by the system when it starts.
    let dir = tempdir("badinterp");
    let f = dir.join("bot.sh");
    std::fs::write(&f, "#!/no/such/interpreter\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let spec = format!("ext:{},random", f.display());
    let o = unolab(&[
        "run",
        "--quiet",
        "--strategies",
        &spec,
        "--games",
        "5",
        "--fixed-seats",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("at seat 0") && e.contains("cannot start") && e.contains("No such file"),
        "{e}"
    );
}

/// 30 heads-up games on one thread, seats fixed, of the line-up `spec`.
fn fault_args(spec: &str) -> [&str; 11] {
    [
        "run",
        "--quiet",
        "--players",
        "2",
        "--games",
        "30",
        "--threads",
        "1",
        "--fixed-seats",
        "--strategies",
        spec,
    ]
}

fn fault_run(mode: &str, n: u32, extra: &[&str]) -> (Output, TempDir, Duration) {
    let dir = tempdir(mode);
    let spec = format!("{},random", faulty("bad", mode, n, &dir));
    let mut args = fault_args(&spec).to_vec();
    args.extend_from_slice(extra);
    let t = Instant::now();
    let o = unolab(&args);
    (o, dir, t.elapsed())
}

#[test]
fn a_program_that_exits_stops_the_run_with_the_request() {
    let (o, dir, _) = fault_run("crash", 5, &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("strategy 'bad' at seat 0 failed in round 1")
            && e.contains("exited (exit status: 3) instead of answering request 5 (play)")
            && e.contains("game 0"),
        "{e}"
    );
    assert!(o.stdout.is_empty(), "no half-written results");
    assert_all_gone(&dir);
}

/// A run of the faulty bot in `mode` from decision `n` as a preset named
/// `name` with `timeout_ms = 300`, bounded to 60 s: its output, folder and
/// time taken.
fn fault_run_300ms(name: &str, mode: &str, n: u32) -> (Output, TempDir, Duration) {
    let dir = tempdir(mode);
    let preset = faulty_preset(&dir, name, mode, n, "timeout_ms = 300\n");
    let spec = format!("{},random", preset.display());
    let t = Instant::now();
    let o = unolab_bounded(&fault_args(&spec), &dir, Duration::from_secs(60));
    (o, dir, t.elapsed())
}

#[test]
fn a_silent_program_times_out_and_is_ended() {
    let (o, dir, took) = fault_run_300ms("sleepy", "silent", 3);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("strategy 'sleepy' at seat 0 failed")
            && e.contains("no answer to request 3 (play) within 300 ms"),
        "{e}"
    );
    assert!(took < Duration::from_secs(20));
    assert!(e.contains("(it wrote nothing)"), "{e}");
    assert_all_gone(&dir);
}

/// A program that begins a line and never ends it: the message quotes what
/// it wrote (it said "it wrote nothing"; the ext audit, 2026-12-07).
#[test]
fn a_line_begun_and_never_ended_is_quoted_when_the_time_is_up() {
    let (o, dir, _) = fault_run_300ms("unended", "unended", 3);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("no answer to request 3 (play) within 300 ms (it wrote '{\"answer\": ' and no line end)"),
        "{e}"
    );
    assert_all_gone(&dir);
}

/// A program that writes answers without reading its input: unolab took
/// its extra lines as the answers to the next requests, until the program's
/// input was full; then unolab's write waited for the program, which waited
/// for unolab to read, for ever (Ctrl-C could not end a Python run). A write
/// now gives up at the time limit.
#[test]
fn a_program_that_writes_without_reading_stops_the_run_at_the_time_limit() {
    let (o, dir, _) = fault_run_300ms("flood", "flood", 3);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("strategy 'flood' at seat 0 failed")
            && e.contains("(play) within 300 ms (it was not reading its input)"),
        "{e}"
    );
    assert!(o.stdout.is_empty(), "no half-written results");
    assert_all_gone(&dir);
}

#[test]
fn a_program_that_writes_garbage_stops_the_run_quoting_it() {
    let (o, dir, _) = fault_run("garbage", 2, &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("answered request 2 (play) with 'I am not JSON': not JSON"),
        "{e}"
    );
    assert_all_gone(&dir);
    // Control characters in the line are quoted escaped, not sent to the
    // terminal (a carriage return overwrote the start of the message, an
    // escape sequence coloured it), and the line is cut at 200 characters.
    let (o, dir, _) = fault_run("garbagectl", 2, &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    let quoted = format!(
        "with 'abc\\rdef\\u{{1b}}[31mRED\\u{{7}}{}...': not JSON",
        "z".repeat(184)
    );
    assert!(e.contains(&quoted), "{e}");
    assert!(!e.chars().any(|c| c.is_control() && c != '\n'), "{e:?}");
    assert_all_gone(&dir);
}

/// A program that answers a request twice is out of step: its extra line
/// would be read as the next request's answer, and every answer after as
/// the answer to the request after its own. A program that echoes the `id`
/// is caught at once.
#[test]
fn an_answer_that_echoes_another_requests_id_stops_the_run() {
    let (o, dir, _) = fault_run("twice", 2, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    // One line from unolab (the bot's count of its decisions, on its
    // standard error, passes through too).
    assert_eq!(
        e.lines().filter(|l| l.starts_with("error:")).count(),
        1,
        "{e}"
    );
    assert!(
        e.contains("strategy 'bad' at seat 0 failed in round 1: answered request 3 (")
            && e.contains("with '{\"id\": 2, \"answer\": ")
            && e.contains("its \"id\" is 2, not 3: an answer to another request"),
        "{e}"
    );
    assert!(o.stdout.is_empty(), "no half-written results");
    assert_all_gone(&dir);
    // The same bot, echoing its ids, plays on when it never answers twice.
    let (o, dir, _) = fault_run("twice", 1_000_000, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_all_gone(&dir);
}

#[test]
fn a_program_that_writes_an_endless_line_stops_the_run_at_once() {
    // A line was read whole, however long, so
    // a program writing without a line end filled memory (and here, with a
    // time limit, the run waited for it and blamed its silence).
    let (o, dir, _) = fault_run("long", 2, &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains(
            "the program wrote a line longer than 64 KiB instead of answering request 2 (play)"
        ),
        "{e}"
    );
    assert_all_gone(&dir);
}

#[test]
fn a_program_that_writes_bytes_that_are_not_utf8_stops_the_run() {
    let (o, dir, _) = fault_run("binary", 2, &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains(
            "the program wrote a line that is not UTF-8 instead of answering request 2 (play)"
        ),
        "{e}"
    );
    assert_all_gone(&dir);
}

#[test]
fn a_program_of_another_protocol_version_is_refused() {
    let (o, _dir, _) = fault_run("version", 1, &[]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("speaks protocol version 99, unolab speaks 1"),
        "{e}"
    );
}

#[test]
fn an_illegal_answer_is_a_wrong_card_sanction() {
    let (o, dir, _) = fault_run("illegal", 1, &["--json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    assert!(v["strategies"][0]["illegal"].as_u64().unwrap() > 0);
    assert_eq!(v["strategies"][1]["illegal"], 0);
    // In a trace: each illegal play is followed by the wrong-card draw.
    let spec = format!("{},first", faulty("bad", "illegal", 1, &dir));
    let o = unolab(&[
        "trace",
        "--players",
        "2",
        "--strategies",
        &spec,
        "--set",
        "quick=true",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let lines: Vec<Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let i = lines
        .iter()
        .position(|l| l["type"] == "illegal")
        .expect("an illegal line");
    assert_eq!(lines[i + 1]["type"], "draw");
    assert_eq!(lines[i + 1]["reason"], "wrong_card");
    // Under strict rules the same answer is an error instead.
    let o = unolab(&[
        "trace",
        "--players",
        "2",
        "--strategies",
        &spec,
        "--set",
        "quick=true",
        "--set",
        "strict=true",
        "--seed",
        "4",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("made an illegal action"), "{err}");
    // The error names the seed and the game, as run's does, so that the
    // game can be replayed.
    assert!(err.trim_end().ends_with("(seed 4, game 0)"), "{err}");
    assert!(o.stdout.is_empty(), "no trace is written");
}

#[test]
fn one_program_per_line_up_seat_per_worker_whatever_the_rotation() {
    // Four players, the line-up cycled to bot, random, bot, random: two bot
    // seats, which rotate through all four seats over the games.
    for (threads, most) in [("1", 2), ("2", 4)] {
        let dir = tempdir(&format!("count{threads}"));
        let spec = format!("{},random", faulty("ok", "ok", 1, &dir));
        let o = unolab(&[
            "run",
            "--quiet",
            "--players",
            "4",
            "--games",
            "64",
            "--threads",
            threads,
            "--strategies",
            &spec,
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let n = pids(&dir).len();
        assert!(n >= 2 && n <= most, "{n} programs on {threads} thread(s)");
        if threads == "1" {
            assert_eq!(n, 2);
        }
        assert_all_gone(&dir);
    }
}

#[test]
fn no_program_is_left_after_a_run_a_ctrl_c_or_a_sigterm() {
    let dir = tempdir("sigint");
    let spec = format!("{},random", faulty("ok", "ok", 1, &dir));
    let o = unolab(&[
        "run",
        "--quiet",
        "--players",
        "3",
        "--games",
        "30",
        "--threads",
        "2",
        "--strategies",
        &spec,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(pids(&dir).len() >= 2);
    assert_all_gone(&dir);

    // Ctrl-C and SIGTERM alike: the run stops after the games in progress,
    // reports them as partial and ends its programs.
    for signal in ["-INT", "-TERM"] {
        let dir = tempdir(&format!("signal{signal}"));
        let spec = format!("{},random", faulty("ok", "ok", 1, &dir));
        let child = Command::new(BIN)
            .args([
                "run",
                "--quiet",
                "--players",
                "2",
                "--games",
                "1000000",
                "--threads",
                "2",
                "--strategies",
                &spec,
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let t = Instant::now();
        while pids(&dir).len() < 2 {
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "the bots did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(300));
        let st = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(130), "{signal}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains("interrupted"),
            "{}",
            text(&o.stderr)
        );
        assert!(
            text(&o.stdout).contains("ok"),
            "the finished games are reported"
        );
        assert_all_gone(&dir);
    }
}

#[test]
fn an_interrupt_with_a_slow_program_stops_after_the_game_in_progress() {
    // A run or tournament with a program handed out work 16 games at a
    // time, so Ctrl-C during a slow program's first game waited for 15 more
    // (for ever, to a person or a slow service). Now one deal at a time: the
    // game in progress finishes and the rest is left.
    for cmd in ["run", "tournament"] {
        let dir = tempdir(&format!("slow-{cmd}"));
        let out = dir.join("out");
        // The program takes 3 s to answer its hello, in the first game.
        let spec = format!("{},random", faulty("slow", "slowhello", 3, &dir));
        let child = Command::new(BIN)
            .args([
                cmd,
                "--quiet",
                "--players",
                "2",
                "--games",
                "20",
                "--threads",
                "1",
                "--strategies",
                &spec,
                "--out",
                out.to_str().unwrap(),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let t = Instant::now();
        while pids(&dir).is_empty() {
            assert!(t.elapsed() < HANG, "the bot did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        let st = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let o = child.wait_with_output().unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{cmd}: {err}");
        assert!(
            err.contains("interrupted: 1 of 20 games finished"),
            "{cmd}: {err}"
        );
        if cmd == "tournament" {
            // It says how to continue it.
            assert!(
                err.contains("the same command with --resume continues it")
                    && out.join("state.json").is_file(),
                "{err}"
            );
        }
        let m: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(m["partial"], true, "{cmd}: {m}");
        assert_all_gone(&dir);
    }
}

#[test]
fn no_program_plays_the_same_deal_twice() {
    // Duplicate play and a comparison's arms play each deal more than once;
    // one program played them all (a pool shared by the instances), so a
    // program that remembered knew the other seat's hand in the second
    // game of a deal (an audit: 92 of 92 cards the opponent played came from
    // the hand the program had held). Now each rotation of a deal and each
    // arm has its own program: here 6 deals, in 2 rotations or 2 arms,
    // played by 2 programs that each see every deal once; and a comparison
    // of duplicate deals, 2 rotations in each of 2 arms, by 4 (its arms
    // shared one program between the rotations of a deal: an audit saw a
    // program play the same deal from both seats).
    for (tag, extra, programs) in [
        ("duplicate", vec!["run", "--duplicate"], 2),
        (
            "compare",
            vec!["compare", "--b-seat", "1=first", "--seating", "fixed"],
            2,
        ),
        (
            "compare-duplicate",
            vec!["compare", "--b-seat", "1=first", "--duplicate"],
            4,
        ),
    ] {
        let dir = tempdir(&format!("once-{tag}"));
        let spec = format!(
            "ext:bot=python3 tests/bots/faulty.py ok 1 {} {}",
            dir.join("pids").display(),
            dir.join("log-{pid}").display()
        );
        let mut args = extra.clone();
        args.extend([
            "--quiet",
            "--players",
            "2",
            "--games",
            "6",
            "--threads",
            "1",
            "--seed",
            "9",
            "--strategies",
        ]);
        let lineup = format!("{spec},random");
        args.push(&lineup);
        let o = unolab(&args);
        assert!(o.status.success(), "{tag}: {}", text(&o.stderr));
        let p = pids(&dir);
        assert_eq!(
            p.len(),
            programs,
            "{tag}: one program per rotation and arm: {p:?}"
        );
        for pid in p {
            let log = std::fs::read_to_string(dir.join(format!("log-{pid}"))).unwrap();
            let rounds = log
                .lines()
                .filter(|l| l.contains("\"round_start\""))
                .count();
            assert_eq!(rounds, 6, "{tag}: program {pid} saw {rounds} rounds, not 6");
        }
        assert_all_gone(&dir);
    }
}

/// Long enough for any of these runs on a loaded machine; only a hang
/// reaches it.
const HANG: Duration = Duration::from_secs(120);

#[test]
fn a_program_whose_helper_holds_its_output_ends_with_the_run() {
    // A preset file (base = "external"), a helper that shares the program's
    // output: the run ends, reports, and ends the helper too.
    let dir = tempdir("helper-preset");
    let preset = faulty_preset(&dir, "helper", "ok+helper", 1, "");
    let spec = format!("{},random", preset.display());
    let args = [
        "run", "--quiet", "--json", "-s", &spec, "-p", "2", "-g", "20", "-j", "1",
    ];
    let o = unolab_bounded(&args, &dir, HANG);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    assert_eq!(v["games"], 20);
    assert_eq!(v["partial"], false);
    assert_eq!(helper_pids(&dir).len(), 1, "the bot started its helper");
    assert_all_gone(&dir);

    // The short form, helpers that ignore SIGTERM (SIGKILL ends them), two
    // threads and two programs per thread.
    let dir = tempdir("helper-short");
    let spec = format!("{},random", faulty("stubborn", "ok+stubborn", 1, &dir));
    let args = [
        "run", "--quiet", "--json", "-s", &spec, "-p", "3", "-g", "30", "-j", "2",
    ];
    let o = unolab_bounded(&args, &dir, HANG);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: Value = serde_json::from_str(&text(&o.stdout)).unwrap();
    assert_eq!(v["games"], 30);
    assert!(helper_pids(&dir).len() >= 2);
    assert_all_gone(&dir);

    // A trace of a match.
    let dir = tempdir("helper-trace");
    let spec = format!("{},random", faulty("helper", "ok+helper", 1, &dir));
    let args = ["trace", "-s", &spec, "-p", "2", "--set", "target=100"];
    let o = unolab_bounded(&args, &dir, HANG);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("\"type\":\"match_end\""));
    assert_all_gone(&dir);
}

#[test]
fn a_program_that_exits_while_its_helper_holds_its_output_stops_the_run_as_exited() {
    let dir = tempdir("helper-crash");
    let spec = format!("{},random", faulty("bad", "crash+helper", 5, &dir));
    let args = [
        "run",
        "--quiet",
        "-s",
        &spec,
        "-p",
        "2",
        "-g",
        "30",
        "-j",
        "1",
        "--fixed-seats",
    ];
    let o = unolab_bounded(&args, &dir, HANG);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    // Its exit is seen though its output stays open: no wait for the time
    // limit, which would report silence instead.
    assert!(
        e.contains("strategy 'bad' at seat 0 failed in round 1")
            && e.contains("exited (exit status: 3) instead of answering request 5 (play)"),
        "{e}"
    );
    assert!(o.stdout.is_empty(), "no half-written results");
    assert_all_gone(&dir);
}

#[test]
fn a_ctrl_c_once_or_twice_ends_every_program_and_its_helpers() {
    for signals in [1, 2] {
        let dir = tempdir(&format!("helper-int{signals}"));
        let spec = format!("{},random", faulty("helper", "ok+helper", 1, &dir));
        let args = [
            "run", "--quiet", "-s", &spec, "-p", "3", "-g", "1000000", "-j", "2",
        ];
        let mut child = Command::new(BIN)
            .args(args)
            .stdout(std::fs::File::create(dir.join("stdout")).unwrap())
            .stderr(std::fs::File::create(dir.join("stderr")).unwrap())
            .spawn()
            .unwrap();
        let t = Instant::now();
        while helper_pids(&dir).len() < 2 {
            assert!(t.elapsed() < HANG, "the bots did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(300));
        for _ in 0..signals {
            let st = Command::new("kill")
                .args(["-INT", &child.id().to_string()])
                .status()
                .unwrap();
            assert!(st.success());
            std::thread::sleep(Duration::from_millis(20));
        }
        let t = Instant::now();
        let status = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            if t.elapsed() > HANG {
                let _ = child.kill();
                let _ = child.wait();
                let _ = std::panic::catch_unwind(|| assert_all_gone(&dir));
                panic!("{signals} Ctrl-C: unolab had not ended");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let err = std::fs::read_to_string(dir.join("stderr")).unwrap();
        assert_eq!(status.code(), Some(130), "{signals} Ctrl-C: {err}");
        if signals == 1 {
            // One Ctrl-C: the games finished are reported.
            assert!(err.contains("interrupted"), "{err}");
            let out = std::fs::read_to_string(dir.join("stdout")).unwrap();
            assert!(out.contains("helper"), "{out}");
        }
        assert_all_gone(&dir);
    }
}

#[test]
fn the_library_reaps_its_programs_and_ends_their_helpers() {
    use unolab::agents::parse_list;
    use unolab::engine::rules::Rules;
    use unolab::sim::{run, RunConfig};
    let dir = tempdir("helper-lib");
    let spec = format!(
        "ext:python3 tests/bots/faulty.py ok+helper 1 {},random",
        dir.join("pids").display()
    );
    let cfg = RunConfig::builder(
        Rules::load("classic").unwrap(),
        4,
        &parse_list(&spec).unwrap(),
    )
    .games(16)
    .seed(7)
    .threads(2)
    .build()
    .unwrap();
    // In a thread, so that a hang fails the test.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let stop = std::sync::atomic::AtomicBool::new(false);
        let _ = tx.send(run(&cfg, &stop, &|_| {}).map(|o| o.stats.games));
    });
    match rx.recv_timeout(HANG) {
        Ok(games) => assert_eq!(games, Ok(16)),
        Err(_) => {
            let _ = std::panic::catch_unwind(|| assert_all_gone(&dir));
            panic!("the run had not ended");
        }
    }
    // The programs were children of this process: reaped, so not even a
    // zombie is left of them.
    let p = pids(&dir);
    assert!(p.len() >= 2);
    for pid in &p {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "program {pid} was not reaped"
        );
    }
    assert_eq!(helper_pids(&dir).len(), p.len());
    assert_all_gone(&dir);
}

/// Counts of each token in a list of tokens.
fn multiset(v: &Value) -> std::collections::BTreeMap<String, usize> {
    let mut m = std::collections::BTreeMap::new();
    for t in v.as_array().unwrap() {
        *m.entry(t.as_str().unwrap().to_string()).or_insert(0) += 1;
    }
    m
}

/// `a` minus `b`, token by token (`None` when `b` is not within `a`).
fn minus(
    a: &std::collections::BTreeMap<String, usize>,
    b: &std::collections::BTreeMap<String, usize>,
) -> Option<std::collections::BTreeMap<String, usize>> {
    let mut out = a.clone();
    for (t, &n) in b {
        let have = out.get_mut(t)?;
        *have = have.checked_sub(n)?;
    }
    out.retain(|_, n| *n > 0);
    Some(out)
}

/// A swap card of seven-o: a 7 or a 0.
fn swaps(token: &str) -> bool {
    token.ends_with("-7") || token.ends_with("-0")
}

#[test]
fn the_obs_tells_what_the_seat_knows_of_each_other_hand() {
    // Heads-up seven-o: after the program plays a 7 or a 0 the hands are
    // swapped, so the other hand holds the program's old hand but that card.
    // At its next decision `known[1]` is within that hand and lacks at most
    // the cards played since; its own entry is always empty.
    let dir = tempdir("known");
    let log = dir.join("talk.log");
    let agent = format!(
        "ext:python3 bots/tee.py {} python3 bots/simple.py",
        log.display()
    );
    let o = unolab(&[
        "run",
        "--players",
        "2",
        "--games",
        "60",
        "--house",
        "seven_o",
        "--fixed-seats",
        "--threads",
        "1",
        "--seed",
        "11",
        "--strategies",
        &format!("{agent},first"),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines = text.lines().peekable();
    // (hand after the swap card, discard then, turn) of the last swap card played.
    let mut gave: Option<(Value, Value, u64)> = None;
    let (mut checked, mut known_seen) = (0, 0);
    while let Some(l) = lines.next() {
        let m: Value = serde_json::from_str(&l[2..]).unwrap();
        if m["type"] == "round_start" {
            gave = None;
        }
        if m["type"] != "decide" {
            continue;
        }
        let obs = &m["obs"];
        let known = obs["known"].as_array().expect("obs.known is a list");
        assert_eq!(known.len(), 2, "{obs}");
        assert_eq!(
            known[0],
            Value::Array(vec![]),
            "the own entry is empty: {obs}"
        );
        let sizes = obs["hand_sizes"].as_array().unwrap();
        assert!(known[1].as_array().unwrap().len() as u64 <= sizes[1].as_u64().unwrap());
        known_seen += usize::from(!known[1].as_array().unwrap().is_empty());
        let turn = obs["turn"].as_u64().unwrap();
        if let Some((given, discard, _)) = gave.take_if(|g| g.2 < turn) {
            let played = minus(&multiset(&obs["discard"]), &multiset(&discard));
            // A reshuffle, or a swap back, tells no more than that.
            if let Some(played) = played.filter(|p| !p.keys().any(|t| swaps(t))) {
                let k = multiset(&known[1]);
                assert!(
                    minus(&multiset(&given), &k).is_some(),
                    "{k:?} not in {given}"
                );
                let n: usize = k.values().sum();
                let since: usize = played.values().sum();
                let whole = given.as_array().unwrap().len();
                assert!(
                    n + since >= whole,
                    "{n} known + {since} played < {whole}: {obs}"
                );
                checked += 1;
            }
        }
        let answer: Value = serde_json::from_str(&lines.next().unwrap()[2..]).unwrap();
        let card = answer["answer"].as_str().unwrap_or("");
        if m["decision"] == "play" && swaps(card) {
            let mut hand = obs["hand"].as_array().unwrap().clone();
            let i = hand.iter().position(|t| t == card).unwrap();
            hand.remove(i);
            let mut discard = obs["discard"].as_array().unwrap().clone();
            discard.push(Value::from(card));
            gave = Some((Value::Array(hand), Value::Array(discard), turn));
        }
    }
    assert!(checked >= 20, "only {checked} swaps checked");
    assert!(known_seen >= 20, "only {known_seen} decisions knew a card");
}

#[test]
fn an_interrupt_while_a_program_thinks_is_an_interrupt_not_its_failure() {
    // Ctrl-C during `trace` (or `play`) while a program was thinking ended
    // the program, and the command, seeing it end, often reported "the
    // program exited (signal: 15) instead of answering" with status 2 before
    // the interrupt's own line and 130 (an audit: 4 of 5 runs).
    let dir = tempdir("trace-int-thinking");
    for _ in 0..4 {
        let bot = faulty("slow", "silent", 1, &dir);
        let lineup = format!("{bot},random");
        let out = dir.join("t.jsonl");
        let o = common::signalled_after(
            &[
                "trace",
                "-p",
                "2",
                "-s",
                &lineup,
                "-o",
                out.to_str().unwrap(),
            ],
            1500,
            &["-INT"],
        );
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{e}");
        assert_eq!(
            e,
            "interrupted: the match was not finished; no trace written\n"
        );
        assert!(!out.exists());
    }
    assert_all_gone(&dir);
}

#[test]
fn a_person_who_leaves_play_does_not_wait_for_the_programs_at_the_table() {
    // Leaving (quit, or the end of input) played the round out with the
    // programs answering as slowly as they do: a program that takes its hour
    // kept the person waiting that long (an audit: 8 s against a program
    // answering in 0.3 s). The programs are now ended when the person
    // leaves. Here the person leaves at the first prompt (no input), and the
    // program falls silent at its second decision with an hour to answer:
    // without the change only the HANG bound ends the command.
    let dir = tempdir("play-leave");
    let preset = faulty_preset(&dir, "slow", "silent", 2, "timeout_ms = 3600000\n");
    let args = [
        "play",
        "--seed",
        "1",
        "-p",
        "2",
        "-s",
        preset.to_str().unwrap(),
    ];
    let o = unolab_bounded(&args, &dir, HANG);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).ends_with("You left the table in round 1.\n"),
        "{}",
        text(&o.stdout)
    );
    assert_all_gone(&dir);
}

/// Every file under `dir` (relative paths, hidden ones too) with its bytes.
fn folder_bytes(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    common::files_under(dir)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(dir.join(&p)).unwrap();
            (p, bytes)
        })
        .collect()
}

#[test]
fn force_keeps_the_earlier_results_until_the_new_command_has_written_its_own() {
    // `--force` removed the earlier results before the first game: a run
    // that then failed (a program that crashed) left an empty folder, the
    // results it was to replace gone.
    let d = tempdir("force-keeps");
    let out = d.join("out");
    let o = out.to_str().unwrap();
    let crash = faulty("crash", "crash", 3, &d);
    let lineup = format!("color,{crash}");
    // Each command, the argument its failing form replaces, and by what.
    let tournament_field = format!("color,points,{crash}");
    let compare_seat = format!("0={crash}");
    for (first, good, bad) in [
        (
            vec!["run", "-q", "-g", "300", "-s", "color,points"],
            "color,points",
            lineup.as_str(),
        ),
        (
            vec![
                "tournament",
                "-q",
                "-p",
                "2",
                "-g",
                "100",
                "-s",
                "color,points,random",
            ],
            "color,points,random",
            tournament_field.as_str(),
        ),
        (
            vec![
                "compare",
                "-q",
                "-p",
                "2",
                "-s",
                "color,points",
                "--b-seat",
                "0=tuned",
                "-g",
                "200",
            ],
            "0=tuned",
            compare_seat.as_str(),
        ),
    ] {
        let failing: Vec<&str> = first
            .iter()
            .map(|a| if *a == good { bad } else { a })
            .collect();
        let _ = std::fs::remove_dir_all(&out);
        let w = unolab(&[&first[..], &["-o", o]].concat());
        assert!(w.status.success(), "{}", text(&w.stderr));
        let before = folder_bytes(&out);
        assert!(before.len() >= 3, "{first:?}: {before:?}");
        // A command over them that fails: they stay as they were.
        let f = unolab(&[&failing[..], &["-o", o, "--force"]].concat());
        assert_eq!(f.status.code(), Some(2), "{}", text(&f.stderr));
        assert!(text(&f.stderr).contains("crash"), "{}", text(&f.stderr));
        assert!(
            folder_bytes(&out) == before,
            "{first:?}: the earlier results changed"
        );
        // A command over them that succeeds: its results, and nothing of
        // the earlier ones nor of the folder they were kept in.
        let mut again = first.clone();
        again.extend(["--seed", "77", "-o", o, "--force"]);
        let w = unolab(&again);
        assert!(w.status.success(), "{}", text(&w.stderr));
        let after = folder_bytes(&out);
        assert!(after != before, "{first:?}");
        assert!(
            std::fs::read_dir(&out).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with('.')),
            "{first:?}: a hidden folder was left in {o}"
        );
        assert!(
            std::fs::read_to_string(out.join("manifest.json"))
                .unwrap()
                .contains("\"77\""),
            "{first:?}: not the new results"
        );
    }
}

/// A program that hangs under a long time limit no longer keeps a run alive
/// after one SIGTERM (what a scheduler sends): once interrupted, a wait on a
/// program ends within `AFTER_INTERRUPT_MS` (10 s), and the run ends with a
/// line saying so. It ran on, with the program, until a second signal.
#[test]
fn a_hung_program_under_a_long_time_limit_does_not_outlast_an_interrupt() {
    let dir = tempdir("hung-after-interrupt");
    let preset = faulty_preset(&dir, "hangs", "silent", 3, "timeout_ms = 99999999999\n");
    let spec = format!("{},random", preset.display());
    let child = Command::new(BIN)
        .args(["run", "-q", "-p", "2", "-g", "100", "-j", "1", "-s", &spec])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while pid_file(&dir, "pids").is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the bot did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Past its third decision, where it stops answering.
    std::thread::sleep(Duration::from_millis(1500));
    let st = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    // One signal, and the run ends on its own (the bound is 10 s; a minute
    // is allowed for a loaded machine, where before it never ended).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let o = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the run outlasted the interrupt")
        .unwrap();
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("within 10 s of the interrupt"), "{err}");
    assert_all_gone(&dir);
}

/// Lines in the faulty bots' shared log: the messages they have read.
fn log_lines(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("log"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

/// Runs unolab with `args` until the bots (pid files in `dir`) have played a
/// while, then signals as a batch scheduler does: SIGTERM to every bot,
/// and 150 ms later to unolab; returns what unolab wrote and its status.
fn signalled_as_a_job(args: &[&str], dir: &Path) -> Output {
    let child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    // Both bots greeted (a slow start of one, on a busy host, left its
    // thread on the first game while the other played 400 lines: nothing
    // was kept), then 400 lines more.
    let hellos = || {
        std::fs::read_to_string(dir.join("log"))
            .map(|s| s.lines().filter(|l| l.contains("\"hello\"")).count())
            .unwrap_or(0)
    };
    while pids(dir).len() < 2 || hellos() < 2 {
        assert!(t.elapsed() < HANG, "{args:?}: the bots did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let base = log_lines(dir);
    while log_lines(dir) < base + 400 {
        assert!(t.elapsed() < HANG, "{args:?}: the bots did not play");
        std::thread::sleep(Duration::from_millis(20));
    }
    for pid in pids(dir) {
        let _ = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
    }
    std::thread::sleep(Duration::from_millis(150));
    let st = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    child.wait_with_output().unwrap()
}

/// A batch scheduler's SIGTERM reaches every process of the job, the
/// programs too, in no set order. A program ended that way used to fail the
/// game in progress, and with it the whole run: nothing was kept. Now the
/// games it could not finish are left out, as if the interrupt had come
/// before them, and every command keeps what finished. Here the programs
/// get their SIGTERM first and unolab its own a moment later; the run's
/// games are a prefix (a run of that many games, uninterrupted, gives the
/// same counts), and a shard resumes from what it kept.
#[test]
fn programs_ended_by_the_same_signal_leave_the_finished_games_kept() {
    // The last: a program that catches SIGTERM and exits with 143.
    for (cmd, mode) in [
        ("run", "ok"),
        ("tournament", "ok"),
        ("compare", "ok"),
        ("shard", "ok"),
        ("run", "ok+graceful"),
    ] {
        let dir = tempdir(&format!("same-signal-{cmd}-{mode}"));
        let out = dir.join("out");
        let spec = format!("{},random", faulty("ok", mode, 1, &dir));
        let mut args = vec![
            if cmd == "shard" { "run" } else { cmd },
            "--quiet",
            "--players",
            "2",
            "--games",
            "1000000",
            "--threads",
            "2",
            "--strategies",
            &spec,
            "--out",
            out.to_str().unwrap(),
        ];
        match cmd {
            "compare" => args.extend(["--b-seat", "1=first"]),
            "shard" => args.extend(["--shard", "1/2"]),
            _ => {}
        }
        let o = signalled_as_a_job(&args, &dir);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{cmd}: {err}");
        let how = if mode == "ok" {
            "SIGTERM"
        } else {
            "exit status: 143"
        };
        assert!(
            err.contains("could not finish and are left out") && err.contains(how),
            "{cmd} {mode}: {err}"
        );
        assert!(!err.contains("error:"), "{cmd}: {err}");
        assert_all_gone(&dir);
        match cmd {
            "run" => {
                let m: Value = serde_json::from_str(
                    &std::fs::read_to_string(out.join("manifest.json")).unwrap(),
                )
                .unwrap();
                assert_eq!(m["partial"], true, "{m}");
                let n = m["games_completed"].as_u64().unwrap();
                assert!(n > 0 && n < 1_000_000, "{n}");
                // The same games, played whole: the same wins per strategy.
                let again = dir.join("again");
                let n = n.to_string();
                let mut whole = args.clone();
                whole[5] = &n;
                whole[11] = again.to_str().unwrap();
                let w = unolab(&whole);
                assert!(w.status.success(), "{}", text(&w.stderr));
                let wins = |d: &Path| -> Vec<String> {
                    std::fs::read_to_string(d.join("summary.csv"))
                        .unwrap()
                        .lines()
                        .map(|l| l.rsplit_once(',').unwrap().0.to_string())
                        .collect()
                };
                assert_eq!(wins(&out), wins(&again));
            }
            "shard" => {
                let st: Value = serde_json::from_str(
                    &std::fs::read_to_string(out.join("shard-0001-of-0002.json")).unwrap(),
                )
                .unwrap();
                let done = st["games_done"].as_u64().unwrap();
                assert!(
                    done > 0 && st["partial"] == true,
                    "{done} {}",
                    st["partial"]
                );
            }
            _ => {
                let m: Value = serde_json::from_str(
                    &std::fs::read_to_string(out.join("manifest.json")).unwrap(),
                )
                .unwrap();
                assert!(m.to_string().contains("\"partial\":true"), "{cmd}: {m}");
            }
        }
    }
}

/// `tune` against a field with a program: the same signal ending the
/// program and unolab stops the search like an interrupt (the generation in
/// progress is dropped, the preset is the mean reached, and a note says
/// why); it failed before.
#[test]
fn a_tune_whose_program_is_ended_by_the_same_signal_keeps_its_preset() {
    let dir = tempdir("same-signal-tune");
    let preset = dir.join("t.toml");
    let field = faulty("ok", "ok", 1, &dir);
    let o = signalled_as_a_job(
        &[
            "tune",
            "--quiet",
            "--players",
            "2",
            "--field",
            &field,
            "--generations",
            "1000",
            "--population",
            "4",
            "--games",
            "100",
            "--holdout-games",
            "100",
            "--threads",
            "2",
            "--out",
            preset.to_str().unwrap(),
        ],
        &dir,
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted after")
            && err.contains("could not finish and are left out")
            && !err.contains("error:"),
        "{err}"
    );
    assert!(std::fs::read_to_string(&preset)
        .unwrap()
        .contains("[params]"));
    assert_all_gone(&dir);
}

/// Runs unolab with `args` and, once its first checkpoint `state` is
/// written, puts a folder (not empty) in its place, as a full disk would
/// keep the next from being written; returns what unolab wrote.
fn with_a_folder_for_its_checkpoint(args: &[&str], state: &Path) -> Output {
    let child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !state.is_file() {
        assert!(t.elapsed() < HANG, "no checkpoint written");
        std::thread::sleep(Duration::from_millis(5));
    }
    // (A checkpoint renamed into place between the two calls: again.)
    loop {
        let _ = std::fs::remove_file(state);
        match std::fs::create_dir(state) {
            Ok(()) => break,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => panic!("{e}"),
        }
    }
    std::fs::write(state.join("x"), "").unwrap();
    child.wait_with_output().unwrap()
}

/// A checkpoint that cannot be written (a full disk; here a folder in the
/// state file's place) ended the run at once with one error line, every
/// game played thrown away unshown (the CLI audit). The run goes on, says
/// so once, and prints its results at the end when they cannot be written.
#[test]
fn a_checkpoint_that_cannot_be_written_does_not_end_the_run() {
    let dir = tempdir("checkpoint-fails");
    let exp = common::two_arm_experiment(&dir, "e.toml", "points,color", 2_000_000);
    let out = dir.join("ck");
    let o = with_a_folder_for_its_checkpoint(
        &[
            "experiment",
            "run",
            exp.to_str().unwrap(),
            "-q",
            "-j",
            "1",
            "-o",
            out.to_str().unwrap(),
            "--checkpoint",
            "0",
        ],
        &out.join("state.json"),
    );
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("warning: cannot write").count(), 1, "{err}");
    assert!(
        err.contains("the run goes on without its checkpoint"),
        "{err}"
    );
    // Every game was played, and the results are shown, and written
    // beside the state that could not be.
    assert!(
        out.contains("2000000 games per arm") && out.contains("turns_per_round"),
        "{out}"
    );
    assert!(dir.join("ck").join("report.md").is_file());
}

/// The same for a shard: a checkpoint that cannot be written is said once
/// and the shard plays on (it ended at once, every game since the last
/// checkpoint thrown away); the write at the end still fails it.
#[test]
fn a_shard_checkpoint_that_cannot_be_written_does_not_end_the_shard() {
    let dir = tempdir("shard-checkpoint-fails");
    let out = dir.join("sh");
    let o = with_a_folder_for_its_checkpoint(
        &[
            "run",
            "-q",
            "-j",
            "1",
            "-g",
            "6000000",
            "-s",
            "points,color",
            "-p",
            "2",
            "--shard",
            "1/2",
            "--checkpoint",
            "0",
            "--out",
            out.to_str().unwrap(),
        ],
        &out.join("shard-0001-of-0002.json"),
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("warning: cannot write").count(), 1, "{err}");
    assert!(
        err.contains("the shard goes on without this checkpoint"),
        "{err}"
    );
    assert!(err.trim_end().ends_with("it is a folder"), "{err}");
}
