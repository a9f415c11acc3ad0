//! One HTTP API described by an OpenAPI document, spoken to over the transport the shell
//! supplies: its document read (fetched from its address, or as the settings give it), and one
//! call to one of its operations within its deadline. How either failed is said as the
//! `because` that `search` lists the server with, never with the credential.

use serde_json::Value;

use super::tool_client::{unanswered, Failure, Transport, LIST_SECONDS};
use crate::core::access::oauth::form::encode;
use crate::core::access::oauth::url;
use crate::core::tool_server::mcp::Answered;
use crate::core::tool_server::openapi::{self, Api, Operation};
use crate::core::tool_server::settings::Document;
use crate::core::tool_server::{Because, Credential, Place, Request};

/// What a document fetch takes: JSON or YAML, whichever the address serves.
const DOCUMENT_ACCEPT: &str = "application/json, application/yaml;q=0.9, */*;q=0.8";

/// The operations of the API's document. `base_url` and `credential` are the entry's.
pub async fn read_document(
    transport: &dyn Transport,
    document: &Document,
    base_url: &str,
    credential: Option<&Credential>,
) -> Result<Api, Failure> {
    let fetched;
    let text = match document {
        Document::Text(text) => text.as_str(),
        Document::At(address) => {
            fetched = fetch(transport, address, base_url, credential).await?;
            fetched.as_str()
        }
    };
    openapi::read(text).map_err(|r| {
        Failure::new(Because::DocumentRefused, format!("its OpenAPI document cannot be used, as {}", r.words()))
    })
}

/// The document at `address`. The entry's credential goes with it only where the document is on
/// the API's own origin, which receives the credential with every call anyway: a private API
/// often serves its document behind the same key, and a document elsewhere (most are public, on
/// a site of docs or a code host) is no one the operator gave the key to.
async fn fetch(
    transport: &dyn Transport,
    address: &str,
    base_url: &str,
    credential: Option<&Credential>,
) -> Result<String, Failure> {
    let mut request = Request {
        method: "GET",
        url: address.to_string(),
        headers: vec![("accept".into(), DOCUMENT_ACCEPT.into())],
        body: None,
    };
    let credential = credential.filter(|_| same_origin(address, base_url));
    if let Some(c) = credential {
        match &c.place {
            Place::Header { name, scheme } => {
                let value = scheme.as_ref().map_or_else(|| c.secret.0.clone(), |s| format!("{s} {}", c.secret.0));
                request.headers.push((name.clone(), value));
            }
            Place::Query { name } => {
                let joiner = if address.contains('?') { '&' } else { '?' };
                request.url = format!("{address}{joiner}{}={}", encode(name), encode(&c.secret.0));
            }
        }
    }
    let response = transport
        .send(request, LIST_SECONDS)
        .await
        .map_err(|u| document_failure(unanswered(u, LIST_SECONDS, &hidden(credential))))?;
    match response.status {
        200..=299 => Ok(response.body),
        401 | 403 if credential.is_some() => Err(Failure::new(
            Because::KeyRefused,
            format!("its document address refused the runtime's credential with HTTP {}", response.status),
        )),
        401 | 403 => Err(Failure::new(
            Because::SettingsInvalid,
            format!(
                "its document address refused the runtime with HTTP {}, and the runtime sends no credential to an address off the API's base_url; give an address on it, a public one, or the document itself as document_text",
                response.status
            ),
        )),
        429 => Err(Failure::new(Because::RateLimited, "its document address asked the runtime to slow down (HTTP 429)")),
        status => Err(Failure::new(Because::Failing, format!("its document address answered HTTP {status}"))),
    }
}

/// A fetch of the document that got no answer, said of the document rather than the API.
fn document_failure(f: Failure) -> Failure {
    let said = f.detail.strip_prefix("it ").unwrap_or(&f.detail);
    Failure::new(f.because, format!("its document address {said}"))
}

/// Whether two addresses share scheme, host and port.
fn same_origin(a: &str, b: &str) -> bool {
    let origin = |text: &str| {
        let parsed = url::parse(text)?;
        let authority = parsed.authority?;
        let port = authority.port.unwrap_or(if parsed.scheme == "https" { 443 } else { 80 });
        Some((parsed.scheme, authority.host, port))
    };
    origin(a).is_some_and(|a| Some(a) == origin(b))
}

/// Calls one operation. Arguments that do not fit it are the tool's error, which a model may
/// mend; a server that fails, or refuses the credential, is a `Failure`.
pub async fn call(
    transport: &dyn Transport,
    op: &Operation,
    base_url: &str,
    credential: Option<&Credential>,
    arguments: &Value,
    timeout: u64,
) -> Result<Answered, Failure> {
    let request = match openapi::call::request(op, base_url, arguments, credential) {
        Ok(request) => request,
        Err(why) => {
            let text = format!("The call to {} was not sent: {why}.", op.tool.name);
            return Ok(Answered { text, structured: None, is_error: true, images: Vec::new() });
        }
    };
    let hidden = hidden(credential);
    let response = transport.send(request, timeout).await.map_err(|u| unanswered(u, timeout, &hidden))?;
    match response.status {
        401 => Err(Failure::new(Because::KeyRefused, "it refused the runtime's credential with HTTP 401")),
        429 => Err(Failure::new(Because::RateLimited, "it asked the runtime to slow down (HTTP 429)")),
        status => {
            let mut answered = openapi::call::answered(status, response.content_type.as_deref(), &response.body);
            // An API may repeat a key it refuses in its error's words.
            if answered.is_error {
                answered.text =
                    hidden.iter().fold(answered.text, |text, secret| text.replace(secret.as_str(), "[hidden]"));
            }
            Ok(answered)
        }
    }
}

/// The credential as a request may carry it, encoded in an address or as given, to keep out of
/// words.
fn hidden(credential: Option<&Credential>) -> Vec<String> {
    credential.map(|c| vec![encode(&c.secret.0), c.secret.0.clone()]).unwrap_or_default()
}

#[cfg(test)]
#[path = "api_client_tests.rs"]
mod tests;
