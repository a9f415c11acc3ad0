//! The client against stand-in servers of each revision, each answering as the real ones do.

use std::cell::{Cell, RefCell};

use futures::executor::block_on;
use futures::{Stream, StreamExt};
use serde_json::{json, Value};

use super::*;
use crate::core::model::Secret;

/// A server written as a function of the posts it receives; it keeps every post it was sent.
struct Scripted<F: Fn(&Post, &Value) -> Result<Response, Unanswered>> {
    answer: F,
    posts: RefCell<Vec<(String, Post)>>,
}

impl<F: Fn(&Post, &Value) -> Result<Response, Unanswered>> Transport for Scripted<F> {
    fn send(&self, request: Request, _: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        assert_eq!(request.method, "POST");
        let post = Post { headers: request.headers, body: request.body.unwrap_or_default() };
        let body: Value = serde_json::from_str(&post.body).unwrap_or(Value::Null);
        let answer = (self.answer)(&post, &body);
        self.posts.borrow_mut().push((request.url, post));
        Box::pin(async move { answer })
    }
}

fn scripted<F: Fn(&Post, &Value) -> Result<Response, Unanswered>>(answer: F) -> Scripted<F> {
    Scripted { answer, posts: RefCell::new(Vec::new()) }
}

fn header<'a>(post: &'a Post, name: &str) -> Option<&'a str> {
    post.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

fn json_reply(body: &Value, result: Value) -> Result<Response, Unanswered> {
    Ok(Response {
        status: 200,
        content_type: Some("application/json".into()),
        session: None,
        body: json!({ "jsonrpc": "2.0", "id": body["id"], "result": result }).to_string(),
    })
}

fn tool(name: &str) -> Value {
    json!({ "name": name, "inputSchema": { "type": "object" } })
}

#[test]
fn a_modern_server_lists_every_page() {
    let server = scripted(|post, body| {
        assert_eq!(header(post, "MCP-Protocol-Version"), Some("2026-07-28"));
        match body["params"]["cursor"].as_str() {
            None => json_reply(body, json!({ "tools": [tool("a"), tool("b")], "nextCursor": "2" })),
            Some("2") => json_reply(body, json!({ "tools": [tool("c")] })),
            Some(other) => panic!("cursor {other}"),
        }
    });
    let tools = block_on(Client::new(&server, "http://s/mcp", None).list_tools()).unwrap();
    assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
}

#[test]
fn a_server_that_repeats_its_cursor_is_read_once() {
    let server = scripted(|_, body| json_reply(body, json!({ "tools": [tool("a")], "nextCursor": "same" })));
    let tools = block_on(Client::new(&server, "http://s/mcp", None).list_tools()).unwrap();
    assert_eq!(tools.len(), 2);
    assert_eq!(server.posts.borrow().len(), 2);
}

/// A server of 2025 revisions: it refuses what comes before `initialize`, gives a session, and
/// forgets it once, as a restarted server does.
#[test]
fn an_older_server_gets_the_handshake_and_again_when_its_session_is_gone() {
    let sessions = RefCell::new(0);
    let uses = RefCell::new(0);
    let use_of_first_session = || {
        *uses.borrow_mut() += 1;
        *uses.borrow()
    };
    let server = scripted(|post, body| {
        let method = body["method"].as_str().unwrap_or("");
        let refuse = |status: u16| {
            Ok(Response {
                status,
                content_type: Some("application/json".into()),
                session: None,
                body: json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32000, "message": "Bad Request: No valid session ID provided" } }).to_string(),
            })
        };
        match method {
            "initialize" => {
                *sessions.borrow_mut() += 1;
                let mut r =
                    json_reply(body, json!({ "protocolVersion": "2025-06-18", "capabilities": { "tools": {} } }))?;
                r.session = Some(format!("s{}", sessions.borrow()));
                Ok(r)
            }
            "notifications/initialized" => Ok(Response { status: 202, ..Response::default() }),
            _ => match header(post, "Mcp-Session-Id") {
                None => refuse(400),
                Some("s1") if use_of_first_session() == 2 => refuse(404),
                Some(_) => Ok(Response {
                    status: 200,
                    content_type: Some("text/event-stream".into()),
                    session: None,
                    body: format!(
                        "event: message\ndata: {}\n\n",
                        json!({ "jsonrpc": "2.0", "id": body["id"], "result": { "content": [{ "type": "text", "text": "hello" }] } })
                    ),
                }),
            },
        }
    });
    let client = Client::new(&server, "http://s/mcp", None);
    let answered = block_on(client.call_tool("echo", &json!({ "message": "hello" }), 5)).unwrap();
    assert_eq!(answered.text, "hello");
    assert_eq!(*sessions.borrow(), 1);
    // The session is forgotten: one more handshake, and the call goes through.
    assert_eq!(block_on(client.call_tool("echo", &json!({}), 5)).unwrap().text, "hello");
    assert_eq!(*sessions.borrow(), 2);
    let posts = server.posts.borrow();
    let last = &posts.last().unwrap().1;
    assert_eq!(
        (header(last, "Mcp-Session-Id"), header(last, "MCP-Protocol-Version")),
        (Some("s2"), Some("2025-06-18"))
    );
}

#[test]
fn failures_say_why_and_never_the_credential() {
    let credential = Credential {
        secret: Secret("s3cret".into()),
        place: Place::Header { name: "Authorization".into(), scheme: Some("Bearer".into()) },
    };
    let refused = scripted(|post, _| {
        assert_eq!(header(post, "Authorization"), Some("Bearer s3cret"));
        Ok(Response { status: 401, body: "no".into(), ..Response::default() })
    });
    let f = block_on(Client::new(&refused, "http://s/mcp", Some(&credential)).list_tools()).unwrap_err();
    assert_eq!(f.because, Because::KeyRefused);
    assert!(!f.detail.contains("s3cret"));
    let slow = scripted(|_, _| Err(Unanswered::Timeout));
    let f = block_on(Client::new(&slow, "http://s/mcp", None).call_tool("slow", &json!({}), 3)).unwrap_err();
    assert_eq!((f.because, f.detail.as_str()), (Because::Unreachable, "it gave no answer within 3 seconds"));
    let limited = scripted(|_, _| Ok(Response { status: 429, ..Response::default() }));
    assert_eq!(
        block_on(Client::new(&limited, "http://s/mcp", None).list_tools()).unwrap_err().because,
        Because::RateLimited
    );
    let garbage = scripted(|_, _| Ok(Response { status: 200, body: "<html>".into(), ..Response::default() }));
    assert_eq!(
        block_on(Client::new(&garbage, "http://s/mcp", None).list_tools()).unwrap_err().because,
        Because::Failing
    );
}

#[test]
fn a_tool_error_is_an_answer_and_a_protocol_error_is_not() {
    let server = scripted(|_, body| match body["params"]["name"].as_str() {
        Some("read_text_file") => json_reply(
            body,
            json!({ "content": [{ "type": "text", "text": "ENOENT: no such file or directory" }], "isError": true }),
        ),
        _ => Ok(Response {
            status: 200,
            content_type: Some("application/json".into()),
            session: None,
            body: json!({ "jsonrpc": "2.0", "id": body["id"], "error": { "code": -32602, "message": "Unknown tool" } })
                .to_string(),
        }),
    });
    let client = Client::new(&server, "http://s/mcp", None);
    assert!(block_on(client.call_tool("read_text_file", &json!({ "path": "gone.txt" }), 5)).unwrap().is_error);
    let f = block_on(client.call_tool("nope", &json!({}), 5)).unwrap_err();
    assert_eq!((f.because, f.detail.as_str()), (Because::Failing, "it answered the error -32602: Unknown tool"));
}

#[test]
fn a_credential_in_the_query_is_encoded_into_the_address() {
    let credential = Credential { secret: Secret("a b&c".into()), place: Place::Query { name: "key".into() } };
    let server = scripted(|_, body| json_reply(body, json!({ "tools": [] })));
    block_on(Client::new(&server, "http://s/mcp?x=1", Some(&credential)).list_tools()).unwrap();
    assert_eq!(server.posts.borrow()[0].0, "http://s/mcp?x=1&key=a%20b%26c");
    // A fetch that fails may say the address it was given; the secret in it is not repeated.
    let down =
        scripted(|_, _| Err(Unanswered::Unreachable("Network error fetching http://s/mcp?key=a%20b%26c".into())));
    let f = block_on(Client::new(&down, "http://s/mcp", Some(&credential)).list_tools()).unwrap_err();
    assert_eq!(f.detail, "it could not be reached: Network error fetching http://s/mcp?key=[hidden]");
}

#[test]
fn a_client_speaking_a_settled_revision_skips_the_handshake() {
    let handshakes = RefCell::new(0);
    let server = scripted(|post, body| match body["method"].as_str().unwrap_or("") {
        "initialize" => {
            *handshakes.borrow_mut() += 1;
            let mut r = json_reply(body, json!({ "protocolVersion": "2025-06-18", "capabilities": {} }))?;
            r.session = Some("s1".into());
            Ok(r)
        }
        "notifications/initialized" => Ok(Response { status: 202, ..Response::default() }),
        _ if header(post, "Mcp-Session-Id") == Some("s1") => {
            json_reply(body, json!({ "content": [{ "type": "text", "text": "hi" }] }))
        }
        _ => Ok(Response { status: 400, ..Response::default() }),
    });
    let first = Client::new(&server, "http://s/mcp", None);
    block_on(first.call_tool("echo", &json!({}), 5)).unwrap();
    let settled = first.era();
    assert!(matches!(&settled, Some(Era::Legacy { session: Some(s), .. }) if s == "s1"), "{settled:?}");
    let before = server.posts.borrow().len();
    let second = Client::new(&server, "http://s/mcp", None).speaking(settled);
    assert_eq!(block_on(second.call_tool("echo", &json!({}), 5)).unwrap().text, "hi");
    assert_eq!(*handshakes.borrow(), 1, "the second client speaks the first's session");
    assert_eq!(server.posts.borrow().len(), before + 1, "one post: the call itself");
}

/// A body of `chunks` chunks of 1 KiB, counting the chunks read; `None` goes on without end.
fn chunked(chunks: Option<usize>, read: &Cell<usize>) -> impl Stream<Item = Result<Vec<u8>, String>> + '_ {
    futures::stream::repeat_with(move || {
        read.set(read.get() + 1);
        Ok(vec![b'x'; 1024])
    })
    .take(chunks.unwrap_or(usize::MAX))
}

#[test]
fn an_answer_is_read_within_its_bound_and_no_further() {
    let read = Cell::new(0);
    assert_eq!(
        block_on(read_within(chunked(Some(4), &read), 4096)).unwrap().len(),
        4096,
        "a body of the bound is read whole"
    );
    let read = Cell::new(0);
    let over = block_on(read_within(chunked(None, &read), 4096)).unwrap_err();
    assert_eq!(over, Unanswered::Unreachable("its answer is over 4096 bytes".into()));
    assert_eq!(read.get(), 5, "a body without end is given up at the chunk past the bound");
    let broken = futures::stream::iter(vec![Ok(vec![b'x'; 10]), Err("Network connection lost".to_string())]);
    assert_eq!(
        block_on(read_within(broken, 4096)).unwrap_err(),
        Unanswered::Unreachable("Network connection lost".into())
    );
}
