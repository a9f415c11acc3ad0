//! An interaction's run: the question it asks, rendered from its body over the input, and the
//! check of an answer against the shape the function declares.

use serde_json::Value;

use super::{InteractionSpec, Reach};
use crate::core::definition::template::environment;
use crate::core::error::Problem;
use crate::core::run::{Request, RunError};

/// The request an `ask` interaction makes, or why it cannot be made.
pub fn ask(spec: &InteractionSpec, input: &Value, now: &str) -> Result<Request, RunError> {
    let answer_schema = match &spec.reach {
        Reach::Ask { answer_schema } => answer_schema.clone(),
        Reach::Notify => {
            return Err(RunError::new(
                crate::core::ErrorCode::NotServed,
                "a notification is sent through a tool server, and this version reaches none yet",
            ))
        }
    };
    let env = environment();
    let question = env.render_str(&spec.body, minijinja::context! { input => input }).map_err(|e| {
        RunError::new(
            crate::core::ErrorCode::Template,
            format!("the question could not be written: {}", e.detail().unwrap_or("it failed")),
        )
    })?;
    Ok(Request { question: question.trim().to_string(), answer_schema, asked_at: now.to_string() })
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
}
