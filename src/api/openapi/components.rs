//! The shared schemas of the document: the records the operations answer, each written from the
//! serde shape in `core`, and the problem document every refusal takes. Objects stay open
//! (no `additionalProperties: false`) so that a field added to a record does not break a client.

use serde_json::{json, Map, Value};

use super::runs;
pub use super::shapes::reference;
use super::shapes::{by, page_cursor, text, time, when};
use crate::core::definition::Kind;
use crate::core::Reason;

fn kinds() -> Vec<&'static str> {
    Kind::ALL.iter().map(|k| k.as_str()).collect()
}

/// Every reason a problem gives; a test fails to compile when a reason is added and not listed.
pub const REASONS: [Reason; 12] = [
    Reason::InvalidInput,
    Reason::Unauthorized,
    Reason::Forbidden,
    Reason::NotFound,
    Reason::MethodNotAllowed,
    Reason::NotAcceptable,
    Reason::Conflict,
    Reason::PayloadTooLarge,
    Reason::UnsupportedMediaType,
    Reason::TooManyRequests,
    Reason::Unavailable,
    Reason::Internal,
];

fn reasons() -> Vec<&'static str> {
    REASONS.iter().map(|r| r.as_str()).collect()
}

/// `components.schemas`, by name.
pub fn schemas() -> Map<String, Value> {
    let mut s = Map::new();
    let mut put = |name: &str, schema: Value| {
        s.insert(name.to_string(), schema);
    };
    put("Problem", problem());
    put("FieldError", field_error());
    put("Actor", actor());
    put("Kind", json!({ "type": "string", "enum": kinds(), "description": "The type of a definition." }));
    put("DefinitionRef", definition_ref());
    put("Playbook", playbook(true));
    put("ListedPlaybook", playbook(false));
    put("PlaybookPage", playbook_page());
    put("Definition", definition());
    put("DefinitionView", definition_view());
    put("DefinitionCheck", definition_check());
    put("DefinitionPage", definition_page());
    put("Picture", picture());
    put("Standing", super::pages::standing());
    put("RenderedPage", super::pages::rendered_page());
    put("Glance", super::pages::glance());
    put("PlaybookPresented", super::pages::playbook_page());
    put("PlaybookAnalytics", super::pages::analytics());
    put("PlaybookStats", super::stats::stats());
    put("RunPageResult", super::pages::run_page());
    put("Run", runs::run());
    put("StartedRun", runs::started_run());
    put("RunError", runs::run_error());
    put("Within", runs::within());
    put("RerunOf", runs::rerun_of());
    put("WaitingRequest", runs::waiting_request());
    put("Step", runs::step());
    put("RunRecord", runs::run_record());
    put("RunEntry", runs::run_entry());
    put("RunPage", runs::run_page());
    put("OpenRequest", runs::open_request());
    put("RequestPage", runs::request_page());
    put("Event", runs::event());
    put("ListedEvent", runs::listed_event());
    put("EventPage", runs::event_page());
    put("Asset", asset());
    put("AssetSummary", asset_summary());
    put("Model", model());
    put("ModelList", model_list());
    put("GenerationModel", generation_model());
    put("GenerationModelList", generation_model_list());
    put("GuideList", guide_list());
    put("ToolSearch", super::tool_servers::search());
    put("ToolServer", super::tool_servers::server());
    put("FoundTool", super::tool_servers::found_tool());
    put("ToolDetail", super::tool_servers::tool_detail());
    put("ToolCheck", super::tool_servers::tool_check());
    put("ToolValid", super::tool_servers::tool_valid());
    put("ToolCall", super::tool_servers::tool_call());
    put("Connection", super::connections::connection());
    put("LinkedConnection", super::connections::linked_connection());
    put("HeldConnection", super::connections::held());
    put("ConnectionPage", super::connections::page());
    put("GivenCredential", super::connections::given());
    put("StartedConsent", super::connections::started());
    put("FinishedConsent", super::connections::finished());
    put("ProviderList", super::connections::providers());
    put("LinkView", super::connections::link_view());
    put("ConnectionTools", super::connections::tools());
    put("Comment", super::comments::comment());
    put("CommentPage", super::comments::comment_page());
    put("Key", super::access::key());
    put("MadeKey", super::access::made_key());
    put("KeyList", super::access::key_list());
    put("RevokedKey", super::access::revoked_key());
    put("RoleAssignment", super::access::role_assignment());
    put("RoleAssignmentList", super::access::role_assignment_list());
    put("RoleAssignmentChange", super::access::role_assignment_change());
    s
}

fn problem() -> Value {
    json!({
        "type": "object",
        "description": "An RFC 9457 problem document: what failed, in words an agent can act on, and where.",
        "properties": {
            "type": { "type": "string", "description": "Always about:blank: reason says what failed." },
            "title": text("The reason in a few words, such as Invalid input."),
            "status": { "type": "integer", "minimum": 400, "maximum": 599, "description": "The HTTP status, the same as the response's." },
            "reason": { "type": "string", "enum": reasons(), "description": "Why it was refused; each reason has one status." },
            "detail": text("What failed and what to change, in full sentences."),
            "kind": text("A finer kind within the reason, such as input_schema or insufficient_scope."),
            "scope": text("For insufficient_scope, the scope the caller lacks, such as playbook:write."),
            "errors": { "type": "array", "items": reference("FieldError"), "description": "Each bad field, for invalid_input and some not_found and conflict problems." }
        },
        "required": ["type", "title", "status", "reason", "detail"]
    })
}

fn field_error() -> Value {
    json!({
        "type": "object",
        "description": "One bad field, by a JSON pointer into what was sent, or into the front matter of the document named by in.",
        "properties": {
            "pointer": text("A JSON pointer, such as /name; empty for the input as a whole."),
            "detail": text("What is wrong with it."),
            "line": { "type": "integer", "minimum": 1, "description": "The line of the document, from 1." },
            "column": { "type": "integer", "minimum": 1, "description": "The column of the document, from 1." },
            "in": text("The argument holding the document the problem is in, such as source.")
        },
        "required": ["pointer", "detail"]
    })
}

fn actor() -> Value {
    json!({
        "type": "object",
        "description": "Who made a record: a caller, a workflow's trigger, or a workflow run's step.",
        "properties": {
            "kind": text("local_developer, key, person, operator, trigger, workflow, tool (a tool that read a reply) or stand_in (a rehearsal's stand-in, in a person's place)."),
            "id": text("A stable id to compare."),
            "name": text("A name to say.")
        },
        "required": ["kind", "id", "name"]
    })
}

fn definition_ref() -> Value {
    json!({
        "type": "object",
        "description": "A definition by its type and name.",
        "properties": { "type": reference("Kind"), "name": text("The definition's name within its type.") },
        "required": ["type", "name"]
    })
}

/// The playbook record; a listed one has every field but its page.
fn playbook(with_page: bool) -> Value {
    let mut schema = json!({
        "type": "object",
        "description": if with_page { "A playbook, with the Markdown of its page." } else { "A playbook as a list shows it: every field but its page." },
        "properties": {
            "id": { "type": "string", "pattern": "^pb_[a-z2-7]{16}$", "description": "The playbook's id, which every later call names as playbook." },
            "name": text("Unique among the org's active playbooks, ignoring case."),
            "description": text("What the playbook is for."),
            "status": { "type": "string", "enum": ["active", "retired"] },
            "created_at": time("When it was created."),
            "updated_at": time("When it last changed."),
            "retired_at": time("When it was retired; only a retired playbook has it."),
            "created_by": by("Who created it."),
            "updated_by": by("Who last changed it."),
            "retired_by": by("Who retired it.")
        },
        "required": ["id", "name", "description", "status", "created_at", "updated_at"],
        "allOf": [when("status", "retired", &["retired_at"])]
    });
    if with_page {
        schema["properties"]["page"] = text("The Markdown source of the playbook's page; empty when it has none.");
        schema["properties"]["studio"] =
            text("From create_playbook: the playbook's page in Studio, the link to give the person.");
        schema["required"] = json!(["id", "name", "description", "status", "created_at", "updated_at", "page"]);
    }
    schema
}

fn playbook_page() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbooks": { "type": "array", "items": reference("ListedPlaybook"), "description": "Newest first." },
            "next_cursor": page_cursor(),
            "welcome": text("For an org with no playbook yet, to a caller who may make one: words to relay whole, ending with the link to Studio's home.")
        },
        "required": ["playbooks", "next_cursor"]
    })
}

fn definition() -> Value {
    json!({
        "type": "object",
        "description": "A definition's current state: the row a list shows.",
        "properties": {
            "type": reference("Kind"),
            "name": text("Its id within its type and playbook."),
            "version": { "type": "integer", "minimum": 1, "description": "The current version's number." },
            "status": { "type": "string", "enum": ["active", "paused", "retired"] },
            "paused_at": time("When it was paused, or restored (a restore brings it back paused)."),
            "reason": text("Why it is paused, where the pause said."),
            "retired_at": time("When it was retired."),
            "by": by("Who paused, restored or retired it."),
            "description": text("The document's description."),
            "has_page": { "type": "boolean", "description": "Whether the document gives a page." },
            "tool": {
                "type": "object",
                "description": "The tool a workflow offers itself as on the run-mode endpoints, from its front matter's tool.",
                "properties": {
                    "name": text("The tool's name on a playbook's run-mode endpoint."),
                    "description": text("The tool's words, where the workflow gives its own."),
                    "wait_seconds": { "type": "integer", "minimum": 0, "maximum": 10, "description": "How long a call waits for the run's output." }
                },
                "required": ["name", "wait_seconds"],
                "additionalProperties": false
            },
            "created_at": time("When the first version was saved."),
            "updated_at": time("When the current version was saved."),
            "created_by": by("Who saved the first version."),
            "updated_by": by("Who saved the current version.")
        },
        "required": ["type", "name", "version", "status", "description", "has_page", "created_at", "updated_at"],
        "allOf": [when("status", "paused", &["paused_at"]), when("status", "retired", &["retired_at"])]
    })
}

fn definition_check() -> Value {
    json!({
        "type": "object",
        "description": "What a save of the document would do, decided as the playbook would decide it; nothing is kept.",
        "properties": {
            "valid": { "type": "boolean", "description": "Whether the save would be taken." },
            "would": { "enum": ["create", "update", "nothing"], "description": "What the save would do: a new definition, a new version, or nothing where the document already reads so." },
            "type": reference("Kind"),
            "name": text("The definition's name within its type."),
            "version": { "type": "integer", "minimum": 1, "description": "The version the save would leave current." },
            "problem": reference("Problem"),
            "needs": { "type": "array", "items": { "type": "string" }, "description": "What a run would still lack that the save does not refuse: a model, a tool server that cannot be used now, a paused definition." },
            "kept": { "const": false }
        },
        "required": ["valid", "needs", "kept"]
    })
}

fn definition_view() -> Value {
    json!({
        "type": "object",
        "description": "A definition whole: its current state, and the current version's document, overview and diagram.",
        "allOf": [reference("Definition")],
        "properties": {
            "document": text("The document as written."),
            "overview": text("The Markdown overview for a person."),
            "diagram": text("A function's Mermaid flowchart; a workflow has none."),
            "used_by": { "type": "array", "items": reference("DefinitionRef"), "description": "The definitions of the playbook, active or paused, that use it." },
            "studio": text("From create_definition and update_definition: the definition's page in Studio, the link to give the person."),
            "picture": reference("Picture"),
            "standing": reference("Standing"),
            "runs": { "type": "array", "maxItems": 20, "items": reference("RunEntry"), "description": "The newest runs its page is given, newest first, as list_runs lists them." },
            "glance": reference("Glance"),
            "page": reference("RenderedPage")
        },
        "required": ["document", "overview", "used_by"]
    })
}

/// A workflow's picture, or a workflow run's: `get_definition` and `get_run` answer it.
fn picture() -> Value {
    json!({
        "type": "object",
        "description": "A workflow drawn from its steps, or a workflow run drawn on it with each step in the colour of how it went.",
        "properties": {
            "url": text("Where Studio serves the picture."),
            "media_type": { "type": "string", "enum": [crate::core::picture::MEDIA_TYPE] },
            "svg": text("The picture itself, when asked for with picture: true.")
        },
        "required": ["url", "media_type"]
    })
}

fn definition_page() -> Value {
    json!({
        "type": "object",
        "properties": {
            "definitions": { "type": "array", "items": reference("Definition"), "description": "By name." },
            "next_cursor": page_cursor()
        },
        "required": ["definitions", "next_cursor"]
    })
}

fn asset_properties() -> Value {
    json!({
        "asset_id": text("The asset's id, ast_ and 16 characters."),
        "media_type": { "type": "string", "enum": crate::core::asset::MEDIA_TYPES },
        "size": { "type": "integer", "minimum": 1, "description": "Bytes." },
        "sha256": { "type": "string", "pattern": "^[0-9a-f]{64}$", "description": "SHA-256 of the bytes, lowercase hex." },
        "url": text("Where the runtime serves the bytes, to a caller who may read the playbook, with the same credential.")
    })
}

fn asset_summary() -> Value {
    json!({
        "type": "object",
        "description": "An asset as a run's output or an event names it.",
        "properties": asset_properties(),
        "required": ["asset_id", "media_type", "size", "sha256", "url"]
    })
}

fn asset() -> Value {
    let mut properties = asset_properties();
    properties["playbook"] = text("The playbook that keeps it.");
    properties["made_by"] = json!({
        "type": "object",
        "description": "What made it: a generation run (kind generation), or a tool a reasoning run called (kind tool, the tool as server/tool).",
        "properties": {
            "kind": { "type": "string", "enum": ["generation", "tool"] },
            "run_id": text("The run that made it."),
            "tool": text("The tool, as server/tool.")
        },
        "required": ["kind", "run_id"]
    });
    properties["created_at"] = time("When it was kept.");
    json!({
        "type": "object",
        "description": "A file a generation function made or a tool answered, kept once: its record, and the address of its bytes.",
        "properties": properties,
        "required": ["asset_id", "playbook", "media_type", "size", "sha256", "made_by", "created_at", "url"]
    })
}

fn model() -> Value {
    json!({
        "type": "object",
        "description": "A model a reasoning function may name, in the shape of the OpenAI API's model object.",
        "properties": {
            "id": text("provider/model, or an alias; an id ending in * stands for any model of a provider."),
            "object": { "const": "model" },
            "created": { "type": "integer", "description": "When the provider made it, in seconds since 1970; 0 when unknown." },
            "owned_by": text("The provider prefix that serves it."),
            "name": text("The provider's name for it."),
            "context_window": { "type": "integer", "minimum": 0 },
            "max_tokens": { "type": "integer", "minimum": 0 },
            "pattern": { "type": "boolean", "description": "true for an id ending in *, which is not a model to run." },
            "alias": { "type": "boolean", "description": "true for an alias the operator configured." },
            "resolved_to": text("The model an alias stands for.")
        },
        "required": ["id", "object", "created", "owned_by"]
    })
}

fn model_list() -> Value {
    json!({
        "type": "object",
        "properties": {
            "object": { "const": "list" },
            "data": { "type": "array", "items": reference("Model") },
            "catalog_status": { "type": "string", "enum": ["complete", "partial"], "description": "partial when a provider could not be asked just now." },
            "narrowed": { "type": "boolean", "description": "Whether the operator allows only some models." },
            "listed_at": time("When the oldest list shown was read."),
            "provider_setup": text("In local mode with no provider set up: how to add one.")
        },
        "required": ["object", "data", "catalog_status", "narrowed", "listed_at"]
    })
}

fn generation_model() -> Value {
    let values = |d: &str| json!({ "type": "array", "items": { "type": "string" }, "description": d });
    json!({
        "type": "object",
        "description": "A model a generation function may name, from the catalogue this runtime ships.",
        "properties": {
            "model": text("The model as the gateway names it, provider/model."),
            "kind": { "type": "string", "enum": ["image", "audio", "video"], "description": "What it makes." },
            "media_types": values("The media types of the assets it takes as references; empty where it takes none."),
            "limits": {
                "type": "object",
                "description": "The values each parameter may take; a parameter it does not take is absent.",
                "properties": {
                    "sizes": values("The sizes of an image, as WIDTHxHEIGHT or auto."),
                    "qualities": values("The qualities it makes."),
                    "voices": values("The voices it speaks in."),
                    "formats": values("The formats of the audio it answers."),
                    "prompt_characters": { "type": "integer", "minimum": 1, "description": "The most characters of a rendered prompt." },
                    "references": {
                        "type": "object",
                        "description": "Where it takes references: how many at most, and the most bytes of each.",
                        "properties": { "most": { "type": "integer", "minimum": 1 }, "bytes": { "type": "integer", "minimum": 1 } },
                        "required": ["most", "bytes"]
                    }
                },
                "required": ["prompt_characters"]
            },
            "retired": {
                "type": "object",
                "description": "For a retired model: the day it retired and the model that replaces it. A save that names it is refused.",
                "properties": { "on": { "type": "string", "format": "date" }, "replacement": text("The model that replaces it.") },
                "required": ["on", "replacement"]
            }
        },
        "required": ["model", "kind", "media_types", "limits"]
    })
}

fn generation_model_list() -> Value {
    json!({
        "type": "object",
        "properties": {
            "object": { "const": "list" },
            "gateways": { "type": "array", "items": { "type": "string" }, "description": "The gateways of MODEL_GATEWAYS, one of which a generation function writes before its model; empty where none is configured, so no generation function can run." },
            "data": { "type": "array", "items": reference("GenerationModel"), "description": "The models of the catalogue, sorted by model." }
        },
        "required": ["object", "gateways", "data"]
    })
}

fn guide_list() -> Value {
    json!({
        "type": "object",
        "properties": {
            "guides": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": { "name": text("What get_guide takes."), "title": text("The guide's title."), "description": text("What it covers.") },
                    "required": ["name", "title", "description"]
                }
            }
        },
        "required": ["guides"]
    })
}
