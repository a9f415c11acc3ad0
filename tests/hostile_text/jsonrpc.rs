//! JSON-RPC bodies: a POST to an MCP endpoint, planned from its raw bytes and headers, then answered.

use futures::executor::block_on;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, Index};
use serde_json::{json, Value};

use playbook_runtime::core::Caller;
use playbook_runtime::mcp::endpoint::Endpoint;
use playbook_runtime::mcp::server::answer;
use playbook_runtime::mcp::transport::{plan, Item, Plan, Post};

use crate::common;
use crate::pieces::json_value;
use crate::{bounded, cases};

// ---- JSON-RPC bodies, planned and answered ----

fn rpc_method() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => select(vec![
            "initialize", "ping", "tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list",
            "resources/read", "resources/templates/list", "server/discover", "notifications/initialized",
        ]).prop_map(str::to_string),
        1 => "[a-z/]{0,12}",
    ]
}

fn rpc_params(modern: bool) -> impl Strategy<Value = Value> {
    let tools: Vec<&'static str> = playbook_runtime::tools::all().iter().map(|t| t.name).collect();
    let name = prop_oneof![4 => select(tools).prop_map(str::to_string), 1 => "[a-z_]{0,12}"];
    let uri = select(vec!["guide://templates", "guide://nope", "https://x", ""]);
    prop_oneof![
        6 => (name, json_value(), uri, prop::option::of(select(vec!["2025-11-25", "2026-07-28", "1999-01-01"])))
            .prop_map(move |(name, arguments, uri, version)| {
                let mut p = json!({ "name": name, "arguments": arguments, "uri": uri, "protocolVersion": version });
                if modern {
                    p["_meta"] = json!({
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {},
                    });
                }
                p
            }),
        1 => json_value(),
    ]
}

fn rpc_message(modern: bool) -> impl Strategy<Value = Value> {
    let id = prop_oneof![
        4 => any::<i64>().prop_map(Value::from),
        1 => "[a-z0-9]{0,10}".prop_map(Value::from),
        1 => select(vec![json!(null), json!(1.5), json!({}), json!([]), json!(u64::MAX), json!(true)]),
    ];
    let version = prop_oneof![8 => Just(json!("2.0")), 1 => select(vec![json!("1.0"), json!(2.0), json!(null)])];
    let params = prop::option::weighted(0.9, rpc_params(modern));
    (version, prop::option::weighted(0.9, id), rpc_method(), params, prop::bool::weighted(0.1)).prop_map(
        |(jsonrpc, id, method, params, answer)| {
            let mut m = json!({ "jsonrpc": jsonrpc });
            if let Some(id) = id {
                m["id"] = id;
            }
            if answer {
                m["result"] = json!({});
            } else {
                m["method"] = json!(method);
            }
            if let Some(p) = params {
                m["params"] = p;
            }
            m
        },
    )
}

fn rpc_post() -> impl Strategy<Value = (Vec<u8>, Option<String>, Option<String>, bool)> {
    let body = prop_oneof![
        6 => rpc_message(false).prop_map(|m| m.to_string().into_bytes()),
        2 => vec(rpc_message(false), 0..8).prop_map(|b| Value::from(b).to_string().into_bytes()),
        2 => rpc_message(true).prop_map(|m| m.to_string().into_bytes()),
        1 => (1usize..20_000).prop_map(|n| format!("{}1{}", "[".repeat(n), "]".repeat(n)).into_bytes()),
        1 => (1usize..20_000).prop_map(|n| format!("{}1", "{\"a\":".repeat(n)).into_bytes()),
        1 => (rpc_message(false), any::<Index>()).prop_map(|(m, at)| {
            let text = m.to_string().into_bytes();
            text[..at.index(text.len() + 1)].to_vec()
        }),
        1 => vec(any::<u8>(), 0..200),
        1 => Just(b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}".to_vec()),
    ];
    let version = prop::option::weighted(
        0.5,
        select(vec!["2025-11-25", "2025-03-26", "2025-03-26", "2024-11-05", "2026-07-28", "9999", ""]),
    );
    let accept = prop::option::of(select(vec!["application/json, text/event-stream", "*/*", "text/html", ""]));
    (
        body,
        version.prop_map(|v| v.map(str::to_string)),
        accept.prop_map(|a| a.map(str::to_string)),
        prop::bool::weighted(0.9),
    )
}

proptest! {
    #![proptest_config(cases(96))]

    /// A POST to an MCP endpoint: the plan for its raw body and headers, then each request in it
    /// answered by the dispatch, over the runtime in memory.
    #[test]
    fn mcp_posts_plan_and_answer_within_bounds((body, version, accept, json_type) in rpc_post()) {
        let backend = common::Memory::default();
        let caller = Caller::local(Some("ada".into()));
        let ctx = common::ctx(&caller, &backend, 1, 1);
        let content_type = if json_type { "application/json; charset=utf-8" } else { "text/plain" };
        // Every request in one body: a batch answers them all in one reply.
        bounded(|| {
            let (method, name) = serde_json::from_slice::<Value>(&body)
                .map(|v| (v["method"].as_str().map(str::to_string), v["params"]["name"].as_str().map(str::to_string)))
                .unwrap_or_default();
            let post = Post {
                content_type: Some(content_type),
                accept: accept.as_deref(),
                protocol_version: version.as_deref(),
                mcp_method: method.as_deref(),
                mcp_name: name.as_deref(),
                body: &body,
            };
            if let Plan::Handle { era, items, .. } = plan(&post) {
                for item in items {
                    if let Item::Request { id, method, params } = item {
                        let _ = block_on(answer(&ctx, &Endpoint::Root, &era, &id, &method, &params));
                    }
                }
            }
        })?;
    }
}
