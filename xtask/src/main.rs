//! `cargo xtask new-rule NAME CATEGORY`: creates every file a new rule needs.

use std::path::Path;
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask new-rule NAME CATEGORY

  NAME      the rule's kebab-case name, saying what is wrong (prestop-exceeds-grace-period)
  CATEGORY  correctness, suspicious, advice, pedantic or nursery";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [command, name, category] = args.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if command != "new-rule" {
        eprintln!("unknown command `{command}`\n\n{USAGE}");
        return ExitCode::from(2);
    }
    // The workspace root: the parent of this crate's folder.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ is inside the workspace");
    match xtask::new_rule(root, name, category) {
        Ok(created) => {
            println!("Created the rule `{name}`:");
            for path in &created.written {
                println!("  {path}");
            }
            println!("{}", created.next_steps);
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
