//! The dialogue's rules: names the providers take, calls planned and refused, the limits, and
//! what the model reads of each answer.

use serde_json::json;

use super::*;

fn bound(server: &str, tool: &str) -> Bound {
    Bound {
        offer: Offer {
            name: model_name(server, tool, &BTreeSet::new()),
            description: format!("The tool {tool}"),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        },
        server: server.into(),
        tool: tool.into(),
        read_only: true,
        record_content: true,
    }
}

fn asks(uses: &[(&str, &str, Value)]) -> Answer {
    Answer {
        text: "Let me look.".into(),
        stop: Stop::Tools,
        input_tokens: None,
        output_tokens: None,
        uses: uses
            .iter()
            .map(|(id, name, input)| ToolUse { id: (*id).into(), name: (*name).into(), input: input.clone() })
            .collect(),
    }
}

#[test]
fn names_are_what_providers_take_and_never_twice() {
    let mut taken = BTreeSet::new();
    assert_eq!(model_name("files", "read_text_file", &taken), "files__read_text_file");
    assert_eq!(model_name("crm", "contacts.get", &taken), "crm__contacts_get");
    taken.insert("crm__contacts_get".to_string());
    assert_eq!(model_name("crm", "contacts-get", &taken), "crm__contacts-get");
    assert_eq!(model_name("crm", "contacts/get", &taken), "crm__contacts_get_2");
    let long = model_name("s", &"t".repeat(100), &BTreeSet::new());
    assert_eq!(long.len(), 64);
}

#[test]
fn a_call_is_planned_numbered_and_its_answer_read_back() {
    let mut d = Dialogue::new(vec![bound("files", "read_text_file")], 0);
    d.before_asking(0);
    let Next::Call { planned, refused } = d.take(&asks(&[("u1", "files__read_text_file", json!({"path": "a.txt"}))]))
    else {
        panic!("a call")
    };
    assert!(refused.is_empty());
    assert_eq!((planned[0].number, planned[0].tool.named()), (1, "files/read_text_file".to_string()));
    d.answered(
        &planned[0],
        &Called::Answered {
            text: "The brief".into(),
            structured: None,
            is_error: false,
            images: vec![],
            assets: vec![],
        },
    );
    let round = &d.talk.rounds[0];
    assert_eq!(round.said, "Let me look.");
    assert_eq!(round.results, vec![ToolResult { id: "u1".into(), text: "The brief".into(), is_error: false }]);
    let done = Answer { stop: Stop::Done, uses: Vec::new(), ..asks(&[]) };
    assert_eq!(d.take(&done), Next::Finish);
}

#[test]
fn unknown_tools_bad_arguments_and_misfits_are_refused_to_the_model() {
    let mut d = Dialogue::new(vec![bound("files", "read_text_file")], 0);
    d.before_asking(0);
    let Next::Call { planned, refused } = d.take(&asks(&[
        ("u1", "files__write_file", json!({"path": "a"})),
        ("u2", "files__read_text_file", json!("{oops")),
        ("u3", "files__read_text_file", json!({"path": 3})),
        ("u4", "files__read_text_file", json!({"path": "b.txt"})),
    ])) else {
        panic!("calls")
    };
    assert_eq!(planned.len(), 1);
    assert_eq!(planned[0].number, 1, "only calls made are numbered");
    let why: Vec<&str> = refused.iter().map(|r| r.why.as_str()).collect();
    assert!(why[0].contains("No tool") && why[0].contains("files__read_text_file"), "{}", why[0]);
    assert!(why[1].contains("not a JSON object"), "{}", why[1]);
    assert!(why[2].contains("at /path"), "{}", why[2]);
    let results = &d.talk.rounds[0].results;
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r.is_error));
}

#[test]
fn at_a_limit_the_model_must_answer_and_asking_again_fails_the_run() {
    let mut d = Dialogue::new(vec![bound("files", "read_text_file")], 0);
    for turn in 1..TURNS_MAX {
        d.before_asking(0);
        assert!(!d.talk.last, "turn {turn}");
        let Next::Call { planned, .. } = d.take(&asks(&[("u", "files__read_text_file", json!({"path": "a"}))])) else {
            panic!("a call")
        };
        d.answered(
            &planned[0],
            &Called::Answered { text: "x".into(), structured: None, is_error: false, images: vec![], assets: vec![] },
        );
    }
    d.before_asking(0);
    assert!(d.talk.last, "the last turn lets the model call nothing");
    let Next::Fail(e) = d.take(&asks(&[("u", "files__read_text_file", json!({"path": "a"}))])) else {
        panic!("a failure")
    };
    assert_eq!(e.reason, ErrorCode::ToolLimit);

    let mut late = Dialogue::new(vec![bound("files", "read_text_file")], 0);
    late.before_asking(TOOLS_SECONDS * 1000);
    assert!(late.talk.last, "time is a limit too");
    let mut none = Dialogue::new(Vec::new(), 0);
    none.before_asking(TOOLS_SECONDS * 1000);
    assert!(!none.talk.last, "a run without tools is never told to stop calling them");
}

#[test]
fn the_model_reads_a_bounded_part_of_long_answers() {
    let mut d = Dialogue::new(vec![bound("files", "read_text_file")], 0);
    let read = |d: &mut Dialogue, text: &str| {
        d.before_asking(0);
        let Next::Call { planned, .. } = d.take(&asks(&[("u", "files__read_text_file", json!({"path": "a"}))])) else {
            panic!("a call")
        };
        d.answered(
            &planned[0],
            &Called::Answered { text: text.into(), structured: None, is_error: false, images: vec![], assets: vec![] },
        );
        d.talk.rounds.last().unwrap().results[0].text.clone()
    };
    let long = "é".repeat(ANSWER_SHOWN_MAX);
    let shown = read(&mut d, &long);
    assert!(shown.len() < ANSWER_SHOWN_MAX + 100 && shown.contains("more; this is its start"), "{}", shown.len());
    for _ in 0..(ANSWERS_SHOWN_MAX / ANSWER_SHOWN_MAX) {
        read(&mut d, &"x".repeat(ANSWER_SHOWN_MAX));
    }
    assert!(read(&mut d, "short").contains("is left out"));
}
