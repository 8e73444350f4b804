//! The readable summary of a run ([`Report::to_text`]): the table per
//! strategy, seat and position, then the detailed lines of every mean with
//! its interval.

use super::*;
use std::fmt;
use unicode_width::UnicodeWidthStr;

/// A text table's cell, padded by its width in terminal columns (a wide
/// character counts two, a combining mark none), where `format!`'s width
/// counts characters: `format!("{:<w$}", Cell(name))` with `w` from
/// [`columns`] keeps a column straight whatever the names.
pub struct Cell<'a>(pub &'a str);

/// The width of `s` in terminal columns.
pub fn columns(s: &str) -> usize {
    s.width()
}

/// The longest start of `s` that fits in `n` terminal columns, measured as
/// [`columns`] measures (a joined emoji is one glyph there).
pub fn clip_columns(s: &str, n: usize) -> &str {
    let mut fit = 0;
    for (i, c) in s.char_indices() {
        let end = i + c.len_utf8();
        if columns(&s[..end]) > n {
            break;
        }
        fit = end;
    }
    &s[..fit]
}

impl fmt::Display for Cell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pad = f.width().unwrap_or(0).saturating_sub(columns(self.0));
        let (before, after) = match f.align() {
            Some(fmt::Alignment::Right) => (pad, 0),
            Some(fmt::Alignment::Center) => (pad / 2, pad - pad / 2),
            _ => (0, pad),
        };
        write!(f, "{:before$}{}{:after$}", "", self.0, "")
    }
}

impl Report<'_> {
    /// The readable summary table.
    pub fn to_text(&self) -> String {
        let st = self.stats;
        let cfg = self.cfg;
        let matches = cfg.mode == Mode::Match;
        let pct = |x: f64| format!("{:.2}%", 100.0 * x);
        // An end that rounds to the fair share but is not it gets the
        // decimals that tell on which side of it it lies ([25.00%, ...]
        // read as touching 25% when it was 25.0027%).
        let fair = 1.0 / cfg.players as f64;
        let end = |x: f64| {
            let apart = |d: usize| format!("{:.d$}", 100.0 * x) != format!("{:.d$}", 100.0 * fair);
            let d = if x == fair {
                2
            } else {
                (2..=6).find(|&d| apart(d)).unwrap_or(6)
            };
            format!("{:.d$}%", 100.0 * x)
        };
        let ci = |e: Estimate| format!("[{}, {}]", end(e.lo), end(e.hi));
        let mut o = String::new();
        let unit = if matches { "matches" } else { "rounds" };
        let n = |k: u64, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
        let played = if matches {
            format!(
                "{} ({})",
                n(st.games, "match", "matches"),
                n(st.rounds, "round", "rounds")
            )
        } else {
            n(st.games, "round", "rounds")
        };
        let _ = writeln!(
            o,
            "unolab run: rules {}, {} players, {}{}, seed {}, {} thread{}",
            cfg.rules.name,
            cfg.players,
            played,
            if self.partial {
                format!(" PARTIAL: {} of {} requested", st.games, cfg.games)
            } else {
                String::new()
            },
            cfg.seed,
            cfg.threads,
            if cfg.threads == 1 { "" } else { "s" }
        );
        let changed = cfg.rules.changed_settings();
        let _ = writeln!(
            o,
            "settings: {}",
            if changed.is_empty() {
                format!("the defaults of {}", cfg.rules.name)
            } else {
                changed
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        );
        if cfg.rules.differs_from_builtin_cards() {
            let _ = writeln!(
                o,
                "cards: a rule-set file named {0} whose deck or points are not the built-in {0}'s",
                cfg.rules.name
            );
        }
        for line in seating_lines(cfg, st.games) {
            let _ = writeln!(o, "{line}");
        }
        let _ = writeln!(o, "95% intervals: {}", intervals_label(cfg, st));
        let _ = writeln!(
            o,
            "elapsed {:.3} s, {:.0} {unit}/s\n",
            self.elapsed_s,
            self.games_per_second(),
        );
        let wn = st
            .strategies
            .iter()
            .map(|s| columns(&s.name))
            .max()
            .unwrap_or(8)
            .max(8);
        let pts = if self.penalty() {
            "pen/seat"
        } else {
            "pts/won"
        };
        let _ = writeln!(
            o,
            "{:<wn$} {:>5} {:>10} {:>9}  {:<18}{}{:>9}  {:<16} {:>7}",
            "strategy",
            "seats",
            "round wins",
            "per seat",
            "95% CI",
            if matches {
                format!("{:>10} {:>9}  {:<18}", "match wins", "per seat", "95% CI")
            } else {
                String::new()
            },
            pts,
            "95% CI",
            "illegal"
        );
        for (k, s) in st.strategies.iter().enumerate() {
            let r = round_win_per_seat(cfg, st, k);
            let m = match_win_per_seat(cfg, st, k);
            let _ = writeln!(
                o,
                "{:<wn$} {:>5} {:>10} {:>9}  {:<18}{}{:>9}  {:<16} {:>7}",
                Cell(&s.name),
                s.seats,
                s.round_wins,
                pct(r.rate),
                ci(r),
                if matches {
                    format!("{:>10} {:>9}  {:<18}", s.match_wins, pct(m.rate), ci(m))
                } else {
                    String::new()
                },
                if s.round_points.count() == 0 {
                    "-".to_string()
                } else {
                    format!("{:.1}", s.round_points.mean())
                },
                points_ci95(cfg, st, k)
                    .map_or("-".into(), |(lo, hi)| format!("[{lo:.1}, {hi:.1}]")),
                s.illegal
            );
        }
        let _ = writeln!(
            o,
            "fair share per seat: {} (1/{} players). \"per seat\" is wins / (games x seats held).",
            pct(1.0 / cfg.players as f64),
            cfg.players
        );
        let unwon = st.blocked + st.truncated;
        if unwon > 0 {
            let _ = writeln!(
                o,
                "{unwon} of {} rounds had no winner (blocked or truncated, last line): the fair share holds when every round has one, and here a strategy no better than the others wins less than it.",
                st.rounds
            );
        }
        let _ = writeln!(
            o,
            "\n{:<6} {:>10} {:>8}  {:<18}{}",
            "seat",
            "round wins",
            "share",
            "95% CI",
            if matches {
                format!("{:>10} {:>8}  95% CI", "match wins", "share")
            } else {
                String::new()
            }
        );
        for (i, s) in st.seats.iter().enumerate() {
            let r = seat_round_win(cfg, st, i);
            let m = seat_match_win(cfg, st, i);
            let _ = writeln!(
                o,
                "{:<6} {:>10} {:>8}  {:<18}{}",
                i,
                s.round_wins,
                pct(r.rate),
                ci(r),
                if matches {
                    format!("{:>10} {:>8}  {}", s.match_wins, pct(m.rate), ci(m))
                } else {
                    String::new()
                }
            );
        }
        if st.won == 0 {
            // A share of no won round is undefined, not 0.00%.
            let _ = writeln!(
                o,
                "\nwins by position in order of play from the first mover: not shown, as undefined (no round was won)"
            );
        } else {
            let _ = writeln!(
                o,
                "\nwins by position in order of play from the first mover (share of won rounds):"
            );
            for i in 0..st.position_wins.len() {
                let e = position_win(cfg, st, i);
                let _ = writeln!(o, "  +{i}: {:>8}  {}", pct(e.rate), ci(e));
            }
        }
        // Every mean with its interval.
        // `plain`: the independent units of a run without clusters, and
        // their name ("round", "won round").
        // `independent`: whether the values are independent draws, which
        // gives the median its interval (none otherwise).
        let with_ci = |name: &str,
                       h: &Histogram,
                       ci: Option<(f64, f64)>,
                       plain: (u64, &str),
                       independent: bool| {
            let s = h.summary();
            if s.count == 0 {
                // A mean of 0.00 from no value would be a figure without data.
                return format!("{name}: no value (0 {}s)\n", plain.1);
            }
            // Why there is none: too few independent units, or a state of
            // an earlier version that did not keep the sums it needs.
            let (units, unit) = match (&st.clusters, cfg.duplicate) {
                (None, _) => plain,
                (Some(c), true) => (c.clusters, "deal"),
                (Some(c), false) => (c.clusters, "match"),
            };
            let why = if units < 2 {
                format!(
                    " (no interval from {units} {unit}{})",
                    if units == 1 { "" } else { "s" }
                )
            } else {
                " (no interval: the state of an earlier version, without the sums it needs)"
                    .to_string()
            };
            let ci = ci.map_or(why, |(lo, hi)| format!(" [{lo:.2}, {hi:.2}]"));
            let mci = super::median_ci95(h, independent)
                .map_or(String::new(), |(lo, hi)| format!(" [{lo}, {hi}]"));
            format!(
                "{name}: mean {:.2}{ci}, sd {:.2}, p5 {}, p25 {}, median {}{mci}, p75 {}, p95 {}, max {}\n",
                s.mean, s.sd, s.p5, s.p25, s.p50, s.p75, s.p95, s.max
            )
        };
        let cl = st.clusters.as_ref();
        let rounds_free = super::rounds_independent(cfg);
        o.push('\n');
        let mean_ci = |h: &Histogram, m: Option<&Moments>| per_round_mean_ci95(cfg, st, h, m);
        o.push_str(&with_ci(
            "turns per round",
            &st.turns,
            mean_ci(&st.turns, cl.and_then(|c| c.turns.as_ref())),
            (st.rounds, "round"),
            rounds_free,
        ));
        o.push_str(&with_ci(
            "cards drawn per round",
            &st.cards_drawn,
            mean_ci(&st.cards_drawn, cl.and_then(|c| c.cards_drawn.as_ref())),
            (st.rounds, "round"),
            rounds_free,
        ));
        for (k, s) in st.strategies.iter().enumerate() {
            o.push_str(&with_ci(
                &format!("{} ({})", self.points_label(), s.name),
                &s.round_points,
                points_ci95(cfg, st, k),
                // The rounds that gave it values: those it won, or under
                // penalty scoring every won round.
                (
                    if self.penalty() { st.won } else { s.round_wins },
                    "won round",
                ),
                super::round_points_independent(cfg, st, k),
            ));
            if matches {
                let what = if self.penalty() {
                    "penalty points per seat per match"
                } else {
                    "points per seat per match"
                };
                o.push_str(&with_ci(
                    &format!("{what} ({})", s.name),
                    &s.match_points,
                    match_points_ci95(st, k),
                    (st.games, "match"),
                    super::match_values_independent(cfg, st, k),
                ));
            }
        }
        if matches {
            o.push_str(&with_ci(
                "rounds per match",
                &st.rounds_per_match,
                rounds_per_match_ci95(cfg, st),
                (st.games, "match"),
                !cfg.duplicate,
            ));
            let _ = writeln!(
                o,
                "tied matches (best total shared): {}, matches without a winner (quick play, round blocked or truncated): {}",
                st.tied_matches, st.no_winner_matches
            );
            if st.capped_matches > 0 {
                let _ = writeln!(
                    o,
                    "matches stopped by max_rounds = {} before the target or round count: {} (their winner is the leader at the stop; {} without a single leader, not counted as ties)",
                    self.cfg.rules.settings.max_rounds,
                    st.capped_matches,
                    st.capped_without_winner
                );
            }
        }
        // Rounds without a winner and UNO penalties, each with its interval
        // (a rate per round: over independent rounds, or the clusters').
        let share = |count: u64, moments: fn(&ClusterSums) -> Option<&Moments>| {
            round_share(cfg, st, count, moments).map_or(String::new(), |e| {
                format!(
                    " ({} [{}, {}] of rounds)",
                    pct(e.rate),
                    pct(e.lo),
                    pct(e.hi)
                )
            })
        };
        let penalties = mean_ci(
            &st.uno_penalties_per_round,
            cl.and_then(|c| c.uno_penalties.as_ref()),
        )
        .map_or(String::new(), |(lo, hi)| {
            format!(
                " ({:.4} [{lo:.4}, {hi:.4}] per round)",
                rate(st.uno_penalties, st.rounds)
            )
        });
        let _ = writeln!(
            o,
            "blocked rounds: {}{}, truncated rounds: {}{}, UNO penalties: {}{penalties}, illegal actions: {}",
            st.blocked,
            share(st.blocked, |c| c.blocked.as_ref()),
            st.truncated,
            share(st.truncated, |c| c.truncated.as_ref()),
            st.uno_penalties,
            st.illegal
        );
        o.lines().map(|l| l.trim_end().to_string() + "\n").collect()
    }
}

/// `text` as a Markdown code span: between single backticks, or between
/// more backticks than the longest run of them in it (a Python call's
/// string may hold one), with a space inside so the text may start or end
/// with one.
pub fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    if longest == 0 {
        format!("`{text}`")
    } else {
        let fence = "`".repeat(longest + 1);
        format!("{fence} {text} {fence}")
    }
}

/// An Elo figure, signed, whole, but with a decimal under half a point, so
/// that an interval's end just below 0 does not read "-0" (or "+0" above).
pub fn elo_text(x: f64) -> String {
    if x != 0.0 && x.abs() < 0.5 {
        let d = ((-x.abs().log10()).ceil() as usize).clamp(1, 3);
        format!("{x:+.d$}")
    } else {
        format!("{x:+.0}")
    }
}

/// 1234567 -> "1.23M", 45678 -> "45.7k", 12.3 -> "12".
pub fn fmt_rate(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}
#[cfg(test)]
mod tests {
    use super::{clip_columns, code_span, columns, elo_text, Cell};

    #[test]
    fn a_code_span_holds_a_text_with_backticks() {
        assert_eq!(code_span("unolab run -g 5"), "`unolab run -g 5`");
        // A Python call whose string holds a backtick, and one holding two.
        assert_eq!(code_span("f(x='a`b')"), "`` f(x='a`b') ``");
        assert_eq!(code_span("f('``')"), "``` f('``') ```");
    }

    #[test]
    fn an_elo_end_near_zero_keeps_its_sign_and_a_decimal() {
        assert_eq!(elo_text(-0.28), "-0.3");
        assert_eq!(elo_text(0.04), "+0.04");
        assert_eq!(elo_text(0.0), "+0");
        assert_eq!(elo_text(-19.6), "-20");
    }

    #[test]
    fn a_cell_is_padded_by_terminal_columns() {
        // Wide characters count two columns, a combining mark none.
        assert_eq!(columns("日本語"), 6);
        assert_eq!(columns("cafe\u{301}"), 4);
        assert_eq!(format!("[{:<8}]", Cell("日本語")), "[日本語  ]");
        assert_eq!(format!("[{:>8}]", Cell("cafe\u{301}")), "[    cafe\u{301}]");
        assert_eq!(format!("[{:^7}]", Cell("ab")), "[  ab   ]");
        // Wider than the width: as is, as `format!` does.
        assert_eq!(format!("[{:<2}]", Cell("日本")), "[日本]");
        assert_eq!(clip_columns("日本語", 5), "日本");
        assert_eq!(clip_columns("cafe\u{301}s", 4), "cafe\u{301}");
        assert_eq!(clip_columns("abc", 9), "abc");
        // A joined emoji (a family: four people and three joiners) is one
        // glyph of two columns, as `columns` counts it.
        let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}\u{200d}\u{1f466}ab";
        assert_eq!(columns(family), 4);
        assert_eq!(clip_columns(family, 4), family);
        assert_eq!(clip_columns(family, 3), &family[..family.len() - 1]);
    }
}
