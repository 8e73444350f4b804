//! `unolab play` driven as a person would use it: through a pseudo-terminal.
//!
//! A whole match on a fixed seed, answered by reading the screen (the first
//! playable card, red for a colour, yes to every question), with illegal input
//! typed first: it must be refused with a reason and asked again, never
//! sanctioned.

use expectrl::{Regex, Session};
use std::process::Command;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_unolab");

fn spawn(args: &[&str], no_color: bool) -> Session {
    let mut cmd = Command::new(BIN);
    cmd.arg("play").args(args);
    if no_color {
        cmd.env("NO_COLOR", "1");
    } else {
        cmd.env_remove("NO_COLOR");
    }
    let mut s = Session::spawn(cmd).expect("spawn unolab play in a pty");
    s.set_expect_timeout(Some(Duration::from_secs(30)));
    s
}

/// Reads up to the next prompt, adding what was shown to `screen`: the text
/// before it and the prompt (`play> `, `colour> `, ...), or `None` at the
/// end of the match (its scores added to `screen`).
fn next_prompt(p: &mut Session, screen: &mut String) -> Option<(String, String)> {
    let m = p
        .expect(Regex(
            r"(play|stack|colour|yes/no|seat)> |== Match over[^\n]*\n(.*\n){2}",
        ))
        .unwrap_or_else(|e| panic!("no prompt ({e}); screen so far:\n{screen}"));
    let before = String::from_utf8_lossy(m.before()).to_string();
    let matched = String::from_utf8_lossy(m.get(0).unwrap()).to_string();
    screen.push_str(&before);
    screen.push_str(&matched);
    (!matched.starts_with("== Match over")).then_some((before, matched))
}

/// The answer to a question other than a card's: red, yes, seat 1.
fn plain_answer(kind: &str) -> String {
    match kind {
        "colour" => "r",
        "yes/no" => "y",
        "seat" => "1",
        other => panic!("unexpected prompt {other}"),
    }
    .to_string()
}

/// The numbered hand on the screen: (number, token, playable).
fn hand(screen: &str) -> Vec<(usize, String, bool)> {
    let start = screen.rfind("your hand").expect("the hand is shown");
    let re = regex_lite(&screen[start..]);
    assert!(!re.is_empty(), "no cards in: {screen}");
    re
}

/// Parses ` 3) red-7*` entries without a regex crate.
fn regex_lite(s: &str) -> Vec<(usize, String, bool)> {
    let mut out = Vec::new();
    for part in s.split(')').collect::<Vec<_>>().windows(2) {
        let num: String = part[0]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_digit())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let Ok(n) = num.parse::<usize>() else {
            continue;
        };
        let rest = part[1].trim_start();
        let tok: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if tok.is_empty() {
            continue;
        }
        let playable = rest[tok.len()..].starts_with('*');
        out.push((n, tok, playable));
    }
    out
}

#[test]
fn a_whole_match_through_a_terminal_with_illegal_input_refused() {
    let dir = crate::common::tempdir_created("play", "match");
    let trace = dir.join("match.jsonl");
    let trace_s = trace.to_str().unwrap().to_string();
    let mut p = spawn(
        &[
            "--seed",
            "7",
            "--players",
            "2",
            "--strategies",
            "first",
            "--set",
            "target=60",
            "--trace",
            &trace_s,
        ],
        true,
    );
    let mut screen = String::new();
    let mut typed_garbage = false;
    let mut typed_unplayable = false;
    let mut asked = std::collections::BTreeMap::new();
    while let Some((before, matched)) = next_prompt(&mut p, &mut screen) {
        let kind = matched.trim_end_matches("> ").to_string();
        *asked.entry(kind.clone()).or_insert(0) += 1;
        let answer = match kind.as_str() {
            "play" | "stack" => {
                let cards = hand(&before);
                if !typed_garbage {
                    typed_garbage = true;
                    p.send_line("zz").unwrap();
                    let r = p.expect(Regex(r"(play|stack)> ")).unwrap();
                    let said = String::from_utf8_lossy(r.before()).to_string();
                    assert!(said.contains("'zz' is not a card"), "{said}");
                    screen.push_str(&said);
                }
                if let Some((n, tok, _)) = cards.iter().find(|c| !c.2).filter(|_| !typed_unplayable)
                {
                    typed_unplayable = true;
                    p.send_line(n.to_string()).unwrap();
                    let r = p.expect(Regex(r"(play|stack)> ")).unwrap();
                    let said = String::from_utf8_lossy(r.before()).to_string();
                    assert!(said.contains(&format!("{tok} cannot")), "{said}");
                    screen.push_str(&said);
                }
                match cards.iter().find(|c| c.2) {
                    // By name once, by number otherwise.
                    Some((n, tok, _)) if asked[&kind] == 2 => {
                        let _ = n;
                        tok.clone()
                    }
                    Some((n, _, _)) => n.to_string(),
                    None => "d".to_string(),
                }
            }
            other => plain_answer(other),
        };
        p.send_line(&answer).unwrap();
    }
    assert!(
        typed_garbage && typed_unplayable,
        "both illegal inputs were tried"
    );
    for must in [
        "unolab play: rules classic, 2 players, you are seat 0, seed 7",
        "top card: ",
        "colour: ",
        "direction: clockwise",
        "your hand (* playable):",
        "seat 1 (first)",
        "since your last turn:",
        "== Round 1 over",
        "points this round, total",
        "== Match over",
    ] {
        assert!(screen.contains(must), "screen lacks '{must}':\n{screen}");
    }
    assert!(!screen.contains("\x1b["), "NO_COLOR: no colour codes");
    p.expect(expectrl::Eof).unwrap();
    let text = std::fs::read_to_string(&trace).expect("the trace was written");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "match");
    assert_eq!(lines[0]["strategies"][0], "human");
    assert_eq!(lines.last().unwrap()["type"], "match_end");
    // Typos are refused on screen, never sanctioned in the game.
    assert!(lines.iter().all(|l| l["type"] != "illegal"));
    let rounds = lines.iter().filter(|l| l["type"] == "round_end").count();
    assert!(screen.matches("== Round ").count() == rounds && rounds >= 1);
}

#[test]
fn colour_on_a_terminal_and_quit_leaves_cleanly() {
    let mut p = spawn(&["--seed", "3", "--set", "quick=true"], false);
    let m = p.expect("play> ").unwrap();
    let screen = String::from_utf8_lossy(m.before()).to_string();
    assert!(screen.contains("\x1b[3"), "cards are coloured: {screen:?}");
    p.send_line("quit").unwrap();
    let m = p.expect(expectrl::Eof).unwrap();
    let mut rest = String::from_utf8_lossy(m.before()).to_string();
    for part in m.matches() {
        rest.push_str(&String::from_utf8_lossy(part));
    }
    assert!(rest.contains("You left the table in round 1"), "{rest}");
    assert!(!rest.contains("Round 1 over"), "{rest}");
}

#[test]
fn a_wild_beside_a_matching_card_is_refused_with_the_reason_under_wild_when_matching_false() {
    // Seed 5: at the person's first play prompt the hand holds a wild and one
    // matching card (blue-reverse on blue-8), nothing else playable.
    let mut p = spawn(&["--seed", "5", "--set", "wild_when_matching=false"], true);
    let m = p.expect("play> ").unwrap();
    let screen = String::from_utf8_lossy(m.before()).to_string();
    let cards = hand(&screen);
    let playable: Vec<&str> = cards.iter().filter(|c| c.2).map(|c| c.1.as_str()).collect();
    assert_eq!(playable, ["blue-reverse"], "{screen}");
    assert!(cards.iter().any(|c| c.1 == "wild" && !c.2), "{screen}");
    p.send_line("wild").unwrap();
    let m = p.expect("play> ").unwrap();
    let said = String::from_utf8_lossy(m.before()).to_string();
    assert!(
        said.contains(
            "wild cannot be played while you hold a matching card (blue-reverse): wild_when_matching = false"
        ),
        "{said}"
    );
    p.send_line("quit").unwrap();
    p.expect(expectrl::Eof).unwrap();
}

/// The colour of a start wild is asked beside the hand (it was asked before
/// the hand was ever shown), and Ctrl-C at a prompt leaves the table with a
/// line that says so, removing the folder made for `--trace` (it killed the
/// process without a word and left the folder).
#[test]
fn a_colour_is_asked_beside_the_hand_and_ctrl_c_leaves_cleanly() {
    let dir = crate::common::tempdir_created("play", "ctrlc");
    let trace = dir.join("made").join("t.jsonl");
    // Seed 1: the start card is a wild, so the first question is its colour.
    let mut p = spawn(&["--seed", "1", "--trace", trace.to_str().unwrap()], true);
    let m = p.expect("colour> ").unwrap();
    let screen = String::from_utf8_lossy(m.before()).to_string();
    let at = screen.find("your hand: ").expect("the hand is shown");
    assert!(at < screen.find("name a colour").unwrap(), "{screen}");
    assert!(
        dir.join("made").is_dir(),
        "the trace's folder is made first"
    );
    p.send(expectrl::ControlCode::EndOfText).unwrap();
    let m = p.expect(expectrl::Eof).unwrap();
    let mut rest = String::from_utf8_lossy(m.before()).to_string();
    for part in m.matches() {
        rest.push_str(&String::from_utf8_lossy(part));
    }
    assert!(
        rest.contains("interrupted: you left the table; no trace was written"),
        "{rest:?}"
    );
    assert!(
        !dir.join("made").exists(),
        "the folder made for the trace is removed"
    );
}

/// Output closed (`| head`) or full: one line and exit status 2, where
/// `play` panicked ("failed printing to stdout").
/// `play --seed 1` with its standard output closed (and its standard error
/// too with `close_stderr`), answered with the first card and yes.
fn closed_screen(close_stderr: bool) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(BIN)
        .args(["play", "--seed", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    if close_stderr {
        drop(child.stderr.take());
    }
    let mut input = String::from("r\n");
    for _ in 0..100 {
        input.push_str("1\ny\n");
    }
    // The game may end before reading it all: a closed stdin is no error.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_screen_ends_the_game_with_one_line() {
    let o = closed_screen(false);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err,
        "error: cannot write to stdout: Broken pipe (os error 32)\n"
    );
}

/// A byte that is not UTF-8 typed at a prompt is asked again (it ended the
/// game as if the player had left), and `--seat -1` gets the seat's message.
#[test]
fn a_stray_byte_is_asked_again_and_a_negative_seat_is_refused() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(BIN)
        .args(["play", "--seed", "1"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"r\n\xe9\nquit\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        out.contains("play> that was not text the terminal sent as UTF-8: type it again\nplay> "),
        "{out}"
    );
    assert!(out.contains("You left the table in round 1."), "{out}");
    let o = Command::new(BIN)
        .args(["play", "--seat", "-1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("'-1' is not a valid seat (valid: 0 to 9, 0 = the first seat)"),
        "{err}"
    );
}

/// An external seat whose program exits at once ends the game at the
/// person's first prompt, with its fault (it was reported only when the
/// round ended: a whole round against the seat's legal defaults).
#[test]
fn a_broken_external_seat_ends_the_game_at_the_first_prompt() {
    let mut input = String::from("r\n");
    for _ in 0..60 {
        input.push_str("d\nn\n");
    }
    let o = piped(&["--seed", "1", "--strategies", "ext:false"], &input);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("strategy 'false' at seat 1 failed in round 1: the program exited"),
        "{err}"
    );
    // Not a single answer was asked for: the first prompt ended the game.
    assert_eq!(out.matches("> ").count(), 0, "{out}");
    assert!(!out.contains("Round 1 over"), "{out}");
}

#[test]
fn after_a_swap_the_table_shows_what_you_know_of_the_other_hand() {
    // Heads-up seven-o, playing a 7 or a 0 whenever one is playable: the
    // hands are swapped, and the table then shows, on the other seat's line,
    // the cards of the hand given away that it still holds.
    let mut p = spawn(
        &[
            "--seed",
            "3",
            "--players",
            "2",
            "--strategies",
            "first",
            "--house",
            "seven_o",
            "--set",
            "target=150",
        ],
        true,
    );
    let mut screen = String::new();
    let mut gave: Option<Vec<String>> = None;
    let (mut checked, mut shown) = (0, 0);
    while let Some((before, matched)) = next_prompt(&mut p, &mut screen) {
        if before.contains("== Round ") {
            gave = None;
        }
        let other = before
            .lines()
            .rfind(|l| l.trim_start().starts_with("seat 1 (first)"));
        let known: Vec<String> = other
            .and_then(|l| l.split_once("you know: "))
            .map(|(_, k)| k.split_whitespace().map(String::from).collect())
            .unwrap_or_default();
        shown += usize::from(!known.is_empty());
        // The cards seat 1 played since (a 7 or 0 of its own swaps again).
        let played: Vec<&str> = (before.lines())
            .filter_map(|l| l.trim().strip_prefix("seat 1 (first) played "))
            .map(|l| l.split([' ', ',', ':']).next().unwrap())
            .collect();
        let again = played
            .iter()
            .any(|t| t.ends_with("-7") || t.ends_with("-0"));
        if let Some(g) = other.and_then(|_| gave.take()).filter(|_| !again) {
            let mut left = g.clone();
            for tok in &known {
                let i = left.iter().position(|t| t == tok);
                let i = i.unwrap_or_else(|| panic!("{tok} shown, not given in {g:?}:\n{before}"));
                left.remove(i);
            }
            let lost = g.len() - known.len();
            assert!(lost <= played.len(), "{lost} cards forgotten:\n{before}");
            checked += 1;
        }
        let kind = matched.trim_end_matches("> ").to_string();
        let answer = match kind.as_str() {
            "play" | "stack" => {
                let cards = hand(&before);
                let swap = |t: &String| t.ends_with("-7") || t.ends_with("-0");
                let pick = (cards.iter().find(|c| c.2 && swap(&c.1)))
                    .or_else(|| cards.iter().find(|c| c.2));
                match pick {
                    Some((n, tok, _)) => {
                        if kind == "play" && swap(tok) {
                            let mut g: Vec<String> = cards.iter().map(|c| c.1.clone()).collect();
                            g.remove(g.iter().position(|t| t == tok).unwrap());
                            gave = Some(g);
                        }
                        n.to_string()
                    }
                    None => "d".to_string(),
                }
            }
            other => plain_answer(other),
        };
        p.send_line(&answer).unwrap();
    }
    assert!(checked >= 3, "only {checked} swaps checked:\n{screen}");
    assert!(shown >= 3, "'you know' shown {shown} times:\n{screen}");
    p.expect(expectrl::Eof).unwrap();
}

/// `play` with `input` on stdin (stdout and stderr piped, no colour).
fn piped(args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(BIN)
        .arg("play")
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

/// [`piped`]'s standard output.
fn piped_out(args: &[&str], input: &str) -> String {
    String::from_utf8_lossy(&piped(args, input).stdout).into_owned()
}

/// The terminal-play audit (2026-12-07): the hand at a swap's target
/// question held the card being played; the jump-in question came right
/// after a swap without the new hand; "(1 cards)"; under stacking the
/// challenge question said not challenging meant drawing; under
/// `drawn_card = "rlcard"` a colour drawn at random read as the person's.
#[test]
fn the_questions_of_a_play_show_the_hand_as_it_will_be() {
    // Four players, seat 1, two cards each, seven-o and jump-in, on `seed`.
    let table = |seed: &'static str| {
        [
            "-p",
            "4",
            "--seat",
            "1",
            "--seed",
            seed,
            "--set",
            "hand_size=2",
            "--set",
            "quick=true",
            "--house",
            "jump_in,seven_o",
            "-s",
            "points,random",
        ]
    };
    let seven = table("114");
    let out = piped_out(&seven, "1\n2\n");
    let at = out.find("swap hands with which seat?").expect(&out);
    let shown = &out[..at];
    let hand_line = shown.lines().last().unwrap();
    assert_eq!(hand_line, "play> your hand: blue-0  blue-reverse", "{out}");
    assert!(
        out[at..].starts_with("swap hands with which seat? 2 (2 cards), 3 (3 cards), 0 (1 card)\n"),
        "{out}"
    );

    let swapped = table("141");
    let out = piped_out(&swapped, "1\nno\n1\nd\n2\n5\nquit\n");
    let at = out
        .find("identical to the top card: jump in with it?")
        .expect(&out);
    let before: Vec<&str> = out[..at].lines().collect();
    let n = before.len();
    assert_eq!(
        before[n - 3],
        "  seat 2 (random) and you swapped hands",
        "{out}"
    );
    assert_eq!(
        before[n - 2],
        "your hand: green-4  blue-7  blue-reverse",
        "{out}"
    );

    let stack = [
        "-r",
        "cars3",
        "-p",
        "5",
        "--seat",
        "4",
        "--seed",
        "134",
        "--set",
        "quick=true",
        "-s",
        "random",
        "--house",
        "stacking=cross,seven_o,jump_in,bluff_challenge,draw_to_match",
    ];
    let out = piped_out(&stack, "6\nn\nmaybe\nno\nn\nd\nquit\n");
    assert!(
        out.contains("a wild-draw4 was played on you (4 cards to answer or draw if you do not challenge, 6 if you challenge and lose)"),
        "{out}"
    );

    let rlcard = [
        "-r",
        "rlcard",
        "-p",
        "6",
        "--seat",
        "2",
        "--seed",
        "17",
        "--set",
        "quick=true",
        "-s",
        "color,random",
    ];
    let out = piped_out(&rlcard, "3\n3\nquit\n");
    assert!(
        out.contains(
            "you played wild at once, with a colour drawn at random: green (drawn_card = rlcard)"
        ),
        "{out}"
    );
    assert!(!out.contains("you played wild and named"), "{out}");
}

/// With standard output and standard error both closed, the game ends with
/// status 2 (writing its line to the closed standard error panicked: 101).
#[test]
fn a_closed_screen_and_error_stream_end_with_status_2() {
    assert_eq!(closed_screen(true).status.code(), Some(2));
}

/// Two questions that cannot matter are not asked: the colour of a wild
/// that is the person's last card (the round ends), and the UNO call when a
/// missed call is never caught (`uno_catch_chance = 0`, rlcard).
#[test]
fn a_last_wild_and_an_uncatchable_uno_call_ask_nothing() {
    let wild = [
        "-p",
        "2",
        "--seed",
        "18",
        "--set",
        "hand_size=1",
        "--set",
        "quick=true",
    ];
    let out = piped_out(&wild, "1\nquit\n");
    assert!(!out.contains("name a colour"), "{out}");
    assert!(
        out.contains("play>   you played wild, the last card\n"),
        "{out}"
    );
    assert!(out.contains("you won the match after 1 round\n"), "{out}");

    let rlcard = [
        "-r",
        "rlcard",
        "-p",
        "2",
        "--set",
        "hand_size=2",
        "--seed",
        "3",
    ];
    let out = piped_out(&rlcard, "1\n1\nquit\n");
    assert!(!out.contains("call UNO?"), "{out}");
    assert!(out.contains("  you played yellow-draw2: UNO!\n"), "{out}");
    assert!(out.contains("you won the round"), "{out}");
}
