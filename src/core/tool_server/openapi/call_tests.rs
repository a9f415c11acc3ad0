//! The requests calls make, and their answers read.

use serde_json::json;

use super::super::fixtures::{NOTES, PETSTORE};
use super::super::read;
use super::*;
use crate::core::model::Secret;

fn operation(text: &str, name: &str) -> Operation {
    read(text).unwrap().operation(name).unwrap().clone()
}

fn header<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

fn credential(place: Place) -> Credential {
    Credential { secret: Secret("s3cret&x".into()), place }
}

fn entry_header() -> Credential {
    credential(Place::Header { name: "Authorization".into(), scheme: Some("Bearer".into()) })
}

#[test]
fn arguments_go_to_their_places_at_the_base_url_alone() {
    let list = operation(PETSTORE, "listPets");
    let arguments = json!({ "limit": 5, "tags": ["a b", "c&d"], "filter": { "color": "brown" }, "X-Trace-Id": "t-1" });
    let r = request(&list, "https://pets.example.com/api/", &arguments, None).unwrap();
    assert_eq!(r.method, "GET");
    assert_eq!(
        r.url, "https://pets.example.com/api/pets?limit=5&tags=a%20b&tags=c%26d&filter%5Bcolor%5D=brown",
        "never the document's servers"
    );
    assert_eq!(header(&r, "accept"), Some("application/json"));
    assert_eq!(header(&r, "X-Trace-Id"), Some("t-1"));
    assert_eq!((header(&r, "content-type"), &r.body), (None, &None));

    let show = operation(PETSTORE, "showPetById");
    let r = request(&show, "https://pets.example.com?v=2", &json!({ "petId": "a b/c", "petId__query": true }), None)
        .unwrap();
    assert_eq!(r.url, "https://pets.example.com/pets/a%20b%2Fc?v=2&petId=true");

    let list = operation(NOTES, "listNotes");
    let arguments = json!({ "q": null, "ids": [1, 2], "when": { "from": "2026-01-01" } });
    let r = request(&list, "https://notes.example.com", &arguments, None).unwrap();
    assert_eq!(r.url, "https://notes.example.com/notes?ids=1,2&when=%7B%22from%22%3A%222026-01-01%22%7D");
}

#[test]
fn a_body_goes_as_json_of_its_media_type() {
    let create = operation(PETSTORE, "createPet");
    let r = request(&create, "https://pets.example.com", &json!({ "body": { "name": "Rex" } }), None).unwrap();
    assert_eq!(r.method, "POST");
    assert_eq!(r.body.as_deref(), Some(r#"{"name":"Rex"}"#));
    assert_eq!(header(&r, "content-type"), Some("application/json"));
    let note = operation(NOTES, "createNote");
    let r = request(&note, "https://notes.example.com", &json!({}), None).unwrap();
    assert_eq!((r.body.as_deref(), header(&r, "content-type")), (None, None), "a body left out is not sent");
    let r = request(&note, "https://notes.example.com", &json!({ "body": { "text": "hi" } }), None).unwrap();
    assert_eq!(header(&r, "content-type"), Some("application/merge-patch+json"));
}

#[test]
fn the_credential_goes_where_the_scheme_says() {
    let c = entry_header();
    let list = operation(PETSTORE, "listPets");
    let r = request(&list, "https://p", &json!({}), Some(&c)).unwrap();
    assert_eq!((header(&r, "X-Api-Key"), header(&r, "Authorization")), (Some("s3cret&x"), None));
    let update = operation(PETSTORE, "updatePet");
    let r = request(&update, "https://p", &json!({ "petId": "1", "body": { "name": "Rex" } }), Some(&c)).unwrap();
    assert_eq!(header(&r, "Authorization"), Some("Basic s3cret&x"), "the secret as given");
    let show = operation(PETSTORE, "showPetById");
    let r = request(&show, "https://p", &json!({ "petId": "1" }), Some(&c)).unwrap();
    assert!(
        r.headers.iter().all(|(_, v)| !v.contains("s3cret")) && !r.url.contains("s3cret"),
        "security: [] sends none"
    );
    let notes = operation(NOTES, "listNotes");
    let r = request(&notes, "https://n/v1", &json!({ "q": "milk" }), Some(&c)).unwrap();
    assert_eq!(r.url, "https://n/v1/notes?q=milk&api_key=s3cret%26x");
    assert_eq!(header(&r, "Authorization"), None);

    // OAuth 2, which the runtime does not fill, leaves it where the entry says.
    let delete = operation(PETSTORE, "deletePet");
    let arguments = json!({ "petId": "1", "X-Reason": "sold" });
    let r = request(&delete, "https://p", &arguments, Some(&c)).unwrap();
    assert_eq!(header(&r, "Authorization"), Some("Bearer s3cret&x"));
    let in_query = credential(Place::Query { name: "key".into() });
    let r = request(&delete, "https://p", &arguments, Some(&in_query)).unwrap();
    assert_eq!(r.url, "https://p/pets/1?key=s3cret%26x");
    assert_eq!(header(&r, "X-Reason"), Some("sold"));
    let r = request(&delete, "https://p", &arguments, None).unwrap();
    assert_eq!(header(&r, "Authorization"), None);
}

#[test]
fn arguments_that_do_not_fit_are_refused_in_words() {
    let show = operation(PETSTORE, "showPetById");
    let refused = |arguments: Value| request(&show, "https://p", &arguments, None).unwrap_err();
    assert_eq!(refused(json!({})), "the argument \u{201c}petId\u{201d} is required: it goes in the path");
    assert!(refused(json!({ "petId": ".." })).contains("names no place in the path"));
    assert!(refused(json!({ "petId": "" })).contains("names no place in the path"));
    assert_eq!(refused(json!({ "petId": "1", "colour": "red" })), "it takes no argument \u{201c}colour\u{201d}");
    assert_eq!(refused(json!([1])), "its arguments are not a JSON object");
    assert_eq!(request(&show, "https://p", &json!({ "petId": 7 }), None).unwrap().url, "https://p/pets/7");
}

#[test]
fn answers_read_as_a_tools() {
    let ok = answered(200, Some("application/json; charset=utf-8"), "{ \"id\": 1,\n \"name\": \"Rex\" }");
    assert_eq!(ok.text, r#"{"id":1,"name":"Rex"}"#);
    assert_eq!(ok.structured, Some(json!({ "id": 1, "name": "Rex" })));
    assert!(!ok.is_error);
    let list = answered(200, Some("application/json"), "[1, 2]");
    assert_eq!((list.text.as_str(), list.structured), ("[1,2]", None));
    let text = answered(200, Some("text/plain"), "{not json} as is");
    assert_eq!(text.text, "{not json} as is");
    let none = answered(204, None, "");
    assert_eq!((none.text.as_str(), none.is_error), ("HTTP 204, with an empty body.", false));
    let missing = answered(404, Some("application/json"), r#"{"error": "no such pet"}"#);
    assert_eq!((missing.text.as_str(), missing.is_error), (r#"HTTP 404: {"error":"no such pet"}"#, true));
    assert_eq!(missing.structured, None);
    let long = answered(500, Some("text/html"), &"<p>".repeat(1000));
    assert!(long.text.starts_with("HTTP 500: <p><p>") && long.text.chars().count() <= ERROR_SHOWN + 10);
}
