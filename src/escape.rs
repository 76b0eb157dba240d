//! Control characters out of human output.
//!
//! Keys, container names, values and file names come from the manifests of a pull request, and
//! human formats print them into terminals and CI logs. Printed raw, a newline starts a line of
//! the attacker's choosing (`::error::…` and `::stop-commands::…` are GitHub workflow commands),
//! and ESC, BEL or an 8-bit CSI starts a terminal sequence (colours, cursor moves, window titles,
//! OSC 8 links). Every human format — the `full` and `concise` reports, the JUnit and GitHub
//! texts, `explain`'s text and Mermaid, messages on stderr — writes such text through
//! `escape_controls` (or `escape_source` for source excerpts). Machine formats (JSON,
//! SARIF) keep the exact text; their encoders escape it. A new human output format must use
//! these helpers for every piece of text it did not write itself.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether a character must not reach a terminal or log as it is: the C0 and C1 control codes
/// and DEL (ESC, BEL, CSI, newlines, tabs…) and the invisible bidirectional-text controls,
/// which reorder what a reader sees ("Trojan Source", CVE-2021-42574), and the Unicode line and
/// paragraph separators.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// `text` with every [unsafe](is_unsafe) character written as an escape a reader can see:
/// `\n`, `\r`, `\t`, and `\u{1b}` for the others, as Rust writes them. Borrowed when there is
/// nothing to escape, which is nearly always.
pub(crate) fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            '\t' => escaped.push_str("\\t"),
            c if is_unsafe(c) => {
                let _ = write!(escaped, "\\u{{{:x}}}", c as u32);
            }
            c => escaped.push(c),
        }
    }
    Cow::Owned(escaped)
}

/// Source lines shown in a snippet, where lengths matter (labels underline byte ranges): tabs
/// and line breaks stay (a lone `\r` becomes `\n`, since it ends a line as YAML reads it), and
/// each other unsafe character becomes one `\u{FFFD}`. Returns the text and, for offsets into
/// the original, where they land in it ([`Remap::offset`]).
pub(crate) fn escape_source(text: &str) -> (Cow<'_, str>, Remap) {
    let bytes = text.as_bytes();
    let kept = |at: usize, c: char| match c {
        '\t' | '\n' => true,
        '\r' => bytes.get(at + 1) == Some(&b'\n'),
        c => !is_unsafe(c),
    };
    if text.char_indices().all(|(at, c)| kept(at, c)) {
        return (Cow::Borrowed(text), Remap::default());
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    let mut shifts = Vec::new();
    let mut shift = 0isize;
    for (at, c) in text.char_indices() {
        if c == '\r' && !kept(at, c) {
            escaped.push('\n');
        } else if !kept(at, c) {
            escaped.push(char::REPLACEMENT_CHARACTER);
            shift += char::REPLACEMENT_CHARACTER.len_utf8() as isize - c.len_utf8() as isize;
            shifts.push((at + c.len_utf8(), shift));
        } else {
            escaped.push(c);
        }
    }
    (Cow::Owned(escaped), Remap { shifts })
}

/// Where offsets into a text land after [`escape_source`].
#[derive(Debug, Default)]
pub(crate) struct Remap {
    /// From each offset just after a replaced character, the total shift so far.
    shifts: Vec<(usize, isize)>,
}

impl Remap {
    pub(crate) fn offset(&self, offset: usize) -> usize {
        let index = self.shifts.partition_point(|&(at, _)| at <= offset);
        match index.checked_sub(1) {
            Some(i) => offset.saturating_add_signed(self.shifts[i].1),
            None => offset,
        }
    }
}

/// A writer that escapes every [unsafe](is_unsafe) character but the line break, for outputs
/// written in many pieces where names from the manifest cannot be told from the writer's own
/// text (`explain`'s timeline and chart). A name's own line break still passes: such outputs
/// should also escape each name with [`escape_controls`].
pub(crate) struct ControlFilter<W> {
    inner: W,
    /// The start of a character cut between two writes.
    partial: Vec<u8>,
}

impl<W: std::io::Write> ControlFilter<W> {
    pub(crate) fn new(inner: W) -> ControlFilter<W> {
        ControlFilter {
            inner,
            partial: Vec::new(),
        }
    }
}

impl<W: std::io::Write> std::io::Write for ControlFilter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut bytes = std::mem::take(&mut self.partial);
        bytes.extend_from_slice(buf);
        let (text, rest) = match std::str::from_utf8(&bytes) {
            Ok(text) => (Cow::Borrowed(text), &[][..]),
            // An incomplete character at the end waits for the next write; bytes that are not
            // UTF-8 at all are replaced.
            Err(error) if error.error_len().is_none() => {
                let valid = error.valid_up_to();
                (String::from_utf8_lossy(&bytes[..valid]), &bytes[valid..])
            }
            Err(_) => (String::from_utf8_lossy(&bytes), &[][..]),
        };
        let mut escaped = String::with_capacity(text.len());
        for line in text.split_inclusive('\n') {
            let (body, end) = match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, ""),
            };
            escaped.push_str(&escape_controls(body));
            escaped.push_str(end);
        }
        self.inner.write_all(escaped.as_bytes())?;
        self.partial = rest.to_vec();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_become_visible_escapes() {
        assert_eq!(escape_controls("plain `name` é✓"), "plain `name` é✓");
        assert!(matches!(escape_controls("plain"), Cow::Borrowed(_)));
        assert_eq!(
            escape_controls("a\n::error::x\r\t\u{1b}[31m\u{7}\u{9b}\u{7f}"),
            "a\\n::error::x\\r\\t\\u{1b}[31m\\u{7}\\u{9b}\\u{7f}"
        );
        assert_eq!(
            escape_controls("admin\u{202e} \u{2066}x\u{2028}"),
            "admin\\u{202e} \\u{2066}x\\u{2028}"
        );
    }

    #[test]
    fn the_filter_escapes_all_but_line_breaks_across_writes() {
        use std::io::Write;
        let mut out = Vec::new();
        let mut filter = ControlFilter::new(&mut out);
        let text = "a\u{1b}[2J\u{202e}é\r\n✓\n";
        // Cut inside `é` and inside `✓`.
        let cut = text.find('é').unwrap() + 1;
        let cut2 = text.find('✓').unwrap() + 2;
        filter.write_all(&text.as_bytes()[..cut]).unwrap();
        filter.write_all(&text.as_bytes()[cut..cut2]).unwrap();
        filter.write_all(&text.as_bytes()[cut2..]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a\\u{1b}[2J\\u{202e}é\\r\n✓\n"
        );
    }

    #[test]
    fn source_lines_keep_their_offsets_mapped() {
        let line = "a: \u{1b}[31m\u{9b}b\tc\r\nd\re";
        let (escaped, remap) = escape_source(line);
        assert_eq!(escaped, "a: \u{fffd}[31m\u{fffd}b\tc\r\nd\ne");
        let b = line.find('b').unwrap();
        assert_eq!(&escaped[remap.offset(b)..remap.offset(b) + 1], "b");
        assert_eq!(remap.offset(0), 0);
        assert_eq!(remap.offset(line.len()), escaped.len());
        let (same, remap) = escape_source("a:\tb\r\n");
        assert!(matches!(same, Cow::Borrowed("a:\tb\r\n")));
        assert_eq!(remap.offset(3), 3);
    }
}
