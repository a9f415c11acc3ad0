//! The pages a person sees while signing in: the consent page, which says which client asks for
//! which access to which endpoint, and the pages that say why a sign-in cannot go on. Plain HTML,
//! no script, every value escaped; the shell sends them with headers that forbid framing.

use crate::core::access::role::Role;
use crate::core::caller::Scope;

/// The headers every sign-in page carries: no framing, nothing loaded from elsewhere, no cache.
pub const PAGE_HEADERS: &[(&str, &str)] = &[
    ("content-type", "text/html; charset=utf-8"),
    (
        "content-security-policy",
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    // Not no-referrer: under it a browser sends `Origin: null` with the page's own form posts,
    // which the Origin check must refuse; same-origin still tells other sites nothing.
    ("referrer-policy", "same-origin"),
    ("cache-control", "no-store"),
];

/// What the consent page shows and posts back.
pub struct ConsentView<'a> {
    pub client_name: &'a str,
    /// Where the client sends the person back, so they can tell a real client from a lookalike.
    pub redirect_host: &'a str,
    pub endpoint: &'a str,
    pub person: &'a str,
    pub scopes: &'a [Scope],
    pub orgs: &'a [(String, Role)],
    pub consent_id: &'a str,
    pub csrf: &'a str,
}

pub fn consent(v: &ConsentView) -> String {
    let scopes: String =
        v.scopes.iter().map(|s| format!("<li><code>{}</code>: {}</li>", s.as_str(), says(*s))).collect();
    // The org is chosen inside the form: fixed when the person holds one role, else picked.
    let org = match v.orgs {
        [(org, role)] => format!(
            "<p>In the org <strong>{name}</strong>, where you are {role}.</p><input type=\"hidden\" name=\"org\" value=\"{name}\">",
            name = escape(org),
            role = role.as_str()
        ),
        many => {
            let options: String = many
                .iter()
                .map(|(org, role)| format!("<option value=\"{o}\">{o} ({})</option>", role.as_str(), o = escape(org)))
                .collect();
            format!("<p><label>In the org <select name=\"org\">{options}</select></label></p>")
        }
    };
    page(
        "Allow access",
        &format!(
            "<h1>Allow {client} to act for you?</h1>\
             <p>You are signed in as <strong>{person}</strong>. <strong>{client}</strong>, which sends you back to <code>{host}</code>, asks to act for you on <code>{endpoint}</code>, with:</p>\
             <ul>{scopes}</ul>\
             <form method=\"post\" action=\"/oauth/consent\">{org}\
             <p>It can do no more than your role allows, and loses what your role loses.</p>\
             <input type=\"hidden\" name=\"consent\" value=\"{id}\"><input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
             <button type=\"submit\" name=\"decision\" value=\"allow\">Allow</button> \
             <button type=\"submit\" name=\"decision\" value=\"deny\">Decline</button></form>",
            client = escape(v.client_name),
            person = escape(v.person),
            host = escape(v.redirect_host),
            endpoint = escape(v.endpoint),
            id = escape(v.consent_id),
            csrf = escape(v.csrf),
        ),
    )
}

/// A page that says why the sign-in stops here, and what to do.
pub fn message(title: &str, words: &str) -> String {
    page(title, &format!("<h1>{}</h1><p>{}</p>", escape(title), escape(words)))
}

/// The page of a person who holds no role in an org this runtime serves.
pub fn no_role(person_name: &str, person_id: &str) -> String {
    page(
        "No role yet",
        &format!(
            "<h1>You have no role here yet</h1><p>You signed in as <strong>{}</strong>, but you hold no role in any org of this runtime, so no client can act for you.</p>\
             <p>Ask an owner or admin of your team's org to give you a role, or the operator of this runtime if your org has no owner yet. They need your id: <code>{}</code>.</p>",
            escape(person_name),
            escape(person_id)
        ),
    )
}

fn says(scope: Scope) -> &'static str {
    match scope {
        Scope::OrgRead => "read what belongs to the org as a whole",
        Scope::OrgWrite => "manage the org: create, retire and restore playbooks, add and remove connections, and manage access: make and revoke API keys (with no more than you allow here) and give and take roles (up to your own)",
        Scope::PlaybookRead => "read playbooks, their functions, runs and events",
        Scope::PlaybookWrite => "change playbooks, run their functions and workflows, answer their requests",
    }
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
         <title>{}</title><style>body{{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}}button{{font:inherit;padding:.4rem 1rem}}</style></head><body>{body}</body></html>",
        escape(title)
    )
}

/// Escapes text for HTML content and attribute values.
pub use crate::core::markup::escape;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_consent_page_escapes_what_a_client_names() {
        let orgs = [("acme".to_string(), Role::Editor)];
        let html = consent(&ConsentView {
            client_name: "<script>alert(1)</script>",
            redirect_host: "127.0.0.1:3000",
            endpoint: "/mcp",
            person: "Ada \"Lovelace\"",
            scopes: &[Scope::PlaybookRead],
            orgs: &orgs,
            consent_id: "c1",
            csrf: "x",
        });
        assert!(!html.contains("<script>") && html.contains("&lt;script&gt;"));
        assert!(html.contains("Ada &quot;Lovelace&quot;") && html.contains("name=\"org\" value=\"acme\""));
        let form = &html[html.find("<form").unwrap()..];
        assert!(
            form.contains("name=\"org\"") && form.contains("name=\"csrf\""),
            "the org and the value travel in the form"
        );
        assert!(no_role("Ada", "person:a<b").contains("person:a&lt;b"));
    }
}
