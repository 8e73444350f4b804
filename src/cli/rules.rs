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
            let r = Rules::build(f.clone())?;
            // The player count is not known here, but a hand size that not
            // even two players can be dealt fits no table: `run` would
            // refuse every use of what is printed.
            let (hand, size) = (r.settings.hand_size as usize, r.deck.size);
            if 2 * hand + 1 > size {
                return Err(Fail(format!(
                    "hand_size = {hand}: no table can be dealt from the '{}' deck of {size} cards (2 players need 2 x {hand} + 1 start card = {}; hand size at most {} for 2 players)",
                    r.name,
                    2 * hand + 1,
                    size.saturating_sub(1) / 2
                )));
            }
            print_out(&f.to_toml())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
