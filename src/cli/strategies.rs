//! `unolab strategies`: the built-in strategies and presets.

use super::{print_out, Fail};
use std::process::ExitCode;
use unolab::agents::{self as strategy, StrategySpec};

pub fn exec() -> Result<ExitCode, Fail> {
    let mut out = String::new();
    for name in strategy::builtin_names() {
        let s = StrategySpec::load(name)?;
        out.push_str(&format!("{:<10} {:?}\n", name, s));
    }
    print_out(&out)?;
    Ok(ExitCode::SUCCESS)
}
