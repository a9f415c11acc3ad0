//! The credential of an MCP server given by hand, once the server said how it authenticates: one
//! request without a token, and the protected resource metadata it names, decide the kind, as the
//! spec's three cases say. The request is `ops::service_auth::probe`'s; what it found is `Probe`.

use super::{Credential, OauthClient};
use crate::core::{Problem, Reason};

/// What asking the server found.
#[derive(Debug, Clone, PartialEq)]
pub enum Probe {
    /// Its metadata names this authorization server, which the runtime takes, and the scopes a
    /// consent asks: those its challenge asked for, else those its metadata supports.
    Names { issuer: String, scopes: Vec<String> },
    /// It names no authorization server: it answered without asking for one, or its metadata
    /// names none.
    NamesNone,
    /// It did not answer, or its host is one the operator's rules refuse; the words say which.
    Unreachable(String),
}

/// The scopes a consent of a connection whose server answered `probe` asks, where it settled on
/// a consent.
pub fn scopes(probe: &Probe, settled: &Credential) -> Vec<String> {
    match (probe, settled) {
        (Probe::Names { scopes, .. }, Credential::Authorization { .. }) => scopes.clone(),
        _ => Vec::new(),
    }
}

/// The credential the connection records, or the refusal at its pointer.
pub fn settle(given: Option<Credential>, probe: &Probe) -> Result<Credential, Problem> {
    match (probe, given) {
        (Probe::Unreachable(why), _) => Err(Problem::new(
            Reason::Unavailable,
            format!("The server could not be asked how it authenticates ({why}), so nothing was added; check its address with the person."),
        )
        .with_field("/entry/url", why.clone())),
        (Probe::Names { issuer, .. }, None | Some(Credential::Authorization { .. })) => {
            Ok(Credential::Authorization { issuer: Some(issuer.clone()), oauth_client: OauthClient::Runtime })
        }
        (Probe::Names { .. }, Some(c @ Credential::ClientCredentials { .. })) => Ok(c),
        (Probe::Names { issuer, .. }, Some(c)) => Err(Problem::invalid(
            "/credential/kind",
            format!(
                "is {}, where the server names the authorization server {issuer}, at which the person signs in: leave the credential out",
                c.kind()
            ),
        )),
        (Probe::NamesNone, Some(Credential::Authorization { .. })) => Err(Problem::invalid(
            "/credential/kind",
            "is authorization, where the server offers no consent: it names no authorization server. Give the kind its documentation says, such as secret",
        )),
        (Probe::NamesNone, Some(c)) => Ok(c),
        (Probe::NamesNone, None) => Err(Problem::invalid(
            "/credential",
            "is required: the server names no way of its own to authenticate. Say how its credential is sent: kind secret with its name and in, reference, client_credentials, or none where it needs nothing",
        )),
    }
}
