//! An experiment file's TOML shapes as written (every value with where it
//! was written), the one-line messages of its checks (file:line), and an arm
//! before it is resolved.

pub(super) use crate::lab::options::SeedValue;
use crate::sim::seating::Seating;
use serde::Deserialize;
use toml::Spanned;

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct FileBase {
    pub(super) rules: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) set: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) house: Vec<Spanned<String>>,
    pub(super) players: Option<Spanned<i64>>,
    pub(super) strategies: Option<Spanned<String>>,
    pub(super) mode: Option<Spanned<String>>,
    pub(super) games: Option<Spanned<i64>>,
    pub(super) seed: Option<Spanned<SeedValue>>,
    pub(super) duplicate: Option<bool>,
    pub(super) seating: Option<Spanned<String>>,
    pub(super) fixed_seats: Option<Spanned<bool>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub(super) struct FileArm {
    pub(super) label: Spanned<String>,
    pub(super) rules: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) set: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) house: Vec<Spanned<String>>,
    pub(super) players: Option<Spanned<i64>>,
    pub(super) strategies: Option<Spanned<String>>,
    pub(super) seating: Option<Spanned<String>>,
    pub(super) fixed_seats: Option<Spanned<bool>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct FileGrid {
    pub(super) rules: Option<Vec<Spanned<String>>>,
    pub(super) set: Option<Vec<Spanned<String>>>,
    pub(super) house: Option<Vec<Spanned<String>>>,
    pub(super) players: Option<Vec<Spanned<i64>>>,
    pub(super) strategies: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct FileStop {
    pub(super) precision: Option<Spanned<f64>>,
    /// A half-width per metric: `{ points_per_round = 0.5, win_rate = 0.005 }`.
    pub(super) precision_per_metric: Option<Spanned<std::collections::BTreeMap<String, f64>>>,
    pub(super) max_games: Option<Spanned<i64>>,
    pub(super) batch: Option<Spanned<i64>>,
    pub(super) metrics: Option<Spanned<Vec<Spanned<String>>>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub(super) struct File {
    pub(super) name: Spanned<String>,
    pub(super) description: Option<String>,
    /// Lets an arm seat the perfect-information reference (`base = "oracle"`).
    #[serde(default)]
    pub(super) allow_oracle: bool,
    pub(super) baseline: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) base: FileBase,
    #[serde(default)]
    pub(super) arm: Vec<FileArm>,
    pub(super) grid: Option<FileGrid>,
    pub(super) stop: Option<FileStop>,
}

pub(super) struct Errors<'t> {
    pub(super) origin: &'t str,
    pub(super) text: &'t str,
    pub(super) list: Vec<String>,
    /// Why a rule-set or preset file the experiment names could not be
    /// read, when that is the first error.
    pub(super) unread: Option<std::io::ErrorKind>,
}

impl Errors<'_> {
    pub(super) fn line(&self, span: std::ops::Range<usize>) -> usize {
        let end = span.start.min(self.text.len());
        self.text[..end].matches('\n').count() + 1
    }
    pub(super) fn at(&mut self, span: std::ops::Range<usize>, msg: impl std::fmt::Display) {
        let l = self.line(span);
        self.list.push(format!("{}:{l}: {msg}", self.origin));
    }
    /// A file could not be read (`kind`: why): the error about to be pushed
    /// names it. It says what kind of error the whole refusal is only when
    /// it comes first (a front end raises one exception for all the
    /// messages).
    pub(super) fn unread(&mut self, kind: std::io::ErrorKind) {
        if self.list.is_empty() {
            self.unread = Some(kind);
        }
    }
    pub(super) fn file(&mut self, msg: impl std::fmt::Display) {
        self.list.push(format!("{}: {msg}", self.origin));
    }
    /// An arm's error; the same error of several arms (a base value) is
    /// reported once, without the arm's name.
    pub(super) fn arm(
        &mut self,
        span: std::ops::Range<usize>,
        label: &str,
        msg: impl std::fmt::Display,
    ) {
        let l = self.line(span);
        let plain = format!("{}:{l}: {msg}", self.origin);
        if let Some(i) = self.list.iter().position(|e| {
            e == &plain
                || (e.starts_with(&format!("{}:{l}: arm '", self.origin))
                    && e.ends_with(&format!("': {msg}")))
        }) {
            self.list[i] = plain;
            return;
        }
        if label.is_empty() {
            // A grid arm of empty values: its own error names them.
            self.list.push(plain);
        } else {
            self.list
                .push(format!("{}:{l}: arm '{label}': {msg}", self.origin));
        }
    }
}

pub(super) use crate::engine::rules::key_before;

/// One arm before it is resolved, each value with where it was written:
/// (label, rules, set, house, players, strategies, seating).
pub(super) type Raw = (
    (String, std::ops::Range<usize>),
    (String, std::ops::Range<usize>),
    Vec<(String, std::ops::Range<usize>)>,
    Vec<(String, std::ops::Range<usize>)>,
    (i64, std::ops::Range<usize>),
    (String, std::ops::Range<usize>),
    (Seating, std::ops::Range<usize>),
);
