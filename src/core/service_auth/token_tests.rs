use super::*;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-12-05T08:00:00Z").unwrap().with_timezone(&Utc)
}

fn client(auth: ClientAuth) -> Client {
    Client { id: "cli:1".into(), secret: Some("s3cret&".into()), auth }
}

const CODE: Grant<'static> = Grant::Code { code: "c0de", verifier: "v3rifier", redirect_uri: "https://r.example/cb" };

#[test]
fn requests_by_grant_and_client_authentication() {
    let resource = Some("https://a.example/mcp");
    let scopes = vec!["read".to_string(), "write".to_string()];
    let post = request("https://auth.example/token", &client(ClientAuth::ClientSecretPost), &CODE, &scopes, resource);
    assert_eq!((post.method, post.url.as_str()), ("POST", "https://auth.example/token"));
    assert_eq!(
        post.body.as_deref(),
        Some(
            "grant_type=authorization_code&code=c0de&redirect_uri=https%3A%2F%2Fr.example%2Fcb&code_verifier=v3rifier\
             &resource=https%3A%2F%2Fa.example%2Fmcp&client_id=cli%3A1&client_secret=s3cret%26"
        )
    );
    assert!(post.headers.iter().all(|(n, _)| n != "Authorization"));
    let basic = request(
        "https://auth.example/token",
        &client(ClientAuth::ClientSecretBasic),
        &Grant::Refresh { refresh_token: "rt" },
        &scopes,
        None,
    );
    assert_eq!(basic.body.as_deref(), Some("grant_type=refresh_token&refresh_token=rt"));
    let authorization = basic.headers.iter().find(|(n, _)| n == "Authorization").map(|(_, v)| v.as_str());
    // base64 of "cli%3A1:s3cret%26"
    assert_eq!(authorization, Some("Basic Y2xpJTNBMTpzM2NyZXQlMjY="));
    let public = Client { id: "pub".into(), secret: None, auth: ClientAuth::None };
    let credentials = request("https://t", &public, &Grant::ClientCredentials, &scopes, None);
    assert_eq!(credentials.body.as_deref(), Some("grant_type=client_credentials&scope=read%20write&client_id=pub"));
    let unscoped = request("https://t", &public, &Grant::ClientCredentials, &[], None);
    assert_eq!(unscoped.body.as_deref(), Some("grant_type=client_credentials&client_id=pub"));
    assert!(!format!("{:?}", client(ClientAuth::ClientSecretPost)).contains("s3cret"));
}

#[test]
fn authentication_as_the_server_takes_it() {
    let methods = |m: &[&str]| m.iter().map(|m| m.to_string()).collect::<Vec<_>>();
    assert_eq!(ClientAuth::for_secret(&methods(&["client_secret_basic"])), ClientAuth::ClientSecretBasic);
    assert_eq!(ClientAuth::for_secret(&methods(&["none", "client_secret_post"])), ClientAuth::ClientSecretPost);
    assert_eq!(ClientAuth::for_secret(&methods(&["private_key_jwt"])), ClientAuth::ClientSecretBasic);
    assert_eq!(ClientAuth::parse("client_secret_post"), Some(ClientAuth::ClientSecretPost));
    assert_eq!(ClientAuth::parse("tls_client_auth"), None);
}

#[test]
fn answers_read() {
    let asked = vec!["read".to_string()];
    let body =
        r#"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt2","scope":"read write"}"#;
    let tokens = read_response(&CODE, 200, body, &asked, now(), &[]).unwrap();
    assert_eq!(tokens.access, "at");
    assert_eq!(tokens.refresh.as_deref(), Some("rt2"));
    assert_eq!(tokens.expires_at, Some(now() + TimeDelta::hours(1)));
    assert_eq!(tokens.scope, ["read", "write"]);
    assert!(
        !tokens.expired(now(), TimeDelta::minutes(1))
            && tokens.expired(now() + TimeDelta::minutes(59), TimeDelta::minutes(1))
    );
    let printed = format!("{tokens:?}");
    assert!(!printed.contains("\"at\"") && !printed.contains("rt2"), "{printed}");
    // A refresh answered without a new refresh token keeps the old; no scope: those asked.
    let refresh = Grant::Refresh { refresh_token: "rt1" };
    let bare = r#"{"access_token":"at3","token_type":"bearer","expires_in":"60"}"#;
    let tokens = read_response(&refresh, 200, bare, &asked, now(), &[]).unwrap();
    assert_eq!((tokens.refresh.as_deref(), tokens.scope.as_slice()), (Some("rt1"), asked.as_slice()));
    assert_eq!(tokens.expires_at, Some(now() + TimeDelta::seconds(60)));
    let forever = r#"{"access_token":"a","expires_in":1e300}"#;
    let tokens = read_response(&CODE, 200, forever, &asked, now(), &[]).unwrap();
    assert_eq!((tokens.refresh, tokens.expires_at), (None, Some(now() + TimeDelta::seconds(EXPIRES_IN_MAX))));
    let lasting = read_response(&CODE, 200, r#"{"access_token":"a"}"#, &asked, now(), &[]).unwrap();
    assert_eq!(lasting.expires_at, None);
}

#[test]
fn garbage_is_failing() {
    for garbage in [
        "<html>",
        "",
        "[]",
        r#"{"token_type":"Bearer"}"#,
        r#"{"access_token":""}"#,
        r#"{"access_token":"a","token_type":"DPoP"}"#,
        r#"{"access_token":"a","expires_in":-5}"#,
        r#"{"access_token":"a","expires_in":"soon"}"#,
    ] {
        let err = read_response(&CODE, 200, garbage, &[], now(), &[]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Failing, "{garbage}");
        assert!(!err.breaks_connection());
    }
}

#[test]
fn errors_told_apart_without_secrets() {
    let c = client(ClientAuth::ClientSecretPost);
    let refresh = Grant::Refresh { refresh_token: "rt_SECRET_1" };
    let hidden = hidden(&c, &refresh);
    let cases = [
        (
            400,
            r#"{"error":"invalid_grant","error_description":"refresh token rt_SECRET_1 revoked"}"#,
            ErrorKind::GrantRefused,
        ),
        (
            401,
            r#"{"error":"invalid_client","error_description":"bad secret s3cret& or s3cret%26"}"#,
            ErrorKind::ClientRefused,
        ),
        (400, r#"{"error":"unauthorized_client"}"#, ErrorKind::ClientRefused),
        (401, "", ErrorKind::ClientRefused),
        (400, r#"{"error":"invalid_scope"}"#, ErrorKind::Refused),
        (500, "<html>oops</html>", ErrorKind::Failing),
        (429, "", ErrorKind::Failing),
        (404, "{}", ErrorKind::Failing),
    ];
    for (status, body, kind) in cases {
        let err = read_response(&refresh, status, body, &[], now(), &hidden).unwrap_err();
        assert_eq!(err.kind, kind, "{body}");
        assert_eq!(err.breaks_connection(), matches!(kind, ErrorKind::GrantRefused | ErrorKind::ClientRefused));
        assert!(err.detail.starts_with("The token endpoint refused the refresh of the connection's token"), "{err}");
        for secret in ["rt_SECRET_1", "s3cret&", "s3cret%26"] {
            assert!(!err.detail.contains(secret), "{err}");
        }
    }
    let err = read_response(&refresh, 400, r#"{"error":"invalid_grant","error_description":"gone"}"#, &[], now(), &[]);
    assert_eq!(
        err.unwrap_err().detail,
        "The token endpoint refused the refresh of the connection's token with invalid_grant: gone."
    );
}
