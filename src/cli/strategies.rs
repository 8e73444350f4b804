//! `unolab strategies`: the built-in strategies and presets as a table.

use super::term::{print_out, Fail};
use std::process::ExitCode;
use unolab::agents;
use unolab::agents::search::SearchKind;
use unolab::report::{columns, Cell};

pub fn exec(names: &[String], all: bool) -> Result<ExitCode, Fail> {
    let catalog = agents::catalog();
    if names.is_empty() {
        print_out(&table(&catalog, all))?;
        return Ok(ExitCode::SUCCESS);
    }
    // The strategies named: a built-in one from the catalog, a preset file
    // as it loads (every name checked before anything is printed).
    let mut chosen = Vec::new();
    for n in names {
        match catalog.iter().find(|e| &e.name == n) {
            Some(e) => chosen.push(e.clone()),
            None => chosen.push(entry_of(&agents::StrategySpec::load(n)?, n)),
        }
    }
    print_out(&table(&chosen, all))?;
    Ok(ExitCode::SUCCESS)
}

/// The line of a strategy loaded from `given` (a preset file, `ext:`):
/// its name, base and parameters as its description gives them.
fn entry_of(spec: &agents::StrategySpec, given: &str) -> agents::CatalogEntry {
    let v = spec.to_json();
    let value = |x: &serde_json::Value| match x {
        serde_json::Value::String(s) => format!("{s:?}"),
        x => x.to_string(),
    };
    let mut params: Vec<(String, String)> = v["params"]
        .as_object()
        .map(|m| m.iter().map(|(k, x)| (k.clone(), value(x))).collect())
        .unwrap_or_default();
    for key in ["command", "timeout_ms"] {
        if let Some(x) = v.get(key) {
            params.push((key.to_string(), value(x)));
        }
    }
    agents::CatalogEntry {
        name: spec.name().to_string(),
        base: spec.base().to_string(),
        description: format!("from {given}"),
        params,
    }
}

/// The `[search]` parameters shown even at their defaults: what a search
/// is made of.
const ALWAYS: [&str; 2] = ["iterations", "rollout"];

/// Name, base and description on one line, then the parameters indented:
/// of a search preset its budget, its rollout policy and the parameters
/// away from the defaults, unless `all` (a heuristic's weights and a
/// network's file are always shown whole).
fn table(entries: &[agents::CatalogEntry], all: bool) -> String {
    let defaults = agents::search_defaults();
    let wn = entries
        .iter()
        .map(|e| columns(&e.name))
        .max()
        .unwrap_or(4)
        .max(4);
    let wb = entries
        .iter()
        .map(|e| columns(&e.base))
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = format!("{:<wn$}  {:<wb$}  description\n", "name", "base");
    for e in entries {
        out.push_str(&format!(
            "{:<wn$}  {:<wb$}  {}\n",
            Cell(&e.name),
            Cell(&e.base),
            e.description
        ));
        if !e.params.is_empty() {
            let search = SearchKind::parse(&e.base).is_some();
            let p: Vec<String> = e
                .params
                .iter()
                .filter(|&kv| {
                    all || !search || ALWAYS.contains(&kv.0.as_str()) || !defaults.contains(kv)
                })
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            // The table of a preset file that sets them.
            let table = match e.base.as_str() {
                _ if search => "[search]",
                "net" => "[net]",
                _ => "[params]",
            };
            out.push_str(&format!(
                "{:<wn$}  {:<wb$}  {table}: {}\n",
                "",
                "",
                p.join(", ")
            ));
        }
    }
    out.push_str(
        "\nA preset file (`--strategies path/to/mine.toml`) sets these parameters in the table each line names; see docs/agents.md.\n",
    );
    if !all {
        out.push_str(
            "A search preset's other [search] parameters are at their defaults: `unolab strategies --all` prints them all.\n",
        );
    }
    out
}
