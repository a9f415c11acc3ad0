//! An interaction's run: the question it asks, rendered from its body over the input, and the
//! check of an answer against the shape the function declares.

use serde_json::{json, Map, Value};

use super::{Delivery, InteractionSpec, Reach};
use crate::core::definition::template::{environment, render};
use crate::core::error::Problem;
use crate::core::run::{Request, RunError, Through};
use crate::core::ErrorCode;

/// How often the replies of a request sent through a tool are read, by default.
pub const REPLIES_EVERY_DEFAULT: u64 = 60;

/// The request an `ask` interaction makes, or why it cannot be made: the question written from
/// the body, when it expires, and, where it is sent through tools, what reads its replies.
pub fn ask(spec: &InteractionSpec, input: &Value, now: &str) -> Result<Request, RunError> {
    let Reach::Ask { answer_schema, delivery, expires_in_hours } = &spec.reach else {
        return Err(RunError::new(ErrorCode::Internal, "a notification asks nothing"));
    };
    let question = body(spec, input)?;
    let expires_at = chrono::DateTime::parse_from_rfc3339(now)
        .ok()
        .and_then(|t| t.checked_add_signed(chrono::TimeDelta::hours(*expires_in_hours)))
        .map(|t| crate::core::text::stamp(t.with_timezone(&chrono::Utc)));
    let through = match delivery {
        Delivery::Agent => None,
        Delivery::Tools { send, replies, every_seconds } => Some(Box::new(Through {
            send: send.name.clone(),
            replies: replies.name.clone(),
            replies_arguments: replies.arguments.clone(),
            every_seconds: *every_seconds,
            sent: None,
            reader: None,
        })),
    };
    Ok(Request { question, answer_schema: answer_schema.clone(), asked_at: now.to_string(), expires_at, through })
}

/// The arguments of the call that sends a request through a tool, over the input and the question.
pub fn send(spec: &InteractionSpec, input: &Value, question: &str) -> Result<Map<String, Value>, RunError> {
    let Reach::Ask { delivery: Delivery::Tools { send, .. }, .. } = &spec.reach else {
        return Err(RunError::new(ErrorCode::Internal, "this request is not sent through a tool"));
    };
    send.render(&scope(&[("input", input.clone()), ("question", json!(question))]))
}

/// The tool a notification goes through and its arguments, over the input and the message, which
/// is the body written over the input.
pub fn notification(spec: &InteractionSpec, input: &Value) -> Result<(String, Map<String, Value>), RunError> {
    let Reach::Notify(call) = &spec.reach else {
        return Err(RunError::new(ErrorCode::Internal, "a request is not a notification"));
    };
    let message = body(spec, input)?;
    let arguments = call.render(&scope(&[("input", input.clone()), ("message", json!(message))]))?;
    Ok((call.name.clone(), arguments))
}

/// The answer a reading of the replies holds, if one fits the request's schema: the tool's
/// structured content, its text read as JSON, or, where the content lists replies, the first of
/// them that fits (a reply as it is, or its text read as JSON). Anything else is no reply yet.
pub fn reply(request: &Request, structured: Option<&Value>, text: &str) -> Option<Value> {
    let validator = crate::core::schema::compiled(&request.answer_schema).ok()?;
    let as_json = |t: &str| serde_json::from_str::<Value>(t.trim()).ok();
    let mut candidates: Vec<Value> = structured.into_iter().cloned().chain(as_json(text)).collect();
    let listed: Vec<Value> = structured
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|o| o.values())
        .filter_map(Value::as_array)
        .flatten()
        .flat_map(|item| {
            let text = item.as_str().or_else(|| item.get("text").and_then(Value::as_str));
            [Some(item.clone()), text.and_then(as_json)].into_iter().flatten()
        })
        .collect();
    candidates.extend(listed);
    candidates.into_iter().find(|v| validator.is_valid(v))
}

fn body(spec: &InteractionSpec, input: &Value) -> Result<String, RunError> {
    let env = environment();
    let text = render(&env, &spec.body, minijinja::context! { input => input }).map_err(|e| {
        RunError::new(
            ErrorCode::Template,
            format!("the question could not be written: {}", e.detail().unwrap_or("it failed")),
        )
    })?;
    Ok(text.trim().to_string())
}

fn scope(names: &[(&str, Value)]) -> Map<String, Value> {
    names.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

/// Checks an answer against the request's schema; each problem points into `answer`.
pub fn check_answer(request: &Request, answer: &Value) -> Result<(), Problem> {
    crate::core::schema::check(&request.answer_schema, answer, "/answer", crate::core::ErrorCode::AnswerSchema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::{spec, Kind, Spec};
    use serde_json::json;

    fn asked(source: &str, input: &Value) -> Result<Request, RunError> {
        match spec(Kind::Interaction, source) {
            Ok(Spec::Interaction(s)) => ask(&s, input, "t"),
            other => panic!("an interaction's spec: {other:?}"),
        }
    }

    const DOC: &str = "---\ndescription: Asks for approval\ninput:\n  schema: { type: object }\nask:\n  deliver: agent\n  answer:\n    schema: { type: object, properties: { verdict: { type: string, enum: [approve, revise] } }, required: [verdict] }\n---\nApprove the brief {{ input.title }}?\n";

    #[test]
    fn asks_and_checks_the_answer() {
        let r = asked(DOC, &json!({"title": "Autumn"})).unwrap();
        assert_eq!(r.question, "Approve the brief Autumn?");
        assert!(check_answer(&r, &json!({"verdict": "approve"})).is_ok());
        let p = check_answer(&r, &json!({"verdict": "maybe"})).unwrap_err();
        assert_eq!(
            (p.errors[0].pointer.as_str(), p.kind),
            ("/answer/verdict", Some(crate::core::ErrorCode::AnswerSchema))
        );
        assert_eq!(asked(DOC, &json!({})).unwrap_err().reason, crate::core::ErrorCode::Template);
    }

    #[test]
    fn a_reply_is_the_first_reading_that_fits() {
        let r = asked(DOC, &json!({"title": "Autumn"})).unwrap();
        let listed = json!({"message_id": "m1", "replies": ["maybe", "{\"verdict\": \"approve\"}"]});
        assert_eq!(reply(&r, Some(&listed), "maybe"), Some(json!({"verdict": "approve"})));
        assert_eq!(reply(&r, None, " {\"verdict\": \"revise\"} "), Some(json!({"verdict": "revise"})));
        assert_eq!(reply(&r, Some(&json!({"replies": []})), "No replies yet."), None);
    }
}
