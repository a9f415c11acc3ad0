//! `format` where the draft makes it an assertion (drafts 4 to 7): the formats those drafts
//! name, read as their RFCs write them. A format the drafts do not name constrains nothing.

pub fn fits(format: &str, text: &str) -> bool {
    match format {
        "date" => date(text),
        "time" => time(text),
        "date-time" => date_time(text),
        "email" => email(text, false),

        "hostname" => hostname(text, false),

        "ipv4" => ipv4(text),
        "ipv6" => ipv6(text),
        "uri" => uri(text, false) && scheme(text).is_some(),
        "iri" => uri(text, true) && scheme(text).is_some(),
        "uri-reference" => uri(text, false),
        "iri-reference" => uri(text, true),
        "uri-template" => uri_template(text),
        "json-pointer" => json_pointer(text),
        "relative-json-pointer" => relative_json_pointer(text),
        "regex" => regex_lite::Regex::new(text).is_ok(),
        _ => true,
    }
}

fn digits(text: &str, n: usize) -> Option<u32> {
    (text.len() == n && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok()).flatten()
}

/// `YYYY-MM-DD`, a day the month has (RFC 3339 full-date).
fn date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [y, m, d] = parts[..] else { return false };
    let (Some(year), Some(month), Some(day)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else { return false };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `HH:MM:SS[.frac]` and a zone, `Z` or `±HH:MM` (RFC 3339 full-time); a leap second is 23:59:60
/// in UTC.
fn time(text: &str) -> bool {
    let text = text.to_ascii_uppercase();
    let (clock, zone) = if let Some(clock) = text.strip_suffix('Z') {
        (clock, Some((0, 0)))
    } else {
        match text.rfind(['+', '-']) {
            Some(at) if text.len() - at == 6 => {
                let sign: i32 = if text.as_bytes()[at] == b'-' { -1 } else { 1 };
                let offset = &text[at + 1..];
                let (h, m) = offset.split_once(':').unwrap_or(("", ""));
                match (digits(h, 2), digits(m, 2)) {
                    (Some(h), Some(m)) if h < 24 && m < 60 => (&text[..at], Some((sign * h as i32, sign * m as i32))),
                    _ => return false,
                }
            }
            _ => return false,
        }
    };
    let Some((offset_h, offset_m)) = zone else { return false };
    let (whole, fraction) = match clock.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (clock, None),
    };
    if fraction.is_some_and(|f| f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let parts: Vec<&str> = whole.split(':').collect();
    let [h, m, s] = parts[..] else { return false };
    let (Some(h), Some(m), Some(s)) = (digits(h, 2), digits(m, 2), digits(s, 2)) else { return false };
    if h > 23 || m > 59 || s > 60 {
        return false;
    }
    if s == 60 {
        let utc = (h as i32 * 60 + m as i32 - offset_h * 60 - offset_m).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

fn date_time(text: &str) -> bool {
    match text.find(['T', 't']) {
        Some(at) => date(&text[..at]) && time(&text[at + 1..]),
        None => false,
    }
}

/// A local part and a domain (RFC 5321, as far as a form needs): no spaces, one `@`, a domain
/// that is a hostname or an address in brackets.
fn email(text: &str, international: bool) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else { return false };
    let local_fits = if let Some(quoted) = local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        !quoted.is_empty()
    } else {
        !local.is_empty()
            && !local.starts_with('.')
            && !local.ends_with('.')
            && !local.contains("..")
            && local.chars().all(|c| {
                c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c) || (international && !c.is_ascii())
            })
    };
    let domain_fits = match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(address) => match address.strip_prefix("IPv6:") {
            Some(v6) => ipv6(v6),
            None => ipv4(address),
        },
        None => hostname(domain, international),
    };
    local_fits && domain_fits
}

/// Labels of letters, digits and inner hyphens, each at most 63 characters, at most 253 in all.
fn hostname(text: &str, international: bool) -> bool {
    !text.is_empty()
        && text.len() <= 253
        && text.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || (international && c.is_alphanumeric()))
        })
}

/// Four decimal numbers up to 255, without leading zeros.
fn ipv4(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && !(p.len() > 1 && p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

fn ipv6(text: &str) -> bool {
    text.parse::<std::net::Ipv6Addr>().is_ok()
}

fn scheme(text: &str) -> Option<&str> {
    let (scheme, _) = text.split_once(':')?;
    let mut chars = scheme.chars();
    (chars.next()?.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then_some(scheme)
}

/// The characters RFC 3986 allows in a URI reference, each `%` followed by two hex digits.
fn uri(text: &str, international: bool) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            if !bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                || !bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
            {
                return false;
            }
            i += 3;
            continue;
        }
        let fits = b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&b) || (international && b >= 0x80);
        if !fits {
            return false;
        }
        i += 1;
    }
    // The part after `//` up to the path names a host, which holds no brackets but an IPv6 one.
    match text.split_once("//") {
        Some((before, after)) if before.is_empty() || before.ends_with(':') => {
            let authority = after.split(['/', '?', '#']).next().unwrap_or_default();
            let host = authority.rsplit('@').next().unwrap_or_default();
            !host.contains('[') || host.starts_with('[')
        }
        _ => true,
    }
}

/// Braces that close, with no brace inside another.
fn uri_template(text: &str) -> bool {
    let mut open = false;
    for c in text.chars() {
        match c {
            '{' if open => return false,
            '{' => open = true,
            '}' if !open => return false,
            '}' => open = false,
            _ => {}
        }
    }
    !open && uri(&text.replace(['{', '}'], ""), true)
}

/// Empty, or `/`-led segments in which `~` is followed by `0` or `1`.
fn json_pointer(text: &str) -> bool {
    (text.is_empty() || text.starts_with('/')) && escapes_fit(text)
}

fn escapes_fit(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().all(|(i, b)| *b != b'~' || matches!(bytes.get(i + 1), Some(b'0' | b'1')))
}

/// A number of levels up, then `#` or a JSON pointer.
fn relative_json_pointer(text: &str) -> bool {
    let end = text.bytes().position(|b| !b.is_ascii_digit()).unwrap_or(text.len());
    let (number, rest) = text.split_at(end);
    !(number.is_empty() || number.len() > 1 && number.starts_with('0')) && (rest == "#" || json_pointer(rest))
}
