//! `unolab run --shard` and `unolab merge`: merging all shards gives exactly
//! one run's results, in any order; bad merges are refused naming the files;
//! an interrupted shard leaves a valid partial state and resumes.

use crate::common::{self, read, unolab, unolab_env, TempDir};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn ok(o: Output) -> Output {
    assert!(
        o.status.success(),
        "exit {:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn err(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(2),
        "expected a refusal: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
    e
}

fn tempdir(tag: &str) -> TempDir {
    common::tempdir("shard", tag)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&read(p)).unwrap()
}

/// Removes the keys that may differ between runs of the same games.
fn strip(mut v: Value, keys: &[&str]) -> Value {
    if let Value::Object(o) = &mut v {
        for k in keys {
            o.remove(*k);
        }
    }
    v
}

const TIMINGS: [&str; 3] = ["elapsed_s", "games_per_s", "started_utc"];

/// The text table without its timing line.
fn text_without_timing(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.starts_with("elapsed "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `n` shards of `args` into `dir`, shard i on 1 or 2 threads.
fn shards(args: &[&str], n: u64, dir: &Path) {
    for i in 0..n {
        let spec = format!("{i}/{n}");
        let threads = if i % 2 == 0 { "1" } else { "2" };
        let mut a = args.to_vec();
        a.extend(["--shard", &spec, "-o", s(dir), "-q", "-j", threads]);
        ok(unolab(&a));
    }
}

/// Checks that merging all shards equals the single run: CSVs byte for byte,
/// the JSON summary, the text table and the manifest except timings and
/// provenance.
fn check_merge_equals_run(args: &[&str], n: u64, tag: &str) {
    let dir = tempdir(tag);
    let (sh, merged, single) = (dir.join("shards"), dir.join("merged"), dir.join("single"));
    shards(args, n, &sh);
    let mut run = args.to_vec();
    run.extend(["-o", s(&single), "-q", "-j", "2"]);
    let run_text = ok(unolab(&run));
    let merge_text = ok(unolab(&["merge", s(&sh), "-o", s(&merged)]));
    for f in ["summary.csv", "distributions.csv"] {
        assert_eq!(read(&merged.join(f)), read(&single.join(f)), "{f}");
    }
    assert_eq!(
        text_without_timing(&merge_text),
        text_without_timing(&run_text)
    );
    let provenance = ["command", "started_utc", "elapsed_s", "shards"];
    let mm = json(&merged.join("manifest.json"));
    assert_eq!(mm["shards"]["count"], n);
    assert_eq!(mm["shards"]["missing"], serde_json::json!([]));
    assert_eq!(
        strip(mm, &provenance),
        strip(json(&single.join("manifest.json")), &provenance)
    );
    let mut run = args.to_vec();
    run.extend(["--json", "-q", "-j", "2"]);
    let a: Value = serde_json::from_slice(&ok(unolab(&run)).stdout).unwrap();
    let b: Value =
        serde_json::from_slice(&ok(unolab(&["merge", s(&sh), "--json"])).stdout).unwrap();
    assert_eq!(strip(a, &TIMINGS), strip(b, &TIMINGS));
}

#[test]
fn round_mode_shards_merge_to_the_single_run() {
    check_merge_equals_run(
        &[
            "run",
            "-g",
            "9000",
            "--seed",
            "11",
            "-p",
            "3",
            "-s",
            "random,points",
        ],
        4,
        "round",
    );
}

#[test]
fn match_mode_shards_merge_to_the_single_run() {
    check_merge_equals_run(
        &[
            "run",
            "-m",
            "match",
            "-g",
            "300",
            "--seed",
            "5",
            "-s",
            "color,random",
            "--house",
            "stacking=same",
        ],
        3,
        "match",
    );
}

/// Matches stopped by `max_rounds`, some with a shared lead: a shard with
/// one of those was refused as "its statistics do not add up" (the check
/// did not count them among the matches' ends), and the checked merge
/// dropped the stopped matches' counts.
#[test]
fn match_mode_shards_with_matches_stopped_by_max_rounds_merge_to_the_single_run() {
    let args = [
        "run",
        "-m",
        "match",
        "-g",
        "200",
        "--seed",
        "5",
        "-p",
        "3",
        "-s",
        "points,color,random",
        "--set",
        "max_rounds=3",
    ];
    let mut one = args.to_vec();
    one.extend(["--json", "-q"]);
    let v: Value = serde_json::from_slice(&ok(unolab(&one)).stdout).unwrap();
    assert!(
        v["max_rounds_matches"].as_u64().unwrap() > 0,
        "{}",
        v["max_rounds_matches"]
    );
    assert!(v["max_rounds_without_winner"].as_u64().unwrap() > 0);
    check_merge_equals_run(&args, 2, "capped");
}

#[test]
fn duplicate_play_shards_merge_to_the_single_run() {
    check_merge_equals_run(
        &[
            "run",
            "-g",
            "1000",
            "--duplicate",
            "--seed",
            "3",
            "-p",
            "3",
            "-s",
            "points,random",
        ],
        3,
        "duplicate",
    );
}

/// The line-up is rebuilt from the state file: search agents, the tuned
/// preset and the heuristic keep their parameters.
#[test]
fn search_and_tuned_strategies_survive_the_state_file() {
    check_merge_equals_run(
        &[
            "run",
            "-g",
            "8",
            "--seed",
            "2",
            "-s",
            "pimc-100,tuned,random,ismcts-1k",
        ],
        2,
        "search",
    );
}

#[test]
fn merge_order_does_not_matter() {
    let dir = tempdir("order");
    let sh = dir.join("shards");
    shards(
        &[
            "run",
            "-m",
            "match",
            "-g",
            "200",
            "--seed",
            "2",
            "-s",
            "points,random",
        ],
        5,
        &sh,
    );
    let files: Vec<String> = (0..5)
        .map(|i| s(&sh.join(format!("shard-000{i}-of-0005.json"))).to_string())
        .collect();
    let mut outs = Vec::new();
    for (k, order) in [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]]
        .iter()
        .enumerate()
    {
        let out = dir.join(format!("m{k}"));
        let mut a = vec!["merge", "-o", s(&out)];
        a.extend(order.iter().map(|&i| files[i].as_str()));
        ok(unolab(&a));
        outs.push(out);
    }
    for o in &outs[1..] {
        for f in ["summary.csv", "distributions.csv"] {
            assert_eq!(read(&o.join(f)), read(&outs[0].join(f)), "{f}");
        }
    }
}

/// A shard state records the builds that played it; a merge of shards
/// played by several builds says so (they merged silently, though a build
/// that changed play would change their games; the shards audit), and a
/// state whose time is not one is refused.
#[test]
fn a_merge_names_the_builds_that_played_its_shards() {
    let dir = tempdir("builds");
    let sh = dir.join("shards");
    shards(&["run", "-g", "60", "--seed", "3"], 2, &sh);
    let f1 = sh.join("shard-0001-of-0002.json");
    let mut v = json(&f1);
    let ours = v["builds"].as_array().unwrap().clone();
    assert_eq!(ours.len(), 1, "{v}");
    assert!(ours[0]
        .as_str()
        .unwrap()
        .starts_with(env!("CARGO_PKG_VERSION")));
    // One build: nothing said.
    let o = ok(unolab(&["merge", s(&sh), "-o", s(&dir.join("m1"))]));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("builds"));
    assert_eq!(
        json(&dir.join("m1/manifest.json"))["shards"]["builds"],
        Value::Array(ours.clone())
    );
    // Shard 1 as an older build wrote it (before builds were recorded).
    v.as_object_mut().unwrap().remove("builds");
    std::fs::write(&f1, v.to_string()).unwrap();
    let o = ok(unolab(&["merge", s(&sh), "-o", s(&dir.join("m2"))]));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("note: the shards were played by 2 builds of unolab (")
            && e.contains("not recorded"),
        "{e}"
    );
    assert_eq!(
        json(&dir.join("m2/manifest.json"))["shards"]["builds"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // A time that is not one.
    v["elapsed_s"] = serde_json::json!(-5.0);
    std::fs::write(&f1, v.to_string()).unwrap();
    let e = err(&unolab(&["merge", s(&sh), "-o", s(&dir.join("m3"))]));
    assert!(e.contains("its elapsed_s (-5) is not a time"), "{e}");
}

#[test]
fn bad_merges_are_refused_naming_the_files() {
    let dir = tempdir("refuse");
    let base = ["run", "-g", "2000", "--seed", "4"];
    let a = dir.join("a");
    shards(&base, 3, &a);
    let f = |d: &Path, i: u64, n: u64| {
        d.join(format!("shard-{i:04}-of-{n:04}.json"))
            .to_str()
            .unwrap()
            .to_string()
    };
    // Another seed.
    let b = dir.join("b");
    shards(&["run", "-g", "2000", "--seed", "5"], 3, &b);
    let e = err(&unolab(&[
        "merge",
        &f(&a, 0, 3),
        &f(&a, 1, 3),
        &f(&b, 2, 3),
    ]));
    assert!(
        e.contains(&f(&a, 0, 3)) && e.contains(&f(&b, 2, 3)) && e.contains("seed"),
        "{e}"
    );
    // Another game count.
    let c = dir.join("c");
    shards(&["run", "-g", "2001", "--seed", "4"], 3, &c);
    let e = err(&unolab(&["merge", &f(&a, 0, 3), &f(&c, 1, 3)]));
    assert!(e.contains(&f(&c, 1, 3)) && e.contains("game count"), "{e}");
    // Another shard count.
    let d = dir.join("d");
    shards(&base, 2, &d);
    let e = err(&unolab(&["merge", &f(&a, 0, 3), &f(&d, 1, 2)]));
    assert!(e.contains(&f(&d, 1, 2)) && e.contains("shard of 2"), "{e}");
    // The same shard twice.
    let twin = dir.join("twin.json");
    std::fs::copy(f(&a, 1, 3), &twin).unwrap();
    let e = err(&unolab(&["merge", s(&a), s(&twin)]));
    assert!(
        e.contains(&f(&a, 1, 3)) && e.contains(s(&twin)) && e.contains("same shard 1/3"),
        "{e}"
    );
    // A missing shard.
    let e = err(&unolab(&["merge", &f(&a, 0, 3), &f(&a, 2, 3)]));
    assert!(e.contains("missing 1 of 3 shards: 1"), "{e}");
    // Another format version, and a file that is not a state.
    let v2 = dir.join("v2.json");
    let mut st = json(Path::new(&f(&a, 1, 3)));
    st["version"] = 99.into();
    std::fs::write(&v2, st.to_string()).unwrap();
    let e = err(&unolab(&["merge", &f(&a, 0, 3), s(&v2), &f(&a, 2, 3)]));
    assert!(e.contains(s(&v2)) && e.contains("version 99"), "{e}");
    let junk = dir.join("junk.json");
    std::fs::write(
        &junk,
        "{\"format\": \"unolab-shard-state\", \"version\": 1}",
    )
    .unwrap();
    let e = err(&unolab(&["merge", s(&junk)]));
    assert!(e.contains(s(&junk)) && e.contains("malformed"), "{e}");
    // A JSON file of another kind (a manifest: its "version" is a string)
    // is not a state, not "not JSON".
    let manifest = dir.join("manifest.json");
    std::fs::write(&manifest, "{\"version\": \"0.1.0\", \"command\": \"x\"}").unwrap();
    let e = err(&unolab(&["merge", s(&manifest)]));
    assert!(
        e.contains("not a shard state") && !e.contains("not JSON"),
        "{e}"
    );
    // Nothing is written by a refused merge.
    let out = dir.join("refused");
    err(&unolab(&["merge", &f(&a, 0, 3), "-o", s(&out)]));
    assert!(!out.exists());
    // --allow-partial merges what is there and says what is missing.
    let out = dir.join("partial");
    let o = ok(unolab(&[
        "merge",
        &f(&a, 0, 3),
        &f(&a, 2, 3),
        "--allow-partial",
        "-o",
        s(&out),
        "--json",
    ]));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["partial"], true);
    assert_eq!(j["missing_shards"], serde_json::json!([1]));
    assert_eq!(j["games"], 2000 - 667);
    let m = json(&out.join("manifest.json"));
    assert_eq!(m["partial"], true);
    assert_eq!(m["shards"]["missing"], serde_json::json!([1]));
    assert_eq!(m["shards"]["merged"], serde_json::json!([0, 2]));
    assert!(String::from_utf8_lossy(&o.stderr).contains("; missing shards of 3: 1"));
    assert_eq!(j["unfinished_shards"], serde_json::json!([]));
    assert_eq!(m["shards"]["unfinished"], serde_json::json!([]));
}

#[test]
fn shard_arguments_and_slurm_variables() {
    let dir = tempdir("args");
    let e = err(&unolab(&["run", "-g", "100", "--shard", "0/2"]));
    assert!(e.contains("--shard needs --out"), "{e}");
    let e = err(&unolab(&[
        "run",
        "-g",
        "100",
        "--shard",
        "2/2",
        "-o",
        s(&dir),
    ]));
    assert!(e.contains("does not exist"), "{e}");
    let e = err(&unolab(&[
        "run",
        "-g",
        "100",
        "--shard",
        "slurm",
        "-o",
        s(&dir),
    ]));
    assert!(e.contains("SLURM_ARRAY_TASK_ID is not set"), "{e}");
    assert!(!dir.exists(), "nothing created before the work");
    // No tasks, and a start past the ids: said as they are (the advice
    // wrapped round to --array=18446744073709551615-0, and suggested 0-0).
    let slurm = |vars: &[(&str, &str)]| {
        err(&unolab_env(
            &["run", "-g", "90", "--shard", "slurm", "-o", s(&dir)],
            vars,
        ))
    };
    let e = slurm(&[
        ("SLURM_ARRAY_TASK_ID", "0"),
        ("SLURM_ARRAY_TASK_COUNT", "0"),
    ]);
    assert!(e.contains("SLURM_ARRAY_TASK_COUNT is 0"), "{e}");
    let e = slurm(&[
        ("SLURM_ARRAY_TASK_ID", "0"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
        ("SLURM_ARRAY_TASK_MIN", "18446744073709551615"),
    ]);
    assert!(!e.contains("-0)"), "{e}");
    assert!(!dir.exists(), "nothing created before the work");
    // Task 6 of an array 5-7 is shard 1 of 3.
    ok(unolab_env(
        &["run", "-g", "90", "--shard", "slurm", "-o", s(&dir), "-q"],
        &[
            ("SLURM_ARRAY_TASK_ID", "6"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
        ],
    ));
    let st = json(&dir.join("shard-0001-of-0003.json"));
    assert_eq!(st["shard"], serde_json::json!({"index": 1, "count": 3}));
    assert_eq!(
        (st["first_game"].as_u64(), st["end_game"].as_u64()),
        (Some(30), Some(60))
    );
    assert_eq!(st["partial"], false);
    assert_eq!(st["stats"]["games"], 30);
    // The same folder with another run's configuration is refused.
    let e = err(&unolab(&[
        "run",
        "-g",
        "90",
        "--seed",
        "9",
        "--shard",
        "1/3",
        "-o",
        s(&dir),
    ]));
    assert!(
        e.contains("shard-0001-of-0003.json") && e.contains("seed"),
        "{e}"
    );
    // Rerunning a finished shard plays nothing.
    let o = ok(unolab(&[
        "run",
        "-g",
        "90",
        "--shard",
        "1/3",
        "-o",
        s(&dir),
    ]));
    assert!(String::from_utf8_lossy(&o.stdout).contains("already finished"));
}

/// Resumes the interrupted shard of `args(a)`, plays the same shard whole
/// into `b`, and checks that the two state files `name` are equal but for
/// timings and threads. Returns the resume's output and the resumed state.
fn resume_equals_whole(
    args: &dyn Fn(&Path) -> Vec<String>,
    a: &Path,
    b: &Path,
    name: &str,
) -> (Output, Value) {
    let run = |out: &Path| {
        let v = args(out);
        ok(unolab(&v.iter().map(String::as_str).collect::<Vec<_>>()))
    };
    let o = run(a);
    run(b);
    let keep = ["elapsed_s", "started_utc", "threads"];
    let (ra, rb) = (json(&a.join(name)), json(&b.join(name)));
    assert_eq!(strip(ra.clone(), &keep), strip(rb, &keep));
    (o, ra)
}

/// Starts unolab with `args`, waits until it has created `dir` (which it does
/// after installing its signal handler), lets it work `ms` milliseconds, sends
/// SIGTERM and checks that it exits with 130 (interrupted, work kept).
#[cfg(unix)]
fn terminate_after_start(args: &[String], dir: &Path, ms: u64) {
    let child = Command::new(env!("CARGO_BIN_EXE_unolab"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if dir.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(dir.exists(), "the shard did not start");
    std::thread::sleep(std::time::Duration::from_millis(ms));
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A shard interrupted by SIGTERM keeps exactly its finished chunks, and the
/// same command resumes it to the state of an uninterrupted shard.
#[cfg(unix)]
#[test]
fn sigterm_leaves_a_partial_state_that_resumes() {
    let dir = tempdir("sigterm");
    let (a, b) = (dir.join("interrupted"), dir.join("whole"));
    let args = |out: &Path| -> Vec<String> {
        [
            "run",
            "-g",
            "1200000",
            "--seed",
            "8",
            "--shard",
            "0/1",
            "-j",
            "2",
            "-q",
            "-o",
            s(out),
        ]
        .iter()
        .map(|x| x.to_string())
        .collect()
    };
    let name = "shard-0000-of-0001.json";
    terminate_after_start(&args(&a), &a, 250);
    let partial = json(&a.join(name));
    assert_eq!(partial["partial"], true);
    let done = partial["games_done"].as_u64().unwrap();
    assert!(
        done > 0 && done < 1_200_000,
        "{done} games before the signal"
    );
    assert_eq!(partial["stats"]["games"].as_u64(), Some(done));
    // A partial state merges only with --allow-partial.
    let e = err(&unolab(&["merge", s(&a)]));
    assert!(
        e.contains(name)
            && e.contains(&format!(
                "is partial: shard 0/1 finished {done} of 1200000 games"
            )),
        "{e}"
    );
    let o = ok(unolab(&["merge", s(&a), "--allow-partial", "--json"]));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["games"].as_u64(), Some(done));
    // Its finished games are merged: it is unfinished, not missing (it was
    // listed as missing, its games counted all the same).
    assert_eq!(j["missing_shards"], serde_json::json!([]));
    assert_eq!(j["unfinished_shards"], serde_json::json!([0]));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("unfinished shards (their finished games merged): 0"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Resume, and compare with an uninterrupted shard.
    let (o, ra) = resume_equals_whole(&args, &a, &b, name);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&format!("({done} from the saved state)")),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(ra["done"], serde_json::json!([[0, 1200000]]));
}

/// Spawns `args`, waits until `file` exists (the first checkpoint), then
/// kills the process with SIGKILL: no chance to save anything more.
#[cfg(unix)]
fn kill_after_first_checkpoint(args: &[String], file: &Path) {
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(env!("CARGO_BIN_EXE_unolab"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..1200 {
        if file.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    assert!(file.exists(), "no checkpoint within 30 s");
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.signal(),
        Some(9),
        "{status:?}: ended before the kill"
    );
}

/// A shard killed without warning (SIGKILL) keeps its last checkpoint
/// (`--checkpoint SECS`): a valid partial state that the same command resumes
/// to the state of an uninterrupted shard.
#[cfg(unix)]
#[test]
fn sigkill_keeps_the_last_checkpoint_which_resumes() {
    let dir = tempdir("sigkill");
    let (a, b) = (dir.join("killed"), dir.join("whole"));
    let args = |out: &Path| -> Vec<String> {
        [
            "run",
            "-g",
            "6000000",
            "--seed",
            "11",
            "--shard",
            "1/2",
            "-j",
            "2",
            "-q",
            "--checkpoint",
            "0.1",
            "-o",
            s(out),
        ]
        .iter()
        .map(|x| x.to_string())
        .collect()
    };
    let name = "shard-0001-of-0002.json";
    kill_after_first_checkpoint(&args(&a), &a.join(name));
    let saved = json(&a.join(name));
    assert_eq!(saved["partial"], true);
    let done = saved["games_done"].as_u64().unwrap();
    assert!(
        done > 0 && done < 3_000_000,
        "{done} games at the checkpoint"
    );
    assert_eq!(saved["stats"]["games"].as_u64(), Some(done));
    let (o, ra) = resume_equals_whole(&args, &a, &b, name);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("from the saved state)"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(ra["done"], serde_json::json!([[3000000, 6000000]]));
    // --checkpoint belongs to shards; a plain run refuses it before any game.
    let e = err(&unolab(&["run", "-g", "10", "--checkpoint", "5"]));
    assert!(e.contains("--checkpoint applies only with --shard"), "{e}");
    let e = err(&unolab(&[
        "run",
        "-g",
        "10",
        "--shard",
        "0/2",
        "--checkpoint",
        "-1",
    ]));
    assert!(e.contains("not a valid checkpoint interval"), "{e}");
}

// ----- experiments --------------------------------------------------------------

/// Runs `n` shards of `experiment run FILE EXTRA` into `dir`, shard i on 1 or
/// 2 threads.
fn experiment_shards(file: &str, extra: &[&str], n: u64, dir: &Path) {
    for i in 0..n {
        let spec = format!("{i}/{n}");
        let threads = if i % 2 == 0 { "1" } else { "2" };
        let mut a = vec!["experiment", "run", file];
        a.extend(extra);
        a.extend(["--shard", &spec, "--out", s(dir), "--quiet"]);
        a.extend(["--threads", threads]);
        ok(unolab(&a));
    }
}

/// `text` without the lines starting with one of `prefixes`.
fn without_lines(text: &str, prefixes: &[&str]) -> String {
    text.lines()
        .filter(|l| !prefixes.iter().any(|p| l.starts_with(p)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A saved state's text without the commands that played it and the
/// seconds they took (the keys `commands` and `elapsed_s`, after the
/// experiment).
fn without_commands(text: &str) -> String {
    let mut text = text.to_string();
    for key in [",\"commands\":", ",\"elapsed_s\":"] {
        let Some(at) = text.find(key) else {
            continue;
        };
        let rest = &text[at + key.len()..];
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
        values.next().expect("a value").expect("JSON");
        text = format!("{}{}", &text[..at], &rest[values.byte_offset()..]);
    }
    text
}

/// The files of an experiment's results folder, by name.
fn results_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Merging every shard of an experiment gives exactly the results folder of
/// one `experiment run` of the same games: CSVs and plots byte for byte, the
/// manifest and the report except provenance and timing; and merging the
/// files in another order gives the same folder again.
fn check_experiment_merge(file: &str, extra: &[&str], n: u64, tag: &str) {
    let dir = tempdir(tag);
    let (sh, merged, single) = (dir.join("shards"), dir.join("merged"), dir.join("single"));
    experiment_shards(file, extra, n, &sh);
    let mut run = vec!["experiment", "run", file];
    run.extend(extra);
    run.extend(["--out", s(&single), "--quiet", "--threads", "2"]);
    let run_text = ok(unolab(&run));
    let merge_text = ok(unolab(&["merge", s(&sh), "--out", s(&merged)]));
    // The first line of the table holds the elapsed time.
    let body = |o: &Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&merge_text), body(&run_text));
    let names = results_files(&single);
    assert_eq!(results_files(&merged), names);
    assert!(names.iter().filter(|n| n.ends_with(".svg")).count() >= 3);
    for f in names
        .iter()
        .filter(|n| n.ends_with(".csv") || n.ends_with(".svg"))
    {
        assert_eq!(read(&merged.join(f)), read(&single.join(f)), "{f}");
    }
    // The merged state is the single run's, so `--resume` can extend either
    // (but for the commands that played it: provenance).
    let (merged_state, single_state) = (
        read(&merged.join("state.json")),
        read(&single.join("state.json")),
    );
    assert_eq!(
        without_commands(&merged_state),
        without_commands(&single_state)
    );
    assert!(without_commands(&merged_state).len() < merged_state.len());
    let provenance = ["command", "started", "elapsed_s", "threads", "shards"];
    let mm = json(&merged.join("manifest.json"));
    assert_eq!(mm["shards"]["count"], n);
    assert_eq!(mm["shards"]["missing"], serde_json::json!([]));
    assert_eq!(mm["partial"], false);
    assert_eq!(
        strip(mm, &provenance),
        strip(json(&single.join("manifest.json")), &provenance)
    );
    let report = read(&merged.join("report.md"));
    assert!(
        report.contains(&format!("from {n} of {n} shards.")),
        "{report}"
    );
    let timing = ["**Set-up.**", "Produced by"];
    assert_eq!(
        without_lines(&report, &timing),
        without_lines(&read(&single.join("report.md")), &timing)
    );
    // Another order: the files listed from the last shard to the first.
    let mut files: Vec<String> = (0..n)
        .rev()
        .map(|i| {
            let w = n.to_string().len().max(4);
            s(&sh.join(format!("shard-{i:0w$}-of-{n:0w$}.json"))).to_string()
        })
        .collect();
    let other = dir.join("other");
    files.insert(0, "merge".into());
    files.extend(["--out".into(), s(&other).into()]);
    ok(unolab(
        &files.iter().map(|x| x.as_str()).collect::<Vec<_>>(),
    ));
    for f in names
        .iter()
        .filter(|n| !n.ends_with(".json") && *n != "report.md")
    {
        assert_eq!(read(&other.join(f)), read(&merged.join(f)), "{f}");
    }
    assert_eq!(
        without_lines(&read(&other.join("report.md")), &["Produced by"]),
        without_lines(&report, &["Produced by"])
    );
}

#[test]
fn experiment_shards_merge_to_the_single_experiment() {
    check_experiment_merge(
        "experiments/editions.toml",
        &["--games", "701", "--seed", "11", "--batch", "97"],
        3,
        "exp",
    );
}

#[test]
fn duplicate_match_mode_experiment_shards_merge_exactly() {
    let dir = tempdir("expfile");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("matches.toml");
    std::fs::write(
        &file,
        r#"name = "matches"
baseline = "plain"
[base]
rules = "classic"
players = 3
strategies = "points,random,color"
mode = "match"
games = 40
seed = 5
duplicate = true
[[arm]]
label = "plain"
[[arm]]
label = "stacking"
house = ["stacking=cross"]
"#,
    )
    .unwrap();
    check_experiment_merge(s(&file), &["--batch", "7"], 4, "expdup");
}

#[test]
fn bad_experiment_shards_are_refused_naming_the_files() {
    let dir = tempdir("expbad");
    let exp = "experiments/editions.toml";
    let small = ["--games", "90", "--seed", "4"];
    let (a, b) = (dir.join("a"), dir.join("b"));
    experiment_shards(exp, &small, 3, &a);
    // Precision is an adaptive stop: not shardable.
    let e = err(&unolab(&[
        "experiment",
        "run",
        exp,
        "--precision",
        "0.01",
        "--shard",
        "0/2",
        "--out",
        s(&b),
    ]));
    assert!(e.contains("--precision cannot be sharded"), "{e}");
    assert!(!b.exists(), "nothing is written before a refusal");
    let e = err(&unolab(&["experiment", "run", exp, "--shard", "0/2"]));
    assert!(e.contains("--shard needs --out DIR"), "{e}");
    // Another seed in the same folder: refused before any work.
    let e = err(&unolab(&[
        "experiment",
        "run",
        exp,
        "--games",
        "90",
        "--seed",
        "5",
        "--shard",
        "1/3",
        "--out",
        s(&a),
        "--quiet",
    ]));
    assert!(
        e.contains(
            "shard-0001-of-0003.json holds shard 1/3 of another experiment (not the same: seed)"
        ),
        "{e}"
    );
    // Shards of different seeds.
    ok(unolab(&[
        "experiment",
        "run",
        exp,
        "--games",
        "90",
        "--seed",
        "5",
        "--shard",
        "1/3",
        "--out",
        s(&b),
        "--quiet",
    ]));
    let a0 = a.join("shard-0000-of-0003.json");
    let b1 = b.join("shard-0001-of-0003.json");
    let e = err(&unolab(&["merge", s(&a0), s(&b1)]));
    assert!(
        e.contains(s(&a0))
            && e.contains(s(&b1))
            && e.contains("different experiments (not the same: seed)"),
        "{e}"
    );
    // The same shard twice.
    let copy = dir.join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(&a0, copy.join("shard-0000-of-0003.json")).unwrap();
    let e = err(&unolab(&["merge", s(&a), s(&copy)]));
    assert!(e.contains("are the same shard 0/3"), "{e}");
    // A missing shard, then --allow-partial.
    let e = err(&unolab(&[
        "merge",
        s(&a0),
        s(&a.join("shard-0002-of-0003.json")),
    ]));
    assert!(e.contains("missing 1 of 3 shards: 1"), "{e}");
    let part = dir.join("part");
    let o = ok(unolab(&[
        "merge",
        s(&a0),
        s(&a.join("shard-0002-of-0003.json")),
        "--allow-partial",
        "--out",
        s(&part),
    ]));
    assert!(String::from_utf8_lossy(&o.stderr).contains("partial: 60 of 90 games per arm"));
    let m = json(&part.join("manifest.json"));
    assert_eq!(m["partial"], true);
    assert_eq!(m["clusters"], 60);
    assert_eq!(m["shards"]["missing"], serde_json::json!([1]));
    // Nothing was interrupted (it said "interrupted").
    assert_eq!(m["stopped_by"], "missing shards");
    assert!(!part.join("state.json").exists(), "no state to resume from");
    assert!(read(&part.join("report.md")).contains("(PARTIAL: shards 1 missing)"));
    // The set-up says which shards, and why: missing here.
    assert!(
        read(&part.join("report.md")).contains("Stopped by: missing shards (1) (PARTIAL results)"),
        "{}",
        read(&part.join("report.md"))
    );
    // A merge into the folder of another run's shards: refused, the folder
    // left as it was; into the folder of its own shards, taken.
    let before = results_files(&b);
    let e = err(&unolab(&["merge", s(&a), "--out", s(&b)]));
    assert!(
        e.contains("holds shards this merge does not read (shard-0001-of-0003.json)"),
        "{e}"
    );
    assert_eq!(results_files(&b), before);
    ok(unolab(&["merge", s(&a), "--out", s(&a)]));
    // A run's shard with an experiment's.
    let mix = dir.join("mix");
    ok(unolab(&[
        "run",
        "-g",
        "30",
        "--shard",
        "1/3",
        "-o",
        s(&mix),
        "-q",
    ]));
    std::fs::copy(&a0, mix.join("shard-0000-of-0003.json")).unwrap();
    let e = err(&unolab(&["merge", s(&mix)]));
    assert!(
        e.contains("is a shard of an experiment but") && e.contains("is a shard of a run"),
        "{e}"
    );
}

/// An experiment shard interrupted by SIGTERM keeps every game it finished
/// (not only whole batches: issue 17), and the same command resumes it to the
/// state of an uninterrupted shard.
#[cfg(unix)]
#[test]
fn sigterm_leaves_a_partial_experiment_shard_that_resumes() {
    let dir = tempdir("expterm");
    let (a, b) = (dir.join("interrupted"), dir.join("whole"));
    let args = |out: &Path| -> Vec<String> {
        [
            "experiment",
            "run",
            "experiments/editions.toml",
            "--games",
            "1200000",
            "--seed",
            "8",
            "--batch",
            "1000",
            "--shard",
            "1/2",
            "--threads",
            "2",
            "--quiet",
            "--out",
            s(out),
        ]
        .iter()
        .map(|x| x.to_string())
        .collect()
    };
    let name = "shard-0001-of-0002.json";
    // 600,000 games: a whole shard of 60,000 took 0.29 s on an idle
    // 2-core host, less than the 300 ms before the signal.
    terminate_after_start(&args(&a), &a, 300);
    let partial = json(&a.join(name));
    assert_eq!(partial["partial"], true);
    assert_eq!(partial["kind"], "experiment");
    let done = partial["games_done"].as_u64().unwrap();
    assert!(done > 0 && done < 600_000, "{done} games before the signal");
    assert_eq!(partial["state"]["clusters"].as_u64(), Some(done));
    let e = err(&unolab(&["merge", s(&a)]));
    assert!(e.contains("missing 1 of 2 shards: 0"), "{e}");
    let o = ok(unolab(&[
        "experiment",
        "run",
        "experiments/editions.toml",
        "--games",
        "1200000",
        "--seed",
        "8",
        "--batch",
        "1000",
        "--shard",
        "0/2",
        "--quiet",
        "--out",
        s(&a),
    ]));
    assert!(o.status.success());
    let e = err(&unolab(&["merge", s(&a)]));
    assert!(
        e.contains(&format!(
            "is partial: shard 1/2 finished {done} of 600000 games"
        )),
        "{e}"
    );
    // Resume, and compare with an uninterrupted shard.
    let (o, ra) = resume_equals_whole(&args, &a, &b, name);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&format!("({done} from the saved state)")),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(ra["games_done"], 600_000);
}

/// An experiment shard (or run) killed without warning keeps the state of its
/// last checkpoint (after a step of play, anywhere in a batch), and the same
/// command resumes it to the state of an uninterrupted shard.
#[cfg(unix)]
#[test]
fn sigkill_keeps_the_last_experiment_checkpoint_which_resumes() {
    let dir = tempdir("expkill");
    let (a, b) = (dir.join("killed"), dir.join("whole"));
    let args = |out: &Path| -> Vec<String> {
        [
            "experiment",
            "run",
            "experiments/editions.toml",
            "--games",
            "200000",
            "--seed",
            "12",
            "--batch",
            "1000",
            "--shard",
            "0/1",
            "--threads",
            "2",
            "--checkpoint",
            "0",
            "--quiet",
            "--out",
            s(out),
        ]
        .iter()
        .map(|x| x.to_string())
        .collect()
    };
    let name = "shard-0000-of-0001.json";
    kill_after_first_checkpoint(&args(&a), &a.join(name));
    let saved = json(&a.join(name));
    assert_eq!(saved["partial"], true);
    let done = saved["games_done"].as_u64().unwrap();
    assert!(done > 0 && done < 200_000, "{done} games at the checkpoint");
    assert_eq!(saved["state"]["clusters"].as_u64(), Some(done));
    let (_, ra) = resume_equals_whole(&args, &a, &b, name);
    assert_eq!(ra["games_done"], 200_000);
    let e = err(&unolab(&[
        "experiment",
        "run",
        "experiments/editions.toml",
        "--checkpoint",
        "x",
    ]));
    assert!(e.contains("not a valid checkpoint interval"), "{e}");
}

/// An experiment file `x.toml` in `dir`: one arm of 20 two-player games of
/// `strategies`.
fn one_arm_experiment(dir: &Path, strategies: &str) -> std::path::PathBuf {
    let file = dir.join("x.toml");
    std::fs::write(
        &file,
        format!("name = \"x\"\n[base]\nplayers = 2\nstrategies = \"{strategies}\"\ngames = 20\n[[arm]]\nlabel = \"a\"\n"),
    )
    .unwrap();
    file
}

/// A shard whose game fails (a seat's program exits without answering)
/// leaves no empty output folder behind, as a plain run does: an audit
/// found `--out` left empty by both kinds of shard.
#[test]
fn a_failed_shard_leaves_no_empty_folder() {
    let dir = common::tempdir_created("shard", "failed");
    let out = dir.join("nested").join("out");
    let file = one_arm_experiment(&dir, "ext:false,random");
    for command in [
        &["run", "-s", "ext:false,random", "-p", "2", "-g", "20"][..],
        &["experiment", "run", s(&file)],
    ] {
        let shard = ["-j", "1", "-q", "--shard", "0/2", "-o", s(&out)];
        let e = err(&unolab(&[command, &shard[..]].concat()));
        assert!(e.contains("the program exited"), "{command:?}: {e}");
        assert!(!dir.join("nested").exists(), "{command:?}: {e}");
    }
}

/// `--resume` on an experiment shard with nothing saved started it fresh
/// without a word (an audit); `compare --resume` refuses that, and so does
/// a shard now, before making any folder.
#[test]
fn a_shard_resume_with_nothing_saved_is_refused() {
    let dir = common::tempdir_created("shard", "resume-nothing");
    let file = one_arm_experiment(&dir, "random,first");
    let out = dir.join("out");
    let args = [
        "experiment",
        "run",
        s(&file),
        "-q",
        "--shard",
        "0/2",
        "-o",
        s(&out),
    ];
    let e = err(&unolab(&[&args[..], &["--resume"]].concat()));
    assert!(e.contains("--resume: no saved state of shard 0/2"), "{e}");
    assert!(!out.exists());
    // Run, then resumed: the finished shard is reported as such.
    ok(unolab(&args));
    let o = ok(unolab(&[&args[..], &["--resume"]].concat()));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("already finished"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}
