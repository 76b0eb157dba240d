//! What an argument vector runs, once wrappers are seen through: a program with its
//! arguments, or a shell's inline script. Every reading of commands (how long an exec hook
//! sleeps, whether a command ever exits, whether a container runs a sidecar's program) starts
//! here, so they agree on what a command is.

use crate::model::core::Container;

/// Shells whose `-c SCRIPT` is read as a script.
pub(super) const SHELLS: &[&str] = &["sh", "bash", "ash", "dash", "zsh", "ksh"];

/// What an argument vector runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Run<'a, S> {
    /// A program, by its base name, with its arguments; `index` is the program's position in
    /// the vector.
    Program {
        name: &'a str,
        args: &'a [S],
        index: usize,
    },
    /// A shell running an inline script; `index` is the script's position in the vector.
    Script { script: &'a str, index: usize },
}

/// Sees through `busybox`, `env` (its options and `NAME=value` assignments), `tini` and
/// `dumb-init` (their options, up to `--`), and a shell's `-c`. `None` for an empty vector or
/// a shell running a script file, which the manifest does not show.
pub(super) fn resolve<S: AsRef<str>>(argv: &[S]) -> Option<Run<'_, S>> {
    let mut index = 0;
    loop {
        let program = basename(argv.get(index)?.as_ref());
        let rest = &argv[index + 1..];
        let skipped = match program {
            "busybox" => 0,
            "env" => rest
                .iter()
                .take_while(|a| {
                    let a = a.as_ref();
                    a.starts_with('-') || is_assignment(a)
                })
                .count(),
            "tini" | "dumb-init" => match rest.iter().position(|a| a.as_ref() == "--") {
                Some(dashes) => dashes + 1,
                None => rest
                    .iter()
                    .take_while(|a| a.as_ref().starts_with('-'))
                    .count(),
            },
            _ if SHELLS.contains(&program) => {
                let (script, at) = shell_script(rest)?;
                return Some(Run::Script {
                    script,
                    index: index + 1 + at,
                });
            }
            _ => {
                return Some(Run::Program {
                    name: program,
                    args: rest,
                    index,
                });
            }
        };
        index += 1 + skipped;
    }
}

/// What a container runs, when the manifest shows it: `command` and `args` together, or
/// `args` alone when they start with a shell or a tool (images that ship one run such
/// arguments as a command). `None` when only the image knows.
pub(super) fn container_argv(container: &Container) -> Option<(Vec<&str>, usize)> {
    let command = container.command.as_deref().unwrap_or_default();
    let args = container.args.as_deref().unwrap_or_default();
    if command.is_empty() && !args.first().is_some_and(|a| is_program(a)) {
        return None;
    }
    let argv = command.iter().chain(args).map(String::as_str).collect();
    Some((argv, command.len()))
}

fn is_program(word: &str) -> bool {
    let program = basename(word);
    SHELLS.contains(&program) || matches!(program, "sleep" | "tail" | "busybox" | "env")
}

pub(super) fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

pub(super) fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The script of `sh [options] -c SCRIPT`, and its position in `args`.
fn shell_script<S: AsRef<str>>(args: &[S]) -> Option<(&str, usize)> {
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        let arg = arg.as_ref();
        if arg == "-o" || arg == "+o" {
            index += 2;
            continue;
        }
        if arg.starts_with('-') && arg != "--" && arg[1..].contains('c') {
            return args.get(index + 1).map(|s| (s.as_ref(), index + 1));
        }
        if !arg.starts_with('-') && !arg.starts_with('+') {
            // A script file, not an inline script: nothing to read.
            return None;
        }
        index += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(argv: &[&str]) -> String {
        match resolve(argv) {
            Some(Run::Program { name, args, index }) => {
                format!("{name} {args:?} @{index}")
            }
            Some(Run::Script { script, index }) => format!("script {script:?} @{index}"),
            None => "none".to_owned(),
        }
    }

    #[test]
    fn sees_through_wrappers_and_shells() {
        assert_eq!(run(&["/bin/sleep", "5"]), r#"sleep ["5"] @0"#);
        assert_eq!(run(&["busybox", "sleep", "5"]), r#"sleep ["5"] @1"#);
        assert_eq!(
            run(&["env", "-i", "A=1", "sleep", "5"]),
            r#"sleep ["5"] @3"#
        );
        assert_eq!(
            run(&["tini", "-s", "--", "envoy", "-c", "x"]),
            r#"envoy ["-c", "x"] @3"#
        );
        assert_eq!(run(&["dumb-init", "nginx"]), "nginx [] @1");
        assert_eq!(run(&["sh", "-ec", "sleep 5"]), r#"script "sleep 5" @2"#);
        assert_eq!(
            run(&["env", "A=1", "bash", "-o", "pipefail", "-c", "x"]),
            r#"script "x" @6"#
        );
        assert_eq!(run(&["sh", "/entrypoint.sh"]), "none");
        assert_eq!(run(&["env"]), "none");
        assert_eq!(run(&[]), "none");
    }
}
