//! Rule-set files: the TOML a user writes or `unolab rules show` prints
//! ([`RuleSetFile`]), the built-ins embedded from `src/engine/rulesets/`,
//! `--set` and `--house` applied to a file, and the errors of all of it.

use super::{Effect, Settings, HOUSE_RULES};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One entry of a deck: some faces, in some colours, a number of copies each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeckEntry {
    /// Face tokens: "0".."9", "skip", "reverse", "draw2", "wild", "wild-draw4", ...
    pub faces: Vec<String>,
    /// Copies per colour (per face for wilds).
    pub count: u32,
    /// Colours for coloured faces; all four when absent. Not allowed for wilds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colors: Option<Vec<String>>,
    /// Effect of these cards; the face's own effect when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
}

/// A rule-set file, as read and as printed by `unolab rules show`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSetFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Point overrides: card token ("wild-swap", "red-7") or face token ("draw2").
    #[serde(default)]
    pub points: BTreeMap<String, u16>,
    #[serde(default)]
    pub settings: Settings,
    pub deck: Vec<DeckEntry>,
}

/// Errors about rule sets and settings.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RulesError {
    #[error("unknown rule set '{0}'{hint} (valid: {list}, or a path to a .toml file)", hint = crate::suggest::hint(.0, &BUILTIN_NAMES), list = BUILTIN_NAMES.join(", "))]
    UnknownRuleSet(String),
    #[error("cannot read rule-set file {0}: {1}")]
    Io(String, ReadFailure),
    #[error("malformed rule-set file {0}: {1}")]
    Malformed(String, String),
    #[error("{0}")]
    Invalid(String),
}

/// Why a file could not be read: the system's kind of error, by which a
/// front end names the cause (missing, a folder, not allowed), and its
/// message (shown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadFailure {
    pub kind: std::io::ErrorKind,
    pub message: String,
}

impl From<std::io::Error> for ReadFailure {
    fn from(e: std::io::Error) -> Self {
        ReadFailure {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

impl std::fmt::Display for ReadFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why a rule or preset file's text could not be had: reading it failed,
/// or it was read and is not UTF-8 text (then the file's content is at
/// fault, as a malformed one's is).
pub enum Unread {
    Io(ReadFailure),
    NotText(String),
}

/// The text of the file at `path` ([`Unread`] says why not), at most
/// `TEXT_LIMIT` bytes ([`read_bounded`]).
pub fn read_text(path: impl AsRef<Path>) -> Result<String, Unread> {
    let bytes = read_bounded(path.as_ref(), TEXT_LIMIT).map_err(|e| Unread::Io(e.into()))?;
    String::from_utf8(bytes).map_err(|e| Unread::NotText(format!("not UTF-8 text ({e})")))
}

/// The most bytes a rule, preset, experiment or ladder file may hold.
pub const TEXT_LIMIT: u64 = 16 << 20;

/// The most bytes a network's weights or a shard's state file may hold.
pub const DATA_LIMIT: u64 = 1 << 30;

/// The bytes of the file at `path`, refused when it is not a regular file
/// (a device such as `/dev/zero` would fill the memory, a named pipe would
/// wait for a writer) or holds more than `limit` bytes. A folder is read as
/// `std::fs::read` reads it, to fail with its own error.
pub fn read_bounded(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() && !meta.is_dir() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    if meta.len() > limit {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "{} bytes, more than the {limit} a file of this kind may hold",
                meta.len()
            ),
        ));
    }
    if meta.is_dir() {
        return std::fs::read(path);
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The built-in rule sets, in listing order.
pub const BUILTIN_NAMES: [&str; 5] = ["classic", "h2o", "lilo-stitch", "cars3", "rlcard"];

pub(super) fn builtin_text(name: &str) -> Option<&'static str> {
    match name {
        "classic" => Some(include_str!("../rulesets/classic.toml")),
        "h2o" => Some(include_str!("../rulesets/h2o.toml")),
        "lilo-stitch" => Some(include_str!("../rulesets/lilo-stitch.toml")),
        "cars3" => Some(include_str!("../rulesets/cars3.toml")),
        "rlcard" => Some(include_str!("../rulesets/rlcard.toml")),
        _ => None,
    }
}

impl RuleSetFile {
    /// Parses a rule-set file's text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<RuleSetFile, RulesError> {
        toml::from_str(text).map_err(|e: toml::de::Error| {
            let why = plain_toml_message(e.message());
            // The value serde refused, if it belongs to a whole-number
            // setting with its own range, is named by that range, not its
            // type's ("hand_size = -1": at least 1). Its key is the setting
            // named last on the span's line before it: `hand_size = -1`,
            // `"hand_size" = -1`, `settings.hand_size = -1` or `settings = {
            // hand_size = -1 }` alike.
            let key = e.span().and_then(|sp| {
                let line = text.get(..sp.start)?.rsplit('\n').next()?;
                super::settings::NARROW
                    .iter()
                    .filter_map(|(name, _, _)| line.rfind(name).map(|at| (at, *name)))
                    .max()
                    .map(|(_, name)| name.to_string())
            });
            let why = match key {
                Some(key) => {
                    let value = text
                        .get(e.span().unwrap_or_default())
                        .and_then(|v| v.trim().replace('_', "").parse::<i128>().ok());
                    value
                        .and_then(|v| super::settings::out_of_range(&key, v))
                        .unwrap_or_else(|| super::settings::with_own_range(&key, why))
                }
                None => why.clone(),
            };
            let why = named_values(&e, text).unwrap_or(why);
            RulesError::Malformed(origin.to_string(), at_line(&e, text, why))
        })
    }

    /// A built-in name or a path to a `.toml` file.
    pub fn load(name_or_path: &str) -> Result<RuleSetFile, RulesError> {
        if let Some(text) = builtin_text(name_or_path) {
            return RuleSetFile::parse(text, name_or_path);
        }
        let looks_like_path = name_or_path.ends_with(".toml")
            || name_or_path.contains('/')
            || name_or_path.contains('\\');
        if looks_like_path {
            let text = read_text(name_or_path).map_err(|e| match e {
                Unread::Io(m) => RulesError::Io(name_or_path.to_string(), m),
                Unread::NotText(m) => RulesError::Malformed(name_or_path.to_string(), m),
            })?;
            let f = RuleSetFile::parse(&text, name_or_path)?;
            // Its deck checked here, where the file is known, so that the
            // message names it (`deck entry 2: unknown colour 'purple'`).
            if let Err(RulesError::Invalid(why)) = super::deck::Deck::build(&f) {
                return Err(RulesError::Invalid(format!(
                    "rule-set file {name_or_path}: {why}"
                )));
            }
            return Ok(f);
        }
        Err(RulesError::UnknownRuleSet(name_or_path.to_string()))
    }

    /// Loads a rule set and applies `--set key=value` and `--house a,b=c` items.
    pub fn resolve(
        name_or_path: &str,
        sets: &[String],
        house: &[String],
    ) -> Result<RuleSetFile, RulesError> {
        let mut f = RuleSetFile::load(name_or_path)?;
        for s in sets {
            f.apply_set(s)?;
        }
        for h in house {
            for item in h.split(',').filter(|i| !i.trim().is_empty()) {
                f.apply_house(item)?;
            }
        }
        Ok(f)
    }

    /// The fully resolved file (every setting written out), as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Applies `key=value` overrides to the settings (`--set`).
    pub fn apply_set(&mut self, assignment: &str) -> Result<(), RulesError> {
        let (key, value) = assignment.split_once('=').ok_or_else(|| {
            RulesError::Invalid(format!(
                "a setting is key=value, got '{assignment}' (settings: {})",
                Settings::names().join(", ")
            ))
        })?;
        self.apply_setting(key.trim(), value.trim())
    }

    /// Applies one house rule (`--house stacking=same,seven_o`): a bare name means `true`.
    pub fn apply_house(&mut self, item: &str) -> Result<(), RulesError> {
        let (key, value) = match item.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (item.trim(), "true"),
        };
        if !HOUSE_RULES.contains(&key) {
            if Settings::names().iter().any(|n| n == key) {
                return Err(RulesError::Invalid(format!(
                    "'{key}' is a setting, not a house rule: give it as --set {key}=VALUE (in an experiment file: set = [\"{key}=VALUE\"]; house rules: {})",
                    HOUSE_RULES.join(", ")
                )));
            }
            return Err(RulesError::Invalid(format!(
                "unknown house rule '{key}'{} (valid: {})",
                crate::suggest::hint(key, &HOUSE_RULES),
                HOUSE_RULES.join(", ")
            )));
        }
        if key == "stacking" && value == "true" {
            return Err(RulesError::Invalid(
                "stacking needs a mode: stacking=same or stacking=cross".into(),
            ));
        }
        if !item.contains('=') {
            // A bare name turns a yes/no rule on; any other rule needs its value.
            let now = match toml::Value::try_from(&self.settings) {
                Ok(toml::Value::Table(mut t)) => t.remove(key),
                _ => None,
            };
            if let Some(d) = now.filter(|d| !d.is_bool()) {
                return Err(RulesError::Invalid(format!(
                    "house rule '{key}' needs a value: {key}=VALUE (in this rule set it is {d})"
                )));
            }
        }
        self.apply_setting(key, value)
    }

    fn apply_setting(&mut self, key: &str, value: &str) -> Result<(), RulesError> {
        let names = Settings::names();
        if !names.iter().any(|n| n == key) {
            let known: Vec<&str> = names.iter().map(|n| n.as_ref()).collect();
            return Err(RulesError::Invalid(format!(
                "unknown setting '{key}'{} (valid: {})",
                crate::suggest::hint(key, &known),
                names.join(", ")
            )));
        }
        // A value is read as TOML after `v = `: a line break would let it
        // bring other keys, dropped silently (`5\nseven_o=true`).
        if value.contains(['\n', '\r']) {
            return Err(RulesError::Invalid(format!(
                "invalid value {value:?} for setting '{key}': a value is one line"
            )));
        }
        let parsed: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {value}")) {
            Ok(mut t) => t.remove("v").unwrap_or(toml::Value::String(value.into())),
            Err(_) if is_integer(value) => {
                // TOML integers are 64-bit: a longer one is not a string.
                // A setting with its own range says it.
                let v = value.replace('_', "").parse::<i128>().ok();
                if let Some(why) = v.and_then(|v| super::settings::out_of_range(key, v)) {
                    return Err(RulesError::Invalid(why));
                }
                // Within TOML's reach, it is refused for its form: TOML
                // writes no leading zeros ("07", said to be too large) and
                // puts an underscore only between two digits ("5_").
                if let Some(n) = v.filter(|n| i64::try_from(*n).is_ok()) {
                    let digits = value.trim_start_matches(['+', '-']);
                    let how = if digits.len() > 1 && digits.starts_with('0') {
                        "without leading zeros"
                    } else {
                        "with an underscore only between two digits"
                    };
                    return Err(RulesError::Invalid(format!(
                        "invalid value '{value}' for setting '{key}': write the number {how} ({n})"
                    )));
                }
                return Err(RulesError::Invalid(format!(
                    "invalid value '{value}' for setting '{key}': the number is too large"
                )));
            }
            Err(_) => toml::Value::String(value.to_string()),
        };
        let table = match toml::Value::try_from(&self.settings) {
            Ok(toml::Value::Table(t)) => t,
            _ => toml::Table::new(),
        };
        // Out of its type's range and of the setting's own: the setting's
        // range (hand_size=-1: "at least 1", not "from 0 to 4294967295").
        let parsed_int = parsed.as_integer();
        let narrow = parsed_int.and_then(|v| super::settings::out_of_range(key, i128::from(v)));
        let with = |v: toml::Value| -> Result<Settings, toml::de::Error> {
            let mut t = table.clone();
            t.insert(key.to_string(), v);
            toml::Value::Table(t).try_into()
        };
        self.settings = with(parsed.clone())
            .map_err(|e| {
                // A value of another type for a setting of named values:
                // serde's words name none ("expected string only, not unit
                // variant", "did not match any variant of untagged enum
                // Raw"); the same value as text gets the list of names.
                let m = e.message();
                if !parsed.is_str()
                    && (m.contains("expected string only") || m.contains("untagged enum"))
                {
                    with(toml::Value::String(value.into())).err().unwrap_or(e)
                } else {
                    e
                }
            })
            .map_err(|e: toml::de::Error| {
                if let Some(why) = narrow {
                    return RulesError::Invalid(why);
                }
                let why = super::settings::with_own_range(key, plain_toml_message(e.message()));
                // (serde's "invalid value: integer `-1`, " would say the
                // value again)
                let why = parsed_int
                    .and_then(|v| why.strip_prefix(&format!("invalid value: integer `{v}`, ")))
                    .map_or(why.clone(), String::from);
                RulesError::Invalid(format!(
                    "invalid value '{value}' for setting '{key}': {why}"
                ))
            })?;
        Ok(())
    }
}

/// For a rule file's setting of named values given a value of another type
/// (`stacking = true`, `dealer = 1.5`), whose serde words name no values
/// ("wanted string or table", "did not match any variant of untagged enum
/// Raw"): the message `--set` gives for the same item, which lists them.
fn named_values(e: &toml::de::Error, text: &str) -> Option<String> {
    let m = e.message();
    if !(m.contains("wanted string or table")
        || m.contains("expected string only")
        || m.contains("untagged enum"))
    {
        return None;
    }
    let span = e.span()?;
    let value = text.get(span.clone())?.trim();
    let line = text.get(..span.start)?.rsplit('\n').next()?;
    let names = Settings::names();
    let (_, key) = names
        .iter()
        .filter_map(|n| line.rfind(n.as_str()).map(|at| (at, n)))
        .max()?;
    let mut probe = RuleSetFile::load("classic").ok()?;
    match probe.apply_setting(key, value) {
        Err(RulesError::Invalid(why)) => {
            let rest =
                why.strip_prefix(&format!("invalid value '{value}' for setting '{key}': "))?;
            // (at_line names the key of a `key = value` line itself.)
            Some(match key_before(text, span.start) {
                Some(_) => rest.to_string(),
                None => format!("{key}: {rest}"),
            })
        }
        _ => None,
    }
}

/// A setting's item as given (`"hand_size=5"`, `"seven_o"`) and where it
/// came from: `"set"` or `"house"`.
pub type Given<'a> = (&'static str, &'a str);

/// The first setting given twice among `sets` (`key=value` items, as
/// `--set` takes them) and the items of `house` (comma lists of `key` or
/// `key=value`, as `--house` takes them): the key, and the two items, each
/// with where it came from (`"set"` or `"house"`). [`RuleSetFile::resolve`]
/// applies them in turn, so the later would win silently, and a house rule
/// wins over a setting of the same key whatever the order they were given
/// in. `None` when each key is given once.
pub fn given_twice<'a>(
    sets: &'a [String],
    house: &'a [String],
) -> Option<(&'a str, Given<'a>, Given<'a>)> {
    let house_items = house
        .iter()
        .flat_map(|h| h.split(','))
        .map(str::trim)
        .filter(|i| !i.is_empty());
    let items = sets
        .iter()
        .map(|s| ("set", s.trim()))
        .chain(house_items.map(|i| ("house", i)));
    let mut seen: Vec<(&str, Given)> = Vec::new();
    for (from, item) in items {
        let key = setting_key(item);
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
            return Some((key, *first, (from, item)));
        }
        seen.push((key, (from, item)));
    }
    None
}

/// The setting a `--set` or house-rule item gives: `stacking` of
/// `"stacking=same"`, `seven_o` of `"seven_o"`.
pub fn setting_key(item: &str) -> &str {
    item.split('=').next().unwrap_or_default().trim()
}

/// Whether the settings and house rules of an override (`--b-set` and
/// `--b-house` of `compare`, an arm of an experiment file) give the setting
/// of `item`: then the item, the base's, gives way to the override's.
pub fn overridden(item: &str, sets: &[String], house: &[String]) -> bool {
    let key = setting_key(item);
    (sets.iter().map(String::as_str))
        .chain(house.iter().flat_map(|h| h.split(',')))
        .any(|i| !i.trim().is_empty() && setting_key(i) == key)
}

/// A house-rule entry (a comma list) without the items an override gives
/// (see [`overridden`]): the entry itself when it keeps them all.
pub fn without_overridden(entry: &str, sets: &[String], house: &[String]) -> String {
    let items = entry.split(',').filter(|i| !i.trim().is_empty());
    if items.clone().any(|i| overridden(i, sets, house)) {
        let kept: Vec<&str> = items.filter(|i| !overridden(i, sets, house)).collect();
        kept.join(",")
    } else {
        entry.to_string()
    }
}

/// Whether `s` is written as an integer: digits (`_` between them allowed),
/// after an optional sign.
fn is_integer(s: &str) -> bool {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    digits.starts_with(|c: char| c.is_ascii_digit())
        && digits.chars().all(|c| c.is_ascii_digit() || c == '_')
}

pub(super) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A TOML error of a file's `text` on one line, as a user reads it: "line
/// 4: invalid value: integer `70000`, expected a whole number from 0 to
/// 65535" ([`plain_toml_message`] after [`at_line`]). The parser's own text
/// quoted the line and drew carets under it, on one line a wall of text.
pub fn toml_error_text(e: &toml::de::Error, text: &str) -> String {
    at_line(e, text, plain_toml_message(e.message()))
}

/// `why` after the line of `text` the error `e` is about ("line 4: why").
/// An error about the whole file (a missing key: its span runs from the
/// start of the text) names no line, rather than blaming line 1.
pub fn at_line(e: &toml::de::Error, text: &str, why: String) -> String {
    let whole = e.message().starts_with("missing field");
    match e.span() {
        Some(s) if !(s.start == 0 && whole) => {
            format!("line {}: {why}", line_and_key(text, s.start))
        }
        _ => why,
    }
}

/// Where byte `at` of `text` is, as a message names it: its line, then the
/// key of a `key = value` line whose value starts there ("4: games"), or the
/// line alone ("4").
pub fn line_and_key(text: &str, at: usize) -> String {
    let line = text[..at.min(text.len())].matches('\n').count() + 1;
    match key_before(text, at) {
        Some(key) => format!("{line}: {key}"),
        None => line.to_string(),
    }
}

/// The key of a `key = value` line whose value starts at byte `at` of
/// `text`: a TOML error's span is the value, and its message ("invalid
/// type: string \"four\", expected i64") does not name the key.
pub fn key_before(text: &str, at: usize) -> Option<&str> {
    let line = text.get(..at)?.rsplit('\n').next()?;
    let key = line
        .strip_suffix('=')
        .or_else(|| line.trim_end().strip_suffix('='))?;
    let key = key.trim();
    (!key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '"')))
    .then_some(key)
}

/// A TOML or serde message on one line, with serde's words for Rust's
/// types said as a user reads them ("expected u32" is "expected a whole
/// number from 0 to 4294967295").
pub fn plain_toml_message(message: &str) -> String {
    let mut why = plain_serde_words(&one_line(message));
    for (rust, plain) in [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        (
            "expected u32",
            "expected a whole number from 0 to 4294967295",
        ),
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ] {
        why = why.replace(rust, plain);
    }
    if why.contains("number too large to fit in target type") {
        // TOML's own limit, before any field's: say how to get past it.
        why.push_str(&format!(
            " (TOML's integers stop at {}; only a seed may be larger, written as a string, e.g. seed = \"{}\")",
            i64::MAX,
            u64::MAX
        ));
    }
    why
}

/// Serde's wording of a value of the wrong type or an unknown name, in
/// words: `invalid type: string "five", expected X` becomes `expected X,
/// not the text "five"`; `unknown variant `sam`, expected one of `off`,
/// `same`` becomes `'sam' is not one of: off, same` with the nearest name.
fn plain_serde_words(why: &str) -> String {
    if let Some(rest) = why.strip_prefix("invalid type: ") {
        if let Some((kind, expected)) = rest.split_once(", expected ") {
            let kind = kind.replace('`', "");
            let kind = match kind.split_once(' ') {
                Some(("string", v)) => format!("the text {v}"),
                Some(("integer" | "floating", v)) => {
                    format!("the number {}", v.trim_start_matches("point "))
                }
                Some(("boolean", v)) => v.to_string(),
                _ => match kind.as_str() {
                    "sequence" => "a list".to_string(),
                    "map" => "a table".to_string(),
                    k => k.to_string(),
                },
            };
            let expected = match expected {
                "a sequence" => "a list, such as [\"a\", \"b\"]",
                // A Rust type's name ("struct FileGrid") tells a user nothing.
                e if e.starts_with("struct ") || e.starts_with("a map") => "a table",
                e => e,
            };
            return format!("expected {expected}, not {kind}");
        }
    }
    // `unknown field `stackng`, expected one of ...`: kept, with the
    // nearest field.
    if let Some(at) = why.find("unknown field `") {
        let rest = &why[at + "unknown field `".len()..];
        if let Some((given, expected)) = rest.split_once("`, expected ") {
            let names = serde_names(expected);
            return format!("{why}{}", crate::suggest::hint(given, &names));
        }
    }
    if let Some(rest) = why.strip_prefix("unknown variant `") {
        if let Some((given, expected)) = rest.split_once("`, expected ") {
            let names = serde_names(expected);
            return format!(
                "'{given}' is not one of: {}{}",
                names.join(", "),
                crate::suggest::hint(given, &names)
            );
        }
    }
    why.to_string()
}

/// The names serde lists after "expected": `one of `a`, `b`` or `` `a` or
/// `b` ``.
fn serde_names(expected: &str) -> Vec<&str> {
    expected
        .trim_start_matches("one of ")
        .split(['`', ',', ' '])
        .filter(|w| !w.is_empty() && *w != "or")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::plain_toml_message;

    #[test]
    fn a_number_past_tomls_integers_says_how_to_write_it() {
        let m = plain_toml_message("seed: number too large to fit in target type");
        assert!(
            m.contains("TOML's integers stop at 9223372036854775807")
                && m.contains("seed = \"18446744073709551615\""),
            "{m}"
        );
        assert_eq!(
            plain_toml_message("expected u32"),
            "expected a whole number from 0 to 4294967295"
        );
    }
}
