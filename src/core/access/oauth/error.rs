//! The OAuth error: the code a client acts on, the words a person reads, and the HTTP status.

use serde_json::{json, Value};

/// The error codes of RFC 6749 §5.2, RFC 7009, RFC 7591 §3.2.2 and RFC 8707 that this server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    InvalidRequest,
    InvalidClient,
    InvalidGrant,
    UnauthorizedClient,
    UnsupportedGrantType,
    UnsupportedResponseType,
    InvalidScope,
    InvalidTarget,
    AccessDenied,
    UnsupportedTokenType,
    InvalidRedirectUri,
    InvalidClientMetadata,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::InvalidRequest => "invalid_request",
            Code::InvalidClient => "invalid_client",
            Code::InvalidGrant => "invalid_grant",
            Code::UnauthorizedClient => "unauthorized_client",
            Code::UnsupportedGrantType => "unsupported_grant_type",
            Code::UnsupportedResponseType => "unsupported_response_type",
            Code::InvalidScope => "invalid_scope",
            Code::InvalidTarget => "invalid_target",
            Code::AccessDenied => "access_denied",
            Code::UnsupportedTokenType => "unsupported_token_type",
            Code::InvalidRedirectUri => "invalid_redirect_uri",
            Code::InvalidClientMetadata => "invalid_client_metadata",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OAuthError {
    pub code: Code,
    pub description: String,
}

impl OAuthError {
    pub fn new(code: Code, description: impl Into<String>) -> Self {
        OAuthError { code, description: description.into() }
    }

    pub fn invalid_request(description: impl Into<String>) -> Self {
        OAuthError::new(Code::InvalidRequest, description)
    }

    pub fn invalid_grant(description: impl Into<String>) -> Self {
        OAuthError::new(Code::InvalidGrant, description)
    }

    pub fn invalid_client(description: impl Into<String>) -> Self {
        OAuthError::new(Code::InvalidClient, description)
    }

    /// 401 for a client that failed to authenticate (RFC 6749 §5.2), 400 for everything else.
    pub fn status(&self) -> u16 {
        match self.code {
            Code::InvalidClient => 401,
            _ => 400,
        }
    }

    /// The JSON body of an error answer from the token, registration and revocation endpoints.
    pub fn body(&self) -> Value {
        json!({ "error": self.code.as_str(), "error_description": self.description })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_and_body() {
        assert_eq!(OAuthError::invalid_client("no").status(), 401);
        for code in [
            Code::InvalidGrant,
            Code::InvalidRequest,
            Code::InvalidScope,
            Code::InvalidTarget,
            Code::UnsupportedGrantType,
        ] {
            assert_eq!(OAuthError::new(code, "no").status(), 400);
        }
        let body = OAuthError::new(Code::InvalidTarget, "Not this resource.").body();
        assert_eq!(body, json!({"error": "invalid_target", "error_description": "Not this resource."}));
    }
}
