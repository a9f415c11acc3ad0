//! Just enough of RFC 3986 to judge redirect URIs and client metadata URLs. It refuses anything a
//! browser's or fetch's URL parser might read differently (spaces, backslashes, odd hosts), so
//! what it approves is what they will use.

use std::net::{Ipv4Addr, Ipv6Addr};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url<'a> {
    /// Lowercased.
    pub scheme: String,
    pub authority: Option<Authority>,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub fragment: Option<&'a str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authority {
    /// Whether a `user:password@` part is present; never wanted here.
    pub userinfo: bool,
    pub host: Host,
    pub port: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    /// A lowercased name without its trailing dot.
    Name(String),
    V4(Ipv4Addr),
    V6(Ipv6Addr),
}

impl Host {
    /// The three loopback hosts RFC 8252 §7.3 lets a native app listen on.
    pub fn is_loopback(&self) -> bool {
        match self {
            Host::Name(name) => name == "localhost",
            Host::V4(ip) => *ip == Ipv4Addr::LOCALHOST,
            Host::V6(ip) => *ip == Ipv6Addr::LOCALHOST,
        }
    }

    /// A host a fetch may reach from the runtime without touching anything private.
    pub fn is_public(&self) -> bool {
        match self {
            Host::Name(name) => {
                let local = ["localhost", "local", "internal", "home.arpa"]
                    .iter()
                    .any(|suffix| name == suffix || name.ends_with(&format!(".{suffix}")));
                name.contains('.') && !local
            }
            Host::V4(ip) => is_public_v4(*ip),
            Host::V6(ip) => match ip.to_ipv4_mapped() {
                Some(v4) => is_public_v4(v4),
                None => is_public_v6(*ip),
            },
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    let shared = a == 100 && (64..128).contains(&b); // 100.64/10, carrier-grade NAT
    !(ip.is_private() || ip.is_loopback() || ip.is_link_local() || a == 0 || shared || a >= 224)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let [first, ..] = ip.segments();
    let embeds_v4 = ip.segments()[..6].iter().all(|s| *s == 0); // ::, ::1 and ::a.b.c.d
    let unique_local = first & 0xfe00 == 0xfc00; // fc00::/7
    let link_local = first & 0xffc0 == 0xfe80; // fe80::/10
    let site_local = first & 0xffc0 == 0xfec0; // fec0::/10, deprecated but still routed by some
    let multicast = first & 0xff00 == 0xff00;
    !(embeds_v4 || unique_local || link_local || site_local || multicast)
}

/// Parses an absolute URI, or refuses it.
pub fn parse(text: &str) -> Option<Url<'_>> {
    if !text.bytes().all(allowed) {
        return None;
    }
    let (scheme, rest) = text.split_once(':')?;
    let mut chars = scheme.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    let (rest, fragment) = split(rest, '#');
    let (rest, query) = split(rest, '?');
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(authority(&after[..end])?), &after[end..])
        }
        None => (None, rest),
    };
    Some(Url { scheme: scheme.to_ascii_lowercase(), authority, path, query, fragment })
}

fn split(text: &str, at: char) -> (&str, Option<&str>) {
    match text.split_once(at) {
        Some((before, after)) => (before, Some(after)),
        None => (text, None),
    }
}

/// RFC 3986's unreserved, reserved and `%` characters; no spaces, controls, `\` or non-ASCII.
fn allowed(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=%".contains(&b)
}

fn authority(text: &str) -> Option<Authority> {
    let (userinfo, hostport) = match text.rsplit_once('@') {
        Some((_, hostport)) => (true, hostport),
        None => (false, text),
    };
    let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
        let (inside, after) = v6.split_once(']')?;
        let port = match after {
            "" => "",
            _ => after.strip_prefix(':')?,
        };
        (Host::V6(inside.parse().ok()?), port)
    } else {
        let (name, port) = hostport.rsplit_once(':').unwrap_or((hostport, ""));
        (host_name(name)?, port)
    };
    let port = match port {
        "" => None,
        digits if digits.bytes().all(|b| b.is_ascii_digit()) => Some(digits.parse().ok()?),
        _ => return None,
    };
    Some(Authority { userinfo, host, port })
}

/// A name of letters, digits, `-`, `_` and `.`; one whose last label looks numeric must be a plain
/// dotted IPv4 address, because URL parsers read `2130706433` or `0x7f.1` as one.
fn host_name(text: &str) -> Option<Host> {
    let name = text.strip_suffix('.').unwrap_or(text).to_ascii_lowercase();
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')) {
        return None;
    }
    let last = name.rsplit('.').next().unwrap_or("");
    let numeric = !last.is_empty() && (last.bytes().all(|b| b.is_ascii_digit()) || last.starts_with("0x"));
    if numeric {
        return name.parse().ok().map(Host::V4);
    }
    Some(Host::Name(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts() {
        let url = parse("HTTPS://User@Example.COM.:8443/a/b?x=1#frag").unwrap();
        assert_eq!(url.scheme, "https");
        let auth = url.authority.unwrap();
        assert!(auth.userinfo);
        assert_eq!(auth.host, Host::Name("example.com".into()));
        assert_eq!(auth.port, Some(8443));
        assert_eq!((url.path, url.query, url.fragment), ("/a/b", Some("x=1"), Some("frag")));
        let app = parse("com.example.app:/cb").unwrap();
        assert_eq!((app.scheme.as_str(), app.authority, app.path), ("com.example.app", None, "/cb"));
    }

    #[test]
    fn hosts() {
        let host = |s: &str| parse(s).and_then(|u| u.authority).map(|a| a.host);
        assert_eq!(host("http://127.0.0.1:9/"), Some(Host::V4(Ipv4Addr::LOCALHOST)));
        assert_eq!(host("http://[::1]:9/"), Some(Host::V6(Ipv6Addr::LOCALHOST)));
        assert!(host("http://[::1]:9/").unwrap().is_loopback() && host("http://localhost/").unwrap().is_loopback());
        for odd in [
            "http://2130706433/",
            "http://0x7f.1/",
            "http://127.1/",
            "http://010.0.0.1/",
            "http://[::1/",
            "http://a:b/",
        ] {
            assert_eq!(host(odd), None, "{odd}");
        }
        for refused in ["https://a.example/\\b", "https://a.example/ b", "https://é.example/", "no-colon", "1a:/x"] {
            assert_eq!(parse(refused), None, "{refused}");
        }
    }
}
