//! A connection's token renewed as it is used, against a scripted service: an ended consent
//! refreshed and kept before the call, a 401 refreshed once and the call made again, a refused
//! refresh breaking the connection unless another request renewed it meanwhile, a failing token
//! endpoint leaving it connected, and client credentials asked for and asked again.

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::block_on;
use serde_json::{json, Value};

use super::*;
use crate::core::actor::{Actor, ActorKind};
use crate::core::connection::input::check;
use crate::core::connection::providers::Providers;
use crate::core::connection::{link, OauthClient};
use crate::core::tool_server::Request;
use crate::ops::connections::memory::Plain;
use crate::ops::connections::{servers, Sealer};
use crate::ops::memory::Runtime;
use crate::ops::outbound::Unanswered;
use crate::ops::tool_client::Response;
use crate::ops::tool_servers::Registry;

const MCP: &str = "https://mcp.example.com/mcp";
const ISSUER: &str = "https://auth.example.com";
const TOKEN: &str = "https://auth.example.com/token";
const ORG: &str = "acme";
const ID: &str = "con_aaaaaaaaaaaaaaaa";

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-12-05T10:00:00Z").unwrap().to_utc()
}

type Answer = dyn Fn(&Request) -> Result<Response, Unanswered>;

/// A service written as a function of the requests it receives; it keeps every request.
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

impl<F: Fn(&Request) -> Result<Response, Unanswered>> Scripted<F> {
    fn to_token_endpoint(&self) -> Vec<String> {
        self.requests.borrow().iter().filter(|r| r.url == TOKEN).filter_map(|r| r.body.clone()).collect()
    }
}

fn json_answer(status: u16, body: Value) -> Result<Response, Unanswered> {
    Ok(Response {
        status,
        content_type: Some("application/json".into()),
        body: body.to_string(),
        ..Response::default()
    })
}

fn tokens(access: &str, refresh: Option<&str>) -> Result<Response, Unanswered> {
    let mut body = json!({ "access_token": access, "token_type": "Bearer", "expires_in": 3600 });
    if let Some(r) = refresh {
        body["refresh_token"] = json!(r);
    }
    json_answer(200, body)
}

/// An MCP server that takes the access token `good` alone, and answers every call.
fn mcp(request: &Request, good: &str) -> Result<Response, Unanswered> {
    let bearer = request.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("authorization")).map(|(_, v)| v.clone());
    if bearer.as_deref() != Some(&format!("Bearer {good}")) {
        return Ok(Response {
            status: 401,
            www_authenticate: Some("Bearer error=\"invalid_token\"".into()),
            ..Response::default()
        });
    }
    let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or_default();
    let result = match body["method"].as_str() {
        Some("tools/call") => json!({ "content": [{ "type": "text", "text": "Issue 1 is open." }], "isError": false }),
        Some("tools/list") => json!({ "tools": [{ "name": "list_issues", "inputSchema": { "type": "object" } }] }),
        _ => json!({}),
    };
    json_answer(200, json!({ "jsonrpc": "2.0", "id": body["id"], "result": result }))
}

fn settings() -> Settings {
    Settings { sealer: Some(Rc::new(Plain)), ..Settings::default() }
}

fn seal(opened: &Opened) -> String {
    Plain.seal(&aad(ORG, ID, "credential"), &serde_json::to_vec(opened).unwrap()).unwrap()
}

fn consent(access: &str, refresh: Option<&str>, expires_at: &str) -> Opened {
    Opened {
        access_token: Some(access.into()),
        refresh_token: refresh.map(str::to_string),
        expires_at: Some(expires_at.into()),
        client_id: Some("client-1".into()),
        token_endpoint: Some(TOKEN.into()),
        client_auth: Some(crate::core::service_auth::token::ClientAuth::None),
        resource: Some(MCP.into()),
        ..Opened::default()
    }
}

/// A connected connection of `credential`, its credential `opened`, kept in `m`.
fn connected(m: &Runtime, credential: Credential, opened: &Opened) -> Connection {
    let mut plan =
        check(&json!({ "name": "tracker", "type": "mcp", "entry": { "url": MCP } }), &Providers::compiled(), true)
            .unwrap();
    plan.credential = Some(credential);
    let by = Actor { kind: ActorKind::Person, id: "person:ada".into(), name: "Ada".into() };
    let link = link::new(&link::mint(&[1; 32]), now(), None);
    let mut c = plan.into_connection(ID.into(), ORG, link, by, "2026-12-05T09:00:00.000Z").unwrap();
    c.status = Status::Connected;
    c.sealed.credential = Some(seal(opened));
    m.connections_of(ORG).rows.borrow_mut().insert(ID.into(), c.clone());
    c
}

fn authorization() -> Credential {
    Credential::Authorization { issuer: Some(ISSUER.into()), oauth_client: OauthClient::Runtime }
}

fn kept(m: &Runtime) -> (Connection, Opened) {
    let c = m.connections_of(ORG).rows.borrow().get(ID).cloned().unwrap();
    let opened = serve::opened(&c, &settings()).unwrap();
    (c, opened)
}

fn using<'a>(m: &'a Runtime, settings: &'a Settings, transport: &'a dyn Transport) -> Using<'a> {
    Using { backend: m, settings, transport, org: ORG, now: now() }
}

fn bearer(s: &Server) -> Result<String, Unusable> {
    s.state.clone().map(|e| e.credential.map(|c| c.secret.0).unwrap_or_default())
}

#[test]
fn an_ended_token_is_refreshed_and_kept_before_the_call_and_a_good_one_is_left_alone() {
    let m = Runtime::default();
    let (settings, service) = (settings(), scripted(|_| tokens("access-2", Some("refresh-2"))));
    // Ends within the minute's margin.
    connected(&m, authorization(), &consent("access-1", Some("refresh-1"), "2026-12-05T10:00:30.000Z"));
    let first = block_on(servers(&using(&m, &settings, &service)));
    assert_eq!(bearer(&first[0]).unwrap(), "access-2");
    let sent = service.to_token_endpoint();
    assert_eq!(sent.len(), 1);
    assert!(sent[0].contains("grant_type=refresh_token") && sent[0].contains("refresh_token=refresh-1"), "{}", sent[0]);
    assert!(sent[0].contains("resource=https%3A%2F%2Fmcp.example.com%2Fmcp"), "{}", sent[0]);
    let (c, opened) = kept(&m);
    assert_eq!(
        (opened.access_token.as_deref(), opened.refresh_token.as_deref()),
        (Some("access-2"), Some("refresh-2"))
    );
    assert_eq!(opened.expires_at.as_deref(), Some("2026-12-05T11:00:00.000Z"));
    assert_eq!((c.status, c.broken.is_none()), (Status::Connected, true));

    // A token that lasts is sent as it is, and one refreshed without a new refresh token keeps the old.
    let again = block_on(servers(&using(&m, &settings, &service)));
    assert_eq!((bearer(&again[0]).unwrap(), service.to_token_endpoint().len()), ("access-2".into(), 1));
    let m = Runtime::default();
    let same = scripted(|_| tokens("access-3", None));
    connected(&m, authorization(), &consent("access-1", Some("refresh-1"), "2026-12-05T09:00:00.000Z"));
    block_on(servers(&using(&m, &settings, &same)));
    assert_eq!(kept(&m).1.refresh_token.as_deref(), Some("refresh-1"));
}

#[test]
fn a_refused_refresh_breaks_the_connection_and_a_failing_one_leaves_it_connected_for_a_later_call() {
    let settings = settings();
    let refused = scripted(|_| json_answer(400, json!({ "error": "invalid_grant", "error_description": "gone" })));
    let m = Runtime::default();
    connected(&m, authorization(), &consent("access-1", Some("refresh-1"), "2026-12-05T09:00:00.000Z"));
    let s = block_on(servers(&using(&m, &settings, &refused))).remove(0);
    let u = s.state.unwrap_err();
    assert_eq!(u.because, Because::ConnectionBroken);
    assert!(u.detail.contains("reconnect_connection") && u.detail.contains("invalid_grant"), "{}", u.detail);
    assert!(!u.detail.contains("refresh-1"), "{}", u.detail);
    assert_eq!(kept(&m).0.broken.map(|b| b.kind), Some(BreakKind::RefreshRefused));

    let failing: [Box<Answer>; 3] = [
        Box::new(|_| Ok(Response { status: 500, body: "Internal Server Error".into(), ..Response::default() })),
        Box::new(|_| json_answer(200, json!("<html>Bad Gateway</html>"))),
        Box::new(|_| Err(Unanswered::Timeout)),
    ];
    for answer in failing {
        let m = Runtime::default();
        connected(&m, authorization(), &consent("access-1", Some("refresh-1"), "2026-12-05T09:00:00.000Z"));
        let service = scripted(answer);
        let u = block_on(servers(&using(&m, &settings, &service))).remove(0).state.unwrap_err();
        assert_eq!(u.because, Because::ConnectionUnavailable);
        assert!(u.detail.contains("a later call may find it put right"), "{}", u.detail);
        let (c, opened) = kept(&m);
        assert_eq!((c.status, c.broken, opened.refresh_token.as_deref()), (Status::Connected, None, Some("refresh-1")));
    }
}

#[test]
fn a_refresh_token_another_request_rotated_is_not_taken_for_a_refusal() {
    let settings = settings();
    let m = Runtime::default();
    let c = connected(&m, authorization(), &consent("access-1", Some("refresh-1"), "2026-12-05T09:00:00.000Z"));
    // While this request asks, another refreshes first: the one this request holds is spent.
    let table = m.connections_of(ORG);
    let service = scripted(move |_| {
        let newer = seal(&consent("access-2", Some("refresh-2"), "2026-12-05T11:00:00.000Z"));
        table.rows.borrow_mut().get_mut(ID).unwrap().sealed.credential = Some(newer);
        json_answer(400, json!({ "error": "invalid_grant" }))
    });
    let s = block_on(server(&using(&m, &settings, &service), c, false)).unwrap();
    assert_eq!(bearer(&s).unwrap(), "access-2");
    let (c, opened) = kept(&m);
    assert_eq!((c.broken, opened.refresh_token.as_deref()), (None, Some("refresh-2")));

    // A refresh whose connection changed meanwhile keeps the newer credential, not its own.
    let m = Runtime::default();
    let c = connected(&m, authorization(), &consent("access-1", Some("refresh-1"), "2026-12-05T09:00:00.000Z"));
    let table = m.connections_of(ORG);
    let service = scripted(move |_| {
        let newer = seal(&consent("access-9", Some("refresh-9"), "2026-12-05T11:00:00.000Z"));
        table.rows.borrow_mut().get_mut(ID).unwrap().sealed.credential = Some(newer);
        tokens("access-2", Some("refresh-2"))
    });
    let s = block_on(server(&using(&m, &settings, &service), c, false)).unwrap();
    assert_eq!(bearer(&s).unwrap(), "access-9");
    assert_eq!(kept(&m).1.refresh_token.as_deref(), Some("refresh-9"));
}

#[test]
fn a_401_is_refreshed_once_and_the_call_made_again() {
    let settings = settings();
    let m = Runtime::default();
    // The service ended the token before the expiry the runtime kept.
    connected(&m, authorization(), &consent("access-1", Some("refresh-1"), "2026-12-05T11:00:00.000Z"));
    let service = scripted(|r| if r.url == TOKEN { tokens("access-2", Some("refresh-2")) } else { mcp(r, "access-2") });
    let using = using(&m, &settings, &service);
    let loaded = block_on(servers(&using));
    assert_eq!(service.to_token_endpoint().len(), 0, "the token has not ended as the runtime knows it");
    let base = Registry { transport: &service, ..Registry::none() };
    let registry = base.with(&loaded).renewing(&using);
    let schema = json!({ "type": "object" });
    let answered = block_on(registry.call(&loaded[0], "list_issues", &schema, &json!({}), 10)).unwrap();
    assert_eq!(answered.text, "Issue 1 is open.");
    assert_eq!(service.to_token_endpoint().len(), 1);
    assert_eq!(kept(&m).1.access_token.as_deref(), Some("access-2"));

    // Without the renewal, or where the new token is refused too, the refusal stands: once.
    let plain = base.with(&loaded);
    assert_eq!(
        block_on(plain.call(&loaded[0], "list_issues", &schema, &json!({}), 10)).unwrap_err().because,
        Because::KeyRefused
    );
    let nobody = scripted(|r| if r.url == TOKEN { tokens("access-3", None) } else { mcp(r, "nobody") });
    let using = Using { transport: &nobody, ..using };
    let registry = Registry { transport: &nobody, ..Registry::none() }.with(&loaded).renewing(&using);
    let failure = block_on(registry.call(&loaded[0], "list_issues", &schema, &json!({}), 10)).unwrap_err();
    assert_eq!((failure.because, nobody.to_token_endpoint().len()), (Because::KeyRefused, 1));
}

#[test]
fn client_credentials_are_asked_for_when_missing_or_ended_and_a_refused_client_breaks() {
    let settings = settings();
    let cc = Credential::ClientCredentials { issuer: ISSUER.into(), client_id: None, scope: Some("read write".into()) };
    let secret =
        Opened { client_id: Some("svc".into()), client_secret: Some("shh-secret".into()), ..Opened::default() };
    let metadata = json!({ "issuer": ISSUER, "token_endpoint": TOKEN, "token_endpoint_auth_methods_supported": ["client_secret_post"] });
    let answer =
        move |r: &Request| if r.url == TOKEN { tokens("cc-1", None) } else { json_answer(200, metadata.clone()) };
    let m = Runtime::default();
    connected(&m, cc.clone(), &secret);
    let service = scripted(answer);
    let s = block_on(servers(&using(&m, &settings, &service))).remove(0);
    assert_eq!(bearer(&s).unwrap(), "cc-1");
    let sent = service.to_token_endpoint();
    assert!(sent[0].contains("grant_type=client_credentials") && sent[0].contains("scope=read%20write"), "{}", sent[0]);
    let (_, opened) = kept(&m);
    assert_eq!((opened.access_token.as_deref(), opened.client_secret.as_deref()), (Some("cc-1"), Some("shh-secret")));
    assert_eq!(opened.expires_at.as_deref(), Some("2026-12-05T11:00:00.000Z"));
    block_on(servers(&using(&m, &settings, &service)));
    assert_eq!(service.to_token_endpoint().len(), 1, "a token that lasts is not asked again");
    let later = Using { now: now() + TimeDelta::hours(2), ..using(&m, &settings, &service) };
    block_on(servers(&later));
    assert_eq!(service.to_token_endpoint().len(), 2, "an ended one is");

    let metadata = json!({ "issuer": ISSUER, "token_endpoint": TOKEN });
    let refused = scripted(move |r: &Request| {
        if r.url == TOKEN {
            json_answer(401, json!({ "error": "invalid_client" }))
        } else {
            json_answer(200, metadata.clone())
        }
    });
    let m = Runtime::default();
    connected(&m, cc, &secret);
    let u = block_on(servers(&using(&m, &settings, &refused))).remove(0).state.unwrap_err();
    assert_eq!(u.because, Because::ConnectionBroken);
    assert!(!u.detail.contains("shh-secret"), "{}", u.detail);
}

#[test]
fn a_renewal_that_fails_is_not_kept_as_the_servers_failure() {
    use crate::ops::tool_servers::Lists;
    let settings = settings();
    let m = Runtime::default();
    connected(&m, authorization(), &consent("access-1", Some("refresh-1"), "2026-12-05T11:00:00.000Z"));
    let down = Rc::new(std::cell::Cell::new(true));
    let flag = down.clone();
    let service = scripted(move |r| match (r.url == TOKEN, flag.get()) {
        (true, true) => Ok(Response { status: 502, ..Response::default() }),
        (true, false) => tokens("access-2", Some("refresh-2")),
        _ => mcp(r, "access-2"),
    });
    let using = using(&m, &settings, &service);
    let loaded = block_on(servers(&using));
    let lists = Lists::default();
    let registry = Registry { transport: &service, lists: Some(&lists), ..Registry::none() };
    let registry = registry.with(&loaded).renewing(&using);
    let failure = block_on(registry.offered(&loaded[0], 100)).unwrap_err();
    assert_eq!(failure.because, Because::ConnectionUnavailable);
    assert_eq!(kept(&m).0.broken, None);
    down.set(false);
    let offered = block_on(registry.offered(&loaded[0], 101)).unwrap();
    assert_eq!(offered.len(), 1, "the service answers again, and the next call finds it");
}
