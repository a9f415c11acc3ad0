//! YAML front matter: block and flow trees, anchors and aliases, the billion laughs, deep nesting.

use proptest::collection::vec;
use proptest::prelude::*;

use playbook_runtime::core::definition::Document;
use playbook_runtime::core::yaml;

use crate::pieces::{broken, long};
use crate::template::template_text;
use crate::{bounded, cases};

// ---- YAML front matter ----

#[derive(Debug, Clone)]
enum Yaml {
    Scalar(String),
    List(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
    Anchored(String, Box<Yaml>),
    Alias(String),
    /// A collection written in flow style inside block style.
    Flow(Box<Yaml>),
}

fn yaml_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,8}",
        1 => "-?[0-9]{1,24}(\\.[0-9]{0,6})?(e[+-]?[0-9]{1,4})?",
        1 => "(~|null|true|false|yes|no|on|off|\\.inf|-\\.NaN|0x[0-9A-F]{1,20}|0o[0-7]{1,24})",
        1 => "\"([a-z ]|\\\\[nt\"0xeN_LP]|\\\\u[0-9a-fA-F]{4}|\\\\U[0-9a-fA-F]{8}|\\\\x[0-9a-f]{2}|\\\\)*\"",
        1 => "'([a-z ]|'')*'",
        1 => "(!!str|!!int|!!float|!!bool|!!null|!!binary|!!map|!custom|!|!<tag:yaml\\.org,2002:str>) [a-z0-9]{0,6}",
        1 => long("x", 20_000),
        1 => "\\|[-+]?[1-9]?\n  [a-z ]{0,20}\n  [a-z]{0,8}",
        1 => ">-\n  [a-z ]{0,20}\n\n  [a-z]{0,8}",
    ]
}

fn yaml_key() -> impl Strategy<Value = String> {
    prop_oneof![6 => "[a-z_]{1,10}", 1 => "\"[^\"\\\\]{0,12}\"", 1 => Just("<<".to_string()), 1 => "[0-9]{1,4}", 1 => "(true|null|~)"]
}

fn yaml_tree() -> impl Strategy<Value = Yaml> {
    let anchor = "a[0-4]";
    let leaf = prop_oneof![4 => yaml_scalar().prop_map(Yaml::Scalar), 1 => anchor.prop_map(Yaml::Alias)];
    leaf.prop_recursive(8, 200, 6, move |inner| {
        prop_oneof![
            1 => vec(inner.clone(), 0..6).prop_map(Yaml::List),
            3 => vec((yaml_key(), inner.clone()), 0..6).prop_map(Yaml::Map),
            1 => (anchor, inner.clone()).prop_map(|(a, n)| Yaml::Anchored(a, Box::new(n))),
            1 => inner.prop_map(|n| Yaml::Flow(Box::new(n))),
        ]
    })
}

fn flow(node: &Yaml) -> String {
    match node {
        Yaml::Scalar(s) => s.clone(),
        Yaml::Alias(a) => format!("*{a}"),
        Yaml::Anchored(a, n) => format!("&{a} {}", flow(n)),
        Yaml::Flow(n) => flow(n),
        Yaml::List(items) => format!("[{}]", items.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Yaml::Map(pairs) => {
            let pairs: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}: {}", flow(v))).collect();
            format!("{{{}}}", pairs.join(", "))
        }
    }
}

/// `node` in block style, as the value after `key:` or `-`, its lines `indent` deep.
fn block(node: &Yaml, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match node {
        Yaml::List(items) if !items.is_empty() => {
            out.push('\n');
            for item in items {
                out.push_str(&pad);
                out.push('-');
                block(item, indent + 2, out);
            }
        }
        Yaml::Map(pairs) if !pairs.is_empty() => {
            out.push('\n');
            for (key, value) in pairs {
                out.push_str(&pad);
                out.push_str(key);
                out.push(':');
                block(value, indent + 2, out);
            }
        }
        Yaml::Anchored(a, n) if matches!(**n, Yaml::List(_) | Yaml::Map(_)) => {
            out.push_str(&format!(" &{a}"));
            block(n, indent, out);
        }
        other => {
            out.push(' ');
            out.push_str(&flow(other));
            out.push('\n');
        }
    }
}

/// Each level an alias of the one before, `width` times: the "billion laughs".
fn laughs() -> impl Strategy<Value = String> {
    (1usize..12, 1usize..12, 1usize..3_000, any::<bool>()).prop_map(|(levels, width, seed, merged)| {
        let mut out = format!("l0: &l0 \"{}\"\n", "x".repeat(seed));
        for level in 1..levels {
            let prev = level - 1;
            if merged && level > 1 {
                let aliases = vec![format!("*l{prev}"); width].join(", ");
                out.push_str(&format!("l{level}: &l{level}\n  <<: [{aliases}]\n  k{level}: 1\n"));
            } else {
                out.push_str(&format!("l{level}: &l{level} [{}]\n", vec![format!("*l{prev}"); width].join(", ")));
            }
        }
        out
    })
}

/// Nesting past the parser's bound, in flow or block style.
fn deep() -> impl Strategy<Value = String> {
    (1usize..300, any::<bool>()).prop_map(|(n, flow)| {
        if flow {
            format!("a: {}1{}\n", "[".repeat(n), "]".repeat(n))
        } else {
            (0..n).map(|i| format!("{}k:\n", " ".repeat(i))).collect::<String>() + &" ".repeat(n) + "end\n"
        }
    })
}

fn yaml_text() -> impl Strategy<Value = String> {
    let document = yaml_tree().prop_map(|tree| match tree {
        Yaml::Map(pairs) if !pairs.is_empty() => {
            let mut out = String::new();
            block(&Yaml::Map(pairs), 0, &mut out);
            out
        }
        other => {
            let mut out = "top:".to_string();
            block(&other, 2, &mut out);
            out
        }
    });
    let noise = prop_oneof!["[\\[\\]{}:,&*!|>'\"%@`#?\\- \t\n\\\\]{1,4}", "\\PC{1,3}", Just("\n---\n".into())];
    broken(
        prop_oneof![
            6 => document,
            2 => laughs(),
            1 => deep(),
            1 => "(%YAML 1\\.[0-9]|%TAG ! tag:x,2000:)\n--- [a-z]{0,8}\n(\\.\\.\\.)?",
            1 => "[a-z:{}\\[\\],&*!|> \n\t\"'-]{0,200}",
        ],
        noise,
    )
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn yaml_reads_within_bounds(text in yaml_text()) {
        let _ = bounded(|| yaml::parse(&text))?;
    }

    /// What a saved definition's front matter goes through: the split, then the YAML.
    #[test]
    fn front_matter_reads_within_bounds(front in yaml_text(), body in template_text(), crlf: bool, bom: bool) {
        let mut source = format!("{}---\n{front}\n---\n{body}", if bom { "\u{feff}" } else { "" });
        if crlf {
            source = source.replace('\n', "\r\n");
        }
        let _ = bounded(|| Document::parse(&source))?;
    }
}
