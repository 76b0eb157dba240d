//! Reads how long an exec hook sleeps, when its command makes that certain.
//!
//! Only sleeps that always run count: a `sleep` that is the command itself, or a top-level
//! command of a `sh -c` script that is not behind `&&`/`||`, not inside `if`/loops/groups and
//! not sent to the background. Anything else leaves the duration unknown, so a rule never
//! reports a sleep that might not happen. Wrappers and shells are seen through by
//! [`super::argv::resolve`].

use super::argv::{Run, basename, is_assignment, resolve};

/// The least time an exec command is certain to take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ExecSleep {
    /// Sleeps at least this many seconds (other commands may add more).
    AtLeast(f64),
    /// Sleeps forever (`sleep infinity`).
    Forever,
}

/// The certain sleep time of an exec command (`command` of an `ExecAction`).
pub fn exec_sleep<S: AsRef<str>>(command: &[S]) -> Option<ExecSleep> {
    sleep_or_script(command, script_sleep)
}

/// The sleep of an exec command that does nothing but sleep (`["sleep", "5"]`,
/// `sh -c "sleep 5"`): what the kubelet's `sleep` action does without a binary in the image.
pub fn exec_only_sleeps<S: AsRef<str>>(command: &[S]) -> Option<ExecSleep> {
    sleep_or_script(command, script_only_sleeps)
}

/// The `sleep` program's time, or what `read` finds in a shell script.
fn sleep_or_script<S: AsRef<str>>(
    command: &[S],
    read: impl FnOnce(&str) -> Option<ExecSleep>,
) -> Option<ExecSleep> {
    match resolve(command)? {
        Run::Program {
            name: "sleep",
            args,
            ..
        } => sleep_arguments(args.iter().map(AsRef::as_ref)),
        Run::Program { .. } => None,
        Run::Script { script, .. } => read(script),
    }
}

/// The sleeps of a script that does nothing but sleep.
fn script_only_sleeps(script: &str) -> Option<ExecSleep> {
    let tokens = tokenize(script)?;
    let commands = simple_commands(&tokens);
    let mut total = 0.0;
    for command in commands.iter().filter(|c| !c.words.is_empty()) {
        if !command.certain || !matches!(command.op, ";" | "\n") {
            return None;
        }
        match command_sleep(&command.words)? {
            ExecSleep::AtLeast(seconds) => total += seconds,
            ExecSleep::Forever => return Some(ExecSleep::Forever),
        }
    }
    (total > 0.0).then_some(ExecSleep::AtLeast(total))
}

/// The whole seconds of an exec command that does nothing but sleep, which the `sleep`
/// lifecycle action can replace exactly.
pub fn only_sleep<S: AsRef<str>>(command: &[S]) -> Option<i64> {
    match exec_only_sleeps(command)? {
        #[allow(clippy::cast_possible_truncation)]
        ExecSleep::AtLeast(seconds) if seconds.fract() == 0.0 && seconds < 1e15 => {
            Some(seconds as i64)
        }
        _ => None,
    }
}

/// GNU sleep adds up its arguments, each a number with an optional s/m/h/d suffix.
fn sleep_arguments<'a>(args: impl Iterator<Item = &'a str>) -> Option<ExecSleep> {
    let mut total = 0.0;
    let mut any = false;
    for arg in args {
        any = true;
        if matches!(arg, "infinity" | "inf" | "Infinity") {
            return Some(ExecSleep::Forever);
        }
        let (number, unit) = match arg.char_indices().last()? {
            (i, 's') => (&arg[..i], 1.0),
            (i, 'm') => (&arg[..i], 60.0),
            (i, 'h') => (&arg[..i], 3600.0),
            (i, 'd') => (&arg[..i], 86400.0),
            _ => (arg, 1.0),
        };
        if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return None;
        }
        let seconds: f64 = number.parse().ok()?;
        total += seconds * unit;
    }
    any.then_some(ExecSleep::AtLeast(total))
}

#[derive(Debug, PartialEq)]
pub(super) enum Token {
    Word(String),
    /// `;`, newline, `&&`, `||`, `|`, `&`, `(`, `)`.
    Op(&'static str),
}

/// One simple command of a script: its words and the operator that ends it.
#[derive(Debug)]
pub(super) struct SimpleCommand<'t> {
    pub(crate) words: Vec<&'t str>,
    /// `;`, `\n`, `&&`, `||`, `|`, `&`, `(` or `)`.
    pub(crate) op: &'static str,
    /// Nesting in `if`/loops/groups before this command; a command that opens a block
    /// (`while true`) is at the depth outside it.
    pub(crate) depth: usize,
    /// It runs whenever the script gets this far: at the top level, not behind `&&`/`||`,
    /// not in a block, and not sent to the background.
    pub(crate) certain: bool,
}

/// Splits a script's tokens into simple commands, tracking blocks and conditions.
pub(super) fn simple_commands(tokens: &[Token]) -> Vec<SimpleCommand<'_>> {
    let mut commands = Vec::new();
    let mut depth = 0usize;
    // Whether the command about to start runs unconditionally.
    let mut unconditional = true;
    let mut i = 0;
    while i < tokens.len() {
        // One simple command: words up to the next operator.
        let start = i;
        while matches!(tokens.get(i), Some(Token::Word(_))) {
            i += 1;
        }
        let words: Vec<&str> = tokens[start..i]
            .iter()
            .filter_map(|t| match t {
                Token::Word(w) => Some(w.as_str()),
                Token::Op(_) => None,
            })
            .collect();
        let op = match tokens.get(i) {
            Some(Token::Op(op)) => *op,
            _ => ";",
        };
        i += 1;
        let outer = depth;
        if let Some(&first) = words.first() {
            match first {
                "if" | "while" | "until" | "for" | "case" | "select" | "{" => depth += 1,
                "fi" | "done" | "esac" | "}" => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        commands.push(SimpleCommand {
            certain: depth == 0 && unconditional && op != "&",
            words,
            op,
            depth: outer.min(depth),
        });
        match op {
            "(" => depth += 1,
            ")" => depth = depth.saturating_sub(1),
            _ => {}
        }
        // A command after `&&` or `||` may not run; a separator starts a new list.
        unconditional = match op {
            "&&" | "||" => false,
            ";" | "\n" | "&" => true,
            _ => unconditional,
        };
    }
    commands
}

fn script_sleep(script: &str) -> Option<ExecSleep> {
    let tokens = tokenize(script)?;
    let mut total = 0.0;
    let mut forever = false;
    for command in simple_commands(&tokens).iter().filter(|c| c.certain) {
        match command_sleep(&command.words) {
            Some(ExecSleep::Forever) => forever = true,
            Some(ExecSleep::AtLeast(seconds)) => total += seconds,
            None => {}
        }
    }
    if forever {
        Some(ExecSleep::Forever)
    } else if total > 0.0 {
        Some(ExecSleep::AtLeast(total))
    } else {
        None
    }
}

/// The sleep of one simple command: `sleep N`, `exec sleep N`, `/bin/sleep N`,
/// `busybox sleep N`, with leading `VAR=value` assignments.
pub(super) fn command_sleep(words: &[&str]) -> Option<ExecSleep> {
    let mut words = words
        .iter()
        .copied()
        .skip_while(|w| is_assignment(w))
        .peekable();
    while let Some(&word) = words.peek() {
        if word == "exec" || basename(word) == "busybox" {
            words.next();
        } else {
            break;
        }
    }
    if basename(words.next()?) != "sleep" {
        return None;
    }
    sleep_arguments(words)
}

/// Splits a script into words and control operators. Quoted text keeps its characters, so a
/// `sleep` inside quotes is never a command. Returns `None` for scripts it cannot read (an
/// unterminated quote).
pub(super) fn tokenize(script: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = script.chars().peekable();
    let flush = |tokens: &mut Vec<Token>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            tokens.push(Token::Word(std::mem::take(word)));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => word.push(other),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => word.push(chars.next()?),
                        other => word.push(other),
                    }
                }
            }
            '\\' => {
                match chars.next() {
                    // A line continuation joins lines.
                    Some('\n') | None => {}
                    Some(other) => {
                        in_word = true;
                        word.push(other);
                    }
                }
            }
            '#' if !in_word => {
                while chars.peek().is_some_and(|&c| c != '\n') {
                    chars.next();
                }
            }
            ' ' | '\t' | '\r' => flush(&mut tokens, &mut word, &mut in_word),
            '\n' | ';' | '(' | ')' => {
                flush(&mut tokens, &mut word, &mut in_word);
                tokens.push(Token::Op(match c {
                    '\n' => "\n",
                    ';' => ";",
                    '(' => "(",
                    _ => ")",
                }));
            }
            '&' | '|' => {
                flush(&mut tokens, &mut word, &mut in_word);
                let doubled = chars.peek() == Some(&c);
                if doubled {
                    chars.next();
                }
                tokens.push(Token::Op(match (c, doubled) {
                    ('&', true) => "&&",
                    ('&', false) => "&",
                    ('|', true) => "||",
                    _ => "|",
                }));
            }
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    flush(&mut tokens, &mut word, &mut in_word);
    Some(tokens)
}

/// The first top-level command of a script, run in the foreground whenever the script gets
/// that far, for which `pick` finds something.
pub(super) fn script_foreground<T>(script: &str, pick: impl Fn(&[&str]) -> Option<T>) -> Option<T> {
    let tokens = tokenize(script)?;
    let commands = simple_commands(&tokens);
    commands.iter().enumerate().find_map(|(index, command)| {
        let foreground =
            command.depth == 0 && command.op != "&" && runs_unless_a_failure(&commands, index);
        foreground
            .then(|| pick(&without_prefixes(&command.words)))
            .flatten()
    })
}

/// The command runs unless an earlier one failed: it starts a list, or follows `&&` only.
pub(super) fn runs_unless_a_failure(commands: &[SimpleCommand<'_>], index: usize) -> bool {
    for previous in commands[..index].iter().rev() {
        match previous.op {
            "&&" => {}
            ";" | "\n" | "&" => return true,
            _ => return false,
        }
    }
    true
}

/// The words of a command without block keywords, `!`, `exec` and variable assignments.
pub(super) fn without_prefixes<'a>(words: &[&'a str]) -> Vec<&'a str> {
    words
        .iter()
        .copied()
        .skip_while(|w| {
            matches!(*w, "do" | "then" | "else" | "elif" | "{" | "!" | "exec")
                || w.split_once('=').is_some_and(|(name, _)| {
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sleep_of(command: &[&str]) -> Option<ExecSleep> {
        let command: Vec<String> = command.iter().map(|s| (*s).to_owned()).collect();
        exec_sleep(&command)
    }

    #[test]
    fn reads_certain_sleeps() {
        let cases: &[(&[&str], Option<ExecSleep>)] = &[
            (&["sleep", "60"], Some(ExecSleep::AtLeast(60.0))),
            (&["/bin/sleep", "15"], Some(ExecSleep::AtLeast(15.0))),
            (&["sleep", "1m", "30"], Some(ExecSleep::AtLeast(90.0))),
            (&["sleep", "0.5"], Some(ExecSleep::AtLeast(0.5))),
            (&["sleep", "infinity"], Some(ExecSleep::Forever)),
            (&["busybox", "sleep", "5"], Some(ExecSleep::AtLeast(5.0))),
            (&["sh", "-c", "sleep 60"], Some(ExecSleep::AtLeast(60.0))),
            (
                &["/bin/sh", "-ec", "echo bye; sleep 60 && nginx -s quit"],
                Some(ExecSleep::AtLeast(60.0)),
            ),
            (
                &["bash", "-c", "sleep 5\nkill -TERM 1\nsleep 10"],
                Some(ExecSleep::AtLeast(15.0)),
            ),
            (
                &["sh", "-c", "FOO=1 exec sleep 20"],
                Some(ExecSleep::AtLeast(20.0)),
            ),
            (
                &["sh", "-o", "pipefail", "-c", "sleep 7"],
                Some(ExecSleep::AtLeast(7.0)),
            ),
            (
                &["sh", "-c", "sleep 3 # drain\n"],
                Some(ExecSleep::AtLeast(3.0)),
            ),
        ];
        for (command, expected) in cases {
            assert_eq!(&sleep_of(command), expected, "{command:?}");
        }
    }

    #[test]
    fn ignores_sleeps_that_may_not_run() {
        let cases: &[&[&str]] = &[
            &["sh", "-c", "nginx -s quit && sleep 60"],
            &["sh", "-c", "test -f /x || sleep 60"],
            &["sh", "-c", "if [ -f /x ]; then sleep 60; fi"],
            &["sh", "-c", "while true; do sleep 60; done"],
            &["sh", "-c", "sleep 60 &"],
            &["sh", "-c", "echo 'sleep 60'"],
            &["sh", "-c", "sleep $DELAY"],
            &["sh", "-c", "(sleep 60)"],
            &["sh", "/drain.sh"],
            &["sh", "-c", "echo 'unterminated"],
            &["/usr/bin/curl", "-X", "POST", "localhost/drain"],
            &["sleep"],
            &[],
        ];
        for command in cases {
            assert_eq!(sleep_of(command), None, "{command:?}");
        }
    }

    #[test]
    fn only_sleep_accepts_commands_that_do_nothing_else() {
        let only = |command: &[&str]| {
            let command: Vec<String> = command.iter().map(|s| (*s).to_owned()).collect();
            only_sleep(&command)
        };
        assert_eq!(only(&["sleep", "60"]), Some(60));
        assert_eq!(only(&["/bin/sleep", "1m"]), Some(60));
        assert_eq!(only(&["sh", "-c", "sleep 15\n"]), Some(15));
        assert_eq!(only(&["sh", "-c", "exec sleep 15;"]), Some(15));
        assert_eq!(only(&["busybox", "sleep", "5"]), Some(5));
        assert_eq!(only(&["env", "A=1", "sleep", "5"]), Some(5));
        for command in [
            &["sleep", "0.5"][..],
            &["sleep", "infinity"],
            &["sh", "-c", "sleep 5; nginx -s quit"],
            &["sh", "-c", "sleep 5 && true"],
            &["sh", "-c", "sleep 5 &"],
            &["nginx", "-s", "quit"],
        ] {
            assert_eq!(only(command), None, "{command:?}");
        }
    }

    #[test]
    fn sleep_after_a_conditional_list_counts_again_after_a_separator() {
        assert_eq!(
            sleep_of(&["sh", "-c", "a && b; sleep 9"]),
            Some(ExecSleep::AtLeast(9.0))
        );
        assert_eq!(
            sleep_of(&["sh", "-c", "sleep 5 && a && sleep 9"]),
            Some(ExecSleep::AtLeast(5.0))
        );
    }

    #[test]
    fn reads_commands_that_only_sleep() {
        let only = |command: &[&str]| {
            let command: Vec<String> = command.iter().map(|s| (*s).to_owned()).collect();
            exec_only_sleeps(&command)
        };
        assert_eq!(only(&["sleep", "5"]), Some(ExecSleep::AtLeast(5.0)));
        assert_eq!(only(&["/bin/sleep", "1m"]), Some(ExecSleep::AtLeast(60.0)));
        assert_eq!(
            only(&["sh", "-c", "sleep 10"]),
            Some(ExecSleep::AtLeast(10.0))
        );
        assert_eq!(
            only(&["/bin/sh", "-c", "sleep 5; exec sleep 5 # drain\n"]),
            Some(ExecSleep::AtLeast(10.0))
        );
        for command in [
            &["sh", "-c", "sleep 5 && nginx -s quit"][..],
            &["sh", "-c", "nginx -s quit; sleep 5"],
            &["sh", "-c", "sleep $DELAY"],
            &["sh", "-c", "sleep 5 &"],
            &["/drain.sh", "sleep", "5"],
        ] {
            assert_eq!(only(command), None, "{command:?}");
        }
    }
}
