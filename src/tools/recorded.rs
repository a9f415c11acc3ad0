//! The summaries the spec recorded from its two-step review-and-approval workflow, checked word
//! for word against the words the operations write.

use serde_json::json;

use super::{answer_interaction, create_definition, list_interactions, list_playbook_events, run_words};
use crate::core::definition::record::{Definition, DefinitionStatus};
use crate::core::definition::store::DefinitionView;
use crate::core::definition::{Kind, Ref};
use crate::core::run::{Request, Run, RunStatus};

fn view(kind: Kind, name: &str, description: &str, has_page: bool) -> DefinitionView {
    DefinitionView {
        definition: Definition {
            kind,
            name: name.into(),
            version: 1,
            status: DefinitionStatus::Active,
            description: description.into(),
            has_page,
            tool: None,
            created_at: "2026-12-03T10:00:00.000Z".into(),
            updated_at: "2026-12-03T10:00:00.000Z".into(),
            created_by: None,
            updated_by: None,
        },
        document: String::new(),
        overview: String::new(),
        diagram: None,
        used_by: Vec::new(),
        changed: true,
    }
}

fn run(kind: Kind, name: &str, status: RunStatus) -> Run {
    Run {
        run_id: "run_example".into(),
        org: "acme".into(),
        playbook: "pb_example".into(),
        definition: Ref { kind, name: name.into() },
        version: 1,
        input: json!({}),
        status,
        started_at: "2026-12-03T10:00:00.000Z".into(),
        within: None,
        steps: None,
        started_by: None,
        answered_by: None,
        record: None,
        rerun_of: None,
        rehearsal: false,
        stand_ins: None,
    }
}

fn finished(output: serde_json::Value) -> RunStatus {
    RunStatus::Succeeded { output, finished_at: "2026-12-03T10:01:00.000Z".into() }
}

#[test]
fn the_recorded_summaries_read_word_for_word() {
    let approval = json!({ "verdict": "approve", "note": "Approved for the autumn launch." });
    let interaction = view(
        Kind::Interaction,
        "approve-campaign-brief",
        "Asks the campaign owner, in the team chat, to approve a reviewed brief.",
        true,
    );
    let workflow = view(
        Kind::Workflow,
        "review-and-approve",
        "Reviews a campaign brief, then asks its owner to approve it.",
        false,
    );
    let running = run(Kind::Workflow, "review-and-approve", RunStatus::Started { waiting: None });
    let done = run(
        Kind::Workflow,
        "review-and-approve",
        finished(json!({ "review": "Revise: the audience lacks a job role.", "approval": approval })),
    );
    let answered = run(Kind::Interaction, "approve-campaign-brief", finished(approval.clone()));
    let recorded = [
        (
            create_definition::created(&interaction),
            "Created the interaction function “approve-campaign-brief”. What it does: Asks the campaign owner, in the team chat, to approve a reviewed brief. It has been saved but has not been run yet.",
        ),
        (
            create_definition::created(&workflow),
            "Created the workflow “review-and-approve”. What it does: Reviews a campaign brief, then asks its owner to approve it. It has been saved but has not been run yet. It has no page yet; the page guide says how to give it one.",
        ),
        (
            run_words::started(&running),
            "The workflow “review-and-approve” has started and is still running. It carries on by itself, and how it ends can be looked up later.",
        ),
        (
            run_words::outcome(&running),
            "The workflow “review-and-approve” is still running; how it ends can be looked up again later.",
        ),
        (list_interactions::summary(1), "Found 1 request waiting on this page."),
        (
            answer_interaction::ANSWERED.to_string(),
            "The request is answered: the run that asked it takes the answer within the host's sweep, a second by default, and get_run shows how it ended.",
        ),
        (
            run_words::outcome(&done),
            "The run of the workflow “review-and-approve” finished. Its result: review: “Revise: the audience lacks a job role.” and approval: (verdict: “approve” and note: “Approved for the autumn launch.”)",
        ),
        (
            list_playbook_events::summary(19, true, false),
            "Found 19 events of the run asked for in this playbook, oldest first, each with its fact and its metadata.",
        ),
        (
            run_words::outcome(&answered),
            "The run of the interaction function “approve-campaign-brief” finished. Its answer: verdict: “approve” and note: “Approved for the autumn launch.”",
        ),
        (list_interactions::summary(0), "No request is waiting."),
    ];
    for (said, spec) in recorded {
        assert_eq!(said, spec);
    }
}

#[test]
fn a_waiting_interaction_says_where_its_request_is() {
    let request = Request {
        question: "Approve?".into(),
        answer_schema: json!({}),
        asked_at: "t".into(),
        expires_at: None,
        through: None,
    };
    let waiting = run(Kind::Interaction, "approve-campaign-brief", RunStatus::Started { waiting: Some(request) });
    let said = run_words::started(&waiting);
    assert!(said.contains("list_interactions shows the request, and answer_interaction answers it"), "{said}");
}
