//! A Helm template read line by line, tolerant of everything Go templates allow: which text is
//! literal and which comes from actions (`{{ … }}`), the YAML key a line writes and its path by
//! indentation, the `define` block it belongs to, and the `.Values` path that `.` stands for
//! inside `with` blocks. This is what the source map matches rendered lines against.

use std::ops::Range;

/// One line of a template.
#[derive(Clone, Debug)]
pub(crate) struct TemplateLine {
    /// Byte range of the line's content (without its line break).
    pub(crate) range: Range<usize>,
    /// The literal YAML key the line writes (`name` in `- name: web`), with its byte range.
    pub(crate) key: Option<(String, Range<usize>)>,
    /// Byte range of what follows `key:` on the line, when anything does.
    pub(crate) value: Option<Range<usize>>,
    /// The actions on the line, as byte ranges of `{{ … }}`.
    pub(crate) actions: Vec<Range<usize>>,
    /// The line holds actions and nothing else but whitespace.
    pub(crate) only_actions: bool,
    /// Column of the key (or of the first literal text), for structure by indentation.
    pub(crate) column: usize,
    /// The keys from the top of the template (or of its `define` block) down to this line's key.
    pub(crate) path: Vec<String>,
    /// The `define` block the line is in (its name), `None` at the top level.
    pub(crate) define: Option<String>,
    /// What `.` is inside `with .Values.…` blocks: that values path; `None` where it is the
    /// top-level context or unknown (inside `range`).
    pub(crate) dot: Dot,
}

/// What `.` stands for at a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Dot {
    /// The top-level context: `.Values.x` is the values path `x`.
    Root,
    /// Inside `with .Values.a.b`: `.` is the values path `a.b`.
    Values(Vec<String>),
    /// Inside `range` or `with` something else: unknown.
    Unknown,
}

/// A parsed template.
#[derive(Clone, Debug, Default)]
pub(crate) struct Template {
    pub(crate) lines: Vec<TemplateLine>,
}

/// A control structure that an `{{ end }}` closes.
#[derive(Clone, Debug)]
enum Frame {
    Define(String),
    Dot(Dot),
    Other,
}

impl Template {
    pub(crate) fn parse(text: &str) -> Template {
        let actions = action_ranges(text);
        let mut lines = Vec::new();
        let mut frames: Vec<Frame> = Vec::new();
        let mut stack: Vec<(usize, String)> = Vec::new();
        let mut action_index = 0;
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            let end = start + line.trim_end_matches(['\n', '\r']).len();
            // Actions that touch the line.
            while action_index < actions.len() && actions[action_index].end <= start {
                action_index += 1;
            }
            let on_line: Vec<Range<usize>> = actions[action_index..]
                .iter()
                .take_while(|a| a.start < end.max(start + 1))
                .map(|a| a.start.max(start)..a.end.min(end))
                .filter(|a| a.start < a.end || start == end)
                .collect();
            let define = frames.iter().rev().find_map(|f| match f {
                Frame::Define(name) => Some(name.clone()),
                _ => None,
            });
            let dot = frames
                .iter()
                .rev()
                .find_map(|f| match f {
                    Frame::Dot(dot) => Some(dot.clone()),
                    Frame::Define(_) => Some(Dot::Unknown),
                    Frame::Other => None,
                })
                .unwrap_or(Dot::Root);
            let literal = literal_text(text, start..end, &on_line);
            let only_actions = !on_line.is_empty() && literal.trim().is_empty();
            let (key, value, column) = key_of(text, start..end, &on_line);
            let mut path = Vec::new();
            if let Some((name, _)) = &key {
                while stack.last().is_some_and(|(c, _)| *c >= column) {
                    stack.pop();
                }
                path = stack.iter().map(|(_, k)| k.clone()).collect();
                path.push(name.clone());
                stack.push((column, name.clone()));
            } else if !only_actions && !literal.trim().is_empty() {
                // A list item or continuation: it closes deeper keys.
                while stack.last().is_some_and(|(c, _)| *c > column) {
                    stack.pop();
                }
            }
            lines.push(TemplateLine {
                range: start..end,
                key,
                value,
                actions: on_line.clone(),
                only_actions,
                column,
                path,
                define,
                dot: dot.clone(),
            });
            // Control structures opened or closed on this line apply from the next line on.
            for action in &on_line {
                let body = action_body(&text[action.clone()]);
                let word = body.split_whitespace().next().unwrap_or_default();
                match word {
                    "define" => {
                        let name = body.split('"').nth(1).unwrap_or_default().to_owned();
                        frames.push(Frame::Define(name));
                        stack.clear();
                    }
                    "with" => {
                        let inner = body["with".len()..].trim();
                        let resolved = match values_path(inner, &dot) {
                            Some(path) => Dot::Values(path),
                            None => Dot::Unknown,
                        };
                        frames.push(Frame::Dot(resolved));
                    }
                    "range" => frames.push(Frame::Dot(Dot::Unknown)),
                    "if" | "block" => frames.push(Frame::Other),
                    "end" => {
                        if let Some(Frame::Define(_)) = frames.pop() {
                            stack.clear();
                        }
                    }
                    _ => {}
                }
            }
            start += line.len();
        }
        Template { lines }
    }
}

/// The `{{ … }}` actions of a template, as byte ranges; an unclosed one runs to the end.
pub(crate) fn action_ranges(text: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut at = 0;
    while let Some(open) = text[at..].find("{{") {
        let start = at + open;
        let end = match text[start + 2..].find("}}") {
            Some(close) => start + 2 + close + 2,
            None => text.len(),
        };
        ranges.push(start..end);
        at = end;
    }
    ranges
}

/// The text of an action without its delimiters and trim markers: `if .Values.x`.
pub(crate) fn action_body(action: &str) -> &str {
    let inner = action.strip_prefix("{{").unwrap_or(action);
    let inner = inner.strip_suffix("}}").unwrap_or(inner);
    let inner = inner.strip_prefix('-').unwrap_or(inner);
    let inner = inner.strip_suffix('-').unwrap_or(inner);
    inner.trim()
}

/// The line's text with its actions left out.
fn literal_text(text: &str, line: Range<usize>, actions: &[Range<usize>]) -> String {
    let mut literal = String::new();
    let mut at = line.start;
    for action in actions {
        if action.start > at {
            literal.push_str(&text[at..action.start]);
        }
        at = at.max(action.end);
    }
    if at < line.end {
        literal.push_str(&text[at..line.end]);
    }
    literal
}

/// The key of a line and its byte range, what follows it, and the column of the key (or of
/// the line's first text).
type KeyOfLine = (Option<(String, Range<usize>)>, Option<Range<usize>>, usize);

/// The literal key a line writes (`key:` or `- key:` before any action), what follows it, and
/// the column of the key or of the line's first text.
fn key_of(text: &str, line: Range<usize>, actions: &[Range<usize>]) -> KeyOfLine {
    let first_action = actions
        .first()
        .map_or(line.end, |a| a.start.max(line.start));
    let literal = &text[line.start..first_action.min(line.end)];
    let indent = literal.len() - literal.trim_start().len();
    let mut at = indent;
    // `- ` list item markers, possibly nested (`- - a`).
    while literal[at..].starts_with("- ") || literal[at..] == *"-" {
        at += 1;
        at += literal[at..].len() - literal[at..].trim_start().len();
    }
    let rest = &literal[at..];
    let (key, key_len) = match rest.chars().next() {
        Some(quote @ ('"' | '\'')) => match rest[1..].find(quote) {
            Some(close) => (rest[1..1 + close].to_owned(), close + 2),
            None => return (None, None, at),
        },
        _ => {
            let len = rest
                .find(|c: char| c == ':' || c == '#' || c.is_whitespace())
                .unwrap_or(rest.len());
            (rest[..len].to_owned(), len)
        }
    };
    let after = &rest[key_len..];
    let after_trimmed = after.trim_start_matches([' ', '\t']);
    let colon = after.len() - after_trimmed.len();
    let is_key = !key.is_empty()
        && after_trimmed.starts_with(':')
        && after_trimmed[1..]
            .chars()
            .next()
            .is_none_or(|c| c == ' ' || c == '\t')
        && !key.starts_with('#');
    // A key right before an action (`key:{{ … }}`) is still a key; `key: …` needs the colon
    // to end the literal text or be followed by a blank.
    let ends_at_action = first_action < line.end && at + key_len + colon + 1 == literal.len();
    if !(is_key || (ends_at_action && after_trimmed == ":")) {
        return (None, None, at);
    }
    let key_start = line.start + at;
    let key_range = key_start..key_start + key_len;
    let value_start = key_start + key_len + colon + 1;
    let value_text = &text[value_start.min(line.end)..line.end];
    let value_trimmed = value_text.trim_start();
    let value = (!value_trimmed.is_empty() && !value_trimmed.starts_with('#')).then(|| {
        let start = line.end - value_text.len() + (value_text.len() - value_trimmed.len());
        start..line.end - (value_trimmed.len() - value_trimmed.trim_end().len())
    });
    let key = if matches!(rest.chars().next(), Some('"' | '\'')) {
        key
    } else {
        key.trim_end().to_owned()
    };
    (Some((key, key_range)), value, at)
}

/// The values path of a simple reference in a pipeline: `.Values.a.b`, `$.Values.a.b`, or `.`
/// and `.a` inside `with .Values.…`, followed only by formatting (`quote`, `int`, `toYaml`,
/// `nindent 8`, …) or a fallback for when it is empty (`default 30`, `required "…"`, also
/// written `default 30 .Values.a`). Anything else that may change where the value comes from
/// (`tpl`, `include`, arithmetic) makes it not simple. With a fallback the value may be the
/// fallback's: whoever labels the values file checks that the file's value is what was rendered.
pub(crate) fn values_path(pipeline: &str, dot: &Dot) -> Option<Vec<String>> {
    const FORMATTING: [&str; 14] = [
        "quote",
        "squote",
        "int",
        "int64",
        "float64",
        "toString",
        "toYaml",
        "toJson",
        "nindent",
        "indent",
        "trim",
        "toPrettyJson",
        "toRawJson",
        "toYamlPretty",
    ];
    /// Functions whose last argument is the value unless it is empty.
    const FALLBACK: [&str; 2] = ["default", "required"];
    let mut stages = pipeline.split('|').map(str::trim);
    let first = stages.next()?;
    let mut words = first.split_whitespace();
    let mut head = words.next()?;
    if FALLBACK.contains(&head) {
        // `default 30 .Values.x`: the reference is the last argument.
        head = first.split_whitespace().last()?;
    } else {
        // `toYaml .Values.x` (a formatting function applied to the reference).
        if FORMATTING.contains(&head) {
            head = words.next()?;
        }
        if words.next().is_some() {
            return None;
        }
    }
    for stage in stages {
        let name = stage.split_whitespace().next().unwrap_or_default();
        if !FORMATTING.contains(&name) && !FALLBACK.contains(&name) {
            return None;
        }
    }
    reference(head, dot)
}

/// `.Values.a.b` → `[a, b]`; `.` and `.x` relative to a known `with`.
fn reference(word: &str, dot: &Dot) -> Option<Vec<String>> {
    let word = word.strip_prefix('$').unwrap_or(word);
    if let Some(rest) = word.strip_prefix(".Values") {
        if rest.is_empty() {
            return Some(Vec::new());
        }
        let rest = rest.strip_prefix('.')?;
        return fields(rest);
    }
    let Dot::Values(base) = dot else {
        return None;
    };
    if word == "." {
        return Some(base.clone());
    }
    let rest = word.strip_prefix('.')?;
    let mut path = base.clone();
    path.extend(fields(rest)?);
    Some(path)
}

fn fields(text: &str) -> Option<Vec<String>> {
    let fields: Vec<String> = text.split('.').map(str::to_owned).collect();
    fields
        .iter()
        .all(|f| {
            !f.is_empty()
                && f.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        })
        .then_some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "web.fullname" . }}
spec:
  template:
    spec:
      terminationGracePeriodSeconds: {{ .Values.grace }}
      containers:
        - name: app
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          {{- with .Values.lifecycle }}
          lifecycle:
            {{- toYaml . | nindent 12 }}
          {{- end }}
{{- define "x.labels" }}
app: web
tier:
  name: x
{{- end }}
"#;

    #[test]
    fn keys_paths_and_values() {
        let template = Template::parse(TEMPLATE);
        let line = |n: usize| &template.lines[n];
        assert_eq!(line(1).key.as_ref().unwrap().0, "kind");
        assert_eq!(line(3).path, ["metadata", "name"]);
        assert_eq!(
            line(7).path,
            ["spec", "template", "spec", "terminationGracePeriodSeconds"]
        );
        let value = line(7).value.clone().unwrap();
        assert_eq!(&TEMPLATE[value], "{{ .Values.grace }}");
        assert_eq!(
            line(9).path,
            ["spec", "template", "spec", "containers", "name"]
        );
        assert_eq!(line(9).column, 10);
        assert!(line(11).only_actions);
        assert_eq!(line(12).path.last().unwrap(), "lifecycle");
        assert_eq!(line(12).dot, Dot::Values(vec!["lifecycle".to_owned()]));
        let action = &TEMPLATE[line(13).actions[0].clone()];
        assert_eq!(
            values_path(action_body(action), &line(13).dot),
            Some(vec!["lifecycle".to_owned()])
        );
        assert_eq!(line(14).dot, Dot::Values(vec!["lifecycle".to_owned()]));
        assert_eq!(line(16).define.as_deref(), Some("x.labels"));
        assert_eq!(line(16).path, ["app"]);
        assert_eq!(line(18).path, ["tier", "name"]);
        assert_eq!(line(19).define.as_deref(), Some("x.labels"));
    }

    #[test]
    fn simple_references_only() {
        let root = Dot::Root;
        let v = |p: &str| values_path(p, &root);
        assert_eq!(v(".Values.a.b"), Some(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(v("$.Values.a | quote"), Some(vec!["a".to_owned()]));
        assert_eq!(
            v("toYaml .Values.a | nindent 8"),
            Some(vec!["a".to_owned()])
        );
        assert_eq!(v(".Values.a | default 30"), Some(vec!["a".to_owned()]));
        assert_eq!(
            v("default 30 .Values.a | quote"),
            Some(vec!["a".to_owned()])
        );
        assert_eq!(
            v("required \"set a\" .Values.a"),
            Some(vec!["a".to_owned()])
        );
        assert_eq!(
            v("default .Values.a 30"),
            None,
            "the fallback is the first argument"
        );
        assert_eq!(v("default 30"), None);
        assert_eq!(v("tpl .Values.a ."), None);
        assert_eq!(v("include \"x\" ."), None);
        assert_eq!(v("."), None);
        let with = Dot::Values(vec!["probe".to_owned()]);
        assert_eq!(
            values_path(".timeout | int", &with),
            Some(vec!["probe".to_owned(), "timeout".to_owned()])
        );
    }
}
