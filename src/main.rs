use std::process::ExitCode;

fn main() -> ExitCode {
    podcycle::cli::main()
}
