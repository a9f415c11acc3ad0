//! The schemas of what runs and events record: a run and its steps, a row of the runs list, an
//! open request, an event. Written from the serde shapes in `core::run` and `core::event`.

use serde_json::{json, Value};

use super::shapes::{by, page_cursor, reference, text, time, when};
use crate::core::run::store::STATUSES;

pub(super) fn run() -> Value {
    json!({
        "type": "object",
        "description": "A run: one execution of a function or workflow with one input. Its status decides which of output, error, waiting and finished_at it has.",
        "properties": {
            "run_id": text("The run's id."),
            "org": text("The org the run belongs to."),
            "playbook": text("The playbook the run belongs to."),
            "definition": reference("DefinitionRef"),
            "version": { "type": "integer", "minimum": 1, "description": "The version of the definition it runs." },
            "input": { "description": "The input it was given." },
            "status": { "type": "string", "enum": STATUSES },
            "waiting": reference("WaitingRequest"),
            "output": { "description": "What a succeeded run answered." },
            "error": reference("RunError"),
            "finished_at": time("When it ended."),
            "started_at": time("When it started."),
            "within": reference("Within"),
            "rerun_of": reference("RerunOf"),
            "rehearsal": { "type": "boolean", "description": "A rehearsal: nothing it did reached outside the runtime. Absent for a run." },
            "stand_ins": { "type": "object", "description": "A rehearsal's stand-ins, as run_definition was given them: tools, models and people. get_run shows them." },
            "steps": { "type": "array", "items": reference("Step"), "description": "A workflow run's steps, in the order they started, then those that never did." },
            "started_by": by("Who or what started it."),
            "answered_by": by("Who answered an interaction's request."),
            "record": reference("RunRecord"),
            "picture": reference("Picture"),
            "page": reference("RunPageResult")
        },
        "required": ["run_id", "playbook", "definition", "version", "input", "status", "started_at"],
        "allOf": [
            when("status", "succeeded", &["output", "finished_at"]),
            when("status", "failed", &["error", "finished_at"]),
            when("status", "cancelled", &["finished_at"])
        ]
    })
}

pub(super) fn started_run() -> Value {
    json!({
        "type": "object",
        "description": "The run as it stands once started: how it ended if it finished at once, or started.",
        "allOf": [reference("Run")],
        "properties": {
            "check_back_in_seconds": { "type": "integer", "minimum": 0, "description": "For a run still started: when it is worth reading with get_run." },
            "studio": text("The playbook's Ledger in Studio with this run chosen: the link to give the person.")
        }
    })
}

pub(super) fn run_error() -> Value {
    json!({
        "type": "object",
        "description": "Why a run or a step failed.",
        "properties": { "reason": text("A stable reason."), "detail": text("The words that explain it.") },
        "required": ["reason", "detail"]
    })
}

pub(super) fn within() -> Value {
    json!({
        "type": "object",
        "description": "The workflow run, and its step, that started this run.",
        "properties": { "run_id": text("The workflow run."), "step": text("The step's id.") },
        "required": ["run_id", "step"]
    })
}

pub(super) fn rerun_of() -> Value {
    json!({
        "type": "object",
        "description": "The run this one was started again from with rerun_run, and the step it went on from.",
        "properties": { "run_id": text("The old run."), "from_step": text("The step it ran again from; none where it ran again whole.") },
        "required": ["run_id"]
    })
}

pub(super) fn waiting_request() -> Value {
    json!({
        "type": "object",
        "description": "What an interaction's run asks a person while it waits.",
        "properties": {
            "question": text("The question, as the person reads it."),
            "answer_schema": { "type": ["object", "boolean"], "description": "The JSON Schema an answer must fit." },
            "asked_at": time("When it was asked."),
            "expires_at": time("When it expires unanswered, and the run with it."),
            "through": {
                "type": "object",
                "description": "Where the request was sent through a tool: the sending tool and the one that reads the replies (each server/tool), how often the replies are read, and what the sending tool answered.",
                "properties": {
                    "send": text("server/tool"),
                    "replies": text("server/tool"),
                    "every_seconds": { "type": "integer", "minimum": 1 },
                    "sent": { "type": "object" }
                }
            }
        },
        "required": ["question", "answer_schema", "asked_at"]
    })
}

pub(super) fn step() -> Value {
    json!({
        "type": "object",
        "description": "One step of a workflow run.",
        "properties": {
            "step": text("The step's id."),
            "title": text("The id as words read it."),
            "status": { "type": "string", "enum": ["pending", "running", "waiting", "retrying", "succeeded", "failed", "skipped", "cancelled"] },
            "attempt": { "type": "integer", "minimum": 1 },
            "started_at": time("When it started."),
            "finished_at": time("When it ended."),
            "run_id": text("The run of its function, for a step that calls one."),
            "waiting_for": text("What a waiting step waits for, or when a retrying one tries again."),
            "error": reference("RunError"),
            "skipped_because": text("Why it was skipped.")
        },
        "required": ["step", "title", "status"]
    })
}

pub(super) fn run_record() -> Value {
    json!({
        "type": "object",
        "description": "How the run went, in detail, by the type of definition: a reasoning run's prompt, model and tool calls, a computation's values, a lookup's query, a prediction's series, a generation run's prompt, parameters and the assets it kept, a workflow's steps, or (type call) the one call of a lookup through a tool or an interaction sent through one. get_run alone answers it.",
        "properties": { "type": text("The type of definition the record is of.") },
        "required": ["type"]
    })
}

pub(super) fn run_entry() -> Value {
    json!({
        "type": "object",
        "description": "A run as a list shows it.",
        "properties": {
            "run_id": text("The run's id."),
            "definition": reference("DefinitionRef"),
            "version": { "type": "integer", "minimum": 1 },
            "status": { "type": "string", "enum": STATUSES },
            "started_at": time("When it started."),
            "finished_at": time("When it ended."),
            "within": reference("Within"),
            "rerun_of": text("The run this one was started again from with rerun_run."),
            "rehearsal": { "type": "boolean", "description": "A rehearsal, listed with rehearsal: true alone." },
            "started_by": by("Who or what started it.")
        },
        "required": ["run_id", "definition", "version", "status", "started_at"]
    })
}

pub(super) fn run_page() -> Value {
    json!({
        "type": "object",
        "properties": {
            "runs": { "type": "array", "items": reference("RunEntry"), "description": "Newest first." },
            "next_cursor": page_cursor()
        },
        "required": ["runs", "next_cursor"]
    })
}

pub(super) fn open_request() -> Value {
    json!({
        "type": "object",
        "description": "An open request of an interaction's run.",
        "properties": {
            "run_id": text("The run that asks, which answer_interaction takes."),
            "definition": reference("DefinitionRef"),
            "question": text("The question, as the person reads it."),
            "answer_schema": { "type": ["object", "boolean"], "description": "The JSON Schema an answer must fit." },
            "asked_at": time("When it was asked."),
            "expires_at": time("When it expires unanswered.")
        },
        "required": ["run_id", "definition", "question", "answer_schema", "asked_at"]
    })
}

pub(super) fn request_page() -> Value {
    json!({
        "type": "object",
        "properties": {
            "requests": { "type": "array", "items": reference("OpenRequest"), "description": "Newest first." },
            "next_cursor": page_cursor()
        },
        "required": ["requests", "next_cursor"]
    })
}

fn event_properties() -> Value {
    json!({
        "event_id": { "type": "string", "pattern": "^ev_[1-9][0-9]*$", "description": "The event's id." },
        "kind": text("What happened, such as run_started or month_closed."),
        "at": time("When it happened."),
        "summary": text("The event in a sentence for people."),
        "run_id": text("The run that recorded it, for an event a run recorded."),
        "data": { "description": "The facts of the event." }
    })
}

pub(super) fn event() -> Value {
    json!({
        "type": "object",
        "description": "One event of the playbook, whole.",
        "properties": event_properties(),
        "required": ["event_id", "kind", "at", "summary", "data"]
    })
}

pub(super) fn listed_event() -> Value {
    let mut properties = event_properties();
    properties["data_size"] = json!({ "type": "integer", "minimum": 0, "description": "In place of a large data: its size in bytes as JSON; get_event reads it whole." });
    json!({
        "type": "object",
        "description": "An event as a list shows it: its data, or the size of a large one.",
        "properties": properties,
        "required": ["event_id", "kind", "at", "summary"],
        "anyOf": [{ "type": "object", "required": ["data"] }, { "type": "object", "required": ["data_size"] }]
    })
}

pub(super) fn event_page() -> Value {
    json!({
        "type": "object",
        "properties": {
            "events": { "type": "array", "items": reference("ListedEvent"), "description": "Newest first; one run's oldest first." },
            "next_cursor": page_cursor()
        },
        "required": ["events", "next_cursor"]
    })
}
