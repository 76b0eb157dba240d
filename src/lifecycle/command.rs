//! Reads whether a container's command can be seen never to exit — what keeps a classic init
//! container from ever completing.
//!
//! Only what is certain counts: `sleep infinity`, `tail -f`, a `while true` loop with no
//! `exit`, `break`, `return` or `exec` in it, a server program in the foreground, or a server
//! image run with its own command. A loop that polls until a condition holds
//! (`until nslookup db; do sleep 2; done`) ends, and anything that cannot be read is left
//! alone.

use super::argv::{Run, basename, container_argv, resolve};
use super::shell::{self, ExecSleep, SimpleCommand, runs_unless_a_failure, without_prefixes};
use super::sidecars::KNOWN_CONTAINERS;
use crate::model::core::Container;
use crate::model::path::FieldPath;

/// A command that never exits, and where that is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NeverExits {
    /// What runs forever, for messages: "`sleep infinity`", "a `while true` loop with no
    /// `exit` or `break`".
    pub(crate) what: String,
    /// The field that shows it: `command`, `args` or `image`.
    pub(crate) path: FieldPath,
}

/// Whether `container` (at `path`) can be seen never to exit. What `command` and `args` say
/// decides; only with neither does the image's own command count.
pub(crate) fn never_exits(container: &Container, path: &FieldPath) -> Option<NeverExits> {
    let command = container.command.as_deref().unwrap_or_default();
    let args = container.args.as_deref().unwrap_or_default();
    if command.is_empty() && args.is_empty() {
        let image = container.image.as_deref().unwrap_or_default();
        let known = KNOWN_CONTAINERS
            .iter()
            .find(|k| k.runs_by_default && k.has_image(image))?;
        return Some(NeverExits {
            what: format!("the `{}` image's own command", known_image(known, image)),
            path: path.key("image"),
        });
    }
    let (argv, from_command) = container_argv(container)?;
    let (what, index) = argv_never_exits(&argv)?;
    let path = if index < from_command {
        path.key("command")
    } else {
        path.key("args")
    };
    Some(NeverExits { what, path })
}

/// The repository pattern of `known` that `image` matched, for messages.
fn known_image(known: &super::sidecars::KnownContainer, image: &str) -> &'static str {
    let repository = super::sidecars::image_repository(image);
    known
        .images
        .iter()
        .copied()
        .find(|i| {
            repository == *i
                || repository.ends_with(&format!("/{i}"))
                || repository.rsplit('/').next() == Some(*i)
        })
        .unwrap_or(known.description)
}

/// Why an argument vector never exits, and the index of the argument that shows it.
fn argv_never_exits(argv: &[&str]) -> Option<(String, usize)> {
    match resolve(argv)? {
        Run::Script { script, index } => script_never_exits(script).map(|what| (what, index)),
        Run::Program { index, .. } => command_never_exits(&argv[index..]).map(|what| (what, index)),
    }
}

/// A script that never exits: a top-level command that never exits and runs whenever the
/// script succeeds so far, or an endless loop in the foreground with no way out.
fn script_never_exits(script: &str) -> Option<String> {
    let tokens = shell::tokenize(script)?;
    let commands = shell::simple_commands(&tokens);
    for (index, command) in commands.iter().enumerate() {
        if command.depth != 0 || command.op == "&" || !runs_unless_a_failure(&commands, index) {
            continue;
        }
        if let Some(what) = endless_loop(&commands, index) {
            return Some(what);
        }
        if let Some(what) = command_never_exits(&without_prefixes(&command.words)) {
            return Some(what);
        }
    }
    None
}

/// `while true; do …; done` (or `while :`, `while sleep N`, `until false`) in the foreground,
/// with no `exit`, `break`, `return` or `exec` in its body.
fn endless_loop(commands: &[SimpleCommand<'_>], start: usize) -> Option<String> {
    let opening = &commands[start];
    let (&keyword, condition) = opening.words.split_first()?;
    if !matches!(opening.op, ";" | "\n") {
        // The condition goes on (`while a && b`): not a constant.
        return None;
    }
    let endless = match keyword {
        "while" => always_true(condition),
        "until" => matches!(condition, ["false"] | ["/bin/false"]),
        _ => false,
    };
    if !endless {
        return None;
    }
    let body = &commands[start + 1..];
    let end = body.iter().position(|c| c.depth == opening.depth)?;
    if body[end].op == "&" {
        return None;
    }
    let leaves = body[..=end].iter().any(|c| {
        without_prefixes(&c.words)
            .first()
            .is_some_and(|w| matches!(*w, "exit" | "break" | "return" | "exec"))
    });
    (!leaves).then(|| {
        format!(
            "a `{keyword} {}` loop with no `exit` or `break`",
            condition.join(" ")
        )
    })
}

fn always_true(condition: &[&str]) -> bool {
    match condition {
        ["true" | ":" | "/bin/true"] | ["[", "1", "]"] | ["[", "true", "]"] => true,
        // `while sleep 5` sleeps, succeeds, and loops again.
        [sleep, seconds] => {
            basename(sleep) == "sleep" && seconds.chars().all(|c| c.is_ascii_digit())
        }
        _ => false,
    }
}

/// One command that never exits by itself.
fn command_never_exits(words: &[&str]) -> Option<String> {
    let (&program, args) = words.split_first()?;
    let name = basename(program);
    let has = |flag: &str| args.contains(&flag);
    match name {
        "sleep" => (shell::command_sleep(words) == Some(ExecSleep::Forever))
            .then(|| format!("`sleep {}`", args.join(" "))),
        "tail" if follows(args) => Some(format!("`tail {}`", args.join(" "))),
        "nginx" if args.iter().any(|a| a.contains("daemon off")) => {
            Some("`nginx` in the foreground".to_owned())
        }
        "httpd-foreground" => Some("`httpd-foreground`".to_owned()),
        "redis-server"
            if !args.iter().any(|a| {
                matches!(
                    *a,
                    "-v" | "--version" | "-h" | "--help" | "--test-memory" | "--check-system"
                )
            }) && !args.windows(2).any(|w| w == ["--daemonize", "yes"]) =>
        {
            Some("`redis-server`".to_owned())
        }
        "memcached"
            if !args.iter().any(|a| {
                matches!(*a, "-d" | "--daemon" | "-h" | "--help" | "-V" | "--version")
            }) =>
        {
            Some("`memcached`".to_owned())
        }
        "python" | "python3" if has("-m") && has("http.server") => {
            Some("`python -m http.server`".to_owned())
        }
        // A sidecar's program (`envoy`, `cloud-sql-proxy`) serves until it is stopped.
        _ => KNOWN_CONTAINERS
            .iter()
            .find(|k| k.programs.contains(&name) && !k.exits_with_args(args))
            .map(|k| format!("`{name}`, the {}", k.description)),
    }
}

/// `tail -f`, `-F`, `-fn0`, `--follow` without `--pid` (which ends when that process does).
fn follows(args: &[&str]) -> bool {
    if args.iter().any(|a| a.starts_with("--pid")) {
        return false;
    }
    args.iter().any(|arg| {
        if let Some(long) = arg.strip_prefix("--") {
            return long == "follow" || long.starts_with("follow=") || long == "retry-follow";
        }
        let Some(short) = arg.strip_prefix('-') else {
            return false;
        };
        // Short options up to one that takes a value (`-n0f` is `-n 0f`).
        for c in short.chars() {
            match c {
                'f' | 'F' => return true,
                'c' | 'n' | 's' => return false,
                _ => {}
            }
        }
        false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never(command: &[&str], args: &[&str], image: &str) -> Option<String> {
        let container = Container {
            name: "c".to_owned(),
            image: Some(image.to_owned()),
            command: (!command.is_empty())
                .then(|| command.iter().map(|s| (*s).to_owned()).collect()),
            args: (!args.is_empty()).then(|| args.iter().map(|s| (*s).to_owned()).collect()),
            ..Container::default()
        };
        never_exits(&container, &FieldPath::from_keys(&["c"]))
            .map(|n| format!("{} at {}", n.what, n.path))
    }

    #[test]
    fn finds_commands_that_never_exit() {
        let cases: &[(&[&str], &[&str], &str, &str)] = &[
            (
                &["sleep", "infinity"],
                &[],
                "busybox",
                "`sleep infinity` at c.command",
            ),
            (
                &["tail", "-f", "/dev/null"],
                &[],
                "busybox",
                "`tail -f /dev/null` at c.command",
            ),
            (
                &["tail", "-fn0", "x.log"],
                &[],
                "busybox",
                "`tail -fn0 x.log` at c.command",
            ),
            (
                &["sh", "-c"],
                &["while true; do date; sleep 5; done"],
                "busybox",
                "a `while true` loop with no `exit` or `break` at c.args",
            ),
            (
                &["/bin/bash", "-ec", "echo hi\nwhile :\ndo\n  sync\ndone"],
                &[],
                "bash",
                "a `while :` loop with no `exit` or `break` at c.command",
            ),
            (
                &[],
                &["sh", "-c", "cp /a /b && exec sleep infinity"],
                "busybox",
                "`sleep infinity` at c.args",
            ),
            (
                &["sh", "-c", "echo start; redis-server --port 6380"],
                &[],
                "redis",
                "`redis-server` at c.command",
            ),
            (
                &["nginx", "-g", "daemon off;"],
                &[],
                "nginx",
                "`nginx` in the foreground at c.command",
            ),
            (
                &[],
                &[],
                "docker.io/library/nginx:1.25",
                "the `nginx` image's own command at c.image",
            ),
            (
                &[],
                &[],
                "envoyproxy/envoy:v1.30",
                "the `envoyproxy/envoy` image's own command at c.image",
            ),
        ];
        for (command, args, image, expected) in cases {
            assert_eq!(
                never(command, args, image).as_deref(),
                Some(*expected),
                "{command:?} {args:?}"
            );
        }
    }

    #[test]
    fn leaves_commands_that_end() {
        let cases: &[(&[&str], &[&str], &str)] = &[
            (
                &[
                    "sh",
                    "-c",
                    "until nslookup db; do echo waiting; sleep 2; done",
                ],
                &[],
                "busybox",
            ),
            (
                &["sh", "-c", "while ! nc -z db 5432; do sleep 1; done"],
                &[],
                "busybox",
            ),
            (
                &[
                    "sh",
                    "-c",
                    "while true; do nc -z db 5432 && break; sleep 1; done",
                ],
                &[],
                "busybox",
            ),
            (
                &[
                    "sh",
                    "-c",
                    "while true; do if [ -f /ok ]; then exit 0; fi; done",
                ],
                &[],
                "busybox",
            ),
            (
                &["sh", "-c", "while true; do sleep 1; done & cp /a /b"],
                &[],
                "busybox",
            ),
            (
                &["sh", "-c", "test -f /x || sleep infinity"],
                &[],
                "busybox",
            ),
            (&["sh", "-c", "echo 'sleep infinity'"], &[], "busybox"),
            (&["sleep", "30"], &[], "busybox"),
            (&["tail", "-n", "5", "/log"], &[], "busybox"),
            (&["tail", "-f", "--pid=1", "/log"], &[], "busybox"),
            (&["nginx", "-t"], &[], "nginx"),
            (&["redis-server", "--version"], &[], "redis"),
            (&[], &["--config", "/etc/x"], "nginx"),
            (&[], &[], "busybox"),
            (&[], &[], "example.com/nginx-config-loader:1"),
            (&["/app/migrate"], &[], "example/app"),
        ];
        for (command, args, image) in cases {
            assert_eq!(
                never(command, args, image),
                None,
                "{command:?} {args:?} {image}"
            );
        }
    }
}
