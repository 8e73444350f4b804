//! External agents: a program in any language plays a seat over the JSON Lines
//! protocol of `docs/protocol.md` on its standard input and output.
//!
//! The program is started at its first message (one process per strategy
//! instance: per line-up seat, per rotation of a deal and per arm of a
//! comparison, on each worker thread; none plays the same deal twice),
//! greeted with a `hello` that states the protocol version, told when
//! matches and rounds start and end, and asked one `decide` request per
//! decision of the [`Strategy`] trait, which it answers with one line.
//!
//! Faults: an answer that is legal JSON of the right type but not a legal move
//! is returned to the engine as it is (the engine's wrong-card sanction, as for
//! any strategy). A program that cannot be started, exits, stays silent past
//! the per-decision limit or breaks the protocol (not JSON, wrong type, unknown
//! card) is a fault: it is ended, the seat answers legal defaults for the rest
//! of the round, and [`Strategy::fault`] reports it so that the engine stops
//! the match with an error naming the seat, the request and what came back.
//! Programs are ended when their strategy is dropped (the run ended) and by
//! [`end_all`] (a forced exit). Each runs in a process group of its own,
//! which is ended with it, helpers included (module `process`); so a Ctrl-C
//! at the terminal reaches unolab, which ends them, and not them.

mod process;
mod protocol;

pub use process::{check_command, end_all, read_lines, GRACE_MS, MAX_LINE_BYTES};
use protocol::bool_legal;
pub use protocol::clip;
pub use protocol::{check_hello, parse_answer, Answer, Want, PROTOCOL_VERSION};

use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::game::{MatchResult, Observation, Rng, RoundResult};
use crate::engine::strategy::{fewest_cards_opponent, most_held_color, Strategy};
use process::Proc;
use serde_json::Value;
use std::fmt::Write as _;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The per-decision time limit when none is given.
pub const DEFAULT_TIMEOUT_MS: u64 = 5_000;

/// The least time a program gets to start and answer the `hello`.
pub const HELLO_TIMEOUT_MS: u64 = 10_000;

/// How often a program that has not answered yet is checked for having
/// exited.
const EXIT_CHECK: Duration = Duration::from_millis(50);

/// Once the work is interrupted, the most a program is still waited for
/// (for an answer, or to take a line), whatever its time limit: the games
/// in progress finish when the programs answer, but a program that hangs
/// under a long `timeout_ms` no longer keeps the run from ending.
pub const AFTER_INTERRUPT_MS: u64 = 10_000;

/// When the work was interrupted ([`interrupted`]), if it was.
static INTERRUPTED: Mutex<Option<Instant>> = Mutex::new(None);

/// Says that the work under way was interrupted (a first Ctrl-C or SIGTERM):
/// from now on every wait on a program ends at most [`AFTER_INTERRUPT_MS`]
/// after this call.
pub fn interrupted() {
    let mut at = INTERRUPTED.lock().unwrap_or_else(|p| p.into_inner());
    at.get_or_insert_with(Instant::now);
}

/// Ends what [`interrupted`] began, for the next work in the same process
/// (a Python session).
pub fn carry_on() {
    *INTERRUPTED.lock().unwrap_or_else(|p| p.into_inner()) = None;
    STOPPED_BY_SIGNAL.store(false, Ordering::SeqCst);
}

/// How long the fault of a program stopped by a signal waits for unolab's
/// own interrupt ([`interrupted`]).
const SIGNAL_WAIT: Duration = Duration::from_secs(2);

/// Set when a program was stopped by a signal ([`stopped_by_signal`]).
static STOPPED_BY_SIGNAL: AtomicBool = AtomicBool::new(false);

/// Whether a program of this process was stopped by a signal that stops
/// work (SIGHUP, SIGINT, SIGTERM, or the exit code of such a death) since
/// the last [`carry_on`]: with an interrupt, the work that failed with it
/// was cut short by the same signal, not by a fault of its own.
pub fn stopped_by_signal() -> bool {
    STOPPED_BY_SIGNAL.load(Ordering::SeqCst)
}

/// Waits until the work is [`interrupted`], at most `wait`.
fn await_interrupt(wait: Duration) {
    let until = Instant::now() + wait;
    while INTERRUPTED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .is_none()
        && Instant::now() < until
    {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `until`, or the interrupt's bound when it comes first (then `true`).
fn bounded(until: Instant) -> (Instant, bool) {
    let at = *INTERRUPTED.lock().unwrap_or_else(|p| p.into_inner());
    match at.map(|at| at + Duration::from_millis(AFTER_INTERRUPT_MS)) {
        Some(cap) if cap < until => (cap, true),
        _ => (until, false),
    }
}

/// The idle programs of one strategy on one thread. The runner makes one
/// instance of a strategy per seat and per rotation of a deal (and per arm
/// of a comparison); an instance holds its own program from the start to the
/// end of each round (and for the match-end notice), puts it back, and takes
/// the same one again: a program is never handed to another instance, so no
/// program plays the same deal twice.
struct Pool {
    idle: Vec<Proc>,
    /// Instances that may still ask for a program.
    users: usize,
    /// The fault that ended one of its programs: later users fail at once.
    dead: Option<String>,
}

type PoolKey = (std::thread::ThreadId, String, Vec<String>);

static POOLS: Mutex<Vec<(PoolKey, Pool)>> = Mutex::new(Vec::new());

fn pools() -> std::sync::MutexGuard<'static, Vec<(PoolKey, Pool)>> {
    POOLS.lock().unwrap_or_else(|p| p.into_inner())
}

/// A strategy played by an external program (see the module documentation).
pub struct External {
    name: String,
    command: Vec<String>,
    timeout: Duration,
    /// The key of this instance's pool, once it has used one.
    pool: Option<PoolKey>,
    /// The serial of the program it last held.
    last: Option<u64>,
    /// The program while this instance holds it (taken from the pool).
    proc: Option<Proc>,
    fault: Option<String>,
    /// The card token of each card id of the rule set in use.
    tokens: Vec<String>,
    /// Requests sent (the `id` of the next `decide`).
    requests: u64,
    buf: String,
    in_match: bool,
}

impl Drop for External {
    fn drop(&mut self) {
        self.release();
    }
}

impl std::fmt::Debug for External {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} external {:?} timeout {} ms",
            self.name,
            self.command,
            self.timeout.as_millis()
        )
    }
}

/// Writes `parts` in turn to a program's input, which is non-blocking on
/// unix ([`process::Proc::start`]): `Ok(false)` when the program has not
/// taken them all by `until`.
fn write_by(
    w: &mut std::process::ChildStdin,
    parts: &[&[u8]],
    until: Instant,
) -> std::io::Result<bool> {
    use std::io::ErrorKind;
    for part in parts {
        let mut bytes = *part;
        while !bytes.is_empty() {
            match w.write(bytes) {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(n) => bytes = &bytes[n..],
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    if Instant::now() >= bounded(until).0 {
                        return Ok(false);
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(true)
}

impl External {
    pub fn new(name: &str, command: &[String], timeout_ms: u64) -> External {
        External {
            name: name.to_string(),
            command: command.to_vec(),
            timeout: Duration::from_millis(timeout_ms),
            pool: None,
            last: None,
            proc: None,
            fault: None,
            tokens: Vec::new(),
            requests: 0,
            buf: String::with_capacity(2048),
            in_match: false,
        }
    }

    /// Takes a program from the pool (the one held last, if idle) unless one
    /// is held; with none idle, the next message starts a new one.
    fn checkout(&mut self, obs: &Observation) {
        if self.tokens.is_empty() {
            let d = &obs.rules().deck;
            self.tokens = (0..d.size as CardId).map(|c| d.token(c)).collect();
        }
        if self.proc.is_some() {
            return;
        }
        let mut all = pools();
        let key = self.pool.get_or_insert_with(|| {
            (
                std::thread::current().id(),
                self.name.clone(),
                self.command.clone(),
            )
        });
        let i = match all.iter().position(|(k, _)| k == key) {
            Some(i) => i,
            None => {
                all.push((
                    key.clone(),
                    Pool {
                        idle: Vec::new(),
                        users: 0,
                        dead: None,
                    },
                ));
                all.len() - 1
            }
        };
        let pool = &mut all[i].1;
        if self.last.is_none() {
            pool.users += 1;
        }
        if let Some(d) = &pool.dead {
            self.fault.get_or_insert_with(|| d.clone());
            // Counted once, as a user whose program never started.
            self.last.get_or_insert(u64::MAX);
            return;
        }
        // Only its own program: one handed to another instance (another
        // rotation of a deal, another arm of a comparison) would play a deal
        // it has seen from another seat, and a program may remember.
        let j = pool.idle.iter().position(|p| Some(p.serial) == self.last);
        if let Some(j) = j {
            let p = pool.idle.swap_remove(j);
            self.requests = p.requests;
            self.in_match = p.in_match;
            self.last = Some(p.serial);
            self.proc = Some(p);
        } else {
            // Counted as a user; the serial comes when a program starts.
            self.last = Some(u64::MAX);
        }
    }

    /// Puts the held program back into the pool (or records its fault).
    fn checkin(&mut self) {
        let Some(key) = &self.pool else {
            return;
        };
        let mut all = pools();
        let Some((_, pool)) = all.iter_mut().find(|(k, _)| k == key) else {
            return;
        };
        if let Some(f) = &self.fault {
            pool.dead.get_or_insert_with(|| f.clone());
        }
        if let Some(mut p) = self.proc.take() {
            p.requests = self.requests;
            p.in_match = self.in_match;
            self.last = Some(p.serial);
            pool.idle.push(p);
        }
    }

    /// This instance is done: the last user of a pool ends its programs.
    fn release(&mut self) {
        self.checkin();
        let Some(key) = self.pool.take() else {
            return;
        };
        let ended = {
            let mut all = pools();
            let i = all.iter().position(|(k, _)| *k == key);
            match i {
                Some(i) if self.last.is_some() => {
                    all[i].1.users -= 1;
                    if all[i].1.users == 0 {
                        Some(all.swap_remove(i).1)
                    } else {
                        None
                    }
                }
                _ => None,
            }
        };
        // Ended outside the lock: each may wait a moment for its program.
        drop(ended);
    }

    fn fail(&mut self, msg: String) {
        if self.fault.is_none() {
            // A program stopped by a signal was most likely stopped with
            // unolab (a batch scheduler signals every process of the job,
            // in no set order): the fault waits a moment for unolab's own
            // signal, so that the work sees an interrupt, not a failure.
            if self.proc.as_ref().is_some_and(|p| p.stopped_by_signal()) {
                STOPPED_BY_SIGNAL.store(true, Ordering::SeqCst);
                await_interrupt(SIGNAL_WAIT);
            }
            self.fault = Some(msg);
        }
        if let Some(mut p) = self.proc.take() {
            p.end(Duration::from_millis(50));
        }
    }

    /// Starts the program and says hello, once. False after a fault.
    fn ensure_started(&mut self, obs: &Observation) -> bool {
        if self.fault.is_some() {
            return false;
        }
        if self.proc.is_some() {
            return true;
        }
        match Proc::start(&self.command) {
            Ok(p) => {
                self.requests = 0;
                self.in_match = false;
                self.last = Some(p.serial);
                self.proc = Some(p);
            }
            Err(e) => {
                self.fail(e);
                return false;
            }
        }
        let rules = obs.rules();
        let mut settings = serde_json::to_value(&rules.settings).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut settings {
            m.insert(
                "points".into(),
                serde_json::to_value(rules.point_overrides()).unwrap_or(Value::Null),
            );
        }
        let deck: Vec<&str> = self.tokens.iter().map(|s| s.as_str()).collect();
        let hello = serde_json::json!({
            "type": "hello", "protocol": "unolab-agent", "version": PROTOCOL_VERSION,
            "name": self.name, "players": obs.players(),
            "rules": rules.name, "settings": settings, "deck": deck,
        });
        let line = hello.to_string();
        let wait = self.timeout.max(Duration::from_millis(HELLO_TIMEOUT_MS));
        let Some(reply) = self.exchange(&line, "hello", wait) else {
            return false;
        };
        match check_hello(&reply) {
            Ok(()) => true,
            Err(why) => {
                self.fail(format!("answered the hello with '{}'{why}", clip(&reply)));
                false
            }
        }
    }

    /// Writes one line; a fault when the program's input is closed, or
    /// when it has not taken the line within `timeout` (a program that
    /// writes without reading fills both pipes: unolab's write would wait
    /// for it for ever, and it for unolab).
    fn send(&mut self, line: &str, what: &str, timeout: Duration) -> bool {
        let Some(p) = self.proc.as_mut() else {
            return false;
        };
        let written = match p.stdin.as_mut() {
            Some(w) => write_by(w, &[line.as_bytes(), b"\n"], Instant::now() + timeout),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        let why = match written {
            Ok(true) => return true,
            Ok(false) => format!(
                "did not read {what} within {} ms (it was not reading its input)",
                timeout.as_millis()
            ),
            Err(_) => match p.status(Duration::from_millis(200)) {
                Some(s) => format!("exited ({s}) before {what}"),
                None => format!("closed its input before {what}"),
            },
        };
        self.fail(format!("the program {why}"));
        false
    }

    /// Sends a line and waits for one line back (within the time limit).
    fn exchange(&mut self, line: &str, what: &str, timeout: Duration) -> Option<String> {
        if !self.send(line, what, timeout) {
            return None;
        }
        let p = self.proc.as_mut()?;
        let limit = Instant::now() + timeout;
        let how = loop {
            let (until, cut) = bounded(limit);
            // In slices, to see a program that exited while a helper it
            // started holds its output open (no end of output comes then),
            // and an interrupt that shortens the wait.
            let left = until.saturating_duration_since(Instant::now());
            match p.lines.recv_timeout(left.min(EXIT_CHECK)) {
                Ok(Ok(reply)) => return Some(reply),
                Ok(Err(why)) => {
                    self.fail(format!(
                        "the program wrote {why} instead of answering {what}"
                    ));
                    return None;
                }
                Err(RecvTimeoutError::Timeout) if left > EXIT_CHECK => {
                    if let Some(s) = p.status(Duration::ZERO) {
                        // A line it wrote just before exiting is still taken.
                        if let Ok(Ok(reply)) = p.lines.recv_timeout(EXIT_CHECK) {
                            return Some(reply);
                        }
                        break format!("exited ({s})");
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    // A line begun and not ended is quoted (the line end
                    // is what unolab waits for).
                    let wrote = match p.unended.text() {
                        Some(t) => format!("it wrote '{}' and no line end", clip(&t)),
                        None => "it wrote nothing".to_string(),
                    };
                    self.fail(if cut {
                        format!(
                            "no answer to {what} within {} s of the interrupt ({wrote})",
                            AFTER_INTERRUPT_MS / 1000
                        )
                    } else {
                        format!(
                            "no answer to {what} within {} ms ({wrote})",
                            timeout.as_millis()
                        )
                    });
                    return None;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    break match p.status(Duration::from_millis(500)) {
                        Some(s) => format!("exited ({s})"),
                        None => "closed its output".to_string(),
                    };
                }
            }
        };
        self.fail(format!(
            "the program {how} instead of answering {what} (it wrote nothing)"
        ));
        None
    }

    /// Sends a notice (no answer expected).
    fn notice_now(&mut self, obs: &Observation, kind: &str, extra: &str) {
        if !self.ensure_started(obs) {
            return;
        }
        let mut b = std::mem::take(&mut self.buf);
        b.clear();
        let _ = write!(b, "{{\"type\":\"{kind}\"{extra},\"obs\":");
        self.write_obs(&mut b, obs);
        b.push('}');
        self.send(&b, kind, self.timeout);
        self.buf = b;
    }

    fn write_cards(&self, b: &mut String, set: CardSet) {
        b.push('[');
        for (i, c) in set.iter().enumerate() {
            if i > 0 {
                b.push(',');
            }
            b.push('"');
            b.push_str(&self.tokens[c as usize]);
            b.push('"');
        }
        b.push(']');
    }

    /// The observation as a JSON object (docs/protocol.md).
    fn write_obs(&self, b: &mut String, obs: &Observation) {
        let _ = write!(
            b,
            "{{\"seat\":{},\"round\":{},\"turn\":{},\"hand\":",
            obs.seat(),
            obs.round(),
            obs.turns()
        );
        self.write_cards(b, obs.hand());
        // Before the first turn a wild start card has no colour yet.
        let d = &obs.rules().deck;
        let color = if obs.turns() == 0 && d.color(obs.top()).is_none() {
            "null".to_string()
        } else {
            format!("\"{}\"", obs.color().name())
        };
        let _ = write!(
            b,
            ",\"top\":\"{}\",\"color\":{color},\"direction\":{},\"hand_sizes\":[",
            self.tokens[obs.top() as usize],
            obs.direction()
        );
        for s in 0..obs.players() {
            if s > 0 {
                b.push(',');
            }
            let _ = write!(b, "{}", obs.hand_size(s));
        }
        let _ = write!(b, "],\"draw_pile\":{},\"discard\":", obs.draw_pile_len());
        self.write_cards(b, obs.discard());
        b.push_str(",\"totals\":[");
        for (s, t) in obs.totals().iter().enumerate() {
            if s > 0 {
                b.push(',');
            }
            let _ = write!(b, "{t}");
        }
        let _ = write!(b, "],\"pending_draw\":{},\"known\":[", obs.pending_draw());
        // What this seat knows of each other hand (its own entry empty).
        let known = obs.known_of_others();
        for (s, &k) in known[..obs.players()].iter().enumerate() {
            if s > 0 {
                b.push(',');
            }
            self.write_cards(b, k);
        }
        b.push_str("]}");
    }

    /// Asks one decision; `None` after a fault (the caller answers a default).
    fn decide(
        &mut self,
        obs: &Observation,
        decision: &str,
        legal: &str,
        extra: &str,
        want: Want,
    ) -> Option<Answer> {
        self.checkout(obs);
        self.decide_now(obs, decision, legal, extra, want)
    }

    fn decide_now(
        &mut self,
        obs: &Observation,
        decision: &str,
        legal: &str,
        extra: &str,
        want: Want,
    ) -> Option<Answer> {
        if !self.ensure_started(obs) {
            return None;
        }
        self.requests += 1;
        let id = self.requests;
        let mut b = std::mem::take(&mut self.buf);
        b.clear();
        let _ = write!(
            b,
            "{{\"type\":\"decide\",\"id\":{id},\"decision\":\"{decision}\"{extra},\"legal\":{legal},\"obs\":"
        );
        self.write_obs(&mut b, obs);
        b.push('}');
        let what = format!("request {id} ({decision})");
        let reply = self.exchange(&b, &what, self.timeout);
        self.buf = b;
        let reply = reply?;
        match parse_answer(&reply, id, want, &obs.rules().deck, obs.hand()) {
            Ok(a) => Some(a),
            Err(why) => {
                self.fail(format!("answered {what} with '{}': {why}", clip(&reply)));
                None
            }
        }
    }

    fn card_legal(&self, set: CardSet, draw: bool) -> String {
        let mut b = String::with_capacity(64);
        b.push('[');
        let mut seen: Vec<&str> = Vec::new();
        for c in set.iter() {
            let t = self.tokens[c as usize].as_str();
            if seen.contains(&t) {
                continue;
            }
            if !seen.is_empty() {
                b.push(',');
            }
            seen.push(t);
            b.push('"');
            b.push_str(t);
            b.push('"');
        }
        if draw {
            if !seen.is_empty() {
                b.push(',');
            }
            b.push_str("\"draw\"");
        }
        b.push(']');
        b
    }
}

impl Strategy for External {
    fn name(&self) -> &str {
        &self.name
    }

    /// A player with nothing playable draws without being asked.
    fn ask_without_choice(&self) -> bool {
        false
    }

    fn choose_play(&mut self, obs: &Observation, playable: CardSet, _: &mut Rng) -> Option<CardId> {
        let s = obs.settings();
        let may_draw = playable.is_empty() || (s.may_draw_when_playable && !s.force_play);
        let legal = self.card_legal(playable, may_draw);
        match self.decide(obs, "play", &legal, "", Want::Card(playable)) {
            Some(Answer::Card(c)) => c,
            _ => playable.first(),
        }
    }

    fn play_drawn(&mut self, obs: &Observation, card: CardId, _: &mut Rng) -> bool {
        let extra = format!(",\"card\":\"{}\"", obs.rules().deck.token(card));
        match self.decide(obs, "play_drawn", bool_legal(), &extra, Want::Bool) {
            Some(Answer::Bool(b)) => b,
            _ => true,
        }
    }

    fn choose_color(&mut self, obs: &Observation, _: &mut Rng) -> Color {
        let legal = "[\"red\",\"yellow\",\"green\",\"blue\"]";
        match self.decide(obs, "color", legal, "", Want::Color) {
            Some(Answer::Color(c)) => c,
            _ => most_held_color(obs),
        }
    }

    fn call_uno(&mut self, obs: &Observation, _: &mut Rng) -> bool {
        match self.decide(obs, "uno", bool_legal(), "", Want::Bool) {
            Some(Answer::Bool(b)) => b,
            _ => true,
        }
    }

    fn choose_target(&mut self, obs: &Observation, _: &mut Rng) -> u8 {
        let mut legal = String::from("[");
        for k in 1..obs.players() as u8 {
            if k > 1 {
                legal.push(',');
            }
            let _ = write!(legal, "{}", obs.seat_after(k));
        }
        legal.push(']');
        match self.decide(obs, "target", &legal, "", Want::Seat) {
            Some(Answer::Seat(s)) => s,
            _ => fewest_cards_opponent(obs),
        }
    }

    fn answer_stack(&mut self, obs: &Observation, answers: CardSet, _: &mut Rng) -> Option<CardId> {
        let legal = self.card_legal(answers, true);
        match self.decide(obs, "stack", &legal, "", Want::Card(answers)) {
            Some(Answer::Card(c)) => c,
            _ => answers.first(),
        }
    }

    fn challenge(&mut self, obs: &Observation, _: &mut Rng) -> bool {
        match self.decide(obs, "challenge", bool_legal(), "", Want::Bool) {
            Some(Answer::Bool(b)) => b,
            _ => false,
        }
    }

    fn jump_in(&mut self, obs: &Observation, card: CardId, _: &mut Rng) -> bool {
        let extra = format!(",\"card\":\"{}\"", obs.rules().deck.token(card));
        match self.decide(obs, "jump_in", bool_legal(), &extra, Want::Bool) {
            Some(Answer::Bool(b)) => b,
            _ => false,
        }
    }

    fn round_start(&mut self, obs: &Observation) {
        self.checkout(obs);
        // Started (and greeted) first: a program that starts here is not in
        // a match yet, and this notice puts it in one.
        if !self.ensure_started(obs) {
            return;
        }
        if obs.round() == 1 || !self.in_match {
            self.in_match = true;
            self.notice_now(obs, "match_start", "");
        }
        self.notice_now(obs, "round_start", "");
    }

    fn round_end(&mut self, obs: &Observation, r: &RoundResult) {
        let n = obs.players();
        let winner = r.winner.map_or("null".to_string(), |w| w.to_string());
        let points: Vec<String> = r.points[..n].iter().map(|p| p.to_string()).collect();
        let extra = format!(
            ",\"round\":{},\"outcome\":\"{}\",\"winner\":{winner},\"points\":[{}],\"turns\":{}",
            r.round,
            r.outcome.name(),
            points.join(","),
            r.turns
        );
        self.checkout(obs);
        self.notice_now(obs, "round_end", &extra);
        self.checkin();
    }

    fn match_end(&mut self, obs: &Observation, m: &MatchResult) {
        let winner = m.winner.map_or("null".to_string(), |w| w.to_string());
        let totals: Vec<String> = m.totals[..obs.players()]
            .iter()
            .map(|t| t.to_string())
            .collect();
        let extra = format!(
            ",\"winner\":{winner},\"totals\":[{}],\"rounds\":{}",
            totals.join(","),
            m.rounds
        );
        self.checkout(obs);
        self.in_match = false;
        self.notice_now(obs, "match_end", &extra);
        self.checkin();
    }

    fn fault(&mut self) -> Option<String> {
        self.fault.clone()
    }

    /// The program that failed is gone (ended by the fault); the pool
    /// forgets the fault, and the next message starts a new program.
    fn recover(&mut self) {
        if self.fault.take().is_none() {
            return;
        }
        if let Some(mut p) = self.proc.take() {
            p.end(Duration::from_millis(50));
        }
        if let Some(key) = &self.pool {
            if let Some((_, pool)) = pools().iter_mut().find(|(k, _)| k == key) {
                pool.dead = None;
            }
        }
    }
}
