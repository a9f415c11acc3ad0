//! The runtime's OAuth client to services, driven end to end against a scenario server of the MCP
//! conformance suite, as the command of its client mode:
//!
//!   node conformance/dist/index.js client --scenario auth/metadata-default \
//!     --command "target/debug/examples/service_auth_conformance"
//!
//! The suite appends the scenario server's URL. The example probes it, discovers its authorization
//! server, registers, follows the consent (the suite's server approves at once and redirects),
//! redeems the code, and lists the server's tools with the token. It speaks plain HTTP/1.1 on
//! loopback with the standard library, since the scenario servers are local and a test needs no
//! more; it exits 1 with the step that failed.
//!
//! With `SERVICE_AUTH_ISSUER` (and `SERVICE_AUTH_RESOURCE`) set, it skips the probe and the MCP
//! server, prints `AUTHORIZE <url>` and reads the redirect's query from a line of its input, so a
//! script can play the person at a real authorization server's pages; it then redeems the code,
//! refreshes the token, and revokes it.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use playbook_runtime::core::model::Secret;
use playbook_runtime::core::service_auth::consent::{self, Consent};
use playbook_runtime::core::service_auth::redirect_uri;
use playbook_runtime::core::service_auth::token::{Client as OAuthClient, ClientAuth};
use playbook_runtime::core::tool_server::{Credential, Place, Request};
use playbook_runtime::ops::outbound::Unanswered;
use playbook_runtime::ops::service_auth::{
    client_credentials, discover, probe, redeem, refresh, register, revoke, Probe,
};
use playbook_runtime::ops::tool_client::{Client, Response, Transport};

struct Raw {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Raw {
    fn header(&self, name: &str) -> Option<String> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone())
    }
}

/// One request over a fresh connection, read to its end.
fn http(method: &str, url: &str, headers: &[(String, String)], body: Option<&str>) -> Result<Raw, String> {
    let rest = url.strip_prefix("http://").ok_or_else(|| format!("{url} is not http"))?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut stream = TcpStream::connect(host).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(Duration::from_secs(10))).map_err(|e| e.to_string())?;
    let body = body.unwrap_or("");
    let mut head =
        format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    stream.write_all(format!("{head}\r\n{body}").as_bytes()).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").ok_or("no end of headers")?;
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).ok_or("no status")?;
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_string(), v.trim().to_string())).collect();
    let raw = Raw { status, headers, body: body.to_string() };
    let chunked = raw.header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    Ok(if chunked { Raw { body: unchunked(&raw.body), ..raw } } else { raw })
}

fn unchunked(mut text: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = text.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else { break };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        text = rest[size..].trim_start_matches("\r\n");
    }
    out
}

struct Loopback;

impl Transport for Loopback {
    fn send(&self, request: Request, _timeout: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        let answer = http(request.method, &request.url, &request.headers, request.body.as_deref())
            .map(|raw| Response {
                status: raw.status,
                content_type: raw.header("content-type"),
                session: raw.header("mcp-session-id"),
                www_authenticate: raw.header("www-authenticate"),
                body: raw.body,
            })
            .map_err(Unanswered::Unreachable);
        Box::pin(async move { answer })
    }
}

/// The consent at a real authorization server, its pages answered by whoever drives the input.
fn at_real_server(issuer: &str) -> Result<(), String> {
    let transport = Loopback;
    let resource = std::env::var("SERVICE_AUTH_RESOURCE").ok();
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_err(|e| e.to_string())?;
    let now = chrono::DateTime::from_timestamp(since.as_secs() as i64, 0).ok_or("no clock")?;
    let metadata = block_on(discover(&transport, issuer, false)).map_err(|e| format!("discover: {e}"))?;
    let redirect = redirect_uri("http://127.0.0.1:8787");
    let client = block_on(register(&transport, &metadata, &redirect)).map_err(|e| format!("register: {e}"))?.client;
    println!("client: {client:?}");
    let scopes = consent::scopes_to_ask(&[], &["files:read".to_string()], &metadata);
    let mut random = [0u8; 64];
    getrandom::fill(&mut random).map_err(|e| e.to_string())?;
    let asked = Consent {
        metadata: &metadata,
        client_id: &client.id,
        redirect_uri: &redirect,
        scopes: &scopes,
        resource: resource.as_deref(),
    };
    let (authorize_url, pending) = consent::start(&asked, &random)?;
    println!("AUTHORIZE {authorize_url}");
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).map_err(|e| e.to_string())?;
    let callback = consent::read_callback(line.trim())?;
    let code = consent::code_of(callback, &pending.state, &metadata).map_err(|e| format!("callback: {e}"))?;
    let tokens =
        block_on(redeem(&transport, &metadata, &client, &pending, &code, now)).map_err(|e| format!("redeem: {e}"))?;
    println!("redeemed: {tokens:?}");
    let refresh_token = tokens.refresh.clone().ok_or("no refresh token")?;
    let refreshed = block_on(refresh(
        &transport,
        &metadata.token_endpoint,
        &client,
        &refresh_token,
        resource.as_deref(),
        &tokens.scope,
        now,
    ))
    .map_err(|e| format!("refresh: {e}"))?;
    println!("refreshed: {refreshed:?}");
    let latest = refreshed.refresh.clone().unwrap_or(refresh_token);
    let revoked = block_on(revoke(&transport, &metadata, &client, &latest, "refresh_token"))
        .map_err(|e| format!("revoke: {e}"))?;
    println!("revoked: {revoked}");
    let again = block_on(refresh(
        &transport,
        &metadata.token_endpoint,
        &client,
        &latest,
        resource.as_deref(),
        &tokens.scope,
        now,
    ));
    match again {
        Err(e) if e.breaks_connection() => println!("after revocation: broken, {e}"),
        other => return Err(format!("after revocation: {other:?}")),
    }
    Ok(())
}

fn run(url: &str) -> Result<(), String> {
    if let Ok(issuer) = std::env::var("SERVICE_AUTH_ISSUER") {
        return at_real_server(&issuer);
    }
    let transport = Loopback;
    let authorization = match block_on(probe(&transport, url, false)) {
        Probe::Authorization(a) => a,
        other => return Err(format!("probe: {other:?}")),
    };
    println!("probe: issuer {}, resource {}", authorization.issuer, authorization.resource);
    // The suite gives a client set up beforehand in its context, as an org gives its own client.
    let context: serde_json::Value =
        std::env::var("MCP_CONFORMANCE_CONTEXT").ok().and_then(|c| serde_json::from_str(&c).ok()).unwrap_or_default();
    let given = |name: &str| context.get(name).and_then(|v| v.as_str()).map(str::to_string);
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_err(|e| e.to_string())?;
    let now = chrono::DateTime::from_timestamp(since.as_secs() as i64, 0).ok_or("no clock")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    if scenario.contains("client-credentials") {
        let (id, secret) = given("client_id").zip(given("client_secret")).ok_or("no client in the context")?;
        let scopes = authorization.scopes_supported.clone();
        let resource = Some(authorization.resource.as_str());
        let tokens = block_on(client_credentials(
            &transport,
            &authorization.issuer,
            &id,
            &secret,
            &scopes,
            resource,
            false,
            now,
        ))
        .map_err(|e| format!("client credentials: {e}"))?;
        return list_tools(&transport, url, tokens.access);
    }
    let metadata =
        block_on(discover(&transport, &authorization.issuer, false)).map_err(|e| format!("discover: {e}"))?;
    let scopes = consent::scopes_to_ask(&authorization.challenge_scopes, &authorization.scopes_supported, &metadata);
    let redirect = redirect_uri("http://localhost:8787");
    let client = match given("client_id") {
        Some(id) => {
            let secret = given("client_secret");
            let auth =
                if secret.is_some() { ClientAuth::for_secret(&metadata.token_auth_methods) } else { ClientAuth::None };
            OAuthClient { id, secret, auth }
        }
        None => block_on(register(&transport, &metadata, &redirect)).map_err(|e| format!("register: {e}"))?.client,
    };
    println!("client: {client:?}");
    let mut random = [0u8; 64];
    getrandom::fill(&mut random).map_err(|e| e.to_string())?;
    let asked = Consent {
        metadata: &metadata,
        client_id: &client.id,
        redirect_uri: &redirect,
        scopes: &scopes,
        resource: Some(&authorization.resource),
    };
    let (authorize_url, pending) = consent::start(&asked, &random).map_err(|e| format!("consent: {e}"))?;
    println!("consent: {authorize_url}");
    let approved = http("GET", &authorize_url, &[], None).map_err(|e| format!("authorize: {e}"))?;
    let location =
        approved.header("location").ok_or(format!("authorize answered {} without a redirect", approved.status))?;
    let query = location.split_once('?').map_or("", |(_, q)| q);
    let callback = consent::read_callback(query).map_err(|e| format!("callback: {e}"))?;
    let code = consent::code_of(callback, &pending.state, &metadata).map_err(|e| format!("callback: {e}"))?;
    let tokens =
        block_on(redeem(&transport, &metadata, &client, &pending, &code, now)).map_err(|e| format!("redeem: {e}"))?;
    println!("tokens: {tokens:?}");
    list_tools(&transport, url, tokens.access)
}

/// Lists the server's tools with the token, as a connection's calls send it.
fn list_tools(transport: &Loopback, url: &str, access: String) -> Result<(), String> {
    let bearer = Credential {
        secret: Secret(access),
        place: Place::Header { name: "Authorization".into(), scheme: Some("Bearer".into()) },
    };
    let client = Client::new(transport, url, Some(&bearer));
    let tools = block_on(client.list_tools()).map_err(|f| format!("tools/list: {}", f.detail))?;
    println!("tools: {}", tools.len());
    Ok(())
}

fn main() {
    let Some(url) = std::env::args().next_back() else { std::process::exit(2) };
    if let Err(why) = run(&url) {
        eprintln!("{why}");
        std::process::exit(1);
    }
}
