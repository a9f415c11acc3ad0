use serde_json::{json, Value};

use super::components::REASONS;
use super::*;
use crate::core::definition::record::{Definition, DefinitionStatus};
use crate::core::definition::store::DefinitionView;
use crate::core::definition::{Kind, Ref};
use crate::core::event::{Event, NewEvent};
use crate::core::playbook::{Playbook, Status};
use crate::core::run::store::RunEntry;
use crate::core::run::{Request, Run, RunError, RunStatus};
use crate::core::{FieldError, Problem, Reason};

/// A validator of one component schema, its `$ref`s resolved inside the document.
fn validator(doc: &Value, schema: &str) -> crate::core::schema::Schema {
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "components": doc["components"],
        "$ref": format!("#/components/schemas/{schema}"),
    });
    crate::core::schema::Schema::compile(&root).unwrap_or_else(|e| panic!("{schema} does not compile: {e}"))
}

fn assert_fits(doc: &Value, schema: &str, value: &Value) {
    let v = validator(doc, schema);
    let errors: Vec<String> = v.iter_errors(value).map(|e| format!("{} at {}", e, e.pointer)).collect();
    assert!(errors.is_empty(), "{schema}: {errors:?}\n{value}");
}

fn assert_misfits(doc: &Value, schema: &str, value: &Value) {
    assert!(!validator(doc, schema).is_valid(value), "{schema} should refuse {value}");
}

fn operations(doc: &Value) -> Vec<(&str, &str, &Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            out.push((path.as_str(), method.as_str(), op));
        }
    }
    out
}

#[test]
fn every_tool_has_an_output_schema() {
    for tool in tools::all() {
        let s = outputs::of(tool.name).unwrap_or_else(|| panic!("{} has no output schema in outputs.rs", tool.name));
        assert!([200, 201].contains(&s.status), "{}", tool.name);
    }
}

#[test]
fn every_tool_is_an_operation_at_its_method_and_path() {
    let doc = document();
    for tool in tools::all() {
        let op = &doc["paths"][tool.path][&tool.method.as_str().to_ascii_lowercase()];
        assert_eq!(op["operationId"], tool.name, "{} {}", tool.method.as_str(), tool.path);
        assert_eq!(op["summary"], tool.title);
        assert_eq!(op["description"], tool.description);
        assert_eq!(op["x-scope"], json!(tool.scope.map(crate::core::caller::Scope::as_str)));
        assert_eq!(op["x-mcp-hints"]["readOnlyHint"], tool.hints.read_only);
        assert!(op["responses"]["default"].is_object(), "{}", tool.name);
    }
    let ops = operations(&doc);
    let mut ids: Vec<&str> = ops.iter().map(|(_, _, op)| op["operationId"].as_str().unwrap()).collect();
    let routes: usize = tools::all().iter().map(|t| tools::routes(t).count()).sum();
    assert_eq!(ids.len(), routes + 3, "every route of every tool, the guide list, this document and an asset's bytes");
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), ops.len(), "operationIds are unique");
    for (_, _, op) in ops {
        let id = op["operationId"].as_str().unwrap();
        let bytes = id == "get_asset_content" && op["responses"]["200"]["content"]["image/png"].is_object();
        assert!(outputs::of(id).is_some() || bytes, "{id} has no output schema");
    }
}

#[test]
fn the_document_says_what_it_is() {
    let doc = document();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["title"], "Auto Runtime HTTP API");
    assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(serde_json::from_str::<Value>(body()).unwrap(), doc);
}

fn refs<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                out.push(r);
            }
            map.values().for_each(|v| refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[test]
fn no_ref_dangles() {
    let doc = document();
    let mut found = Vec::new();
    refs(&doc, &mut found);
    assert!(found.len() > 50, "the operations share their schemas by reference");
    for r in found {
        let pointer = r.strip_prefix('#').unwrap_or_else(|| panic!("{r} points outside the document"));
        assert!(doc.pointer(pointer).is_some(), "{r} dangles");
    }
}

#[test]
fn parameters_are_the_route_s_and_the_rest_of_the_input() {
    let doc = document();
    for tool in tools::all() {
        let op = &doc["paths"][tool.path][&tool.method.as_str().to_ascii_lowercase()];
        let input = (tool.input_schema)();
        let params = op["parameters"].as_array().unwrap();
        let in_path: Vec<&str> =
            params.iter().filter(|p| p["in"] == "path").map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(in_path, path_names(tool.path), "{}", tool.name);
        for p in params.iter().filter(|p| p["in"] == "path") {
            assert_eq!(p["required"], true, "{}", tool.name);
        }
        let props = input["properties"].as_object().unwrap();
        let mut covered: Vec<&str> = in_path.clone();
        for p in params.iter().filter(|p| p["in"] == "query") {
            let name = p["name"].as_str().unwrap();
            // The route converts a query value only to these types (`from_query`).
            let kind = p["schema"]["type"].as_str().unwrap_or_default();
            let json = p["content"]["application/json"]["schema"].is_object();
            assert!(json || ["string", "integer", "boolean"].contains(&kind), "{}: {name} is {kind}", tool.name);
            covered.push(name);
        }
        if let Some(body) = op["requestBody"]["content"]["application/json"]["schema"].as_object() {
            assert!(matches!(tool.method, Method::Post | Method::Put), "{}", tool.name);
            for name in body["properties"].as_object().unwrap().keys() {
                assert!(!in_path.contains(&name.as_str()), "{}: {name} is in the path and the body", tool.name);
                covered.push(name);
            }
            assert_eq!(body["additionalProperties"], false, "{}", tool.name);
        }
        for name in props.keys() {
            assert!(covered.contains(&name.as_str()), "{}: the argument {name} has no place in the route", tool.name);
        }
    }
    let create = &doc["paths"]["/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}"]["post"];
    let body = &create["requestBody"]["content"]["application/json"]["schema"];
    assert_eq!(body["required"], json!(["name", "source", "overview"]));
    assert_eq!(create["requestBody"]["required"], true);
    assert!(doc["paths"]["/v1/orgs/{org}/playbooks/{playbook}/retire"]["post"]["requestBody"].is_null());
}

#[test]
fn every_schema_compiles() {
    let doc = document();
    for name in doc["components"]["schemas"].as_object().unwrap().keys() {
        validator(&doc, name);
    }
    for (path, method, op) in operations(&doc) {
        for (status, response) in op["responses"].as_object().unwrap() {
            for media in response["content"].as_object().into_iter().flat_map(|c| c.values()) {
                let root = json!({ "components": doc["components"], "allOf": [media["schema"]] });
                assert!(crate::core::schema::Schema::compile(&root).is_ok(), "{method} {path} {status}");
            }
        }
    }
}

#[test]
fn every_reason_is_listed() {
    // A reason added to `Reason` stops this match compiling until REASONS lists it too.
    for r in REASONS {
        match r {
            Reason::InvalidInput
            | Reason::Unauthorized
            | Reason::Forbidden
            | Reason::NotFound
            | Reason::MethodNotAllowed
            | Reason::NotAcceptable
            | Reason::Conflict
            | Reason::PayloadTooLarge
            | Reason::UnsupportedMediaType
            | Reason::TooManyRequests
            | Reason::Unavailable
            | Reason::Internal => {}
        }
    }
    let mut words: Vec<&str> = REASONS.iter().map(|r| r.as_str()).collect();
    words.sort_unstable();
    words.dedup();
    assert_eq!(words.len(), REASONS.len());
}

#[test]
fn problems_fit_the_problem_schema() {
    let doc = document();
    let mut fields = Problem::invalid_fields(vec![
        FieldError::new("/name", "is required"),
        FieldError::new("/steps/0", "is wrong").at(3, 5).within("source"),
    ]);
    fields.kind = Some(crate::core::ErrorCode::InputSchema);
    for p in [fields, Problem::not_found("No such thing."), Problem::unavailable("Later.")] {
        assert_fits(&doc, "Problem", &p.document());
    }
    assert_misfits(&doc, "Problem", &json!({ "title": "x", "status": 400, "reason": "invalid_input" }));
    assert_misfits(
        &doc,
        "Problem",
        &json!({ "type": "about:blank", "title": "x", "status": 400, "reason": "nope", "detail": "d" }),
    );
}

fn playbook(status: Status) -> Playbook {
    Playbook {
        id: "pb_abcdefghijklmnop".into(),
        name: "Monthly close".into(),
        description: String::new(),
        status,
        created_at: "2026-12-02T10:00:00.000Z".into(),
        updated_at: "2026-12-02T10:00:01.000Z".into(),
        retired_at: (status == Status::Retired).then(|| "2026-12-02T10:00:01.000Z".into()),
        page: "# Close".into(),
        created_by: Some(ada()),
        updated_by: Some(ada()),
        retired_by: (status == Status::Retired).then(ada),
    }
}

fn ada() -> crate::core::actor::Actor {
    crate::core::actor::Actor::of(&crate::core::Caller::local(Some("ada".into())))
}

#[test]
fn playbooks_fit_their_schemas() {
    let doc = document();
    for status in [Status::Active, Status::Retired] {
        let p = playbook(status);
        assert_fits(&doc, "Playbook", &serde_json::to_value(&p).unwrap());
        assert_fits(&doc, "ListedPlaybook", &p.listed().unwrap());
        assert_misfits(&doc, "Playbook", &p.listed().unwrap());
    }
    let page = json!({ "playbooks": [playbook(Status::Active).listed().unwrap()], "next_cursor": null });
    assert_fits(&doc, "PlaybookPage", &page);
    let mut actor = serde_json::to_value(playbook(Status::Active)).unwrap();
    actor["created_by"] = json!({ "kind": "local_developer", "id": "local", "name": "ada" });
    assert_fits(&doc, "Playbook", &actor);
    let mut retired = serde_json::to_value(playbook(Status::Retired)).unwrap();
    retired.as_object_mut().unwrap().remove("retired_at");
    assert_misfits(&doc, "Playbook", &retired);
}

fn definition(status: DefinitionStatus) -> Definition {
    Definition {
        kind: Kind::Computation,
        name: "add-vat".into(),
        version: 2,
        status,
        description: "Adds VAT".into(),
        has_page: false,
        tool: None,
        created_at: "2026-12-02T10:00:00.000Z".into(),
        updated_at: "2026-12-02T10:00:01.000Z".into(),
        created_by: Some(ada()),
        updated_by: Some(ada()),
    }
}

#[test]
fn definitions_fit_their_schemas() {
    let doc = document();
    let at = "2026-12-02T10:00:02.000Z".to_string();
    for status in [
        DefinitionStatus::Active,
        DefinitionStatus::Paused { paused_at: at.clone(), reason: Some("holiday".into()), by: Some(ada()) },
        DefinitionStatus::Retired { retired_at: at, by: Some(ada()) },
    ] {
        let def = definition(status);
        assert_fits(&doc, "Definition", &serde_json::to_value(&def).unwrap());
        let view = DefinitionView {
            definition: def,
            document: "---\n---\n".into(),
            overview: "o".into(),
            diagram: Some("flowchart TD\nA-->B".into()),
            used_by: vec![Ref { kind: Kind::Workflow, name: "close".into() }],
            changed: true,
        };
        let mut value = serde_json::to_value(&view).unwrap();
        value.as_object_mut().unwrap().remove("changed");
        assert_fits(&doc, "DefinitionView", &value);
    }
    let mut paused = serde_json::to_value(definition(DefinitionStatus::Active)).unwrap();
    paused["status"] = json!("paused");
    assert_misfits(&doc, "Definition", &paused);
    let page = json!({ "definitions": [definition(DefinitionStatus::Active)], "next_cursor": "add-vat" });
    assert_fits(&doc, "DefinitionPage", &page);
}

fn run(status: RunStatus) -> Run {
    Run {
        run_id: "run_1".into(),
        org: "local".into(),
        playbook: "pb_abcdefghijklmnop".into(),
        definition: Ref { kind: Kind::Interaction, name: "approve".into() },
        version: 1,
        input: json!({ "title": "Autumn" }),
        status,
        started_at: "2026-12-02T10:00:00.000Z".into(),
        within: None,
        steps: None,
        started_by: Some(ada()),
        answered_by: None,
        record: Some(crate::core::run::record::Record::Computation {
            values: vec![crate::core::run::record::FieldValue { field: "vat".into(), value: json!(20) }],
        }),
        rerun_of: None,
        rehearsal: false,
        stand_ins: None,
    }
}

#[test]
fn runs_fit_their_schemas() {
    let doc = document();
    let at = || "2026-12-02T10:00:05.000Z".to_string();
    let waiting = Request {
        question: "Approve?".into(),
        answer_schema: json!({ "type": "object" }),
        asked_at: at(),
        expires_at: None,
        through: None,
    };
    for status in [
        RunStatus::Started { waiting: None },
        RunStatus::Started { waiting: Some(waiting) },
        RunStatus::Succeeded { output: json!({ "verdict": "approve" }), finished_at: at() },
        RunStatus::Failed {
            error: RunError { reason: crate::core::ErrorCode::Input, detail: "d".into() },
            finished_at: at(),
        },
        RunStatus::Cancelled { finished_at: at() },
    ] {
        let r = run(status);
        assert_fits(&doc, "Run", &serde_json::to_value(&r).unwrap());
        assert_fits(&doc, "RunEntry", &serde_json::to_value(RunEntry::of(&r)).unwrap());
        let mut started = serde_json::to_value(&r).unwrap();
        started["check_back_in_seconds"] = json!(60);
        assert_fits(&doc, "StartedRun", &started);
    }
    let mut unfinished = serde_json::to_value(run(RunStatus::Cancelled { finished_at: at() })).unwrap();
    unfinished.as_object_mut().unwrap().remove("finished_at");
    assert_misfits(&doc, "Run", &unfinished);
    let mut recorded = serde_json::to_value(run(RunStatus::Started { waiting: None })).unwrap();
    recorded["record"] = json!({ "type": "computation", "values": [] });
    recorded["started_by"] = json!({ "kind": "trigger", "id": "workflow/close/triggers/0", "name": "the trigger 0" });
    assert_fits(&doc, "Run", &recorded);
}

#[test]
fn events_fit_their_schemas() {
    let doc = document();
    let event = |data: Value| Event {
        event_id: "ev_7".into(),
        event: NewEvent {
            kind: "month_closed".into(),
            at: "2026-11-30T17:00:00.000Z".into(),
            summary: "The month closed.".into(),
            run_id: None,
            data,
            family: None,
            key: None,
        },
    };
    assert_fits(&doc, "Event", &serde_json::to_value(event(json!({ "month": "2026-11" }))).unwrap());
    assert_fits(&doc, "ListedEvent", &event(json!({ "month": "2026-11" })).listed().unwrap());
    let large = event(json!({ "text": "x".repeat(3_000) })).listed().unwrap();
    assert!(large.get("data").is_none());
    assert_fits(&doc, "ListedEvent", &large);
    assert_misfits(&doc, "Event", &large);
}

#[test]
fn the_model_list_fits_its_schema() {
    let doc = document();
    let settings = crate::core::model::ModelSettings::default();
    let now = "2026-12-02T10:00:00.000Z";
    let list = crate::core::model::catalog::build(&settings, None, &Default::default(), 0, now);
    assert_fits(&doc, "ModelList", &list);
    let generation = crate::core::generation::catalog::list(&["gateway".to_string()], None);
    assert_fits(&doc, "GenerationModelList", &generation);
}
