//! `unolab strategies`: the built-in strategies and presets as a table.

use super::term::{print_out, Fail};
use std::process::ExitCode;
use unolab::agents;

pub fn exec() -> Result<ExitCode, Fail> {
    print_out(&table(&agents::catalog()))?;
    Ok(ExitCode::SUCCESS)
}

/// Name, base and description on one line, then the parameters indented.
fn table(entries: &[agents::CatalogEntry]) -> String {
    let wn = entries
        .iter()
        .map(|e| e.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let wb = entries
        .iter()
        .map(|e| e.base.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = format!("{:<wn$}  {:<wb$}  description\n", "name", "base");
    for e in entries {
        out.push_str(&format!(
            "{:<wn$}  {:<wb$}  {}\n",
            e.name, e.base, e.description
        ));
        if !e.params.is_empty() {
            let p: Vec<String> = e.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            // The table of a preset file that sets them.
            let table = match e.base.as_str() {
                "pimc" | "ismcts" | "oracle" => "[search]",
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
    out
}
