//! A challenger (a strategy the arm seats and the baseline does not, on
//! seats that all held one strategy there) gets a comparison row of its own:
//! its round wins per seat held against the replaced strategy's, paired deal
//! by deal, whatever the other seats hold and whether rounds are blocked or
//! truncated; and its intervals cover.

use std::sync::atomic::AtomicBool;
use unolab::lab::compare::ab;
use unolab::lab::experiment::{ArmSpec, Experiment};
use unolab::report::experiment::{arm_rows, comparison_rows, ComparisonRow};
use unolab::sim::lockstep::{challenger, run_lockstep, LockstepState};
use unolab::sim::{self, Mode};

fn spec(label: &str, strategies: &str, set: &[&str]) -> ArmSpec {
    ArmSpec {
        label: label.into(),
        rules: "classic".into(),
        set: set.iter().map(|s| s.to_string()).collect(),
        house: Vec::new(),
        players: 4,
        strategies: strategies.into(),
    }
}

/// The experiment "B against A", played: its state.
fn play(
    a: &str,
    b: &str,
    set: &[&str],
    games: u64,
    seed: u64,
    duplicate: bool,
) -> (Experiment, LockstepState) {
    let mut e = ab(
        spec("A", a, set),
        spec("B", b, set),
        Mode::Round,
        games,
        seed,
        false,
    )
    .unwrap();
    e.run.duplicate = duplicate;
    let cfg = e.lockstep(2);
    let mut st = LockstepState::new(&cfg);
    run_lockstep(&cfg, &mut st, &AtomicBool::new(false), &|_| {}, &mut |_| {
        Ok(())
    })
    .unwrap();
    (e, st)
}

fn row<'a>(rows: &'a [ComparisonRow], group: &str) -> Option<&'a ComparisonRow> {
    rows.iter()
        .find(|r| r.metric == "win_rate" && r.group == group)
}

#[test]
fn which_line_ups_have_a_challenger() {
    let e = |a: &str, b: &str| {
        ab(
            spec("A", a, &[]),
            spec("B", b, &[]),
            Mode::Round,
            10,
            1,
            false,
        )
        .unwrap()
    };
    let pair = |a: &str, b: &str| {
        let x = e(a, b);
        challenger(&x.run.arms[1].cfg, &x.run.arms[0].cfg)
    };
    let some = |c: &str, r: &str| Some((c.to_string(), r.to_string()));
    assert_eq!(
        pair("points,color,color,color", "cautious,color,color,color"),
        some("cautious", "points")
    );
    // Several seats of one strategy, the replaced one still seated.
    assert_eq!(
        pair("color", "cautious,cautious,color,color"),
        some("cautious", "color")
    );
    // Two strategies replaced, or the challenger seated in A too: none.
    assert_eq!(
        pair(
            "points,color,random,random",
            "cautious,cautious,random,random"
        ),
        None
    );
    assert_eq!(
        pair(
            "cautious,color,points,points",
            "cautious,color,cautious,points"
        ),
        None
    );
    // Counted by strategy: the order a line-up is typed in does not matter.
    assert_eq!(
        pair("points,color", "color,cautious"),
        some("cautious", "points")
    );
    assert_eq!(
        pair(
            "tuned,color,points,cautious",
            "color,forgetful,points,cautious"
        ),
        some("forgetful", "tuned")
    );
    // Two challengers: none.
    assert_eq!(
        pair("points,color,color,color", "cautious,forgetful,color,color"),
        None
    );
}

/// In a field of four different strategies, with truncated rounds, the row
/// exists and is the challenger's round wins per seat in B less the
/// replaced strategy's in A, with an interval around it. (Without duplicate
/// deals the default seating may seat the challenger elsewhere than the
/// strategy it replaced in the same game: the row is paired, but the
/// pairing need not narrow it.)
#[test]
fn a_challenger_in_a_mixed_field_with_truncated_rounds_has_its_row() {
    let (_, st) = play(
        "tuned,color,points,cautious",
        "forgetful,color,points,cautious",
        &["max_turns=40"],
        3000,
        21,
        false,
    );
    let comps = comparison_rows(&st);
    let arms = arm_rows(&st);
    let value = |arm: &str, metric: &str, group: &str| {
        arms.iter()
            .find(|r| r.arm == arm && r.metric == metric && r.group == group)
            .map(|r| r.est.value)
            .unwrap()
    };
    // The case the test is for occurs.
    assert!(value("A", "truncated_rate", "all") > 0.0 && value("B", "truncated_rate", "all") > 0.0);
    let r = row(&comps, "forgetful vs tuned").unwrap_or_else(|| panic!("{comps:?}"));
    let (c, t) = (
        value("B", "win_rate", "forgetful"),
        value("A", "win_rate", "tuned"),
    );
    assert!((r.arm_value - c).abs() < 1e-12 && (r.base_value - t).abs() < 1e-12);
    assert!((r.d.diff - (c - t)).abs() < 1e-12);
    // Tested: with four strategies the row is no other row's test.
    assert!(r.d.lo < r.d.diff && r.d.diff < r.d.hi && r.d.p.is_finite() && r.p_holm.is_finite());
    assert_eq!(r.d.untested, None);
    // Where the challenger takes the seat of a strategy the others do not
    // play, with duplicate deals, the pairing narrows the interval.
    let (_, st) = play(
        "points,color,color,color",
        "cautious,color,color,color",
        &[],
        500,
        11,
        true,
    );
    let comps = comparison_rows(&st);
    let d = row(&comps, "cautious vs points").unwrap().d;
    assert!(d.se < 0.9 * d.se_unpaired, "{d:?}");
    // No row where a challenger replaces two strategies.
    let (_, st) = play(
        "tuned,color,points,cautious",
        "forgetful,forgetful,points,cautious",
        &[],
        300,
        21,
        false,
    );
    assert!(comparison_rows(&st)
        .iter()
        .all(|r| !r.group.contains(" vs ")));
}

/// Where the other seats hold one strategy and every round is won, the
/// challenger's row is the same test as that strategy's row (a round's wins
/// add up to one): it keeps its interval, gets no p-value of its own and
/// stays out of Holm's family, so the family and every adjusted p-value are
/// those of the comparison without it. With truncated rounds it is a test
/// of its own.
#[test]
fn a_challengers_row_is_tested_once() {
    use unolab::sim::lockstep::Untested;
    let (_, st) = play(
        "points,color,color,color",
        "cautious,color,color,color",
        &[],
        300,
        4,
        true,
    );
    let comps = comparison_rows(&st);
    let r = row(&comps, "cautious vs points").unwrap();
    assert_eq!(r.d.untested, Some(Untested::SameAsOther));
    assert!(r.d.p.is_nan() && r.p_holm.is_nan() && r.d.lo.is_finite() && r.d.lo < r.d.hi);
    let color = row(&comps, "color").unwrap();
    assert!(color.d.p.is_finite());
    // Its t statistic is color's: the same p-value from the same interval.
    let t = |d: &unolab::sim::lockstep::Difference| d.diff / d.se;
    assert!(
        (t(&r.d) + t(&color.d)).abs() < 1e-9,
        "{:?} {:?}",
        r.d,
        color.d
    );
    // Truncated rounds break the identity: a test of its own.
    let (_, st) = play(
        "points,color,color,color",
        "cautious,color,color,color",
        &["max_turns=40"],
        300,
        4,
        true,
    );
    let comps = comparison_rows(&st);
    let r = row(&comps, "cautious vs points").unwrap();
    assert_eq!(r.d.untested, None);
    assert!(r.d.p.is_finite());
}

/// The truth of a challenger's gain: its round wins per seat held in B's
/// line-up less the replaced strategy's in A's, each from one long run.
fn truth(e: &Experiment, c: &str, r: &str, games: u64) -> f64 {
    let rate = |arm: usize, name: &str| {
        let mut cfg = e.run.arms[arm].cfg.clone();
        cfg.games = games;
        cfg.seed = 999_331 + arm as u64;
        cfg.threads = 2;
        let s = sim::run(&cfg, &AtomicBool::new(false), &|_| {})
            .unwrap()
            .stats;
        let k = s.strategies.iter().find(|x| x.name == name).unwrap();
        k.round_wins as f64 / (s.rounds * k.seats as u64) as f64
    };
    rate(1, c) - rate(0, r)
}

/// A coverage design: label, line-up A, line-up B, settings, games,
/// duplicate.
type Case<'a> = (&'a str, &'a str, &'a str, &'a [&'a str], u64, bool);

/// The 95% intervals of a challenger's paired gain hold its true value in
/// about 95% of runs (within the 99.9% band of a binomial proportion), in a
/// mixed field, and with duplicate deals and truncated rounds.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "release builds only (cargo test --release)"
)]
fn a_challengers_gain_intervals_cover_95_percent() {
    let runs = crate::common::coverage_runs();
    let cases: [Case; 2] = [
        (
            "mixed field",
            "tuned,color,points,cautious",
            "forgetful,color,points,cautious",
            &[],
            400,
            false,
        ),
        (
            "duplicate, truncated",
            "points,color,color,color",
            "cautious,color,color,color",
            &["max_turns=40"],
            100,
            true,
        ),
    ];
    let mut failures = Vec::new();
    for (label, a, b, set, games, duplicate) in cases {
        let (e, _) = play(a, b, set, 2, 1, duplicate);
        let (c, r) = challenger(&e.run.arms[1].cfg, &e.run.arms[0].cfg).unwrap();
        let t = truth(&e, &c, &r, 1_000_000);
        let group = format!("{c} vs {r}");
        let mut hits = 0;
        for seed in 0..runs {
            let (_, st) = play(a, b, set, games, 70_000 + seed, duplicate);
            let comps = comparison_rows(&st);
            let d = row(&comps, &group).unwrap().d;
            hits += (d.lo <= t && t <= d.hi) as u64;
        }
        let cover = hits as f64 / runs as f64;
        let band = 3.29 * (0.95 * 0.05 / runs as f64).sqrt();
        eprintln!("{label}: truth {t:.5}, coverage {cover:.4} over {runs} runs");
        if (cover - 0.95).abs() > band {
            failures.push(format!("{label}: {cover:.4}"));
        }
    }
    assert!(
        failures.is_empty(),
        "coverage outside the band: {failures:?}"
    );
}

/// Under mixed seating a challenger sits where the strategy it replaces sat,
/// game by game, whatever its name: the arms' arrangements were listed from
/// each line-up sorted by name, so `forgetful`, which sorts before `points`
/// where `tuned` sorts after it, moved the other strategies too and the
/// games were paired by deal only (heads-up, the paired interval of
/// `points,color` against `--b-seat 0=cautious` was 1.14 times as wide as
/// an unpaired one). Seated alike, the arms' games are far more alike than
/// unpaired ones.
#[test]
fn a_challenger_is_seated_where_the_strategy_it_replaces_sat() {
    let two = |label: &str, strategies: &str| ArmSpec {
        players: 2,
        ..spec(label, strategies, &[])
    };
    let e = ab(
        two("A", "points,color"),
        two("B", "cautious,color"),
        Mode::Round,
        3000,
        3,
        false,
    )
    .unwrap();
    let cfg = e.lockstep(2);
    let mut st = LockstepState::new(&cfg);
    run_lockstep(&cfg, &mut st, &AtomicBool::new(false), &|_| {}, &mut |_| {
        Ok(())
    })
    .unwrap();
    assert_eq!(
        st.arms[1].seated_as,
        Some(vec!["points".to_string(), "color".into()])
    );
    assert_eq!(st.arms[0].seated_as, None);
    let comps = comparison_rows(&st);
    for group in ["color", "cautious vs points"] {
        let d = row(&comps, group).unwrap().d;
        assert!(
            d.se < 0.8 * d.se_unpaired,
            "{group}: {} against {}",
            d.se,
            d.se_unpaired
        );
    }
}

/// `unolab compare` of `strategies` at `players` seats against `cautious`
/// at seat 0, seed 5, quiet, into `out`, with `more` options.
fn compare_cautious_at_seat_0(
    out: &std::path::Path,
    players: &str,
    strategies: &str,
    more: &[&str],
) -> std::process::Output {
    let mut v = vec![
        "compare",
        "--players",
        players,
        "--strategies",
        strategies,
        "--b-seat",
        "0=cautious",
        "--seed",
        "5",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    v.extend_from_slice(more);
    crate::common::unolab(&v)
}

/// Resumes the compare saved in `out` with `run` to 400 games, which must
/// be refused in one line that leaves the results folder as it was; the
/// line.
fn refused_resume(out: &std::path::Path, run: impl Fn(&[&str]) -> std::process::Output) -> String {
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let o = run(&["--resume", "--games", "400"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("report.md")).unwrap(),
        report
    );
    err
}

/// A state saved before challengers were seated where the strategy they
/// replace sat (no `seated_as`) holds games seated otherwise: it is not
/// resumed, in one line, and the folder is left as it was.
#[test]
fn a_state_seated_by_the_arms_own_names_is_not_resumed() {
    let dir = crate::common::tempdir_created("challenger", "seated-as");
    let out = dir.join("out");
    let run = |more: &[&str]| compare_cautious_at_seat_0(&out, "2", "points,color", more);
    assert!(run(&["--games", "200"]).status.success());
    let path = out.join("state.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut st: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        st["arms"][1]["seated_as"],
        serde_json::json!(["points", "color"])
    );
    st["arms"][1].as_object_mut().unwrap().remove("seated_as");
    std::fs::write(&path, serde_json::to_string(&st).unwrap()).unwrap();
    let err = refused_resume(&out, run);
    assert!(err.contains("does not belong to this experiment"), "{err}");
    assert!(
        err.contains("seated it by its own name and not where the strategy it replaces sits"),
        "{err}"
    );
}

/// A saved state of an earlier version, without the challenger's pair, is
/// not resumed: one clear line, and the results folder is left as it was.
#[test]
fn a_state_without_the_challengers_pair_is_not_resumed() {
    let dir = crate::common::tempdir_created("challenger", "resume");
    let out = dir.join("out");
    let run =
        |more: &[&str]| compare_cautious_at_seat_0(&out, "4", "points,color,color,color", more);
    assert!(run(&["--games", "200"]).status.success());
    let path = out.join("state.json");
    let mut st: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let group = |arm: usize, m: &serde_json::Value| {
        st["arms"][arm]["metrics"][m.as_u64().unwrap() as usize]["key"]["group"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let last = st["comparisons"][0]["pairs"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    // The last pair is the challenger's: its metrics are of different groups.
    assert_eq!(
        (
            group(1, &last["arm_metric"]),
            group(0, &last["base_metric"])
        ),
        ("cautious".to_string(), "points".to_string())
    );
    st["comparisons"][0]["pairs"].as_array_mut().unwrap().pop();
    st["version"] = 2.into();
    std::fs::write(&path, serde_json::to_string(&st).unwrap()).unwrap();
    let err = refused_resume(&out, run);
    assert!(
        err.contains("does not belong to this experiment")
            && err.contains("one of a comparison with a challenger lacks its pair")
            && err.contains("--force to start over"),
        "{err}"
    );
}

/// Without a row, the challenger's sentence says why.
#[test]
fn a_challenger_without_a_row_says_why() {
    let why = |b: &str| {
        let o = crate::common::unolab(&[
            "compare",
            "--players",
            "4",
            "--strategies",
            "tuned,color,points,cautious",
            "--b-strategies",
            b,
            "--games",
            "40",
            "--seed",
            "3",
            "--threads",
            "1",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        text.lines()
            .find(|l| l.starts_with("B: challenger "))
            .unwrap_or_else(|| panic!("{text}"))
            .to_string()
    };
    let two_replaced = why("forgetful,forgetful,points,cautious");
    assert!(
        two_replaced.contains("the strategies it replaces, tuned ")
            && two_replaced.contains("(side by side, not paired: the line-ups differ by more than the challenger taking seats of one strategy;"),
        "{two_replaced}"
    );
    let two_new = why("forgetful,random,points,cautious");
    assert!(
        two_new.contains("(side by side, not paired: the arm seats more than one strategy the baseline does not;"),
        "{two_new}"
    );
    // Typed in another order, the one-for-one challenger is paired.
    let paired = why("color,forgetful,points,cautious");
    assert!(
        paired.contains("in A, the strategy it replaces, tuned ")
            && paired.contains("paired gain of forgetful over tuned: "),
        "{paired}"
    );
}
