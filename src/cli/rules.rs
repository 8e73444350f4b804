//! `unolab rules`: list the rule sets, or print one fully resolved.

use super::term::{print_out, Fail};
use clap::Subcommand;
use std::process::ExitCode;
use unolab::engine::rules::{RuleSetFile, Rules, BUILTIN_NAMES};

#[derive(Subcommand)]
pub enum RulesAction {
    /// List the rule sets
    List,
    /// Print a rule set as a complete TOML file (every setting written out)
    Show {
        /// A built-in rule set (classic, h2o, lilo-stitch, cars3, rlcard) or a
        /// rule-set file
        name: String,
        /// Change a setting in what is printed (repeatable)
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Turn on house rules in what is printed (comma separated, e.g.
        /// stacking=same,seven_o)
        #[arg(long, value_name = "RULES")]
        house: Vec<String>,
    },
}

pub fn exec(action: Option<RulesAction>) -> Result<ExitCode, Fail> {
    match action {
        None | Some(RulesAction::List) => {
            let mut out = String::new();
            for name in BUILTIN_NAMES {
                let r = Rules::load(name)?;
                out.push_str(&format!(
                    "{:<12} {:>3} cards  {}\n",
                    name, r.deck.size, r.file.description
                ));
            }
            print_out(&out)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(RulesAction::Show { name, set, house }) => {
            super::args::given_once(&set, &house, "")?;
            let f = RuleSetFile::resolve(&name, &set, &house)?;
            // A hand size no table can be dealt: every run would refuse
            // what is printed.
            Rules::build(f.clone())?.check_dealable()?;
            print_out(&f.to_toml())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
