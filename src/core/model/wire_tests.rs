//! The wire formats against the shapes each provider documents.

use super::*;
use crate::core::model::{resolve, ModelSettings};

fn settings() -> ModelSettings {
    let vars =
        [("ANTHROPIC_API_KEY", "sk-ant"), ("OPENAI_API_KEY", "sk-oa"), ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")];
    ModelSettings::read(|n| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| v.to_string()))
}

fn call() -> Call {
    Call {
        system: Some("Review.".into()),
        user: "Brief".into(),
        max_tokens: 100,
        temperature: Some(0.2),
        output_schema: Some(json!({"type": "object"})),
    }
}

#[test]
fn anthropic_requests_and_answers() {
    let t = resolve(&settings(), "anthropic/claude-sonnet-4-5").unwrap();
    let r = request(&t, &call(), &Talk::default());
    assert_eq!(r.url, "https://api.anthropic.com/v1/messages");
    assert!(r.headers.contains(&("x-api-key", "sk-ant".into())));
    let body = r.body.unwrap();
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert!(body["system"].as_str().unwrap().starts_with("Review.\n\nAnswer with one JSON value"));
    let ok = r#"{"content":[{"type":"text","text":"{}"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":2}}"#;
    let a = answer(&t.provider, 200, ok).unwrap();
    assert_eq!((a.text.as_str(), a.stop, a.output_tokens), ("{}", Stop::Done, Some(2)));
    let refused = r#"{"content":[],"stop_reason":"refusal"}"#;
    assert_eq!(answer(&t.provider, 200, refused).unwrap().stop, Stop::Refused);
    let e = answer(&t.provider, 529, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)
        .unwrap_err();
    assert_eq!(e.detail, "The provider anthropic answered 529 overloaded_error: Overloaded. The provider failed or is overloaded: start the run again later.");
}

#[test]
fn openai_requests_and_answers() {
    let t = resolve(&settings(), "openai/gpt-4.1").unwrap();
    let r = request(&t, &call(), &Talk::default());
    assert_eq!(r.url, "http://127.0.0.1:9/v1/chat/completions");
    assert!(r.headers.contains(&("authorization", "Bearer sk-oa".into())));
    let body = r.body.unwrap();
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["response_format"]["type"], "json_schema");
    let cut = r#"{"choices":[{"message":{"content":"{\"a\""},"finish_reason":"length"}]}"#;
    assert_eq!(answer(&t.provider, 200, cut).unwrap().stop, Stop::Cut);
    let e = answer(&t.provider, 401, r#"{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}"#)
        .unwrap_err();
    assert!(e.detail.contains("401 invalid_request_error: Incorrect API key. Its key was refused"), "{}", e.detail);
    assert!(answer(&t.provider, 200, "<html>").is_err());
}

#[test]
fn model_lists_of_both_apis() {
    let a = models(Api::Anthropic, r#"{"data":[{"id":"claude-x","display_name":"Claude X","created_at":"2025-09-29T00:00:00Z","type":"model"}],"has_more":false}"#).unwrap();
    assert_eq!((a[0].name.as_deref(), a[0].created), (Some("Claude X"), 1759104000));
    let o = models(
        Api::Openai,
        r#"{"object":"list","data":[{"id":"gpt-4.1","object":"model","created":5,"owned_by":"system"}]}"#,
    )
    .unwrap();
    assert_eq!((o[0].id.as_str(), o[0].created, o[0].name.clone()), ("gpt-4.1", 5, None));
    assert!(models(Api::Openai, "{}").is_err());
}

fn talk(last: bool) -> Talk {
    Talk {
        tools: vec![Offer {
            name: "files__read_text_file".into(),
            description: "Read a file".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
        rounds: vec![Round {
            said: "I will read it.".into(),
            uses: vec![ToolUse {
                id: "call_1".into(),
                name: "files__read_text_file".into(),
                input: json!({"path": "a.txt"}),
            }],
            results: vec![ToolResult { id: "call_1".into(), text: "ENOENT: no such file".into(), is_error: true }],
        }],
        last,
    }
}

#[test]
fn anthropic_offers_tools_and_carries_each_round_back() {
    let t = resolve(&settings(), "anthropic/claude-sonnet-4-5").unwrap();
    let body = request(&t, &call(), &talk(false)).body.unwrap();
    assert_eq!(body["tools"][0]["name"], "files__read_text_file");
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
    assert!(body.get("tool_choice").is_none());
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1]["content"][0], json!({"type": "text", "text": "I will read it."}));
    assert_eq!(messages[1]["content"][1]["type"], "tool_use");
    assert_eq!(messages[1]["content"][1]["input"], json!({"path": "a.txt"}));
    assert_eq!(
        messages[2]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "call_1", "content": "ENOENT: no such file", "is_error": true})
    );
    let last = request(&t, &call(), &talk(true)).body.unwrap();
    assert_eq!(last["tool_choice"], json!({"type": "none"}));

    let asks = r#"{"content":[{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_1","name":"files__read_text_file","input":{"path":"b.txt"}}],"stop_reason":"tool_use","usage":{"input_tokens":9,"output_tokens":3}}"#;
    let a = answer(&t.provider, 200, asks).unwrap();
    assert_eq!((a.stop, a.text.as_str()), (Stop::Tools, "Reading."));
    assert_eq!(
        a.uses,
        vec![ToolUse { id: "toolu_1".into(), name: "files__read_text_file".into(), input: json!({"path": "b.txt"}) }]
    );
    let nameless = r#"{"content":[{"type":"tool_use","id":"toolu_1","input":{}}],"stop_reason":"tool_use"}"#;
    assert_eq!(answer(&t.provider, 200, nameless).unwrap_err().reason, crate::core::ErrorCode::ProviderError);
}

#[test]
fn openai_offers_functions_and_reads_tool_calls() {
    let t = resolve(&settings(), "openai/gpt-4.1").unwrap();
    let body = request(&t, &call(), &talk(true)).body.unwrap();
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["parameters"]["type"], "object");
    assert_eq!(body["tool_choice"], "none");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(messages[2]["tool_calls"][0]["function"]["arguments"], r#"{"path":"a.txt"}"#);
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "Error: ENOENT: no such file"})
    );

    let asks = r#"{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[
        {"id":"call_a","type":"function","function":{"name":"files__read_text_file","arguments":"{\"path\": \"b.txt\"}"}},
        {"id":"call_b","type":"function","function":{"name":"files__read_text_file","arguments":"{not json"}}]},
        "finish_reason":"tool_calls"}]}"#;
    let a = answer(&t.provider, 200, asks).unwrap();
    assert_eq!((a.stop, a.text.as_str(), a.uses.len()), (Stop::Tools, "", 2));
    assert_eq!(a.uses[0].input, json!({"path": "b.txt"}));
    assert_eq!(a.uses[1].input, json!("{not json"), "arguments that are not JSON are kept as written");
}
