//! The runtime's own connect page, which the link of `add_connection` opens: what is being
//! connected, for which playbooks, what the person gives (a key, a client's credentials, a
//! consent at the service, or nothing), the scopes asked and what each lets the connection do,
//! and the buttons that approve or cancel. Plain HTML with every value escaped; its forms post
//! under the page's own address with the page's proof (`core::access::csrf`) and need no script.
//! The shell sends it with `sign_in_pages::PAGE_HEADERS`. The pages of a link that can no longer
//! be used, and of a finished consent, are in `ended`.

mod ended;
mod frame;
pub mod shape;
#[cfg(test)]
mod tests;

pub use ended::{ended, finished, Ended, Finish};
pub use frame::{Notice, Tone};

use crate::api::markdown;
use crate::api::sign_in_pages::escape;
use frame::{form, page};

/// Where each of the page's forms posts, after the page's own path.
pub const APPROVE: &str = "approve";
pub const CREDENTIAL: &str = "credential";
pub const CLIENT: &str = "client";
pub const START: &str = "start";
pub const CANCEL: &str = "cancel";

/// Everything the connect page shows of one pending link.
#[derive(Debug, Clone)]
pub struct ConnectView<'a> {
    /// The page's own path, `/connect/{org}/{token}`: its forms post to `{page}/approve` and so on.
    pub page: &'a str,
    pub org: &'a str,
    /// The connection's name, by which functions name its tools (`name/tool`).
    pub name: &'a str,
    /// What is being connected, in the person's words: the provider's title, or the name.
    pub title: &'a str,
    /// The provider's title, or none for a server given by hand.
    pub provider: Option<&'a str>,
    /// The MCP server's address, or the HTTP API's base address.
    pub server: &'a str,
    pub playbooks: Playbooks<'a>,
    /// Who is signed in, as the page greets them.
    pub person: &'a str,
    pub asks: Asks<'a>,
    /// The scopes the connection asks, each with the sentence of what it lets the connection do.
    pub scopes: &'a [Asked<'a>],
    /// Why the connection needs the person again, as when its credential was refused (`broken`).
    pub broken: Option<&'a str>,
    /// When the link stops working, as the person reads it.
    pub expires: Option<&'a str>,
    pub notice: Option<&'a Notice>,
    pub csrf: &'a str,
}

/// Which playbooks the connection will serve.
#[derive(Debug, Clone, Copy)]
pub enum Playbooks<'a> {
    All,
    Named(&'a [String]),
}

/// One scope asked: its name and the sentence of what it allows, where the way gives one.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    pub scope: &'a str,
    pub says: Option<&'a str>,
}

/// What the person gives on the page.
#[derive(Debug, Clone)]
pub enum Asks<'a> {
    /// The server needs nothing: the person approves.
    Nothing,
    /// A key the person types.
    Key { key: Key<'a>, given: bool },
    /// A client's secret, and its id where the agent left it out, for the token endpoint at
    /// `issuer`.
    Client { issuer: &'a str, client_id: Option<&'a str>, given: bool },
    /// A sign-in at `service`, where the person allows the connection. `own_client` is set for
    /// `oauth_client: own`: the org's own client is given first.
    Consent { service: &'a str, own_client: Option<OwnClient<'a>>, granted: bool },
}

/// What the page says beside the key's field.
#[derive(Debug, Clone, Copy)]
pub struct Key<'a> {
    /// Markdown: where the key is made, the role and permissions it needs, its format.
    pub instructions: &'a str,
    /// The https address of the page where the key is made.
    pub key_page: &'a str,
    /// What a key looks like, `…` in place of its characters.
    pub example: Option<&'a str>,
    /// The regular expression a key matches.
    pub pattern: Option<&'a str>,
}

/// The org's own OAuth client at the service: given yet, and its id if so.
#[derive(Debug, Clone, Copy)]
pub struct OwnClient<'a> {
    pub client_id: Option<&'a str>,
}

impl ConnectView<'_> {
    fn action(&self, step: &str) -> String {
        format!("{}/{step}", self.page.trim_end_matches('/'))
    }

    /// Whether what the connection needs is given, so that approving it connects it.
    fn ready(&self) -> bool {
        match &self.asks {
            Asks::Nothing => true,
            Asks::Key { given, .. } | Asks::Client { given, .. } => *given,
            Asks::Consent { granted, .. } => *granted,
        }
    }
}

/// A time as the page says it, such as when a link stops working: `2026-12-06 09:00 UTC`.
pub fn moment(at: chrono::DateTime<chrono::Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// The connect page of a pending link.
pub fn render(v: &ConnectView) -> String {
    let title = escape(v.title);
    let mut body = String::new();
    if let Some(notice) = v.notice {
        body.push_str(&notice.html());
    }
    body.push_str(&format!("<h1>Connect {title} to the org {}</h1>", escape(v.org)));
    body.push_str(&format!(
        "<p>You are signed in as <strong>{}</strong>. Your agent asked to connect {title}. Nothing is connected until you approve it here.</p>",
        escape(v.person)
    ));
    if let Some(why) = v.broken {
        body.push_str(&format!(
            "<p>This connection stopped working: {}. Give its credential again to mend it.</p>",
            escape(why.trim().trim_end_matches('.'))
        ));
    }
    body.push_str(&summary(v));
    if !v.scopes.is_empty() {
        body.push_str(&scopes(v.scopes));
    }
    body.push_str(&asks(v));
    body.push_str(&actions(v));
    page(&format!("Connect {}", v.title), &body)
}

fn summary(v: &ConnectView) -> String {
    let provider = match v.provider {
        Some(p) => format!("<dt>Service</dt><dd>{}</dd>", escape(p)),
        None => "<dt>Service</dt><dd>A server your agent gave by hand</dd>".to_string(),
    };
    let playbooks = match v.playbooks {
        Playbooks::All => "Every playbook of the org".to_string(),
        Playbooks::Named([]) => "No playbook yet".to_string(),
        Playbooks::Named(names) => {
            names.iter().map(|n| format!("<code>{}</code>", escape(n))).collect::<Vec<_>>().join(", ")
        }
    };
    let expires = v.expires.map(|e| format!("<dt>Link open until</dt><dd>{}</dd>", escape(e))).unwrap_or_default();
    format!(
        "<h2>What is connected</h2><dl>{provider}<dt>Name</dt><dd><code>{}</code>, as functions name its tools: <code>{}/…</code></dd>\
         <dt>Address</dt><dd><code>{}</code></dd><dt>For</dt><dd>{playbooks}</dd>{expires}</dl>",
        escape(v.name),
        escape(v.name),
        escape(v.server),
    )
}

fn scopes(asked: &[Asked]) -> String {
    let items: String = asked
        .iter()
        .map(|a| match a.says {
            Some(says) => format!("<li><code>{}</code>: {}</li>", escape(a.scope), escape(says)),
            None => format!("<li><code>{}</code> (the service says no more of it)</li>", escape(a.scope)),
        })
        .collect();
    format!("<h2>What it may do</h2><p>The connection asks for:</p><ul>{items}</ul>")
}

fn asks(v: &ConnectView) -> String {
    match &v.asks {
        Asks::Nothing => "<h2>What you give</h2><p>This server needs no credential: approving it is all.</p>".into(),
        Asks::Key { key, given } => key_form(v, key, *given),
        Asks::Client { issuer, client_id, given } => client_form(v, issuer, *client_id, *given),
        Asks::Consent { service, own_client, granted } => consent_form(v, service, own_client.as_ref(), *granted),
    }
}

fn key_form(v: &ConnectView, key: &Key, given: bool) -> String {
    let mut out = String::from("<h2>Your key</h2>");
    if given {
        out.push_str("<p>A key is kept for this connection. Approve below, or give another to replace it.</p>");
    }
    out.push_str(&markdown::to_html_beside_a_secret(key.instructions));
    if markdown::safe_address(key.key_page) {
        out.push_str(&format!(
            "<p>Make the key at <a href=\"{page}\" rel=\"noopener noreferrer\">{page}</a>.</p>",
            page = escape(key.key_page)
        ));
    }
    let mut hints = Vec::new();
    match key.pattern.map(|p| (p, shape::words(p))) {
        Some((_, Some(words))) => hints.push(format!("The key is {words}.")),
        Some((pattern, None)) => hints.push(format!("The key matches <code>{}</code>.", escape(pattern))),
        None => {}
    }
    if let Some(example) = key.example {
        hints.push(format!("It looks like <code>{}</code>.", escape(example)));
    }
    let hint = if hints.is_empty() {
        String::new()
    } else {
        format!("<p class=\"hint\" id=\"key-shape\">{}</p>", hints.join(" "))
    };
    let described = if hints.is_empty() { "" } else { " aria-describedby=\"key-shape\"" };
    let fields = format!(
        "<label for=\"key\">The key for {title}</label>{hint}\
         <input type=\"password\" id=\"key\" name=\"value\" required autocomplete=\"off\" spellcheck=\"false\" autocapitalize=\"off\"{described}>\
         <p class=\"hint\">It is kept sealed and only sent to {title}; your agent never sees it.</p>\
         <button type=\"submit\" class=\"{class}\">{label}</button>",
        title = escape(v.title),
        class = if given { "secondary" } else { "primary" },
        label = if given { "Replace the key" } else { "Keep the key" },
    );
    out.push_str(&form(&v.action(CREDENTIAL), v.csrf, &fields));
    out
}

fn client_form(v: &ConnectView, issuer: &str, client_id: Option<&str>, given: bool) -> String {
    let mut out = format!(
        "<h2>Your client's credentials</h2><p>The connection signs in as a client of <code>{}</code>.</p>",
        escape(issuer)
    );
    if given {
        out.push_str("<p>Its credentials are kept. Approve below, or give them again to replace them.</p>");
    }
    let id_field = match client_id {
        Some(id) => format!("<p>Client ID: <code>{}</code></p>", escape(id)),
        None => "<label for=\"client_id\">Client ID</label><input type=\"text\" id=\"client_id\" name=\"client_id\" required autocomplete=\"off\" spellcheck=\"false\">".to_string(),
    };
    let fields = format!(
        "{id_field}<label for=\"client_secret\">Client secret</label>\
         <input type=\"password\" id=\"client_secret\" name=\"client_secret\" required autocomplete=\"off\" spellcheck=\"false\">\
         <p class=\"hint\">The secret is kept sealed; your agent never sees it.</p><button type=\"submit\" class=\"{}\">{}</button>",
        if given { "secondary" } else { "primary" },
        if given { "Replace the credentials" } else { "Keep the credentials" },
    );
    out.push_str(&form(&v.action(CREDENTIAL), v.csrf, &fields));
    out
}

fn consent_form(v: &ConnectView, service: &str, own: Option<&OwnClient>, granted: bool) -> String {
    let service = escape(service);
    let mut out = format!("<h2>Sign in at {service}</h2>");
    if granted {
        out.push_str(&format!(
            "<p>{service} allowed the connection. Approve below, or sign in again to change what it allows.</p>"
        ));
    }
    if let Some(own) = own {
        out.push_str(&format!(
            "<p>This connection uses your org's own OAuth client at {service}, which your org registered there. Give its credentials first; the secret is kept sealed.</p>"
        ));
        let id = own.client_id.map(escape).unwrap_or_default();
        let fields = format!(
            "<label for=\"client_id\">Client ID</label><input type=\"text\" id=\"client_id\" name=\"client_id\" value=\"{id}\" required autocomplete=\"off\" spellcheck=\"false\">\
             <label for=\"client_secret\">Client secret</label><input type=\"password\" id=\"client_secret\" name=\"client_secret\" required autocomplete=\"off\" spellcheck=\"false\">\
             <button type=\"submit\" class=\"{}\">{}</button>",
            if own.client_id.is_some() { "secondary" } else { "primary" },
            if own.client_id.is_some() { "Replace the client" } else { "Keep the client" },
        );
        out.push_str(&form(&v.action(CLIENT), v.csrf, &fields));
        if own.client_id.is_none() {
            out.push_str(&format!("<p class=\"hint\">Then you sign in at {service}.</p>"));
            return out;
        }
    }
    out.push_str(&format!(
        "<p>You are sent to {service}, which asks you to allow the scopes above, then back here.</p>"
    ));
    let label = if granted { format!("Sign in at {service} again") } else { format!("Sign in at {service}") };
    let class = if granted { "secondary" } else { "primary" };
    out.push_str(&form(
        &v.action(START),
        v.csrf,
        &format!("<button type=\"submit\" class=\"{class}\">{label}</button>"),
    ));
    out
}

fn actions(v: &ConnectView) -> String {
    let title = escape(v.title);
    let approve = if v.ready() {
        form(
            &v.action(APPROVE),
            v.csrf,
            &format!("<button type=\"submit\" class=\"primary\">Approve the {title} connection</button>"),
        )
    } else {
        "<p class=\"hint\">Once you give what it needs above, you approve it here.</p>".to_string()
    };
    let cancel = form(
        &v.action(CANCEL),
        v.csrf,
        "<button type=\"submit\" class=\"secondary\">Cancel, and connect nothing</button>",
    );
    format!("<div class=\"actions\"><h2>Approve or cancel</h2>{approve}{cancel}</div>")
}
