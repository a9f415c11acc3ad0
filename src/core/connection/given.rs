//! The checks of what an agent writes into `add_connection` that are not about a provider: that
//! no credential and no `${NAME}` is in it, and the credential of a server given by hand, each
//! field at its pointer.

use serde_json::{Map, Value};

use super::{Credential, In, KeyHelp, OauthClient};
use crate::core::text::pointer_segment;
use crate::core::FieldError;

/// The most characters of a secret's `instructions`.
pub const INSTRUCTIONS_MAX: usize = 1000;
/// The most characters of a key's `example`.
pub const EXAMPLE_MAX: usize = 200;

/// Prefixes services give their keys and tokens, so that one pasted into an entry is seen.
const KEY_PREFIXES: &[&str] = &[
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "rk_test_",
    "ghp_",
    "gho_",
    "ghs_",
    "ghu_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "lin_api_",
    "ntn_",
    "secret_",
    "sntrys_",
    "sk-",
    "AKIA",
    "-----BEGIN",
    "Bearer ",
    "Basic ",
];

/// Query names that carry a credential in an address.
const SECRET_QUERY: &[&str] =
    &["key", "api_key", "apikey", "token", "access_token", "auth", "secret", "password", "sig", "signature"];

/// Why a string written into the input holds what only the person gives, if it does.
pub fn holds_credential(text: &str) -> Option<&'static str> {
    if text.contains("${") {
        return Some("names an environment variable as ${NAME}; the runtime never reads the agent's variables, and the person gives the credential on the page the link opens");
    }
    let looks = text
        .split(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == '=' || c == '&' || c == '?')
        .any(|word| KEY_PREFIXES.iter().any(|p| word.strip_prefix(p).is_some_and(key_like)))
        || jwt_like(text)
        || userinfo(text)
        || query_secret(text);
    looks.then_some("holds what looks like a credential; leave it out, and the person gives it on the page the link opens, where the agent never sees it")
}

/// What follows a key's prefix: long, of a key's characters, with a digit, so that a tool named
/// `secret_manager_read` is not taken for one.
fn key_like(rest: &str) -> bool {
    rest.len() >= 16
        && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && rest.bytes().any(|b| b.is_ascii_digit())
}

fn jwt_like(text: &str) -> bool {
    text.split_whitespace().any(|w| w.starts_with("eyJ") && w.split('.').filter(|p| p.len() >= 8).count() == 3)
}

fn userinfo(text: &str) -> bool {
    text.split_once("://").is_some_and(|(_, rest)| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority.contains('@')
    })
}

fn query_secret(text: &str) -> bool {
    text.contains("://")
        && text.split_once('?').is_some_and(|(_, query)| {
            query
                .split('&')
                .filter_map(|pair| pair.split_once('='))
                .any(|(name, value)| !value.is_empty() && SECRET_QUERY.iter().any(|s| name.eq_ignore_ascii_case(s)))
        })
}

/// Every string of `value` that holds a credential, at its pointer under `at`.
pub fn credentials_in(value: &Value, at: &str, errors: &mut Vec<FieldError>) {
    match value {
        Value::String(s) => {
            if let Some(why) = holds_credential(s) {
                errors.push(FieldError::new(at, why));
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                credentials_in(v, &format!("{at}/{i}"), errors);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                credentials_in(v, &format!("{at}/{}", pointer_segment(k)), errors);
            }
        }
        _ => {}
    }
}

/// The fields of a credential object apart from its kind.
fn field<'a>(c: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    c.get(name)
}

fn text(c: &Map<String, Value>, name: &str, errors: &mut Vec<FieldError>) -> Option<String> {
    match field(c, name) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Some(_) => {
            errors.push(FieldError::new(format!("/credential/{name}"), "must be a text that is not empty"));
            None
        }
    }
}

fn required(c: &Map<String, Value>, name: &str, why: &str, errors: &mut Vec<FieldError>) -> String {
    text(c, name, errors).unwrap_or_else(|| {
        if !errors.iter().any(|e| e.pointer == format!("/credential/{name}")) {
            errors.push(FieldError::new(format!("/credential/{name}"), format!("is required: {why}")));
        }
        String::new()
    })
}

/// Refuses each field of `c` that its kind does not take.
pub fn only(c: &Map<String, Value>, kind: &str, takes: &[&str], errors: &mut Vec<FieldError>) {
    for name in c.keys().filter(|k| *k != "kind" && !takes.contains(&k.as_str())) {
        let detail = if name == "oauth_client" {
            "is taken only with provider, beside kind: authorization".to_string()
        } else if takes.is_empty() {
            format!("is not a field of a {kind} credential, which takes its kind alone")
        } else {
            format!("is not a field of a {kind} credential, which takes {}", takes.join(", "))
        };
        errors.push(FieldError::new(format!("/credential/{}", pointer_segment(name)), detail));
    }
}

fn place(c: &Map<String, Value>, errors: &mut Vec<FieldError>) -> (String, In, Option<String>) {
    let name = required(c, "name", "the name of the header or the query parameter the key goes in", errors);
    let place = match text(c, "in", errors).as_deref() {
        Some("header") => In::Header,
        Some("query") => In::Query,
        Some(_) => {
            errors.push(FieldError::new("/credential/in", "must be header or query"));
            In::Header
        }
        None => {
            errors.push(FieldError::new("/credential/in", "is required: header or query"));
            In::Header
        }
    };
    let scheme = text(c, "scheme", errors);
    if scheme.is_some() && place == In::Query {
        errors.push(FieldError::new("/credential/scheme", "is taken only where in is header"));
    }
    (name, place, scheme)
}

/// The shape an `https` address takes, as a key's page must have.
pub fn https(text: &str) -> bool {
    crate::core::access::oauth::url::parse(text)
        .is_some_and(|u| u.scheme == "https" && u.authority.is_some_and(|a| !a.userinfo))
}

/// Markdown without HTML: no tag, comment or declaration opens anywhere in it.
fn holds_html(text: &str) -> bool {
    text.as_bytes()
        .windows(2)
        .any(|w| w[0] == b'<' && (w[1].is_ascii_alphabetic() || w[1] == b'/' || w[1] == b'!' || w[1] == b'?'))
}

fn help(c: &Map<String, Value>, errors: &mut Vec<FieldError>) -> KeyHelp {
    let instructions = required(c, "instructions", "Markdown that says where the key is made, with a link to that page, the plan or role and the permissions it needs, and its format", errors);
    if instructions.chars().count() > INSTRUCTIONS_MAX {
        errors.push(FieldError::new(
            "/credential/instructions",
            format!("holds {} characters, over the {INSTRUCTIONS_MAX} it may", instructions.chars().count()),
        ));
    } else if holds_html(&instructions) {
        errors.push(FieldError::new("/credential/instructions", "holds HTML, where Markdown without HTML is taken"));
    }
    let key_page = required(c, "key_page", "the https address of the page where the key is made", errors);
    if !key_page.is_empty() && !https(&key_page) {
        errors.push(FieldError::new("/credential/key_page", "must be an https address"));
    }
    let example = text(c, "example", errors);
    if example.as_ref().is_some_and(|e| e.chars().count() > EXAMPLE_MAX || !e.contains('…')) {
        errors.push(FieldError::new(
            "/credential/example",
            format!(
                "must show what a key looks like with … in place of its characters, at most {EXAMPLE_MAX} characters"
            ),
        ));
    }
    let pattern = text(c, "pattern", errors);
    if let Some(Err(why)) = pattern.as_deref().map(super::pattern::read) {
        errors.push(FieldError::new("/credential/pattern", why));
    }
    KeyHelp { instructions, key_page, example, pattern }
}

/// The credential of a server given by hand, as its kind takes it. `http_api` refuses
/// `authorization`, which only a provider or an MCP server's own metadata gives.
pub fn by_hand(c: &Map<String, Value>, http_api: bool, errors: &mut Vec<FieldError>) -> Option<Credential> {
    let Some(kind) = c.get("kind").and_then(Value::as_str) else {
        errors.push(FieldError::new(
            "/credential/kind",
            "is required: none, secret, reference, client_credentials or authorization",
        ));
        return None;
    };
    if c.contains_key("oauth_client") {
        errors.push(FieldError::new("/credential/oauth_client", "is taken only with provider, beside kind: authorization: the org's own OAuth client is one it registered with a provider"));
    }
    let takes: &[&str] = match kind {
        "none" | "authorization" => &[],
        "secret" => &["name", "in", "scheme", "instructions", "key_page", "example", "pattern"],
        "reference" => &["variable", "name", "in", "scheme"],
        "client_credentials" => &["issuer", "client_id", "scope"],
        other => {
            errors.push(FieldError::new(
                "/credential/kind",
                format!("is {other}, where none, secret, reference, client_credentials and authorization are taken"),
            ));
            return None;
        }
    };
    only(&without(c, "oauth_client"), kind, takes, errors);
    match kind {
        "none" => Some(Credential::None),
        "authorization" if http_api => {
            errors.push(FieldError::new("/credential/kind", "is authorization, which an HTTP API given by hand is refused: give secret, reference, client_credentials or none"));
            None
        }
        "authorization" => Some(Credential::Authorization { issuer: None, oauth_client: OauthClient::Runtime }),
        "secret" => {
            let (name, place, scheme) = place(c, errors);
            Some(Credential::Secret { name, place, scheme, help: help(c, errors) })
        }
        "reference" => {
            let variable = required(
                c,
                "variable",
                "the name of the Worker secret or variable whoever runs the runtime set",
                errors,
            );
            if !variable.is_empty()
                && !variable.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            {
                errors.push(FieldError::new(
                    "/credential/variable",
                    "must be the name of a variable: capitals, digits and _",
                ));
            }
            let (name, place, scheme) = place(c, errors);
            Some(Credential::Reference { variable, name, place, scheme })
        }
        _ => {
            let issuer =
                required(c, "issuer", "the https address of the authorization server that gives the token", errors);
            if !issuer.is_empty() && !https(&issuer) {
                errors.push(FieldError::new("/credential/issuer", "must be an https address"));
            }
            Some(Credential::ClientCredentials {
                issuer,
                client_id: text(c, "client_id", errors),
                scope: text(c, "scope", errors),
            })
        }
    }
}

fn without(c: &Map<String, Value>, name: &str) -> Map<String, Value> {
    let mut c = c.clone();
    c.remove(name);
    c
}
