//! The authorization request (OAuth 2.1 §4.1.1): what a client asks for, checked before the
//! person is asked to consent, and the redirects that answer it.

use super::client::Client;
use super::error::{Code, OAuthError};
use super::form::{encode_pairs, Form};
use super::pkce;
use super::resource::Resource;
use crate::core::caller::Scope;

/// A request fit to show the person: every part checked, the redirect URI one the client registered.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AuthorizeRequest {
    pub client_id: String,
    pub redirect_uri: String,
    /// Whether the request named its redirect URI; the token request must then name it too.
    pub redirect_uri_given: bool,
    pub code_challenge: String,
    /// What the client asks for; the person may allow less.
    pub scopes: Vec<Scope>,
    pub state: Option<String>,
    pub resource: Resource,
}

/// A refused request. Until the client and its redirect URI are known good, the error is shown
/// to the person: redirecting to an unchecked URI would make the runtime an open redirector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthorizeError {
    Show(OAuthError),
    /// Send the person back to the client: `to` carries `error`, `error_description`, `state` and `iss`.
    Redirect {
        to: String,
        error: OAuthError,
    },
}

/// The `client_id` a request names, so the shell can find the client (or fetch its document).
pub fn client_id(form: &Form) -> Result<&str, AuthorizeError> {
    form.one("client_id")
        .map_err(AuthorizeError::Show)?
        .ok_or_else(|| AuthorizeError::Show(OAuthError::invalid_request("The request names no client_id.")))
}

/// Checks a request against the client it names. `issuer` is `PUBLIC_URL`.
pub fn check(form: &Form, client: &Client, issuer: &str) -> Result<AuthorizeRequest, AuthorizeError> {
    if client_id(form)? != client.client_id {
        return Err(AuthorizeError::Show(OAuthError::invalid_request("The request names another client.")));
    }
    let presented = form.one("redirect_uri").map_err(AuthorizeError::Show)?;
    let Some(redirect_uri) = client.redirect_uri(presented) else {
        let why = match presented {
            Some(_) => "The redirect_uri is not one this client registered.",
            None => "The client registered several redirect URIs, so the request must name one as redirect_uri.",
        };
        return Err(AuthorizeError::Show(OAuthError::invalid_request(why)));
    };
    // From here on errors go back to the client, with the state it gave if it gave one.
    let state = form.one("state").ok().flatten().map(str::to_string);
    let back = |error: OAuthError| AuthorizeError::Redirect {
        to: error_url(&redirect_uri, &error, state.as_deref(), issuer),
        error,
    };
    let one = |name: &str| form.one(name).map_err(back);
    form.one("state").map_err(back)?;

    match one("response_type")? {
        Some("code") => {}
        Some(_) => {
            return Err(back(OAuthError::new(Code::UnsupportedResponseType, "Only response_type=code is offered.")))
        }
        None => return Err(back(OAuthError::invalid_request("The request needs response_type=code."))),
    }
    let code_challenge = match (one("code_challenge")?, one("code_challenge_method")?) {
        (Some(challenge), Some("S256")) if pkce::is_challenge(challenge) => challenge.to_string(),
        (Some(_), Some("S256")) => {
            return Err(back(OAuthError::invalid_request("The code_challenge is not a base64url SHA-256 digest.")))
        }
        (Some(_), Some(_) | None) => {
            return Err(back(OAuthError::invalid_request(
                "PKCE needs code_challenge_method=S256; plain is not offered.",
            )))
        }
        (None, _) => return Err(back(OAuthError::invalid_request("PKCE is required: send code_challenge with S256."))),
    };
    let scopes = scopes(one("scope")?).map_err(back)?;
    let resource = match form.one("resource") {
        Ok(Some(text)) => Resource::parse(issuer, text).ok_or_else(|| {
            back(OAuthError::new(
                Code::InvalidTarget,
                format!("The resource {text} is not an MCP endpoint of this runtime."),
            ))
        })?,
        Ok(None) => Resource::Mcp,
        Err(_) => return Err(back(OAuthError::new(Code::InvalidTarget, "A grant is for one resource; name one."))),
    };
    Ok(AuthorizeRequest {
        client_id: client.client_id.clone(),
        redirect_uri,
        redirect_uri_given: presented.is_some(),
        code_challenge,
        scopes,
        state,
        resource,
    })
}

/// The scopes of a space-separated `scope`, in the runtime's order; none named means all four.
pub fn scopes(text: Option<&str>) -> Result<Vec<Scope>, OAuthError> {
    // Refresh tokens come with every grant, so a client's `offline_access` asks nothing more.
    let names: Vec<&str> = text.unwrap_or("").split(' ').filter(|n| !n.is_empty() && *n != "offline_access").collect();
    if names.is_empty() {
        return Ok(Scope::ALL.to_vec());
    }
    let unknown: Vec<&str> = names.iter().copied().filter(|n| Scope::parse(n).is_none()).collect();
    if !unknown.is_empty() {
        let offered: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
        return Err(OAuthError::new(
            Code::InvalidScope,
            format!("Unknown scope {}; this server offers {}.", unknown.join(", "), offered.join(" ")),
        ));
    }
    Ok(Scope::ALL.into_iter().filter(|s| names.contains(&s.as_str())).collect())
}

/// Where the person goes once they consented: the code, the state, and the issuer (RFC 9207).
pub fn success_url(request: &AuthorizeRequest, code: &str, issuer: &str) -> String {
    let mut pairs = vec![("code", code)];
    if let Some(state) = &request.state {
        pairs.push(("state", state));
    }
    pairs.push(("iss", issuer));
    with_query(&request.redirect_uri, &pairs)
}

/// Where the person goes when they decline.
pub fn denied_url(request: &AuthorizeRequest, issuer: &str) -> String {
    let error = OAuthError::new(Code::AccessDenied, "The person declined the request.");
    error_url(&request.redirect_uri, &error, request.state.as_deref(), issuer)
}

pub fn error_url(redirect_uri: &str, error: &OAuthError, state: Option<&str>, issuer: &str) -> String {
    let mut pairs = vec![("error", error.code.as_str()), ("error_description", error.description.as_str())];
    if let Some(state) = state {
        pairs.push(("state", state));
    }
    pairs.push(("iss", issuer));
    with_query(redirect_uri, &pairs)
}

/// Adds parameters to a URI, keeping the query it has (registered URIs carry no fragment).
fn with_query(uri: &str, pairs: &[(&str, &str)]) -> String {
    let joiner = match uri.split_once('?') {
        None => "?",
        Some((_, "")) => "",
        Some((_, query)) if query.ends_with('&') => "",
        Some(_) => "&",
    };
    format!("{uri}{joiner}{}", encode_pairs(pairs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::access::oauth::client::{AuthMethod, ClientKind, GrantType};

    const ISS: &str = "https://runtime.example";
    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

    fn client(uris: &[&str]) -> Client {
        Client {
            client_id: "https://app.example/client.json".into(),
            client_name: "App".into(),
            redirect_uris: uris.iter().map(|u| u.to_string()).collect(),
            token_endpoint_auth_method: AuthMethod::None,
            grant_types: vec![GrantType::AuthorizationCode, GrantType::RefreshToken],
            kind: ClientKind::MetadataDocument,
        }
    }

    fn query(extra: &str) -> String {
        format!(
            "response_type=code&client_id=https%3A%2F%2Fapp.example%2Fclient.json&code_challenge={CHALLENGE}\
             &code_challenge_method=S256&state=s+1{extra}"
        )
    }

    fn run(q: &str, c: &Client) -> Result<AuthorizeRequest, AuthorizeError> {
        check(&Form::parse(q).unwrap(), c, ISS)
    }

    fn redirected(q: &str) -> (Code, String) {
        match run(q, &client(&["https://app.example/cb?x=1"])) {
            Err(AuthorizeError::Redirect { to, error }) => (error.code, to),
            other => panic!("not redirected: {other:?}"),
        }
    }

    #[test]
    fn a_good_request() {
        let req = run(
            &query("&resource=https%3A%2F%2Fruntime.example%2Forgs%2Facme%2Fmcp&scope=playbook:read+org:read"),
            &client(&["https://app.example/cb"]),
        )
        .unwrap();
        assert_eq!(req.redirect_uri, "https://app.example/cb");
        assert!(!req.redirect_uri_given);
        assert_eq!(req.scopes, [Scope::OrgRead, Scope::PlaybookRead]);
        assert_eq!(req.resource, Resource::Org { org: "acme".into() });
        assert_eq!(req.state.as_deref(), Some("s 1"));
        assert_eq!(
            success_url(&req, "pbac_x", ISS),
            "https://app.example/cb?code=pbac_x&state=s%201&iss=https%3A%2F%2Fruntime.example"
        );
        let defaults = run(&query(""), &client(&["https://app.example/cb"])).unwrap();
        assert_eq!((defaults.scopes, defaults.resource), (Scope::ALL.to_vec(), Resource::Mcp));
        assert!(denied_url(&req, ISS).starts_with("https://app.example/cb?error=access_denied&"));
    }

    #[test]
    fn untrusted_redirects_are_shown() {
        let two = client(&["https://app.example/cb", "http://127.0.0.1:9000/cb"]);
        let shown = |q: &str, c: &Client| matches!(run(q, c), Err(AuthorizeError::Show(_)));
        assert!(shown(&query(""), &two));
        assert!(shown(&query("&redirect_uri=https%3A%2F%2Fevil.example%2Fcb"), &two));
        assert!(shown(&query("&client_id=other"), &two));
        assert!(shown("response_type=code", &two));
        let loopback = run(&query("&redirect_uri=http%3A%2F%2F127.0.0.1%3A5123%2Fcb"), &two).unwrap();
        assert_eq!(loopback.redirect_uri, "http://127.0.0.1:5123/cb");
        assert!(loopback.redirect_uri_given);
    }

    #[test]
    fn other_refusals_go_back_to_the_client() {
        let bare = |q: String| q.replace("&code_challenge_method=S256", "");
        let cases = [
            (query("").replace("response_type=code", "response_type=token"), Code::UnsupportedResponseType),
            (query("").replace("response_type=code&", ""), Code::InvalidRequest),
            (query("").replace("=S256", "=plain"), Code::InvalidRequest),
            (bare(query("")), Code::InvalidRequest),
            (query("").replace(CHALLENGE, "short"), Code::InvalidRequest),
            (query("&scope=org:read+org:admin"), Code::InvalidScope),
            (query("&resource=https%3A%2F%2Fother.example%2Fmcp"), Code::InvalidTarget),
            (
                query(
                    "&resource=https%3A%2F%2Fruntime.example%2Fmcp&resource=https%3A%2F%2Fruntime.example%2Fdirectory",
                ),
                Code::InvalidTarget,
            ),
            (query("&state=again"), Code::InvalidRequest),
        ];
        for (q, code) in cases {
            let (got, to) = redirected(&q);
            assert_eq!(got, code, "{q}");
            assert!(
                to.starts_with(&format!("https://app.example/cb?x=1&error={}&error_description=", code.as_str())),
                "{to}"
            );
            assert!(to.ends_with("&iss=https%3A%2F%2Fruntime.example"), "{to}");
        }
        let (_, to) = redirected(&query("&scope=nope"));
        assert!(to.contains("&state=s%201&"));
    }

    #[test]
    fn queries_are_kept() {
        assert_eq!(with_query("https://a/cb", &[("k", "v")]), "https://a/cb?k=v");
        assert_eq!(with_query("https://a/cb?", &[("k", "v")]), "https://a/cb?k=v");
        assert_eq!(with_query("https://a/cb?x=1&", &[("k", "v")]), "https://a/cb?x=1&k=v");
        assert_eq!(with_query("https://a/cb?x=1", &[("k", "v w")]), "https://a/cb?x=1&k=v%20w");
    }
}
