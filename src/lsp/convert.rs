//! From podcycle's diagnostics (byte spans) to the protocol's (line and column in the
//! negotiated encoding), and back for positions the client sends.

use lsp_types::{
    ClientCapabilities, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Position, PositionEncodingKind, Range,
};

use crate::diagnostics::{Diagnostic, Severity};
use crate::rules::find_rule;
use crate::source::{LineIndex, Span, clamp_to_char_boundary};

/// What the server publishes as every diagnostic's `source`.
pub(crate) const SOURCE: &str = "podcycle";

/// How columns are counted. The protocol's default is UTF-16 code units; UTF-8 (bytes, what
/// podcycle's spans are in) is used only when the client lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    pub(crate) fn negotiate(capabilities: &ClientCapabilities) -> Encoding {
        let offered = capabilities
            .general
            .as_ref()
            .and_then(|general| general.position_encodings.as_deref())
            .unwrap_or_default();
        if offered.contains(&PositionEncodingKind::UTF8) {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        }
    }

    pub(crate) fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }
}

/// What the client can show, as far as diagnostics are concerned.
#[derive(Clone, Copy, Debug)]
pub struct ClientInfo {
    pub encoding: Encoding,
    /// The client shows `relatedInformation`; otherwise secondary labels go into the message.
    pub related_information: bool,
}

impl ClientInfo {
    pub(crate) fn new(capabilities: &ClientCapabilities) -> ClientInfo {
        ClientInfo {
            encoding: Encoding::negotiate(capabilities),
            related_information: capabilities
                .text_document
                .as_ref()
                .and_then(|t| t.publish_diagnostics.as_ref())
                .and_then(|p| p.related_information)
                .unwrap_or(false),
        }
    }
}

/// A document's text with its line index, to convert offsets and positions.
pub struct Text<'a> {
    pub text: &'a str,
    pub lines: &'a LineIndex,
    pub encoding: Encoding,
}

impl Text<'_> {
    pub(crate) fn position(&self, offset: usize) -> Position {
        let offset = clamp_to_char_boundary(self.text, offset);
        let (line, character) = match self.encoding {
            Encoding::Utf16 => self.lines.line_col_utf16(self.text, offset),
            Encoding::Utf8 => {
                let line = self.lines.line_of(offset);
                (line, offset - self.lines.line_start(line))
            }
        };
        Position::new(saturate(line), saturate(character))
    }

    pub(crate) fn range(&self, span: Span) -> Range {
        let range = span.range();
        Range::new(self.position(range.start), self.position(range.end))
    }

    /// The byte offset of a position; positions past a line's end or the text's end are
    /// clamped, as the protocol asks.
    pub(crate) fn offset(&self, position: Position) -> usize {
        let line = position.line as usize;
        let column = position.character as usize;
        match self.encoding {
            Encoding::Utf16 => self.lines.offset_utf16(self.text, line, column),
            Encoding::Utf8 => {
                if line >= self.lines.line_count() {
                    return self.text.len();
                }
                let start = self.lines.line_start(line);
                let end = self.lines.content_end(self.text, line);
                clamp_to_char_boundary(self.text, (start + column).min(end))
            }
        }
    }
}

/// The `file:` URI of a path (made absolute against the current directory).
pub(crate) fn file_uri(path: &str) -> Option<lsp_types::Uri> {
    let absolute = std::path::absolute(path).ok()?;
    let text = absolute.to_string_lossy().replace('\\', "/");
    let text = if text.starts_with('/') {
        text
    } else {
        format!("/{text}")
    };
    format!("file://{}", crate::report::percent_encode(&text))
        .parse()
        .ok()
}

fn saturate(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

pub(crate) fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// One diagnostic as the protocol has it: `code` is the rule, `codeDescription` links its
/// documentation, help and notes follow the message on lines of their own, and secondary
/// labels are related information (or lines of the message, for clients without it).
pub fn diagnostic(
    diagnostic: &Diagnostic,
    uri: &lsp_types::Uri,
    text: &Text<'_>,
    client: ClientInfo,
) -> lsp_types::Diagnostic {
    let mut message = diagnostic.message.clone();
    if let Some(help) = &diagnostic.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    for note in &crate::report::notes(diagnostic) {
        message.push_str("\nnote: ");
        message.push_str(note);
    }
    // A label in another file (a values file, a Kustomize base) is located in that file's text.
    let locate = |label: &crate::diagnostics::Label| -> Option<(lsp_types::Uri, Range, usize)> {
        match &label.file {
            None => Some((
                uri.clone(),
                text.range(label.span),
                text.position(label.span.start as usize).line as usize,
            )),
            Some(other) => {
                let other_text = Text {
                    text: &other.text,
                    lines: &other.lines,
                    encoding: text.encoding,
                };
                let other_uri = file_uri(&other.path)?;
                let range = other_text.range(label.span);
                Some((other_uri, range, range.start.line as usize))
            }
        }
    };
    let related = if client.related_information {
        let related: Vec<DiagnosticRelatedInformation> = diagnostic
            .labels
            .iter()
            .filter_map(|label| {
                let (uri, range, _) = locate(label)?;
                Some(DiagnosticRelatedInformation {
                    location: Location::new(uri, range),
                    message: label.message.clone(),
                })
            })
            .collect();
        (!related.is_empty()).then_some(related)
    } else {
        for label in &diagnostic.labels {
            let Some((_, _, line)) = locate(label) else {
                continue;
            };
            match &label.file {
                None => message.push_str(&format!("\nline {}: {}", line + 1, label.message)),
                Some(other) => {
                    message.push_str(&format!("\n{}:{}: {}", other.path, line + 1, label.message))
                }
            }
        }
        None
    };
    let code_description = find_rule(diagnostic.rule).and_then(|rule| {
        let href = rule.url().parse().ok()?;
        Some(lsp_types::CodeDescription { href })
    });
    lsp_types::Diagnostic {
        range: text.range(diagnostic.span),
        severity: Some(severity(diagnostic.severity)),
        code: Some(NumberOrString::String(diagnostic.rule.to_owned())),
        code_description,
        source: Some(SOURCE.to_owned()),
        message,
        related_information: related,
        tags: None,
        data: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip_in_both_encodings() {
        let text = "a: é✓\nb: 𝄞x\n";
        let lines = LineIndex::new(text);
        let x = text.find('x').unwrap();
        for (encoding, column) in [(Encoding::Utf16, 5), (Encoding::Utf8, 7)] {
            let converter = Text {
                text,
                lines: &lines,
                encoding,
            };
            assert_eq!(converter.position(x), Position::new(1, column));
            assert_eq!(converter.offset(Position::new(1, column)), x);
            assert_eq!(
                converter.offset(Position::new(0, 99)),
                text.find('\n').unwrap()
            );
            assert_eq!(converter.offset(Position::new(7, 0)), text.len());
        }
    }
}
