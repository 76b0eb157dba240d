//! Excerpts: a file cut down to the lines a report shows, so that a run over many files keeps
//! a few lines of each instead of every file whole. Offsets and line numbers stay those of
//! the whole file; each run of kept lines knows where it was.

use std::ops::{Range, RangeInclusive};

use super::{LineIndex, SourceFile, clamp_to_char_boundary};

/// Where the kept lines of an excerpt are in the whole file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Kept {
    /// Runs of consecutive kept lines, in order.
    runs: Vec<Run>,
    /// The length of the whole text.
    pub(super) len: usize,
    /// The number of lines of the whole text.
    pub(super) line_count: usize,
}

/// Whole lines `first_line..=last_line` of the file, line breaks included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    /// Offsets in the whole text: the start of the first line, and the start of the line after
    /// the last (or the end of the text).
    start: usize,
    end: usize,
    /// Where the run starts in the excerpt's text, and its first line there.
    text_start: usize,
    local_first_line: usize,
    first_line: usize,
    last_line: usize,
}

impl Run {
    fn local(&self, offset: usize) -> usize {
        self.text_start + (offset.clamp(self.start, self.end) - self.start)
    }

    fn whole(&self, local: usize) -> usize {
        self.start
            + local
                .saturating_sub(self.text_start)
                .min(self.end - self.start)
    }
}

pub(super) fn excerpt(
    file: &SourceFile,
    wanted: impl IntoIterator<Item = RangeInclusive<usize>>,
) -> SourceFile {
    let line_count = file.line_count();
    let mut ranges: Vec<(usize, usize)> = wanted
        .into_iter()
        .map(|r| (*r.start(), (*r.end()).min(line_count.saturating_sub(1))))
        .filter(|(first, last)| first <= last)
        .collect();
    // An excerpt of an excerpt: only the lines this one holds.
    if let Some(kept) = &file.kept {
        ranges = ranges
            .into_iter()
            .flat_map(|(first, last)| {
                kept.runs.iter().filter_map(move |run| {
                    let (first, last) = (first.max(run.first_line), last.min(run.last_line));
                    (first <= last).then_some((first, last))
                })
            })
            .collect();
    }
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (first, last) in ranges {
        match merged.last_mut() {
            Some((_, end)) if first <= *end + 1 => *end = (*end).max(last),
            _ => merged.push((first, last)),
        }
    }

    let mut text = String::new();
    let mut starts = Vec::new();
    let mut runs = Vec::with_capacity(merged.len());
    for (first, last) in merged {
        let start = file.line_start(first);
        let end = file.line_start(last + 1);
        let run = Run {
            start,
            end,
            text_start: text.len(),
            local_first_line: starts.len(),
            first_line: first,
            last_line: last,
        };
        starts.extend((first..=last).map(|line| run.local(file.line_start(line))));
        text.push_str(file.slice(start..end));
        runs.push(run);
    }
    // The line after the last kept one starts where the text ends, so that the last kept
    // line's end is found before its line break.
    if runs
        .last()
        .is_some_and(|run| run.last_line + 1 < line_count)
    {
        starts.push(text.len());
    }
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    SourceFile {
        path: file.path.clone(),
        os_path: file.os_path.clone(),
        text,
        lines: LineIndex { starts },
        kept: Some(Box::new(Kept {
            runs,
            len: file.len(),
            line_count,
        })),
    }
}

impl Kept {
    /// The run that holds `offset`, or the nearest one before it.
    fn run_at(&self, offset: usize) -> Option<&Run> {
        let index = self.runs.partition_point(|run| run.start <= offset);
        self.runs.get(index.saturating_sub(1))
    }

    /// The run that holds `line`, or the nearest one before it.
    fn run_of_line(&self, line: usize) -> Option<&Run> {
        let index = self.runs.partition_point(|run| run.first_line <= line);
        self.runs.get(index.saturating_sub(1))
    }

    /// The whole file's line of `offset`, and where `offset` is in the excerpt's text. An
    /// offset outside the kept lines is taken to the nearest kept place.
    pub(super) fn locate(&self, lines: &LineIndex, offset: usize) -> (usize, usize) {
        let Some(run) = self.run_at(offset) else {
            return (0, 0);
        };
        let local = run.local(offset);
        let local_lines = run.last_line - run.first_line;
        let local_line = lines
            .line_of(local)
            .clamp(run.local_first_line, run.local_first_line + local_lines);
        (run.first_line + (local_line - run.local_first_line), local)
    }

    pub(super) fn line_start(&self, lines: &LineIndex, line: usize) -> usize {
        if line >= self.line_count {
            return self.len;
        }
        match self.run_of_line(line) {
            Some(run) if line <= run.last_line => {
                run.whole(lines.line_start(run.local_first_line + line - run.first_line))
            }
            Some(run) if line >= run.first_line => run.end,
            Some(run) => run.start,
            None => 0,
        }
    }

    pub(super) fn content_end(&self, text: &str, lines: &LineIndex, line: usize) -> usize {
        match self.run_of_line(line) {
            Some(run) if (run.first_line..=run.last_line).contains(&line) => {
                run.whole(lines.content_end(text, run.local_first_line + line - run.first_line))
            }
            _ => self.line_start(lines, line),
        }
    }

    /// Where `range` is in the excerpt's text, when it lies within one run.
    pub(super) fn local_range(&self, range: Range<usize>) -> Option<Range<usize>> {
        let run = self.run_at(range.start)?;
        (range.start >= run.start && range.end <= run.end && range.start <= range.end)
            .then(|| run.local(range.start)..run.local(range.end))
    }

    pub(super) fn clamp_to_char_boundary(&self, text: &str, offset: usize) -> usize {
        match self.run_at(offset) {
            Some(run) => run.whole(clamp_to_char_boundary(text, run.local(offset))),
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::SourceFile;

    /// Every position in the kept lines reads the same in the excerpt as in the whole file.
    fn assert_agrees(whole: &SourceFile, kept: &[(usize, usize)]) {
        let excerpt = whole.excerpt(kept.iter().map(|&(a, b)| a..=b));
        assert!(excerpt.is_excerpt());
        assert_eq!(excerpt.len(), whole.len());
        assert_eq!(excerpt.line_count(), whole.line_count());
        for &(first, last) in kept {
            let last = last.min(whole.line_count() - 1);
            for line in first..=last {
                assert_eq!(
                    excerpt.line_start(line),
                    whole.line_start(line),
                    "line {line}"
                );
                assert_eq!(
                    excerpt.content_end(line),
                    whole.content_end(line),
                    "line {line}"
                );
                let (start, end) = (whole.line_start(line), whole.line_start(line + 1));
                assert_eq!(excerpt.slice(start..end), whole.slice(start..end));
                for offset in start..=end.min(whole.len()) {
                    if offset == end && end < whole.len() && !kept_line(kept, line + 1) {
                        continue;
                    }
                    assert_eq!(excerpt.line_of(offset), whole.line_of(offset), "{offset}");
                    assert_eq!(
                        excerpt.line_col(offset as u32),
                        whole.line_col(offset as u32),
                        "offset {offset}"
                    );
                    assert_eq!(
                        excerpt.clamp_to_char_boundary(offset),
                        whole.clamp_to_char_boundary(offset)
                    );
                }
            }
        }
    }

    fn kept_line(kept: &[(usize, usize)], line: usize) -> bool {
        kept.iter().any(|&(a, b)| (a..=b).contains(&line))
    }

    #[test]
    fn kept_lines_keep_their_positions() {
        let text = "a: 1\nbé: ✓2\r\nc: 3\rd: 𝄞4\n\ne: 5\nf: 6";
        let whole = SourceFile::new("t.yaml", text);
        assert_agrees(&whole, &[(1, 1)]);
        assert_agrees(&whole, &[(0, 0), (2, 3)]);
        assert_agrees(&whole, &[(3, 4), (1, 2), (6, 6)]);
        assert_agrees(&whole, &[(5, 99)]);
        assert_agrees(&whole, &[(0, 6)]);
    }

    #[test]
    fn an_excerpt_is_small_and_can_be_cut_again() {
        let text: String = (0..1000).map(|i| format!("line{i}: value\n")).collect();
        let whole = SourceFile::new("t.yaml", text);
        let excerpt = whole.excerpt([10..=11, 500..=500]);
        assert!(excerpt.text.len() < 60, "{}", excerpt.text.len());
        let at = whole.line_start(500) + 4;
        assert_eq!(excerpt.line_col(at as u32), whole.line_col(at as u32));
        let again = excerpt.excerpt([500..=500, 700..=700]);
        assert_eq!(again.line_col(at as u32), whole.line_col(at as u32));
        assert_eq!(
            again.slice(whole.line_start(700)..whole.line_start(701)),
            ""
        );
    }

    #[test]
    fn an_empty_excerpt_answers_without_panicking() {
        let whole = SourceFile::new("t.yaml", "a: 1\nb: 2\n");
        let excerpt = whole.excerpt([]);
        assert_eq!(excerpt.line_col(3).line, 1);
        assert_eq!(excerpt.slice(0..4), "");
        assert_eq!(excerpt.line_start(1), 0);
        let _ = excerpt.content_end(1);
    }
}
