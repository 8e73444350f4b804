//! The `unolab` binary: parse the arguments, run the subcommand, map errors to
//! exit codes. Everything is in `cli/`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
