//! Strategies by name: preset files (`strategies/*.toml`, embedded in the
//! binary for the shipped ones), the validated [`StrategySpec`] that makes
//! fresh instances for each seat, the catalogue `unolab strategies` prints,
//! and line-ups.

pub use super::preset::PresetFile;
use super::{
    external, net, search, FirstStrategy, Heuristic, HeuristicParams, RandomStrategy, Seat,
};
use crate::engine::rules::{read_text, ReadFailure, Unread};
use crate::engine::strategy::Strategy;
use std::fmt;
use std::sync::Arc;

/// A validated strategy description that can make fresh instances (one per
/// seat per worker). Cheap to clone and shareable across threads.
#[derive(Clone, PartialEq)]
pub enum StrategySpec {
    Random,
    First,
    Heuristic {
        name: String,
        params: HeuristicParams,
    },
    /// A preset file of a parameterless strategy (`base = "random"` or
    /// `"first"`) under its own name.
    Renamed {
        name: String,
        inner: Box<StrategySpec>,
    },
    /// A program speaking the protocol of docs/protocol.md.
    External {
        name: String,
        command: Vec<String>,
        timeout_ms: u64,
    },
    /// A search agent (`pimc`, `ismcts`), with its validated parameters.
    Search(Box<search::SearchConfig>),
    /// A network policy (`base = "net"`) with its weights loaded.
    Net(Arc<net::NetSpec>),
    /// A strategy of the program that embeds unolab (a Rust type, a Python
    /// object): see [`StrategySpec::custom`].
    Custom(CustomSpec),
}

/// A strategy made by a factory of the embedding program: its name, what it
/// is (`base`, e.g. `"rust"` or `"python"`, reported in manifests) and a
/// factory of fresh instances, called once per seat and worker.
#[derive(Clone)]
pub struct CustomSpec {
    name: String,
    base: String,
    make: Arc<dyn Fn() -> Box<dyn Strategy> + Send + Sync>,
}

impl PartialEq for CustomSpec {
    /// The same strategy: the same name, base and factory.
    fn eq(&self, o: &CustomSpec) -> bool {
        self.name == o.name && self.base == o.base && Arc::ptr_eq(&self.make, &o.make)
    }
}

impl fmt::Debug for StrategySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StrategySpec::Random => f.write_str("random"),
            StrategySpec::First => f.write_str("first"),
            StrategySpec::Heuristic { name, params } => write!(f, "{name} {params:?}"),
            StrategySpec::Renamed { name, inner } => write!(f, "{name} ({inner:?})"),
            StrategySpec::External {
                name,
                command,
                timeout_ms,
            } => write!(f, "{name} external {command:?} timeout_ms {timeout_ms}"),
            StrategySpec::Search(c) => write!(f, "{} {:?} {:?}", c.name, c.kind, c.params),
            StrategySpec::Net(n) => write!(f, "{} net {:?}", n.name, n.params),
            StrategySpec::Custom(c) => write!(f, "{} ({})", c.name, c.base),
        }
    }
}

/// Errors about strategy names and preset files.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StrategyError {
    #[error("unknown strategy '{0}'{hint} (valid: {list}, a path to a preset .toml file, or ext:COMMAND)", hint = crate::suggest::hint(.0, &builtin_names()), list = builtin_names().join(", "))]
    Unknown(String),
    #[error("cannot read strategy file {0}: {1}")]
    Io(String, ReadFailure),
    #[error("malformed strategy file {0}: {1}")]
    Malformed(String, String),
    #[error("invalid strategy '{0}': {1}")]
    Invalid(String, String),
    /// A network preset whose weights file cannot be read (the preset, the
    /// message, why): worded as `Invalid`, refused by its cause where a
    /// caller tells causes apart ([`StrategyError::unread`]).
    #[error("invalid strategy '{0}': {1}")]
    WeightsUnread(String, String, ReadFailure),
    #[error("{0}")]
    Lineup(String),
}

impl StrategyError {
    /// Why a file could not be read, where that is the refusal: a preset
    /// file, or a network preset's weights file.
    pub fn unread(&self) -> Option<std::io::ErrorKind> {
        match self {
            StrategyError::Io(_, why) | StrategyError::WeightsUnread(_, _, why) => Some(why.kind),
            _ => None,
        }
    }
}

/// The presets shipped in `strategies/`, embedded in the binary.
const PRESETS: [(&str, &str); 14] = [
    ("points", include_str!("../../strategies/points.toml")),
    ("color", include_str!("../../strategies/color.toml")),
    ("cautious", include_str!("../../strategies/cautious.toml")),
    ("forgetful", include_str!("../../strategies/forgetful.toml")),
    ("pimc-100", include_str!("../../strategies/pimc-100.toml")),
    ("pimc-400", include_str!("../../strategies/pimc-400.toml")),
    ("pimc-1k", include_str!("../../strategies/pimc-1k.toml")),
    (
        "pimc-1k-belief",
        include_str!("../../strategies/pimc-1k-belief.toml"),
    ),
    ("ismcts-1k", include_str!("../../strategies/ismcts-1k.toml")),
    ("tuned", include_str!("../../strategies/tuned.toml")),
    ("net", include_str!("../../strategies/net.toml")),
    ("net-all", include_str!("../../strategies/net-all.toml")),
    (
        "pimc-net-100",
        include_str!("../../strategies/pimc-net-100.toml"),
    ),
    (
        "oracle-400",
        include_str!("../../strategies/oracle-400.toml"),
    ),
];

/// The network weights of the shipped presets, embedded in the binary: a
/// shipped preset named by its name plays these; a preset given by path
/// reads its `weights` file beside it ([`load_weights`]).
const NET_WEIGHTS: [(&str, &[u8]); 2] = [
    (
        "net.safetensors",
        include_bytes!("../../strategies/net.safetensors"),
    ),
    (
        "net-all.safetensors",
        include_bytes!("../../strategies/net-all.safetensors"),
    ),
];

/// The weights file `weights` of a preset read from `origin` (a path, or the
/// name of a shipped preset): for a shipped preset named by its name, the
/// weights built in with it (never a file of that name in the working
/// folder); else the file beside the preset, and a missing one is an error,
/// never the shipped weights of the same file name. Returns the weights and
/// the path as resolved.
fn load_weights(origin: &str, weights: &str) -> Result<(net::NetWeights, String), StrategyError> {
    let dir = std::path::Path::new(origin)
        .parent()
        .unwrap_or(std::path::Path::new(""));
    let path = dir.join(weights);
    let shown = path.to_string_lossy().into_owned();
    let shipped = PRESETS.iter().any(|p| p.0 == origin);
    let built_in = NET_WEIGHTS.iter().find(|w| shipped && w.0 == weights);
    let bytes = match built_in {
        Some(w) => w.1.to_vec(),
        None => crate::engine::rules::read_bounded(&path, crate::engine::rules::DATA_LIMIT)
            .map_err(|e| {
                let m = format!("cannot read weights {shown}: {e}");
                StrategyError::WeightsUnread(origin.into(), m, e.into())
            })?,
    };
    let w = net::NetWeights::from_safetensors(&bytes)
        .map_err(|e| StrategyError::Invalid(origin.into(), format!("{shown}: {e}")))?;
    Ok((w, shown))
}

/// One line of the strategy catalogue (`unolab strategies`).
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogEntry {
    pub name: String,
    pub base: String,
    pub description: String,
    /// `key = value` for each parameter (empty for parameterless ones).
    pub params: Vec<(String, String)>,
}

/// Every built-in strategy with its base, description and parameters.
pub fn catalog() -> Vec<CatalogEntry> {
    let mut v = vec![
        CatalogEntry {
            name: "random".into(),
            base: "random".into(),
            description: "uniform over the playable cards; random colour, target and stack answer"
                .into(),
            params: vec![],
        },
        CatalogEntry {
            name: "first".into(),
            base: "first".into(),
            description: "the first playable card in the deck's card order".into(),
            params: vec![],
        },
    ];
    for (name, text) in PRESETS {
        // The embedded presets are checked by a unit test.
        let Ok(f) = toml::from_str::<PresetFile>(text) else {
            continue;
        };
        let params = match (&f.search, &f.net) {
            (Some(p), _) => {
                let mut kv = key_values(p);
                // The oracle's own keys, left out of other presets' tables
                // at 0 (they apply to the oracle alone): listed for it.
                if f.base == "oracle" {
                    for (k, n) in [
                        ("sees_next", p.sees_next),
                        ("sees_previous", p.sees_previous),
                    ] {
                        if !kv.iter().any(|(x, _)| x == k) {
                            kv.push((k.to_string(), n.to_string()));
                        }
                    }
                }
                kv
            }
            (_, Some(n)) => key_values(n),
            _ => key_values(&f.params),
        };
        v.push(CatalogEntry {
            name: name.to_string(),
            base: f.base,
            description: f.description,
            params,
        });
    }
    v
}

/// `key = value` for each field of a parameter table, as the catalogue
/// lists them.
fn key_values(table: &impl serde::Serialize) -> Vec<(String, String)> {
    match serde_json::to_value(table) {
        Ok(serde_json::Value::Object(m)) => {
            m.into_iter().map(|(k, v)| (k, v.to_string())).collect()
        }
        _ => vec![],
    }
}

/// The `[search]` parameters at their defaults, as [`catalog`] lists a
/// search preset's.
pub fn search_defaults() -> Vec<(String, String)> {
    key_values(&super::search::SearchParams::default())
}

/// Every built-in strategy name.
pub fn builtin_names() -> Vec<&'static str> {
    let mut v = vec!["random", "first"];
    v.extend(PRESETS.iter().map(|p| p.0));
    v
}

impl StrategySpec {
    /// A built-in name (`random`, `first`, a preset) or a path to a preset file.
    pub fn load(name_or_path: &str) -> Result<StrategySpec, StrategyError> {
        StrategySpec::load_with(name_or_path, true)
    }

    /// As [`StrategySpec::load`]; search agents only when `allow_search` (a
    /// rollout policy must not be one, which also rules out a preset that
    /// names itself).
    pub(crate) fn load_with(
        name_or_path: &str,
        allow_search: bool,
    ) -> Result<StrategySpec, StrategyError> {
        match name_or_path {
            "random" => return Ok(StrategySpec::Random),
            "first" => return Ok(StrategySpec::First),
            _ => {}
        }
        if let Some(command) = name_or_path.strip_prefix("ext:") {
            return StrategySpec::external_short(command);
        }
        if let Some((_, text)) = PRESETS.iter().find(|p| p.0 == name_or_path) {
            return StrategySpec::parse_with(text, name_or_path, allow_search);
        }
        if name_or_path.ends_with(".toml") || name_or_path.contains('/') {
            let text = read_text(name_or_path).map_err(|e| match e {
                Unread::Io(m) => StrategyError::Io(name_or_path.into(), m),
                Unread::NotText(m) => StrategyError::Malformed(name_or_path.into(), m),
            })?;
            return StrategySpec::parse_with(&text, name_or_path, allow_search);
        }
        Err(StrategyError::Unknown(name_or_path.to_string()))
    }

    /// Parses and validates a preset file.
    pub fn parse(text: &str, origin: &str) -> Result<StrategySpec, StrategyError> {
        StrategySpec::parse_with(text, origin, true)
    }

    fn parse_with(
        text: &str,
        origin: &str,
        allow_search: bool,
    ) -> Result<StrategySpec, StrategyError> {
        // A [params] table under a base that has none is named as such
        // before the fields are read: `[params] iterations = 100` under base
        // "pimc" was "unknown field `iterations`, expected one of
        // `points_weight`, ...", the heuristic's.
        if let Ok(t) = toml::from_str::<toml::Table>(text) {
            let base = t.get("base").and_then(|b| b.as_str());
            let has_params = t
                .get("params")
                .and_then(|p| p.as_table())
                .is_some_and(|p| !p.is_empty());
            if let (Some(base), true) = (base, has_params) {
                // A misspelt base is said as such, not as one without
                // parameters.
                if let Some(m) = super::preset::unknown_base(base) {
                    return Err(StrategyError::Invalid(origin.into(), m));
                }
                if base != "heuristic" {
                    let instead = match base {
                        "net" => "it takes a [net] table",
                        b if search::SearchKind::parse(b).is_some() => "it takes a [search] table",
                        _ => "only base = \"heuristic\" has parameters",
                    };
                    return Err(StrategyError::Invalid(
                        origin.into(),
                        format!(
                            "base '{base}' takes no [params] table ({instead}): remove it, or use base = \"heuristic\""
                        ),
                    ));
                }
            }
        }
        let f: PresetFile = toml::from_str(text).map_err(|e| {
            StrategyError::Malformed(
                origin.into(),
                crate::engine::rules::toml_error_text(&e, text),
            )
        })?;
        f.validate()
            .map_err(|m| StrategyError::Invalid(origin.into(), m))?;
        // Parameters (even of default values) are refused for every base
        // that has none, rather than ignored. An empty [params] table (as a
        // manifest writes every strategy) holds none.
        let has_params = toml::from_str::<toml::Table>(text).is_ok_and(|t| {
            t.get("params")
                .and_then(|p| p.as_table())
                .is_some_and(|p| !p.is_empty())
        });
        if f.base != "heuristic" && has_params {
            let instead = if search::SearchKind::parse(&f.base).is_some() {
                "it takes a [search] table"
            } else {
                "only base = \"heuristic\" has parameters"
            };
            return Err(StrategyError::Invalid(
                origin.into(),
                format!(
                    "base '{}' takes no [params] table ({instead}): remove it, or use base = \"heuristic\"",
                    f.base
                ),
            ));
        }
        if let Some(kind) = search::SearchKind::parse(&f.base) {
            if !allow_search {
                return Err(StrategyError::Invalid(
                    origin.into(),
                    format!(
                        "'{}' is a search agent; a policy a search plays in its simulations must be a heuristic or network preset, random or first",
                        f.name
                    ),
                ));
            }
            let cfg = search::SearchConfig::new(&f.name, kind, f.search.unwrap_or_default())
                .map_err(|m| StrategyError::Invalid(origin.into(), m))?;
            return Ok(StrategySpec::Search(Box::new(cfg)));
        }
        if f.base == "net" {
            let mut params = f.net.unwrap_or(net::NetParams {
                weights: String::new(),
                temperature: 0.0,
                digest: String::new(),
            });
            let (weights, resolved) = load_weights(origin, &params.weights)?;
            let digest = weights.digest();
            if !params.digest.is_empty() && params.digest != digest {
                return Err(StrategyError::Invalid(
                    origin.into(),
                    format!(
                        "{resolved} holds another network than the one recorded (digest {digest}, recorded {}): the weight file changed since",
                        params.digest
                    ),
                ));
            }
            params.weights = resolved;
            params.digest = digest;
            return Ok(StrategySpec::Net(Arc::new(net::NetSpec {
                name: f.name,
                params,
                weights: Arc::new(weights),
            })));
        }
        let base = match f.base.as_str() {
            "random" => StrategySpec::Random,
            "first" => StrategySpec::First,
            "external" => {
                external::check_command(&f.command)
                    .map_err(|m| StrategyError::Invalid(origin.into(), m))?;
                return Ok(StrategySpec::External {
                    name: f.name,
                    command: f.command,
                    timeout_ms: f.timeout_ms.unwrap_or(external::DEFAULT_TIMEOUT_MS),
                });
            }
            _ => {
                return Ok(StrategySpec::Heuristic {
                    name: f.name,
                    params: f.params,
                })
            }
        };
        // A preset of a parameterless strategy keeps its own name.
        Ok(if f.name == base.name() {
            base
        } else {
            StrategySpec::Renamed {
                name: f.name,
                inner: Box::new(base),
            }
        })
    }

    /// The implementation behind the name: `random`, `first`, `heuristic`.
    pub fn base(&self) -> &str {
        match self {
            StrategySpec::Random => "random",
            StrategySpec::First => "first",
            StrategySpec::Heuristic { .. } => "heuristic",
            StrategySpec::Renamed { inner, .. } => inner.base(),
            StrategySpec::External { .. } => "external",
            StrategySpec::Search(c) => c.kind.base(),
            StrategySpec::Net(_) => "net",
            StrategySpec::Custom(c) => &c.base,
        }
    }

    /// The parameters as data (an empty object for parameterless strategies).
    pub fn params_json(&self) -> serde_json::Value {
        match self {
            StrategySpec::Heuristic { params, .. } => {
                serde_json::to_value(params).unwrap_or(serde_json::Value::Null)
            }
            StrategySpec::Renamed { inner, .. } => inner.params_json(),
            StrategySpec::Search(c) => {
                serde_json::to_value(&c.params).unwrap_or(serde_json::Value::Null)
            }
            StrategySpec::Net(n) => {
                serde_json::to_value(&n.params).unwrap_or(serde_json::Value::Null)
            }
            _ => serde_json::json!({}),
        }
    }

    /// Name, base and parameters as one JSON object (manifests): enough to
    /// write the preset file again.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "name": self.name(),
            "base": self.base(),
            "params": self.params_json(),
        });
        if let StrategySpec::External {
            command,
            timeout_ms,
            ..
        } = self
        {
            v["command"] = serde_json::json!(command);
            v["timeout_ms"] = serde_json::json!(timeout_ms);
        }
        if let Some(nets) = self.search_networks() {
            v["networks"] = nets;
        }
        v
    }

    /// A search preset's networks (its rollout policy, own rollout policy,
    /// guide or opponent model when a network preset): each key's digest, so
    /// that a description tells two networks under one file name apart, as
    /// a network preset's own `digest` does. `None` when it uses none.
    fn search_networks(&self) -> Option<serde_json::Value> {
        let c = match self {
            StrategySpec::Search(c) => c,
            StrategySpec::Renamed { inner, .. } => return inner.search_networks(),
            _ => return None,
        };
        let mut nets = serde_json::Map::new();
        for (key, spec) in [
            ("rollout", Some(&c.rollout)),
            ("own_rollout", c.own_rollout.as_ref()),
            ("guide", c.guide.as_ref()),
            ("model", c.model.as_ref()),
        ] {
            if let Some(n) = spec.and_then(|s| s.net()) {
                nets.insert(key.into(), serde_json::json!(n.params.digest));
            }
        }
        (!nets.is_empty()).then_some(serde_json::Value::Object(nets))
    }

    /// The short form `ext:COMMAND` or `ext:NAME=COMMAND`: the command's words
    /// are separated by spaces (no quoting, no commas); without a name, the
    /// name is the file stem of the last word that looks like a path (holds a
    /// `/` or a `.`), else of the program (`ext:python3 bots/simple.py` is
    /// `simple`); the time limit is [`external::DEFAULT_TIMEOUT_MS`].
    fn external_short(text: &str) -> Result<StrategySpec, StrategyError> {
        let origin = format!("ext:{text}");
        let first = text.split_whitespace().next().unwrap_or_default();
        let (name, command) = match first.split_once('=') {
            Some((name, _)) => (
                Some(name.to_string()),
                &text[text.find('=').unwrap_or(0) + 1..],
            ),
            None => (None, text),
        };
        let words: Vec<String> = command.split_whitespace().map(String::from).collect();
        external::check_command(&words).map_err(|m| StrategyError::Invalid(origin.clone(), m))?;
        let name = name.unwrap_or_else(|| {
            let w = words
                .iter()
                .rev()
                .find(|w| w.contains('/') || w.contains('.'))
                .unwrap_or(&words[0]);
            std::path::Path::new(w)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| w.clone())
        });
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(StrategyError::Invalid(
                origin,
                format!("name '{name}' must be non-empty, without spaces"),
            ));
        }
        Ok(StrategySpec::External {
            name,
            command: words,
            timeout_ms: external::DEFAULT_TIMEOUT_MS,
        })
    }

    /// A strategy of the embedding program: `make` builds a fresh instance
    /// (called once per seat and worker, from any thread). `name` is what
    /// results report, `base` what it is (`"rust"`, `"python"`). Such a
    /// strategy cannot be written to a file (a shard state names it only).
    pub fn custom(
        name: &str,
        base: &str,
        make: impl Fn() -> Box<dyn Strategy> + Send + Sync + 'static,
    ) -> Result<StrategySpec, StrategyError> {
        if name.is_empty() || name.contains(',') || name.contains(char::is_whitespace) {
            return Err(StrategyError::Invalid(
                name.into(),
                format!("name '{name}' must be non-empty, without commas or spaces"),
            ));
        }
        Ok(StrategySpec::Custom(CustomSpec {
            name: name.into(),
            base: base.into(),
            make: Arc::new(make),
        }))
    }

    /// Whether the strategy is an external program.
    pub fn is_external(&self) -> bool {
        matches!(self, StrategySpec::External { .. })
    }

    /// Whether the strategy is the perfect-information reference (`base =
    /// "oracle"`: it sees every hand). Tournaments, experiments and
    /// comparisons refuse it unless told to allow it ([`super::check_fair`]).
    pub fn is_oracle(&self) -> bool {
        matches!(self, StrategySpec::Search(c) if c.kind == search::SearchKind::Oracle)
    }

    /// The name reported in results.
    pub fn name(&self) -> &str {
        match self {
            StrategySpec::Random => "random",
            StrategySpec::First => "first",
            StrategySpec::Heuristic { name, .. } => name,
            StrategySpec::Renamed { name, .. } => name,
            StrategySpec::External { name, .. } => name,
            StrategySpec::Search(c) => &c.name,
            StrategySpec::Net(n) => &n.name,
            StrategySpec::Custom(c) => &c.name,
        }
    }

    /// The network of a network preset (renamed or not); `None` otherwise.
    pub fn net(&self) -> Option<&Arc<net::NetSpec>> {
        match self {
            StrategySpec::Net(n) => Some(n),
            StrategySpec::Renamed { inner, .. } => inner.net(),
            _ => None,
        }
    }

    /// A fresh instance.
    pub fn instantiate(&self) -> Seat {
        match self {
            StrategySpec::Random => Seat::Random(RandomStrategy),
            StrategySpec::First => Seat::First(FirstStrategy),
            StrategySpec::Heuristic { name, params } => Seat::Heuristic(Heuristic {
                name: name.clone(),
                params: params.clone(),
            }),
            StrategySpec::Renamed { inner, .. } => inner.instantiate(),
            StrategySpec::External {
                name,
                command,
                timeout_ms,
            } => Seat::custom(external::External::new(name, command, *timeout_ms)),
            StrategySpec::Search(c) => Seat::custom(search::SearchAgent::new((**c).clone())),
            StrategySpec::Net(n) => Seat::custom(net::NetStrategy::new(n)),
            StrategySpec::Custom(c) => Seat::Custom((c.make)()),
        }
    }
}

/// Fresh instances of a line-up for `players` seats, the list cycled to fill
/// the seats (a trace, a single match). At least one and at most `players`
/// strategies.
pub fn lineup_seats(lineup: &[StrategySpec], players: usize) -> Result<Vec<Seat>, StrategyError> {
    if lineup.is_empty() || lineup.len() > players {
        return Err(StrategyError::Lineup(format!(
            "{} strategies for {players} players (give one to {players}; the list is cycled to fill the seats)",
            lineup.len()
        )));
    }
    Ok((0..players)
        .map(|i| lineup[i % lineup.len()].instantiate())
        .collect())
}

/// Parses a comma list of strategies.
pub fn parse_list(list: &str) -> Result<Vec<StrategySpec>, StrategyError> {
    parse_list_with(list, &[])
}

/// Parses a comma list of strategies, looking each name up first among
/// `custom` (strategies of the embedding program, by [`StrategySpec::name`]),
/// then as [`StrategySpec::load`] does.
pub fn parse_list_with(
    list: &str,
    custom: &[StrategySpec],
) -> Result<Vec<StrategySpec>, StrategyError> {
    list.split(',')
        .map(|s| {
            let s = s.trim();
            match custom.iter().find(|c| c.name() == s) {
                Some(c) => Ok(c.clone()),
                None => StrategySpec::load(s),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::strategy::Strategy;

    #[test]
    fn every_builtin_loads_and_presets_validate() {
        for name in builtin_names() {
            let s = StrategySpec::load(name).unwrap();
            assert_eq!(s.name(), name);
            assert_eq!(s.instantiate().name(), name);
        }
        let e = StrategySpec::load("nope").unwrap_err().to_string();
        assert!(
            e.contains("unknown strategy 'nope'") && e.contains("random"),
            "{e}"
        );
    }

    #[test]
    fn a_preset_file_that_is_not_text_is_malformed_and_a_folder_unreadable() {
        let dir = std::env::temp_dir().join(format!("unolab-spec-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("bytes.toml");
        std::fs::write(&file, b"name = \"x\"\nbase = \"\xff\"\n").unwrap();
        let path = file.to_str().unwrap();
        match StrategySpec::load(path) {
            Err(StrategyError::Malformed(p, why)) => {
                assert_eq!(p, path);
                assert!(why.starts_with("not UTF-8 text"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        let folder = format!("{}/", dir.to_str().unwrap());
        assert!(matches!(
            StrategySpec::load(&folder),
            Err(StrategyError::Io(..))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_presets_are_refused() {
        let e = StrategySpec::parse(
            "name = \"x\"\nbase = \"heuristic\"\n[params]\nforget_uno = 2.0\n",
            "f",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("forget_uno"), "{e}");
        let e = StrategySpec::parse(
            "name = \"x\"\nbase = \"heuristic\"\n[params]\nbogus = 1\n",
            "f",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("bogus"), "{e}");
        let e = StrategySpec::parse("name = \"x\"\nbase = \"alphazero\"\n", "f")
            .unwrap_err()
            .to_string();
        assert!(e.contains("alphazero"), "{e}");
        // Parameters for a base that has none: refused, not ignored (issue
        // 17), whatever their values.
        for (base, params) in [
            ("random", "points_weight = 3.0"),
            ("first", "forget_uno = 0.0"),
            ("pimc", "forget_uno = 0.0"),
            // A search parameter in [params]: it was the heuristic's
            // "unknown field `iterations`", which never named [search].
            ("pimc", "iterations = 0"),
            ("net", "temperature = 1.0"),
        ] {
            let e = StrategySpec::parse(
                &format!("name = \"x\"\nbase = \"{base}\"\n[params]\n{params}\n"),
                "f",
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains(&format!("base '{base}' takes no [params]")),
                "{e}"
            );
        }
        let e = StrategySpec::parse(
            "name = \"x\"\nbase = \"external\"\ncommand = [\"bot\"]\n[params]\njump_in = true\n",
            "f",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("base 'external' takes no [params]"), "{e}");
        // An empty table, as manifests write every strategy, holds none.
        assert!(
            StrategySpec::parse("name = \"random\"\nbase = \"random\"\n[params]\n", "f").is_ok()
        );
    }
}
