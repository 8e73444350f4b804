//! Experiments: validation of experiment files, the lockstep runner's paired
//! statistics (against a per-game computation), thread invariance, resume,
//! the precision stop and the CLI end to end.

use crate::common::{self, read, tempdir_created, unolab};
use std::sync::atomic::{AtomicBool, Ordering};
use unolab::agents::parse_list;
use unolab::lab::experiment::parse;
use unolab::report::experiment::{arm_rows, comparison_rows};
use unolab::sim::lockstep::{
    paired_difference, ratio_estimate, run_lockstep, LockstepConfig, LockstepState, Stop,
};
use unolab::sim::{self, RunConfig};
use unolab::Rules;

const GOOD: &str = r#"name = "t"
description = "test"
baseline = "plain"

[base]
rules = "classic"
players = 4
strategies = "points,color,random,cautious"
games = 600
seed = 7

[stop]
batch = 200

[[arm]]
label = "plain"

[[arm]]
label = "stack"
house = ["stacking=cross"]

[[arm]]
label = "seven"
house = ["seven_o,jump_in"]
"#;

fn errors(text: &str) -> Vec<String> {
    parse(text, "x.toml").expect_err("the file must be refused")
}

fn has(errs: &[String], line: usize, needle: &str) {
    let prefix = format!("x.toml:{line}: ");
    assert!(
        errs.iter()
            .any(|e| e.starts_with(&prefix) && e.contains(needle)),
        "no error at line {line} containing '{needle}': {errs:?}"
    );
}

#[test]
fn a_good_file_resolves_every_arm() {
    let e = parse(GOOD, "x.toml").unwrap();
    assert_eq!(e.run.arms.len(), 3);
    assert_eq!(e.run.baseline, Some(0));
    assert_eq!(e.run.max_clusters, 600);
    assert_eq!(e.run.batch, 200);
    assert_eq!(
        e.run.arms[1].cfg.rules.settings.stacking,
        unolab::engine::rules::Stacking::Cross
    );
    assert!(e.run.arms[2].cfg.rules.settings.seven_o && e.run.arms[2].cfg.rules.settings.jump_in);
    assert!(!e.run.arms[0].cfg.rules.settings.seven_o);
}

#[test]
fn validation_names_file_line_and_what_is_valid() {
    // Unknown key (line 9), through serde's deny_unknown_fields.
    let t = GOOD.replace("games = 600", "gamez = 600");
    has(&errors(&t), 9, "unknown field `gamez`");
    // Unknown rule set, strategy, house rule: all three reported together.
    // A base value's error is reported once, not once per arm.
    let t = GOOD
        .replace("rules = \"classic\"", "rules = \"klassic\"")
        .replace("points,color", "points,colour");
    let errs = errors(&t);
    assert_eq!(errs.len(), 2, "{errs:?}");
    has(
        &errs,
        6,
        "unknown rule set 'klassic'; did you mean 'classic'? (valid: classic",
    );
    has(
        &errs,
        8,
        "unknown strategy 'colour'; did you mean 'color'? (valid:",
    );
    let t = GOOD.replace("stacking=cross", "stacking=cross,sevn_o");
    has(
        &errors(&t),
        20,
        "arm 'stack': unknown house rule 'sevn_o'; did you mean 'seven_o'? (valid: stacking",
    );
    // Duplicate arm label (the second one, line 19).
    let t = GOOD.replace("label = \"stack\"", "label = \"plain\"");
    has(&errors(&t), 19, "duplicate arm label 'plain'");
    // A baseline that is not an arm (line 3) lists the arms.
    let t = GOOD.replace("baseline = \"plain\"", "baseline = \"none\"");
    has(
        &errors(&t),
        3,
        "baseline 'none' is not an arm (valid: plain, stack, seven)",
    );
    // Out-of-range values.
    let t = GOOD.replace("players = 4", "players = 11");
    has(&errors(&t), 7, "invalid players 11 (valid: 2 to 10)");
    assert_eq!(errors(&t).len(), 1);
    let t = GOOD.replace("games = 600", "games = 0");
    has(
        &errors(&t),
        9,
        "invalid games 0 (valid: a positive integer)",
    );
    let t = GOOD.replace("batch = 200", "batch = 200\nprecision = -1");
    has(&errors(&t), 14, "invalid precision -1");
    let t = GOOD.replace("batch = 200", "batch = 200\nmetrics = [\"speed\"]");
    has(
        &errors(&t),
        14,
        "unknown metric 'speed' (valid: turns_per_round",
    );
    // An empty list meant every metric, as no list does.
    let t = GOOD.replace("batch = 200", "batch = 200\nprecision = 0.01\nmetrics = []");
    has(
        &errors(&t),
        15,
        "[stop] metrics = [] names no metric; leave metrics out to look at every metric",
    );
    assert_eq!(errors(&t).len(), 1);
}

fn cfg(threads: usize, games: u64, duplicate: bool) -> LockstepConfig {
    let mut e = parse(GOOD, "x.toml").unwrap();
    e.run.max_clusters = games;
    e.run.duplicate = duplicate;
    e.lockstep(threads)
}

fn run(c: &LockstepConfig) -> (LockstepState, Stop) {
    let mut st = LockstepState::new(c);
    let stop = AtomicBool::new(false);
    let how = run_lockstep(c, &mut st, &stop, &|_| {}, &mut |_| Ok(()))
        .unwrap()
        .0;
    (st, how)
}

#[test]
fn lockstep_is_thread_invariant_and_matches_separate_runs() {
    let (one, how) = run(&cfg(1, 600, false));
    assert_eq!(how, Stop::Limit);
    assert_eq!(one.clusters, 600);
    let (three, _) = run(&cfg(3, 600, false));
    assert_eq!(one, three);
    // Each arm's statistics are those of a plain run of the same configuration.
    let c = cfg(1, 600, false);
    for (arm, st) in c.arms.iter().zip(&one.arms) {
        let mut rc = arm.cfg.clone();
        rc.games = 600;
        rc.seed = c.seed;
        rc.threads = 2;
        let out = sim::run(&rc, &AtomicBool::new(false), &|_| {}).unwrap();
        assert_eq!(out.stats, st.stats, "arm {}", arm.label);
    }
    // Duplicate lockstep arms match `run` with duplicate seeds.
    let (dup, _) = run(&cfg(2, 150, true));
    let mut rc = c.arms[1].cfg.clone();
    rc.games = 600;
    rc.seed = c.seed;
    rc.duplicate = true;
    let mut out = sim::run(&rc, &AtomicBool::new(false), &|_| {}).unwrap();
    // The run also keeps sums over deals for its intervals (the lockstep
    // runner keeps its own per-metric sums instead).
    assert!(out.stats.clusters.is_some());
    out.stats.clusters = None;
    assert_eq!(out.stats, dup.arms[1].stats);
}

#[test]
fn paired_difference_matches_a_per_game_computation() {
    // Play game by game (one-cluster states), compute the paired difference of
    // every compared metric the textbook way, and compare with the sums.
    let n = 120u64;
    let c = cfg(1, n, false);
    let (whole, _) = run(&c);
    let mut merged = LockstepState::new(&c);
    let comp = &whole.comparisons[0];
    let mut per_game: Vec<Vec<[f64; 4]>> = vec![Vec::new(); comp.pairs.len()];
    for g in 0..n {
        let mut one = LockstepState::new(&c);
        let mut c1 = c.clone();
        c1.first_cluster = g;
        c1.max_clusters = 1;
        let stop = AtomicBool::new(false);
        run_lockstep(&c1, &mut one, &stop, &|_| {}, &mut |_| Ok(())).unwrap();
        let cp = &one.comparisons[0];
        for (k, p) in cp.pairs.iter().enumerate() {
            let a = &one.arms[cp.arm].metrics[p.arm_metric].sums;
            let b = &one.arms[cp.baseline].metrics[p.base_metric].sums;
            per_game[k].push([a.y as f64, a.x as f64, b.y as f64, b.x as f64]);
        }
        assert_eq!(one.clusters, 1);
        merged.merge(&one);
    }
    assert_eq!(merged, whole, "merging per-game states gives the whole");
    let nf = n as f64;
    let mut checked = 0;
    for (k, p) in comp.pairs.iter().enumerate() {
        let a = &whole.arms[comp.arm].metrics[p.arm_metric].sums;
        let b = &whole.arms[comp.baseline].metrics[p.base_metric].sums;
        let Some(d) = paired_difference(a, b, &p.sums, n) else {
            continue;
        };
        let v = &per_game[k];
        let (sya, sxa, syb, sxb) = v.iter().fold((0.0, 0.0, 0.0, 0.0), |s, g| {
            (s.0 + g[0], s.1 + g[1], s.2 + g[2], s.3 + g[3])
        });
        let (ra, rb) = (sya / sxa, syb / sxb);
        // The difference of the arm means.
        let ea = ratio_estimate(a, n).unwrap();
        let eb = ratio_estimate(b, n).unwrap();
        assert!((d.diff - (ea.value - eb.value)).abs() < 1e-12);
        assert!((d.diff - (ra - rb)).abs() < 1e-12);
        // Linearised per-game differences, their sample variance / n.
        let z: Vec<f64> = v
            .iter()
            .map(|g| (g[0] - ra * g[1]) / (sxa / nf) - (g[2] - rb * g[3]) / (sxb / nf))
            .collect();
        let mean = z.iter().sum::<f64>() / nf;
        let var = z.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (nf - 1.0);
        let se = (var / nf).sqrt();
        assert!(
            (d.se - se).abs() <= 1e-9 * se.max(1e-12),
            "metric {k}: se {} vs per-game {se}",
            d.se
        );
        if se > 0.0 {
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} metrics had variation");
    // The report's comparison rows are the same numbers.
    let rows = comparison_rows(&whole);
    let arms = arm_rows(&whole);
    let turns = |arm: &str| {
        arms.iter()
            .find(|r| r.arm == arm && r.metric == "turns_per_round")
            .unwrap()
            .est
            .value
    };
    let r = rows
        .iter()
        .find(|r| r.arm == "stack" && r.metric == "turns_per_round")
        .unwrap();
    assert!((r.d.diff - (turns("stack") - turns("plain"))).abs() < 1e-12);
    assert!(r.p_holm >= r.d.p);
}

#[test]
fn resume_gives_the_uninterrupted_result() {
    let c = cfg(2, 600, false);
    let (whole, _) = run(&c);
    // Interrupt at the second hand-over of the state, save, load, resume.
    let stop = AtomicBool::new(false);
    let mut st = LockstepState::new(&c);
    let mut saved = String::new();
    let mut steps = 0;
    let how = run_lockstep(&c, &mut st, &stop, &|_| {}, &mut |s| {
        steps += 1;
        saved = serde_json::to_string(s).unwrap();
        if steps == 2 {
            stop.store(true, Ordering::SeqCst);
        }
        Ok(())
    })
    .unwrap()
    .0;
    assert_eq!(how, Stop::Interrupted);
    assert!(st.clusters > 0 && st.clusters < 600, "{}", st.clusters);
    let mut loaded: LockstepState = serde_json::from_str(&saved).unwrap();
    assert_eq!(loaded, st);
    // Resume on another thread count.
    let c1 = cfg(1, 600, false);
    let how = run_lockstep(
        &c1,
        &mut loaded,
        &AtomicBool::new(false),
        &|_| {},
        &mut |_| Ok(()),
    )
    .unwrap()
    .0;
    assert_eq!(how, Stop::Limit);
    assert_eq!(loaded, whole);
}

#[test]
fn an_interrupt_within_a_step_keeps_every_finished_game() {
    // A batch far larger than the run: before, nothing short of a batch
    // boundary survived an interrupt. Stop from inside the step (the
    // progress callback runs in the workers) at several points.
    let mut c = cfg(2, 3000, true);
    c.batch = 1_000_000;
    let (whole, how) = run(&c);
    assert_eq!(how, Stop::Limit);
    for at in [1u64, 37, 700, 2000] {
        let stop = AtomicBool::new(false);
        let mut st = LockstepState::new(&c);
        let mut handed: Option<LockstepState> = None;
        let how = run_lockstep(
            &c,
            &mut st,
            &stop,
            &|d| {
                if d >= at {
                    stop.store(true, Ordering::SeqCst);
                }
            },
            &mut |s| {
                handed = Some(s.clone());
                Ok(())
            },
        )
        .unwrap()
        .0;
        assert_eq!(how, Stop::Interrupted, "at {at}");
        // Every finished deal is kept and was handed over to be saved.
        assert!(
            st.clusters >= at && st.clusters < 3000,
            "at {at}: {}",
            st.clusters
        );
        assert_eq!(handed.as_ref(), Some(&st), "at {at}");
        // Resumed on one thread, the same bits as the uninterrupted run.
        let c1 = LockstepConfig {
            threads: 1,
            ..c.clone()
        };
        let how = run_lockstep(&c1, &mut st, &AtomicBool::new(false), &|_| {}, &mut |_| {
            Ok(())
        })
        .unwrap()
        .0;
        assert_eq!(how, Stop::Limit);
        assert_eq!(st, whole, "at {at}");
    }
}

#[test]
fn the_precision_rule_is_looked_at_on_batch_boundaries_only() {
    // Interrupted and resumed at odd points, a run with a precision rule
    // stops where the uninterrupted one does: on a batch boundary.
    let mut c = cfg(2, 20_000, false);
    c.batch = 100;
    c.precision = Some(1.0);
    c.precision_metrics = vec!["turns_per_round".into()];
    let (whole, how) = run(&c);
    assert_eq!(how, Stop::Precision);
    let mut st = LockstepState::new(&c);
    let mut at = 0;
    for step in [13u64, 101, 57, 999] {
        at += step;
        if at >= whole.clusters {
            break;
        }
        let stop = AtomicBool::new(false);
        let how = run_lockstep(
            &c,
            &mut st,
            &stop,
            &|d| {
                if d >= at {
                    stop.store(true, Ordering::SeqCst);
                }
            },
            &mut |_| Ok(()),
        )
        .unwrap()
        .0;
        if how != Stop::Interrupted {
            break;
        }
    }
    let how = run_lockstep(&c, &mut st, &AtomicBool::new(false), &|_| {}, &mut |_| {
        Ok(())
    })
    .unwrap()
    .0;
    assert_eq!(how, Stop::Precision);
    assert_eq!(st, whole);
}

#[test]
fn precision_stop_point_does_not_depend_on_threads() {
    let mk = |threads| {
        let mut c = cfg(threads, 20_000, false);
        c.batch = 100;
        c.precision = Some(1.0);
        c.precision_metrics = vec!["turns_per_round".into()];
        c
    };
    let (a, how) = run(&mk(1));
    let (b, _) = run(&mk(3));
    assert_eq!(how, Stop::Precision);
    assert!(
        a.clusters < 20_000 && a.clusters % 100 == 0,
        "{}",
        a.clusters
    );
    assert_eq!(a, b);
    // It stopped at the first boundary where every turns interval is narrow enough.
    let h = unolab::sim::lockstep::half_widths(&mk(1), &a);
    assert!(h.iter().all(|&x| x < 1.0));
}

#[test]
fn duplicate_run_plays_each_deal_once_per_rotation() {
    // Two identical strategies in duplicate: the deal's first mover wins the
    // same share whichever strategy holds the seat, and every deal is played
    // by each line-up rotation.
    let rules = Rules::builtin("classic");
    let lineup = parse_list("points,random").unwrap();
    let mut c = RunConfig::builder(rules, 2, &lineup)
        .games(4000)
        .seed(3)
        .threads(2)
        .build()
        .unwrap();
    c.duplicate = true;
    let d = sim::run(&c, &AtomicBool::new(false), &|_| {})
        .unwrap()
        .stats;
    c.threads = 1;
    let d1 = sim::run(&c, &AtomicBool::new(false), &|_| {})
        .unwrap()
        .stats;
    assert_eq!(d, d1);
    c.duplicate = false;
    let p = sim::run(&c, &AtomicBool::new(false), &|_| {})
        .unwrap()
        .stats;
    assert_ne!(d, p, "duplicate play uses other seeds than plain rotation");
    assert_eq!(d.games, 4000);
}

#[test]
fn cli_writes_every_file_and_refuses_bad_files() {
    let dir = crate::common::tempdir_created("exp", "cli");
    let file = dir.join("t.toml");
    std::fs::write(&file, GOOD).unwrap();
    let out = dir.join("out");
    common::run_experiment(&file, &out, &["--threads", "2"]);
    for f in [
        "manifest.json",
        "arms.csv",
        "comparisons.csv",
        "distributions.csv",
        "report.md",
        "differences.svg",
        "win_rates.svg",
        "round_length.svg",
        "first_mover.svg",
        "state.json",
    ] {
        let p = out.join(f);
        assert!(
            p.is_file() && std::fs::metadata(&p).unwrap().len() > 100,
            "{f}"
        );
    }
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["clusters"], 600);
    assert_eq!(m["partial"], false);
    assert_eq!(m["arms"].as_array().unwrap().len(), 3);
    assert_eq!(m["arms"][1]["rule_set"]["settings"]["stacking"], "cross");
    // Each seat's strategy as a run's manifest gives it (it was Rust's
    // Debug text of the preset).
    let lineup = &m["arms"][0]["lineup"];
    assert_eq!(lineup[0]["name"], "points");
    assert_eq!(lineup[0]["base"], "heuristic");
    assert_eq!(lineup[0]["params"]["points_weight"], 1.0);
    assert_eq!(lineup[3]["name"], "cautious");
    let comps = std::fs::read_to_string(out.join("comparisons.csv")).unwrap();
    assert!(comps.starts_with("arm,baseline,metric,group,arm_value,baseline_value,difference,ci95_low,ci95_high,p_value,p_holm"));
    assert!(comps.contains("stack,plain,turns_per_round,all,"));
    let svg = std::fs::read_to_string(out.join("differences.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("turns per round"));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("600 rounds per arm") && md.contains("![differences.svg]"));

    // --resume of a finished run changes nothing.
    let before = std::fs::read_to_string(out.join("arms.csv")).unwrap();
    common::run_experiment(&file, &out, &["--threads", "1", "--resume"]);
    assert_eq!(
        std::fs::read_to_string(out.join("arms.csv")).unwrap(),
        before
    );

    // A bare --resume keeps the saved run's game limit and precision: it
    // took the file's limit (600 here) and dropped the precision, so a run
    // given --games 400 --precision and continued after Ctrl-C played on
    // to a limit it was never given, without its stopping rule.
    let out3 = dir.join("out3");
    let run3 = |extra: &[&str]| {
        let mut args = vec!["--threads", "1"];
        args.extend_from_slice(extra);
        common::run_experiment(&file, &out3, &args);
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out3.join("manifest.json")).unwrap())
                .unwrap();
        m
    };
    let m = run3(&["--games", "400", "--precision", "0.0001"]);
    assert_eq!(
        (m["clusters"].as_u64(), m["games_limit"].as_u64()),
        (Some(400), Some(400)),
        "{m}"
    );
    let m = run3(&["--resume"]);
    assert_eq!(m["clusters"], 400, "{m}");
    assert_eq!(m["games_limit"], 400, "{m}");
    assert_eq!(m["precision"], 0.0001, "{m}");
    // A limit given on resuming wins; the saved precision stays.
    let m = run3(&["--resume", "--games", "500"]);
    assert_eq!(
        (m["clusters"].as_u64(), m["games_limit"].as_u64()),
        (Some(500), Some(500)),
        "{m}"
    );
    assert_eq!(m["precision"], 0.0001, "{m}");
    // Another experiment's saved stop rule is not taken: the refusal names
    // the experiment, where it named a precision on rounds_per_match that
    // the round-mode command never gave.
    let out4 = dir.join("out4");
    let compare = |extra: &[&str]| {
        let mut args = vec![
            "compare",
            "-s",
            "points,color",
            "-p",
            "2",
            "--b-house",
            "seven_o",
            "--out",
            out4.to_str().unwrap(),
            "-q",
        ];
        args.extend_from_slice(extra);
        unolab(&args)
    };
    let o = compare(&[
        "-m",
        "match",
        "-g",
        "20",
        "--precision",
        "rounds_per_match=0.01",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = compare(&["--resume"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("with other settings (not the same: mode"),
        "{err}"
    );

    // A bad file: one line per error, exit 2, nothing written.
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        GOOD.replace("points,color", "points,colour")
            .replace("baseline = \"plain\"", "baseline = \"x\""),
    )
    .unwrap();
    let out2 = dir.join("out2");
    let o = unolab(&[
        "experiment",
        "run",
        bad.to_str().unwrap(),
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.contains("bad.toml:3: baseline 'x' is not an arm"),
        "{err}"
    );
    assert!(
        err.contains("bad.toml:8: unknown strategy 'colour'"),
        "{err}"
    );
    assert!(!out2.exists());

    // compare: a paired A/B as JSON.
    let o = unolab(&[
        "compare",
        "--strategies",
        "points,random",
        "--b-house",
        "seven_o",
        "--games",
        "500",
        "--threads",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = j["comparisons"].as_array().unwrap();
    assert!(c
        .iter()
        .any(|r| r["metric"] == "turns_per_round" && r["ci95"][0].is_number()));
}

const UNTESTED: &str = r#"name = "u"
description = "differences without variance"
baseline = "plain"

[base]
rules = "classic"
players = 4
strategies = "points,color,random,cautious"
games = 400
seed = 3

[stop]
batch = 200

[[arm]]
label = "plain"

[[arm]]
label = "same"
set = ["hand_size=7"]

[[arm]]
label = "stack"
house = ["stacking=cross"]
"#;

#[test]
fn the_first_movers_share_has_its_own_test_between_table_sizes() {
    // At 2 players against 4 the first mover's share differs by about 25
    // points while the advantage (share minus 1/players) may not differ:
    // different questions, so the share is not "the same test as
    // first_mover_advantage" there (it said so, with the advantage's p).
    let text = UNTESTED
        .replace(
            "label = \"same\"\nset = [\"hand_size=7\"]",
            "label = \"two\"\nplayers = 2\nstrategies = \"points,color\"",
        )
        .replace("games = 400", "games = 2000");
    let e = parse(&text, "u.toml").unwrap();
    let (st, _) = run(&e.lockstep(2));
    let rows = comparison_rows(&st);
    let row = |a: &str, m: &str, g: &str| {
        rows.iter()
            .find(|r| r.arm == a && r.metric == m && r.group == g)
            .unwrap_or_else(|| panic!("no row {a} {m} {g}"))
    };
    let share = row("two", "first_mover_win_rate", "all");
    assert_eq!(share.d.untested, None);
    assert!(share.d.diff > 0.15 && share.p_holm < 0.05, "{:?}", share.d);
    // Position +0 has the same sums: the share's test, once in Holm's family.
    assert_eq!(
        row("two", "position_win_rate", "+0").d.untested,
        Some(unolab::sim::lockstep::Untested::SameAs(
            "first_mover_win_rate"
        ))
    );
    // At the same table size they remain the advantage's test.
    assert!(matches!(
        row("stack", "first_mover_win_rate", "all").d.untested,
        Some(unolab::sim::lockstep::Untested::SameAs(
            "first_mover_advantage"
        ))
    ));
}

#[test]
fn differences_without_variance_have_no_test_and_stay_out_of_holm() {
    use unolab::report::experiment::tested;
    use unolab::sim::lockstep::Untested;
    // "same" sets the default hand size: it plays plain's games, so every
    // difference is zero in every game; "stack" differs.
    let e = parse(UNTESTED, "u.toml").unwrap();
    let (st, _) = run(&e.lockstep(2));
    let rows = comparison_rows(&st);
    let same: Vec<_> = rows.iter().filter(|r| r.arm == "same").collect();
    assert!(!same.is_empty());
    for r in &same {
        assert_eq!(r.d.diff, 0.0, "{} {}", r.metric, r.group);
        assert!(
            r.d.p.is_nan() && r.p_holm.is_nan(),
            "{} {}: p {}",
            r.metric,
            r.group,
            r.d.p
        );
        assert!(r.d.untested.is_some(), "{} {}", r.metric, r.group);
    }
    // A metric that varies from game to game is "identical by construction".
    let turns = same.iter().find(|r| r.metric == "turns_per_round").unwrap();
    assert_eq!(turns.d.untested, Some(Untested::Identical));
    assert_eq!(turns.d.lo, 0.0);
    assert_eq!(turns.d.hi, 0.0);
    // The first mover's share and position +0 are first_mover_advantage's
    // test, which alone has a p-value.
    let stack = |m: &str, g: &str| {
        rows.iter()
            .find(|r| r.arm == "stack" && r.metric == m && r.group == g)
            .unwrap_or_else(|| panic!("no row {m} {g}"))
    };
    assert!(stack("first_mover_advantage", "all").d.p.is_finite());
    for (m, g) in [("first_mover_win_rate", "all"), ("position_win_rate", "+0")] {
        let r = stack(m, g);
        assert_eq!(
            r.d.untested,
            Some(Untested::SameAs("first_mover_advantage"))
        );
        assert!(r.d.p.is_nan() && r.p_holm.is_nan());
    }
    assert!(stack("turns_per_round", "all").d.p.is_finite());
    // Holm's family is the tested comparisons: the smallest p-value is
    // multiplied by their number.
    let m = tested(&rows);
    assert_eq!(m, rows.iter().filter(|r| r.d.untested.is_none()).count());
    assert!(m > 0 && m < rows.len());
    let min = rows
        .iter()
        .filter(|r| r.d.p.is_finite())
        .min_by(|a, b| a.d.p.total_cmp(&b.d.p))
        .unwrap();
    assert!((min.p_holm - (m as f64 * min.d.p).min(1.0)).abs() < 1e-12);

    // The report states that count, marks the rows without a test, and the
    // differences plot keeps the arm whose differences are all zero.
    let dir = crate::common::tempdir_created("exp", "untested");
    let file = dir.join("u.toml");
    std::fs::write(&file, UNTESTED).unwrap();
    let out = dir.join("out");
    common::run_experiment(&file, &out, &[]);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains(&format!(
            "Holm's adjustment over the {m} tested comparisons"
        )),
        "{md}"
    );
    assert!(md.contains("identical by construction"));
    assert!(!md.contains("over all"));
    let csv = std::fs::read_to_string(out.join("comparisons.csv")).unwrap();
    let line = csv
        .lines()
        .find(|l| l.starts_with("same,plain,turns_per_round,all,"))
        .unwrap();
    assert!(line.ends_with(",identical by construction"), "{line}");
    let svg = std::fs::read_to_string(out.join("differences.svg")).unwrap();
    assert!(
        svg.lines().any(|l| l.trim() == "same"),
        "the arm with zero differences keeps its row"
    );
}

#[test]
fn a_strategy_on_every_seat_has_an_identity_not_a_test() {
    use unolab::sim::lockstep::Untested;
    // With points on every seat, its round wins per seat held are the won
    // rounds / 4 in both arms: an identity of the table, never tested.
    let text = UNTESTED
        .replace("points,color,random,cautious", "points")
        .replace("[[arm]]\nlabel = \"same\"\nset = [\"hand_size=7\"]\n\n", "");
    let e = parse(&text, "u.toml").unwrap();
    let (st, _) = run(&e.lockstep(1));
    let rows = comparison_rows(&st);
    let r = rows
        .iter()
        .find(|r| r.metric == "win_rate" && r.group == "points")
        .unwrap();
    assert!(r.d.p.is_nan());
    assert_eq!(r.d.untested, Some(Untested::Identical), "{:?}", r.d);
}

#[test]
fn experiment_files_name_the_seating() {
    use unolab::sim::Seating;
    let e = parse(GOOD, "x.toml").unwrap();
    assert!(
        e.run.arms.iter().all(|a| a.cfg.seating == Seating::Mixed),
        "the default"
    );
    let t = GOOD.replace("seed = 7", "seed = 7\nseating = \"rotate\"");
    let e = parse(&t, "x.toml").unwrap();
    assert!(e.run.arms.iter().all(|a| a.cfg.seating == Seating::Rotate));
    let t = GOOD.replace(
        "label = \"stack\"",
        "label = \"stack\"\nseating = \"fixed\"",
    );
    let e = parse(&t, "x.toml").unwrap();
    assert_eq!(e.run.arms[1].cfg.seating, Seating::Fixed);
    assert_eq!(e.run.arms[0].cfg.seating, Seating::Mixed);
    // The older spelling still reads; a contradiction and a bad name do not.
    let t = GOOD.replace("seed = 7", "seed = 7\nfixed_seats = true");
    assert!(parse(&t, "x.toml")
        .unwrap()
        .run
        .arms
        .iter()
        .all(|a| a.cfg.seating == Seating::Fixed));
    let t = GOOD.replace(
        "seed = 7",
        "seed = 7\nseating = \"rotate\"\nfixed_seats = true",
    );
    has(&errors(&t), 12, "contradicts seating");
    let t = GOOD.replace("seed = 7", "seed = 7\nseating = \"round\"");
    has(
        &errors(&t),
        11,
        "invalid seating 'round' (valid: mixed, rotate, fixed)",
    );
    let t = GOOD.replace(
        "seed = 7",
        "seed = 7\nseating = \"fixed\"\nduplicate = true",
    );
    has(&errors(&t), 11, "duplicate play rotates the seats");
}

#[test]
fn a_precision_on_what_no_arm_measures_or_without_a_precision_is_refused() {
    use unolab::sim::lockstep::check;
    // A limit for a precision rule, in a file without one: ignored before.
    let t = GOOD.replace("batch = 200", "batch = 200\nmax_games = 5000");
    has(
        &errors(&t),
        14,
        "max_games is the limit of a run with a precision",
    );
    let t = GOOD.replace(
        "batch = 200",
        "batch = 200\nprecision = 0.5\nmax_games = 5000",
    );
    assert!(parse(&t, "x.toml").is_ok());
    // The precision's metrics without a precision: refused by the run's
    // check (a --precision X may still bring one).
    let t = GOOD.replace("batch = 200", "batch = 200\nmetrics = [\"win_rate\"]");
    let mut e = parse(&t, "x.toml").unwrap();
    let err = check(&e.lockstep(1)).unwrap_err().to_string();
    assert!(
        err.contains("the metrics of a precision are named (win_rate), but no precision is given"),
        "{err}"
    );
    e.run.precision = Some(0.01);
    check(&e.lockstep(1)).unwrap();
    // A metric only matches measure, in a run of rounds: it was "reached"
    // without an interval ever looked at.
    let mut e = parse(GOOD, "x.toml").unwrap();
    e.run.precision_targets = vec![("match_win_rate".into(), 0.01)];
    let err = check(&e.lockstep(1)).unwrap_err().to_string();
    assert!(
        err.contains("'match_win_rate', which only matches measure"),
        "{err}"
    );
    e.run.precision_targets = vec![];
    e.run.precision = Some(0.01);
    e.run.precision_metrics = vec!["rounds_per_match".into()];
    assert!(check(&e.lockstep(1)).is_err());
    // Two targets for one metric: only the first was used.
    e.run.precision = None;
    e.run.precision_metrics = vec![];
    e.run.precision_targets = vec![("win_rate".into(), 0.01), ("win_rate".into(), 0.02)];
    let err = check(&e.lockstep(1)).unwrap_err().to_string();
    assert!(
        err.contains("metric 'win_rate' has two precision targets"),
        "{err}"
    );
    // Named among the metrics of the precision for all and given its own
    // (a file's `metrics = ["win_rate"]` and `precision_per_metric`): the
    // report read "±0.01 for win_rate, ±0.5 for win_rate otherwise".
    e.run.precision = Some(0.5);
    e.run.precision_metrics = vec!["win_rate".into()];
    e.run.precision_targets = vec![("win_rate".into(), 0.01)];
    let err = check(&e.lockstep(1)).unwrap_err().to_string();
    assert!(
        err.contains("metric 'win_rate' has two precision targets (0.5 as one of the precision's metrics, 0.01 of its own)"),
        "{err}"
    );
    // The precision for every metric, and one metric's own: valid.
    e.run.precision_metrics = vec![];
    check(&e.lockstep(1)).unwrap();
    // From the command line: one line, exit 2, before any game.
    let o = unolab(&[
        "compare",
        "-s",
        "points,color",
        "--b-house",
        "seven_o",
        "--precision",
        "match_win_rate=0.2",
        "-g",
        "300",
        "-q",
    ]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("only matches measure"), "{e}");
    assert!(o.stdout.is_empty());
}

#[test]
fn arms_equal_in_every_deal_played_are_not_called_identical_and_get_no_interval() {
    // B's turn limit is far above what 100 rounds of these strategies reach,
    // so A and B played the same rounds; on more deals the limit shows (it
    // did at 5,000). That was "identical by construction" with an interval
    // of [0, 0]: a difference claimed to be known zero.
    let o = unolab(&[
        "compare",
        "-s",
        "points,color",
        "--b-set",
        "max_turns=150",
        "-g",
        "100",
        "-j",
        "1",
        "-q",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["comparisons"].as_array().expect("comparisons");
    let turns = rows
        .iter()
        .find(|r| r["metric"] == "turns_per_round")
        .expect("turns_per_round");
    assert_eq!(turns["difference"], 0.0, "{turns}");
    assert_eq!(
        turns["untested"], "the same in every deal played",
        "{turns}"
    );
    assert!(
        turns["ci95"][0].is_null() && turns["ci95"][1].is_null(),
        "{turns}"
    );
    assert!(!String::from_utf8_lossy(&o.stdout).contains("identical by construction"));
    // The comparisons carry comparisons.csv's clusters (the deals played);
    // the arms' n is a whole number, as in arms.csv.
    assert!(rows.iter().all(|r| r["clusters"] == 100), "{rows:?}");
    let arms = v["arms"].as_array().expect("arms");
    assert!(arms.iter().all(|a| a["n"].is_u64()), "{arms:?}");
}

#[test]
fn a_grid_s_empty_value_is_none_added_when_the_base_gives_house_rules() {
    // "none" read as if the base's house rules did not hold (the CLI audit
    // of 2026-12-07).
    let labels = |text: &str| -> Vec<String> {
        let e = parse(text, "g.toml").unwrap();
        e.specs.iter().map(|a| a.label.clone()).collect()
    };
    assert_eq!(
        labels(
            "name = \"g\"\n[base]\nhouse = [\"seven_o\"]\n[grid]\nhouse = [\"\", \"jump_in\"]\n"
        ),
        ["none added", "jump_in"]
    );
    assert_eq!(
        labels(
            "name = \"g\"\n[base]\nset = [\"target=100\"]\n[grid]\nset = [\"\", \"hand_size=5\"]\n"
        ),
        ["none added", "hand_size=5"]
    );
    assert_eq!(
        labels("name = \"g\"\n[grid]\nhouse = [\"\", \"jump_in\"]\n"),
        ["none", "jump_in"]
    );
}

#[test]
fn an_empty_grid_is_one_problem() {
    // It was said twice: the empty [grid], then "no arms".
    let errs = parse("name = \"x\"\n[grid]\nplayers = []\n", "g.toml").unwrap_err();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].contains("the [grid] table lists no values"),
        "{errs:?}"
    );
    // With neither arms nor a grid, "no arms" is the one problem.
    let errs = parse("name = \"x\"\n", "g.toml").unwrap_err();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].contains("no arms"), "{errs:?}");
}

/// report.md's words agree with its table: the table's intervals are each
/// comparison's own, so a row not detected after Holm's adjustment may have
/// an interval that excludes 0. The words count those rows (from
/// comparisons.csv) instead of claiming the intervals bound every
/// difference not detected. The house-rules experiment at 2,000 games has
/// such rows.
#[test]
fn the_report_counts_rows_significant_alone_but_not_after_holm() {
    let dir = crate::common::tempdir_created("exp", "holm-words");
    let out = dir.join("out");
    let file = format!(
        "{}/experiments/house-rules.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    common::run_experiment(
        std::path::Path::new(&file),
        &out,
        &["--games", "2000", "--threads", "2"],
    );
    let num = |r: &std::collections::HashMap<String, String>, k: &str| {
        r[k].parse::<f64>().unwrap_or(f64::NAN)
    };
    let alone = crate::common::csv_rows(&out.join("comparisons.csv"))
        .iter()
        .filter(|r| num(r, "p_value").is_finite() && num(r, "p_holm") >= 0.05)
        .filter(|r| num(r, "ci95_low") > 0.0 || num(r, "ci95_high") < 0.0)
        .count();
    assert!(alone > 0, "the case this test is about did not occur");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let words = format!("{alone} of them have an interval that excludes 0: significant taken alone, not after the adjustment");
    assert!(md.contains(&words), "{words}\n{md}");
    assert!(md.contains("not adjusted for the family"), "{md}");
    assert!(!md.contains("bound how large they can be"), "{md}");
}

/// A challenger that replaces one strategy at a table otherwise held by one
/// other strategy, with no round blocked or truncated: its row (its wins
/// per seat against the replaced strategy's, paired deal by deal) is minus
/// the other strategy's paired difference times its seats per challenger
/// seat, interval included (a round's wins add up to one, deal by deal);
/// the report quotes it, and the two side-by-side figures differ by it.
#[test]
fn a_challengers_paired_gain_is_the_others_difference_of_the_other_sign() {
    let dir = crate::common::tempdir_created("exp", "challenger");
    let out = dir.join("out");
    let o = unolab(&[
        "compare",
        "--players",
        "4",
        "--strategies",
        "points,color,color,color",
        "--b-seat",
        "0=cautious",
        "--duplicate",
        "--games",
        "400",
        "--seed",
        "11",
        "--threads",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let comps = crate::common::csv_rows(&out.join("comparisons.csv"));
    let row = comps
        .iter()
        .find(|r| r["metric"] == "win_rate" && r["group"] == "color")
        .unwrap();
    let num = |name: &str| row[name].parse::<f64>().unwrap();
    let (d, lo, hi) = (num("difference"), num("ci95_low"), num("ci95_high"));
    let gain = comps
        .iter()
        .find(|r| r["metric"] == "win_rate" && r["group"] == "cautious vs points")
        .unwrap_or_else(|| panic!("{comps:?}"));
    let g = |name: &str| gain[name].parse::<f64>().unwrap();
    // The CSV rounds to six decimals, and the difference is multiplied by 3.
    let close = |a: f64, b: f64| (a - b).abs() < 5e-6;
    assert!(close(g("difference"), -3.0 * d), "{gain:?} {d}");
    assert!(
        close(g("ci95_low"), -3.0 * hi) && close(g("ci95_high"), -3.0 * lo),
        "{gain:?} {lo} {hi}"
    );
    // The same test as color's row, which carries it (Holm counts it once).
    assert_eq!(gain["test"], "same test as the other strategy's row");
    assert_eq!(row["test"], "tested");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let at = md
        .find("paired gain of cautious over points: ")
        .unwrap_or_else(|| panic!("{md}"));
    let rest = &md[at + "paired gain of cautious over points: ".len()..];
    // "+4.40 pp [+2.68, +6.12] per seat (deal by deal: the row ..."
    let figures: Vec<f64> = rest
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .filter(|w| !w.is_empty())
        .take(3)
        .map(|w| w.parse().unwrap())
        .collect();
    let near = |a: f64, b: f64| (a - b).abs() < 0.006;
    assert!(near(figures[0], 100.0 * g("difference")), "{figures:?}");
    assert!(
        near(figures[1], 100.0 * g("ci95_low")) && near(figures[2], 100.0 * g("ci95_high")),
        "{figures:?}"
    );
    assert!(
        rest.contains("deal by deal: the row win_rate:cautious vs points"),
        "{rest}"
    );
    // The side-by-side figures differ by the gain: the wins add up.
    let arms = crate::common::csv_rows(&out.join("arms.csv"));
    let rate = |arm: &str, group: &str| -> f64 {
        let r = arms
            .iter()
            .find(|r| r["arm"] == arm && r["metric"] == "win_rate" && r["group"] == group)
            .unwrap();
        r["value"].parse().unwrap()
    };
    let (c, p) = (rate("B", "cautious"), rate("A", "points"));
    assert!((c - p + 3.0 * d).abs() < 1e-5, "{c} {p} {d}");
}

/// A bare `--resume` takes the interrupted command's seed, duplicate play
/// and batch as it takes its game limit: an audit found them refused as
/// "another experiment" unless typed again, with `--force` (throwing the
/// saved games away) as the only advice. Given again, they must match.
#[test]
fn a_bare_resume_takes_the_saved_seed_duplicate_play_and_batch() {
    let dir = tempdir_created("experiment", "resume-options");
    let compare = |out: &str, extra: &[&str]| {
        let out = dir.join(out);
        let mut args = vec![
            "compare",
            "-p",
            "2",
            "-s",
            "points,color",
            "--b-seat",
            "0=cautious",
            "--threads",
            "1",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        (unolab(&args), out)
    };
    let given = ["--seed", "5", "--duplicate", "--batch", "30"];
    let (o, a) = compare("a", &[&given[..], &["-g", "60"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Extended to 120 deals with none of the three repeated ...
    let (o, _) = compare("a", &["--resume", "-g", "120"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // ... it is the run given them from the start.
    let (o, b) = compare("b", &[&given[..], &["-g", "120"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["arms.csv", "comparisons.csv"] {
        assert_eq!(read(&a.join(f)), read(&b.join(f)), "{f}");
    }
    // The report names the command that set the run up (the bare --resume
    // repeats none of its options), then the one that continued it; the
    // manifest records both.
    let report = read(&a.join("report.md"));
    let produced = report
        .lines()
        .find(|l| l.starts_with("Produced by"))
        .expect("a Produced by line");
    let typed = |out: &str, extra: &[&str]| {
        let dir = dir.join(out);
        format!(
            "`unolab compare -p 2 -s points,color --b-seat 0=cautious --threads 1 -q --out {} {}`",
            dir.display(),
            extra.join(" ")
        )
    };
    assert_eq!(
        produced,
        format!(
            "Produced by {}, continued by {}.",
            typed("a", &[&given[..], &["-g", "60"]].concat()),
            typed("a", &["--resume", "-g", "120"])
        )
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&read(&a.join("manifest.json"))).unwrap();
    assert!(
        manifest["command"].to_string().contains("\"--seed\",\"5\""),
        "{manifest}"
    );
    assert_eq!(
        manifest["continued_by"].as_array().map(Vec::len),
        Some(1),
        "{manifest}"
    );
    let fresh: serde_json::Value = serde_json::from_str(&read(&b.join("manifest.json"))).unwrap();
    assert_eq!(fresh["continued_by"], serde_json::json!([]));
    // Given with other values, they are refused in one line naming them,
    // and the saved run is left as it was.
    let state = read(&a.join("state.json"));
    for (extra, what) in [
        (&["--seed", "6"][..], "not the same: seed"),
        (&["--batch", "31"][..], "not the same: batch"),
        (&["--duplicate=false"][..], "not the same: duplicate play"),
    ] {
        let (o, _) = compare("a", &[&["--resume"][..], extra].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(what), "{extra:?}: {err}");
        assert_eq!(read(&a.join("state.json")), state);
    }
    // Another arm, seed and batch not given: the refusal names the arm
    // alone (it listed the seed first, which the command did not set).
    let (o, _) = compare("a", &["--resume", "--b-house", "seven_o"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("(not the same: arm 'B': rule set)"), "{err}");
    assert_eq!(read(&a.join("state.json")), state);
}

#[test]
fn the_comparison_table_keeps_its_columns_when_a_value_passes_100() {
    // Points per round past 100 ("116.2550 [113.7340, 118.7760]") were
    // wider than their column and pushed the rest of the row out of line.
    let dir = common::tempdir("experiment", "columns");
    let o = common::unolab(&[
        "experiment",
        "run",
        "experiments/house-rules.toml",
        "--games",
        "200",
        "-q",
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let text = common::stdout(&o);
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("arm "))
        .take_while(|l| !l.is_empty() && !l.starts_with('('))
        .collect();
    assert!(table.len() > 20, "{text}");
    assert!(
        table.iter().any(|l| l.contains("points_per_round")),
        "{text}"
    );
    let widths: std::collections::BTreeSet<usize> = table.iter().map(|l| l.len()).collect();
    assert_eq!(widths.len(), 1, "rows of different widths: {text}");
}

/// A `--resume` of a run that had finished plays nothing: it said so
/// nowhere, and rewrote the results with a "continued by" command that
/// played no game (an audit's finding). Now its files stand byte for byte,
/// the results are shown again, and stderr says that nothing was left.
#[test]
fn a_resume_of_a_finished_run_leaves_its_files_as_they_were() {
    let dir = tempdir_created("experiment", "resume-finished");
    let out = dir.join("a");
    let go = |extra: &[&str]| {
        let mut v = vec![
            "compare",
            "-p",
            "2",
            "-s",
            "points,color",
            "--b-seat",
            "0=cautious",
            "--threads",
            "1",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ];
        v.extend_from_slice(extra);
        unolab(&v)
    };
    let o = go(&["-g", "80"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = [
        "arms.csv",
        "comparisons.csv",
        "report.md",
        "manifest.json",
        "state.json",
    ];
    // The start the manifest holds is what the resume that plays nothing
    // reports (it gave its own).
    let manifest = read(&out.join("manifest.json"));
    let saved: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    let saved = saved["started"].as_str().unwrap().to_string();
    std::fs::write(
        out.join("manifest.json"),
        manifest.replace(&saved, "2001-02-03T04:05:06Z"),
    )
    .unwrap();
    let before: Vec<String> = files.iter().map(|f| read(&out.join(f))).collect();
    let o = go(&["--resume", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("nothing was left to play"), "{err}");
    for (f, b) in files.iter().zip(&before) {
        assert_eq!(&read(&out.join(f)), b, "{f} was rewritten");
    }
    // The results shown are the saved run's: its 80 games per arm, and no
    // command added.
    let shown: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(shown["manifest"]["clusters"], 80, "{shown}");
    assert_eq!(shown["manifest"]["continued_by"], serde_json::json!([]));
    assert_eq!(shown["manifest"]["started"], "2001-02-03T04:05:06Z");
    // A smaller one is refused, saying what to give.
    let o = go(&["--resume", "-g", "40"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("more than the limit of 40; resume with at least --games 80, or start over with --force"),
        "{err}"
    );
    // A larger game count still continues it.
    let o = go(&["--resume", "-g", "120"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("nothing was left"));
    assert!(read(&out.join("report.md")).contains("continued by"));
}

/// `--seating` replaces every arm's seating, an arm's own too: that was
/// documented but silent. It is now said on stderr, naming the arms whose
/// own seating (other than the default) it replaced.
#[test]
fn a_seating_given_on_the_command_line_says_which_arms_it_replaced() {
    let dir = tempdir_created("experiment", "seating-note");
    let file = dir.join("s.toml");
    std::fs::write(
        &file,
        "name = \"s\"\n[base]\nplayers = 2\nstrategies = \"points,color\"\n\
         [[arm]]\nlabel = \"a\"\n[[arm]]\nlabel = \"b\"\nseating = \"fixed\"\n\
         [[arm]]\nlabel = \"c\"\nseating = \"rotate\"\n",
    )
    .unwrap();
    let go = |extra: &[&str]| {
        let mut v = vec![
            "experiment",
            "run",
            file.to_str().unwrap(),
            "-g",
            "20",
            "-q",
        ];
        v.extend_from_slice(extra);
        v.extend_from_slice(&["--out", dir.to_str().unwrap(), "--force"]);
        unolab(&v)
    };
    let o = go(&["--seating", "rotate"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("note: --seating rotate replaces the seating the file gives arm 'b' (fixed)"),
        "{err}"
    );
    let o = go(&["--seating", "mixed"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("gives arms 'b' (fixed), 'c' (rotate)"),
        "{err}"
    );
    // An arm already seated so is not named; without --seating nothing
    // is said.
    let o = go(&["--seating", "fixed"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("gives arm 'c' (rotate)\n"), "{err}");
    let o = go(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("note: --seating"), "{err}");
    // A refusal stays one line: the note comes only once every check has
    // passed (it came before an --out that is a file was refused).
    let afile = dir.join("afile");
    std::fs::write(&afile, "x").unwrap();
    let o = unolab(&[
        "experiment",
        "run",
        file.to_str().unwrap(),
        "-g",
        "20",
        "--seating",
        "rotate",
        "--out",
        afile.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // A shard says it too.
    let shards = dir.join("shards");
    let o = unolab(&[
        "experiment",
        "run",
        file.to_str().unwrap(),
        "-g",
        "20",
        "-q",
        "--seating",
        "rotate",
        "--shard",
        "1/2",
        "--out",
        shards.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("note: --seating rotate replaces the seating the file gives arm 'b' (fixed)"),
        "{err}"
    );
}

/// Two strategies that hold every seat of both arms alike, every round won:
/// one's wins are the round's others, so its row is the first's difference
/// times minus its seats per the other's (here points holds 2 seats of 3,
/// color 1: color's share is 1 minus twice points'), interval included, and
/// it is one test, counted once by Holm. With truncated rounds it is not,
/// and both rows are tested.
#[test]
fn the_second_of_two_strategies_is_the_same_test_as_the_first() {
    let dir = crate::common::tempdir_created("exp", "mirror");
    let rows = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let mut args = vec![
            "compare",
            "--players",
            "3",
            "--strategies",
            "points,color",
            "--b-set",
            "hand_size=5",
            "--games",
            "300",
            "--seed",
            "4",
            "--threads",
            "2",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        let o = unolab(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let comps = crate::common::csv_rows(&out.join("comparisons.csv"));
        let row = |group: &str| {
            comps
                .iter()
                .find(|r| r["metric"] == "win_rate" && r["group"] == group)
                .unwrap_or_else(|| panic!("{comps:?}"))
                .clone()
        };
        (row("points"), row("color"))
    };
    let (first, second) = rows("won", &[]);
    let num = |r: &std::collections::HashMap<String, String>, k: &str| r[k].parse::<f64>().unwrap();
    let close = |a: f64, b: f64| (a - b).abs() < 5e-6;
    assert_eq!(first["test"], "tested");
    assert_eq!(second["test"], "same test as the other strategy's row");
    assert_eq!(second["p_value"], "");
    assert_eq!(second["p_holm"], "");
    assert!(close(
        num(&second, "difference"),
        -2.0 * num(&first, "difference")
    ));
    assert!(close(
        num(&second, "ci95_low"),
        -2.0 * num(&first, "ci95_high")
    ));
    assert!(close(
        num(&second, "ci95_high"),
        -2.0 * num(&first, "ci95_low")
    ));

    let (first, second) = rows("truncated", &["--set", "max_turns=30"]);
    assert_eq!(first["test"], "tested");
    assert_eq!(second["test"], "tested");
    assert!(!second["p_value"].is_empty());
}

/// A head-to-head table of many pairs says its intervals are each pair's
/// own (the strategies report read 15 intervals against 50% with no word of
/// multiplicity; the statistics audit, 2026-12-07).
#[test]
fn a_head_to_head_table_says_its_intervals_are_each_pairs_own() {
    let dir = crate::common::tempdir_created("exp", "h2h-words");
    let out = dir.join("out");
    let file = format!("{}/experiments/strategies.toml", env!("CARGO_MANIFEST_DIR"));
    common::run_experiment(
        std::path::Path::new(&file),
        &out,
        &["--games", "40", "--threads", "2"],
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("with its 95% interval (each pair's own, not adjusted for the 15 pairs)"),
        "{md}"
    );
}

/// The head-to-head table is read against the fair share of a seat, and
/// only when every round had a winner: at 4 players 25% (it said 50%, and
/// a strategy that won 29% per seat read as losing), and with truncated
/// rounds against no share; a self-play arm no longer removes the table,
/// and a pair met in two arms gives none (the experiments audit,
/// 2026-12-07).
#[test]
fn a_head_to_head_table_is_read_against_the_fair_share_of_a_seat() {
    let dir = crate::common::tempdir_created("exp", "h2h-fair");
    // The report of an experiment file `text` (named `name`).
    let of_file = |name: &str, text: String| -> String {
        let f = dir.join(format!("{name}.toml"));
        std::fs::write(&f, text).unwrap();
        let out = dir.join(name);
        let o = unolab(&[
            "experiment",
            "run",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--threads",
            "2",
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(out.join("report.md")).unwrap()
    };
    let report = |name: &str, base: &str, grid: &str| {
        of_file(
            name,
            format!("name = \"{name}\"\n[base]\n{base}games = 60\n[grid]\nstrategies = [{grid}]\n"),
        )
    };
    let four = report(
        "four",
        "players = 4\n",
        "\"points,color\", \"points,random\"",
    );
    assert!(
        four.contains("Above 25% (the fair share of a seat at 4 players) the row strategy won more rounds per seat held than the column strategy; an interval that holds 25% is"),
        "{four}"
    );
    assert!(!four.contains("50%"), "{four}");
    let cut = report(
        "cut",
        "players = 2\nset = [\"max_turns=25\"]\n",
        "\"points,color\", \"points,random\"",
    );
    assert!(
        cut.contains("Some rounds had no winner (blocked or truncated), so a cell is not read against the fair share of a seat"),
        "{cut}"
    );
    assert!(!cut.contains("Above 50%"), "{cut}");
    // Arms of other table sizes: no one share.
    let sizes = of_file(
        "sizes",
        "name = \"sizes\"\n[base]\ngames = 60\n[[arm]]\nlabel = \"a\"\nplayers = 2\nstrategies = \"points,color\"\n[[arm]]\nlabel = \"b\"\nplayers = 3\nstrategies = \"points,random\"\n".into(),
    );
    assert!(
        sizes.contains(
            "The arms seat different numbers of players, so no one share divides winning from losing"
        ),
        "{sizes}"
    );
    let selfplay = report(
        "selfplay",
        "players = 2\n",
        "\"points,points\", \"points,color\", \"random,color\"",
    );
    assert!(selfplay.contains("## Head to head"), "{selfplay}");
    assert!(
        selfplay.contains("not adjusted for the 2 pairs"),
        "{selfplay}"
    );
    let twice = report(
        "twice",
        "players = 2\n",
        "\"points,color\", \"color,points\"",
    );
    assert!(!twice.contains("## Head to head"), "{twice}");
}

/// An experiment's `distributions.csv` gives every value seen once, large
/// ones too: values past a histogram's unit bins (64 UNO penalties in a
/// round) were written exactly and then again as a `>=64` row, so the
/// counts added up to twice the rounds. Under penalty scoring the points
/// histogram (every seat's points of every round) was named
/// `points_per_round_won`; it is named as run's summary.csv names it.
#[test]
fn distributions_count_each_round_once_and_name_penalty_points() {
    let dir = crate::common::tempdir_created("experiment", "distributions");
    std::fs::write(
        dir.join("never.toml"),
        "name = \"never-uno\"\nbase = \"heuristic\"\n[params]\npoints_weight = 1.0\nforget_uno = 1.0\n",
    )
    .unwrap();
    let file = dir.join("e.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"d\"\nbaseline = \"plain\"\n[base]\nplayers = 2\nstrategies = \"{}\"\ngames = 20\nseed = 3\nset = [\"max_turns=3000\"]\n[[arm]]\nlabel = \"plain\"\n[[arm]]\nlabel = \"caught\"\nset = [\"uno_catch_chance=0.5\"]\n[[arm]]\nlabel = \"penalty\"\nset = [\"uno_catch_chance=0.5\", \"scoring=penalty\"]\n",
            dir.join("never.toml").display()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    crate::common::run_experiment(&file, &out, &[]);
    let rows = crate::common::csv_rows(&out.join("distributions.csv"));
    let count = |arm: &str, dist: &str| -> u64 {
        rows.iter()
            .filter(|r| r["arm"] == arm && r["distribution"] == dist)
            .map(|r| r["count"].parse::<u64>().unwrap())
            .sum()
    };
    for r in &rows {
        assert!(r["value"].parse::<u64>().is_ok(), "{r:?}");
    }
    // Some round held 64 UNO penalties or more (a player who never calls).
    assert!(
        rows.iter()
            .any(|r| r["distribution"] == "uno_penalties_per_round"
                && r["value"].parse::<u64>().unwrap() >= 64),
        "no large value to test with"
    );
    for arm in ["plain", "caught", "penalty"] {
        for dist in [
            "turns_per_round",
            "cards_drawn_per_round",
            "uno_penalties_per_round",
        ] {
            assert_eq!(count(arm, dist), 20, "{arm} {dist}");
        }
    }
    // Caught, players end their rounds: every round won scores.
    assert_eq!(count("caught", "points_per_round_won"), 20);
    assert_eq!(count("caught", "penalty_points_per_seat_per_round"), 0);
    assert_eq!(count("penalty", "points_per_round_won"), 0);
    // Every seat of every round: 2 x 20.
    assert_eq!(count("penalty", "penalty_points_per_seat_per_round"), 40);
    // The first mover's advantage counts the won rounds, as its share does
    // (it gave players x the won rounds).
    let arms = crate::common::csv_rows(&out.join("arms.csv"));
    let n = |metric: &str| {
        arms.iter()
            .find(|r| r["arm"] == "caught" && r["metric"] == metric)
            .map(|r| r["n"].clone())
            .unwrap_or_else(|| panic!("{metric}"))
    };
    assert_eq!(n("first_mover_advantage"), n("first_mover_win_rate"));
    assert_eq!(n("first_mover_win_rate"), "20");
    // The one strategy's round wins per seat held: 0 in plain (every round
    // truncated), 50% caught (every round won). A difference of 50 points
    // constant in each arm, given without an interval as "no variance",
    // which is said of equal arms: it has the interval put together from
    // each arm's, as the truncated share beside it.
    let comps = crate::common::csv_rows(&out.join("comparisons.csv"));
    let row = |metric: &str| {
        comps
            .iter()
            .find(|r| r["arm"] == "caught" && r["baseline"] == "plain" && r["metric"] == metric)
            .unwrap_or_else(|| panic!("{metric}"))
            .clone()
    };
    for metric in ["win_rate", "truncated_rate"] {
        let r = row(metric);
        assert_eq!(r["test"], "constant in each arm", "{r:?}");
        let lo: f64 = r["ci95_low"].parse().unwrap();
        let hi: f64 = r["ci95_high"].parse().unwrap();
        let d: f64 = r["difference"].parse().unwrap();
        assert!(lo <= d && d <= hi && hi - lo > 0.05, "{r:?}");
    }
}
