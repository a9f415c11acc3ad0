//! Templates are untrusted code: strict about undefined names, bounded by fuel and recursion.

use minijinja::{Environment, UndefinedBehavior};

/// The instructions one render may spend, so a template cannot loop for ever.
pub const FUEL: u64 = 200_000;

pub fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_fuel(Some(FUEL));
    env.set_recursion_limit(50);
    env
}

/// Where a `{% name %}…{% endname %}` block sits in `text`: (whole block, inside).
pub fn find_block(text: &str, name: &str) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let open = find_tag(text, name, 0)?;
    let close = find_tag(text, &format!("end{name}"), open.end)?;
    Some((open.start..close.end, open.end..close.start))
}

/// Finds `{% name %}`, allowing `{%-`, `-%}` and spaces, from `from` on.
fn find_tag(text: &str, name: &str, from: usize) -> Option<std::ops::Range<usize>> {
    let mut at = from;
    while let Some(rel) = text.get(at..)?.find("{%") {
        let start = at + rel;
        let end = start + text[start..].find("%}")? + 2;
        let inner = text[start + 2..end - 2].trim_matches(|c: char| c == '-' || c == '+' || c.is_whitespace());
        if inner == name {
            return Some(start..end);
        }
        at = start + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_system_block() {
        let body = "{% system %}Be brief.{%- endsystem %}\nFile: {{ input.file }}";
        let (whole, inside) = find_block(body, "system").unwrap();
        assert_eq!(&body[inside], "Be brief.");
        assert_eq!(&body[whole.end..], "\nFile: {{ input.file }}");
        assert!(find_block("no block", "system").is_none());
    }

    #[test]
    fn strict_and_bounded() {
        let env = environment();
        let t = env.template_from_str("{{ nope.x }}").unwrap();
        assert!(t.render(minijinja::context! {}).is_err());
        let t = env
            .template_from_str("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
            .unwrap();
        assert!(t.render(minijinja::context! {}).is_err(), "fuel stops a runaway loop");
    }
}
