//! Cookies of the runtime's own pages, and the proof that a form came from one of them: the page
//! sets a random value in a `SameSite=Strict`, `HttpOnly` cookie and writes the same value in a
//! hidden field; a post is taken only when both arrive and match. Another site can make a browser
//! post a form here, but it can neither read the cookie nor make the browser send a strict one.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::oauth::secret;

/// The name of the hidden field that carries the value.
pub const FIELD: &str = "csrf";

/// How a page's cookies are written: `Secure`, and named with the `__Host-` prefix (which keeps a
/// sibling host from setting them), where the runtime is reached over https.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Jar {
    pub secure: bool,
}

/// Which sites a cookie travels from: `Strict` only from this runtime's own pages, `Lax` also on
/// a top-level navigation from elsewhere, as when a person follows a link to a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SameSite {
    Strict,
    Lax,
}

impl Jar {
    /// The jar of a runtime reached at `base` (`PUBLIC_URL`, or the address a request came to).
    pub fn of(base: &str) -> Jar {
        Jar { secure: base.starts_with("https://") }
    }

    /// The name a cookie is sent under.
    pub fn name(&self, base: &str) -> String {
        if self.secure {
            format!("__Host-{base}")
        } else {
            base.to_string()
        }
    }

    /// The `Set-Cookie` value of a cookie that script cannot read, for the whole runtime;
    /// `max_age` zero forgets it.
    pub fn set(&self, base: &str, value: &str, max_age: u32, same_site: SameSite) -> String {
        let site = match same_site {
            SameSite::Strict => "Strict",
            SameSite::Lax => "Lax",
        };
        let secure = if self.secure { "; Secure" } else { "" };
        format!("{}={value}; Path=/; HttpOnly; SameSite={site}; Max-Age={max_age}{secure}", self.name(base))
    }

    /// The `Set-Cookie` value of a form's proof, good for `max_age` seconds.
    pub fn proof(&self, base: &str, value: &str, max_age: u32) -> String {
        self.set(base, value, max_age, SameSite::Strict)
    }
}

/// A fresh value for a form and its cookie, from 32 random bytes the shell supplies.
pub fn token(random: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(random)
}

/// The value of the cookie `name` in a `Cookie` header, if it carries one.
pub fn cookie_value(header: Option<&str>, name: &str) -> Option<String> {
    header?.split(';').filter_map(|kv| kv.trim().split_once('=')).find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
}

/// Whether a form's field matches the cookie it came with, compared in constant time; an empty
/// field matches nothing.
pub fn matches(cookie_header: Option<&str>, name: &str, field: &str) -> bool {
    !field.is_empty() && cookie_value(cookie_header, name).is_some_and(|c| secret::same(&c, field))
}

/// Whether a post comes from this runtime's own page, by what the browser says of its origin:
/// another origin, or a fetch another site started, is refused. A request that says neither (an
/// older browser, a script) still needs the cookie and field to match.
pub fn same_origin(origin: Option<&str>, fetch_site: Option<&str>, own: &str) -> bool {
    !(origin.is_some_and(|o| o != own) || fetch_site.is_some_and(|s| s != "same-origin" && s != "none"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_strict_or_lax_and_secure_over_https() {
        let https = Jar::of("https://rt.example");
        assert_eq!(
            https.proof("consent", "v1", 600),
            "__Host-consent=v1; Path=/; HttpOnly; SameSite=Strict; Max-Age=600; Secure"
        );
        assert_eq!(
            https.set("session", "s", 0, SameSite::Lax),
            "__Host-session=s; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure"
        );
        let local = Jar::of("http://127.0.0.1:8787");
        assert_eq!(local.name("consent"), "consent");
        assert_eq!(local.proof("consent", "v1", 600), "consent=v1; Path=/; HttpOnly; SameSite=Strict; Max-Age=600");
    }

    #[test]
    fn a_form_matches_only_its_own_cookie() {
        let header = Some("theme=dark; __Host-consent=abc; other=x");
        assert_eq!(cookie_value(header, "__Host-consent").as_deref(), Some("abc"));
        assert!(matches(header, "__Host-consent", "abc"));
        assert!(!matches(header, "__Host-consent", "abd"));
        assert!(!matches(header, "__Host-consent", ""));
        assert!(!matches(header, "consent", "abc"), "the name must match whole");
        assert!(!matches(None, "consent", "abc"));
        assert_eq!(token(&[0; 32]).len(), 43);
    }

    #[test]
    fn posts_from_another_site_are_refused() {
        let own = "https://rt.example";
        assert!(same_origin(Some(own), Some("same-origin"), own));
        assert!(same_origin(None, None, own));
        assert!(same_origin(None, Some("none"), own));
        assert!(!same_origin(Some("https://evil.example"), None, own));
        assert!(!same_origin(None, Some("cross-site"), own));
        assert!(!same_origin(Some(own), Some("same-site"), own));
    }
}
