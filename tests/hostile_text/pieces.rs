//! Pieces every grammar mixes in: a grammar broken between its tokens, long runs, JSON values.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, Index};
use serde_json::Value;

// ---- Pieces every grammar mixes in ----

/// `text` with pieces of `noise` put in at places drawn: the grammar broken between its own
/// tokens, where a parser has to notice.
pub(crate) fn broken(
    text: impl Strategy<Value = String>,
    noise: impl Strategy<Value = String>,
) -> impl Strategy<Value = String> {
    (text, vec((any::<Index>(), noise), 0..3)).prop_map(|(mut text, cuts)| {
        for (at, piece) in cuts {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            text.insert_str(i, &piece);
        }
        text
    })
}

/// A long run of one piece: long scalars, labels, values.
pub(crate) fn long(piece: &'static str, most: usize) -> impl Strategy<Value = String> {
    (0..most).prop_map(move |n| piece.repeat(n))
}

/// JSON values as requests carry them: odd numbers, long and non-ASCII strings, nesting, width.
pub(crate) fn json_value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        select(vec![0.5, -0.0, 1e308, -1e-308, 3.0]).prop_map(Value::from),
        "[a-z0-9 ]{0,12}".prop_map(Value::from),
        "\\PC{0,16}".prop_map(Value::from),
        long("ab", 10_000).prop_map(Value::from),
    ];
    leaf.prop_recursive(8, 256, 8, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..8).prop_map(Value::from),
            vec(("[a-z]{1,6}", inner), 0..8).prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
            (0usize..3_000).prop_map(|n| Value::from((0..n).map(|i| i % 1_000).collect::<Vec<_>>())),
        ]
    })
    .boxed()
}
