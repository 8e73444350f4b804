//! The fuzz targets of unolab: one function per kind of input a user or a
//! program hands to unolab, taking the raw bytes. Each must return for every
//! input, without a panic, a hang or an unbounded allocation; where the
//! input is accepted, it also checks what must hold of it (a rule set prints
//! as a file that reads back, an experiment rebuilds from what its shards
//! record, ...).
//!
//! Two harnesses call them: the libFuzzer binaries of `fuzz_targets/`
//! (`cargo fuzz run NAME`, see docs/fuzzing.md) and the replay test of the
//! crate's test suite (`tests/fuzz.rs`, which includes this file), so that
//! every committed corpus input runs on every `cargo test`.
//!
//! Inputs that name device or kernel files (`/dev/`, `/proc/`, `/sys/`) are
//! skipped: rule sets, strategies and experiments may name files to read,
//! and reading `/dev/zero` is the user's own doing, not a parsing bug.

use unolab::agents::external::{self, Answer, Want};
use unolab::agents::human::{self, CardReply, Typed};
use unolab::agents::{self, StrategySpec};
use unolab::engine::game::{game_rngs, Agents, Game, NoRecord};
use unolab::engine::rules::{RuleSetFile, Rules, BUILTIN_NAMES};
use unolab::engine::trace::TraceWriter;
use unolab::lab::experiment::{self, ExperimentSpec};
use unolab::lab::shard::ExperimentShardState;
use unolab::lab::Experiment;
use unolab::report::experiment::ExperimentReport;
use unolab::report::Report;
use unolab::sim::lockstep::{LockstepState, Stop};
use unolab::sim::shard::{Merger, ShardState};
use unolab::sim::{Mode, RunConfig, RunStats};
use unolab::{CardId, CardSet, Color, Seat};

/// A fuzz target: it takes the raw bytes of one input.
pub type Target = fn(&[u8]);

/// Every target, by the name of its libFuzzer binary and corpus folder.
pub const TARGETS: [(&str, Target); 8] = [
    ("rules", rules),
    ("strategy", strategy),
    ("experiment", experiment),
    ("run_shard", run_shard),
    ("experiment_shard", experiment_shard),
    ("lockstep_state", lockstep_state),
    ("protocol", protocol),
    ("play_input", play_input),
];

/// The turns a round played by a target may last at most, whatever the rule
/// set says (`max_turns` up to 2^32 is valid, and a long round is no bug).
const TURN_CAP: u32 = 400;

/// The text of a file (files are read as UTF-8; anything else is refused
/// before parsing), unless it names device or kernel files.
fn text(data: &[u8]) -> Option<&str> {
    let t = std::str::from_utf8(data).ok()?;
    let names_devices = ["/dev/", "/proc/", "/sys/", "/dev\\", "\\\\.\\"]
        .iter()
        .any(|d| t.contains(d));
    (!names_devices).then_some(t)
}

/// One round, and one short match, at `players` seats of `lineup` (cycled),
/// with the turns capped; a trace of the round when `trace`.
fn play(rules: &Rules, players: usize, lineup: &[StrategySpec], seed: u64, trace: bool) {
    let mut rules = rules.clone();
    rules.settings.max_turns = rules.settings.max_turns.min(TURN_CAP);
    rules.settings.max_rounds = rules.settings.max_rounds.min(3);
    let mut seats: Vec<Seat> = (0..players)
        .map(|i| lineup[i % lineup.len()].instantiate())
        .collect();
    let (table_rng, agent_rng) = game_rngs(seed, 0);
    let mut game = Game::with_rng(&rules, players, table_rng);
    let mut agents = Agents {
        seats: &mut seats,
        rng: agent_rng,
    };
    game.start_match(None);
    if trace {
        let mut t = TraceWriter::new(Vec::new());
        let _ = game.play_round(&mut agents, &mut t);
        let _ = t.finish();
    } else {
        let _ = game.play_round(&mut agents, &mut NoRecord);
    }
    let s = &rules.settings;
    if s.target > 0 || s.rounds > 0 || s.quick {
        let _ = game.play_match(&mut agents, &mut NoRecord, |_| {});
    }
}

/// The line-up the targets play with: each kind of built-in.
fn builtin_lineup() -> Vec<StrategySpec> {
    ["random", "points", "first", "color"]
        .iter()
        .map(|n| StrategySpec::load(n).expect("a built-in strategy"))
        .collect()
}

/// A rule-set file (`--rules FILE`), with `--set` and `--house` items given
/// on comment lines of the file itself (`# set KEY=VALUE`, `# house A,B=C`),
/// so that one input holds both and stays a valid file. Accepted, it must
/// print (`rules show`) as a file that reads back the same, build, and deal
/// and play a round at every table size it allows.
pub fn rules(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(mut file) = RuleSetFile::parse(text, "fuzz.toml") else {
        return;
    };
    for line in text.lines() {
        if let Some(s) = line.strip_prefix("# set ") {
            let _ = file.apply_set(s);
        } else if let Some(h) = line.strip_prefix("# house ") {
            for item in h.split(',').filter(|i| !i.trim().is_empty()) {
                let _ = file.apply_house(item);
            }
        }
    }
    let Ok(rules) = Rules::build(file.clone()) else {
        return;
    };
    let shown = file.to_toml();
    let back = RuleSetFile::parse(&shown, "shown")
        .unwrap_or_else(|e| panic!("a rule set prints as a file that does not read: {e}\n{shown}"));
    assert_eq!(back, file, "a rule set does not read back as printed");
    let _ = rules.changed_settings();
    let lineup = builtin_lineup();
    for players in [2, 3, 5, 10] {
        if rules.check_players(players).is_ok() {
            // What `run --rules FILE` sets up before its first game.
            let l = &lineup[..lineup.len().min(players)];
            for mode in [Mode::Round, Mode::Match] {
                if let Ok(cfg) = RunConfig::builder(rules.clone(), players, l)
                    .mode(mode)
                    .seed(1)
                    .build()
                {
                    let _ = RunStats::new(&cfg);
                }
            }
            play(&rules, players, &lineup, players as u64, players == 2);
        }
    }
}

/// A strategy preset file, and strategy names as `--strategies` takes them
/// (`# load NAME,NAME` comment lines; names that would be read as files are
/// left out). Accepted, a strategy must survive the round trip through a run's
/// shard state (its JSON rebuilt into the same strategy), and one that plays
/// in-process plays a round.
pub fn strategy(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let mut specs = Vec::new();
    if let Ok(s) = StrategySpec::parse(text, "fuzz.toml") {
        specs.push(s);
    }
    for line in text.lines() {
        if let Some(list) = line.strip_prefix("# load ") {
            let files = list.split(',').any(|n| {
                !n.trim().starts_with("ext:") && (n.contains('/') || n.ends_with(".toml"))
            });
            if !files {
                if let Ok(l) = agents::parse_list(list) {
                    specs.extend(l);
                }
            }
        }
    }
    let rules = Rules::builtin("classic");
    for spec in specs {
        let _ = (spec.name(), spec.base(), spec.params_json());
        let cfg = RunConfig::builder(rules.clone(), 2, std::slice::from_ref(&spec))
            .games(10)
            .seed(1)
            .build()
            .expect("a strategy that loads makes a run");
        let saved = unolab::sim::shard::RunSpec::of(&cfg);
        let again = saved
            .to_config(1)
            .unwrap_or_else(|e| panic!("{spec:?} does not load from a shard state: {e}"));
        assert_eq!(
            again.lineup, cfg.lineup,
            "the line-up changed through a shard state"
        );
        let cheap = match &spec {
            StrategySpec::External { .. } | StrategySpec::Custom(_) => false,
            StrategySpec::Search(c) => c.params.iterations <= 4,
            _ => true,
        };
        if cheap {
            let random = StrategySpec::load("random").expect("random");
            play(&rules, 3, &[spec, random], 7, false);
        }
    }
}

/// An experiment file. Accepted, it must rebuild from what its shard states
/// record ([`ExperimentSpec`], through JSON) as the same experiment, and pass
/// the lockstep runner's checks.
pub fn experiment(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok(exp) = experiment::parse(text, "fuzz.toml") else {
        return;
    };
    let spec = exp.spec();
    let json = serde_json::to_string(&spec).expect("an experiment's spec is JSON");
    let read: ExperimentSpec =
        serde_json::from_str(&json).expect("an experiment's spec reads back");
    assert_eq!(read, spec, "an experiment's spec changed through JSON");
    let again = Experiment::from_spec(&read)
        .unwrap_or_else(|e| panic!("an experiment that parses does not rebuild: {e}"));
    assert_eq!(again.spec().differences(&spec), Vec::<String>::new());
    // What `experiment run` sets up before its first game.
    if unolab::sim::lockstep::check(&exp.lockstep(1)).is_ok() {
        let _ = LockstepState::new(&exp.lockstep(1));
    }
}

/// Run shard state files: each line of the input is one file (a state file is
/// one line of JSON). Each is read as `run --shard` resuming it reads it,
/// with its games still to play listed; those read are merged as `merge`
/// does, and the merge reported in every format `merge` writes.
pub fn run_shard(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let mut merger = Merger::<ShardState>::new();
    for (i, line) in text.lines().enumerate() {
        let Ok(s) = ShardState::from_json(line) else {
            continue;
        };
        let _ = s.todo(1000, 1 << 16);
        let _ = merger.add(&format!("shard-{i}.json"), s);
    }
    let Ok(m) = merger.finish(true) else { return };
    let Ok(cfg) = m.config.to_config(1) else {
        return;
    };
    let report = Report {
        cfg: &cfg,
        stats: &m.stats,
        elapsed_s: m.elapsed_s,
        partial: m.partial(),
        started_utc: m.started_utc.clone(),
    };
    let _ = report.to_text();
    let _ = report.to_json();
    let _ = report.summary_csv();
    let _ = report.distributions_csv();
    let _ = report.manifest(&[]);
}

/// Everything an experiment writes about `state`.
fn report_experiment(exp: &Experiment, state: &LockstepState, partial: bool) {
    let report = ExperimentReport {
        exp,
        state,
        stop: if partial {
            Stop::Interrupted
        } else {
            Stop::Limit
        },
        threads: 1,
        elapsed_s: 1.0,
        started: "2025-01-01T00:00:00Z".into(),
        commands: Vec::new(),
        commit: None,
        shards: None,
    };
    let _ = report.to_text();
    let _ = report.to_json();
    let _ = report.arms_csv();
    let _ = report.comparisons_csv();
    let _ = report.distributions_csv();
    let _ = report.manifest();
    let names = match report.plots() {
        Ok(p) => p.into_iter().map(|(n, _)| n).collect(),
        Err(_) => Vec::new(),
    };
    let _ = report.markdown(&names);
}

/// Experiment shard state files, one per line, read and merged as `merge`
/// does, and the merge reported in every format an experiment writes.
pub fn experiment_shard(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let mut merger = Merger::<ExperimentShardState>::new();
    for (i, line) in text.lines().enumerate() {
        if let Ok(s) = ExperimentShardState::from_json(line) {
            let _ = merger.add(&format!("shard-{i}.json"), s);
        }
    }
    let Ok(m) = merger.finish(true) else { return };
    let Ok(exp) = Experiment::from_spec(&m.config) else {
        return;
    };
    report_experiment(&exp, &m.stats, m.partial());
}

/// The experiment whose saved state [`lockstep_state`] reads (two arms and a
/// baseline, so that every part of a state is there).
pub const STATE_EXPERIMENT: &str = include_str!("../seeds/state-experiment.toml");

/// An experiment's saved state (`state.json`, what `experiment run --resume`
/// reads), checked against the experiment it must belong to as `--resume`
/// does; accepted, it is reported in every format an experiment writes.
pub fn lockstep_state(data: &[u8]) {
    let Some(text) = text(data) else { return };
    let Ok((st, _)) = unolab::report::experiment::parse_state(text, "state.json") else {
        return;
    };
    let exp = experiment::parse(STATE_EXPERIMENT, "state-experiment.toml")
        .expect("the state experiment parses");
    if !st.same_shape(&LockstepState::new(&exp.lockstep(1))) {
        return;
    }
    report_experiment(&exp, &st, st.clusters < exp.run.max_clusters);
}

/// The output of an external program: the first byte picks the rule set, the
/// next sixteen the hand (a card mask), the rest is what the program wrote,
/// read line by line as unolab reads it and each line parsed as the answer to
/// the hello and to every kind of decision.
pub fn protocol(data: &[u8]) {
    if data.len() < 17 {
        return;
    }
    let rules = Rules::builtin(BUILTIN_NAMES[data[0] as usize % BUILTIN_NAMES.len()]);
    let deck = &rules.deck;
    let mask = u128::from_le_bytes(data[1..17].try_into().expect("16 bytes"));
    let hand = CardSet(mask) & deck.all;
    let offered = CardSet(mask.rotate_left(7)) & deck.all;
    let wants = [
        Want::Card(offered),
        Want::Card(CardSet::EMPTY),
        Want::Bool,
        Want::Color,
        Want::Seat,
    ];
    external::read_lines(&data[17..], |line| {
        let Ok(line) = line else { return true };
        let _ = external::check_hello(&line);
        for want in wants {
            if let Ok(Answer::Card(Some(c))) =
                external::parse_answer(&line, u64::from(data[0]), want, deck, hand)
            {
                assert!(
                    deck.all.contains(c),
                    "an answer names card {c}, not of the deck"
                );
            }
        }
        true
    });
}

/// What a person types at `unolab play`: the first byte picks the rule set,
/// the next sixteen the hand and the next sixteen the legal cards (masks),
/// the rest is typed lines, each read as the answer to every question.
pub fn play_input(data: &[u8]) {
    if data.len() < 33 {
        return;
    }
    let rules = Rules::builtin(BUILTIN_NAMES[data[0] as usize % BUILTIN_NAMES.len()]);
    let deck = &rules.deck;
    let mask = |b: &[u8]| CardSet(u128::from_le_bytes(b.try_into().expect("16 bytes")));
    let hand_set = mask(&data[1..17]) & deck.all;
    let legal = mask(&data[17..33]) & hand_set;
    let hand: Vec<CardId> = hand_set.iter().collect();
    let others: Vec<u8> = (1..(data[0] % 10).max(2)).collect();
    // Lines as the terminal gives them (read_line: UTF-8 or the end).
    let Ok(input) = std::str::from_utf8(&data[33..]) else {
        return;
    };
    for raw in input.split_inclusive('\n') {
        let Typed::Line(t) = human::typed(raw) else {
            continue;
        };
        for may_draw in [false, true] {
            match human::card_reply(&t, &hand, deck, legal, may_draw) {
                CardReply::Card(c) => assert!(legal.contains(c) && hand_set.contains(c)),
                CardReply::Illegal(c) => assert!(hand_set.contains(c) && !legal.contains(c)),
                CardReply::Draw => assert!(may_draw),
                CardReply::Refused(_) => {}
            }
        }
        let _ = human::yes_no(&t);
        let _: Option<Color> = human::color(&t);
        if let Some(s) = human::seat(&t, &others) {
            assert!(others.contains(&s));
        }
    }
}
