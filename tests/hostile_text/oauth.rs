//! OAuth forms: token and revocation bodies, `Authorization` headers, authorization queries.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use playbook_runtime::core::access::oauth::authorize;
use playbook_runtime::core::access::oauth::client::{AuthMethod, Client, ClientKind, GrantType};
use playbook_runtime::core::access::oauth::form::Form;
use playbook_runtime::core::access::oauth::token;

use crate::pieces::{broken, long};
use crate::{bounded, cases};

// ---- OAuth forms ----

const ISSUER: &str = "https://runtime.example";

fn client() -> Client {
    Client {
        client_id: "c1".into(),
        client_name: "An app".into(),
        redirect_uris: vec!["https://app.example/cb".into(), "http://127.0.0.1/cb".into()],
        token_endpoint_auth_method: AuthMethod::None,
        grant_types: vec![GrantType::AuthorizationCode, GrantType::RefreshToken],
        kind: ClientKind::MetadataDocument,
    }
}

fn form_value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[A-Za-z0-9._~-]{0,40}",
        2 => "(%[0-9A-Fa-f]{2}|%[G-Zg-z]{0,2}|%|\\+|[a-z=])*",
        1 => select(vec![
            "c1", "code", "S256", "plain", "authorization_code", "refresh_token", "https%3A%2F%2Fapp.example%2Fcb",
            "https://runtime.example/mcp", "https://runtime.example/o/acme/mcp", "read+write+offline_access",
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "%E2%82", "%C0%80", "%FF%FE", "%00",
        ]).prop_map(str::to_string),
        1 => long("a", 100_000),
        1 => long("%41", 30_000),
    ]
}

fn form_text() -> impl Strategy<Value = String> {
    let name = prop_oneof![
        4 => select(vec![
            "grant_type", "code", "redirect_uri", "client_id", "client_secret", "code_verifier", "refresh_token",
            "resource", "scope", "state", "response_type", "code_challenge", "code_challenge_method", "token",
        ]).prop_map(str::to_string),
        1 => "[a-z_%+]{0,12}",
    ];
    let join = select(vec!["&", "&&", ";", "=", "&="]);
    vec((name, form_value(), join), 0..16)
        .prop_map(|pairs| pairs.into_iter().map(|(n, v, j)| format!("{n}={v}{j}")).collect::<String>())
}

/// An authorization query or a token body as a client writes it, before it is broken.
fn oauth_request() -> impl Strategy<Value = String> {
    let scope =
        select(vec!["", "&scope=read", "&scope=read+write+offline_access", "&scope=admin", "&scope=read%20write"]);
    let resource =
        select(vec!["", "&resource=https%3A%2F%2Fruntime.example%2Fmcp", "&resource=https%3A%2F%2Fevil.example%2F"]);
    let challenge = select(vec!["E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "short", ""]);
    let authorize = (scope, resource.clone(), challenge, "[A-Za-z0-9%]{0,20}").prop_map(|(scope, resource, challenge, state)| {
        format!("response_type=code&client_id=c1&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&code_challenge={challenge}&code_challenge_method=S256&state={state}{scope}{resource}")
    });
    let grant = prop_oneof![
        "[A-Za-z0-9_-]{0,43}".prop_map(|v| format!(
            "grant_type=authorization_code&code=c0de&code_verifier={v}&redirect_uri=https%3A%2F%2Fapp.example%2Fcb"
        )),
        "[A-Za-z0-9_.-]{0,60}".prop_map(|t| format!("grant_type=refresh_token&refresh_token={t}")),
    ];
    let token = (grant, resource).prop_map(|(grant, resource)| format!("{grant}&client_id=c1{resource}"));
    prop_oneof![authorize, token]
}

fn oauth_body() -> impl Strategy<Value = String> {
    let noise = "(&|=|%|%[0-9A-F]{2}|%E2%82|\\+|&client_id=c2|&state=x|&code=y|&grant_type=)";
    prop_oneof![2 => form_text(), 1 => oauth_request(), 2 => broken(oauth_request(), noise)]
}

fn authorization() -> impl Strategy<Value = Option<String>> {
    use base64::Engine;
    let basic = ("[a-z0-9%:]{0,20}", "[a-z0-9%:]{0,20}")
        .prop_map(|(id, secret)| base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}")));
    prop::option::of(prop_oneof![
        basic.prop_map(|b| format!("Basic {b}")),
        "(Basic|basic|Bearer|Digest) ?[A-Za-z0-9+/=:]{0,40}",
        long("A", 50_000).prop_map(|b| format!("Basic {b}")),
    ])
}

proptest! {
    #![proptest_config(cases(128))]

    /// A token and a revocation request's body and header, and an authorization request's query.
    #[test]
    fn oauth_forms_read_within_bounds(body in oauth_body(), header in authorization()) {
        bounded(|| {
            let _ = token::parse(&body, header.as_deref(), ISSUER);
            let _ = token::parse_revoke(&body, header.as_deref());
            if let Ok(form) = Form::parse(&body) {
                let _ = authorize::client_id(&form);
                let _ = authorize::check(&form, &client(), ISSUER);
            }
        })?;
    }
}
