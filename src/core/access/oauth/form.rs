//! `application/x-www-form-urlencoded`: how token requests arrive and how authorization queries
//! and redirects are written. Decoding refuses what it cannot read rather than guessing.

use super::error::OAuthError;

/// The pairs of a form body or a query string, in order, with empty values dropped: RFC 6749
/// §3.1 says a parameter sent without a value is treated as omitted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Form {
    pairs: Vec<(String, String)>,
}

impl Form {
    pub fn parse(text: &str) -> Result<Form, OAuthError> {
        let mut pairs = Vec::new();
        for piece in text.split('&').filter(|p| !p.is_empty()) {
            let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
            let (name, value) = (decode(name)?, decode(value)?);
            if !value.is_empty() {
                pairs.push((name, value));
            }
        }
        Ok(Form { pairs })
    }

    /// The one value of a parameter; RFC 6749 §3.1 forbids sending one twice.
    pub fn one(&self, name: &str) -> Result<Option<&str>, OAuthError> {
        let mut values = self.pairs.iter().filter(|(n, _)| n == name).map(|(_, v)| v.as_str());
        match (values.next(), values.next()) {
            (Some(_), Some(_)) => {
                Err(OAuthError::invalid_request(format!("The parameter {name} is given more than once.")))
            }
            (one, None) => Ok(one),
            (None, Some(_)) => Ok(None),
        }
    }

    /// Every value of a parameter, in order: a page's boxes of one name that are ticked.
    pub fn all<'f>(&'f self, name: &'f str) -> impl Iterator<Item = &'f str> + 'f {
        self.pairs.iter().filter(move |(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// One name or value: `+` is a space, `%XX` a byte, and the bytes must be UTF-8.
pub fn decode(text: &str) -> Result<String, OAuthError> {
    let bad = || OAuthError::invalid_request("The request has a bad percent-encoding.");
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'+' => out.push(b' '),
            b'%' => {
                let hi = bytes.get(i + 1).and_then(|h| hex(*h)).ok_or_else(bad)?;
                let lo = bytes.get(i + 2).and_then(|l| hex(*l)).ok_or_else(bad)?;
                out.push(hi << 4 | lo);
                i += 2;
            }
            _ => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| bad())
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Percent-encodes all but RFC 3986's unreserved characters, so the result is safe anywhere in a
/// query, whichever decoder reads it.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `name=value&…`, each part encoded.
pub fn encode_pairs(pairs: &[(&str, &str)]) -> String {
    let parts: Vec<String> = pairs.iter().map(|(n, v)| format!("{}={}", encode(n), encode(v))).collect();
    parts.join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_plus_and_percent() {
        assert_eq!(decode("a+b%20c%2Bd%C3%A9").unwrap(), "a b c+dé");
        for bad in ["%", "%2", "%zz", "%C3"] {
            assert!(decode(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn forms_drop_empty_values_and_refuse_twice() {
        let form = Form::parse("grant_type=refresh_token&scope=&&x&code=a&code=b").unwrap();
        assert_eq!(form.one("grant_type").unwrap(), Some("refresh_token"));
        assert_eq!(form.one("scope").unwrap(), None);
        assert_eq!(form.one("x").unwrap(), None);
        assert!(form.one("code").is_err());
        assert_eq!(form.all("code").collect::<Vec<_>>(), ["a", "b"]);
        assert!(Form::parse("a=%G0").is_err());
    }

    #[test]
    fn encoding_round_trips() {
        let text = "https://a.example/cb?x=1&y=é ~";
        assert_eq!(encode(text), "https%3A%2F%2Fa.example%2Fcb%3Fx%3D1%26y%3D%C3%A9%20~");
        assert_eq!(decode(&encode(text)).unwrap(), text);
        assert_eq!(encode_pairs(&[("code", "a b"), ("state", "&")]), "code=a%20b&state=%26");
    }
}
