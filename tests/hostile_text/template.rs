//! Templates: bodies built from the engine's own syntax, compiled, checked and rendered.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::Value;

use playbook_runtime::core::definition::template::{environment, render};

use crate::{bounded, cases};

// ---- Templates ----

fn template_leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z ,.\n]{0,20}",
        3 => select(vec![
            "{{ input }}", "{{ input.name }}", "{{ input.items|length }}", "{{ input|tojson }}", "{{ nope }}",
            "{{ loop.index }}", "{{ 1 / 0 }}", "{{ 10 ** 100 }}", "{{ input.a.b.c.d }}", "{{ input|dictsort }}",
            "{{ input|list|reverse|join(',') }}", "{{ input|items|map('first')|list }}", "{{ caller() }}",
            "{% break %}", "{% continue %}", "{{ range(10)|batch(3)|list }}", "{{ input|tojson(indent=true) }}",
            "{{", "{%", "}}", "%}", "{# ", "{% endfor %}", "{% raw %}", "{{ input[", "{{ (((((1 }}", "{% if %}",
            "{{ 'a' ~ }}", "{% set ns = namespace(s='') %}", "{{ ns.s|length }}", "{{ input|unique|sort }}",
        ]).prop_map(str::to_string),
        1 => (0usize..200, "[a-z]{0,10}").prop_map(|(n, s)| format!("{{{{ '{s}' * {n} }}}}")),
        1 => (0usize..300).prop_map(|n| format!("{{{{ range({n})|join(',')|length }}}}")),
        1 => (0usize..100, any::<bool>()).prop_map(|(w, json)| if json {
            format!("{{{{ input|tojson(indent={w}) }}}}")
        } else {
            format!("{{{{ 'a\nb'|indent({w}) }}}}")
        }),
        1 => select(vec![
            // Widths a builtin would repeat a space for: refused, not allocated.
            "{{ 'a'|indent(18446744073709551615) }}", "{{ 'a'|indent(width=99999999999) }}",
            "{{ input|tojson(indent=4294967296) }}",
        ]).prop_map(str::to_string),
    ]
}

// The engine bounds instructions (fuel) and recursion, and `template::render` what is written,
// but not the size of a value in between: `'x' * n` with a large `n`, a string doubled step by
// step, or text a `set` block, a `filter` block or a macro captures (held in memory, not written)
// grows as written, and a filter's own loop spends no fuel. So repetitions stay small here,
// captures hold no loop, and a namespace string grows one piece per step.
pub(crate) fn template_text() -> BoxedStrategy<String> {
    let leaf = template_leaf().boxed();
    let captured = prop_oneof![
        leaf.clone().prop_map(|b| format!("{{% set s %}}{b}{{% endset %}}{{{{ s }}}}{{{{ s|upper }}}}")),
        leaf.clone().prop_map(|b| format!("{{% filter upper %}}{b}{{% endfilter %}}")),
        (leaf.clone(), 0usize..1_000).prop_map(|(b, k)| format!(
            "{{% macro m(n) %}}{{% if n > 0 %}}{b}{{{{ m(n - 1) }}}}{{% endif %}}{{% endmacro %}}{{{{ m({k}) }}}}"
        )),
        leaf.clone().prop_map(|b| format!(
            "{{% macro box() %}}[{{{{ caller() }}}}]{{% endmacro %}}{{% call box() %}}{b}{{% endcall %}}"
        )),
    ];
    prop_oneof![3 => leaf, 1 => captured]
        .prop_recursive(6, 48, 4, |inner| {
            let count = prop_oneof![4 => 0usize..50, 1 => 0usize..100_000];
            prop_oneof![
                vec(inner.clone(), 1..4).prop_map(|parts| parts.concat()),
                (inner.clone(), count.clone()).prop_map(|(b, n)| format!("{{% for i in range({n}) %}}{b}{{% endfor %}}")),
                inner.clone().prop_map(|b| format!("{{% for x in input %}}{b}{{% else %}}none{{% endfor %}}")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{{% if input.flag %}}{a}{{% else %}}{b}{{% endif %}}")),
                inner.clone().prop_map(|b| format!("{{% with x = input %}}{b}{{% endwith %}}")),
                (inner, count).prop_map(|(b, n)| format!(
                    "{{% set ns = namespace(s='') %}}{{% for i in range({n}) %}}{{% set ns.s = ns.s ~ 'x' %}}{b}{{% endfor %}}{{{{ ns.s|length }}}}"
                )),
            ]
        })
        .boxed()
}

/// A run's input as a template meets it: small, since one instruction may write all of it.
fn template_input() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,32}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::from),
            vec(("(flag|name|items|[a-z]{1,4})", inner), 0..6).prop_map(|p| Value::Object(p.into_iter().collect())),
        ]
    })
    .boxed()
}

proptest! {
    #![proptest_config(cases(128))]

    /// A body compiled and its names checked as a save does, then rendered over an input as a run
    /// does, in the environment every template gets.
    #[test]
    fn templates_compile_and_render_within_bounds(text in template_text(), input in template_input()) {
        let _ = bounded(|| {
            let env = environment();
            if let Ok(t) = env.template_from_str(&text) {
                let _ = t.undeclared_variables(false);
            }
            render(&env, &text, minijinja::context! { input => input })
        })?;
    }
}
