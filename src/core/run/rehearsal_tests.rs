use serde_json::json;

use super::*;

#[test]
fn stand_ins_are_read_with_each_problem_at_its_pointer() {
    let good = json!({
        "tools": { "crm/find": [{ "structured": { "id": 7 } }, { "text": "none", "is_error": true }] },
        "models": { "triage": [{ "tool_calls": [{ "tool": "crm/find", "arguments": { "q": "a" } }] }, { "output": { "ok": true } }] },
        "people": { "approve": [{ "approved": true }, { "approved": false }] }
    });
    let read_back = read(&good).unwrap();
    assert_eq!(read_back.tools.len() + read_back.models.len() + read_back.people.len(), 3);
    let bad = json!({
        "tools": { "find": { "text": "x" }, "crm/a~b": { "nothing": 1 } },
        "models": { "triage": [] },
        "robots": {}
    });
    let p = read(&bad).unwrap_err();
    let pointers: Vec<&str> = p.errors.iter().map(|e| e.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        ["/stand_ins/tools/find", "/stand_ins/tools/crm~1a~0b", "/stand_ins/models/triage", "/stand_ins/robots"]
    );
    assert!(read(&json!([1])).is_err());
    let huge = json!({ "people": { "a": "x".repeat(STAND_INS_MAX_BYTES) } });
    assert_eq!(read(&huge).unwrap_err().errors[0].pointer, "/stand_ins");
}

#[test]
fn a_list_answers_in_order_and_one_answer_answers_every_call() {
    let s = read(&json!({ "tools": { "crm/find": [{ "structured": { "id": 1 } }], "crm/all": { "text": "same" } } }))
        .unwrap();
    assert!(matches!(s.tool("crm/find", 0), Called::Answered { structured: Some(v), .. } if v == json!({"id": 1})));
    let Called::Failed { because, detail } = s.tool("crm/find", 1) else { panic!("a second call has no answer") };
    assert_eq!(because, "no_stand_in");
    assert!(detail.contains("answered its first 1") && detail.contains("stand_ins.tools[\"crm/find\"]"), "{detail}");
    assert!(matches!(s.tool("crm/all", 5), Called::Answered { text, .. } if text == "same"));
    let Called::Failed { detail, .. } = s.tool("mail/send", 0) else { panic!("no stand-in") };
    assert!(detail.contains("no stand-in for the tool mail/send") && detail.contains("nothing was called"), "{detail}");
}

#[test]
fn a_model_s_stand_in_reads_as_a_provider_s_answer() {
    let s = read(&json!({ "models": { "triage": [
        { "tool_calls": [{ "tool": "crm/find", "arguments": { "q": "a" } }] },
        { "output": { "ok": true } }
    ] } }))
    .unwrap();
    let offered = bound(&["crm/find".to_string()]);
    let first = s.model("triage", 0, &offered).unwrap();
    assert_eq!((first.stop, first.uses[0].name.as_str()), (Stop::Tools, offered[0].offer.name.as_str()));
    let second = s.model("triage", 1, &offered).unwrap();
    assert_eq!((second.stop, second.text.as_str()), (Stop::Done, "{\"ok\":true}"));
    let e = s.model("triage", 2, &offered).unwrap_err();
    assert_eq!(e.reason, ErrorCode::NoStandIn);
    assert!(s.model("other", 0, &offered).unwrap_err().detail.contains("stand_ins.models[\"other\"]"));
}

#[test]
fn each_step_takes_the_person_s_answer_after_those_before_it() {
    let s = read(&json!({ "people": { "approve": [{ "approved": true }, { "approved": false }] } })).unwrap();
    assert_eq!(s.person("approve"), Ok(json!({ "approved": true })));
    assert_eq!(s.at(1).person("approve"), Ok(json!({ "approved": false })));
    let e = s.at(2).person("approve").unwrap_err();
    assert!(e.detail.contains("answered its first 2"), "{}", e.detail);
    assert!(s.person("sign-off").unwrap_err().detail.contains("stand_ins.people[\"sign-off\"]"));
}
