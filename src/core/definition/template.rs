//! Templates are untrusted code: strict about undefined names, bounded by fuel and recursion.

use std::io;

use minijinja::value::{Kwargs, StringInput, Value};
use minijinja::{filters, Environment, Error, ErrorKind, UndefinedBehavior};

/// The instructions one render may spend, so a template cannot loop for ever.
pub const FUEL: u64 = 200_000;

/// The most bytes one render writes: more than any model reads in one prompt. Fuel counts
/// instructions, not bytes, and one instruction may write the whole input: a loop over the
/// input's items writing the input each time grew as its square.
pub const WRITTEN_MAX: usize = 4 << 20;

/// The widest indent `indent` and `tojson` take: the builtins repeat a space that many times
/// whatever the width, so `'a'|indent(18446744073709551615)` panicked and fuel never saw it.
pub const INDENT_MAX: usize = 16;

pub fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_fuel(Some(FUEL));
    env.set_recursion_limit(50);
    env.add_filter("indent", indent);
    env.add_filter("tojson", tojson);
    env
}

/// Why the engine must not run `text`, where it must not: it panics (ending the isolate) on a
/// `{% break %}` or `{% continue %}` inside a `{% with %}` block. Every tag the engine reads starts
/// `{%`, so looking at each `{%` wherever it stands (in a string or a comment too) misses none: a
/// template that names `with` and a loop control anywhere is refused, which refuses the rare safe
/// one too, rather than trusting a reading of which tag is inside which.
pub fn refusal(text: &str) -> Option<&'static str> {
    let mut with = false;
    let mut control = false;
    for (at, _) in text.match_indices("{%") {
        let rest = text[at + 2..].trim_start_matches(['-', '+']).trim_start();
        let name = rest.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').next().unwrap_or("");
        with |= name == "with";
        control |= name == "break" || name == "continue";
    }
    (with && control).then_some(
        "uses {% with %} and {% break %} or {% continue %} together, which the engine cannot run: write {% set %} in place of the with block",
    )
}

/// `text` rendered over `ctx`, as `Environment::render_str` but refused past `WRITTEN_MAX` bytes,
/// and refused where `refusal` says.
pub fn render(env: &Environment<'_>, text: &str, ctx: impl serde::Serialize) -> Result<String, Error> {
    if let Some(why) = refusal(text) {
        return Err(Error::new(ErrorKind::InvalidOperation, format!("the template {why}")));
    }
    let mut out = Capped { bytes: Vec::new(), over: false };
    match env.template_from_str(text)?.render_captured_to(ctx, &mut out) {
        Ok(_) => {
            Ok(String::from_utf8(out.bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
        }
        Err(_) if out.over => {
            Err(Error::new(ErrorKind::InvalidOperation, format!("the template writes more than {WRITTEN_MAX} bytes")))
        }
        Err(e) => Err(e),
    }
}

/// What a render writes, up to `WRITTEN_MAX`; the engine writes whole strings, so what is kept
/// stays UTF-8.
struct Capped {
    bytes: Vec<u8>,
    over: bool,
}

impl io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bytes.len() + buf.len() > WRITTEN_MAX {
            self.over = true;
            return Err(io::Error::other("written too much"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn too_wide(width: Option<usize>) -> Result<(), Error> {
    match width {
        Some(w) if w > INDENT_MAX => {
            Err(Error::new(ErrorKind::InvalidOperation, format!("an indent is at most {INDENT_MAX} spaces")))
        }
        _ => Ok(()),
    }
}

fn indent(
    value: StringInput<'_>,
    width: Option<usize>,
    first: Option<bool>,
    blank: Option<bool>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    too_wide(width)?;
    too_wide(kwargs.get("width")?)?;
    filters::indent(value, width, first, blank, kwargs)
}

fn tojson(value: &Value, indent: Option<Value>, kwargs: Kwargs) -> Result<Value, Error> {
    let given: Option<Value> = kwargs.get("indent")?;
    // `true` means 2; what is not a whole number is the builtin's to refuse.
    for width in indent.iter().chain(&given).filter(|w| w.is_number()) {
        too_wide(usize::try_from(width.clone()).ok())?;
    }
    filters::tojson(value, indent, kwargs)
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
        for wide in [
            "{{ 'a'|indent(18446744073709551615) }}",
            "{{ 'a'|indent(width=65) }}",
            "{{ [1]|tojson(indent=99999999) }}",
        ] {
            assert!(env.render_str(wide, minijinja::context! {}).is_err(), "{wide}");
        }
        let kept = render(&env, "{{ 'a\nb'|indent(2) }} {{ {'k': 1}|tojson(indent=true) }}", minijinja::context! {});
        assert_eq!(kept.unwrap(), "a\n  b {\n  \"k\": 1\n}");
        // Each of 30,000 items writes the whole input: 30,000 times 300 KB.
        let square = render(
            &env,
            "{% for x in input %}{{ input|tojson }}{% endfor %}",
            minijinja::context! {
                input => vec!["ten chars"; 30_000],
            },
        );
        assert!(square.unwrap_err().to_string().contains("writes more than"));
        // The engine panics on a loop control inside a with block; such a template never reaches it.
        for broken in [
            "{% for i in range(2) %}{% with x = 1 %}{% break %}{% endwith %}{% endfor %}",
            "{% for i in range(2) %}{%- with x = 1 -%}{%+ continue %}{% endwith %}{% endfor %}",
            "{% for i in range(2) %}{% with x = 1 %}{{ '{% endwith %}' }}{% break %}{% endwith %}{% endfor %}",
        ] {
            assert!(refusal(broken).is_some(), "{broken}");
            assert!(render(&env, broken, minijinja::context! {}).unwrap_err().to_string().contains("{% set %}"));
        }
        let loops = "{% for i in range(3) %}{% if i == 1 %}{% break %}{% endif %}{{ i }}{% endfor %}";
        assert_eq!((refusal(loops), render(&env, loops, minijinja::context! {}).unwrap()), (None, "0".to_string()));
        assert_eq!(refusal("{% with x = 1 %}{{ x }}{% endwith %}"), None);
    }
}
