use super::*;
use crate::core::service_auth::discovery::read_server_metadata;
use crate::core::service_auth::discovery::tests::metadata_doc;

fn metadata() -> ServerMetadata {
    read_server_metadata(&metadata_doc("https://auth.example"), "https://auth.example", true).unwrap()
}

fn random() -> Random {
    let mut random = [0u8; 64];
    random[32..].fill(0xff);
    random
}

#[test]
fn the_address_of_a_consent() {
    let metadata = metadata();
    let scopes = vec!["read".to_string(), "offline_access".to_string()];
    let consent = Consent {
        metadata: &metadata,
        client_id: "client 1",
        redirect_uri: "https://runtime.example/connect/callback",
        scopes: &scopes,
        resource: Some("https://a.example/mcp"),
    };
    let (url, started) = start(&consent, &random()).unwrap();
    assert_eq!(started.verifier, "A".repeat(43));
    assert!(pkce::is_verifier(&started.verifier));
    assert_eq!(started.state, format!("{}8", "_".repeat(42)));
    let challenge = pkce::challenge_of(&started.verifier);
    assert_eq!(
        url,
        format!(
            "https://auth.example/authorize?response_type=code&client_id=client%201\
             &redirect_uri=https%3A%2F%2Fruntime.example%2Fconnect%2Fcallback&state={}\
             &code_challenge={challenge}&code_challenge_method=S256&scope=read%20offline_access&prompt=consent\
             &resource=https%3A%2F%2Fa.example%2Fmcp",
            started.state
        )
    );
    assert_eq!(started.scopes, scopes);
    assert_eq!(started.resource.as_deref(), Some("https://a.example/mcp"));
    assert_eq!(started.redirect_uri, "https://runtime.example/connect/callback");
    let printed = format!("{started:?}");
    assert!(!printed.contains(&started.verifier) && !printed.contains(&started.state), "{printed}");
    // An endpoint with a query of its own keeps it; no scopes, no scope; no resource, none.
    let mut odd = metadata.clone();
    odd.authorization_endpoint = Some("https://auth.example/authorize?tenant=a".into());
    let bare = Consent { metadata: &odd, scopes: &[], resource: None, ..consent };
    let url = start(&bare, &random()).unwrap().0;
    assert!(url.starts_with("https://auth.example/authorize?tenant=a&response_type=code&"), "{url}");
    assert!(!url.contains("scope=") && !url.contains("resource=") && !url.contains("prompt="), "{url}");
}

#[test]
fn refusals_to_start() {
    let attempt = |metadata: &ServerMetadata| {
        let consent = Consent { metadata, client_id: "c", redirect_uri: "https://r/cb", scopes: &[], resource: None };
        start(&consent, &random())
    };
    let mut metadata = metadata();
    metadata.pkce_s256 = Some(false);
    assert!(attempt(&metadata).unwrap_err().contains("PKCE"));
    metadata.pkce_s256 = None;
    assert!(attempt(&metadata).is_ok());
    metadata.authorization_endpoint = None;
    assert!(attempt(&metadata).unwrap_err().contains("authorization_endpoint"));
}

#[test]
fn scopes_asked() {
    let metadata = metadata();
    let strings = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(scopes_to_ask(&strings(&["a"]), &strings(&["b"]), &metadata), ["a", "offline_access"]);
    assert_eq!(scopes_to_ask(&[], &strings(&["b"]), &metadata), ["b", "offline_access"]);
    assert!(scopes_to_ask(&[], &[], &metadata).is_empty());
    let mut without = metadata.clone();
    without.scopes_supported = strings(&["b"]);
    assert_eq!(scopes_to_ask(&[], &strings(&["b"]), &without), ["b"]);
    assert_eq!(scopes_to_ask(&strings(&["offline_access", "b"]), &[], &metadata), ["offline_access", "b"]);
}

#[test]
fn the_redirect_back() {
    let metadata = metadata();
    let ok = read_callback("code=c0de&state=s1&iss=https%3A%2F%2Fauth.example").unwrap();
    assert!(!format!("{ok:?}").contains("c0de"));
    assert_eq!(code_of(ok.clone(), "s1", &metadata).unwrap(), "c0de");
    let other_state = code_of(ok, "s2", &metadata).unwrap_err();
    assert_eq!(other_state.kind, ErrorKind::Refused);
    // Issuers compare as strings, without normalizing.
    let slash = read_callback("code=c0de&state=s1&iss=https%3A%2F%2Fauth.example%2F").unwrap();
    assert!(code_of(slash, "s1", &metadata).unwrap_err().detail.contains("not from https://auth.example"));
    let missing = read_callback("code=c0de&state=s1").unwrap();
    assert!(code_of(missing.clone(), "s1", &metadata).unwrap_err().detail.contains("names no issuer"));
    let mut quiet = metadata.clone();
    quiet.iss_in_redirect = false;
    assert_eq!(code_of(missing, "s1", &quiet).unwrap(), "c0de");
    let wrong = read_callback("code=c0de&state=s1&iss=https%3A%2F%2Fevil.example").unwrap();
    assert!(code_of(wrong, "s1", &quiet).is_err());
    let denied = read_callback("error=access_denied&state=s1&iss=https%3A%2F%2Fauth.example").unwrap();
    assert!(code_of(denied, "s1", &metadata).unwrap_err().detail.contains("did not allow"));
    let failed = read_callback("error=server_error&error_description=down&state=s1&iss=https%3A%2F%2Fauth.example");
    let failed = code_of(failed.unwrap(), "s1", &metadata).unwrap_err();
    assert_eq!(failed.detail, "The authorization server refused the consent with server_error: down");
    for garbage in ["", "code=a", "state=s", "state=a&state=b&code=c", "state=%zz&code=c"] {
        assert!(read_callback(garbage).is_err(), "{garbage}");
    }
}
