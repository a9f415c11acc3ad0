//! The checker of an interaction function's document, which builds its spec.

use serde_json::Value;

use super::super::check::Findings;
use super::{InteractionSpec, Reach, EXPIRES_MAX_HOURS};

const KEYS: &[&str] = &["description", "page", "input", "ask", "notify"];

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
        (true, false) => ask(f).map(|answer_schema| Reach::Ask { answer_schema: answer_schema.clone() }),
        (false, true) => {
            notify(f);
            Some(Reach::Notify)
        }
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

/// The answer's schema, where `ask` is whole.
fn ask<'d>(f: &mut Findings<'d>) -> Option<&'d Value> {
    f.mapping("/ask", true)?;
    f.only_keys("/ask", &["answer", "deliver", "expires_in_hours"], "ask");
    let mut answer_schema = None;
    if f.mapping("/ask/answer", true).is_some() {
        f.only_keys("/ask/answer", &["schema"], "answer");
        answer_schema = f.schema("/ask/answer/schema", true, true);
    }
    f.integer("/ask/expires_in_hours", 1, EXPIRES_MAX_HOURS);
    match f.get("/ask/deliver").map(|v| v.as_str()) {
        None => f.error(
            "/ask/deliver",
            "is required: say how the request reaches the person. No tool server of this playbook can send a request and read its replies yet, so write deliver: agent, and the agent answers it through list_interactions and answer_interaction",
        ),
        Some(Some("agent")) => {}
        Some(_) => f.error(
            "/ask/deliver",
            "must be agent: no tool server of this playbook can send a request and read its replies yet, so the request is delivered to the agent through list_interactions",
        ),
    }
    answer_schema
}

fn notify(f: &mut Findings<'_>) {
    if f.mapping("/notify", true).is_none() {
        return;
    }
    f.only_keys("/notify", &["tool", "arguments"], "notify");
    match f.get("/notify/tool") {
        None => f.error(
            "/notify/tool",
            "is required: a notification is sent through one tool, as server/tool. No tool server of this playbook can send one, since this runtime reaches none",
        ),
        Some(v) if v.as_str() == Some("agent") => f.error(
            "/notify/tool",
            "cannot be agent: a notification is sent through a tool, as server/tool, and nobody waits for it. To ask the agent, write ask with deliver: agent",
        ),
        Some(v) => {
            f.tool_name("/notify/tool", v, false);
        }
    }
    if let Some(args) = f.mapping("/notify/arguments", false) {
        for (key, value) in args.clone() {
            f.templated(&format!("/notify/arguments/{}", super::super::check::escape(&key)), &value);
        }
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
        assert!(p.detail.contains("deliver: agent"), "{}", p.detail);
        let notify = "---\ndescription: Tells the team\ninput: { schema: { type: object } }\nnotify: { tool: agent }\n---\nDone.\n";
        let p = check_document(Kind::Interaction, notify).unwrap_err();
        assert_eq!(p.errors[0].pointer, "/notify/tool");
        let ok = notify.replace("tool: agent", "tool: chat/post_message, arguments: { text: \"{{ input.x }}\" }");
        assert!(check_document(Kind::Interaction, &ok).is_ok());
    }
}
