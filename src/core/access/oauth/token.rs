//! Token and revocation requests as they arrive: a form body and perhaps an `Authorization`
//! header, read into typed requests, and the client they come from authenticated.

use base64::{engine::general_purpose::STANDARD, Engine};

use super::authorize::scopes;
use super::client::{Client, GrantType};
use super::error::{Code, OAuthError};
use super::exchange::{CodeExchange, RefreshRequest};
use super::form::{decode, Form};
use super::resource::Resource;
use super::secret;

/// Who a request says it comes from, and the secret it proves that with, if any.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClientAuth {
    pub client_id: String,
    pub secret: Option<String>,
}

crate::core::json::tagged::tagged! {
    #[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum TokenRequest as "grant_type" {
        Code(CodeExchange),
        Refresh(RefreshRequest),
    }
}

impl TokenRequest {
    pub fn grant_type(&self) -> GrantType {
        match self {
            TokenRequest::Code(_) => GrantType::AuthorizationCode,
            TokenRequest::Refresh(_) => GrantType::RefreshToken,
        }
    }
}

/// Reads a token request. `issuer` is `PUBLIC_URL`, against which `resource` is read.
pub fn parse(body: &str, authorization: Option<&str>, issuer: &str) -> Result<(ClientAuth, TokenRequest), OAuthError> {
    let form = Form::parse(body)?;
    let auth = client_auth(&form, authorization)?;
    let required = |name: &str| {
        form.one(name)?
            .map(str::to_string)
            .ok_or_else(|| OAuthError::invalid_request(format!("The request needs {name}.")))
    };
    let resource = match form.one("resource") {
        Ok(Some(text)) => Some(Resource::parse(issuer, text).ok_or_else(|| {
            OAuthError::new(Code::InvalidTarget, format!("The resource {text} is not an MCP endpoint of this runtime."))
        })?),
        Ok(None) => None,
        Err(_) => return Err(OAuthError::new(Code::InvalidTarget, "A token is for one resource; name one.")),
    };
    let client_id = auth.client_id.clone();
    let request = match form.one("grant_type")? {
        Some("authorization_code") => TokenRequest::Code(CodeExchange {
            code: required("code")?,
            client_id,
            redirect_uri: form.one("redirect_uri")?.map(str::to_string),
            code_verifier: required("code_verifier")?,
            resource,
        }),
        Some("refresh_token") => TokenRequest::Refresh(RefreshRequest {
            refresh_token: required("refresh_token")?,
            client_id,
            scopes: form.one("scope")?.map(|s| scopes(Some(s))).transpose()?,
            resource,
        }),
        Some(other) => {
            return Err(OAuthError::new(
                Code::UnsupportedGrantType,
                format!("The grant type {other} is not offered; use authorization_code or refresh_token."),
            ))
        }
        None => return Err(OAuthError::invalid_request("The request needs grant_type.")),
    };
    Ok((auth, request))
}

/// A revocation request (RFC 7009 §2.1): the token, and the client revoking it.
pub fn parse_revoke(body: &str, authorization: Option<&str>) -> Result<(ClientAuth, String), OAuthError> {
    let form = Form::parse(body)?;
    let auth = client_auth(&form, authorization)?;
    let token = form.one("token")?.ok_or_else(|| OAuthError::invalid_request("The request needs token."))?;
    Ok((auth, token.to_string()))
}

/// `client_secret_basic` from the header, or `client_id` (and `client_secret`) from the body;
/// never both ways at once (RFC 6749 §2.3).
pub fn client_auth(form: &Form, authorization: Option<&str>) -> Result<ClientAuth, OAuthError> {
    let body_id = form.one("client_id")?;
    let body_secret = form.one("client_secret")?;
    let Some(header) = authorization else {
        let client_id = body_id.ok_or_else(|| OAuthError::invalid_client("The request names no client_id."))?;
        return Ok(ClientAuth { client_id: client_id.to_string(), secret: body_secret.map(str::to_string) });
    };
    if body_secret.is_some() {
        return Err(OAuthError::invalid_request(
            "Send the client secret in the Authorization header or the body, not both.",
        ));
    }
    let basic = basic(header)?;
    if body_id.is_some_and(|id| id != basic.client_id) {
        return Err(OAuthError::invalid_client("The client_id differs from the one in the Authorization header."));
    }
    Ok(basic)
}

/// `Basic base64(urlencoded id ":" urlencoded secret)`, as RFC 6749 §2.3.1 spells it.
fn basic(header: &str) -> Result<ClientAuth, OAuthError> {
    let bad = || OAuthError::invalid_client("The Authorization header is not Basic client credentials.");
    let (scheme, encoded) = header.trim().split_once(' ').ok_or_else(bad)?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(bad());
    }
    let bytes = STANDARD.decode(encoded.trim()).map_err(|_| bad())?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let (id, secret) = text.split_once(':').ok_or_else(bad)?;
    let (id, secret) = (decode(id)?, decode(secret)?);
    if id.is_empty() {
        return Err(bad());
    }
    Ok(ClientAuth { client_id: id, secret: (!secret.is_empty()).then_some(secret) })
}

/// Whether the request proves it comes from `client`. A client with a secret may send it either
/// way (post or basic); the method it registered is a preference between two equally safe ones.
pub fn authenticate(client: &Client, auth: &ClientAuth) -> Result<(), OAuthError> {
    if auth.client_id != client.client_id {
        return Err(OAuthError::invalid_client("The credentials are for another client."));
    }
    match (client.secret_digest(), &auth.secret) {
        (None, None) => Ok(()),
        (None, Some(_)) => Err(OAuthError::invalid_client("This client is public and has no secret; send none.")),
        (Some(_), None) => Err(OAuthError::invalid_client("This client must authenticate with its secret.")),
        (Some(digest), Some(plain)) if secret::same(digest, &secret::digest(plain)) => Ok(()),
        (Some(_), Some(_)) => Err(OAuthError::invalid_client("The client secret is wrong.")),
    }
}

/// Authenticates the client and checks it registered the grant type it uses.
pub fn admit(client: &Client, auth: &ClientAuth, request: &TokenRequest) -> Result<(), OAuthError> {
    authenticate(client, auth)?;
    if !client.allows(request.grant_type()) {
        return Err(OAuthError::new(
            Code::UnauthorizedClient,
            format!("This client did not register the {} grant.", request.grant_type().as_str()),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::access::oauth::client::register;
    use crate::core::caller::Scope;
    use chrono::{TimeZone, Utc};
    use serde_json::json;

    const ISS: &str = "https://runtime.example";

    #[test]
    fn code_requests() {
        let body = "grant_type=authorization_code&code=pbac_x&client_id=pbcl_a&code_verifier=v\
                    &redirect_uri=https%3A%2F%2Fapp.example%2Fcb&resource=https%3A%2F%2Fruntime.example%2Fmcp";
        let (auth, req) = parse(body, None, ISS).unwrap();
        assert_eq!(auth, ClientAuth { client_id: "pbcl_a".into(), secret: None });
        let TokenRequest::Code(code) = req else { panic!("not a code request") };
        assert_eq!(code.redirect_uri.as_deref(), Some("https://app.example/cb"));
        assert_eq!((code.code.as_str(), code.resource), ("pbac_x", Some(Resource::Mcp)));
        let refused = |body: &str| parse(body, None, ISS).unwrap_err().code;
        assert_eq!(refused("grant_type=authorization_code&client_id=a&code_verifier=v"), Code::InvalidRequest);
        assert_eq!(refused("grant_type=authorization_code&client_id=a&code=c"), Code::InvalidRequest);
        assert_eq!(refused("grant_type=password&client_id=a"), Code::UnsupportedGrantType);
        assert_eq!(refused("client_id=a"), Code::InvalidRequest);
        assert_eq!(refused("grant_type=authorization_code&code=c"), Code::InvalidClient);
        assert_eq!(refused("grant_type=authorization_code&client_id=a&code=%ZZ"), Code::InvalidRequest);
        let other = "grant_type=refresh_token&client_id=a&refresh_token=r&resource=https%3A%2F%2Fother.example%2Fmcp";
        assert_eq!(refused(other), Code::InvalidTarget);
    }

    #[test]
    fn refresh_requests() {
        let (_, req) =
            parse("grant_type=refresh_token&client_id=a&refresh_token=pbrt_x&scope=org:read", None, ISS).unwrap();
        let TokenRequest::Refresh(r) = req else { panic!("not a refresh") };
        assert_eq!(r.scopes, Some(vec![Scope::OrgRead]));
        let (_, req) = parse("grant_type=refresh_token&client_id=a&refresh_token=pbrt_x", None, ISS).unwrap();
        assert!(matches!(req, TokenRequest::Refresh(RefreshRequest { scopes: None, .. })));
        let bad = parse("grant_type=refresh_token&client_id=a&refresh_token=r&scope=admin", None, ISS);
        assert_eq!(bad.unwrap_err().code, Code::InvalidScope);
    }

    #[test]
    fn client_authentication() {
        let now = Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap();
        let body =
            json!({"redirect_uris": ["https://app.example/cb"], "token_endpoint_auth_method": "client_secret_post"});
        let reg = register(&body, &[1; 16], &[2; 32], now).unwrap();
        let (id, plain) = (reg.client.client_id.clone(), reg.secret.clone().unwrap());
        let form = |s: &str| Form::parse(s).unwrap();

        let post = client_auth(&form(&format!("client_id={id}&client_secret={plain}")), None).unwrap();
        assert_eq!(authenticate(&reg.client, &post), Ok(()));
        let header = format!("Basic {}", STANDARD.encode(format!("{id}:{plain}")));
        let basic = client_auth(&form(""), Some(&header)).unwrap();
        assert_eq!(authenticate(&reg.client, &basic), Ok(()));
        assert!(client_auth(&form(&format!("client_id={id}")), Some(&header)).is_ok());

        let wrong = client_auth(&form(&format!("client_id={id}&client_secret=pbcs_wrong")), None).unwrap();
        assert_eq!(authenticate(&reg.client, &wrong).unwrap_err().status(), 401);
        let none = client_auth(&form(&format!("client_id={id}")), None).unwrap();
        assert_eq!(authenticate(&reg.client, &none).unwrap_err().code, Code::InvalidClient);
        assert_eq!(client_auth(&form("client_secret=x"), Some(&header)).unwrap_err().code, Code::InvalidRequest);
        assert_eq!(client_auth(&form("client_id=other"), Some(&header)).unwrap_err().code, Code::InvalidClient);
        for bad in ["Bearer abc", "Basic !!!", "Basic", &format!("Basic {}", STANDARD.encode("no-colon"))] {
            assert_eq!(client_auth(&form(""), Some(bad)).unwrap_err().code, Code::InvalidClient, "{bad}");
        }
        // RFC 6749 §2.3.1: both halves are form-encoded inside the base64.
        let escaped = format!("Basic {}", STANDARD.encode("a%3Ab:s+1"));
        assert_eq!(
            client_auth(&form(""), Some(&escaped)).unwrap(),
            ClientAuth { client_id: "a:b".into(), secret: Some("s 1".into()) }
        );

        let public = register(&json!({"redirect_uris": ["https://app.example/cb"], "token_endpoint_auth_method": "none", "grant_types": ["authorization_code"]}), &[5; 16], &[6; 32], now).unwrap().client;
        let as_public = ClientAuth { client_id: public.client_id.clone(), secret: None };
        assert_eq!(authenticate(&public, &as_public), Ok(()));
        let with_secret = ClientAuth { secret: Some("x".into()), ..as_public.clone() };
        assert_eq!(authenticate(&public, &with_secret).unwrap_err().code, Code::InvalidClient);
        let (_, req) =
            parse(&format!("grant_type=refresh_token&client_id={}&refresh_token=r", public.client_id), None, ISS)
                .unwrap();
        assert_eq!(admit(&public, &as_public, &req).unwrap_err().code, Code::UnauthorizedClient);
    }

    #[test]
    fn revocation_requests() {
        let (auth, token) = parse_revoke("token=pbrt_x&token_type_hint=refresh_token&client_id=a", None).unwrap();
        assert_eq!((auth.client_id.as_str(), token.as_str()), ("a", "pbrt_x"));
        assert_eq!(parse_revoke("client_id=a", None).unwrap_err().code, Code::InvalidRequest);
    }
}
