//! Dynamic client registration (RFC 7591): where no client is set up at a service's
//! authorization server, the runtime registers itself there as "Auto Runtime", with its
//! redirect URI, and authenticates at the token endpoint as the server takes: with the secret it
//! is given, in the body where the server takes that, or as a public client with PKCE alone.

use std::fmt;

use serde_json::{json, Value};

use super::discovery::{document, ServerMetadata};
use super::token::{oauth_error, Client, ClientAuth};
use super::{AuthError, ErrorKind, CLIENT_NAME};
use crate::core::access::oauth::url;
use crate::core::tool_server::Request;

/// A client the runtime registered. The caller keeps it for the connection: the id in the record,
/// the secret sealed (`client_secret` of `ops::connections::Opened`), since every refresh needs both.
#[derive(Clone, PartialEq, Eq)]
pub struct Registration {
    pub client: Client,
    /// When the secret stops working, in seconds since the epoch; `None` for never.
    pub secret_expires_at: Option<i64>,
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registration")
            .field("client", &self.client)
            .field("secret_expires_at", &self.secret_expires_at)
            .finish()
    }
}

/// How the runtime asks to authenticate: with a secret in the body where the server takes that,
/// else as a public client where it takes that, else with a secret by HTTP Basic.
pub fn auth_to_ask(metadata: &ServerMetadata) -> ClientAuth {
    let takes = |m: ClientAuth| metadata.token_auth_methods.iter().any(|t| t == m.as_str());
    [ClientAuth::ClientSecretPost, ClientAuth::None, ClientAuth::ClientSecretBasic]
        .into_iter()
        .find(|m| takes(*m))
        .unwrap_or(ClientAuth::ClientSecretBasic)
}

/// The registration request to `endpoint`, for the redirect URI `redirect_uri`. It names no
/// scope: a server refuses a registration that names one it does not list, and the consent asks
/// the scopes anyway.
pub fn request(endpoint: &str, redirect_uri: &str, auth: ClientAuth) -> Request {
    let body = json!({
        "client_name": CLIENT_NAME,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": auth.as_str(),
        "application_type": application_type(redirect_uri),
    });
    Request {
        method: "POST",
        url: endpoint.to_string(),
        headers: vec![("Content-Type".into(), "application/json".into()), ("Accept".into(), "application/json".into())],
        body: Some(body.to_string()),
    }
}

/// `native` for a runtime run locally, whose redirect URI is on loopback (as OpenID's
/// registration wants of such a client), else `web`.
fn application_type(redirect_uri: &str) -> &'static str {
    let on_loopback = url::parse(redirect_uri).and_then(|u| u.authority).is_some_and(|a| a.host.is_loopback());
    if on_loopback {
        "native"
    } else {
        "web"
    }
}

/// Reads the answer to a registration that asked for `asked`.
///
/// # Errors
///
/// `Refused` for the server's refusal (`invalid_redirect_uri`, `invalid_client_metadata`, …),
/// `Failing` for an answer without a client id, or that gives no secret to a client that must
/// send one, or that is no JSON object.
pub fn read_response(status: u16, body: &str, asked: ClientAuth) -> Result<Registration, AuthError> {
    if !(200..300).contains(&status) {
        let refused = oauth_error(status, body, "The authorization server refused to register the runtime", &[]);
        // A registration has no grant or client yet to have lost.
        let kind = if refused.kind == ErrorKind::Failing { ErrorKind::Failing } else { ErrorKind::Refused };
        return Err(AuthError { kind, ..refused });
    }
    let failing = |why: &str| {
        AuthError::new(ErrorKind::Failing, format!("The authorization server answered the registration with {why}."))
    };
    let doc = document(body, "answer").map_err(|_| failing("what is not a JSON object"))?;
    let id = match doc.get("client_id") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        _ => return Err(failing("no client_id")),
    };
    let secret = doc.get("client_secret").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let auth = match doc.get("token_endpoint_auth_method").and_then(Value::as_str) {
        None => asked,
        Some(said) => ClientAuth::parse(said)
            .ok_or_else(|| failing(&format!("the method {said}, which the runtime does not use")))?,
    };
    if auth != ClientAuth::None && secret.is_none() {
        return Err(failing(&format!("no client_secret for a client that authenticates by {}", auth.as_str())));
    }
    let secret_expires_at = doc.get("client_secret_expires_at").and_then(Value::as_i64).filter(|at| *at > 0);
    Ok(Registration { client: Client { id, secret, auth }, secret_expires_at })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::service_auth::discovery::read_server_metadata;
    use crate::core::service_auth::discovery::tests::metadata_doc;

    #[test]
    fn asks_as_the_server_takes() {
        let mut metadata =
            read_server_metadata(&metadata_doc("https://auth.example"), "https://auth.example", true).unwrap();
        assert_eq!(auth_to_ask(&metadata), ClientAuth::ClientSecretPost);
        metadata.token_auth_methods = vec!["none".into(), "client_secret_basic".into()];
        assert_eq!(auth_to_ask(&metadata), ClientAuth::None);
        metadata.token_auth_methods = vec!["private_key_jwt".into()];
        assert_eq!(auth_to_ask(&metadata), ClientAuth::ClientSecretBasic);
        let sent = request("https://auth.example/register", "https://rt.example/connect/callback", ClientAuth::None);
        let body: Value = serde_json::from_str(sent.body.as_deref().unwrap()).unwrap();
        assert_eq!(body["client_name"], "Auto Runtime");
        assert_eq!(body["redirect_uris"], json!(["https://rt.example/connect/callback"]));
        assert_eq!(body["token_endpoint_auth_method"], "none");
        assert!(body.get("scope").is_none());
        assert_eq!(body["application_type"], "web");
        let local = request("http://127.0.0.1:8787/r", "http://127.0.0.1:8787/connect/callback", ClientAuth::None);
        assert!(local.body.unwrap().contains(r#""application_type":"native""#));
    }

    #[test]
    fn answers_read() {
        let post = r#"{"client_id":"c1","client_secret":"cs_SECRET","client_secret_expires_at":0}"#;
        let read = read_response(201, post, ClientAuth::ClientSecretPost).unwrap();
        assert_eq!(
            (read.client.id.as_str(), read.client.auth, read.secret_expires_at),
            ("c1", ClientAuth::ClientSecretPost, None)
        );
        assert_eq!(read.client.secret.as_deref(), Some("cs_SECRET"));
        assert!(!format!("{read:?}").contains("cs_SECRET"));
        let public = read_response(201, r#"{"client_id":"p","token_endpoint_auth_method":"none"}"#, ClientAuth::None);
        assert_eq!(public.unwrap().client.secret, None);
        let switched = r#"{"client_id":"c","client_secret":"x","token_endpoint_auth_method":"client_secret_basic"}"#;
        assert_eq!(read_response(201, switched, ClientAuth::None).unwrap().client.auth, ClientAuth::ClientSecretBasic);
        for garbage in [
            "<html>",
            "{}",
            r#"{"client_id":"c"}"#,
            r#"{"client_id":"c","client_secret":"x","token_endpoint_auth_method":"private_key_jwt"}"#,
        ] {
            let err = read_response(201, garbage, ClientAuth::ClientSecretPost).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Failing, "{garbage}");
        }
        let refused =
            read_response(400, r#"{"error":"invalid_redirect_uri","error_description":"http only"}"#, ClientAuth::None);
        let refused = refused.unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Refused);
        assert_eq!(
            refused.detail,
            "The authorization server refused to register the runtime with invalid_redirect_uri: http only."
        );
        let unauthorized = read_response(401, "", ClientAuth::None).unwrap_err();
        assert_eq!(unauthorized.kind, ErrorKind::Refused);
        assert_eq!(read_response(503, "", ClientAuth::None).unwrap_err().kind, ErrorKind::Failing);
    }
}
