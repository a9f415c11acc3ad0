//! Mermaid diagrams: flowcharts of every shape and link, checked and drawn.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use playbook_runtime::core::definition::check_diagram;
use playbook_runtime::core::picture;

use crate::pieces::{broken, long};
use crate::{bounded, cases};

// ---- Mermaid diagrams ----

fn mermaid_node() -> impl Strategy<Value = String> {
    let id = prop_oneof![30 => (0usize..400).prop_map(|i| format!("n{i}")), 1 => "[a-zé_]{1,4}", ];
    let shape = prop_oneof![12 => select(vec![
        ("", ""),
        ("[", "]"),
        ("(", ")"),
        ("([", "])"),
        ("((", "))"),
        ("[[", "]]"),
        ("[(", ")]"),
        ("{", "}"),
        ("{{", "}}"),
        (">", "]"),
        ("[/", "/]"),
        ("[\"", "\"]"),
    ])];
    let text =
        prop_oneof![16 => "[a-z ]{0,30}", 1 => long("word ", 1_000), 1 => "[a-z]{0,3}(<br>|<br/>|&|;|:)[a-z]{0,3}"];
    (id, shape, text, any::<bool>()).prop_map(|(id, (open, close), text, class)| {
        let text = if open.is_empty() { String::new() } else { text };
        format!("{id}{open}{text}{close}{}", if class { ":::done" } else { "" })
    })
}

fn mermaid_line() -> impl Strategy<Value = String> {
    let link = prop_oneof![
        12 => select(vec!["-->", "---", "-.->", "-.-", "==>", "===", "---->", "-- yes -->", "-. maybe .->", "== sure ==>", "-->|ok|"]),
        1 => select(vec!["--", "->", "<-->", "-- unclosed"]),
    ];
    prop_oneof![
        6 => (vec(mermaid_node(), 1..4), vec((link, vec(mermaid_node(), 1..4)), 0..4)).prop_map(|(first, rest)| {
            let mut line = first.join(" & ");
            for (link, group) in rest {
                line.push_str(&format!(" {link} {}", group.join(" & ")));
            }
            line
        }),
        1 => vec(mermaid_node(), 1..40).prop_map(|nodes| nodes.join("; ")),
        1 => select(vec![
            "%% a comment", "classDef done fill:#eee", "class a done", "style a fill:#f9f", "linkStyle 0 stroke:red",
        ]).prop_map(str::to_string),
        1 => select(vec!["subgraph one", "end", "click a call back()", "direction LR"]).prop_map(str::to_string),
    ]
}

/// A chain of `n` nodes and `m` edges from its first to its last: every long edge bends once a rank.
fn long_edges() -> impl Strategy<Value = String> {
    (1usize..300, 0usize..300).prop_map(|(n, m)| {
        let mut text = "flowchart TD\n".to_string();
        for i in 1..n {
            text.push_str(&format!("n{} --> n{i}\n", i - 1));
        }
        for _ in 0..m {
            text.push_str(&format!("n0 --> n{}\n", n - 1));
        }
        text
    })
}

fn mermaid_text() -> impl Strategy<Value = String> {
    let head = prop_oneof![
        8 => select(vec!["flowchart TD", "graph LR", "flowchart BT;", "flowchart RL", "flowchart"]),
        1 => select(vec!["graph XX", "sequenceDiagram", "flowchart TD LR"]),
    ];
    let drawn =
        (head, vec(mermaid_line(), 0..60)).prop_map(|(head, lines)| format!("{head}\n{}", lines.join("\n"))).boxed();
    let noise = "[\\-=.>|&;:\\[\\](){}\"\n ]{1,3}";
    prop_oneof![4 => drawn.clone(), 2 => broken(drawn, noise), 1 => long_edges()]
}

proptest! {
    #![proptest_config(cases(96))]

    /// A saved diagram's check, then its drawing as Studio draws it: parse, layout, SVG.
    #[test]
    fn diagrams_check_and_draw_within_bounds(source in mermaid_text()) {
        bounded(|| (check_diagram(&source), picture::mermaid(&source)))?;
    }
}
