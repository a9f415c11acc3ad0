//! Where an operation's credential goes, as the document's security schemes say: the server's
//! entry names one secret, and the scheme an operation asks for places it.

use serde_json::Value;

use super::schema::follow;
use super::{segment, Refusal};
use crate::core::tool_server::Place;

/// Where an operation's credential goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Auth {
    /// Where the server's entry says: the document names no scheme for the operation, or only
    /// schemes the runtime does not fill (OAuth 2, OpenID Connect, mutual TLS, a key in a cookie).
    Entry,
    /// Nowhere: the document says the operation needs none (`security: []`).
    Nothing,
    /// Where the document's scheme says.
    At(Place),
}

/// The place of the credential for the operation `op`: the first scheme of its
/// `security` (or the document's, where it has none) that the runtime can fill. Schemes listed
/// together are each required, and alternatives are tried in order; one secret fills one place.
pub fn auth(root: &Value, op: &Value) -> Result<Auth, Refusal> {
    let Some(requirements) = op.get("security").or_else(|| root.get("security")).and_then(Value::as_array) else {
        return Ok(Auth::Entry);
    };
    // `[]`, and `[{}]` (no scheme at all), say that anyone may call it.
    if requirements.iter().all(|r| r.as_object().is_some_and(|r| r.is_empty())) {
        return Ok(Auth::Nothing);
    }
    let schemes = root.pointer("/components/securitySchemes");
    for name in requirements.iter().filter_map(Value::as_object).flat_map(|r| r.keys()) {
        let Some(scheme) = schemes.and_then(|s| s.get(name)) else {
            continue;
        };
        let place = format!("/components/securitySchemes/{}", segment(name));
        let (scheme, _) = follow(root, scheme, place)?;
        if let Some(place) = placed(scheme) {
            return Ok(Auth::At(place));
        }
    }
    Ok(Auth::Entry)
}

/// Where one scheme puts a secret, if the runtime fills it.
fn placed(scheme: &Value) -> Option<Place> {
    let text = |key: &str| scheme.get(key).and_then(Value::as_str);
    match text("type")? {
        "apiKey" => {
            let name = text("name").filter(|n| !n.is_empty())?.to_string();
            match text("in")? {
                "header" => Some(Place::Header { name, scheme: None }),
                "query" => Some(Place::Query { name }),
                _ => None,
            }
        }
        "http" => {
            // The secret is given as the scheme takes it: a token, or `user:password` in base64.
            let scheme = match text("scheme")?.to_ascii_lowercase().as_str() {
                "bearer" => "Bearer",
                "basic" => "Basic",
                _ => return None,
            };
            Some(Place::Header { name: "Authorization".into(), scheme: Some(scheme.into()) })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn document(security: Value) -> Value {
        json!({
            "components": { "securitySchemes": {
                "key": { "type": "apiKey", "in": "header", "name": "X-Api-Key" },
                "query_key": { "type": "apiKey", "in": "query", "name": "api_key" },
                "cookie_key": { "type": "apiKey", "in": "cookie", "name": "session" },
                "token": { "type": "http", "scheme": "bearer", "bearerFormat": "JWT" },
                "login": { "type": "http", "scheme": "Basic" },
                "oauth": { "type": "oauth2", "flows": {} },
                "shared": { "$ref": "#/components/securitySchemes/query_key" }
            }},
            "security": security
        })
    }

    fn of(security: Value, own: Option<Value>) -> Auth {
        let root = document(security);
        let op = own.map_or_else(|| json!({}), |own| json!({ "security": own }));
        auth(&root, &op).unwrap()
    }

    #[test]
    fn each_kind_of_scheme_places_the_secret() {
        let header = |name: &str, scheme: Option<&str>| {
            Auth::At(Place::Header { name: name.into(), scheme: scheme.map(str::to_string) })
        };
        assert_eq!(of(json!([{ "key": [] }]), None), header("X-Api-Key", None));
        assert_eq!(of(json!([{ "query_key": [] }]), None), Auth::At(Place::Query { name: "api_key".into() }));
        assert_eq!(of(json!([{ "shared": [] }]), None), Auth::At(Place::Query { name: "api_key".into() }));
        assert_eq!(of(json!([{ "token": [] }]), None), header("Authorization", Some("Bearer")));
        assert_eq!(of(json!([{ "login": [] }]), None), header("Authorization", Some("Basic")));
        assert_eq!(of(json!([{ "oauth": ["read"] }]), None), Auth::Entry);
        assert_eq!(of(json!([{ "cookie_key": [] }]), None), Auth::Entry);
        assert_eq!(of(json!([{ "oauth": [] }, { "token": [] }]), None), header("Authorization", Some("Bearer")));
        assert_eq!(of(json!([{ "unknown": [] }]), None), Auth::Entry);
    }

    #[test]
    fn an_operation_says_over_the_document() {
        assert_eq!(of(json!([{ "key": [] }]), Some(json!([]))), Auth::Nothing);
        assert_eq!(of(json!([{ "key": [] }]), Some(json!([{}]))), Auth::Nothing);
        assert_eq!(of(json!([{ "key": [] }]), Some(json!([{ "token": [] }]))), of(json!([{ "token": [] }]), None));
        assert_eq!(of(Value::Null, None), Auth::Entry);
        let root = json!({});
        assert_eq!(auth(&root, &json!({})).unwrap(), Auth::Entry);
    }
}
