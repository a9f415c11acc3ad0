use super::*;

const EVIL: &str = "<script>alert(1)</script>";

fn view<'a>(asks: Asks<'a>, scopes: &'a [Asked<'a>]) -> ConnectView<'a> {
    ConnectView {
        page: "/connect/acme/cl_token",
        org: "acme",
        name: "github",
        title: "GitHub",
        provider: Some("GitHub"),
        server: "https://api.githubcopilot.com/mcp/",
        playbooks: Playbooks::All,
        person: "Ada Lovelace",
        asks,
        scopes,
        broken: None,
        expires: Some("2026-12-06 09:00 UTC"),
        notice: None,
        csrf: "proof1",
    }
}

/// The forms of a page: each one's action, with whether it carries the page's proof.
fn forms(html: &str) -> Vec<(String, bool)> {
    html.split("<form ")
        .skip(1)
        .map(|f| {
            let form = &f[..f.find("</form>").unwrap()];
            let action = form.split("action=\"").nth(1).unwrap().split('"').next().unwrap().to_string();
            (action, form.contains("name=\"csrf\" value=\"proof1\""))
        })
        .collect()
}

#[test]
fn every_value_is_escaped() {
    let names = [EVIL.to_string()];
    let notice = Notice::refused(EVIL);
    let scopes = [Asked { scope: EVIL, says: Some(EVIL) }, Asked { scope: "repo", says: None }];
    let v = ConnectView {
        org: EVIL,
        name: EVIL,
        title: EVIL,
        provider: Some(EVIL),
        server: EVIL,
        playbooks: Playbooks::Named(&names),
        person: EVIL,
        broken: Some(EVIL),
        expires: Some(EVIL),
        notice: Some(&notice),
        csrf: "\"><script>",
        ..view(
            Asks::Key {
                key: Key {
                    instructions: EVIL,
                    key_page: "javascript:alert(1)",
                    example: Some(EVIL),
                    pattern: Some(EVIL),
                },
                given: false,
            },
            &scopes,
        )
    };
    let html = render(&v);
    assert!(!html.contains("<script>"), "{html}");
    assert!(!html.contains("javascript:"), "a key page that is not https is not linked");
    assert!(html.contains("&lt;script&gt;"));
}

#[test]
fn a_key_page_shows_the_instructions_the_shape_and_its_forms() {
    let key = Key {
        instructions: "Make a key under [Settings, API keys](https://app.example/keys) as an **Admin**.",
        key_page: "https://app.example/keys",
        example: Some("sk_live_…"),
        pattern: Some("^sk_live_[A-Za-z0-9]{24}$"),
    };
    let html = render(&view(Asks::Key { key, given: false }, &[]));
    assert!(html.contains("<a href=\"https://app.example/keys\" rel=\"noopener noreferrer\">Settings, API keys</a>"));
    assert!(html.contains("The key is <code>sk_live_</code> then 24 letters or digits."));
    assert!(html.contains("It looks like <code>sk_live_…</code>."));
    assert!(html.contains("<label for=\"key\">") && html.contains("id=\"key\" name=\"value\""));
    assert!(html.contains("aria-describedby=\"key-shape\""));
    let actions: Vec<_> = forms(&html);
    assert_eq!(
        actions,
        vec![
            ("/connect/acme/cl_token/credential".to_string(), true),
            ("/connect/acme/cl_token/cancel".to_string(), true)
        ],
        "no approve before the key is given"
    );
    let given = render(&view(Asks::Key { key, given: true }, &[]));
    let actions: Vec<_> = forms(&given).into_iter().map(|(a, _)| a).collect();
    assert!(actions.contains(&"/connect/acme/cl_token/approve".to_string()));
    assert!(given.contains("Approve the GitHub connection") && given.contains("Replace the key"));
}

#[test]
fn the_notice_of_a_key_that_misses_its_pattern() {
    let notice = Notice::key_misses_pattern("Stripe");
    assert!(notice.words.starts_with(
        "The key does not match the shape Stripe expects; it was kept, since the pattern may be wrong as well as the key."
    ));
    let v = ConnectView { notice: Some(&notice), ..view(Asks::Nothing, &[]) };
    let html = render(&v);
    assert!(html.contains("<p class=\"notice caution\" role=\"status\">The key does not match"));
    let refused = Notice::refused("No.");
    assert!(refused.html().contains("role=\"alert\""));
}

#[test]
fn scopes_say_what_they_allow_and_playbooks_are_named() {
    let scopes =
        [Asked { scope: "repo", says: Some("Read and change your repositories.") }, Asked { scope: "x", says: None }];
    let names = ["triage".to_string(), "release".to_string()];
    let v = ConnectView { playbooks: Playbooks::Named(&names), ..view(Asks::Nothing, &scopes) };
    let html = render(&v);
    assert!(html.contains("<li><code>repo</code>: Read and change your repositories.</li>"));
    assert!(html.contains("<li><code>x</code> (the service says no more of it)</li>"));
    assert!(html.contains("<code>triage</code>, <code>release</code>"));
    assert!(render(&view(Asks::Nothing, &[])).contains("Every playbook of the org"));
    let actions: Vec<_> = forms(&html).into_iter().map(|(a, _)| a).collect();
    assert_eq!(actions, vec!["/connect/acme/cl_token/approve", "/connect/acme/cl_token/cancel"]);
}

#[test]
fn client_credentials_ask_the_id_only_where_it_was_left_out() {
    let without = render(&view(Asks::Client { issuer: "https://id.example", client_id: None, given: false }, &[]));
    assert!(without.contains("name=\"client_id\"") && without.contains("name=\"client_secret\""));
    let with =
        render(&view(Asks::Client { issuer: "https://id.example", client_id: Some("app-1"), given: false }, &[]));
    assert!(!with.contains("name=\"client_id\"") && with.contains("<code>app-1</code>"));
    assert_eq!(forms(&with)[0].0, "/connect/acme/cl_token/credential");
}

#[test]
fn a_consent_starts_at_the_service_after_the_orgs_own_client() {
    let plain = render(&view(Asks::Consent { service: "GitHub", own_client: None, granted: false }, &[]));
    let actions: Vec<_> = forms(&plain).into_iter().map(|(a, _)| a).collect();
    assert_eq!(actions, vec!["/connect/acme/cl_token/start", "/connect/acme/cl_token/cancel"]);
    assert!(plain.contains(">Sign in at GitHub</button>"));
    let own = Asks::Consent { service: "GitHub", own_client: Some(OwnClient { client_id: None }), granted: false };
    let html = render(&view(own, &[]));
    let actions: Vec<_> = forms(&html).into_iter().map(|(a, _)| a).collect();
    assert_eq!(
        actions,
        vec!["/connect/acme/cl_token/client", "/connect/acme/cl_token/cancel"],
        "the client comes first"
    );
    let own =
        Asks::Consent { service: "GitHub", own_client: Some(OwnClient { client_id: Some("Iv1.abc") }), granted: true };
    let html = render(&view(own, &[]));
    let actions: Vec<_> = forms(&html).into_iter().map(|(a, _)| a).collect();
    assert_eq!(
        actions,
        vec![
            "/connect/acme/cl_token/client",
            "/connect/acme/cl_token/start",
            "/connect/acme/cl_token/approve",
            "/connect/acme/cl_token/cancel"
        ]
    );
    assert!(html.contains("value=\"Iv1.abc\""));
}

#[test]
fn each_ended_link_says_what_to_do() {
    let cases = [
        (Ended::Connected { title: "GitHub" }, 200, "Nothing is left to open"),
        (Ended::Expired { title: "GitHub" }, 410, "Ask your agent to reconnect the GitHub connection for a new link."),
        (Ended::Replaced { title: "GitHub" }, 410, "reconnect it would replace that one too"),
        (Ended::Cancelled { title: "GitHub" }, 200, "nothing is connected"),
        (Ended::Removed { title: "GitHub" }, 410, "nothing is connected"),
        (Ended::NotYours, 403, "Only the person who added this connection may use its link."),
        (Ended::Unknown, 404, "No connection has this link."),
    ];
    for (state, status, words) in cases {
        let html = ended(&state);
        assert_eq!(state.status(), status, "{state:?}");
        assert!(html.contains(words), "{state:?}: {html}");
        assert!(!html.contains("<form"), "{state:?}");
    }
    assert!(ended(&Ended::Expired { title: EVIL }).contains("&lt;script&gt;"));
    assert!(!ended(&Ended::Connected { title: EVIL }).contains("<script>"));
}

#[test]
fn a_consent_finishes_allowed_or_refused_in_the_services_words() {
    let done = finished(&Finish::Allowed { title: "GitHub", service: "GitHub", connected: true, page: None });
    assert!(done.contains("GitHub is connected") && done.contains("Nothing is left to open"));
    let back = finished(&Finish::Allowed {
        title: "GitHub",
        service: "GitHub",
        connected: false,
        page: Some("/connect/acme/cl_t"),
    });
    assert!(back.contains("href=\"/connect/acme/cl_t\""));
    let refused = finished(&Finish::Refused {
        title: "GitHub",
        service: "GitHub",
        words: Some(EVIL),
        page: Some("/connect/acme/cl_t"),
    });
    assert!(refused.contains("GitHub said: <q>&lt;script&gt;alert(1)&lt;/script&gt;</q>"));
    assert!(refused.contains("role=\"alert\"") && refused.contains("Nothing is connected."));
    for finish in [
        Finish::Allowed { title: EVIL, service: EVIL, connected: true, page: None },
        Finish::Allowed { title: EVIL, service: EVIL, connected: false, page: Some(EVIL) },
        Finish::Refused { title: EVIL, service: EVIL, words: Some(EVIL), page: Some(EVIL) },
        Finish::Failed { title: EVIL, service: EVIL, words: EVIL, page: Some(EVIL) },
    ] {
        assert!(!finished(&finish).contains("<script>"), "{finish:?}");
    }
    let failed = finished(&Finish::Failed {
        title: "GitHub",
        service: "GitHub",
        words: "Its token endpoint gave no answer within 15 seconds.",
        page: Some("/connect/acme/cl_t"),
    });
    assert!(failed.contains("The sign-in at GitHub did not finish.") && !failed.contains("did not allow"));
    assert!(failed.contains("gave no answer within 15 seconds") && failed.contains("href=\"/connect/acme/cl_t\""));
    let long = "x".repeat(5_000);
    let clipped = finished(&Finish::Refused { title: "G", service: "G", words: Some(&long), page: None });
    assert!(clipped.len() < 4_000);
}

#[test]
fn the_page_loads_nothing_from_elsewhere() {
    let html = render(&view(Asks::Consent { service: "GitHub", own_client: None, granted: false }, &[]));
    for outside in ["<script", "<link", "<img", "<iframe", "src=", "@import", "url("] {
        assert!(!html.contains(outside), "{outside}");
    }
    assert!(html.starts_with("<!doctype html><html lang=\"en\">") && html.contains("<main>"));
}

#[test]
fn a_moment_is_said_to_the_minute_in_utc() {
    use chrono::TimeZone;
    let at = chrono::Utc.with_ymd_and_hms(2026, 12, 6, 9, 0, 59).unwrap();
    assert_eq!(moment(at), "2026-12-06 09:00 UTC");
}
