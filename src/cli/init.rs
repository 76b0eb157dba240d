//! `podcycle init`: writes the commented starter configuration.

use std::io::{self, Write};

use super::{EXIT_CLEAN, InitArgs, usage_error};
use crate::config::STARTER;
use crate::escape::escape_controls;
use crate::safe_fs::{self, Existing, WriteError};

pub(crate) fn run(args: &InitArgs) -> io::Result<u8> {
    if args.path.as_os_str() == "-" {
        io::stdout().lock().write_all(STARTER.as_bytes())?;
        return Ok(EXIT_CLEAN);
    }
    let shown = escape_controls(&args.path.display().to_string()).into_owned();
    let existing = if args.force {
        Existing::Replace
    } else {
        Existing::Keep
    };
    let mut file = match safe_fs::create_file(&args.path, existing) {
        Ok(file) => file,
        Err(WriteError::AlreadyExists) => {
            return Ok(usage_error(&format!(
                "{shown} already exists; pass --force to replace it"
            )));
        }
        Err(error) => return Ok(usage_error(&format!("cannot write {shown}: {error}"))),
    };
    file.write_all(STARTER.as_bytes())?;
    writeln!(
        io::stderr(),
        "Wrote {shown}; every key in it is commented out."
    )?;
    Ok(EXIT_CLEAN)
}
