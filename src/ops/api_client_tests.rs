//! The client against stand-in APIs: documents fetched and refused, calls sent and failed.

use std::cell::RefCell;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use serde_json::json;

use super::*;
use crate::core::model::Secret;
use crate::core::tool_server::openapi::fixtures::{NOTES, PETSTORE};
use crate::core::tool_server::openapi::read;
use crate::ops::outbound::Unanswered;
use crate::ops::tool_client::Response;

/// An API written as a function of the requests it receives; it keeps every request.
struct Scripted<F: Fn(&Request) -> Result<Response, Unanswered>> {
    answer: F,
    requests: RefCell<Vec<Request>>,
}

impl<F: Fn(&Request) -> Result<Response, Unanswered>> Transport for Scripted<F> {
    fn send(&self, request: Request, _: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        let answer = (self.answer)(&request);
        self.requests.borrow_mut().push(request);
        Box::pin(async move { answer })
    }
}

fn scripted<F: Fn(&Request) -> Result<Response, Unanswered>>(answer: F) -> Scripted<F> {
    Scripted { answer, requests: RefCell::new(Vec::new()) }
}

fn status(status: u16, body: &str) -> Result<Response, Unanswered> {
    Ok(Response {
        status,
        content_type: Some("application/json".into()),
        session: None,
        www_authenticate: None,
        body: body.into(),
    })
}

fn header<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

fn bearer() -> Credential {
    Credential {
        secret: Secret("s3cret&x".into()),
        place: Place::Header { name: "Authorization".into(), scheme: Some("Bearer".into()) },
    }
}

fn at(address: &str) -> Document {
    Document::At(address.into())
}

#[test]
fn a_document_goes_with_the_credential_only_from_the_apis_own_origin() {
    let api = scripted(|_| status(200, PETSTORE));
    let c = bearer();
    let read = |document: &str, base: &str| block_on(read_document(&api, &at(document), base, Some(&c)));
    assert_eq!(read("http://127.0.0.1:9/openapi.json", "http://127.0.0.1:9/api").unwrap().operations.len(), 5);
    read("https://docs.example.com/pets.json", "https://pets.example.com/api").unwrap();
    read("https://pets.example.com/openapi.yaml", "https://pets.example.com:443/v1").unwrap();
    let requests = api.requests.borrow();
    let sent: Vec<Option<&str>> = requests.iter().map(|r| header(r, "Authorization")).collect();
    assert_eq!(sent, [Some("Bearer s3cret&x"), None, Some("Bearer s3cret&x")]);
    assert!(requests.iter().all(|r| r.method == "GET" && header(r, "accept").is_some_and(|a| a.contains("yaml"))));

    let in_query = Credential { secret: Secret("k y".into()), place: Place::Query { name: "key".into() } };
    let api = scripted(|_| status(200, NOTES));
    block_on(read_document(&api, &at("http://n/doc?v=1"), "http://n/", Some(&in_query))).unwrap();
    assert_eq!(api.requests.borrow()[0].url, "http://n/doc?v=1&key=k%20y");
}

#[test]
fn a_document_fetch_fails_as_a_list_does() {
    let c = bearer();
    let fails = |answer: Result<Response, Unanswered>, credential: Option<&Credential>| {
        let api = scripted(move |_| answer.clone());
        block_on(read_document(&api, &at("http://p/openapi.json"), "http://p/api", credential)).unwrap_err()
    };
    assert_eq!(fails(status(401, ""), Some(&c)).because, Because::KeyRefused);
    let f = fails(status(403, ""), None);
    assert_eq!(f.because, Because::SettingsInvalid);
    assert!(f.detail.contains("document_text"), "{}", f.detail);
    assert_eq!(fails(status(429, ""), None).because, Because::RateLimited);
    let f = fails(status(404, "no"), None);
    assert_eq!((f.because, f.detail.as_str()), (Because::Failing, "its document address answered HTTP 404"));
    let f = fails(Err(Unanswered::Timeout), None);
    assert_eq!(
        (f.because, f.detail.as_str()),
        (Because::Unreachable, "its document address gave no answer within 15 seconds")
    );
    let in_query = Credential { secret: Secret("k y".into()), place: Place::Query { name: "key".into() } };
    let down = Err(Unanswered::Unreachable("Network error fetching http://p/openapi.json?key=k%20y".into()));
    let f = fails(down, Some(&in_query));
    assert_eq!(
        f.detail,
        "its document address could not be reached: Network error fetching http://p/openapi.json?key=[hidden]"
    );
}

#[test]
fn a_document_that_is_not_openapi_3_is_refused_with_its_place() {
    let api = scripted(|_| panic!("a document in the settings is not fetched"));
    let f = block_on(read_document(&api, &Document::Text("swagger: '2.0'\n".into()), "http://p", None)).unwrap_err();
    assert_eq!(f.because, Because::DocumentRefused);
    assert!(f.detail.starts_with("its OpenAPI document cannot be used, as /swagger says"), "{}", f.detail);
    let api = scripted(|_| status(200, "<html>"));
    let f = block_on(read_document(&api, &at("http://p/openapi.json"), "http://p", None)).unwrap_err();
    assert_eq!(f.because, Because::DocumentRefused);
}

#[test]
fn a_call_goes_to_base_url_with_the_credential_and_is_answered() {
    let list = read(PETSTORE).unwrap().operation("listPets").unwrap().clone();
    let api = scripted(|_| status(200, r#"{"pets": []}"#));
    let c = bearer();
    let answered = block_on(call(&api, &list, "http://127.0.0.1:9/api/", Some(&c), &json!({ "limit": 2 }), 5)).unwrap();
    assert_eq!((answered.text.as_str(), answered.is_error), (r#"{"pets":[]}"#, false));
    let requests = api.requests.borrow();
    assert_eq!(requests[0].url, "http://127.0.0.1:9/api/pets?limit=2");
    assert_eq!(header(&requests[0], "X-Api-Key"), Some("s3cret&x"));

    let wrong = block_on(call(&api, &list, "http://p", None, &json!({ "colour": "red" }), 5)).unwrap();
    assert!(wrong.is_error && wrong.text.contains("was not sent"), "{}", wrong.text);
    assert_eq!(api.requests.borrow().len(), 1, "arguments that do not fit are not sent");
}

#[test]
fn a_call_that_fails_says_why_and_never_the_credential() {
    let notes = read(NOTES).unwrap().operation("listNotes").unwrap().clone();
    let c = bearer();
    let outcome = |answer: Result<Response, Unanswered>| {
        let api = scripted(move |_| answer.clone());
        block_on(call(&api, &notes, "http://n", Some(&c), &json!({ "q": "milk" }), 3))
    };
    assert_eq!(outcome(status(401, "")).unwrap_err().because, Because::KeyRefused);
    assert_eq!(outcome(status(429, "")).unwrap_err().because, Because::RateLimited);
    let f = outcome(Err(Unanswered::Timeout)).unwrap_err();
    assert_eq!((f.because, f.detail.as_str()), (Because::Unreachable, "it gave no answer within 3 seconds"));
    let f =
        outcome(Err(Unanswered::Unreachable("Network error fetching http://n/notes?q=milk&api_key=s3cret%26x".into())))
            .unwrap_err();
    assert_eq!(f.detail, "it could not be reached: Network error fetching http://n/notes?q=milk&api_key=[hidden]");
    let refused = outcome(status(403, r#"{"error": "the key s3cret&x may not read notes"}"#)).unwrap();
    assert!(refused.is_error);
    assert_eq!(refused.text, r#"HTTP 403: {"error":"the key [hidden] may not read notes"}"#);
}
