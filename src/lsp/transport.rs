//! The language server's framing over standard input and output: `Content-Length` headers and
//! JSON-RPC bodies, read with bounds.
//!
//! `lsp-server`'s own stdio transport allocates whatever `Content-Length` claims before reading
//! (one header of `Content-Length: 99999999999` asks for 100 GB) and ends the session on a body
//! that is not JSON without a word. Here a header line, the headers and a body each have a
//! limit; a body is read as it arrives rather than allocated up front; a body that is not JSON
//! is answered with the JSON-RPC parse error and one that is not a message with "invalid
//! request", and the session goes on. Only what leaves the stream unreadable (a header that is
//! not one, a body over the limit) ends it, with a message on standard error.

use std::fmt;
use std::io::{self, BufRead, Read, Write};
use std::thread;

use crossbeam_channel::{Receiver, Sender, bounded};
use lsp_server::{Connection, ErrorCode, Message};
use serde_json::{Value, json};

/// The largest body read: a document of the largest manifest podcycle reads, escaped as JSON.
pub(crate) const MAX_CONTENT_LENGTH: usize =
    2 * crate::safe_fs::FileKind::Manifest.max_bytes() as usize;
/// The longest header line, and the most header lines, of one message.
const MAX_HEADER_LINE: u64 = 4096;
const MAX_HEADERS: usize = 32;

/// Why a message could not be read.
#[derive(Debug)]
pub(crate) enum FrameError {
    /// The stream cannot be read further: a broken header, a body over the limit, I/O.
    Fatal(String),
    /// The body is not JSON: answered with a parse error; the next message can be read.
    Parse(String),
    /// The body is JSON but not a JSON-RPC message: answered with "invalid request".
    Invalid { id: Value, message: String },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Fatal(message) | FrameError::Parse(message) => f.write_str(message),
            FrameError::Invalid { message, .. } => f.write_str(message),
        }
    }
}

/// Reads one message; `Ok(None)` at the end of the input.
pub(crate) fn read_message(input: &mut dyn BufRead) -> Result<Option<Message>, FrameError> {
    let Some(body) = read_body(input)? else {
        return Ok(None);
    };
    let value: Value = serde_json::from_slice(&body)
        .map_err(|error| FrameError::Parse(format!("the message is not JSON: {error}")))?;
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    serde_json::from_value(value)
        .map(Some)
        .map_err(|error| FrameError::Invalid {
            id,
            message: format!(
                "the message is not a JSON-RPC request, response or notification: {error}"
            ),
        })
}

/// The body of the next frame, read up to the limit as it arrives.
fn read_body(input: &mut dyn BufRead) -> Result<Option<Vec<u8>>, FrameError> {
    let fatal = |message: String| FrameError::Fatal(message);
    let mut length = None;
    let mut headers = 0;
    loop {
        let mut line = Vec::new();
        let read = input
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)
            .map_err(|e| fatal(format!("cannot read a message header: {e}")))?;
        if read == 0 {
            if headers == 0 {
                return Ok(None);
            }
            return Err(fatal("the input ended inside a message header".to_owned()));
        }
        let Some(line) = line.strip_suffix(b"\r\n") else {
            return Err(fatal(format!(
                "a message header must end with CRLF and be at most {MAX_HEADER_LINE} bytes long"
            )));
        };
        if line.is_empty() {
            break;
        }
        headers += 1;
        if headers > MAX_HEADERS {
            return Err(fatal(format!(
                "a message has more than {MAX_HEADERS} header lines"
            )));
        }
        let line = String::from_utf8_lossy(line);
        let Some((name, value)) = line.split_once(':') else {
            return Err(fatal(format!(
                "malformed message header `{}`",
                shown(&line)
            )));
        };
        if name.trim().eq_ignore_ascii_case("Content-Length") {
            let value = value.trim();
            let parsed = value
                .parse::<u64>()
                .map_err(|_| fatal(format!("invalid Content-Length `{}`", shown(value))))?;
            if parsed > MAX_CONTENT_LENGTH as u64 {
                return Err(fatal(format!(
                    "a message of {parsed} bytes is over the limit of {} MiB",
                    MAX_CONTENT_LENGTH >> 20
                )));
            }
            length = Some(parsed);
        }
    }
    let length = length.ok_or_else(|| fatal("a message without Content-Length".to_owned()))?;
    let mut body = Vec::new();
    input
        .take(length)
        .read_to_end(&mut body)
        .map_err(|e| fatal(format!("cannot read a message: {e}")))?;
    if (body.len() as u64) < length {
        return Err(fatal("the input ended inside a message".to_owned()));
    }
    Ok(Some(body))
}

/// Header text for a message: its start, with control characters escaped.
fn shown(text: &str) -> String {
    const SHOWN: usize = 64;
    let mut shown: String = text.chars().take(SHOWN).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    crate::escape::escape_controls(&shown).into_owned()
}

/// Writes one frame: header and body together, then flushes.
pub(crate) fn write_frame(out: &mut dyn Write, body: &[u8]) -> io::Result<()> {
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(body);
    out.write_all(&frame)?;
    out.flush()
}

/// The error response for a message that could not be read (`id` is `null` when it is not
/// known), as JSON-RPC 2.0 §5.1 gives them.
pub(crate) fn error_response(error: &FrameError) -> Option<Vec<u8>> {
    let (code, id) = match error {
        FrameError::Fatal(_) => return None,
        FrameError::Parse(_) => (ErrorCode::ParseError, Value::Null),
        FrameError::Invalid { id, .. } => (ErrorCode::InvalidRequest, id.clone()),
    };
    let response = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code as i32, "message": error.to_string()},
    });
    serde_json::to_vec(&response).ok()
}

/// The threads that move messages between standard input and output and the connection.
pub(crate) struct IoThreads {
    reader: thread::JoinHandle<io::Result<()>>,
    writer: thread::JoinHandle<io::Result<()>>,
}

impl IoThreads {
    /// Waits for both threads; the reader's error first (it ended the session).
    pub(crate) fn join(self) -> io::Result<()> {
        let reader = self
            .reader
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the message reader stopped")));
        let writer = self
            .writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the message writer stopped")));
        reader.and(writer)
    }
}

/// A connection over standard input and output with the bounds above.
pub(crate) fn stdio() -> (Connection, IoThreads) {
    let (writer_sender, writer_receiver) = bounded::<Message>(0);
    let (reader_sender, reader_receiver) = bounded::<Message>(0);
    let writer = thread::Builder::new()
        .name("podcycle-lsp-writer".to_owned())
        .spawn(move || write_messages(&writer_receiver))
        .expect("a thread can be started");
    let reader = thread::Builder::new()
        .name("podcycle-lsp-reader".to_owned())
        .spawn(move || {
            let stdin = io::stdin();
            // `Stdout::write_all` holds the lock for the whole frame.
            read_messages(&mut stdin.lock(), &reader_sender, &mut io::stdout())
        })
        .expect("a thread can be started");
    let connection = Connection {
        sender: writer_sender,
        receiver: reader_receiver,
    };
    (connection, IoThreads { reader, writer })
}

fn write_messages(messages: &Receiver<Message>) -> io::Result<()> {
    for message in messages {
        let mut out = io::stdout().lock();
        write_message(&mut out, &message)?;
    }
    Ok(())
}

/// Writes a message as `lsp-server` does, with `"jsonrpc": "2.0"`.
pub(crate) fn write_message(out: &mut dyn Write, message: &Message) -> io::Result<()> {
    let mut body = Vec::new();
    message.write(&mut body)?;
    // `Message::write` frames the body itself; write it as it is.
    out.write_all(&body)?;
    out.flush()
}

/// Reads messages into `sender` until the input ends, the client says `exit`, or the stream
/// cannot be read further. Messages that cannot be read are answered on `out`, each frame in one
/// `write_all`, so that it never interleaves with the writer's.
pub fn read_messages(
    input: &mut dyn BufRead,
    sender: &Sender<Message>,
    out: &mut dyn Write,
) -> io::Result<()> {
    loop {
        match read_message(input) {
            Ok(None) => return Ok(()),
            Ok(Some(message)) => {
                let is_exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if sender.send(message).is_err() || is_exit {
                    return Ok(());
                }
            }
            Err(FrameError::Fatal(message)) => {
                let _ = writeln!(io::stderr(), "podcycle lsp: error: {message}");
                return Err(io::Error::new(io::ErrorKind::InvalidData, message));
            }
            Err(error) => {
                if let Some(response) = error_response(&error) {
                    write_frame(out, &response)?;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    fn read_all(input: &str) -> (Vec<Message>, String, io::Result<()>) {
        let (sender, receiver) = crossbeam_channel::unbounded();
        let mut out = Vec::new();
        let result = read_messages(&mut input.as_bytes(), &sender, &mut out);
        drop(sender);
        (
            receiver.into_iter().collect(),
            String::from_utf8(out).unwrap(),
            result,
        )
    }

    #[test]
    fn reads_messages_and_answers_bad_json_without_ending() {
        let input = [
            frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#),
            frame("{not json"),
            frame(r#"{"jsonrpc":"2.0","id":7,"nothing":true}"#),
            frame(r#"{"jsonrpc":"2.0","method":"exit"}"#),
        ]
        .concat();
        let (messages, out, result) = read_all(&input);
        assert!(result.is_ok());
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(out.contains(r#""code":-32700"#), "{out}");
        assert!(out.contains(r#""id":null"#), "{out}");
        assert!(out.contains(r#""code":-32600"#), "{out}");
        assert!(out.contains(r#""id":7"#), "{out}");
        assert!(out.starts_with("Content-Length: "), "{out}");
    }

    #[test]
    fn an_oversized_claim_ends_the_session_without_allocating() {
        let (messages, _, result) = read_all("Content-Length: 99999999999\r\n\r\n{}");
        assert!(messages.is_empty());
        let error = result.unwrap_err().to_string();
        assert!(error.contains("over the limit"), "{error}");
    }

    #[test]
    fn broken_headers_end_the_session_with_a_reason() {
        for (input, expected) in [
            ("Content-Length: 2\n\n{}", "CRLF"),
            ("Content-Type: x\r\n\r\n{}", "without Content-Length"),
            ("Content-Length: two\r\n\r\n{}", "invalid Content-Length"),
            ("Content-Length: 10\r\n\r\n{}", "ended inside a message"),
        ] {
            let (_, _, result) = read_all(input);
            let error = result.unwrap_err().to_string();
            assert!(error.contains(expected), "{input:?}: {error}");
        }
        let (_, _, result) = read_all(&format!(
            "Content-Length: 1\u{1b}{}\r\n\r\n",
            "9".repeat(500)
        ));
        let error = result.unwrap_err().to_string();
        assert!(
            error.len() < 200 && error.contains("1\\u{1b}999"),
            "{error}"
        );
        let endless_header = "X".repeat(10_000);
        let (_, _, result) = read_all(&endless_header);
        assert!(result.is_err());
    }
}
