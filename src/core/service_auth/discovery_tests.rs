use super::*;

#[test]
fn addresses_deployed_and_local() {
    assert!(check_address("https://mcp.example.com/mcp", true).is_ok());
    for refused in [
        "http://mcp.example.com/mcp",
        "https://127.0.0.1/mcp",
        "https://10.0.0.8/mcp",
        "https://localhost/mcp",
        "https://printer.local/x",
        "https://user:pw@mcp.example.com/",
        "https://mcp.example.com/#frag",
        "not a url",
        "mailto:a@example.com",
    ] {
        assert!(check_address(refused, true).is_err(), "{refused}");
    }
    assert!(check_address("http://127.0.0.1:8788/mcp", false).is_ok());
    assert!(check_address("https://localhost/mcp", false).is_ok());
    assert!(check_address("http://mcp.example.com/mcp", false).is_err());
}

#[test]
fn challenges_of_several_schemes() {
    let read = read_challenge(
        r#"Basic realm="x", Bearer error="invalid_token", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="files:read  files:write""#,
    );
    assert_eq!(read.resource_metadata.as_deref(), Some("https://a.example/.well-known/oauth-protected-resource/mcp"));
    assert_eq!(read.scope, ["files:read", "files:write"]);
    // The parameters of another scheme are not the bearer's.
    let other = read_challenge(r#"Bearer realm="r", DPoP resource_metadata="https://b.example/""#);
    assert_eq!(other, Challenge::default());
    let escaped = read_challenge(r#"bearer scope=read, resource_metadata="https://a.example/\"q\"""#);
    assert_eq!(escaped.resource_metadata.as_deref(), Some(r#"https://a.example/"q""#));
    assert_eq!(escaped.scope, ["read"]);
    for garbage in ["", "Bearer", "Bearer resource_metadata=\"unterminated", "===", ",,,", "Negotiate abc=="] {
        assert_eq!(read_challenge(garbage).resource_metadata, None, "{garbage}");
    }
}

#[test]
fn well_known_resource_addresses() {
    assert_eq!(
        resource_metadata_urls("https://a.example/v1/mcp/?x=1"),
        [
            "https://a.example/.well-known/oauth-protected-resource/v1/mcp",
            "https://a.example/.well-known/oauth-protected-resource"
        ]
    );
    assert_eq!(
        resource_metadata_urls("http://127.0.0.1:9/"),
        ["http://127.0.0.1:9/.well-known/oauth-protected-resource"]
    );
    assert!(resource_metadata_urls("nope").is_empty());
}

#[test]
fn protected_resource_for_this_server_only() {
    let doc = r#"{"resource":"https://a.example/mcp","authorization_servers":["https://auth.example"],"scopes_supported":["read"]}"#;
    let read = read_protected_resource(doc, "https://a.example/mcp").unwrap();
    assert_eq!(read.authorization_servers, ["https://auth.example"]);
    assert_eq!(read.scopes_supported, ["read"]);
    assert!(read_protected_resource(doc, "https://A.example:443/mcp/").is_ok());
    let root = r#"{"resource":"https://a.example"}"#;
    assert!(read_protected_resource(root, "https://a.example/any/mcp").unwrap().authorization_servers.is_empty());
    for elsewhere in
        ["https://b.example/mcp", "https://a.example/mcpx", "http://a.example/mcp", "https://a.example:8443/mcp"]
    {
        let err = read_protected_resource(doc, elsewhere).unwrap_err();
        assert!(err.contains("not the server"), "{err}");
    }
    for garbage in ["<html>", "[]", "{}", r#"{"resource":"https://a.example/mcp","authorization_servers":"x"}"#] {
        assert!(read_protected_resource(garbage, "https://a.example/mcp").is_err(), "{garbage}");
    }
    let huge = format!(r#"{{"resource":"https://a.example/mcp","x":"{}"}}"#, "a".repeat(DOCUMENT_MAX));
    assert!(read_protected_resource(&huge, "https://a.example/mcp").unwrap_err().contains("larger"));
}

#[test]
fn issuer_metadata_addresses() {
    assert_eq!(
        server_metadata_urls("https://auth.example"),
        [
            "https://auth.example/.well-known/oauth-authorization-server",
            "https://auth.example/.well-known/openid-configuration"
        ]
    );
    assert_eq!(
        server_metadata_urls("https://auth.example/tenant/one/"),
        [
            "https://auth.example/.well-known/oauth-authorization-server/tenant/one",
            "https://auth.example/.well-known/openid-configuration/tenant/one",
            "https://auth.example/tenant/one/.well-known/openid-configuration",
        ]
    );
    assert!(server_metadata_urls("https://auth.example/?tenant=1").is_empty());
}

pub(crate) fn metadata_doc(issuer: &str) -> String {
    serde_json::json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "registration_endpoint": format!("{issuer}/register"),
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "none"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "scopes_supported": ["read", "offline_access"],
        "authorization_response_iss_parameter_supported": true,
    })
    .to_string()
}

#[test]
fn server_metadata_of_its_issuer() {
    let read = read_server_metadata(&metadata_doc("https://auth.example"), "https://auth.example", true).unwrap();
    assert_eq!(read.token_endpoint, "https://auth.example/token");
    assert_eq!(read.registration_endpoint.as_deref(), Some("https://auth.example/register"));
    assert_eq!(read.revocation_endpoint, None);
    assert_eq!(read.pkce_s256, Some(true));
    assert!(read.iss_in_redirect && read.takes_grant("refresh_token") && !read.takes_grant("client_credentials"));
    // Issuers are compared as strings: a trailing slash is another issuer.
    let err = read_server_metadata(&metadata_doc("https://auth.example"), "https://auth.example/", true).unwrap_err();
    assert!(err.contains("of the issuer https://auth.example, not of https://auth.example/"), "{err}");
    let bare = r#"{"issuer":"https://auth.example","token_endpoint":"https://auth.example/t"}"#;
    let read = read_server_metadata(bare, "https://auth.example", true).unwrap();
    assert_eq!((read.pkce_s256, read.token_auth_methods.as_slice()), (None, &["client_secret_basic".to_string()][..]));
    assert!(read.takes_grant("authorization_code") && read.authorization_endpoint.is_none());
    let plain = r#"{"issuer":"https://auth.example","token_endpoint":"https://auth.example/t","code_challenge_methods_supported":["plain"]}"#;
    assert_eq!(read_server_metadata(plain, "https://auth.example", true).unwrap().pkce_s256, Some(false));
    let inside = r#"{"issuer":"https://auth.example","token_endpoint":"https://10.1.1.1/t"}"#;
    assert!(read_server_metadata(inside, "https://auth.example", true).unwrap_err().contains("public host"));
    for garbage in
        ["", "null", r#"{"issuer":"https://auth.example"}"#, r#"{"token_endpoint":"https://auth.example/t"}"#]
    {
        assert!(read_server_metadata(garbage, "https://auth.example", true).is_err(), "{garbage}");
    }
}
