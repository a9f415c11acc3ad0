//! The client's wire, post by post and answer by answer.

use serde_json::json;

use super::*;

fn header<'a>(post: &'a Post, name: &str) -> Option<&'a str> {
    post.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

#[test]
fn a_modern_request_carries_its_revision_twice() {
    let post = request(&Era::Modern, 7, "tools/call", json!({ "name": "read_text_file" }), Some("read_text_file"));
    assert_eq!(header(&post, "MCP-Protocol-Version"), Some(MODERN));
    assert_eq!(header(&post, "Mcp-Method"), Some("tools/call"));
    assert_eq!(header(&post, "Mcp-Name"), Some("read_text_file"));
    let body: Value = serde_json::from_str(&post.body).unwrap();
    assert_eq!(body["id"], 7);
    assert_eq!(body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], MODERN);
    assert_eq!(body["params"]["name"], "read_text_file");
    let odd = request(&Era::Modern, 1, "tools/call", json!({}), Some("lire_é"));
    assert!(header(&odd, "Mcp-Name").unwrap().starts_with("=?base64?"));
}

#[test]
fn a_legacy_request_carries_the_session() {
    let (era, note) = initialized(&json!({ "protocolVersion": "2025-06-18" }), Some("abc".into())).unwrap();
    assert_eq!(header(&note, "Mcp-Session-Id"), Some("abc"));
    let post = request(&era, 2, "tools/list", json!({}), None);
    assert_eq!(header(&post, "MCP-Protocol-Version"), Some("2025-06-18"));
    assert_eq!(header(&post, "Mcp-Method"), None);
    let body: Value = serde_json::from_str(&post.body).unwrap();
    assert!(body["params"].get("_meta").is_none());
    assert!(initialized(&json!({ "protocolVersion": "1999-01-01" }), None).is_err());
    assert!(initialize(1).body.contains("\"initialize\""));
}

#[test]
fn a_stream_answers_past_notifications_and_comments() {
    let body = ": keep-alive\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\nid: 4\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"other\":true}}\n\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":4,\"result\":{\"ok\":1}}\n\n";
    assert_eq!(read_reply(Some("text/event-stream"), body, 4), Ok(Reply::Result(json!({ "ok": 1 }))));
    assert!(read_reply(Some("text/event-stream"), ": only a comment\n\n", 4).is_err());
    let json_body = r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no such method"}}"#;
    assert!(matches!(read_reply(Some("application/json"), json_body, 4), Ok(Reply::Error { code: -32601, .. })));
    assert!(read_reply(None, "<html>", 4).is_err());
    assert!(read_reply(None, r#"{"jsonrpc":"2.0","id":5,"result":{}}"#, 4).is_err());
}

#[test]
fn an_older_server_is_told_by_its_refusal() {
    let unsupported = |supported: Value| Reply::Error {
        code: -32022,
        message: String::new(),
        data: Some(json!({ "supported": supported })),
    };
    assert!(refuses_modern(400, Some(&unsupported(json!(["2025-06-18"])))));
    assert!(!refuses_modern(400, Some(&unsupported(json!([MODERN])))));
    assert!(refuses_modern(
        400,
        Some(&Reply::Error { code: -32600, message: "Bad Request: Server not initialized".into(), data: None })
    ));
    assert!(refuses_modern(404, None) && refuses_modern(405, None));
    assert!(!refuses_modern(500, None) && !refuses_modern(200, Some(&Reply::Result(json!({})))));
}

#[test]
fn a_page_of_tools_keeps_what_a_client_can_use() {
    let page = json!({
        "tools": [
            { "name": "read_text_file", "description": "Read a file", "inputSchema": { "type": "object" },
              "annotations": { "readOnlyHint": true, "title": "Read text file" } },
            { "name": "write_file", "inputSchema": { "type": "object" }, "annotations": { "destructiveHint": true } },
            { "name": "broken", "inputSchema": "nope" },
            { "description": "no name", "inputSchema": { "type": "object" } },
        ],
        "nextCursor": "p2",
    });
    let (tools, next) = read_tools(&page).unwrap();
    assert_eq!(next.as_deref(), Some("p2"));
    assert_eq!(tools.len(), 2);
    assert_eq!((tools[0].mark, tools[0].title.as_deref()), (Mark::Reads, Some("Read text file")));
    assert_eq!((tools[1].mark, tools[1].hints.destructive), (Mark::Unmarked, Some(true)));
    assert_eq!(tools[1].marked_by, MarkedBy::Server);
    let long = json!({ "tools": [{ "name": "t", "description": "é".repeat(3000), "inputSchema": {} }] });
    assert!(read_tools(&long).unwrap().0[0].description.len() <= DESCRIPTION_MAX);
    assert!(read_tools(&json!({})).is_err());
}

#[test]
fn a_call_answers_text_or_a_tool_error() {
    let ok = json!({ "content": [{ "type": "text", "text": "Audience: finance leads" },
                                  { "type": "image", "mimeType": "image/png", "data": "AAAA" }],
                     "structuredContent": { "lines": 1 } });
    let a = read_call(&ok).unwrap();
    assert_eq!(a.text, "Audience: finance leads\n[image image/png, about 3 bytes]");
    assert_eq!(
        a.images,
        vec![Image {
            media_type: "image/png".into(),
            data: "AAAA".into(),
            shown: "[image image/png, about 3 bytes]".into()
        }]
    );
    assert_eq!(named(&a.text, &a.images, &["[the asset ast_1]".into()]), "Audience: finance leads\n[the asset ast_1]");
    assert_eq!(named(&a.text, &a.images, &[]), a.text, "an image without a name keeps its words");
    assert_eq!((a.structured, a.is_error), (Some(json!({ "lines": 1 })), false));
    let err = json!({ "content": [{ "type": "text", "text": "ENOENT: no such file or directory" }], "isError": true });
    let e = read_call(&err).unwrap();
    assert!(e.is_error && e.text.starts_with("ENOENT"));
    assert!(read_call(&json!({ "nothing": 1 })).is_err());
}

#[test]
fn a_server_is_told_by_its_answer_to_discover() {
    let result = |r: Value| Some(Reply::Result(r));
    let error = |code: i64, data: Value| Some(Reply::Error { code, message: String::new(), data: Some(data) });
    use Discovered::*;
    let modern = json!({ "supportedVersions": [MODERN, "2025-11-25"], "capabilities": {} });
    assert_eq!(discovered(200, result(modern).as_ref()), Some(Modern));
    // A server of earlier revisions answering a method it does not know, with a result of nothing.
    assert_eq!(discovered(200, result(json!({})).as_ref()), Some(Legacy));
    assert_eq!(discovered(200, result(json!({ "supportedVersions": ["2025-11-25"] })).as_ref()), Some(Legacy));
    assert_eq!(discovered(400, error(-32022, json!({ "supported": [MODERN] })).as_ref()), Some(Again));
    assert_eq!(discovered(400, error(-32022, json!({ "supported": ["2025-06-18"] })).as_ref()), Some(Legacy));
    assert_eq!(discovered(400, error(-32020, json!(null)).as_ref()), Some(Modern));
    assert_eq!(discovered(404, error(-32601, json!(null)).as_ref()), Some(Modern));
    assert_eq!(discovered(200, error(-32601, json!(null)).as_ref()), Some(Legacy));
    assert_eq!(discovered(400, error(-32000, json!(null)).as_ref()), Some(Legacy), "the SDK's refusal of a revision");
    assert_eq!(discovered(405, None), Some(Legacy));
    assert_eq!(discovered(500, None), None);
    assert!(asks_again(error(-32022, json!({ "supported": [MODERN] })).as_ref()));
    assert!(!asks_again(error(-32022, json!({ "supported": ["2025-11-25"] })).as_ref()));
}

#[test]
fn a_header_value_goes_plain_only_when_it_is_safe() {
    let name =
        |n: &str| header(&request(&Era::Modern, 1, "tools/call", json!({}), Some(n)), "Mcp-Name").unwrap().to_string();
    assert_eq!(name("us west 1"), "us west 1");
    assert_eq!(name("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
    assert_eq!(name(" padded "), "=?base64?IHBhZGRlZCA=?=");
    assert_eq!(name("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    assert_eq!(name("\tindented"), "=?base64?CWluZGVudGVk?=");
    assert_eq!(
        name("=?base64?literal?="),
        "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
        "a value that looks encoded is encoded"
    );
}

#[test]
fn x_mcp_header_marks_follow_the_rules_of_2026_07_28() {
    let marked = |schema: Value| header_params(&json!({ "type": "object", "properties": schema }));
    let ok = marked(json!({
        "region": { "type": "string", "x-mcp-header": "Region" },
        "meta": { "type": "object", "properties": { "tenant": { "type": ["integer", "null"], "x-mcp-header": "Tenant-Id" } } },
        "x-mcp-header": { "type": "string", "description": "an argument of that name, not a mark" },
        "mode": { "type": "string", "default": { "x-mcp-header": "data, not a mark" } },
    }))
    .unwrap();
    assert_eq!(
        ok,
        [
            HeaderParam { name: "Region".into(), path: vec!["region".into()] },
            HeaderParam { name: "Tenant-Id".into(), path: vec!["meta".into(), "tenant".into()] },
        ]
    );
    for (why, schema) in [
        ("empty", json!({ "v": { "type": "string", "x-mcp-header": "" } })),
        ("a space", json!({ "v": { "type": "string", "x-mcp-header": "My Region" } })),
        ("a colon", json!({ "v": { "type": "string", "x-mcp-header": "Region:Primary" } })),
        ("not ASCII", json!({ "v": { "type": "string", "x-mcp-header": "Région" } })),
        ("a control character", json!({ "v": { "type": "string", "x-mcp-header": "Region\t1" } })),
        ("not text", json!({ "v": { "type": "string", "x-mcp-header": 7 } })),
        ("a number", json!({ "v": { "type": "number", "x-mcp-header": "Score" } })),
        ("an object", json!({ "v": { "type": "object", "x-mcp-header": "Data" } })),
        ("an array", json!({ "v": { "type": "array", "items": { "type": "string" }, "x-mcp-header": "Items" } })),
        ("null", json!({ "v": { "type": "null", "x-mcp-header": "Nil" } })),
        ("no type", json!({ "v": { "x-mcp-header": "Any" } })),
        (
            "twice",
            json!({ "a": { "type": "string", "x-mcp-header": "MyField" }, "b": { "type": "string", "x-mcp-header": "myfield" } }),
        ),
        ("under items", json!({ "v": { "type": "array", "items": { "type": "string", "x-mcp-header": "Item" } } })),
        ("under anyOf", json!({ "v": { "anyOf": [{ "type": "string", "x-mcp-header": "Either" }] } })),
    ] {
        assert!(marked(schema).is_err(), "a mark that is {why} is refused");
    }
    let defs =
        json!({ "type": "object", "$defs": { "r": { "type": "string", "x-mcp-header": "R" } }, "properties": {} });
    assert!(header_params(&defs).is_err(), "a mark in $defs is reached through no properties");
    assert!(header_params(&json!({ "type": "object", "x-mcp-header": "Root" })).is_err());
    assert_eq!(header_params(&json!({ "type": "object" })), Ok(vec![]));
}

#[test]
fn marked_arguments_become_headers_and_missing_or_null_ones_do_not() {
    let schema = json!({ "type": "object", "properties": {
        "region": { "type": "string", "x-mcp-header": "Region" },
        "priority": { "type": "integer", "x-mcp-header": "Priority" },
        "verbose": { "type": "boolean", "x-mcp-header": "Verbose" },
        "empty": { "type": "string", "x-mcp-header": "EmptyVal" },
        "greeting": { "type": "string", "x-mcp-header": "Greeting" },
        "gone": { "type": "string", "x-mcp-header": "Gone" },
        "meta": { "type": "object", "properties": { "tenant": { "type": "integer", "x-mcp-header": "Tenant" } } },
        "score": { "type": "number" },
    } });
    let arguments = json!({ "region": "us-west1", "priority": 42, "verbose": false, "empty": "", "greeting": "Hello, 世界",
                            "gone": null, "meta": { "tenant": 7.0 }, "score": 3.5 });
    let mut headers = param_headers(&schema, &arguments);
    headers.sort();
    let expected = [
        ("Mcp-Param-EmptyVal", ""),
        ("Mcp-Param-Greeting", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        ("Mcp-Param-Priority", "42"),
        ("Mcp-Param-Region", "us-west1"),
        ("Mcp-Param-Tenant", "7"),
        ("Mcp-Param-Verbose", "false"),
    ];
    assert_eq!(headers, expected.map(|(k, v)| (k.to_string(), v.to_string())));
    assert_eq!(param_headers(&schema, &json!({})), vec![]);
}

#[test]
fn a_tool_whose_marks_break_the_rules_is_not_listed_and_the_rest_are() {
    let page = json!({ "tools": [
        { "name": "valid_tool", "inputSchema": { "type": "object", "properties": { "region": { "type": "string", "x-mcp-header": "Region" } } } },
        { "name": "invalid_number_header", "inputSchema": { "type": "object", "properties": { "score": { "type": "number", "x-mcp-header": "Score" } } } },
    ] });
    let (tools, _) = read_tools(&page).unwrap();
    assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["valid_tool"]);
}

#[test]
fn a_stream_tells_where_to_take_it_up_and_when_its_answer_has_come() {
    assert_eq!(
        resumption("id: event-1\nretry: 500\ndata: \n\n"),
        Some(Resume { last_event_id: "event-1".into(), retry_ms: Some(500) })
    );
    assert_eq!(
        resumption("id: a\r\ndata: x\r\n\r\nid: b\r\nretry: soon\r\n"),
        Some(Resume { last_event_id: "b".into(), retry_ms: None })
    );
    assert_eq!(resumption("data: {}\n\n"), None, "a stream that gave no id cannot be taken up");
    let era = Era::Legacy { version: "2025-11-25".into(), session: Some("s1".into()) };
    let headers = resume(&era, "event-1");
    assert!(headers.contains(&("Last-Event-ID".into(), "event-1".into())));
    assert!(headers.contains(&("Mcp-Session-Id".into(), "s1".into())));

    let priming = b"id: e1\nretry: 500\ndata: \n\n";
    assert_eq!(answered_in(priming), (false, priming.len()));
    let request = b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n\n";
    assert_eq!(answered_in(request), (false, request.len()), "a request of the server is no answer");
    let answer = b"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\r\n\r\n";
    let whole = [&priming[..], &answer[..], b"id: e4\ndata: "].concat();
    assert_eq!(answered_in(&whole), (true, priming.len() + answer.len()));
    let cut = &answer[..answer.len() - 2];
    assert_eq!(answered_in(cut), (false, 0), "an event is not read before its blank line");
}

#[test]
fn a_call_that_asks_for_input_fails_in_words_that_say_so() {
    let asks = json!({ "resultType": "input_required", "inputRequests": { "confirm": { "method": "elicitation/create" } }, "requestState": "x" });
    assert_eq!(
        read_call(&asks).unwrap_err(),
        "it asked for input before it answers (input_required), which the runtime cannot give: its client declares no elicitation, sampling or roots"
    );
    let plain = json!({ "content": [{ "type": "text", "text": "no-result-type-test-ok" }] });
    assert_eq!(read_call(&plain).unwrap().text, "no-result-type-test-ok", "no resultType is a complete result");
}
