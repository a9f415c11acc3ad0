//! The client against stand-in servers of each revision, each answering as the real ones do.

use std::cell::{Cell, RefCell};

use futures::executor::block_on;
use futures::{Stream, StreamExt};
use serde_json::{json, Value};

use super::*;
use crate::core::model::Secret;

/// A server written as a function of the requests it receives (a GET as a post of no body); it
/// keeps every request it was sent, with its method, and has a clock that its pauses move on.
struct Scripted<F: Fn(&Post, &Value) -> Result<Response, Unanswered>> {
    answer: F,
    posts: RefCell<Vec<(String, Post)>>,
    methods: RefCell<Vec<&'static str>>,
    pauses: RefCell<Vec<u64>>,
    clock: Cell<u64>,
}

impl<F: Fn(&Post, &Value) -> Result<Response, Unanswered>> Transport for Scripted<F> {
    fn send(&self, request: Request, _: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        let post = Post { headers: request.headers, body: request.body.unwrap_or_default() };
        let body: Value = serde_json::from_str(&post.body).unwrap_or(Value::Null);
        let answer = (self.answer)(&post, &body);
        self.posts.borrow_mut().push((request.url, post));
        self.methods.borrow_mut().push(request.method);
        Box::pin(async move { answer })
    }

    fn pause(&self, ms: u64) -> LocalBoxFuture<'_, ()> {
        self.pauses.borrow_mut().push(ms);
        self.clock.set(self.clock.get() + ms);
        Box::pin(async {})
    }

    fn now_ms(&self) -> u64 {
        self.clock.get()
    }
}

fn scripted<F: Fn(&Post, &Value) -> Result<Response, Unanswered>>(answer: F) -> Scripted<F> {
    Scripted {
        answer,
        posts: RefCell::new(Vec::new()),
        methods: RefCell::new(Vec::new()),
        pauses: RefCell::new(Vec::new()),
        clock: Cell::new(1_000_000),
    }
}

fn header<'a>(post: &'a Post, name: &str) -> Option<&'a str> {
    post.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

fn json_reply(body: &Value, result: Value) -> Result<Response, Unanswered> {
    Ok(Response {
        status: 200,
        content_type: Some("application/json".into()),
        session: None,
        www_authenticate: None,
        body: json!({ "jsonrpc": "2.0", "id": body["id"], "result": result }).to_string(),
    })
}

/// A 2026-07-28 server: it answers `server/discover` with its revision, and the rest as `answer` does.
fn modern<F: Fn(&Post, &Value) -> Result<Response, Unanswered>>(
    answer: F,
) -> Scripted<impl Fn(&Post, &Value) -> Result<Response, Unanswered>> {
    scripted(move |post, body| {
        if body["method"] == "server/discover" {
            json_reply(body, json!({ "supportedVersions": ["2026-07-28"], "capabilities": { "tools": {} } }))
        } else {
            answer(post, body)
        }
    })
}

/// The methods of the posts a server was sent, in order.
fn methods<F: Fn(&Post, &Value) -> Result<Response, Unanswered>>(server: &Scripted<F>) -> Vec<String> {
    server
        .posts
        .borrow()
        .iter()
        .map(|(_, p)| {
            serde_json::from_str::<Value>(&p.body).unwrap_or_default()["method"].as_str().unwrap_or("").to_string()
        })
        .collect()
}

fn tool(name: &str) -> Value {
    json!({ "name": name, "inputSchema": { "type": "object" } })
}

#[test]
fn a_modern_server_lists_every_page() {
    let server = modern(|post, body| {
        assert_eq!(header(post, "MCP-Protocol-Version"), Some("2026-07-28"));
        match body["params"]["cursor"].as_str() {
            None => json_reply(body, json!({ "tools": [tool("a"), tool("b")], "nextCursor": "2" })),
            Some("2") => json_reply(body, json!({ "tools": [tool("c")] })),
            Some(other) => panic!("cursor {other}"),
        }
    });
    let tools = block_on(Client::new(&server, "http://s/mcp", None).list_tools()).unwrap();
    assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(methods(&server), ["server/discover", "tools/list", "tools/list"]);
}

#[test]
fn a_server_that_repeats_its_cursor_is_read_once() {
    let server = modern(|_, body| json_reply(body, json!({ "tools": [tool("a")], "nextCursor": "same" })));
    let tools = block_on(Client::new(&server, "http://s/mcp", None).list_tools()).unwrap();
    assert_eq!(tools.len(), 2);
    assert_eq!(methods(&server), ["server/discover", "tools/list", "tools/list"]);
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
                www_authenticate: None,
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
                    www_authenticate: None,
                    body: format!(
                        "event: message\ndata: {}\n\n",
                        json!({ "jsonrpc": "2.0", "id": body["id"], "result": { "content": [{ "type": "text", "text": "hello" }] } })
                    ),
                }),
            },
        }
    });
    let client = Client::new(&server, "http://s/mcp", None);
    let answered = block_on(client.call_tool("echo", &json!({ "message": "hello" }), &json!({}), 5)).unwrap();
    assert_eq!(answered.text, "hello");
    assert_eq!(*sessions.borrow(), 1);
    // The session is forgotten: one more handshake, and the call goes through.
    assert_eq!(block_on(client.call_tool("echo", &json!({}), &json!({}), 5)).unwrap().text, "hello");
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
    let f =
        block_on(Client::new(&slow, "http://s/mcp", None).call_tool("slow", &json!({}), &json!({}), 3)).unwrap_err();
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
    let server = modern(|_, body| match body["params"]["name"].as_str() {
        Some("read_text_file") => json_reply(
            body,
            json!({ "content": [{ "type": "text", "text": "ENOENT: no such file or directory" }], "isError": true }),
        ),
        _ => Ok(Response {
            status: 200,
            content_type: Some("application/json".into()),
            session: None,
            www_authenticate: None,
            body: json!({ "jsonrpc": "2.0", "id": body["id"], "error": { "code": -32602, "message": "Unknown tool" } })
                .to_string(),
        }),
    });
    let client = Client::new(&server, "http://s/mcp", None);
    assert!(
        block_on(client.call_tool("read_text_file", &json!({ "path": "gone.txt" }), &json!({}), 5)).unwrap().is_error
    );
    let f = block_on(client.call_tool("nope", &json!({}), &json!({}), 5)).unwrap_err();
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
    block_on(first.call_tool("echo", &json!({}), &json!({}), 5)).unwrap();
    let settled = first.era();
    assert!(matches!(&settled, Some(Era::Legacy { session: Some(s), .. }) if s == "s1"), "{settled:?}");
    let before = server.posts.borrow().len();
    let second = Client::new(&server, "http://s/mcp", None).speaking(settled);
    assert_eq!(block_on(second.call_tool("echo", &json!({}), &json!({}), 5)).unwrap().text, "hi");
    assert_eq!(*handshakes.borrow(), 1, "the second client speaks the first's session");
    assert_eq!(server.posts.borrow().len(), before + 1, "one post: the call itself");
}

/// The conformance suite's request-metadata server: it refuses the first request with -32022
/// while naming 2026-07-28, then serves it.
#[test]
fn a_refusal_that_names_the_revision_is_asked_again_once() {
    let refused = Cell::new(false);
    let server = scripted(|post, body| {
        assert_eq!(header(post, "MCP-Protocol-Version"), Some("2026-07-28"));
        assert_eq!(body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
        if !refused.replace(true) {
            let error = json!({ "code": -32022, "message": "Unsupported protocol version",
                                "data": { "supported": ["2026-07-28"], "requested": "2026-07-28" } });
            return Ok(Response {
                status: 400,
                content_type: Some("application/json".into()),
                session: None,
                www_authenticate: None,
                body: json!({ "jsonrpc": "2.0", "id": body["id"], "error": error }).to_string(),
            });
        }
        match body["method"].as_str() {
            Some("server/discover") => {
                json_reply(body, json!({ "supportedVersions": ["2026-07-28"], "capabilities": {} }))
            }
            _ => json_reply(body, json!({ "resultType": "complete", "tools": [tool("a")] })),
        }
    });
    let client = Client::new(&server, "http://s/mcp", None);
    assert_eq!(block_on(client.list_tools()).unwrap().len(), 1);
    block_on(client.list_tools()).unwrap();
    assert_eq!(methods(&server), ["server/discover", "server/discover", "tools/list", "tools/list"]);
    assert_eq!(client.era(), Some(Era::Modern), "the revision is settled once, and kept");

    // A server that keeps refusing the revision it names is not asked a third time.
    let stubborn = scripted(|_, body| {
        let error = json!({ "code": -32022, "message": "no", "data": { "supported": ["2026-07-28"] } });
        Ok(Response {
            status: 400,
            content_type: Some("application/json".into()),
            session: None,
            www_authenticate: None,
            body: json!({ "jsonrpc": "2.0", "id": body["id"], "error": error }).to_string(),
        })
    });
    let f = block_on(Client::new(&stubborn, "http://s/mcp", None).list_tools()).unwrap_err();
    assert_eq!(f.because, Because::Failing);
    assert_eq!(methods(&stubborn), ["server/discover", "server/discover"]);
}

/// The conformance suite's initialize server: a server of earlier revisions that answers any
/// method, `tools/list` in 2026-07-28 too. Its answer to `server/discover` names no revision, so
/// it is spoken to through the handshake.
#[test]
fn a_server_that_answers_anything_is_told_legacy_by_its_discover_answer() {
    let server = scripted(|_, body| match body["method"].as_str() {
        Some("initialize") => json_reply(body, json!({ "protocolVersion": "2025-11-25", "capabilities": {} })),
        Some("tools/list") => json_reply(body, json!({ "tools": [tool("a")] })),
        Some("notifications/initialized") => Ok(Response { status: 202, ..Response::default() }),
        _ => json_reply(body, json!({})),
    });
    let tools = block_on(Client::new(&server, "http://s/mcp", None).list_tools()).unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(methods(&server), ["server/discover", "initialize", "notifications/initialized", "tools/list"]);
    let posts = server.posts.borrow();
    let list = &posts[3].1;
    assert_eq!((header(list, "MCP-Protocol-Version"), header(list, "Mcp-Method")), (Some("2025-11-25"), None));
}

#[test]
fn a_modern_call_mirrors_its_marked_arguments_as_headers_and_a_legacy_one_does_not() {
    let schema = json!({ "type": "object", "properties": {
        "region": { "type": "string", "x-mcp-header": "Region" },
        "priority": { "type": "integer", "x-mcp-header": "Priority" },
        "query": { "type": "string" } } });
    let arguments = json!({ "region": "us-west1", "priority": 42, "query": "SELECT 1" });
    let server = modern(|_, body| json_reply(body, json!({ "content": [{ "type": "text", "text": "done" }] })));
    block_on(Client::new(&server, "http://s/mcp", None).call_tool("run", &arguments, &schema, 5)).unwrap();
    let posts = server.posts.borrow();
    let call = &posts.last().unwrap().1;
    assert_eq!(header(call, "Mcp-Param-Region"), Some("us-west1"));
    assert_eq!(header(call, "Mcp-Param-Priority"), Some("42"));
    assert_eq!(call.headers.iter().filter(|(k, _)| k.starts_with("Mcp-Param-")).count(), 2);

    let legacy = scripted(|_, body| match body["method"].as_str() {
        Some("initialize") => json_reply(body, json!({ "protocolVersion": "2025-06-18", "capabilities": {} })),
        Some("notifications/initialized") => Ok(Response { status: 202, ..Response::default() }),
        Some("tools/call") => json_reply(body, json!({ "content": [] })),
        _ => Ok(Response { status: 400, ..Response::default() }),
    });
    block_on(Client::new(&legacy, "http://s/mcp", None).call_tool("run", &arguments, &schema, 5)).unwrap();
    let posts = legacy.posts.borrow();
    assert!(!posts.last().unwrap().1.headers.iter().any(|(k, _)| k.starts_with("Mcp-Param-")));
}

/// A server of 2025-11-25 that ends a call's stream after an event with an id, before the answer,
/// and answers on the stream taken up with `Last-Event-ID`, as the conformance suite's sse-retry.
fn breaking(retry: &'static str) -> Scripted<impl Fn(&Post, &Value) -> Result<Response, Unanswered>> {
    let stream = |body: String| {
        Ok(Response {
            status: 200,
            content_type: Some("text/event-stream".into()),
            session: None,
            www_authenticate: None,
            body,
        })
    };
    let call = Cell::new(Value::Null);
    scripted(move |post, body| match body["method"].as_str() {
        Some("initialize") => {
            let mut r = json_reply(body, json!({ "protocolVersion": "2025-11-25", "capabilities": {} }))?;
            r.session = Some("s1".into());
            Ok(r)
        }
        Some("notifications/initialized") => Ok(Response { status: 202, ..Response::default() }),
        Some("tools/call") => {
            call.set(body["id"].clone());
            stream(format!("id: e1\n{retry}data: \n\n"))
        }
        None if header(post, "Last-Event-ID").is_some() => stream(format!(
            "id: e2\ndata: \n\nevent: message\nid: e3\ndata: {}\n\n",
            json!({ "jsonrpc": "2.0", "id": call.take(), "result": { "content": [{ "type": "text", "text": "resumed" }] } })
        )),
        _ => Ok(Response { status: 400, ..Response::default() }),
    })
}

#[test]
fn a_legacy_stream_that_ends_before_its_answer_is_taken_up_where_it_broke_off() {
    let server = breaking("retry: 500\n");
    let client = Client::new(&server, "http://s/mcp", None);
    let answered = block_on(client.call_tool("test_reconnection", &json!({}), &json!({}), 5)).unwrap();
    assert_eq!(answered.text, "resumed");
    assert_eq!(*server.pauses.borrow(), [500], "the pause the server asked for");
    assert_eq!(*server.methods.borrow(), ["POST", "POST", "POST", "POST", "GET"]);
    let posts = server.posts.borrow();
    let get = &posts.last().unwrap().1;
    assert_eq!(header(get, "Last-Event-ID"), Some("e1"));
    assert_eq!(header(get, "Mcp-Session-Id"), Some("s1"));
    assert_eq!(header(get, "MCP-Protocol-Version"), Some("2025-11-25"));
    assert_eq!(header(get, "Accept"), Some("text/event-stream"));
    assert_eq!(methods(&server).iter().filter(|m| *m == "tools/call").count(), 1, "the call is made once");

    // A pause that would outlast the call's deadline is not waited out.
    let slow = breaking("retry: 9000\n");
    let f = block_on(Client::new(&slow, "http://s/mcp", None).call_tool("t", &json!({}), &json!({}), 3)).unwrap_err();
    assert_eq!((f.because, f.detail.as_str()), (Because::Unreachable, "it gave no answer within 3 seconds"));
    assert!(slow.pauses.borrow().is_empty() && !slow.methods.borrow().contains(&"GET"));
}

#[test]
fn a_modern_stream_that_ends_before_its_answer_fails_and_the_call_is_not_made_again() {
    let server = modern(|_, body| {
        assert_eq!(body["method"], "tools/call");
        Ok(Response {
            status: 200,
            content_type: Some("text/event-stream".into()),
            session: None,
            www_authenticate: None,
            body: "id: e1\nretry: 10\ndata: \n\n".into(),
        })
    });
    let f = block_on(Client::new(&server, "http://s/mcp", None).call_tool("t", &json!({}), &json!({}), 5)).unwrap_err();
    assert_eq!(
        (f.because, f.detail.as_str()),
        (Because::Failing, "its event stream ended without the response to the request")
    );
    assert_eq!(*server.methods.borrow(), ["POST", "POST"]);
    assert!(server.pauses.borrow().is_empty());
}

/// A server of earlier revisions that takes two seconds to answer each request.
struct Slow {
    clock: Cell<u64>,
    sent: RefCell<Vec<String>>,
}

impl Transport for Slow {
    fn send(&self, request: Request, timeout_seconds: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("")).unwrap_or_default();
        self.sent.borrow_mut().push(format!("{} within {timeout_seconds}s", body["method"].as_str().unwrap_or("")));
        self.clock.set(self.clock.get() + 2000);
        let answer = match body["method"].as_str() {
            Some("initialize") => json_reply(&body, json!({ "protocolVersion": "2025-06-18", "capabilities": {} })),
            _ => Ok(Response { status: 400, ..Response::default() }),
        };
        Box::pin(async move { answer })
    }

    fn now_ms(&self) -> u64 {
        self.clock.get()
    }
}

#[test]
fn the_requests_that_settle_a_revision_count_against_the_call_s_deadline() {
    let slow = Slow { clock: Cell::new(0), sent: RefCell::new(Vec::new()) };
    let f = block_on(Client::new(&slow, "http://s/mcp", None).call_tool("t", &json!({}), &json!({}), 3)).unwrap_err();
    assert_eq!((f.because, f.detail.as_str()), (Because::Unreachable, "it gave no answer within 3 seconds"));
    assert_eq!(*slow.sent.borrow(), ["server/discover within 3s", "initialize within 1s"]);
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
        block_on(read_within(chunked(Some(4), &read), 4096, None)).unwrap().len(),
        4096,
        "a body of the bound is read whole"
    );
    let read = Cell::new(0);
    let over = block_on(read_within(chunked(None, &read), 4096, None)).unwrap_err();
    assert_eq!(over, Unanswered::TooLarge(4096));
    let failure = unanswered(over, 30, &[]);
    assert_eq!(failure.because, Because::Failing, "a server that answered too much was reached");
    assert!(failure.detail.contains("more than 4096 bytes"), "{}", failure.detail);
    assert_eq!(read.get(), 5, "a body without end is given up at the chunk past the bound");
    let broken = futures::stream::iter(vec![Ok(vec![b'x'; 10]), Err("Network connection lost".to_string())]);
    assert_eq!(
        block_on(read_within(broken, 4096, None)).unwrap_err(),
        Unanswered::Unreachable("Network connection lost".into())
    );
}

#[test]
fn an_event_stream_is_read_up_to_the_events_that_hold_the_answer() {
    let read = Cell::new(0);
    let events = [
        "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n",
        "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
        ": the server keeps the stream open\n\n",
    ];
    let chunks = futures::stream::iter(events.iter().map(|e| {
        read.set(read.get() + 1);
        Ok::<_, String>(e.as_bytes().to_vec())
    }))
    .chain(futures::stream::repeat_with(|| Ok(b": ping\n\n".to_vec())));
    let body = block_on(read_within(chunks, 4096, Some(mcp::answered_in))).unwrap();
    assert!(String::from_utf8_lossy(&body).ends_with("\"result\":{}}\n\n"), "read no further than the answer");
    assert_eq!(read.get(), 2);
}
