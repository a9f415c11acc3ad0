//! `application/x-www-form-urlencoded`: how token requests arrive and how authorization queries
//! and redirects are written, by the form_urlencoded crate. Decoding refuses what it cannot read
//! rather than guessing, where that crate alone would read such text as it stands.

use super::error::OAuthError;

/// The pairs of a form body or a query string, in order, with empty values dropped: RFC 6749
/// §3.1 says a parameter sent without a value is treated as omitted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Form {
    pairs: Vec<(String, String)>,
}

impl Form {
    pub fn parse(text: &str) -> Result<Form, OAuthError> {
        let mut kept = Vec::new();
        for pair in pairs(text) {
            let (name, value) = pair.ok_or_else(bad_encoding)?;
            if !value.is_empty() {
                kept.push((name, value));
            }
        }
        Ok(Form { pairs: kept })
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

fn bad_encoding() -> OAuthError {
    OAuthError::invalid_request("The request has a bad percent-encoding.")
}

/// Every `name=value` of a form or query, in order, empty values kept: `+` is a space, `%XX` a
/// byte. `None` stands for a pair that is not readable.
pub fn pairs(text: &str) -> impl Iterator<Item = Option<(String, String)>> + '_ {
    text.split('&').filter(|piece| !piece.is_empty()).map(|piece| {
        let (name, value) = form_urlencoded::parse(piece.as_bytes()).next()?;
        readable(piece, &[&name, &value]).then(|| (name.into_owned(), value.into_owned()))
    })
}

/// One name or value, refused unless readable.
pub fn decode(text: &str) -> Result<String, OAuthError> {
    // Escaped, the separators stay in the one name.
    let piece = text.replace('&', "%26").replace('=', "%3D");
    let first = pairs(&piece).next();
    match first {
        None => Ok(String::new()),
        Some(pair) => pair.map(|(name, _)| name).ok_or_else(bad_encoding),
    }
}

/// A segment of a path, where `+` is itself and only `%XX` is a byte.
pub fn decode_segment(text: &str) -> Option<String> {
    decode(&text.replace('+', "%2B")).ok()
}

/// form_urlencoded reads what it cannot decode as it stands: a `%` without two hex digits after
/// it as itself, bytes that are not UTF-8 as U+FFFD. Both are refused here instead: `raw` is
/// readable when its escapes are whole and its decoding made no U+FFFD that `raw` did not spell.
fn readable(raw: &str, decoded: &[&str]) -> bool {
    let whole = |after: &str| after.get(..2).is_some_and(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()));
    let replacement = '\u{FFFD}';
    let spelled = raw.matches(replacement).count() + raw.to_ascii_uppercase().matches("%EF%BF%BD").count();
    let made: usize = decoded.iter().map(|d| d.matches(replacement).count()).sum();
    raw.split('%').skip(1).all(whole) && made == spelled
}

/// Percent-encodes all but RFC 3986's unreserved characters (and `*`), so the result is safe
/// anywhere in a query, whichever decoder reads it: the form serializer's `+` for a space is
/// written `%20`, which no decoder reads as a plus.
pub fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes())
        .map(|chunk| match chunk {
            "+" => "%20",
            "%7E" => "~",
            other => other,
        })
        .collect()
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
    fn refuses_what_the_crate_would_read_as_it_stands() {
        for bad in ["a=%", "a=%2", "%zz=1", "a=%C3", "a=%FF%FE", "a=%E9t%C3%A9", "a=%C3=%A9", "a=%+1"] {
            assert!(Form::parse(bad).is_err(), "{bad}");
        }
        // A replacement character the text spells is read as one.
        assert_eq!(decode("%EF%BF%BD\u{FFFD}%ef%bf%bd").unwrap(), "\u{FFFD}".repeat(3));
        assert_eq!(decode("a=b&c").unwrap(), "a=b&c");
        assert_eq!(decode("").unwrap(), "");
        assert_eq!(decode_segment("a+b%20c").as_deref(), Some("a+b c"));
        assert_eq!(decode_segment("%zz"), None);
        let kept: Vec<_> = pairs("a=&b=x%2").collect();
        assert_eq!(kept, [Some(("a".into(), String::new())), None]);
    }

    #[test]
    fn encoding_round_trips() {
        let text = "https://a.example/cb?x=1&y=é ~";
        assert_eq!(encode(text), "https%3A%2F%2Fa.example%2Fcb%3Fx%3D1%26y%3D%C3%A9%20~");
        assert_eq!(decode(&encode(text)).unwrap(), text);
        assert_eq!(encode_pairs(&[("code", "a b"), ("state", "&")]), "code=a%20b&state=%26");
        assert_eq!(encode("a+b*"), "a%2Bb*");
    }
}
