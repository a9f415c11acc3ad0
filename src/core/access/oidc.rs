//! Signing a person in at the team's own OpenID Connect provider (`OIDC_ISSUER`): its discovery
//! document, the authorization request the runtime sends the person to, the token request it
//! makes with the code, and the person the ID token names.
//!
//! The ID token is read from the provider's token endpoint, over TLS, in answer to the runtime's
//! own authenticated request, so its issuer is the one TLS proved: OpenID Connect Core 3.1.3.7
//! lets a client take it unsigned-checked then. Its issuer, audience, expiry and nonce are
//! still checked.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::Deserialize;
use serde_json::Value;

use super::oauth::form::encode_pairs as form;
use super::oauth::person::Person;

/// What the runtime reads of the provider's discovery document.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Provider {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    /// Where the person's name and address are read when the ID token leaves them out, as a
    /// provider that follows OpenID Connect strictly does in the code flow.
    #[serde(default)]
    pub userinfo_endpoint: Option<String>,
}

/// Where the provider's discovery document is.
pub fn discovery_url(issuer: &str) -> String {
    format!("{}/.well-known/openid-configuration", issuer.trim_end_matches('/'))
}

/// The provider of a discovery document, which must name the issuer it was asked for and
/// endpoints over https (or loopback http, for a provider on this machine).
pub fn provider(document: &str, issuer: &str) -> Result<Provider, String> {
    let p: Provider =
        serde_json::from_str(document).map_err(|e| format!("its discovery document could not be read: {e}"))?;
    if p.issuer.trim_end_matches('/') != issuer.trim_end_matches('/') {
        return Err(format!("its discovery document names the issuer {}, not {issuer}", p.issuer));
    }
    for endpoint in [&p.authorization_endpoint, &p.token_endpoint].into_iter().chain(p.userinfo_endpoint.as_ref()) {
        if !secure(endpoint) {
            return Err(format!("its endpoint {endpoint} is neither https nor on this machine"));
        }
    }
    Ok(p)
}

fn secure(url: &str) -> bool {
    url.starts_with("https://")
        || ["http://127.0.0.1:", "http://127.0.0.1/", "http://localhost:", "http://localhost/", "http://[::1]:"]
            .iter()
            .any(|p| url.starts_with(p))
}

/// What the runtime's own sign-in at the provider carries, to check what comes back.
pub struct Request<'a> {
    pub client_id: &'a str,
    pub redirect_uri: &'a str,
    pub state: &'a str,
    pub nonce: &'a str,
    /// The S256 challenge of the verifier the runtime keeps.
    pub challenge: &'a str,
}

/// The address the person is sent to, to sign in at the provider.
pub fn authorization_url(provider: &Provider, r: &Request) -> String {
    let sep = if provider.authorization_endpoint.contains('?') { '&' } else { '?' };
    let pairs = [
        ("response_type", "code"),
        ("client_id", r.client_id),
        ("redirect_uri", r.redirect_uri),
        ("scope", "openid profile email"),
        ("state", r.state),
        ("nonce", r.nonce),
        ("code_challenge", r.challenge),
        ("code_challenge_method", "S256"),
    ];
    format!("{}{sep}{}", provider.authorization_endpoint, form(&pairs))
}

/// The form body that trades the provider's code for its tokens.
pub fn token_body(code: &str, redirect_uri: &str, verifier: &str, client_id: &str, client_secret: &str) -> String {
    form(&[
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", redirect_uri),
        ("code_verifier", verifier),
        ("client_id", client_id),
        ("client_secret", client_secret),
    ])
}

/// The person the token endpoint's answer names, checked against what the runtime asked.
pub fn person(answer: &str, issuer: &str, client_id: &str, nonce: &str, now_seconds: i64) -> Result<Person, String> {
    let answer: Value = serde_json::from_str(answer).map_err(|_| "its token answer is not JSON".to_string())?;
    let token = answer["id_token"].as_str().ok_or("its token answer holds no id_token")?;
    let payload = token.split('.').nth(1).ok_or("its id_token is not a JWT")?;
    let claims: Value = URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or("its id_token's claims could not be read")?;
    if claims["iss"].as_str().map(|i| i.trim_end_matches('/')) != Some(issuer.trim_end_matches('/')) {
        return Err("its id_token names another issuer".into());
    }
    let audience_ok = match &claims["aud"] {
        Value::String(a) => a == client_id,
        Value::Array(list) => list.iter().any(|a| a == client_id),
        _ => false,
    };
    if !audience_ok {
        return Err("its id_token is for another client".into());
    }
    if claims["exp"].as_i64().is_none_or(|exp| exp <= now_seconds) {
        return Err("its id_token has expired".into());
    }
    if claims["nonce"].as_str() != Some(nonce) {
        return Err("its id_token answers another sign-in".into());
    }
    let sub = claims["sub"].as_str().filter(|s| !s.is_empty() && s.len() <= 255).ok_or("its id_token names no one")?;
    let email = verified_email(&claims);
    let name = ["name", "preferred_username"]
        .iter()
        .find_map(|c| claims[*c].as_str().filter(|s| !s.trim().is_empty()))
        .map(str::to_string)
        .or_else(|| email.clone())
        .unwrap_or_else(|| sub.to_string());
    Ok(Person { sub: sub.to_string(), name: name.chars().take(200).collect(), email })
}

/// The address claims name, where they mark it verified with the boolean `true` alone: an address
/// makes an org's first owner (`OWNERS`), so one a provider leaves unmarked, or marks with the
/// string "true" or "false", is no address here.
fn verified_email(claims: &Value) -> Option<String> {
    let email = claims["email"].as_str().map(str::trim).filter(|e| !e.is_empty() && e.contains('@'))?;
    (claims["email_verified"] == Value::Bool(true)).then(|| email.to_string())
}

/// The access token of the token endpoint's answer, to read the person's claims with.
pub fn access_token(answer: &str) -> Option<String> {
    serde_json::from_str::<Value>(answer).ok()?["access_token"].as_str().map(str::to_string)
}

/// Whether the ID token left out what a person is shown by: their name or their address.
pub fn lacks_claims(person: &Person) -> bool {
    person.email.is_none() || person.name == person.sub
}

/// The person with the name and address the userinfo endpoint gives, when it names the same
/// person; otherwise as they were.
pub fn with_userinfo(person: Person, userinfo: &str) -> Person {
    let Ok(claims) = serde_json::from_str::<Value>(userinfo) else {
        return person;
    };
    if claims["sub"].as_str() != Some(person.sub.as_str()) {
        return person;
    }
    let email = person.email.clone().or_else(|| verified_email(&claims));
    let name = if person.name == person.sub {
        ["name", "preferred_username"]
            .iter()
            .find_map(|c| claims[*c].as_str().filter(|s| !s.trim().is_empty()))
            .map(|n| n.chars().take(200).collect())
            .or_else(|| email.clone())
            .unwrap_or(person.name)
    } else {
        person.name
    };
    Person { sub: person.sub, name, email }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ISSUER: &str = "https://id.example.com";

    fn id_token(claims: Value) -> String {
        let answer = json!({ "id_token": format!("e30.{}.sig", URL_SAFE_NO_PAD.encode(claims.to_string())) });
        answer.to_string()
    }

    fn claims() -> Value {
        json!({ "iss": ISSUER, "aud": "runtime", "exp": 2_000, "nonce": "n1", "sub": "user_2ada", "name": "Ada Lovelace", "email": "ada@acme.example", "email_verified": true })
    }

    #[test]
    fn a_good_id_token_names_the_person() {
        let p = person(&id_token(claims()), ISSUER, "runtime", "n1", 1_000).unwrap();
        assert_eq!(
            p,
            Person { sub: "user_2ada".into(), name: "Ada Lovelace".into(), email: Some("ada@acme.example".into()) }
        );
    }

    #[test]
    fn each_claim_that_does_not_fit_is_refused() {
        let cases = [
            ("iss", json!("https://evil.example")),
            ("aud", json!("another")),
            ("exp", json!(999)),
            ("nonce", json!("n2")),
            ("sub", json!("")),
        ];
        for (claim, value) in cases {
            let mut c = claims();
            c[claim] = value;
            assert!(person(&id_token(c), ISSUER, "runtime", "n1", 1_000).is_err(), "{claim}");
        }
        let mut unverified = claims();
        unverified["email_verified"] = json!(false);
        unverified["name"] = json!(null);
        let p = person(&id_token(unverified), ISSUER, "runtime", "n1", 1_000).unwrap();
        assert_eq!((p.email, p.name.as_str()), (None, "user_2ada"));
        assert!(person("{}", ISSUER, "runtime", "n1", 1_000).is_err());
    }

    #[test]
    fn only_an_address_marked_verified_with_true_counts() {
        // Left out, the string "true" or "false", a number: none makes an owner of its address.
        for verified in [None, Some(json!("true")), Some(json!("false")), Some(json!(1)), Some(json!(false))] {
            let mut c = claims();
            match &verified {
                Some(v) => c["email_verified"] = v.clone(),
                None => drop(c.as_object_mut().unwrap().remove("email_verified")),
            }
            let p = person(&id_token(c), ISSUER, "runtime", "n1", 1_000).unwrap();
            assert_eq!(p.email, None, "email_verified {verified:?}");
            let info = json!({ "sub": "user_2ada", "email": "ada@acme.example", "email_verified": verified });
            let bare = Person { sub: "user_2ada".into(), name: "user_2ada".into(), email: None };
            assert_eq!(with_userinfo(bare, &info.to_string()).email, None, "userinfo {verified:?}");
        }
        let p = person(&id_token(claims()), ISSUER, "runtime", "n1", 1_000).unwrap();
        assert_eq!(p.email.as_deref(), Some("ada@acme.example"));
    }

    #[test]
    fn userinfo_fills_in_only_the_same_person() {
        let bare = Person { sub: "user_2ada".into(), name: "user_2ada".into(), email: None };
        assert!(lacks_claims(&bare));
        let info =
            json!({ "sub": "user_2ada", "name": "Ada Lovelace", "email": "ada@acme.example", "email_verified": true });
        let ada = with_userinfo(bare.clone(), &info.to_string());
        assert_eq!((ada.name.as_str(), ada.email.as_deref()), ("Ada Lovelace", Some("ada@acme.example")));
        assert!(!lacks_claims(&ada));
        let other = json!({ "sub": "user_9eve", "name": "Eve", "email": "eve@evil.example" });
        assert_eq!(with_userinfo(bare.clone(), &other.to_string()), bare);
        assert_eq!(access_token(r#"{"access_token":"at1","id_token":"x"}"#).as_deref(), Some("at1"));
    }

    #[test]
    fn discovery_must_name_its_issuer_and_secure_endpoints() {
        let doc = json!({ "issuer": ISSUER, "authorization_endpoint": "https://id.example.com/auth", "token_endpoint": "https://id.example.com/token" });
        assert!(provider(&doc.to_string(), ISSUER).is_ok());
        assert!(provider(&doc.to_string(), "https://other.example").is_err());
        let mut plain = doc.clone();
        plain["token_endpoint"] = json!("http://id.example.com/token");
        assert!(provider(&plain.to_string(), ISSUER).is_err());
        let local = json!({ "issuer": "http://127.0.0.1:9000", "authorization_endpoint": "http://127.0.0.1:9000/auth", "token_endpoint": "http://127.0.0.1:9000/token" });
        assert!(provider(&local.to_string(), "http://127.0.0.1:9000").is_ok());
    }

    #[test]
    fn the_authorization_url_carries_pkce_and_state() {
        let p = Provider {
            issuer: ISSUER.into(),
            authorization_endpoint: "https://id.example.com/auth".into(),
            token_endpoint: "https://id.example.com/token".into(),
            userinfo_endpoint: None,
        };
        let r = Request {
            client_id: "rt",
            redirect_uri: "https://rt.example/oauth/callback",
            state: "s",
            nonce: "n",
            challenge: "c",
        };
        let url = authorization_url(&p, &r);
        assert!(url.starts_with("https://id.example.com/auth?response_type=code&client_id=rt&redirect_uri=https%3A%2F%2Frt.example%2Foauth%2Fcallback&scope=openid%20profile%20email"));
        assert!(url.ends_with("&code_challenge=c&code_challenge_method=S256"));
    }
}
