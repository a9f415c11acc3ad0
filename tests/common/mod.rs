//! What the host tests share: the runtime in memory (`ops::memory::Runtime`), which serves the
//! `Backend` port through the same code the Durable Objects run, and a context for one request.

#![allow(dead_code)] // each test crate that includes `common` uses part of it

use futures::executor::block_on;
use playbook_runtime::core::Caller;
use playbook_runtime::mcp::endpoint::Endpoint;
use playbook_runtime::mcp::server::answer;
use playbook_runtime::mcp::transport::Era;
use playbook_runtime::ops::Ctx;
use serde_json::{json, Value};

pub use playbook_runtime::ops::memory::Runtime as Memory;

/// A context for one request at a given second, with randomness drawn from `seed`.
pub fn ctx<'a>(caller: &'a Caller, backend: &'a Memory, second: u32, seed: u8) -> Ctx<'a> {
    let mut random = [0u8; 16];
    for (i, b) in random.iter_mut().enumerate() {
        *b = seed.wrapping_mul(31).wrapping_add(i as u8 * 7);
    }
    Ctx {
        caller,
        backend,
        now: format!("2026-12-02T10:00:{second:02}.000Z"),
        random,
        secret: [second as u8; 32],
        models: Default::default(),
        tool_servers: backend.tool_servers(),
        connections: backend.connection_settings(),
        directory: false,
    }
}

/// A tool called over MCP as the local developer at a given second; answers the call's result.
pub fn tool(backend: &Memory, second: u32, name: &str, args: Value) -> Value {
    let caller = Caller::local(Some("ada".into()));
    let ctx = ctx(&caller, backend, second, second as u8);
    let params = Some(json!({ "name": name, "arguments": args }));
    let era = Era::Legacy { version: "2025-11-25".into() };
    let reply = block_on(answer(&ctx, &Endpoint::Root, &era, &json!(second), "tools/call", &params));
    reply["result"].clone()
}

/// Creates a playbook named `name` as the local developer; answers its id.
pub fn playbook(backend: &Memory, name: &str) -> String {
    let created = tool(backend, 1, "create_playbook", json!({ "name": name }));
    created["structuredContent"]["id"].as_str().unwrap_or_default().to_string()
}

/// The arguments of a save of a definition in `playbook`: a function's made-up overview and
/// diagram with it, which a save asks of a function.
pub fn save_args(playbook: &str, kind: &str, name: &str, source: &str) -> Value {
    let mut args = json!({
        "playbook": playbook, "type": kind, "name": name, "source": source,
        "overview": format!("The {name} {kind} of the host tests does what its description says."),
    });
    if kind != "workflow" {
        args["diagram"] = json!("flowchart LR\n  A[in] --> B[out]");
    }
    args
}
