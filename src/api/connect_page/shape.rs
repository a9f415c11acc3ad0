//! A key's `pattern` said in words, as the shape the key should have: `^sk_live_[A-Za-z0-9]{24}$`
//! is "`sk_live_` then 24 letters or digits". The pattern is what the spec allows: characters and
//! character classes, each perhaps repeated, with no group, alternative, lookaround or back
//! reference. One this cannot read is shown as it is.

/// The shape in words, as HTML (escaped); none where the pattern is not of the allowed kind.
pub fn words(pattern: &str) -> Option<String> {
    let body = pattern.strip_prefix('^')?.strip_suffix('$')?;
    let mut parts: Vec<String> = Vec::new();
    let mut literal = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        let atom = match c {
            '\\' => match chars.next()? {
                'd' => Atom::Class("digits".into()),
                'w' => Atom::Class("letters, digits or underscores".into()),
                's' => return None,
                e if e.is_ascii_punctuation() => Atom::Char(e),
                _ => return None,
            },
            '[' => {
                // Each character of the class, and whether it was escaped, so `\-` is no range.
                let mut class: Vec<(char, bool)> = Vec::new();
                loop {
                    match chars.next()? {
                        ']' if !class.is_empty() => break,
                        '\\' => match chars.next()? {
                            'd' => class.extend([('0', false), ('-', false), ('9', false)]),
                            'w' => class.extend("A-Za-z0-9_".chars().map(|c| (c, false))),
                            e if e.is_ascii_punctuation() => class.push((e, true)),
                            _ => return None,
                        },
                        x => class.push((x, false)),
                    }
                }
                Atom::Class(class_words(&class)?)
            }
            '.' => Atom::Class("any characters".into()),
            '(' | ')' | '|' | '^' | '$' | '*' | '+' | '?' | '{' | '}' => return None,
            x => Atom::Char(x),
        };
        let count = quantifier(&mut chars)?;
        match (atom, count) {
            (Atom::Char(x), Count::Exactly(1)) => literal.push(x),
            (atom, count) => {
                if !literal.is_empty() {
                    parts.push(code(&std::mem::take(&mut literal)));
                }
                let what = match atom {
                    Atom::Char(x) => code(&x.to_string()),
                    Atom::Class(words) => words,
                };
                parts.push(count.say(&what));
            }
        }
    }
    if !literal.is_empty() {
        parts.push(code(&literal));
    }
    (!parts.is_empty()).then(|| parts.join(" then "))
}

enum Atom {
    Char(char),
    /// The characters of a class, in words.
    Class(String),
}

enum Count {
    Exactly(u32),
    Between(u32, u32),
    AtLeast(u32),
}

impl Count {
    fn say(&self, what: &str) -> String {
        match self {
            Count::Exactly(1) => format!("one of {what}"),
            Count::Exactly(n) => format!("{n} {what}"),
            Count::Between(0, 1) => format!("perhaps one of {what}"),
            Count::Between(a, b) => format!("{a} to {b} {what}"),
            Count::AtLeast(0) => format!("any number of {what}"),
            Count::AtLeast(1) => format!("one or more {what}"),
            Count::AtLeast(n) => format!("{n} or more {what}"),
        }
    }
}

fn quantifier(chars: &mut std::iter::Peekable<std::str::Chars>) -> Option<Count> {
    let count = match chars.peek() {
        Some('?') => Count::Between(0, 1),
        Some('*') => Count::AtLeast(0),
        Some('+') => Count::AtLeast(1),
        Some('{') => {
            chars.next();
            let mut inner = String::new();
            loop {
                match chars.next()? {
                    '}' => break,
                    x => inner.push(x),
                }
            }
            return match inner.split_once(',') {
                None => Some(Count::Exactly(inner.trim().parse().ok()?)),
                Some((a, "")) => Some(Count::AtLeast(a.trim().parse().ok()?)),
                Some((a, b)) => {
                    let (a, b) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                    (a <= b).then_some(if a == b { Count::Exactly(a) } else { Count::Between(a, b) })
                }
            };
        }
        _ => return Some(Count::Exactly(1)),
    };
    chars.next();
    Some(count)
}

/// A class's characters in words: its ranges named where they are the usual ones.
fn class_words(class: &[(char, bool)]) -> Option<String> {
    if class.first() == Some(&('^', false)) {
        return None;
    }
    let mut named: Vec<String> = Vec::new();
    let mut others = String::new();
    let mut i = 0;
    while let Some(&(c, _)) = class.get(i) {
        if let (Some(('-', false)), Some(&(end, _))) = (class.get(i + 1), class.get(i + 2)) {
            let range = match (c, end) {
                ('a', 'z') => "lowercase letters".to_string(),
                ('A', 'Z') => "uppercase letters".to_string(),
                ('0', '9') => "digits".to_string(),
                (a, b) => format!("{a}–{b}"),
            };
            if !named.contains(&range) {
                named.push(range);
            }
            i += 3;
            continue;
        }
        if !others.contains(c) {
            others.push(c);
        }
        i += 1;
    }
    let letters = ["lowercase letters", "uppercase letters"].iter().all(|l| named.iter().any(|n| n == l));
    if letters {
        named.retain(|n| !n.ends_with("case letters"));
        named.insert(0, "letters".into());
    }
    let mut words: Vec<String> = named.into_iter().map(|n| crate::api::sign_in_pages::escape(&n)).collect();
    if !others.is_empty() {
        let listed: Vec<String> = others.chars().map(|c| code(&c.to_string())).collect();
        words.push(listed.join(" "));
    }
    Some(match words.as_slice() {
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
        [] => return None,
    })
}

fn code(text: &str) -> String {
    format!("<code>{}</code>", crate::api::sign_in_pages::escape(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_key_shapes_in_words() {
        assert_eq!(
            words("^sk_live_[A-Za-z0-9]{24}$").as_deref(),
            Some("<code>sk_live_</code> then 24 letters or digits")
        );
        assert_eq!(
            words("^lin_api_[a-zA-Z0-9]{40}$").as_deref(),
            Some("<code>lin_api_</code> then 40 letters or digits")
        );
        assert_eq!(
            words("^xoxb-[0-9]+-[0-9A-Za-z-]{10,64}$").as_deref(),
            Some("<code>xoxb-</code> then one or more digits then <code>-</code> then 10 to 64 letters, digits or <code>-</code>")
        );
        assert_eq!(words("^[a-f0-9]{32}$").as_deref(), Some("32 a–f or digits"));
        assert_eq!(
            words("^\\d{6}\\.?\\w*$").as_deref(),
            Some("6 digits then perhaps one of <code>.</code> then any number of letters, digits or underscores")
        );
    }

    #[test]
    fn patterns_of_another_kind_are_not_said() {
        for p in ["sk_[a-z]+", "^(ab)+$", "^a|b$", "^[^a]+$", "^a{3$", "^a{5,2}$", "^$", "^\\s+$"] {
            assert_eq!(words(p), None, "{p}");
        }
        assert_eq!(words("^<b>$").as_deref(), Some("<code>&lt;b&gt;</code>"));
        assert_eq!(words("^[\\d.]{4}$").as_deref(), Some("4 digits or <code>.</code>"));
        assert_eq!(words("^[a\\-z]+$").as_deref(), Some("one or more <code>a</code> <code>-</code> <code>z</code>"));
    }
}
