//! `podcycle init`: writes the commented starter configuration.

use std::io::{self, Write};

use super::{EXIT_CLEAN, InitArgs, usage_error};
use crate::config::STARTER;

pub fn run(args: &InitArgs) -> io::Result<u8> {
    if args.path.as_os_str() == "-" {
        io::stdout().lock().write_all(STARTER.as_bytes())?;
        return Ok(EXIT_CLEAN);
    }
    let shown = args.path.display();
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    if args.force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let mut file = match options.open(&args.path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            return Ok(usage_error(&format!(
                "{shown} already exists; pass --force to replace it"
            )));
        }
        Err(error) => {
            let reason = crate::discovery::describe_io_error(&error);
            return Ok(usage_error(&format!("cannot write {shown}: {reason}")));
        }
    };
    file.write_all(STARTER.as_bytes())?;
    writeln!(
        io::stderr(),
        "Wrote {shown}; every key in it is commented out."
    )?;
    Ok(EXIT_CLEAN)
}
