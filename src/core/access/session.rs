//! A person's session on the runtime's own pages (the connect page, later Studio), where a browser
//! carries no bearer token: they sign in at the team's OpenID provider, as for a client, and come
//! back to the page they asked for with a cookie. The cookie holds a random token; the Access
//! object keeps only its digest, with the person and an expiry, so a session can be ended.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::oauth::form::encode;
use super::oauth::person::Person;
use super::oauth::secret;

/// How long a session lasts: a working day, then the person signs in again.
pub const SESSION_TTL: TimeDelta = TimeDelta::hours(8);
/// How long a person has to sign in at the provider.
pub const SIGN_IN_TTL: TimeDelta = TimeDelta::minutes(10);
/// The session cookie's name, before the `__Host-` prefix of an https runtime.
pub const COOKIE: &str = "session";
pub const SESSION_PREFIX: &str = "pbps_";
/// Starts the `state` of a page's sign-in, so that the provider's one callback
/// (`/oauth/callback`, the redirect URI the operator registered) tells it from a client's.
pub const STATE_PREFIX: &str = "pg.";
/// The cookie that binds a sign-in to the browser that began it, before the `__Host-` prefix of an
/// https runtime. Without it, someone who began a sign-in and stopped before its callback could
/// send that address to another person, whose browser would then be signed in as them (login
/// CSRF). `SameSite=Lax`, since the provider sends the person back by a top-level navigation.
pub const BROWSER_COOKIE: &str = "sign-in";
/// How long a browser's binding lasts: as long as a sign-in may take.
pub const BROWSER_TTL: TimeDelta = SIGN_IN_TTL;

/// The binding value a browser keeps: the one it carries already where it is one this runtime
/// made (so two sign-ins in two tabs both go on), else `fresh`.
pub fn browser_binding(carried: Option<&str>, fresh: String) -> String {
    carried
        .filter(|v| v.len() == 43 && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
        .map_or(fresh, str::to_string)
}

/// Whether the browser at a sign-in's callback is the one that began it: its binding cookie's
/// digest is the one kept, compared in constant time. A sign-in kept before bindings (an empty
/// digest) is refused like one from another browser.
pub fn same_browser(kept: &str, carried: Option<&str>) -> bool {
    !kept.is_empty() && carried.is_some_and(|c| secret::same(kept, &secret::digest(c)))
}

/// Where a page sends a person without a session: `?to=` the path they asked for.
pub const SIGN_IN_PATH: &str = "/pages/sign-in";
/// Ends the session of the browser that posts to it.
pub const SIGN_OUT_PATH: &str = "/pages/sign-out";
/// Who the browser's session is, as JSON, after signing in where it has none: for tests, and
/// for pages that greet the person.
pub const ME_PATH: &str = "/pages/me";
const RETURN_MAX: usize = 2_048;

/// The person a page acts for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PagePerson {
    /// Their caller id: `person:<sub>`, or `local` for the local developer, as `Caller::id`.
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

impl PagePerson {
    /// The local developer, who needs no session on loopback in local mode.
    pub fn local(account: Option<&str>) -> PagePerson {
        let name = account.map(str::trim).filter(|a| !a.is_empty()).unwrap_or("the local developer");
        PagePerson { id: "local".into(), name: name.to_string(), email: None }
    }

    pub fn of(person: &Person) -> PagePerson {
        PagePerson { id: person.id(), name: person.name.clone(), email: person.email.clone() }
    }
}

/// A session as the Access object keeps it, under the digest of its token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub person: Person,
    pub opened_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

impl Session {
    pub fn open(person: Person, now: DateTime<Utc>) -> Session {
        Session { person, opened_at: now, expires_at: now + SESSION_TTL }
    }

    pub fn live(&self, now: DateTime<Utc>) -> bool {
        now < self.expires_at
    }
}

/// A page's sign-in at the provider in flight: where the person goes back to, and what the
/// runtime checks when the provider sends them back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageSignIn {
    /// A path of this runtime, checked by `return_path`.
    pub return_to: String,
    pub verifier: String,
    pub nonce: String,
    pub expires_at: DateTime<Utc>,
    /// The digest of the browser's binding cookie (`BROWSER_COOKIE`): the callback goes on only
    /// in the browser that began the sign-in.
    #[serde(default)]
    pub browser: String,
}

/// A session token from 32 random bytes the shell supplies.
pub fn mint(random: &[u8]) -> String {
    secret::mint(SESSION_PREFIX, random)
}

/// The `state` of a page's sign-in from a random value.
pub fn page_state(random: &str) -> String {
    format!("{STATE_PREFIX}{random}")
}

pub fn is_page_state(state: &str) -> bool {
    state.starts_with(STATE_PREFIX)
}

/// The path a person is sent back to after signing in, when it is one of this runtime's own:
/// it starts with one `/`, holds no backslash, space or control character (a browser reads
/// `/\host` and `//host` as another site), and is not a sign-in path again.
pub fn return_path(requested: &str) -> Option<&str> {
    let own = requested.starts_with('/')
        && !requested.starts_with("//")
        && requested.len() <= RETURN_MAX
        && requested.chars().all(|c| c.is_ascii_graphic() && c != '\\');
    let signing = [SIGN_IN_PATH, SIGN_OUT_PATH, "/oauth/"].iter().any(|p| requested.starts_with(p));
    (own && !signing).then_some(requested)
}

/// Whether a request came to this computer itself, where local mode answers.
pub fn loopback(host: &str) -> bool {
    matches!(host, "127.0.0.1" | "localhost" | "[::1]" | "::1")
}

/// The address that signs a person in and brings them back to `path` of the runtime at `base`.
pub fn sign_in_url(base: &str, path: &str) -> String {
    format!("{base}{SIGN_IN_PATH}?to={}", encode(path))
}

// What the page sign-in asks the Access object; each is one atomic step there.

/// Keeps a page's sign-in in flight by the digest of its `state`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BeginPageSignIn {
    pub state: String,
    pub sign_in: PageSignIn,
}

/// Takes a page's sign-in in flight, once; none when unknown, used or expired.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TakePageSignIn {
    pub state: String,
    pub now: DateTime<Utc>,
}

/// Keeps a session under the digest of its token, and forgets sessions past their time.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpenSession {
    pub digest: String,
    pub session: Session,
}

/// The live session under this digest; none when unknown, ended or expired.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FindSession {
    pub digest: String,
    pub now: DateTime<Utc>,
}

/// Ends the session under this digest.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EndSession {
    pub digest: String,
}

/// Ends every session of a person (`person:<sub>`), as when they lose their place; answers how
/// many were ended.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EndSessionsOf {
    pub person: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_sign_in_goes_on_only_in_the_browser_that_began_it() {
        let mine = "A".repeat(43);
        assert_eq!(browser_binding(Some(&mine), "fresh".into()), mine, "two tabs share one binding");
        assert_eq!(browser_binding(Some("short"), "fresh".into()), "fresh");
        assert_eq!(browser_binding(Some(&"é".repeat(22)), "fresh".into()), "fresh");
        assert_eq!(browser_binding(None, "fresh".into()), "fresh");
        let kept = secret::digest(&mine);
        assert!(same_browser(&kept, Some(&mine)));
        assert!(!same_browser(&kept, Some(&"B".repeat(43))), "the victim's own binding");
        assert!(!same_browser(&kept, None), "a browser with none");
        assert!(!same_browser("", Some(&mine)), "a sign-in kept with no binding");
    }

    #[test]
    fn only_own_paths_are_returned_to() {
        for good in ["/connect/acme/cl_abc", "/connect/acme/cl_abc?x=https://a.example", "/", ME_PATH] {
            assert_eq!(return_path(good), Some(good), "{good}");
        }
        for bad in [
            "https://evil.example/",
            "//evil.example/",
            "/\\evil.example",
            "/a b",
            "/a\nb",
            "connect/acme",
            "",
            "/pages/sign-in?to=/x",
            "/pages/sign-out",
            "/oauth/callback",
        ] {
            assert_eq!(return_path(bad), None, "{bad:?}");
        }
        assert_eq!(return_path(&format!("/{}", "a".repeat(3_000))), None);
    }

    #[test]
    fn a_session_lasts_eight_hours() {
        let now = Utc.with_ymd_and_hms(2026, 12, 5, 9, 0, 0).unwrap();
        let person = Person { sub: "user_2ada".into(), name: "Ada".into(), email: None };
        let s = Session::open(person.clone(), now);
        assert!(s.live(now + TimeDelta::hours(7)) && !s.live(now + TimeDelta::hours(8)));
        assert_eq!(PagePerson::of(&person).id, "person:user_2ada");
        assert_eq!(PagePerson::local(Some(" ")).name, "the local developer");
        assert_eq!(PagePerson::local(Some("ada")).id, "local");
    }

    #[test]
    fn tokens_states_and_the_sign_in_address() {
        assert!(mint(&[0; 32]).starts_with("pbps_"));
        assert!(is_page_state(&page_state("abc")) && !is_page_state("abc"));
        assert!(loopback("127.0.0.1") && loopback("[::1]") && !loopback("rt.example"));
        assert_eq!(
            sign_in_url("https://rt.example", "/connect/acme/cl_a?b=c"),
            "https://rt.example/pages/sign-in?to=%2Fconnect%2Facme%2Fcl_a%3Fb%3Dc"
        );
    }
}
