//! Source files, byte spans and the line index that turns offsets into lines and columns.

mod excerpt;

use std::ops::{Range, RangeInclusive};

use excerpt::Kept;

/// A byte range in a source file. `u32` keeps the YAML tree small; files are read with a cap far
/// below 4 GiB (`crate::safe_fs::FileKind::max_bytes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: saturate(start),
            end: saturate(end.max(start)),
        }
    }

    pub(crate) fn empty(at: usize) -> Span {
        Span::new(at, at)
    }

    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    pub(crate) fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The smallest span covering both.
    pub(crate) fn cover(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

fn saturate(offset: usize) -> u32 {
    u32::try_from(offset).unwrap_or(u32::MAX)
}

/// A file's text with its line index.
///
/// A report keeps only the lines its findings show: `SourceFile::excerpt` makes a file of
/// those lines, whose `text` and `lines` are the kept lines back to back. Read positions and
/// text through the methods ([`SourceFile::line_col`], `SourceFile::line_of`,
/// `SourceFile::slice`, ...), which take and give offsets and lines of the whole file either
/// way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The path as the user gave it (or `-` / `--stdin-filename` for standard input).
    pub path: String,
    /// The path's bytes when they are not UTF-8, so that `path` is only an approximation
    /// (with U+FFFD): URIs are made from these instead.
    pub(crate) os_path: Option<std::path::PathBuf>,
    pub text: String,
    pub(crate) lines: LineIndex,
    /// Where the kept lines of an excerpt are in the whole file; `None` for a whole file.
    kept: Option<Box<Kept>>,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let lines = LineIndex::new(&text);
        SourceFile {
            path: path.into(),
            os_path: None,
            text,
            lines,
            kept: None,
        }
    }

    /// Remembers the path as the operating system gave it, when it is not UTF-8.
    pub(crate) fn set_os_path(&mut self, path: &std::path::Path) {
        self.os_path = path.to_str().is_none().then(|| path.to_owned());
    }

    /// The bytes of the path for a URI: the operating system's when they are not UTF-8.
    pub(crate) fn uri_path_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        match &self.os_path {
            #[cfg(unix)]
            Some(path) => {
                use std::os::unix::ffi::OsStrExt;
                let path = path.as_os_str().as_bytes();
                std::borrow::Cow::Owned(path.strip_prefix(b"./").unwrap_or(path).to_vec())
            }
            _ => std::borrow::Cow::Borrowed(self.path.as_bytes()),
        }
    }

    /// 1-based line and 1-based column in Unicode characters.
    pub fn line_col(&self, offset: u32) -> LineCol {
        let Some(kept) = &self.kept else {
            return self.lines.line_col(&self.text, offset as usize);
        };
        let (line, local) = kept.locate(&self.lines, offset as usize);
        let local = clamp_to_char_boundary(&self.text, local);
        let start = self.lines.line_start(self.lines.line_of(local)).min(local);
        LineCol {
            line: line + 1,
            column: self.text[start..local].chars().count() + 1,
        }
    }

    /// The 0-based line that holds `offset`.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        match &self.kept {
            None => self.lines.line_of(offset),
            Some(kept) => kept.locate(&self.lines, offset).0,
        }
    }

    /// The offset where a 0-based line starts (the end of the text past the last line).
    pub(crate) fn line_start(&self, line: usize) -> usize {
        match &self.kept {
            None if line >= self.lines.line_count() => self.text.len(),
            None => self.lines.line_start(line),
            Some(kept) => kept.line_start(&self.lines, line),
        }
    }

    /// Where a line's text ends: before its line break, or at the end of the text.
    pub(crate) fn content_end(&self, line: usize) -> usize {
        match &self.kept {
            None => self.lines.content_end(&self.text, line),
            Some(kept) => kept.content_end(&self.text, &self.lines, line),
        }
    }

    /// How many lines the whole file has.
    pub(crate) fn line_count(&self) -> usize {
        match &self.kept {
            None => self.lines.line_count(),
            Some(kept) => kept.line_count,
        }
    }

    /// The length of the whole file's text.
    pub(crate) fn len(&self) -> usize {
        match &self.kept {
            None => self.text.len(),
            Some(kept) => kept.len,
        }
    }

    /// The text between two offsets, moved onto character boundaries. In an excerpt, both
    /// ends must be in the same run of kept lines; otherwise the text is empty.
    pub(crate) fn slice(&self, range: Range<usize>) -> &str {
        let (start, end) = match &self.kept {
            None => (range.start, range.end),
            Some(kept) => match kept.local_range(range) {
                Some(local) => (local.start, local.end),
                None => return "",
            },
        };
        let start = clamp_to_char_boundary(&self.text, start);
        let end = clamp_to_char_boundary(&self.text, end).max(start);
        &self.text[start..end]
    }

    /// Moves an offset back onto a character boundary, and into the text.
    pub(crate) fn clamp_to_char_boundary(&self, offset: usize) -> usize {
        match &self.kept {
            None => clamp_to_char_boundary(&self.text, offset),
            Some(kept) => kept.clamp_to_char_boundary(&self.text, offset),
        }
    }

    /// Whether this holds only some lines of its file (see `SourceFile::excerpt`).
    pub fn is_excerpt(&self) -> bool {
        self.kept.is_some()
    }

    /// A copy holding only the given lines (0-based, of the whole file), for a report that
    /// shows those lines and no others: positions in them read as in the whole file. Lines
    /// past the end are left out; so are lines this file does not hold itself.
    pub(crate) fn excerpt(
        &self,
        lines: impl IntoIterator<Item = RangeInclusive<usize>>,
    ) -> SourceFile {
        excerpt::excerpt(self, lines)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// Byte offsets of line starts. A line ends at `\n`, `\r\n` or a lone `\r`, as YAML reads
/// line breaks (YAML 1.2 §5.4) and as the Language Server Protocol counts lines: with a lone
/// `\r` counted otherwise, every finding of a file saved with old Mac line ends would land on
/// line 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        // Sized once: a growing vector would hold up to twice the lines, and three times while
        // it grows, which on a large file is a good part of the memory a run takes.
        let mut starts = Vec::with_capacity(line_starts(text).count() + 1);
        starts.push(0);
        starts.extend(line_starts(text));
        LineIndex { starts }
    }

    /// The 0-based line that holds `offset`.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset) - 1
    }

    pub(crate) fn line_start(&self, line: usize) -> usize {
        self.starts[line.min(self.starts.len() - 1)]
    }

    pub(crate) fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// 1-based line and column; the column counts Unicode characters.
    pub(crate) fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let offset = clamp_to_char_boundary(text, offset);
        let line = self.line_of(offset);
        let start = self.starts[line];
        let column = text[start..offset].chars().count() + 1;
        LineCol {
            line: line + 1,
            column,
        }
    }

    /// 0-based line and column in UTF-16 code units, as the Language Server Protocol counts.
    pub(crate) fn line_col_utf16(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = clamp_to_char_boundary(text, offset);
        let line = self.line_of(offset);
        let start = self.starts[line];
        let column = text[start..offset].encode_utf16().count();
        (line, column)
    }

    /// The byte offset of a 0-based line and UTF-16 column: the reverse of
    /// [`LineIndex::line_col_utf16`]. A column past the end of the line means its end (before the
    /// newline), a line past the end of the text means the end of the text, and a column inside
    /// a surrogate pair means the start of that character.
    pub(crate) fn offset_utf16(&self, text: &str, line: usize, column: usize) -> usize {
        let Some(&start) = self.starts.get(line) else {
            return text.len();
        };
        let mut units = 0;
        for (at, c) in text[start..self.content_end(text, line)].char_indices() {
            units += c.len_utf16();
            if units > column {
                return start + at;
            }
        }
        self.content_end(text, line)
    }

    /// Where a line's text ends: before its `\n`, `\r\n` or `\r`, or at the end of the text.
    pub(crate) fn content_end(&self, text: &str, line: usize) -> usize {
        let Some(&next) = self.starts.get(line + 1) else {
            return text.len();
        };
        let bytes = text.as_bytes();
        // `next - 1` is the `\n` or the lone `\r` that ends the line.
        let end = next - 1;
        let start = self.line_start(line);
        if bytes[end] == b'\n' && end > start && bytes[end - 1] == b'\r' {
            end - 1
        } else {
            end
        }
    }
}

/// The offsets just after each line break: `\n`, and `\r` unless a `\n` follows it. Found with
/// `memchr`, many bytes at a time: every file is indexed once, so this is a pass over the whole
/// input.
fn line_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    memchr::memchr2_iter(b'\n', b'\r', bytes)
        .filter(move |&i| bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'))
        .map(|i| i + 1)
}

/// Moves an offset back onto a character boundary (and into the text).
pub(crate) fn clamp_to_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_and_utf16_units() {
        let text = "a: é✓\nb: 𝄞x\n";
        let file = SourceFile::new("t.yaml", text);
        let x = text.find('x').unwrap();
        assert_eq!(file.line_col(x as u32), LineCol { line: 2, column: 5 });
        assert_eq!(file.lines.line_col_utf16(text, x), (1, 5));
        let check = text.find('✓').unwrap();
        assert_eq!(file.line_col(check as u32), LineCol { line: 1, column: 5 });
    }

    #[test]
    fn utf16_positions_convert_back_to_offsets() {
        let text = "a: é✓\r\nb: 𝄞x\n";
        let lines = LineIndex::new(text);
        for (offset, _) in text.char_indices().filter(|&(_, c)| c != '\n') {
            let (line, column) = lines.line_col_utf16(text, offset);
            assert_eq!(lines.offset_utf16(text, line, column), offset, "{offset}");
        }
        let x = text.find('x').unwrap();
        // Inside the surrogate pair of 𝄞: the start of the character.
        assert_eq!(lines.offset_utf16(text, 1, 4), x - 4);
        // Past the end of a line: before its line break.
        assert_eq!(lines.offset_utf16(text, 0, 99), text.find('\r').unwrap());
        assert_eq!(lines.offset_utf16(text, 9, 0), text.len());
        assert_eq!(lines.offset_utf16(text, 2, 0), text.len());
    }

    #[test]
    fn lone_carriage_returns_end_lines_as_in_yaml() {
        let text = "a: 1\rb: 2\r\nc: 3\nd: 4\r\re";
        let file = SourceFile::new("t.yaml", text);
        let at = |needle: &str| file.line_col(text.find(needle).unwrap() as u32);
        assert_eq!(at("b"), LineCol { line: 2, column: 1 });
        assert_eq!(at("c"), LineCol { line: 3, column: 1 });
        assert_eq!(at("d"), LineCol { line: 4, column: 1 });
        assert_eq!(at("e"), LineCol { line: 6, column: 1 });
        let lines = &file.lines;
        let content = |line: usize| &text[lines.line_start(line)..lines.content_end(text, line)];
        let all: Vec<&str> = (0..lines.line_count()).map(content).collect();
        assert_eq!(all, ["a: 1", "b: 2", "c: 3", "d: 4", "", "e"]);
    }

    #[test]
    fn offsets_at_the_end_and_inside_characters_are_clamped() {
        let text = "é";
        let file = SourceFile::new("t.yaml", text);
        assert_eq!(file.line_col(1), LineCol { line: 1, column: 1 });
        assert_eq!(file.line_col(99), LineCol { line: 1, column: 2 });
    }
}
