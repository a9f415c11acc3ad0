//! Documents read into tools, and refused at their place.

use serde_json::{json, Map};

use super::fixtures::{NOTES, PETSTORE};
use super::*;
use crate::core::tool_server::mcp::DESCRIPTION_MAX;
use crate::core::tool_server::{Mark, MarkedBy, Place};

fn names(api: &Api) -> Vec<&str> {
    api.operations.iter().map(|o| o.tool.name.as_str()).collect()
}

fn passed_over(api: &Api) -> Vec<&str> {
    api.passed_over.iter().map(|r| r.pointer.as_str()).collect()
}

fn op<'a>(api: &'a Api, name: &str) -> &'a Operation {
    api.operation(name).unwrap()
}

fn refused(text: &str) -> Refusal {
    read(text).unwrap_err()
}

#[test]
fn a_3_0_document_offers_its_operations_with_ids() {
    let api = read(PETSTORE).unwrap();
    assert_eq!(names(&api), ["listPets", "createPet", "showPetById", "updatePet", "deletePet"]);
    assert_eq!(
        passed_over(&api),
        [
            "/paths/~1pets~1{petId}~1photo/post/requestBody/content",
            "/paths/~1health/get",
            "/paths/~1stores~1{storeId}/get/parameters/1"
        ]
    );
    assert!(api.passed_over[0].detail.contains("multipart/form-data"), "{:?}", api.passed_over[0]);

    let list = op(&api, "listPets");
    assert_eq!(list.tool.title.as_deref(), Some("List pets"));
    assert_eq!(list.tool.description, "Lists the pets in the store, a page at a time.");
    assert_eq!((list.tool.mark, list.tool.marked_by), (Mark::Reads, MarkedBy::Method));
    assert_eq!(
        list.tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "limit": { "type": "integer", "exclusiveMinimum": 0, "maximum": 100, "description": "How many pets a page holds." },
                "tags": { "type": "array", "items": { "type": "string" } },
                "filter": { "type": "object", "additionalProperties": { "type": "string" } },
                "X-Trace-Id": { "type": "string", "description": "Follows the request through the store." }
            },
            "additionalProperties": false
        }),
        "the cookie it may go without and the Accept header are left out"
    );
    let styles: Vec<(&str, In, Style)> =
        list.parameters.iter().map(|p| (p.argument.as_str(), p.place, p.style)).collect();
    assert_eq!(
        styles,
        [
            ("limit", In::Query, Style::Exploded),
            ("tags", In::Query, Style::Exploded),
            ("filter", In::Query, Style::DeepObject),
            ("X-Trace-Id", In::Header, Style::Joined(','))
        ]
    );
    assert_eq!(list.auth, Auth::At(Place::Header { name: "X-Api-Key".into(), scheme: None }));
    assert_eq!(list.body, None);

    let create = op(&api, "createPet");
    assert_eq!((create.method, create.tool.mark), ("POST", Mark::Acts));
    assert_eq!(create.tool.description, "Add a pet");
    assert_eq!(create.tool.title, None);
    assert_eq!(create.body.as_deref(), Some("application/json"));
    let body = &create.tool.input_schema["properties"]["body"];
    assert_eq!(create.tool.input_schema["required"], json!(["body"]));
    assert_eq!(body["description"], "The pet to add.");
    assert_eq!(body["properties"]["tag"]["type"], json!(["string", "null"]));
    assert_eq!(body["properties"]["name"], json!({ "type": "string" }));
    for dropped in ["discriminator", "xml"] {
        assert!(body.get(dropped).is_none(), "{dropped}");
    }
    let mut category = &body["properties"]["category"];
    while category.get("properties").is_some() {
        assert!(category.get("externalDocs").is_none());
        category = &category["properties"]["parent"];
    }
    assert!(category["description"].as_str().unwrap().starts_with("Cut here"), "{category}");
    assert_eq!(create.auth, Auth::At(Place::Header { name: "Authorization".into(), scheme: Some("Bearer".into()) }));

    let show = op(&api, "showPetById");
    let arguments: Vec<(&str, &str, In)> =
        show.parameters.iter().map(|p| (p.argument.as_str(), p.name.as_str(), p.place)).collect();
    assert_eq!(arguments, [("petId", "petId", In::Path), ("petId__query", "petId", In::Query)]);
    assert_eq!(show.tool.input_schema["required"], json!(["petId"]));
    assert_eq!(show.tool.input_schema["properties"]["petId"]["description"], "The pet's id.");
    assert_eq!(show.tool.description, "Calls GET /pets/{petId} of the API.");
    assert_eq!(show.auth, Auth::Nothing);

    let update = op(&api, "updatePet");
    assert_eq!(update.parameters[1].argument, "body__query", "the body keeps its name");
    let pet = &update.tool.input_schema["properties"]["body"]["allOf"];
    assert!(pet[1]["properties"].get("id").is_none(), "what the API writes itself is not asked for: {pet}");
    assert_eq!(pet[1]["required"], json!([]));
    assert_eq!(update.auth, Auth::At(Place::Header { name: "Authorization".into(), scheme: Some("Basic".into()) }));

    let delete = op(&api, "deletePet");
    assert_eq!(delete.tool.input_schema["required"], json!(["petId", "X-Reason"]));
    assert_eq!(delete.auth, Auth::Entry, "OAuth 2 falls back to the entry's place");
}

#[test]
fn a_3_1_yaml_document_reads_alike() {
    let api = read(NOTES).unwrap();
    assert_eq!(names(&api), ["listNotes", "createNote", "notes.delete"]);
    assert_eq!(
        passed_over(&api),
        ["/paths/~1notes~1{noteId}~1tags/get/operationId", "/paths/~1notes~1{noteId}~1tags/put/operationId"]
    );
    assert!(api.passed_over[1].detail.contains("repeats listNotes"));

    let list = op(&api, "listNotes");
    assert_eq!(list.tool.description, "Find notes by words.");
    let properties = &list.tool.input_schema["properties"];
    assert_eq!(properties["q"], json!({ "type": ["string", "null"], "examples": ["groceries"] }));
    assert_eq!(properties["when"]["properties"]["from"], json!({ "type": "string", "format": "date" }));
    let styles: Vec<Style> = list.parameters.iter().map(|p| p.style).collect();
    assert_eq!(styles, [Style::Exploded, Style::Joined(','), Style::Json]);
    assert_eq!(list.auth, Auth::At(Place::Query { name: "api_key".into() }));

    let create = op(&api, "createNote");
    assert_eq!(create.body.as_deref(), Some("application/merge-patch+json"));
    assert!(create.tool.input_schema.get("required").is_none(), "its body may be left out");
    let note = &create.tool.input_schema["properties"]["body"];
    assert_eq!(note["description"], "The note to keep.");
    assert_eq!(note["properties"]["pinned"]["default"], false);
    assert_eq!(note["properties"]["replies"]["items"]["required"], json!(["text"]));

    let delete = op(&api, "notes.delete");
    assert_eq!(delete.tool.input_schema["properties"]["noteId"], json!({ "type": "integer", "minimum": 1 }));
    assert_eq!((delete.method, delete.auth.clone()), ("DELETE", Auth::Nothing));
}

#[test]
fn every_input_schema_compiles_and_takes_what_it_should() {
    for text in [PETSTORE, NOTES] {
        for tool in read(text).unwrap().tools() {
            assert!(
                crate::core::schema::Schema::compile(&tool.input_schema).is_ok(),
                "{}: {}",
                tool.name,
                tool.input_schema
            );
        }
    }
    let api = read(PETSTORE).unwrap();
    let create = crate::core::schema::Schema::compile(&op(&api, "createPet").tool.input_schema).unwrap();
    assert!(create
        .is_valid(&json!({ "body": { "name": "Rex", "tag": null, "category": { "parent": { "name": "pets" } } } })));
    assert!(!create.is_valid(&json!({ "body": { "tag": "x" } })), "name is required");
    assert!(!create.is_valid(&json!({ "body": { "name": "Rex" }, "extra": 1 })), "no argument beyond its own");
    let list = crate::core::schema::Schema::compile(&op(&api, "listPets").tool.input_schema).unwrap();
    assert!(list.is_valid(&json!({ "limit": 100 })));
    assert!(!list.is_valid(&json!({ "limit": 0 })), "0 is excluded");
}

#[test]
fn what_is_not_openapi_3_is_refused_in_words_that_say_what_to_give() {
    let r = refused(r#"{"hello": "world"}"#);
    assert_eq!(r.pointer, "");
    assert!(r.detail.contains("OpenAPI 3.0 or 3.1"), "{}", r.detail);
    let r = refused("swagger: '2.0'\ninfo: {title: Old, version: '1'}\npaths: {}\n");
    assert_eq!(r.pointer, "/swagger");
    assert!(r.detail.contains("Swagger 2.0") && r.detail.contains("OpenAPI 3.0 or 3.1"), "{}", r.detail);
    let r = refused(r#"{"openapi": "3.2.0", "paths": {}}"#);
    assert_eq!(r.pointer, "/openapi");
    assert!(r.detail.contains("3.2.0"));
    let r = refused("- a list\n- of things\n");
    assert_eq!(r.pointer, "");
    let r = refused("openapi: 3.1.0\npaths:\n  /a: {get: [unclosed\n");
    assert_eq!(r.pointer, "");
    assert!(r.detail.starts_with("is neither JSON nor YAML"), "{}", r.detail);
    let r = refused(r#"{"openapi": "3.0.0", "paths": {"#);
    assert!(r.detail.starts_with("is not JSON"), "{}", r.detail);
    let r = refused(&format!("openapi: 3.1.0\ninfo: {{description: '{}'}}\n", "x".repeat(DOCUMENT_MAX_BYTES)));
    assert!(r.detail.contains("over the"), "{}", r.detail);
    // YAML reads an unquoted 3.1 as a number; it is the same revision.
    assert!(read("openapi: 3.1\npaths: {/a: {get: {operationId: a}}}\n").is_ok());
}

#[test]
fn a_document_without_a_tool_is_refused_with_why() {
    let r = refused(r#"{"openapi": "3.0.0", "paths": {"/a": {"get": {"summary": "A"}}, "/b": {"post": {}}}}"#);
    assert_eq!(r.pointer, "/paths");
    assert!(r.detail.contains("none of its 2 operations") && r.detail.contains("operationId"), "{}", r.detail);
    assert_eq!(refused(r#"{"openapi": "3.1.0", "paths": {}}"#).pointer, "/paths");
    assert_eq!(refused(r#"{"openapi": "3.1.0", "webhooks": {}}"#).pointer, "");
}

#[test]
fn a_reference_is_refused_at_its_place_when_it_leads_nowhere_or_elsewhere() {
    let document = |reference: &str| {
        format!(
            r##"{{"openapi": "3.0.1", "paths": {{"/a": {{"post": {{"operationId": "a", "requestBody": {{"content": {{"application/json": {{"schema": {{"$ref": "#/components/schemas/A"}}}}}}}}}}}}}},
                "components": {{"schemas": {{"A": {{"properties": {{"b": {{"$ref": "{reference}"}}}}}}}}}}}}"##
        )
    };
    let r = refused(&document("common.yaml#/components/schemas/B"));
    assert_eq!(r.pointer, "/components/schemas/A/properties/b/$ref");
    assert!(r.detail.contains("another document"), "{}", r.detail);
    let r = refused(&document("#/components/schemas/Gone"));
    assert_eq!(r.pointer, "/components/schemas/A/properties/b/$ref");
    assert!(r.detail.contains("names nothing"), "{}", r.detail);
    let r = refused(
        r##"{"openapi": "3.0.1", "paths": {"/a": {"get": {"operationId": "a", "parameters": [{"$ref": "#/components/parameters/Gone"}]}}}}"##,
    );
    assert_eq!(r.pointer, "/paths/~1a/get/parameters/0/$ref");
}

#[test]
fn names_descriptions_and_paths_are_kept_to_what_a_call_can_use() {
    let long = "é".repeat(DESCRIPTION_MAX);
    let text = json!({
        "openapi": "3.0.0",
        "paths": {
            "/a/{id}": { "get": { "operationId": "a", "description": long } },
            "/b": { "get": { "operationId": "x".repeat(129) }, "put": { "operationId": "b", "parameters": [{ "name": "k", "in": "query", "style": "matrix" }] } },
            "/c": { "get": { "operationId": "c", "requestBody": { "required": true, "content": { "application/json": {} } } },
                    "post": { "operationId": "c2", "parameters": [{ "name": "v", "in": "query", "content": { "application/json": {} } }] } }
        }
    })
    .to_string();
    let api = read(&text).unwrap();
    assert_eq!(names(&api), ["c2"]);
    assert_eq!(
        passed_over(&api),
        [
            "/paths/~1a~1{id}/get",
            "/paths/~1b/get/operationId",
            "/paths/~1b/put/parameters/0/style",
            "/paths/~1c/get/requestBody"
        ]
    );
    assert!(api.passed_over[0].detail.contains("{id}"), "{:?}", api.passed_over[0]);
    let described =
        json!({ "openapi": "3.0.0", "paths": { "/a": { "get": { "operationId": "a", "description": long } } } });
    let a = read(&described.to_string()).unwrap();
    let description = &a.operations[0].tool.description;
    assert!(description.len() <= DESCRIPTION_MAX && description.len() > DESCRIPTION_MAX - 2);
}

#[test]
fn a_document_is_read_as_far_as_the_tools_the_runtime_keeps() {
    let paths: Map<String, Value> =
        (0..=TOOLS_MAX).map(|i| (format!("/p{i}"), json!({ "get": { "operationId": format!("op{i}") } }))).collect();
    let api = read(&json!({ "openapi": "3.0.0", "paths": paths }).to_string()).unwrap();
    assert_eq!(api.operations.len(), TOOLS_MAX);
    assert_eq!(passed_over(&api), [format!("/paths/~1p{TOOLS_MAX}/get")]);
    assert!(api.passed_over[0].detail.contains("1000 tools"), "{}", api.passed_over[0].detail);
}
