//! What each operation answers on success over HTTP, keyed by tool name: the one place a tool's
//! output is described, so that a tool added without one fails the tests.

use serde_json::{json, Value};

use super::shapes::reference;

/// A success: its status (201 where something was created), media type and body schema.
pub struct Success {
    pub status: u16,
    pub media_type: &'static str,
    pub description: &'static str,
    pub schema: Value,
}

fn ok(description: &'static str, schema: &str) -> Success {
    Success { status: 200, media_type: "application/json", description, schema: reference(schema) }
}

fn created(description: &'static str, schema: &str) -> Success {
    Success { status: 201, ..ok(description, schema) }
}

/// The success of the operation named; `None` for a name no tool or HTTP route has.
pub fn of(name: &str) -> Option<Success> {
    Some(match name {
        "create_playbook" => created("The playbook, created active and empty.", "Playbook"),
        "list_playbooks" => ok("A page of the org's playbooks.", "PlaybookPage"),
        "get_playbook" => ok("The playbook.", "Playbook"),
        "update_playbook" => ok("The playbook as it now stands.", "Playbook"),
        "retire_playbook" => ok("The playbook, retired.", "Playbook"),
        "restore_playbook" => ok("The playbook, active again.", "Playbook"),
        "check_definition" => ok("What a save of the document would do, and nothing kept.", "DefinitionCheck"),
        "create_definition" => created("The definition, saved at version 1.", "DefinitionView"),
        "list_definitions" => ok("A page of the playbook's definitions of the type.", "DefinitionPage"),
        "get_definition" => ok("The definition.", "DefinitionView"),
        "render_page" => ok("The page rendered.", "RenderedPage"),
        "render_playbook_page" => ok("The playbook's page as Studio presents it.", "PlaybookPresented"),
        "get_playbook_analytics" => ok("How the playbook's runs stand.", "PlaybookAnalytics"),
        "get_run_history" => ok("A page of the run's history, oldest first.", "EventPage"),
        "update_definition" => ok("The definition as it now stands.", "DefinitionView"),
        "pause_definition" => ok("The definition, paused.", "DefinitionView"),
        "resume_definition" => ok("The definition, active.", "DefinitionView"),
        "retire_definition" => ok("The definition, retired.", "DefinitionView"),
        "restore_definition" => ok("The definition, restored and paused.", "DefinitionView"),
        // A run answers 200 even when it starts: the same run_id again answers the same run.
        "rerun_run" => ok("The new run as it stands: how it ended, or started.", "StartedRun"),
        "run_definition" => ok("The run as it stands: how it ended, or started.", "StartedRun"),
        "get_run" => ok("The run, with its record.", "Run"),
        "list_runs" => ok("A page of the playbook's runs.", "RunPage"),
        "get_stats" => ok("How the runs went over the window, against the window before it.", "PlaybookStats"),
        "cancel_run" => ok("The run: cancelled, or as it had already ended.", "Run"),
        "send_run_event" => ok("The workflow run after it took the event.", "Run"),
        "list_interactions" => ok("A page of the open requests.", "RequestPage"),
        "answer_interaction" => ok("The run that asked, after it took the answer.", "Run"),
        "publish_event" => created("The event, recorded.", "Event"),
        "list_playbook_events" => ok("A page of the playbook's events.", "EventPage"),
        "get_asset" => ok("The asset's record, with the address of its bytes.", "Asset"),
        "get_event" => ok("The event, every field in full.", "Event"),
        "list_models" => ok("The models a reasoning function may name.", "ModelList"),
        "list_generation_models" => ok("The models a generation function may name, from the catalogue this runtime ships.", "GenerationModelList"),
        "search" | "search_in_playbook" => ok("The servers that serve it and a page of the tools found.", "ToolSearch"),
        "list_comments" | "list_comments_in_playbook" => ok("A page of the comments, newest first.", "CommentPage"),
        "resolve_comment" | "resolve_comment_in_playbook" => ok("The comment, resolved: now, or as it was resolved before.", "Comment"),
        "make_comment" | "make_comment_in_playbook" => created("The comment, open.", "Comment"),
        "reopen_comment" | "reopen_comment_in_playbook" => ok("The comment, open again: now, or as it was open already.", "Comment"),
        "introspect" => ok("The tool, whole.", "ToolDetail"),
        "dry_run" => ok("What execute_connection would check, without calling the tool.", "ToolCheck"),
        "validate" => ok("The arguments fit; a misfit is refused as 400 with a pointer at each.", "ToolValid"),
        "query_connection" | "execute_connection" => ok("The call and the tool's answer.", "ToolCall"),
        // Over HTTP a guide is its Markdown; over MCP it is wrapped in JSON with its name and title.
        "get_guide" => Success {
            status: 200,
            media_type: "text/markdown",
            description: "The guide's Markdown.",
            schema: json!({ "type": "string" }),
        },
        "add_connection" => created("The connection, pending, with connect, the link that approves it; a call made before answers the connection as it stands.", "LinkedConnection"),
        "list_connections" => ok("A page of the org's connections, newest first.", "ConnectionPage"),
        "list_connection_tools" => ok("A page of the tools the connection's server offers now.", "ConnectionTools"),
        "reconnect_connection" => ok("The connection with its new link; a reference connected again at once, without one.", "LinkedConnection"),
        "remove_connection" => ok("The connection, removed, its credential forgotten.", "HeldConnection"),
        "get_connection" => ok("The connection.", "HeldConnection"),
        "set_connection_playbooks" => ok("The connection, serving the playbooks named.", "HeldConnection"),
        "set_connection_signing_secret" | "remove_connection_signing_secret" => ok("The connection as it now stands.", "HeldConnection"),
        "list_providers" => ok("The providers a person may connect here.", "ProviderList"),
        "read_link" => ok("What the connect page shows of the link.", "LinkView"),
        "approve" | "cancel" | "give_client" => ok("The connection as it now stands.", "HeldConnection"),
        "start" => ok("Where the person signs in at the service.", "StartedConsent"),
        "finish" => ok("The connection, its consent finished and waiting for the person to approve.", "FinishedConsent"),
        "give_credential" => ok("The connection, and whether the key misses its pattern.", "GivenCredential"),
        "create_key" => created("The key, with its secret as key, shown this once.", "MadeKey"),
        "list_keys" => ok("The org's live keys, never their secrets.", "KeyList"),
        "revoke_key" => ok("The key as it was, now revoked.", "RevokedKey"),
        "list_role_assignments" => ok("Who holds which role in the org.", "RoleAssignmentList"),
        "assign_role" => ok("The person's role as it now stands.", "RoleAssignmentChange"),
        "unassign_role" => ok("The role as it was, now taken away.", "RoleAssignmentChange"),
        "list_guides" => ok("The guides, each with its name, title and description.", "GuideList"),
        "get_openapi" => Success {
            status: 200,
            media_type: "application/json",
            description: "This document.",
            schema: json!({ "type": "object", "required": ["openapi", "info", "paths"] }),
        },
        _ => return None,
    })
}
