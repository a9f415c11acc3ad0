//! The checker of an interaction function's document, which builds its spec.

use serde_json::Value;

use super::super::check::Findings;
use super::super::tool_call::ToolCallSpec;
use super::{Delivery, InteractionSpec, Reach, EXPIRES_DEFAULT_HOURS, EXPIRES_MAX_HOURS, REPLIES_EVERY_DEFAULT};

/// How often the replies of a request sent through a tool may be read, in seconds.
const REPLIES_EVERY_MIN: i64 = 5;
const REPLIES_EVERY_MAX: i64 = 3600;

const KEYS: &[&str] = &["description", "page", "input", "ask", "notify"];

/// What the refusal of a request with no `deliver` says, before the save adds which tool servers
/// of the playbook could deliver it.
pub const DELIVER_REQUIRED: &str = "is required: say how the request reaches the person. Write deliver: agent, and the agent answers it through list_interactions and answer_interaction; or deliver: {send: {tool: server/tool, arguments: {…}}, replies: {tool: server/tool, arguments: {…}}}, a tool that sends the request and one that reads the replies";
/// What the refusal of a notification with no tool says, before the save adds which servers could.
pub const NOTIFY_TOOL_REQUIRED: &str = "is required: a notification is sent through one tool, as server/tool";

/// The spec, where the document gave every part of it; each problem goes to the findings.
pub fn check(f: &mut Findings<'_>) -> Option<InteractionSpec> {
    f.only_keys("", KEYS, "an interaction function");
    f.only_keys("/input", &["schema"], "input");
    let input_schema = match f.mapping("/input", true) {
        Some(_) => f.schema("/input/schema", true, true),
        None => None,
    };
    let reach = match (f.get("/ask").is_some(), f.get("/notify").is_some()) {
        (true, true) => {
            f.error("/notify", "an interaction asks a person or sends a notification: give ask or notify, not both");
            None
        }
        (false, false) => {
            f.error("/ask", "is required, or notify: an interaction asks a person and waits, or sends a notification");
            None
        }
        (true, false) => ask(f),
        (false, true) => notify(f).map(Reach::Notify),
    };
    let body = f.doc.body;
    if body.trim().is_empty() {
        f.error_at_line(
            f.doc.body_line,
            1,
            "is empty: write what the person reads, such as Approve the brief {{ input.title }}?",
        );
    } else {
        f.template("/body", body, Some(f.doc.body_line), &["input"]);
    }
    Some(InteractionSpec { input_schema: input_schema?.clone(), reach: reach?, body: body.to_string() })
}

fn ask(f: &mut Findings<'_>) -> Option<Reach> {
    f.mapping("/ask", true)?;
    f.only_keys("/ask", &["answer", "deliver", "expires_in_hours"], "ask");
    let mut answer_schema = None;
    if f.mapping("/ask/answer", true).is_some() {
        f.only_keys("/ask/answer", &["schema"], "answer");
        answer_schema = f.schema("/ask/answer/schema", true, true).cloned();
    }
    let expires_in_hours = f.integer("/ask/expires_in_hours", 1, EXPIRES_MAX_HOURS).unwrap_or(EXPIRES_DEFAULT_HOURS);
    let delivery = match f.get("/ask/deliver").cloned() {
        None => {
            f.error("/ask/deliver", DELIVER_REQUIRED);
            None
        }
        Some(Value::String(word)) if word == "agent" => Some(Delivery::Agent),
        Some(Value::Object(_)) => through_tools(f),
        Some(_) => {
            f.error(
                "/ask/deliver",
                "must be agent, or a mapping of send and replies: a tool that sends the request and one that reads the replies",
            );
            None
        }
    };
    Some(Reach::Ask { answer_schema: answer_schema?, delivery: delivery?, expires_in_hours })
}

/// `deliver: {send: {tool, arguments}, replies: {tool, arguments, every_seconds}}`.
fn through_tools(f: &mut Findings<'_>) -> Option<Delivery> {
    f.only_keys("/ask/deliver", &["send", "replies"], "deliver");
    let send = match f.mapping("/ask/deliver/send", true) {
        Some(_) => {
            f.only_keys("/ask/deliver/send", &["tool", "arguments"], "send");
            ToolCallSpec::check(f, "/ask/deliver/send", "tool", &["input", "question"], false)
        }
        None => None,
    };
    let replies = match f.mapping("/ask/deliver/replies", true) {
        Some(_) => {
            f.only_keys("/ask/deliver/replies", &["tool", "arguments", "every_seconds"], "replies");
            ToolCallSpec::check(f, "/ask/deliver/replies", "tool", &["input", "question", "sent"], true)
        }
        None => None,
    };
    let every = f
        .integer("/ask/deliver/replies/every_seconds", REPLIES_EVERY_MIN, REPLIES_EVERY_MAX)
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(REPLIES_EVERY_DEFAULT);
    Some(Delivery::Tools { send: send?, replies: replies?, every_seconds: every })
}

fn notify(f: &mut Findings<'_>) -> Option<ToolCallSpec> {
    f.mapping("/notify", true)?;
    f.only_keys("/notify", &["tool", "arguments"], "notify");
    match f.get("/notify/tool") {
        None => {
            f.error("/notify/tool", NOTIFY_TOOL_REQUIRED);
            None
        }
        Some(v) if v.as_str() == Some("agent") => {
            f.error(
                "/notify/tool",
                "cannot be agent: a notification is sent through a tool, as server/tool, and nobody waits for it. To ask the agent, write ask with deliver: agent",
            );
            None
        }
        Some(_) => ToolCallSpec::check(f, "/notify", "tool", &["input", "message"], false),
    }
}

#[cfg(test)]
mod tests {
    use crate::core::definition::{check_document, Kind};

    const ASK: &str = "---\ndescription: Asks the campaign owner to approve a reviewed brief\ninput:\n  schema: { type: object, properties: { title: { type: string } }, required: [title] }\nask:\n  deliver: agent\n  answer:\n    schema:\n      type: object\n      properties:\n        verdict: { type: string, enum: [approve, revise] }\n        note: { type: string }\n      required: [verdict]\n---\nApprove the brief {{ input.title }}?\n";

    #[test]
    fn asks_the_agent() {
        assert!(check_document(Kind::Interaction, ASK).is_ok());
    }

    #[test]
    fn the_two_refusals_of_the_spec() {
        let p = check_document(Kind::Interaction, &ASK.replace("  deliver: agent\n", "")).unwrap_err();
        assert_eq!(p.errors[0].pointer, "/ask/deliver");
        assert!(p.detail.contains("deliver: agent") && p.detail.contains("replies"), "{}", p.detail);
        let notify = "---\ndescription: Tells the team\ninput: { schema: { type: object } }\nnotify: { tool: agent }\n---\nDone.\n";
        let p = check_document(Kind::Interaction, notify).unwrap_err();
        assert_eq!(p.errors[0].pointer, "/notify/tool");
        let ok = notify.replace("tool: agent", "tool: chat/post_message, arguments: { text: \"{{ input.x }}\" }");
        assert!(check_document(Kind::Interaction, &ok).is_ok());
    }

    #[test]
    fn a_request_goes_through_a_sending_tool_and_a_reading_one() {
        let through = ASK.replace(
            "  deliver: agent\n",
            "  deliver:\n    send: { tool: chat/post_message, arguments: { text: \"{{ question }}\" } }\n    replies: { tool: chat/read_replies, arguments: { message_id: \"{{ sent.structured.message_id }}\" }, every_seconds: 10 }\n",
        );
        let c = check_document(Kind::Interaction, &through).unwrap();
        let names: Vec<&str> = c.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["chat/post_message", "chat/read_replies"]);
        let pointers: Vec<&str> = c.tools.iter().map(|t| t.pointer.as_str()).collect();
        assert_eq!(pointers, ["/ask/deliver/send/tool", "/ask/deliver/replies/tool"]);
        let wrong =
            through.replace("{{ question }}", "{{ sent.text }}").replace("every_seconds: 10", "every_seconds: 1");
        let p = check_document(Kind::Interaction, &wrong).unwrap_err();
        let at: Vec<&str> = p.errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(at, ["/ask/deliver/send/arguments/text", "/ask/deliver/replies/every_seconds"], "{p:?}");
    }
}
