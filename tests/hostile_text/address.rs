//! Addresses: a comment's address, a listing's prefix, and a request's URL.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use playbook_runtime::core::address::Address as Url;
use playbook_runtime::core::comment::address::{check_under, is_under, Address, Whose};

use crate::pieces::long;
use crate::{bounded, cases};

// ---- Addresses ----

fn address_text() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        6 => select(vec![
            "playbook", "ledger", "definitions", "runs", "requests", "org", "connections", "members", "settings",
            "workflow", "reasoning", "lookup", "review-and-approve", "steps", "run_1", "ada@example.com|x", "page",
            "figures", ".", "..", "", "%2F", "a--b",
        ]).prop_map(str::to_string),
        1 => "[a-z0-9_.@:|+-]{1,12}",
        1 => "\\PC{1,4}",
        1 => long("a", 2_000),
    ];
    vec(segment, 0..200).prop_map(|s| s.join("/"))
}

fn url_text() -> impl Strategy<Value = String> {
    let scheme = select(vec!["http", "https", "ftp", "HTTP", ""]);
    let user = prop::option::of("[a-z:@]{0,8}");
    let host = prop_oneof!["[a-z0-9.-]{0,20}", "\\[[0-9a-f:]{0,20}\\]?", "[0-9.]{0,15}", "\\PC{0,6}"];
    let port = prop::option::of("[0-9a-z]{0,6}");
    let rest = "[/?#a-z0-9%&=.]{0,60}";
    (scheme, user, host, port, rest).prop_map(|(scheme, user, host, port, rest)| {
        let user = user.map(|u| format!("{u}@")).unwrap_or_default();
        let port = port.map(|p| format!(":{p}")).unwrap_or_default();
        format!("{scheme}://{user}{host}{port}{rest}")
    })
}

proptest! {
    #![proptest_config(cases(256))]

    /// A comment's address and a listing's prefix as tools take them, and a request's URL as the
    /// entry splits it.
    #[test]
    fn addresses_read_within_bounds(text in address_text(), url in url_text(), org: bool) {
        let whose = if org { Whose::Org } else { Whose::Playbook };
        let half = text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i);
        bounded(|| {
            let _ = Address::parse(&text, whose).map(|a| a.to_string());
            let _ = check_under(&text);
            let _ = is_under(&text, &text[..half]);
            let _ = Url::of(&url);
        })?;
    }
}
