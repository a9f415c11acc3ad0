//! The OAuth client against scripted services: each path of the probe, discovery, registration
//! and the token exchanges, with garbage, a wrong issuer and stalls, and no secret in any words.

use std::cell::RefCell;

use chrono::TimeDelta;
use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use super::*;

/// A service written as a function of the requests it receives; it keeps every request.
struct Scripted<F: Fn(&Request) -> Result<Response, Unanswered>> {
    answer: F,
    requests: RefCell<Vec<Request>>,
}

impl<F: Fn(&Request) -> Result<Response, Unanswered>> Transport for Scripted<F> {
    fn send(&self, request: Request, timeout: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        assert_eq!(timeout, AUTH_SECONDS);
        let answer = (self.answer)(&request);
        self.requests.borrow_mut().push(request);
        Box::pin(async move { answer })
    }
}

fn scripted<F: Fn(&Request) -> Result<Response, Unanswered>>(answer: F) -> Scripted<F> {
    Scripted { answer, requests: RefCell::new(Vec::new()) }
}

impl<F: Fn(&Request) -> Result<Response, Unanswered>> Scripted<F> {
    fn urls(&self) -> Vec<String> {
        self.requests.borrow().iter().map(|r| format!("{} {}", r.method, r.url)).collect()
    }
}

fn answer(status: u16, body: Value) -> Result<Response, Unanswered> {
    Ok(Response {
        status,
        content_type: Some("application/json".into()),
        body: body.to_string(),
        ..Response::default()
    })
}

fn status(status: u16) -> Result<Response, Unanswered> {
    Ok(Response { status, ..Response::default() })
}

fn unauthorized(challenge: &str) -> Result<Response, Unanswered> {
    Ok(Response { status: 401, www_authenticate: Some(challenge.into()), ..Response::default() })
}

const MCP: &str = "https://mcp.example.com/mcp";
const ISSUER: &str = "https://auth.example.com";

fn resource_doc() -> Value {
    json!({ "resource": MCP, "authorization_servers": [ISSUER], "scopes_supported": ["files:read"] })
}

fn metadata_doc() -> Value {
    json!({
        "issuer": ISSUER,
        "authorization_endpoint": format!("{ISSUER}/authorize"),
        "token_endpoint": format!("{ISSUER}/token"),
        "registration_endpoint": format!("{ISSUER}/register"),
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "none"],
    })
}

fn authorization(challenge_scopes: &[&str]) -> Probe {
    Probe::Authorization(Authorization {
        issuer: ISSUER.into(),
        resource: MCP.into(),
        scopes_supported: vec!["files:read".into()],
        challenge_scopes: challenge_scopes.iter().map(|s| s.to_string()).collect(),
    })
}

#[test]
fn probe_follows_the_challenge() {
    let named = "https://mcp.example.com/prm/custom";
    let service = scripted(|r| match r.url.as_str() {
        MCP => unauthorized(&format!(r#"Bearer resource_metadata="{named}", scope="files:read files:write""#)),
        url if url == named => answer(200, resource_doc()),
        _ => status(404),
    });
    assert_eq!(block_on(probe(&service, MCP, true)), authorization(&["files:read", "files:write"]));
    assert_eq!(service.urls(), [format!("POST {MCP}"), format!("GET {named}")]);
    let first = &service.requests.borrow()[0];
    assert!(first.headers.iter().all(|(n, _)| !n.eq_ignore_ascii_case("authorization")));
    assert!(first.body.as_deref().unwrap().contains("server/discover"));
}

#[test]
fn what_the_probe_found_settles_a_connection_asking_the_challenge_scopes_first() {
    use crate::core::connection::probe::Probe as Found;
    let found: Found = authorization(&["files:write"]).into();
    assert_eq!(found, Found::Names { issuer: ISSUER.into(), scopes: vec!["files:write".into()] });
    let found: Found = authorization(&[]).into();
    assert_eq!(found, Found::Names { issuer: ISSUER.into(), scopes: vec!["files:read".into()] });
    assert_eq!(Found::from(Probe::NamesNone), Found::NamesNone);
    let gone: Found = Probe::Unreachable { detail: "it answered HTTP 502".into() }.into();
    assert_eq!(gone, Found::Unreachable("it answered HTTP 502".into()));
}

#[test]
fn probe_tries_the_well_known_addresses() {
    let service = scripted(|r| match r.url.as_str() {
        MCP => unauthorized(r#"Bearer realm="mcp""#),
        "https://mcp.example.com/.well-known/oauth-protected-resource" => answer(200, resource_doc()),
        _ => status(404),
    });
    assert_eq!(block_on(probe(&service, MCP, true)), authorization(&[]));
    assert_eq!(
        service.urls(),
        [
            format!("POST {MCP}"),
            "GET https://mcp.example.com/.well-known/oauth-protected-resource/mcp".into(),
            "GET https://mcp.example.com/.well-known/oauth-protected-resource".into(),
        ]
    );
    // A 401 whose metadata is nowhere names nothing; so does metadata naming no server.
    let nowhere = scripted(|r| if r.url == MCP { status(401) } else { status(404) });
    assert_eq!(block_on(probe(&nowhere, MCP, true)), Probe::NamesNone);
    let empty = scripted(|r| match r.url.as_str() {
        MCP => status(401),
        _ => answer(200, json!({ "resource": MCP })),
    });
    assert_eq!(block_on(probe(&empty, MCP, true)), Probe::NamesNone);
}

#[test]
fn probe_of_a_server_that_asks_nothing() {
    for open in [200, 400, 405, 406] {
        let service = scripted(move |_| status(open));
        assert_eq!(block_on(probe(&service, MCP, true)), Probe::NamesNone, "{open}");
        assert_eq!(service.requests.borrow().len(), 1);
    }
}

fn unreachable_words(probed: Probe) -> String {
    match probed {
        Probe::Unreachable { detail } => detail,
        other => panic!("{other:?}"),
    }
}

#[test]
fn probe_refusals() {
    let stalled = scripted(|_| Err(Unanswered::Timeout));
    assert_eq!(unreachable_words(block_on(probe(&stalled, MCP, true))), "it gave no answer within 15 seconds");
    for (code, words) in [(503, "HTTP 503"), (404, "no MCP server"), (429, "slow down")] {
        let service = scripted(move |_| status(code));
        assert!(unreachable_words(block_on(probe(&service, MCP, true))).contains(words));
    }
    // Deployed, nothing inside the network is asked: not the server, not what its answer names.
    let never = scripted(|_| panic!("nothing may be fetched"));
    assert!(unreachable_words(block_on(probe(&never, "http://10.0.0.1/mcp", true))).contains("https"));
    let inward = scripted(|r| match r.url.as_str() {
        MCP => unauthorized(r#"Bearer resource_metadata="https://169.254.169.254/latest""#),
        _ => panic!("the address named inside the network must not be fetched"),
    });
    assert!(unreachable_words(block_on(probe(&inward, MCP, true))).contains("public host"));
    let bad_issuer = scripted(|r| match r.url.as_str() {
        MCP => status(401),
        _ => answer(200, json!({ "resource": MCP, "authorization_servers": ["http://auth.example.com"] })),
    });
    assert!(unreachable_words(block_on(probe(&bad_issuer, MCP, true))).contains("http://auth.example.com"));
    let other = scripted(|r| match r.url.as_str() {
        MCP => status(401),
        _ => answer(200, json!({ "resource": "https://elsewhere.example.com/mcp", "authorization_servers": [ISSUER] })),
    });
    assert!(unreachable_words(block_on(probe(&other, MCP, true))).contains("not the server"));
    let garbage = scripted(|r| match r.url.as_str() {
        MCP => status(401),
        _ => Ok(Response { status: 200, body: "<html>".into(), ..Response::default() }),
    });
    assert!(unreachable_words(block_on(probe(&garbage, MCP, true))).contains("not a JSON object"));
    let stalls_later = scripted(|r| if r.url == MCP { status(401) } else { Err(Unanswered::Timeout) });
    assert!(unreachable_words(block_on(probe(&stalls_later, MCP, true))).contains("no answer"));
    // Run locally, a stand-in on loopback is asked.
    let local = "http://127.0.0.1:9/mcp";
    let stand_in = scripted(|r| match r.url.as_str() {
        "http://127.0.0.1:9/mcp" => status(401),
        "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp" => {
            answer(200, json!({ "resource": local, "authorization_servers": ["http://127.0.0.1:10"] }))
        }
        _ => status(404),
    });
    assert!(
        matches!(block_on(probe(&stand_in, local, false)), Probe::Authorization(a) if a.issuer == "http://127.0.0.1:10")
    );
}

#[test]
fn discovery_of_an_issuer() {
    let issuer = "https://auth.example.com/tenant";
    let service = scripted(|r| match r.url.as_str() {
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant" => status(404),
        "https://auth.example.com/.well-known/openid-configuration/tenant" => {
            let mut doc = metadata_doc();
            doc["issuer"] = json!(issuer);
            answer(200, doc)
        }
        _ => status(404),
    });
    let metadata = block_on(discover(&service, issuer, true)).unwrap();
    assert_eq!(metadata.token_endpoint, "https://auth.example.com/token");
    assert_eq!(service.requests.borrow().len(), 2);
    let wrong = scripted(|_| answer(200, metadata_doc()));
    let err = block_on(discover(&wrong, "https://auth.example.com/tenant", true)).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Failing);
    assert!(err.detail.contains("of the issuer https://auth.example.com, not of"), "{err}");
    let garbage = scripted(|_| Ok(Response { status: 200, body: "{{{".into(), ..Response::default() }));
    assert_eq!(block_on(discover(&garbage, ISSUER, true)).unwrap_err().kind, ErrorKind::Failing);
    let missing = scripted(|_| status(404));
    let err = block_on(discover(&missing, ISSUER, true)).unwrap_err();
    assert!(err.detail.contains("serves no authorization server metadata"), "{err}");
    let stalled = scripted(|_| Err(Unanswered::Timeout));
    assert_eq!(block_on(discover(&stalled, ISSUER, true)).unwrap_err().kind, ErrorKind::Unreachable);
    let never = scripted(|_| panic!("nothing may be fetched"));
    assert_eq!(block_on(discover(&never, "https://10.0.0.2", true)).unwrap_err().kind, ErrorKind::AddressRefused);
}

fn metadata() -> ServerMetadata {
    discovery::read_server_metadata(&metadata_doc().to_string(), ISSUER, true).unwrap()
}

#[test]
fn registration() {
    let service = scripted(|r| {
        let body: Value = serde_json::from_str(r.body.as_deref().unwrap_or("")).unwrap();
        assert_eq!(body["client_name"], "Auto Runtime");
        assert_eq!(body["redirect_uris"], json!(["https://rt.example.com/connect/callback"]));
        answer(
            201,
            json!({ "client_id": "c1", "client_secret": "cs_SECRET_9", "token_endpoint_auth_method": body["token_endpoint_auth_method"] }),
        )
    });
    let registered = block_on(register(&service, &metadata(), "https://rt.example.com/connect/callback")).unwrap();
    assert_eq!((registered.client.id.as_str(), registered.client.auth), ("c1", ClientAuth::ClientSecretPost));
    assert_eq!(service.urls(), [format!("POST {ISSUER}/register")]);
    let mut closed = metadata();
    closed.registration_endpoint = None;
    let err = block_on(register(&service, &closed, "https://r/cb")).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    let stalled = scripted(|_| Err(Unanswered::Timeout));
    assert_eq!(block_on(register(&stalled, &metadata(), "https://r/cb")).unwrap_err().kind, ErrorKind::Unreachable);
}

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-12-05T08:00:00Z").unwrap().with_timezone(&Utc)
}

const SECRETS: [&str; 4] = ["cs_SECRET_9", "code_SECRET_1", "verifier_SECRET_2", "rt_SECRET_3"];

fn pending(resource: Option<&str>, scopes: &[String]) -> Pending {
    Pending {
        state: "st".into(),
        verifier: SECRETS[2].into(),
        redirect_uri: "https://rt.example.com/connect/callback".into(),
        resource: resource.map(str::to_string),
        scopes: scopes.to_vec(),
    }
}

fn client() -> Client {
    Client { id: "c1".into(), secret: Some(SECRETS[0].into()), auth: ClientAuth::ClientSecretPost }
}

#[test]
fn a_code_redeemed() {
    let service = scripted(|r| {
        let body = r.body.as_deref().unwrap_or("");
        assert!(
            body.contains("code_verifier=verifier_SECRET_2")
                && body.contains("resource=https%3A%2F%2Fmcp.example.com%2Fmcp")
        );
        answer(200, json!({ "access_token": "at", "token_type": "Bearer", "expires_in": 60, "refresh_token": "rt" }))
    });
    let scopes = vec!["files:read".to_string()];
    let pending = pending(Some(MCP), &scopes);
    let tokens = block_on(redeem(&service, &metadata(), &client(), &pending, SECRETS[1], now())).unwrap();
    assert_eq!((tokens.expires_at, tokens.scope), (Some(now() + TimeDelta::seconds(60)), scopes));
    assert_eq!(service.urls(), [format!("POST {ISSUER}/token")]);
}

#[test]
fn a_refresh_keeps_the_refresh_token_it_is_not_given_again() {
    let service = scripted(|_| answer(200, json!({ "access_token": "at2", "token_type": "bearer" })));
    let granted = vec!["a".to_string()];
    let tokens =
        block_on(refresh(&service, "https://auth.example.com/token", &client(), SECRETS[3], None, &granted, now()));
    let tokens = tokens.unwrap();
    assert_eq!((tokens.access.as_str(), tokens.refresh.as_deref()), ("at2", Some(SECRETS[3])));
}

#[test]
fn client_credentials_as_the_server_authenticates() {
    let basic_only = scripted(|r| match r.url.as_str() {
        "https://auth.example.com/.well-known/oauth-authorization-server" => {
            answer(200, json!({ "issuer": ISSUER, "token_endpoint": format!("{ISSUER}/token") }))
        }
        "https://auth.example.com/token" => {
            let basic = r.headers.iter().any(|(n, v)| n == "Authorization" && v.starts_with("Basic "));
            assert!(basic && !r.body.as_deref().unwrap_or("").contains("client_secret"));
            answer(200, json!({ "access_token": "at", "token_type": "Bearer", "scope": "read" }))
        }
        _ => status(404),
    });
    let scopes = vec!["read".to_string(), "write".to_string()];
    let tokens =
        block_on(client_credentials(&basic_only, ISSUER, "c1", SECRETS[0], &scopes, None, true, now())).unwrap();
    assert_eq!(tokens.scope, ["read"]);
    let post = scripted(|r| match r.url.as_str() {
        "https://auth.example.com/.well-known/oauth-authorization-server" => answer(200, metadata_doc()),
        _ => {
            assert!(r.body.as_deref().unwrap_or("").ends_with("client_secret=cs_SECRET_9"));
            answer(200, json!({ "access_token": "at" }))
        }
    });
    let tokens = block_on(client_credentials(&post, ISSUER, "c1", SECRETS[0], &[], None, true, now())).unwrap();
    assert!(tokens.scope.is_empty());
}

/// What a server answers, as a function of the request, which it may echo back in its words.
type Answer = fn(&Request) -> Result<Response, Unanswered>;

fn echoed(r: &Request) -> String {
    let headers: Vec<String> = r.headers.iter().map(|(n, v)| format!("{n}: {v}")).collect();
    format!("{} {} {}", r.url, headers.join(", "), r.body.as_deref().unwrap_or(""))
}

#[test]
fn failures_told_apart_and_kept_clear_of_secrets() {
    let cases: [(Answer, ErrorKind); 9] = [
        (|r| answer(400, json!({ "error": "invalid_grant", "error_description": echoed(r) })), ErrorKind::GrantRefused),
        (
            |r| answer(401, json!({ "error": "invalid_client", "error_description": echoed(r) })),
            ErrorKind::ClientRefused,
        ),
        (|_| answer(400, json!({ "error": "unauthorized_client" })), ErrorKind::ClientRefused),
        (|r| answer(400, json!({ "error": "invalid_scope", "error_description": echoed(r) })), ErrorKind::Refused),
        (|r| Ok(Response { status: 502, body: echoed(r), ..Response::default() }), ErrorKind::Failing),
        (|r| Ok(Response { status: 200, body: echoed(r), ..Response::default() }), ErrorKind::Failing),
        (|_| Err(Unanswered::Timeout), ErrorKind::Unreachable),
        (|r| Err(Unanswered::Unreachable(format!("fetch failed: {}", echoed(r)))), ErrorKind::Unreachable),
        (|_| Err(Unanswered::TooLarge(4 << 20)), ErrorKind::Failing),
    ];
    for (answered, kind) in cases {
        let service = scripted(answered);
        let token = "https://auth.example.com/token";
        let refreshed = block_on(refresh(&service, token, &client(), SECRETS[3], None, &[], now()));
        let redeemed = block_on(redeem(&service, &metadata(), &client(), &pending(None, &[]), SECRETS[1], now()));
        let basic = Client { auth: ClientAuth::ClientSecretBasic, ..client() };
        let by_header = block_on(refresh(&service, token, &basic, SECRETS[3], None, &[], now()));
        for err in [refreshed.unwrap_err(), redeemed.unwrap_err(), by_header.unwrap_err()] {
            assert_eq!(err.kind, kind, "{err}");
            assert_eq!(err.breaks_connection(), matches!(kind, ErrorKind::GrantRefused | ErrorKind::ClientRefused));
            for secret in SECRETS {
                assert!(!err.detail.contains(secret), "{err}");
            }
            // Nor as HTTP Basic writes it: base64 of "c1:cs_SECRET_9".
            assert!(!err.detail.contains("YzE6Y3NfU0VDUkVUXzk"), "{err}");
        }
    }
}

#[test]
fn revocation_as_a_connection_is_removed() {
    let service = scripted(|r| {
        assert_eq!(r.url, "https://auth.example.com/revoke");
        assert_eq!(
            r.body.as_deref(),
            Some("token=rt_SECRET_3&token_type_hint=refresh_token&client_id=c1&client_secret=cs_SECRET_9")
        );
        status(200)
    });
    let mut metadata = metadata();
    assert_eq!(block_on(revoke(&service, &metadata, &client(), SECRETS[3], "refresh_token")), Ok(false));
    assert!(service.requests.borrow().is_empty());
    metadata.revocation_endpoint = Some("https://auth.example.com/revoke".into());
    assert_eq!(block_on(revoke(&service, &metadata, &client(), SECRETS[3], "refresh_token")), Ok(true));
    let refusing =
        scripted(|r| answer(400, json!({ "error": "unsupported_token_type", "error_description": echoed(r) })));
    let err = block_on(revoke(&refusing, &metadata, &client(), SECRETS[3], "refresh_token")).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Refused);
    let stalled = scripted(|_| Err(Unanswered::Timeout));
    let err2 = block_on(revoke(&stalled, &metadata, &client(), SECRETS[3], "refresh_token")).unwrap_err();
    assert_eq!(err2.kind, ErrorKind::Unreachable);
    for secret in SECRETS {
        assert!(!err.detail.contains(secret) && !err2.detail.contains(secret), "{err}");
    }
}
