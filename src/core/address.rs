//! A request's address as the platform hands it over: a URL it has already parsed and written
//! out by the WHATWG rules, so each part sits where that writing puts it and is found by
//! splitting, not by parsing again (the url crate's parse was 2.6% of a `get_playbook`'s time in
//! the Worker, docs/performance.md). The origin and the host decide who may call (a browser's Origin, local
//! mode on loopback), so the tests hold every part to the url crate's reading of the same text.

/// The parts of an `http` or `https` address the routes read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    /// `scheme://host[:port]`, the default port left out, as an origin is written.
    pub origin: String,
    /// The host as written in the address: a name, an IPv4 address, or an IPv6 one in brackets.
    pub host: String,
    pub path: String,
    pub query: Option<String>,
}

impl Address {
    /// The parts of an address written out by the WHATWG rules; none for one that is not `http`
    /// or `https` with a host, which the caller reads with a full parse instead.
    pub fn of(text: &str) -> Option<Address> {
        let (scheme, rest) = text.split_once("://")?;
        if scheme != "http" && scheme != "https" {
            return None;
        }
        let rest = rest.split_once('#').map_or(rest, |(before, _)| before);
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, after) = rest.split_at(authority_end);
        // A user and password come before the last `@`; the origin has neither.
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = match host_port.strip_prefix('[') {
            Some(v6) => &host_port[..v6.find(']')? + 2],
            None => host_port.split_once(':').map_or(host_port, |(h, _)| h),
        };
        let port = &host_port[host.len()..];
        if host.is_empty() || !(port.is_empty() || port.starts_with(':')) {
            return None;
        }
        let (path, query) = match after.split_once('?') {
            Some((path, query)) => (path, Some(query.to_string())),
            None => (after, None),
        };
        Some(Address {
            origin: format!("{scheme}://{host}{port}"),
            host: host.to_string(),
            path: if path.is_empty() { "/".to_string() } else { path.to_string() },
            query,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Address;

    /// Each address as the platform would hand it over (the url crate's writing of it), split here
    /// and read by the url crate: the same origin, host, path and query.
    #[test]
    fn every_part_is_what_the_url_crates_parse_reads() {
        let written = [
            "http://127.0.0.1:8787/mcp",
            "http://LOCALHOST:8787/mcp/playbooks/pb_1",
            "http://[::1]:8787/v1/orgs/acme/playbooks?limit=2#top",
            "http://[0:0:0:0:0:0:0:1]/mcp",
            "https://ada:secret@runtime.example.com/mcp?x=1",
            "https://user@127.0.0.1/mcp",
            "http://127.1/mcp",
            "http://0x7f.0.0.1:80/mcp",
            "https://runtime.example.com:443/v1/orgs/acme",
            "https://runtime.example.com:8443/a%20b/c?q=%3F&r=/s",
            "http://runtime.example.com?only=query",
            "http://runtime.example.com#only-fragment",
            "http://runtime.example.com/?",
            "http://runtime.example.com/path/../v1/./orgs",
            "https://xn--bcher-kva.example/mcp",
            "http://a.b/p?q#f?g",
            "http://a.b/p#f/g?h",
        ];
        for text in written {
            let url = url::Url::parse(text).unwrap();
            let platform = url.to_string();
            let split = Address::of(&platform).unwrap_or_else(|| panic!("{platform} was not split"));
            assert_eq!(split.origin, url.origin().ascii_serialization(), "origin of {platform}");
            assert_eq!(split.host, url.host_str().unwrap_or_default(), "host of {platform}");
            assert_eq!(split.path, url.path(), "path of {platform}");
            assert_eq!(split.query.as_deref(), url.query(), "query of {platform}");
        }
    }

    /// What is not an `http` address with a host is left to a full parse.
    #[test]
    fn another_scheme_or_no_host_is_not_split() {
        for text in
            ["file:///etc/passwd", "ws://127.0.0.1/", "mailto:ada@example.com", "/mcp", "http://", "http://[::1/"]
        {
            assert_eq!(Address::of(text), None, "{text}");
        }
    }
}
