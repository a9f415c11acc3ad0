//! The pattern a key matches, as a service's documentation states it: a regular expression from
//! `^` to `$` of characters and character classes, each repeated, with no group, alternative,
//! lookaround or back reference. So small a shape is read and matched here, in linear time, with
//! no engine that a hostile pattern could make slow.

/// The longest pattern taken.
pub const PATTERN_MAX: usize = 500;
/// The most one atom may repeat.
const REPEAT_MAX: usize = 1000;

#[derive(Debug, Clone, PartialEq)]
enum Set {
    Char(char),
    Any,
    /// Ranges, inclusive, and whether the class is negated.
    Class(Vec<(char, char)>, bool),
}

impl Set {
    fn holds(&self, c: char) -> bool {
        match self {
            Set::Char(x) => *x == c,
            Set::Any => c != '\n',
            Set::Class(ranges, negated) => ranges.iter().any(|(a, b)| (*a..=*b).contains(&c)) != *negated,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Atom {
    set: Set,
    min: usize,
    max: usize,
}

/// A pattern read: its atoms in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern(Vec<Atom>);

const DIGITS: &[(char, char)] = &[('0', '9')];
const WORD: &[(char, char)] = &[('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')];
const SPACE: &[(char, char)] = &[(' ', ' '), ('\t', '\r')];

/// Reads a pattern, or says in words what of its shape it breaks.
pub fn read(text: &str) -> Result<Pattern, String> {
    if text.len() > PATTERN_MAX {
        return Err(format!("holds {} characters, over the {PATTERN_MAX} it may", text.len()));
    }
    let inner = text
        .strip_prefix('^')
        .and_then(|t| t.strip_suffix('$'))
        .ok_or("must run from ^ to $, as a whole key matches it")?;
    let chars: Vec<char> = inner.chars().collect();
    let mut atoms = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (set, next) = match chars[i] {
            '(' | ')' => return Err("holds a group, which the pattern of a key may not".into()),
            '|' => return Err("holds an alternative, which the pattern of a key may not".into()),
            '[' => class(&chars, i + 1)?,
            '\\' => (escaped(chars.get(i + 1).copied())?, i + 2),
            '.' => (Set::Any, i + 1),
            '^' | '$' => return Err("holds ^ or $ inside, where they may only begin and end it".into()),
            '*' | '+' | '?' | '{' | '}' | ']' => {
                return Err(format!("holds {} where a character or a class is expected", chars[i]))
            }
            c => (Set::Char(c), i + 1),
        };
        let (min, max, after) = repeat(&chars, next)?;
        atoms.push(Atom { set, min, max });
        i = after;
    }
    if atoms.is_empty() {
        return Err("matches only an empty key".into());
    }
    Ok(Pattern(atoms))
}

fn escaped(c: Option<char>) -> Result<Set, String> {
    match c {
        Some('d') => Ok(Set::Class(DIGITS.to_vec(), false)),
        Some('D') => Ok(Set::Class(DIGITS.to_vec(), true)),
        Some('w') => Ok(Set::Class(WORD.to_vec(), false)),
        Some('W') => Ok(Set::Class(WORD.to_vec(), true)),
        Some('s') => Ok(Set::Class(SPACE.to_vec(), false)),
        Some('S') => Ok(Set::Class(SPACE.to_vec(), true)),
        Some(c) if c.is_ascii_digit() || c == 'k' => {
            Err("holds a back reference, which the pattern of a key may not".into())
        }
        Some(c) if c.is_ascii_punctuation() => Ok(Set::Char(c)),
        Some(c) => Err(format!("holds \\{c}, which is not an escape the pattern of a key takes")),
        None => Err("ends with a lone \\".into()),
    }
}

/// A class from just after its `[` to its `]`: the set and where reading goes on.
fn class(chars: &[char], mut i: usize) -> Result<(Set, usize), String> {
    let negated = chars.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let one = |i: usize| -> Result<(char, usize), String> {
        match chars.get(i) {
            Some('\\') => match chars.get(i + 1) {
                Some(c) if c.is_ascii_punctuation() => Ok((*c, i + 2)),
                _ => Err("holds an escape inside a class that is not of a sign".into()),
            },
            Some('[') => Err("holds [ inside a class".into()),
            Some(c) => Ok((*c, i + 1)),
            None => Err("opens a class with [ that no ] closes".into()),
        }
    };
    while chars.get(i) != Some(&']') {
        if chars.get(i) == Some(&'\\') {
            if let Some(Set::Class(more, false)) =
                chars.get(i + 1).and_then(|c| "dws".contains(*c).then(|| escaped(Some(*c)).ok()).flatten())
            {
                ranges.extend(more);
                i += 2;
                continue;
            }
        }
        let (first, next) = one(i)?;
        if chars.get(next) == Some(&'-') && chars.get(next + 1).is_some_and(|c| *c != ']') {
            let (last, after) = one(next + 1)?;
            if last < first {
                return Err(format!("holds the range {first}-{last}, which runs backwards"));
            }
            ranges.push((first, last));
            i = after;
        } else {
            ranges.push((first, first));
            i = next;
        }
    }
    if ranges.is_empty() {
        return Err("holds an empty class []".into());
    }
    Ok((Set::Class(ranges, negated), i + 1))
}

/// The repetition after an atom, if any: its least, its most, and where reading goes on.
fn repeat(chars: &[char], i: usize) -> Result<(usize, usize, usize), String> {
    let (min, max, next) = match chars.get(i) {
        Some('*') => (0, REPEAT_MAX, i + 1),
        Some('+') => (1, REPEAT_MAX, i + 1),
        Some('?') => (0, 1, i + 1),
        Some('{') => {
            let close =
                chars[i..].iter().position(|c| *c == '}').ok_or("opens a repetition with { that no } closes")?;
            let inside: String = chars[i + 1..i + close].iter().collect();
            let number = |s: &str| s.trim().parse::<usize>().map_err(|_| format!("holds the repetition {{{inside}}}"));
            let (min, max) = match inside.split_once(',') {
                None => (number(&inside)?, number(&inside)?),
                Some((a, "")) => (number(a)?, REPEAT_MAX),
                Some((a, b)) => (number(a)?, number(b)?),
            };
            if min > max || max > REPEAT_MAX {
                return Err(format!("holds the repetition {{{inside}}}, where at most {REPEAT_MAX} and least first"));
            }
            (min, max, i + close + 1)
        }
        _ => return Ok((1, 1, i)),
    };
    if matches!(chars.get(next), Some('*' | '+' | '?' | '{')) {
        return Err("repeats a repetition, which the pattern of a key may not".into());
    }
    Ok((min, max, next))
}

impl Pattern {
    /// Whether the whole of `key` matches.
    pub fn matches(&self, key: &str) -> bool {
        let chars: Vec<char> = key.chars().collect();
        // The positions reachable after each atom, as a set of flags.
        let mut reach = vec![false; chars.len() + 1];
        reach[0] = true;
        for atom in &self.0 {
            let mut next = vec![false; chars.len() + 1];
            for start in (0..=chars.len()).filter(|p| reach[*p]) {
                let mut at = start;
                let mut n = 0;
                loop {
                    if n >= atom.min {
                        next[at] = true;
                    }
                    if n == atom.max || at == chars.len() || !atom.set.holds(chars[at]) {
                        break;
                    }
                    at += 1;
                    n += 1;
                }
            }
            reach = next;
        }
        reach[chars.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shape_of_a_pattern_is_read_and_matched() {
        let github = read("^github_pat_[A-Za-z0-9_]{82}$").unwrap();
        assert!(github.matches(&format!("github_pat_{}", "a".repeat(82))));
        assert!(!github.matches(&format!("github_pat_{}", "a".repeat(81))));
        let stripe = read("^[sr]k_(live|test)_[A-Za-z0-9]{24,}$");
        assert!(stripe.unwrap_err().contains("group"));
        let stripe = read("^[sr]k_live_[A-Za-z0-9]{24,99}$").unwrap();
        assert!(stripe.matches(&format!("rk_live_{}", "Z9".repeat(12))));
        assert!(!stripe.matches("sk_test_x"));
        assert!(read(r"^lin_api_\w+$").unwrap().matches("lin_api_abc_123"));
        assert!(read(r"^\d{4}-[^-]+\.x?$").unwrap().matches("2026-ab.x"));
    }

    #[test]
    fn what_the_shape_does_not_take_is_refused_in_words() {
        for (pattern, says) in [
            ("abc", "from ^ to $"),
            ("^a|b$", "alternative"),
            ("^(?=a)b$", "group"),
            (r"^(a)\1$", "group"),
            (r"^a\1$", "back reference"),
            ("^a**$", "repeats a repetition"),
            ("^[a-$", "no ] closes"),
            ("^[z-a]$", "backwards"),
            ("^a{3,1}$", "repetition"),
            ("^$", "empty"),
            ("^*a$", "where a character"),
        ] {
            let why = read(pattern).unwrap_err();
            assert!(why.contains(says), "{pattern}: {why}");
        }
        assert!(read(&format!("^{}$", "a".repeat(PATTERN_MAX))).is_err());
    }
}
