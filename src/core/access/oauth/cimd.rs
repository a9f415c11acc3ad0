//! Client ID metadata documents: a client whose `client_id` is an https URL is described by the
//! JSON document at that URL. The runtime fetches it, so the URL must not reach inside the
//! network the runtime runs in; the shell follows no redirect, since each would need the same
//! check, and a client's own document has no reason to move.

use serde_json::Value;

use super::client::{self, AuthMethod, Client, ClientKind, Refusal};
use super::url;
use crate::core::FieldError;

/// The most a document may weigh; the shell stops reading past it.
pub const MAX_DOCUMENT_BYTES: usize = 5 * 1024;
/// How long a document read is used before it is fetched again, so that a burst of sign-ins
/// naming one client fetches it once.
pub const FRESH_FOR: chrono::TimeDelta = chrono::TimeDelta::minutes(10);

/// Whether a `client_id` is a URL and so names a metadata document rather than a registered
/// client. `http` URLs count too, so that `check_metadata_url` can say why one is refused.
pub fn is_metadata_url(client_id: &str) -> bool {
    url::parse(client_id).is_some_and(|u| {
        matches!(u.scheme.as_str(), "https" | "http")
            && u.authority.is_some()
            && u.fragment.is_none()
            && u.path.len() > 1
    })
}

/// Why the runtime will not fetch this URL. Deployed, it must be https on a public host; in local
/// tests an http URL on a loopback host is allowed as well.
pub fn check_metadata_url(client_id: &str, deployed: bool) -> Result<(), String> {
    let url = url::parse(client_id).ok_or("is not a URL without spaces or non-ASCII characters")?;
    let authority = url.authority.as_ref().ok_or("must name a host")?;
    if url.fragment.is_some() || authority.userinfo {
        return Err("must have no fragment and no user name or password".into());
    }
    if url.path.len() < 2
        || url.path.split('/').any(|s| s == "." || s == ".." || s.to_ascii_lowercase().contains("%2e"))
    {
        return Err("must have a path, without . or .. segments".into());
    }
    let local_http = !deployed && url.scheme == "http" && authority.host.is_loopback();
    if url.scheme != "https" && !local_http {
        return Err("must be an https URL".into());
    }
    if deployed && !authority.host.is_public() {
        return Err("must be on a public host, not a loopback, private or local one".into());
    }
    Ok(())
}

/// The client a fetched document describes, or what is wrong with it. The document speaks for
/// the URL it was fetched from only if its `client_id` is that URL, character for character.
pub fn client_from_document(client_id: &str, body: &[u8]) -> Result<Client, Refusal> {
    let whole = |detail: &str| Refusal { errors: vec![FieldError::new("", detail)] };
    if body.len() > MAX_DOCUMENT_BYTES {
        return Err(whole("The client metadata document is larger than 5 KiB."));
    }
    let value: Value = serde_json::from_slice(body).map_err(|_| whole("The client metadata document is not JSON."))?;
    let doc = value.as_object().ok_or_else(|| whole("The client metadata document must be a JSON object."))?;
    let mut errors = Vec::new();
    if doc.get("client_id").and_then(Value::as_str) != Some(client_id) {
        errors.push(FieldError::new("/client_id", format!("must be the document's own URL, {client_id}")));
    }
    let redirect_uris = client::redirect_uris(doc, &mut errors);
    let client_name = client::client_name(doc, true, &mut errors);
    // Nobody could have been given a secret for a document anyone can read.
    let method = client::auth_method(doc, &[AuthMethod::None], AuthMethod::None, &mut errors);
    if doc.contains_key("client_secret") {
        errors.push(FieldError::new("/client_secret", "must not be in a public document"));
    }
    let grant_types = client::grant_types(doc, &mut errors);
    client::response_types(doc, &mut errors);
    match client_name {
        Some(client_name) if errors.is_empty() => Ok(Client {
            client_id: client_id.to_string(),
            client_name,
            redirect_uris,
            token_endpoint_auth_method: method,
            grant_types,
            kind: ClientKind::MetadataDocument,
        }),
        _ => Err(Refusal { errors }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ID: &str = "https://app.example/oauth/client.json";

    #[test]
    fn metadata_urls() {
        assert!(is_metadata_url(ID) && is_metadata_url("http://127.0.0.1:3000/client.json"));
        for not in
            ["pbcl_abc", "https://app.example", "https://app.example/", "https://app.example/c#x", "cursor://a/b"]
        {
            assert!(!is_metadata_url(not), "{not}");
        }
        assert_eq!(check_metadata_url(ID, true), Ok(()));
        assert_eq!(check_metadata_url("https://8.8.8.8/c.json", true), Ok(()));
        assert_eq!(check_metadata_url("https://[2001:4860::8888]/c.json", true), Ok(()));
        for refused in [
            "http://app.example/client.json",
            "http://127.0.0.1:3000/client.json",
            "https://localhost/c.json",
            "https://api.localhost/c.json",
            "https://printer.local/c.json",
            "https://metadata.google.internal/c.json",
            "https://intranet/c.json",
            "https://10.1.2.3/c.json",
            "https://172.16.0.1/c.json",
            "https://192.168.1.1/c.json",
            "https://169.254.169.254/latest",
            "https://127.0.0.1/c.json",
            "https://0.0.0.0/c.json",
            "https://100.64.0.1/c.json",
            "https://[::1]/c.json",
            "https://[::]/c.json",
            "https://[fd00::1]/c.json",
            "https://[fe80::1]/c.json",
            "https://[::ffff:10.0.0.1]/c.json",
            "https://2130706433/c.json",
            "https://user@app.example/c.json",
            "https://app.example/a/../c.json",
            "https://app.example/a/%2E%2E/c.json",
        ] {
            assert!(check_metadata_url(refused, true).is_err(), "{refused}");
        }
        assert_eq!(check_metadata_url("http://127.0.0.1:3000/client.json", false), Ok(()));
        assert!(check_metadata_url("http://app.example/client.json", false).is_err());
    }

    fn doc(extra: Value) -> Vec<u8> {
        let mut d = json!({"client_id": ID, "client_name": "App", "redirect_uris": ["http://127.0.0.1:3000/cb"]});
        if let (Some(d), Some(extra)) = (d.as_object_mut(), extra.as_object()) {
            d.extend(extra.clone());
        }
        serde_json::to_vec(&d).unwrap()
    }

    #[test]
    fn documents() {
        let client = client_from_document(ID, &doc(json!({}))).unwrap();
        assert_eq!(client.kind, ClientKind::MetadataDocument);
        assert_eq!(client.token_endpoint_auth_method, AuthMethod::None);
        assert!(client.redirect_uri(Some("http://127.0.0.1:4000/cb")).is_some());

        let pointer = |body: Vec<u8>| client_from_document(ID, &body).unwrap_err().errors[0].pointer.clone();
        assert_eq!(pointer(doc(json!({"client_id": "https://app.example/oauth/client.json/"}))), "/client_id");
        assert_eq!(pointer(doc(json!({"client_name": null}))), "/client_name");
        assert_eq!(pointer(doc(json!({"redirect_uris": ["https://a.example/#f"]}))), "/redirect_uris/0");
        assert_eq!(
            pointer(doc(json!({"token_endpoint_auth_method": "client_secret_basic"}))),
            "/token_endpoint_auth_method"
        );
        assert_eq!(pointer(doc(json!({"client_secret": "s"}))), "/client_secret");
        assert_eq!(pointer(b"[1]".to_vec()), "");
        assert_eq!(pointer(b"not json".to_vec()), "");
        assert_eq!(pointer(doc(json!({"logo_uri": "x".repeat(MAX_DOCUMENT_BYTES)}))), "");
        let mut no_name: Value = serde_json::from_slice(&doc(json!({}))).unwrap();
        no_name.as_object_mut().unwrap().remove("client_name");
        assert_eq!(pointer(serde_json::to_vec(&no_name).unwrap()), "/client_name");
    }
}
