//! `podcycle init`: writes the commented starter configuration.

use std::io::{self, Write};

use super::{EXIT_CLEAN, InitArgs, usage_error};
use crate::config::starter_for;
use crate::discovery::fixtures::excluded_by_default;
use crate::escape::escape_controls;
use crate::safe_fs::{self, Existing, WriteError};

pub(crate) fn run(args: &InitArgs) -> io::Result<u8> {
    // The repository the configuration is for: the directory it is written in.
    let root = match args.path.parent() {
        Some(parent) if args.path.as_os_str() != "-" && !parent.as_os_str().is_empty() => parent,
        _ => std::path::Path::new("."),
    };
    let found: Vec<String> = excluded_by_default(root)
        .iter()
        .map(|p| escape_controls(&p.to_string_lossy().replace('\\', "/")).into_owned())
        .collect();
    let starter = starter_for(&found);
    if args.path.as_os_str() == "-" {
        io::stdout().lock().write_all(starter.as_bytes())?;
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
    file.write_all(starter.as_bytes())?;
    let what = if found.is_empty() {
        String::new()
    } else {
        format!(
            " (it names the {} the default excludes skip here)",
            crate::text::plural(found.len(), "directory")
        )
    };
    writeln!(
        io::stderr(),
        "Wrote {shown}; every key in it is commented out{what}."
    )?;
    Ok(EXIT_CLEAN)
}
