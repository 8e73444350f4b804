//! Golden traces: whole matches written by `write_trace` compared byte for byte
//! with committed files, so any change of a rule shows up as a diff. After an
//! intended rule change, regenerate with `UNOLAB_BLESS=1 cargo test --test suite golden::`
//! and review the diff.

use std::path::PathBuf;
use unolab::agents::{lineup_seats, parse_list};
use unolab::engine::rules::{RuleSetFile, Rules};
use unolab::engine::trace::write_trace;

fn golden(
    file: &str,
    rules: &str,
    sets: &[&str],
    house: &str,
    players: usize,
    strategies: &str,
    seed: u64,
) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let house: Vec<String> = if house.is_empty() {
        vec![]
    } else {
        vec![house.to_string()]
    };
    let rules = Rules::build(RuleSetFile::resolve(rules, &sets, &house).unwrap()).unwrap();
    let mut out = Vec::new();
    let mut seats = lineup_seats(&parse_list(strategies).unwrap(), players).unwrap();
    write_trace(&rules, &mut seats, seed, &mut out).unwrap();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(file);
    if std::env::var_os("UNOLAB_BLESS").is_some() {
        std::fs::write(&path, &out).unwrap();
    }
    let want = std::fs::read(&path).expect("golden file (UNOLAB_BLESS=1 writes it)");
    if want != out {
        let got = String::from_utf8_lossy(&out);
        let want = String::from_utf8_lossy(&want);
        let line = got.lines().zip(want.lines()).position(|(a, b)| a != b);
        panic!(
            "{file} differs from the engine's trace at line {:?}:\n got: {}\nwant: {}",
            line.map(|l| l + 1),
            line.and_then(|l| got.lines().nth(l)).unwrap_or("<end>"),
            line.and_then(|l| want.lines().nth(l)).unwrap_or("<end>")
        );
    }
}

#[test]
fn classic_four_players() {
    golden(
        "classic-4p-seed1.jsonl",
        "classic",
        &["rounds=2"],
        "",
        4,
        "random,points,color,first",
        1,
    );
}

#[test]
fn lilo_stitch_with_house_rules() {
    golden(
        "lilo-stitch-house-3p-seed2.jsonl",
        "lilo-stitch",
        &["rounds=2"],
        "stacking=cross,jump_in,seven_o,bluff_challenge",
        3,
        "random,cautious,forgetful",
        2,
    );
}

#[test]
fn h2o_and_cars3() {
    golden(
        "h2o-2p-seed3.jsonl",
        "h2o",
        &["rounds=1"],
        "",
        2,
        "random,points",
        3,
    );
    golden(
        "cars3-5p-seed4.jsonl",
        "cars3",
        &["rounds=1"],
        "draw_to_match",
        5,
        "random,color",
        4,
    );
}

/// A caught UNO call with a penalty of 0 is still followed by its `draw`
/// line, empty, as the trace format has `uno_caught` followed by its draw
/// (the line was left out); a draw of zero cards otherwise writes no line.
#[test]
fn a_penalty_of_zero_still_writes_its_empty_draw_line() {
    let rules = Rules::build(
        RuleSetFile::resolve(
            "classic",
            &["quick=true".to_string(), "uno_penalty=0".to_string()],
            &[],
        )
        .unwrap(),
    )
    .unwrap();
    let mut caught = 0;
    for seed in 1..=20 {
        let mut out = Vec::new();
        let mut seats = lineup_seats(&parse_list("forgetful").unwrap(), 3).unwrap();
        write_trace(&rules, &mut seats, seed, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for (i, l) in lines.iter().enumerate() {
            if l["type"] == "uno_caught" {
                caught += 1;
                let next = &lines[i + 1];
                assert_eq!(next["type"], "draw", "seed {seed}, line {}: {next}", i + 2);
                assert_eq!(next["player"], l["player"]);
                assert_eq!(next["reason"], "uno_penalty");
                assert_eq!(next["cards"], serde_json::json!([]));
            }
            if l["type"] == "draw" && l["reason"] != "uno_penalty" {
                assert!(!l["cards"].as_array().unwrap().is_empty(), "{l}");
            }
        }
    }
    assert!(caught > 0, "no caught call in 20 seeds");
}
