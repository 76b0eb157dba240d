//! `podcycle init`: writes the commented starter configuration.

use std::io::{self, Write};

use super::{EXIT_CLEAN, InitArgs, usage_error};
use crate::config::starter_for;
use crate::discovery::fixtures::fixture_directories;
use crate::escape::escape_controls;
use crate::safe_fs::{self, Existing, WriteError};

pub(crate) fn run(args: &InitArgs) -> io::Result<u8> {
    // The repository the configuration is for: the directory it is written in.
    let root = match args.path.parent() {
        Some(parent) if args.path.as_os_str() != "-" && !parent.as_os_str().is_empty() => parent,
        _ => std::path::Path::new("."),
    };
    let found = fixture_directories(root);
    let shown = |paths: &[std::path::PathBuf]| -> Vec<String> {
        paths
            .iter()
            .map(|p| escape_controls(&p.to_string_lossy().replace('\\', "/")).into_owned())
            .collect()
    };
    let starter = starter_for(&shown(&found.excluded_by_default), &shown(&found.fixtures));
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
    let what = if found.fixtures.is_empty() {
        "every key in it is commented out".to_owned()
    } else {
        format!(
            "every key in it is commented out but `extend-exclude`, which skips the {} found",
            crate::text::plural(found.fixtures.len(), "test or fixture directory")
        )
    };
    writeln!(io::stderr(), "Wrote {shown}; {what}.")?;
    Ok(EXIT_CLEAN)
}
