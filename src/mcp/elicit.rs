//! Asking the person, through a 2026-07-28 client that answers forms, how an interaction reaches
//! them. A save refused for saying not how a request or a notification travels is first turned
//! into one question (SEP-2322's `input_required`), with a titled choice for each tool server of
//! the playbook that can send, and the agent for a request; the client retries with the answer,
//! and the save is refused again in words that name the chosen way. A client of an earlier
//! revision, or one that answers no forms, is not asked: the refusal names every choice.

use serde_json::{json, Map, Value};

use super::transport::Era;
use crate::core::definition::interaction::{DELIVER_REQUIRED, NOTIFY_TOOL_REQUIRED};
use crate::core::text::quote;
use crate::core::{FieldError, Problem};
use crate::tools::Ctx;

/// The key the question goes under, and what the retry carries back.
const KEY: &str = "deliver";
const STATE: &str = "interaction-delivery";

/// One way to reach the person: a server with its tools, or the agent.
struct Way {
    value: String,
    title: String,
    send: Option<String>,
    replies: Option<String>,
}

/// What to answer for a refused save instead of the refusal, if anything: the question, or the
/// refusal in the words of the way the person chose.
pub fn refine(ctx: &Ctx<'_>, era: &Era, params: &Map<String, Value>, problem: &Problem) -> Option<Value> {
    let Era::Modern { capabilities } = era else { return None };
    let asks_forms = capabilities
        .get("elicitation")
        .and_then(Value::as_object)
        .is_some_and(|e| e.is_empty() || e.contains_key("form"));
    let request = problem.errors.iter().any(|e| e.pointer == "/ask/deliver" && e.detail.starts_with(DELIVER_REQUIRED));
    let notice =
        problem.errors.iter().any(|e| e.pointer == "/notify/tool" && e.detail.starts_with(NOTIFY_TOOL_REQUIRED));
    if !asks_forms || !(request || notice) {
        return None;
    }
    let playbook = params.get("arguments").and_then(|a| a.get("playbook")).and_then(Value::as_str)?;
    let ways = ways(ctx, playbook, request);
    if ways.iter().all(|w| w.send.is_none()) {
        return None;
    }
    let answer = params.get("inputResponses").and_then(|r| r.get(KEY));
    match answer {
        None => Some(question(&ways, request)),
        Some(a) if a.get("action").and_then(Value::as_str) == Some("accept") => {
            let chosen = a.pointer(&format!("/content/{KEY}")).and_then(Value::as_str)?;
            let way = ways.iter().find(|w| w.value == chosen)?;
            Some(super::result::failure(&chosen_words(problem, way, request)))
        }
        // Declined or cancelled: the refusal names every choice, as it did.
        Some(_) => None,
    }
}

fn ways(ctx: &Ctx<'_>, playbook: &str, request: bool) -> Vec<Way> {
    let mut ways: Vec<Way> = ctx
        .tool_servers
        .senders(&ctx.caller.org, playbook)
        .into_iter()
        .filter(|s| !request || s.replies.is_some())
        .map(|s| Way { value: s.server.clone(), title: s.server, send: Some(s.send), replies: s.replies })
        .collect();
    if request {
        ways.push(Way {
            value: "agent".into(),
            title: "The agent, in this conversation".into(),
            send: None,
            replies: None,
        });
    }
    ways
}

fn question(ways: &[Way], request: bool) -> Value {
    let choices: Vec<Value> = ways.iter().map(|w| json!({ "const": w.value, "title": w.title })).collect();
    let message = if request { "Where should the owner be asked?" } else { "Through which server should it be sent?" };
    json!({
        "resultType": "input_required",
        "inputRequests": {
            KEY: {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": message,
                    "requestedSchema": {
                        "type": "object",
                        "properties": { KEY: { "type": "string", "title": message, "oneOf": choices } },
                        "required": [KEY]
                    }
                }
            }
        },
        "requestState": STATE
    })
}

/// The refusal, its words now naming the way the person chose.
fn chosen_words(problem: &Problem, way: &Way, request: bool) -> Problem {
    let (pointer, detail) = match (&way.send, &way.replies, request) {
        (None, _, _) => ("/ask/deliver", "is required: the person chose the agent, so write deliver: agent, and answer the request through list_interactions and answer_interaction".to_string()),
        (Some(send), Some(replies), true) => ("/ask/deliver", format!(
            "is required: the person chose {}, so write deliver: {{send: {{tool: {send}, arguments: {{…}}}}, replies: {{tool: {replies}, arguments: {{…}}}}}}. introspect says what each tool takes; execute_connection sends through {send} once, after the person agrees, to see what it answers",
            quote(&way.value)
        )),
        (Some(send), _, _) => ("/notify/tool", format!(
            "is required: the person chose {}, so write tool: {send}, with its arguments; introspect says what it takes",
            quote(&way.value)
        )),
    };
    let errors: Vec<FieldError> = problem
        .errors
        .iter()
        .map(|e| if e.pointer == pointer { FieldError { detail: detail.clone(), ..e.clone() } } else { e.clone() })
        .collect();
    let mut refused = Problem::invalid_fields(errors);
    refused.kind = problem.kind;
    refused
}
