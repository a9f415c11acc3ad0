//! OAuth clients: what the runtime knows of one, and dynamic client registration (RFC 7591).
//! Client ID metadata documents, the other way a client becomes known, are in `cimd`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::error::{Code, OAuthError};
use super::{redirect, secret};
use crate::core::{FieldError, Problem};

pub const MAX_NAME_CHARS: usize = 200;
/// How long a registered client nobody has signed in with is kept.
pub const UNUSED_TTL: chrono::TimeDelta = chrono::TimeDelta::hours(24);
/// The most registered clients kept that nobody has signed in with; past it the oldest go.
pub const UNUSED_MAX: usize = 10_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthMethod {
    /// A public client: PKCE alone proves it is the one that asked.
    None,
    ClientSecretPost,
    ClientSecretBasic,
}

impl AuthMethod {
    const ALL: [AuthMethod; 3] = [AuthMethod::None, AuthMethod::ClientSecretPost, AuthMethod::ClientSecretBasic];

    pub fn as_str(self) -> &'static str {
        match self {
            AuthMethod::None => "none",
            AuthMethod::ClientSecretPost => "client_secret_post",
            AuthMethod::ClientSecretBasic => "client_secret_basic",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantType {
    AuthorizationCode,
    RefreshToken,
}

impl GrantType {
    pub fn as_str(self) -> &'static str {
        match self {
            GrantType::AuthorizationCode => "authorization_code",
            GrantType::RefreshToken => "refresh_token",
        }
    }
}

crate::core::json::tagged::tagged! {
    /// How the runtime came to know a client.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum ClientKind as "kind" {
        /// Registered at `/oauth/register`; a confidential client's secret is kept as its digest.
        Registered { secret_digest: Option<String>, registered_at: DateTime<Utc> },
        /// Its `client_id` is the URL of a metadata document the runtime fetched.
        MetadataDocument,
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Client {
    pub client_id: String,
    pub client_name: String,
    pub redirect_uris: Vec<String>,
    pub token_endpoint_auth_method: AuthMethod,
    pub grant_types: Vec<GrantType>,
    pub kind: ClientKind,
}

impl Client {
    /// The redirect URI an authorization request means: the one it names if registered, or the
    /// only one registered when it names none.
    pub fn redirect_uri(&self, presented: Option<&str>) -> Option<String> {
        match (presented, self.redirect_uris.as_slice()) {
            (Some(uri), registered) => registered.iter().any(|r| redirect::matches(r, uri)).then(|| uri.to_string()),
            (None, [only]) => Some(only.clone()),
            (None, _) => None,
        }
    }

    pub fn allows(&self, grant: GrantType) -> bool {
        self.grant_types.contains(&grant)
    }

    /// The digest of the client's secret, if it has one.
    pub fn secret_digest(&self) -> Option<&str> {
        match &self.kind {
            ClientKind::Registered { secret_digest, .. } => secret_digest.as_deref(),
            ClientKind::MetadataDocument => None,
        }
    }
}

/// A registration or metadata document refused, field by field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub errors: Vec<FieldError>,
}

impl Refusal {
    /// RFC 7591 §3.2.2: `invalid_redirect_uri` when only redirect URIs are wrong.
    pub fn error(&self) -> OAuthError {
        let only_uris = self.errors.iter().all(|e| e.pointer.starts_with("/redirect_uris"));
        let code = if only_uris { Code::InvalidRedirectUri } else { Code::InvalidClientMetadata };
        OAuthError::new(code, self.problem().detail)
    }

    pub fn problem(&self) -> Problem {
        Problem::invalid_fields(self.errors.clone())
    }
}

/// A client just registered, with its secret in plain words: shown once in `response`, never kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Registration {
    pub client: Client,
    pub secret: Option<String>,
    /// The RFC 7591 §3.2.1 answer.
    pub response: Value,
}

/// Validates a registration request and makes its client. The id and any secret are minted from
/// the random bytes given; the default method is `client_secret_basic`, as RFC 7591 says, and the
/// default grant types are both, since every client here is meant to stay signed in.
pub fn register(
    body: &Value,
    id: &[u8; 16],
    random: &secret::Bytes,
    now: DateTime<Utc>,
) -> Result<Registration, Refusal> {
    let Some(doc) = body.as_object() else {
        return Err(Refusal { errors: vec![FieldError::new("", "The registration must be a JSON object.")] });
    };
    let mut errors = Vec::new();
    let redirect_uris = redirect_uris(doc, &mut errors);
    let client_name = client_name(doc, false, &mut errors).unwrap_or_else(|| "Unnamed client".into());
    let method = auth_method(doc, &AuthMethod::ALL, AuthMethod::ClientSecretBasic, &mut errors);
    let grant_types = grant_types(doc, &mut errors);
    response_types(doc, &mut errors);
    if !errors.is_empty() {
        return Err(Refusal { errors });
    }
    let plain = (method != AuthMethod::None).then(|| secret::mint(secret::CLIENT_SECRET_PREFIX, random));
    let client = Client {
        client_id: secret::mint(secret::CLIENT_ID_PREFIX, id),
        client_name,
        redirect_uris,
        token_endpoint_auth_method: method,
        grant_types,
        kind: ClientKind::Registered { secret_digest: plain.as_deref().map(secret::digest), registered_at: now },
    };
    let mut response = json!({
        "client_id": client.client_id,
        "client_id_issued_at": now.timestamp(),
        "client_name": client.client_name,
        "redirect_uris": client.redirect_uris,
        "grant_types": client.grant_types.iter().map(|g| g.as_str()).collect::<Vec<_>>(),
        "response_types": ["code"],
        "token_endpoint_auth_method": method.as_str(),
    });
    if let Some(plain) = &plain {
        response["client_secret"] = json!(plain);
        response["client_secret_expires_at"] = json!(0);
    }
    Ok(Registration { client, secret: plain, response })
}

/// `redirect_uris`: required, 1 to 10 URIs each fit to receive a code.
pub(super) fn redirect_uris(doc: &Map<String, Value>, errors: &mut Vec<FieldError>) -> Vec<String> {
    let Some(list) = doc.get("redirect_uris").and_then(Value::as_array) else {
        errors.push(FieldError::new("/redirect_uris", "is required: a list of redirect URIs"));
        return Vec::new();
    };
    if list.is_empty() || list.len() > redirect::MAX_URIS {
        errors.push(FieldError::new("/redirect_uris", format!("must list 1 to {} URIs", redirect::MAX_URIS)));
    }
    let mut uris = Vec::new();
    for (i, uri) in list.iter().enumerate() {
        match uri.as_str().map(|u| (u, redirect::check(u))) {
            Some((u, Ok(()))) => uris.push(u.to_string()),
            Some((_, Err(why))) => errors.push(FieldError::new(format!("/redirect_uris/{i}"), why)),
            None => errors.push(FieldError::new(format!("/redirect_uris/{i}"), "must be a string")),
        }
    }
    uris
}

/// `client_name`: what a person is asked to trust, so nothing that could hide or reorder text.
pub(super) fn client_name(doc: &Map<String, Value>, required: bool, errors: &mut Vec<FieldError>) -> Option<String> {
    let name = match doc.get("client_name") {
        None if !required => return None,
        None => {
            errors.push(FieldError::new("/client_name", "is required"));
            return None;
        }
        Some(Value::String(name)) => name.trim(),
        Some(_) => {
            errors.push(FieldError::new("/client_name", "must be a string"));
            return None;
        }
    };
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || name.chars().any(hides_text) {
        errors.push(FieldError::new(
            "/client_name",
            format!("must be 1 to {MAX_NAME_CHARS} characters without control or direction characters"),
        ));
        return None;
    }
    Some(name.to_string())
}

/// Control characters, and the bidirectional marks that can make a name read as another.
fn hides_text(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

pub(super) fn auth_method(
    doc: &Map<String, Value>,
    allowed: &[AuthMethod],
    default: AuthMethod,
    errors: &mut Vec<FieldError>,
) -> AuthMethod {
    let Some(value) = doc.get("token_endpoint_auth_method") else {
        return default;
    };
    match allowed.iter().find(|m| value.as_str() == Some(m.as_str())) {
        Some(method) => *method,
        None => {
            let names: Vec<&str> = allowed.iter().map(|m| m.as_str()).collect();
            errors.push(FieldError::new("/token_endpoint_auth_method", format!("must be one of {}", names.join(", "))));
            default
        }
    }
}

/// `grant_types`: `authorization_code`, with `refresh_token` or not; both when absent.
pub(super) fn grant_types(doc: &Map<String, Value>, errors: &mut Vec<FieldError>) -> Vec<GrantType> {
    let Some(value) = doc.get("grant_types") else {
        return vec![GrantType::AuthorizationCode, GrantType::RefreshToken];
    };
    let Some(list) = value.as_array() else {
        errors.push(FieldError::new("/grant_types", "must be a list"));
        return Vec::new();
    };
    let mut grants = Vec::new();
    for (i, name) in list.iter().enumerate() {
        match name.as_str() {
            Some("authorization_code") => grants.push(GrantType::AuthorizationCode),
            Some("refresh_token") => grants.push(GrantType::RefreshToken),
            _ => errors.push(FieldError::new(
                format!("/grant_types/{i}"),
                "must be authorization_code or refresh_token: the grants this server offers",
            )),
        }
    }
    if !grants.contains(&GrantType::AuthorizationCode) {
        errors.push(FieldError::new("/grant_types", "must include authorization_code"));
    }
    grants.dedup();
    grants
}

pub(super) fn response_types(doc: &Map<String, Value>, errors: &mut Vec<FieldError>) {
    if let Some(value) = doc.get("response_types") {
        if *value != json!(["code"]) {
            errors.push(FieldError::new("/response_types", "must be [\"code\"]: the only response type offered"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap()
    }

    fn reg(body: Value) -> Result<Registration, Refusal> {
        register(&body, &[1; 16], &[2; 32], now())
    }

    #[test]
    fn a_public_client_registers() {
        let r = reg(json!({
            "client_name": "Claude",
            "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "application_type": "web",
        }))
        .unwrap();
        assert!(r.client.client_id.starts_with("pbcl_") && r.secret.is_none());
        assert_eq!(r.client.secret_digest(), None);
        assert!(r.response.get("client_secret").is_none());
        assert_eq!(r.response["token_endpoint_auth_method"], "none");
        assert_eq!(r.client.redirect_uri(None).as_deref(), Some("https://claude.ai/api/mcp/auth_callback"));
        assert!(r.client.allows(GrantType::RefreshToken));
    }

    #[test]
    fn a_confidential_client_gets_its_secret_once() {
        let r = reg(json!({"redirect_uris": ["http://127.0.0.1:8976/cb", "cursor://a/cb"]})).unwrap();
        let plain = r.secret.clone().unwrap();
        assert!(plain.starts_with("pbcs_"));
        assert_eq!(r.response["client_secret"], plain);
        assert_eq!(r.response["client_secret_expires_at"], 0);
        assert_eq!(r.client.token_endpoint_auth_method, AuthMethod::ClientSecretBasic);
        assert_eq!(r.client.secret_digest(), Some(secret::digest(&plain).as_str()));
        assert_eq!(r.client.client_name, "Unnamed client");
        // Two URIs: the request must name one; a loopback one may come back on another port.
        assert_eq!(r.client.redirect_uri(None), None);
        assert_eq!(
            r.client.redirect_uri(Some("http://127.0.0.1:5000/cb")).as_deref(),
            Some("http://127.0.0.1:5000/cb")
        );
        assert_eq!(r.client.redirect_uri(Some("https://evil.example/cb")), None);
    }

    #[test]
    fn refusals_name_their_fields() {
        let refused = reg(json!({"redirect_uris": ["http://app.example/cb", 3]})).unwrap_err();
        let pointers: Vec<&str> = refused.errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(pointers, ["/redirect_uris/0", "/redirect_uris/1"]);
        assert_eq!(refused.error().code, Code::InvalidRedirectUri);
        assert_eq!(refused.error().body()["error"], "invalid_redirect_uri");

        let many: Vec<String> = (0..11).map(|i| format!("https://a.example/{i}")).collect();
        let refused = reg(json!({
            "redirect_uris": many,
            "client_name": "x".repeat(201),
            "token_endpoint_auth_method": "private_key_jwt",
            "grant_types": ["client_credentials"],
            "response_types": ["token"],
        }))
        .unwrap_err();
        let pointers: Vec<&str> = refused.errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/redirect_uris",
                "/client_name",
                "/token_endpoint_auth_method",
                "/grant_types/0",
                "/grant_types",
                "/response_types"
            ]
        );
        let error = refused.error();
        assert_eq!(error.code, Code::InvalidClientMetadata);
        assert!(error.description.contains("/client_name"));
        assert_eq!(reg(json!({})).unwrap_err().errors[0].pointer, "/redirect_uris");
        assert_eq!(reg(json!([])).unwrap_err().errors[0].pointer, "");
        let hidden = reg(json!({"redirect_uris": ["https://a.example/cb"], "client_name": "Good\u{202e}\n"}));
        assert!(hidden.is_err());
    }
}
