//! A reasoning function's run, without its I/O: the prompt its document writes over the input,
//! and what the model's answer makes of the run.

use serde_json::Value;

use super::ReasoningSpec;
use crate::core::definition::template::{self, environment};
use crate::core::model::wire::{Answer, Call, Stop};
use crate::core::run::RunError;

/// What one run of the function asks its model.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Prepared {
    pub model: String,
    pub tools: Vec<String>,
    pub call: Call,
}

/// Writes the prompt: the system block and the rest of the body, each rendered over `input`.
pub fn prepare(spec: &ReasoningSpec, input: &Value) -> Result<Prepared, RunError> {
    let env = environment();
    let render = |part: &str, text: &str| {
        template::render(&env, text, minijinja::context! { input => input }).map(|s| s.trim().to_string()).map_err(
            |e| {
                RunError::new(
                    crate::core::ErrorCode::Template,
                    format!("the {part} part could not be written: {}", e.detail().unwrap_or("it failed")),
                )
            },
        )
    };
    let system = spec.system.as_deref().map(|s| render("system", s)).transpose()?.filter(|s| !s.is_empty());
    let user = render("user", &spec.user)?;
    Ok(Prepared {
        model: spec.model.clone(),
        tools: spec.tools.clone(),
        call: Call {
            system,
            user,
            max_tokens: spec.max_tokens,
            temperature: spec.temperature,
            output_schema: spec.output_schema.clone(),
        },
    })
}

/// The JSON inside an answer, which a model may wrap in a Markdown code fence.
fn json_text(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else { return t };
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

/// The run's output from the model's answer, or why the answer does not make one.
pub fn finish(answer: &Answer, call: &Call) -> Result<Value, RunError> {
    let cut = || {
        RunError::new(crate::core::ErrorCode::MaxTokens,
            format!(
                "The model's answer was cut off at max_tokens ({}) before it ended; raise max_tokens in the function, or ask for a shorter answer.",
                call.max_tokens
            ),
        )
    };
    match answer.stop {
        Stop::Refused => {
            let said = crate::core::text::cap(answer.text.trim(), 300);
            let said = if said.is_empty() { String::new() } else { format!(": {said}") };
            return Err(RunError::new(
                crate::core::ErrorCode::ModelRefused,
                format!("The model declined to answer{said}"),
            ));
        }
        Stop::Cut if call.output_schema.is_none() => return Err(cut()),
        _ => {}
    }
    let Some(schema) = &call.output_schema else {
        return Ok(Value::String(answer.text.trim().to_string()));
    };
    let value: Value = match serde_json::from_str(json_text(&answer.text)) {
        Ok(v) => v,
        Err(_) if answer.stop == Stop::Cut => return Err(cut()),
        Err(e) => {
            return Err(RunError::new(
                crate::core::ErrorCode::OutputSchema,
                format!("The model's answer is not JSON ({e}), so it does not fit the output schema."),
            ))
        }
    };
    let validator = crate::core::schema::compiled(schema).map_err(|e| {
        RunError::new(crate::core::ErrorCode::Document, format!("the saved output schema does not compile: {e}"))
    })?;
    let problems: Vec<String> =
        validator.iter_errors(&value).take(3).map(|e| format!("at /output{}: {e}", e.pointer)).collect();
    if problems.is_empty() {
        Ok(value)
    } else {
        Err(RunError::new(
            crate::core::ErrorCode::OutputSchema,
            format!("The model's answer does not fit the output schema: {}.", problems.join("; ")),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::{spec, Kind, Spec};
    use serde_json::json;

    fn prepared(source: &str, input: &Value) -> Result<Prepared, RunError> {
        match spec(Kind::Reasoning, source) {
            Ok(Spec::Reasoning(s)) => prepare(&s, input),
            other => panic!("a reasoning function's spec: {other:?}"),
        }
    }

    const SOURCE: &str = "---\ndescription: Reviews a brief\nmodel: anthropic/claude-sonnet-4-5\ninput:\n  schema: {type: object, properties: {file: {type: string}}}\noutput:\n  schema: {type: object, properties: {verdict: {enum: [ready, revise]}}, required: [verdict]}\nmax_tokens: 50\n---\n{% system %}Review {{ input.file }} closely.{% endsystem %}\nFile: {{ input.file }}\n";

    fn answer(text: &str, stop: Stop) -> Answer {
        Answer { text: text.into(), stop, input_tokens: None, output_tokens: None, uses: Vec::new() }
    }

    #[test]
    fn the_prompt_is_written_over_the_input() {
        let p = prepared(SOURCE, &json!({"file": "a.txt"})).unwrap();
        assert_eq!(p.model, "anthropic/claude-sonnet-4-5");
        assert_eq!(p.call.system.as_deref(), Some("Review a.txt closely."));
        assert_eq!((p.call.user.as_str(), p.call.max_tokens), ("File: a.txt", 50));
        let e = prepared(SOURCE, &json!({})).unwrap_err();
        assert_eq!(e.reason, crate::core::ErrorCode::Template);
    }

    #[test]
    fn answers_become_outputs_or_failures() {
        let call = prepared(SOURCE, &json!({"file": "a"})).unwrap().call;
        let ok = finish(&answer("```json\n{\"verdict\": \"ready\"}\n```", Stop::Done), &call).unwrap();
        assert_eq!(ok, json!({"verdict": "ready"}));
        let e = finish(&answer("{\"verdict\": \"maybe\"}", Stop::Done), &call).unwrap_err();
        assert_eq!(e.reason, crate::core::ErrorCode::OutputSchema);
        assert!(e.detail.contains("at /output/verdict"), "{}", e.detail);
        assert_eq!(finish(&answer("{\"verd", Stop::Cut), &call).unwrap_err().reason, crate::core::ErrorCode::MaxTokens);
        assert_eq!(
            finish(&answer("Sure! Here", Stop::Done), &call).unwrap_err().reason,
            crate::core::ErrorCode::OutputSchema
        );
        let e = finish(&answer("I can't help with that.", Stop::Refused), &call).unwrap_err();
        assert_eq!(e.detail, "The model declined to answer: I can't help with that.");
        let text = Call { output_schema: None, ..call };
        assert_eq!(finish(&answer(" Fine. ", Stop::Done), &text).unwrap(), json!("Fine."));
    }
}
