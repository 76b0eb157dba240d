//! The language server's message handling: the input is read as the framed stream a client
//! sends (bounded headers and bodies, bad JSON answered), and the messages it holds are sent
//! to a server, after the handshake and before `shutdown` and `exit`. The server must answer
//! every request and end cleanly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use podcycle::lsp::{Ending, serve, transport};

fuzz_target!(|data: &[u8]| {
    // The framing, on the raw bytes.
    let (sender, receiver) = crossbeam_channel::unbounded();
    let mut answers = Vec::new();
    let _ = transport::read_messages(&mut &data[..], &sender, &mut answers);
    drop(sender);
    let messages: Vec<Message> = receiver
        .into_iter()
        .filter(|m| !matches!(m, Message::Notification(n) if n.method == "exit"))
        .filter(|m| !matches!(m, Message::Request(r) if r.method == "shutdown" || r.method == "initialize"))
        .take(32)
        .collect();

    let (server, client) = Connection::memory();
    let handle = std::thread::spawn(move || serve(&server).map_err(|e| e.to_string()));
    let initialize = serde_json::json!({"capabilities": {}, "rootUri": "file:///fuzz"});
    client
        .sender
        .send(Request::new(RequestId::from(0), "initialize".to_owned(), initialize).into())
        .unwrap();
    let _ = client.receiver.recv();
    client
        .sender
        .send(Notification::new("initialized".to_owned(), serde_json::json!({})).into())
        .unwrap();
    let mut requests = 0;
    for message in messages {
        if let Message::Request(request) = &message {
            if request.id == RequestId::from(-1) {
                continue;
            }
            requests += 1;
        }
        client.sender.send(message).unwrap();
    }
    client
        .sender
        .send(
            Request::new(
                RequestId::from(-1),
                "shutdown".to_owned(),
                serde_json::Value::Null,
            )
            .into(),
        )
        .unwrap();
    // Every request is answered before the shutdown is.
    let mut answered = 0;
    loop {
        match client.receiver.recv().expect("the server answers") {
            Message::Response(response) if response.id == RequestId::from(-1) => break,
            Message::Response(_) => answered += 1,
            Message::Request(request) => {
                let _ = client
                    .sender
                    .send(lsp_server::Response::new_ok(request.id, ()).into());
            }
            Message::Notification(_) => {}
        }
    }
    assert!(
        answered >= requests,
        "{answered} of {requests} requests answered"
    );
    client
        .sender
        .send(Notification::new("exit".to_owned(), serde_json::Value::Null).into())
        .unwrap();
    assert_eq!(handle.join().unwrap(), Ok(Ending::Clean));
});
