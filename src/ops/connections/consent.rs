//! A person's consent at the service a connection reaches: `start` finds the service's
//! authorization server and the client to ask under, keeps what the finish needs sealed on the
//! link, and answers the address the person signs in at; `finish` reads the redirect back,
//! redeems its code, and keeps the tokens sealed for the person to approve.

use serde::{Deserialize, Serialize};

use super::{aad, Opened, Settings};
use crate::core::connection::providers::{ClientSource, Way};
use crate::core::connection::view::{consent_scopes, way_of};
use crate::core::connection::{Connection, Credential, OauthClient, Target};
use crate::core::service_auth::consent::{self, Pending, Random};
use crate::core::service_auth::discovery::ServerMetadata;
use crate::core::service_auth::token::{Client, ClientAuth};
use crate::core::service_auth::{redirect_uri, AuthError, ErrorKind};
use crate::core::Problem;
use crate::ops::service_auth;
use crate::ops::tool_client::Transport;

/// What a started consent keeps for its finish, sealed on the link: the state and verifier are
/// secrets, as is a registered client's.
#[derive(Serialize, Deserialize)]
pub struct Flow {
    pub pending: Pending,
    pub metadata: ServerMetadata,
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    pub client_auth: ClientAuth,
}

impl Flow {
    fn client(&self) -> Client {
        Client { id: self.client_id.clone(), secret: self.client_secret.clone(), auth: self.client_auth }
    }
}

/// A consent ready to send the person to: the address, the scopes it asks, and the sealed flow.
pub struct Started {
    pub authorize_url: String,
    pub asked: Vec<String>,
    pub sealed: String,
}

/// What `start` and `finish` reach besides the connection.
pub struct Reach<'a> {
    pub transport: &'a dyn Transport,
    pub settings: &'a Settings,
}

/// The state and verifier of a consent, from the 32 fresh secret bytes a request is handed: each
/// the SHA-256 of those bytes under its own label, so neither tells anything of the other.
pub fn random_of(secret: &[u8; 32]) -> Random {
    use sha2::{Digest, Sha256};
    let mut random = [0u8; 64];
    for (half, label) in random.chunks_mut(32).zip([b"verifier", b"state\0\0\0"]) {
        let mut h = Sha256::new();
        h.update(label);
        h.update(secret);
        half.copy_from_slice(&h.finalize());
    }
    random
}

/// Starts the consent of `c` on its open link.
pub async fn start(reach: &Reach<'_>, c: &Connection, random: &Random) -> Result<Started, Problem> {
    let Credential::Authorization { issuer, oauth_client } = &c.credential else {
        return Err(Problem::conflict(format!(
            "The connection {} takes no sign-in at its service: its credential is of the kind {}.",
            c.name,
            c.credential.kind()
        )));
    };
    let way = way_of(c, &reach.settings.providers);
    let issuer = match (issuer, way) {
        (Some(i), _) => i.clone(),
        (None, Some(Way::Authorization { issuer, .. })) => issuer.clone(),
        _ => return Err(Problem::internal(format!("the connection {} names no authorization server", c.id))),
    };
    let metadata = metadata(reach, &issuer, way).await.map_err(|e| refused(c, e))?;
    let redirect = redirect_uri(&reach.settings.base);
    let client = client(reach, c, *oauth_client, way, &metadata, &redirect).await?;
    let mut asked = consent_scopes(c, &reach.settings.providers);
    if asked.is_empty() {
        asked = c.asked_scopes.clone();
    }
    let asked = consent::scopes_to_ask(&asked, &[], &metadata);
    let resource = match &c.target {
        Target::Mcp { url } => Some(url.as_str()),
        Target::Openapi { .. } => None,
    };
    let ask = consent::Consent {
        metadata: &metadata,
        client_id: &client.id,
        redirect_uri: &redirect,
        scopes: &asked,
        resource,
    };
    let (authorize_url, pending) = consent::start(&ask, random)
        .map_err(|why| Problem::unavailable(format!("The connection {} cannot ask for consent: {why}.", c.name)))?;
    let flow = Flow { pending, metadata, client_id: client.id, client_secret: client.secret, client_auth: client.auth };
    let sealed = seal(reach.settings, c, "consent", &flow)?;
    Ok(Started { authorize_url, asked, sealed })
}

/// The tokens of a finished consent, sealed as the connection's credential, and the scopes the
/// service granted. `query` is the redirect's query; `sealed` what `start` kept.
pub async fn finish(
    reach: &Reach<'_>,
    c: &Connection,
    sealed: &str,
    query: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(String, Vec<String>), Problem> {
    let flow: Flow = open(reach.settings, c, "consent", sealed)?;
    let callback = consent::read_callback(query).map_err(|why| Problem::invalid("/query", why))?;
    let code = consent::code_of(callback, &flow.pending.state, &flow.metadata).map_err(|e| refused(c, e))?;
    let client = flow.client();
    let tokens = service_auth::redeem(reach.transport, &flow.metadata, &client, &flow.pending, &code, now)
        .await
        .map_err(|e| refused(c, e))?;
    let granted = tokens.scope.clone();
    let opened = Opened {
        access_token: Some(tokens.access),
        refresh_token: tokens.refresh,
        expires_at: tokens.expires_at.map(crate::core::text::stamp),
        client_id: Some(flow.client_id),
        client_secret: flow.client_secret,
        token_endpoint: Some(flow.metadata.token_endpoint),
        client_auth: Some(flow.client_auth),
        resource: flow.pending.resource,
        ..Opened::default()
    };
    Ok((seal(reach.settings, c, "credential", &opened)?, granted))
}

/// The authorization server's metadata: the endpoints a provider's way names, or discovered.
async fn metadata(reach: &Reach<'_>, issuer: &str, way: Option<&Way>) -> Result<ServerMetadata, AuthError> {
    if let Some(Way::Authorization { authorization_endpoint: Some(authorize), token_endpoint: Some(token), .. }) = way {
        return Ok(ServerMetadata {
            issuer: issuer.to_string(),
            authorization_endpoint: Some(authorize.clone()),
            token_endpoint: token.clone(),
            registration_endpoint: None,
            revocation_endpoint: None,
            pkce_s256: None,
            token_auth_methods: vec!["client_secret_post".into()],
            scopes_supported: Vec::new(),
            grant_types: Vec::new(),
            iss_in_redirect: false,
        });
    }
    service_auth::discover(reach.transport, issuer, reach.settings.deployed).await
}

/// The client the consent runs under: the org's own given on the page, the one whoever runs the
/// runtime set for the provider, or one registered now.
async fn client(
    reach: &Reach<'_>,
    c: &Connection,
    oauth_client: OauthClient,
    way: Option<&Way>,
    metadata: &ServerMetadata,
    redirect: &str,
) -> Result<Client, Problem> {
    let auth = ClientAuth::for_secret(&metadata.token_auth_methods);
    if oauth_client == OauthClient::Own {
        let own =
            c.link.as_ref().and_then(|l| l.staged.client.as_ref()).or(c.sealed.client.as_ref()).ok_or_else(|| {
                Problem::conflict("Give the client ID and client secret of the org's own OAuth client first.")
            })?;
        let secret = reach.settings.open_text(&c.org, &c.id, "client", &own.sealed_secret)?;
        return Ok(Client { id: own.client_id.clone(), secret: Some(secret), auth });
    }
    if let (Some(Way::Authorization { client: ClientSource::Set, .. }), Some(name)) = (way, c.provider.as_deref()) {
        let set = reach.settings.providers.client(name).ok_or_else(|| {
            Problem::unavailable(format!(
                "Whoever runs the runtime has not set the OAuth client of {name}: the connection asks for the org's own client, or for {}_CLIENT_ID and {}_CLIENT_SECRET to be set.",
                crate::core::connection::providers::variable_prefix(name),
                crate::core::connection::providers::variable_prefix(name)
            ))
        })?;
        return Ok(Client { id: set.client_id.clone(), secret: Some(set.client_secret.0.clone()), auth });
    }
    let registered = service_auth::register(reach.transport, metadata, redirect).await.map_err(|e| refused(c, e))?;
    Ok(registered.client)
}

/// A failed exchange in words that say whether trying again may help.
fn refused(c: &Connection, e: AuthError) -> Problem {
    let words = format!("Signing in at the service of the connection {} did not work: {}", c.name, e.detail);
    match e.kind {
        ErrorKind::Unreachable | ErrorKind::Failing => Problem::unavailable(format!("{words} Try again in a moment.")),
        _ => Problem::conflict(format!("{words} Start the sign-in again from the page.")),
    }
}

fn seal<T: Serialize>(settings: &Settings, c: &Connection, what: &str, value: &T) -> Result<String, Problem> {
    let sealer = settings.sealer()?;
    let text =
        serde_json::to_vec(value).map_err(|e| Problem::internal(format!("a credential could not be written: {e}")))?;
    sealer.seal(&aad(&c.org, &c.id, what), &text)
}

fn open<T: for<'de> Deserialize<'de>>(
    settings: &Settings,
    c: &Connection,
    what: &str,
    sealed: &str,
) -> Result<T, Problem> {
    let sealer = settings.sealer()?;
    let bytes = sealer.open(&aad(&c.org, &c.id, what), sealed)?;
    crate::core::json::from_slice(&bytes).map_err(|_| Problem::internal("a sealed credential could not be read"))
}
