//! What the operations on tool servers share: their arguments, the server and tool a playbook
//! may use (refused in words that say what `search` shows), a tool as they answer it, the check
//! of a call's arguments, and the record a call by hand leaves in the playbook's history.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args::check_against;
use super::schema::playbook_arg;
use super::Ctx;
use crate::core::event::{EventCommand, NewEvent};
use crate::core::playbook::Playbook;
use crate::core::text::{count, quote};
use crate::core::tool_server::mcp::{Answered, Listed};
use crate::core::tool_server::offer::pick;
use crate::core::tool_server::settings::{Server, ServerKind};
use crate::core::tool_server::{words, Mark};
use crate::core::{ErrorCode, FieldError, Problem};
use crate::ops::tool_client::Failure;

pub use crate::core::tool_server::words::SETUP;
/// The most bytes of arguments a call by hand sends.
pub const ARGUMENTS_MAX_BYTES: usize = 65_536;
/// The most bytes of an answer kept in the playbook's history; the rest is said by its size.
pub const RECORDED_ANSWER_MAX_BYTES: usize = 32_768;
pub const TIMEOUT_DEFAULT_SECONDS: u64 = 30;
pub const TIMEOUT_MAX_SECONDS: u64 = 120;

pub fn server_arg() -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": 64, "description": "The tool server's name, as search lists it, such as files." })
}

pub fn tool_arg() -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": 128, "description": "The tool's name on its server, such as read_text_file, without the server's name before it." })
}

/// `playbook`, `server` and `tool`: one tool of a playbook's server.
pub fn named_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "playbook": playbook_arg(), "server": server_arg(), "tool": tool_arg() },
        "required": ["playbook", "server", "tool"],
        "additionalProperties": false
    })
}

/// One tool and the arguments of a call to it; with `timeout`, a call that is made.
pub fn call_schema(timeout: bool) -> Value {
    let mut schema = named_schema();
    schema["properties"]["arguments"] = json!({ "type": "object", "description": format!("The tool's arguments, as its input_schema (introspect) gives them: at most {ARGUMENTS_MAX_BYTES} bytes as JSON. Left out, {{}}.") });
    if timeout {
        schema["properties"]["timeout_seconds"] = json!({ "type": "integer", "minimum": 1, "maximum": TIMEOUT_MAX_SECONDS, "default": TIMEOUT_DEFAULT_SECONDS, "description": "How long the tool may take before the call is given up." });
    }
    schema
}

#[derive(Deserialize)]
pub struct Named {
    pub playbook: String,
    pub server: String,
    pub tool: String,
}

#[derive(Deserialize)]
pub struct CallArgs {
    pub playbook: String,
    pub server: String,
    pub tool: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
    pub timeout_seconds: Option<u64>,
}

/// A tool of a server that serves the playbook, as its server and entry offer it.
pub struct Found {
    pub playbook: Playbook,
    /// Its own, as the org's connections are read for the request.
    pub server: Server,
    pub tool: Listed,
}

impl Found {
    /// `server/tool`, as a function names it.
    pub fn name(&self) -> String {
        format!("{}/{}", self.server.name, self.tool.name)
    }

    pub fn record_content(&self) -> bool {
        self.server.state.as_ref().is_ok_and(|e| e.record_content)
    }
}

/// The playbook, its server and the tool, or the refusal that says what `search` shows.
pub async fn find(ctx: &Ctx<'_>, playbook: &str, server: &str, tool: &str) -> Result<Found, Problem> {
    let p = ctx.backend.get(&ctx.caller.org, playbook).await?;
    let now = ctx.instant().timestamp();
    let using = crate::ops::connections::Using::of(ctx, &ctx.caller.org);
    let connections = crate::ops::connections::servers(&using).await;
    let registry = ctx.tool_servers.with(&connections).renewing(&using);
    let (found, offered) = registry.offering(&ctx.caller.org, playbook, server, now).await?;
    let found = found.clone();
    let listed = pick(server, &offered, tool, false)?.into_iter().next().cloned();
    let listed = listed.ok_or_else(|| Problem::internal("a tool was picked and is not there"))?;
    Ok(Found { playbook: p, server: found, tool: listed })
}

/// A server that cannot be used just now, in words that say why and what mends it.
pub fn unavailable(server: &Server, failure: &Failure) -> Problem {
    words::unavailable(server, failure.because, &failure.detail)
}

/// `mcp` or `openapi`, as a server's entry says.
pub fn kind(server: &Server) -> Option<&'static str> {
    server.state.as_ref().ok().map(|e| match e.kind {
        ServerKind::Mcp { .. } => "mcp",
        ServerKind::OpenApi { .. } => "openapi",
    })
}

/// How the runtime checks a call's arguments before it sends them: against the tool's input
/// schema, and within the bound. The pointers are the call's, under `/arguments`.
pub fn check_arguments(tool: &Listed, arguments: &Map<String, Value>) -> Result<Vec<FieldError>, Problem> {
    let size = Value::Object(arguments.clone()).to_string().len();
    if size > ARGUMENTS_MAX_BYTES {
        return Ok(vec![FieldError::new(
            "/arguments",
            format!("is {size} bytes as JSON, more than the {ARGUMENTS_MAX_BYTES} a call sends"),
        )]);
    }
    check_against(&tool.input_schema, &Value::Object(arguments.clone()), "/arguments").map_err(|why| {
        Problem::unavailable(format!("The tool {} cannot be called: {why}.", quote(&tool.name)))
            .with_kind(ErrorCode::ToolUnavailable)
    })
}

/// A tool's mark as an answer gives it.
pub fn mark_words(mark: Mark) -> &'static str {
    match mark {
        Mark::Reads => "reads",
        Mark::Acts => "acts",
        Mark::Unmarked => "is unmarked, which counts as acts",
    }
}

/// The outcome of a call by hand.
pub enum Outcome<'o> {
    Answered(&'o Answered),
    Failed(&'o Failure),
}

/// Records a call by hand in the playbook's history, with its arguments and answer, or their
/// sizes alone where the server's entry keeps no content. Answers the event's id.
pub async fn record(
    ctx: &Ctx<'_>,
    found: &Found,
    arguments: &Map<String, Value>,
    outcome: Outcome<'_>,
    took_ms: i64,
) -> Result<String, Problem> {
    let by = ctx.by();
    let content = found.record_content();
    let arguments = Value::Object(arguments.clone());
    let mut data = json!({
        "server": found.server.name,
        "tool": found.tool.name,
        "mark": found.tool.mark,
        "by": by,
        "took_ms": took_ms,
    });
    if content {
        data["arguments"] = arguments;
    } else {
        data["arguments_size"] = arguments.to_string().len().into();
    }
    let said = match outcome {
        Outcome::Answered(a) => {
            data["is_error"] = a.is_error.into();
            data["answer_size"] = a.text.len().into();
            if content {
                data["answer"] = kept_answer(a);
            }
            let how = if a.is_error { "the tool answered an error" } else { "it answered" };
            format!("{} called {} by hand; {how} ({}).", by.name, found.name(), count(a.text.len(), "byte"))
        }
        Outcome::Failed(f) => {
            data["because"] = json!(f.because);
            data["detail"] = json!(f.detail);
            format!("{} called {} by hand; the server failed ({}).", by.name, found.name(), f.because.as_str())
        }
    };
    let event = NewEvent {
        kind: "tool_called".into(),
        at: ctx.now.clone(),
        summary: crate::core::text::cap(&said, 300),
        run_id: None,
        data,
        family: None,
        key: None,
    };
    let kept = ctx.backend.events(&ctx.caller.org, &found.playbook.id, EventCommand::append(vec![event])).await?;
    kept.into_iter().next().map(|e| e.event_id).ok_or_else(|| Problem::internal("the playbook kept no event"))
}

/// An answer as history keeps it: its text up to the bound, and what it says as JSON.
fn kept_answer(a: &Answered) -> Value {
    let mut kept = json!({ "text": cut_to_bytes(&a.text, RECORDED_ANSWER_MAX_BYTES) });
    if let Some(s) = &a.structured {
        if s.to_string().len() <= RECORDED_ANSWER_MAX_BYTES {
            kept["structured"] = s.clone();
        }
    }
    kept
}

/// `text` cut to at most `max` bytes at a character's edge, ending with an ellipsis where it was
/// cut: the bound of history is in bytes, and a character may take up to four.
fn cut_to_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    format!("{}\u{2026}", crate::core::text::start_within(text, max.saturating_sub('\u{2026}'.len_utf8())))
}

/// A call by hand, as `query_connection` (which calls only a tool marked `reads`) and
/// `execute_connection` make it: checked, sent, recorded, and answered.
pub async fn call_by_hand(ctx: &Ctx<'_>, a: CallArgs, reads_only: bool) -> Result<super::Output, Problem> {
    let found = find(ctx, &a.playbook, &a.server, &a.tool).await?;
    if found.playbook.is_retired() {
        return Err(Problem::conflict(format!(
            "The playbook {} is retired, so none of its tools is called; restore_playbook makes it active again.",
            found.playbook.id
        )));
    }
    if reads_only && !found.tool.mark.reads() {
        return Err(Problem::unavailable(format!(
            "query_connection calls only a tool marked reads, and {} {}; execute_connection calls it, as a call that may act.",
            found.name(),
            mark_words(found.tool.mark)
        ))
        .with_kind(ErrorCode::ToolNotReadOnly));
    }
    let errors = check_arguments(&found.tool, &a.arguments)?;
    if !errors.is_empty() {
        return Err(Problem::invalid_fields(errors).with_kind(ErrorCode::ToolArguments));
    }
    let using = crate::ops::connections::Using::of(ctx, &ctx.caller.org);
    let registry = &ctx.tool_servers.renewing(&using);
    let timeout = a.timeout_seconds.unwrap_or(TIMEOUT_DEFAULT_SECONDS);
    let started = (registry.clock)();
    let arguments = Value::Object(a.arguments.clone());
    let answer = registry.call(&found.server, &found.tool.name, &found.tool.input_schema, &arguments, timeout).await;
    let took_ms = ((registry.clock)() - started).max(0);
    match answer {
        Ok(answered) => {
            let event_id = record(ctx, &found, &a.arguments, Outcome::Answered(&answered), took_ms).await?;
            let said = if answered.is_error { "The tool answered an error" } else { "The tool answered" };
            let summary = format!(
                "{said}: {} from {} in {took_ms} ms, recorded in the playbook's history as {event_id}.",
                count(answered.text.len(), "byte"),
                found.name()
            );
            let value = json!({
                "name": found.name(),
                "outcome": if answered.is_error { "error" } else { "result" },
                "is_error": answered.is_error,
                "text": answered.text,
                "structured": answered.structured,
                "took_ms": took_ms,
                "event_id": event_id,
            });
            Ok(super::Output::ok(super::words::fits(summary), value))
        }
        Err(failure) => {
            record(ctx, &found, &a.arguments, Outcome::Failed(&failure), took_ms).await?;
            super::connection_ops::mark_if_broken(ctx, &found.server, failure.because, &failure.detail).await;
            Err(unavailable(&found.server, &failure))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tool_server::{Because, ToolServers};

    #[test]
    fn a_failure_is_said_once_with_what_mends_it() {
        let settings = r#"{"up": {"type": "mcp", "url": "http://127.0.0.1:1/mcp", "allowed": "*"},
            "nokey": {"type": "mcp", "url": "http://127.0.0.1:1/mcp", "credential": {"kind": "secret", "name": "GONE"}}}"#;
        let (s, _) = ToolServers::read(|n| (n == "TOOL_SERVERS").then(|| settings.to_string()), false);
        let lost = Failure {
            because: Because::Unreachable,
            detail: "it could not be reached: Network connection lost.".into(),
        };
        assert_eq!(
            words::failure(s.named("up").unwrap(), lost.because, &lost.detail),
            format!("it could not be reached: Network connection lost; {}.", Because::Unreachable.mends())
        );
        // An entry that cannot be used already says what mends it, once.
        let nokey = s.named("nokey").unwrap();
        let unusable = nokey.state.clone().unwrap_err();
        let failure = Failure { because: unusable.because, detail: unusable.detail.clone() };
        assert_eq!(words::failure(nokey, failure.because, &failure.detail), unusable.detail);
        let refused = unavailable(nokey, &failure);
        assert!(refused
            .detail
            .starts_with("The tool server “nokey” cannot be used just now (secret_not_set): its credential"));
        assert_eq!(refused.detail.matches("wrangler secret put").count(), 1, "{}", refused.detail);
    }

    #[test]
    fn an_answer_is_kept_within_its_bytes_at_a_character_edge() {
        assert_eq!(cut_to_bytes("short", 10), "short");
        let ascii = cut_to_bytes(&"a".repeat(40), 10);
        assert_eq!((ascii.len(), ascii.as_str()), (10, "aaaaaaa\u{2026}"));
        let euros = cut_to_bytes(&"\u{20ac}".repeat(40), 32);
        assert!(euros.len() <= 32 && euros.ends_with('\u{2026}'), "{euros}");
        assert_eq!(euros.chars().filter(|c| *c == '\u{20ac}').count(), 9);
    }
}
