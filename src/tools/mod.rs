//! The operations, one per file. Each is one tool and one HTTP route: both doors call `call`,
//! so a tool and its route share every field, limit and refusal.

mod access;
mod add_connection;
mod answer_interaction;
mod approve;
mod args;
mod assign_role;
mod cancel;
mod cancel_run;
mod check_definition;
mod comment_words;
mod connection_ops;
mod create_definition;
mod create_key;
mod create_playbook;
mod definition_change;
mod definition_tools;
pub(crate) mod definition_words;
mod dry_run;
mod execute_connection;
mod finish;
mod get_asset;
mod get_connection;
mod get_definition;
mod get_event;
mod get_guide;
mod get_playbook;
mod get_playbook_analytics;
mod get_run;
mod get_run_history;
mod get_stats;
mod give_client;
mod give_credential;
mod introspect;
mod list_comments;
mod list_connection_tools;
mod list_connections;
mod list_definitions;
mod list_generation_models;
mod list_interactions;
mod list_keys;
mod list_models;
mod list_playbook_events;
mod list_playbooks;
mod list_providers;
mod list_role_assignments;
mod list_runs;
mod make_comment;
mod page_view;
mod pause_definition;
mod picture;
mod playbook_results;
mod publish_event;
mod query_connection;
mod read_link;
mod reconnect_connection;
#[cfg(test)]
mod recorded;
mod remove_connection;
mod remove_connection_signing_secret;
mod render_page;
mod render_playbook_page;
mod reopen_comment;
mod rerun_run;
mod resolve_comment;
mod restore_definition;
mod restore_playbook;
mod resume_definition;
mod retire_definition;
mod retire_playbook;
mod revoke_key;
mod run_definition;
mod run_words;
mod schema;
mod search;
mod send_run_event;
mod set_connection_playbooks;
mod set_connection_signing_secret;
mod start;
mod tool_servers;
mod unassign_role;
mod update_definition;
mod update_playbook;
mod validate;
mod words;

pub use crate::ops::{Backend, Ctx};
pub use args::check_args;
use args::{read_by, typed};
pub use get_asset::content as asset_content;
pub use run_definition::begin as start_run;
pub use run_words::{answered as run_answered, outcome as run_outcome};

use futures::future::LocalBoxFuture;
use serde_json::Value;

use crate::core::caller::Scope;
use crate::core::{Caller, Problem};

/// The four hints a client reads to decide how careful to be (spec: Annotations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

impl Hints {
    pub const READ: Hints = Hints { read_only: true, destructive: false, idempotent: true, open_world: false };
    pub const WRITE: Hints = Hints { read_only: false, destructive: true, idempotent: false, open_world: false };
    pub const WRITE_IDEMPOTENT: Hints =
        Hints { read_only: false, destructive: true, idempotent: true, open_world: false };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

/// What an operation answers: the output, and the words that say it.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub summary: String,
    pub value: Value,
    /// The summary is words the agent relays whole (up to 1,000 characters), not a summary.
    pub relay: bool,
    /// The HTTP status of a success: 201 where a thing was created.
    pub status: u16,
    /// What an MCP result shows in place of `value`, where it must show less than HTTP answers.
    pub over_mcp: Option<Value>,
    /// What an HTTP answer is in place of `value` as JSON: a document of its own type, such as a
    /// guide's Markdown.
    pub over_http: Option<Document>,
}

/// A body of its own content type.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub content_type: &'static str,
    pub text: String,
}

impl Output {
    pub fn ok(summary: String, value: Value) -> Self {
        Output { summary, value, relay: false, status: 200, over_mcp: None, over_http: None }
    }

    pub fn created(summary: String, value: Value) -> Self {
        Output { summary, value, relay: false, status: 201, over_mcp: None, over_http: None }
    }
}

pub type Run = for<'a> fn(&'a Ctx<'a>, Value) -> LocalBoxFuture<'a, Result<Output, Problem>>;

/// Where a tool works: at the org (playbook management), inside one playbook, or anywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    Org,
    Playbook,
    Anywhere,
}

/// Which doors offer an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// A tool over MCP and a route over HTTP.
    Both,
    /// A route over HTTP alone, for any caller with its scope.
    Http,
    /// A route over HTTP alone that manages who may come in: for the local developer, the
    /// operator and people whose role holds `org:write`, never for a key.
    Access,
}

pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub hints: Hints,
    /// The permission a caller needs to be offered and to call the tool; none for what every
    /// caller is served, such as the guides.
    pub scope: Option<Scope>,
    pub door: Door,
    pub reach: Reach,
    pub method: Method,
    /// The HTTP route, with `{org}` and the tool's path arguments in braces.
    pub path: &'static str,
    pub input_schema: fn() -> Value,
    /// Reads the arguments `input_schema` checked as the tool's own type and runs it with them:
    /// `|ctx, args| typed(ctx, args, run)`, where `run` takes that type.
    pub run: Run,
    pub special: Special,
}

/// What sets a tool apart from the rules every tool follows: generic code reads these, never the
/// tool's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Special {
    /// A second HTTP route of the same operation, on one playbook (`search`, the comment tools).
    pub also: Option<&'static str>,
    /// Words a playbook's own endpoint adds to the description (`list_comments`).
    pub on_playbook: Option<&'static str>,
    /// Where the hints as a connection lists them depend on the tool servers, the words that say
    /// how: `destructiveHint` is true while one serves the playbook, or the org on a connection
    /// that names none (`run_definition`, since a function's tools may change something).
    pub hints_depend: Option<&'static str>,
    /// Runs a definition the playbook keeps (`run_definition`, named by `type` and `name`, and
    /// `rerun_run`): `/directory` reads the workflow saved to refuse one that runs a generation
    /// function, and does not list `rerun_run`.
    pub runs_saved: bool,
    /// For a person signed in alone; the operator's refusal says so (`add_connection`,
    /// `reconnect_connection`).
    pub person_only: bool,
    /// An answer may hold a link a person opens at `/connect/url`, which a client that opens links
    /// is asked to open (`add_connection`, `reconnect_connection`).
    pub opens_link: bool,
    /// Answers only the playbooks the caller reaches, so a caller kept to some may call it though
    /// it acts on the org (`list_playbooks`).
    pub lists_reached: bool,
    /// Its description goes on with the guides and recipes the connection can follow (`get_guide`).
    pub describes_guides: bool,
}

impl Special {
    /// A tool that follows every rule.
    pub const NONE: Special = Special {
        also: None,
        on_playbook: None,
        hints_depend: None,
        runs_saved: false,
        person_only: false,
        opens_link: false,
        lists_reached: false,
        describes_guides: false,
    };
}

/// Every tool, in the order `tools/list` gives them.
pub fn all() -> &'static [Tool] {
    static TOOLS: [Tool; 68] = [
        create_playbook::TOOL,
        list_playbooks::TOOL,
        get_playbook::TOOL,
        update_playbook::TOOL,
        retire_playbook::TOOL,
        restore_playbook::TOOL,
        // Before create_definition: the HTTP routes are matched in this order, and
        // `…/definitions/check` would otherwise read as a save of the type `check`.
        check_definition::TOOL,
        create_definition::TOOL,
        list_definitions::TOOL,
        get_definition::TOOL,
        render_page::TOOL,
        update_definition::TOOL,
        pause_definition::TOOL,
        resume_definition::TOOL,
        retire_definition::TOOL,
        restore_definition::TOOL,
        run_definition::TOOL,
        get_run::TOOL,
        get_run_history::TOOL,
        list_runs::TOOL,
        get_stats::TOOL,
        cancel_run::TOOL,
        rerun_run::TOOL,
        send_run_event::TOOL,
        get_asset::TOOL,
        list_interactions::TOOL,
        answer_interaction::TOOL,
        publish_event::TOOL,
        list_playbook_events::TOOL,
        get_event::TOOL,
        render_playbook_page::TOOL,
        get_playbook_analytics::TOOL,
        list_models::TOOL,
        list_generation_models::TOOL,
        search::TOOL,
        list_comments::TOOL,
        resolve_comment::TOOL,
        make_comment::TOOL,
        reopen_comment::TOOL,
        introspect::TOOL,
        dry_run::TOOL,
        validate::TOOL,
        query_connection::TOOL,
        execute_connection::TOOL,
        get_guide::TOOL,
        add_connection::TOOL,
        list_connections::TOOL,
        list_connection_tools::TOOL,
        reconnect_connection::TOOL,
        remove_connection::TOOL,
        get_connection::TOOL,
        set_connection_playbooks::TOOL,
        set_connection_signing_secret::TOOL,
        remove_connection_signing_secret::TOOL,
        list_providers::TOOL,
        read_link::TOOL,
        approve::TOOL,
        give_credential::TOOL,
        give_client::TOOL,
        start::TOOL,
        finish::TOOL,
        cancel::TOOL,
        create_key::TOOL,
        list_keys::TOOL,
        revoke_key::TOOL,
        list_role_assignments::TOOL,
        assign_role::TOOL,
        unassign_role::TOOL,
    ];
    &TOOLS
}

/// The HTTP routes of a tool: its own path and, for `search` and the comment tools, the same
/// operation on a playbook.
pub fn routes(tool: &Tool) -> impl Iterator<Item = &'static str> {
    std::iter::once(tool.path).chain(tool.special.also)
}

/// A tool's description as an endpoint lists it: on a playbook's own endpoint, `list_comments`
/// also says what that playbook's open comments are.
pub fn description(tool: &Tool, on_playbook: bool) -> String {
    match tool.special.on_playbook {
        Some(more) if on_playbook => format!("{} {more}", tool.description),
        _ => tool.description.to_string(),
    }
}

/// A tool's hints as a connection lists them: `run_definition` may change something while a
/// tool server serves the playbook (or, with none named, the org), since a function's tools may.
pub fn listed_hints(ctx: &Ctx<'_>, tool: &Tool, playbook: Option<&str>) -> Hints {
    if tool.special.hints_depend.is_none() {
        return tool.hints;
    }
    let served = !ctx.tool_servers.serving(&ctx.caller.org, playbook, ctx.caller.playbooks.as_deref()).is_empty();
    Hints { destructive: served, ..tool.hints }
}

/// Where a tool's hints as a connection lists them depend on the playbook's tool servers, the
/// words that say how: `/debug`, which knows no playbook, shows them beside the tool's own.
pub fn hints_depend(tool: &Tool) -> Option<&'static str> {
    tool.special.hints_depend
}

pub fn find(name: &str) -> Option<&'static Tool> {
    all().iter().find(|t| t.name == name)
}

/// The tools MCP offers a caller: those it may call.
pub fn offered(caller: &Caller) -> impl Iterator<Item = &'static Tool> + '_ {
    all().iter().filter(move |t| t.door == Door::Both && access::permits(caller, t, None).is_ok())
}

/// Whether the caller may run the tool at all, before its arguments are read.
pub fn permits(caller: &Caller, tool: &Tool) -> Result<(), Problem> {
    access::permits(caller, tool, None)
}

/// Runs one operation for either door: checks the caller's permission and the arguments
/// against the tool's input schema, then runs it.
pub async fn call(ctx: &Ctx<'_>, tool: &Tool, args: Value) -> Result<Output, Problem> {
    access::permits(ctx.caller, tool, Some(&args))?;
    check_args(tool, &args)?;
    let result = (tool.run)(ctx, args).await;
    if let Err(p) = &result {
        if p.reason == crate::core::Reason::Internal {
            ctx.backend.log(&format!("{}: {}", tool.name, p.detail));
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_unique_and_schemas_compile() {
        let mut seen = std::collections::HashSet::new();
        for t in all() {
            assert!(seen.insert(t.name), "{} listed twice", t.name);
            let schema = (t.input_schema)();
            assert_eq!(schema["type"], "object", "{}", t.name);
            assert!(crate::core::schema::Schema::compile(&schema).is_ok(), "{}", t.name);
            assert!(t.description.len() > 40, "{} needs a description that says when to use it", t.name);
        }
    }

    /// The least a schema takes, or with `all` every property it names: the first of a choice,
    /// the first type of several, the shortest string, the smallest number.
    fn example(schema: &Value, all: bool) -> Value {
        if let Some(v) = schema.get("const").or_else(|| schema.pointer("/enum/0")) {
            return v.clone();
        }
        if let Some(first) = schema.pointer("/anyOf/0").or_else(|| schema.pointer("/oneOf/0")) {
            return example(first, all);
        }
        let at_least = |key: &str, least: u64| schema.get(key).and_then(Value::as_u64).unwrap_or(least);
        let kind = schema.pointer("/type/0").unwrap_or(&schema["type"]);
        match kind.as_str() {
            Some("object") => {
                let required: Vec<&str> =
                    schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                let props = schema["properties"].as_object().into_iter().flatten();
                let taken = props.filter(|(k, _)| all || required.contains(&k.as_str()));
                Value::Object(taken.map(|(k, v)| (k.clone(), example(v, all))).collect())
            }
            Some("array") => Value::Array(vec![example(&schema["items"], all); at_least("minItems", 1) as usize]),
            Some("string") => json!("a".repeat(at_least("minLength", 1) as usize)),
            Some("integer" | "number") => json!(at_least("minimum", 1)),
            Some("boolean") => json!(false),
            _ => json!({}),
        }
    }

    /// Each tool's type takes what its schema takes: its required arguments alone, and every
    /// argument it names. A call the schema lets through may be refused, but never as a misfit.
    #[test]
    fn every_schema_fits_its_tools_type() {
        use futures::executor::block_on;
        let (caller, backend) = (Caller::local(Some("ada".into())), crate::ops::memory::Runtime::default());
        let ctx = args::tests::ctx(&caller, &backend);
        let mut checked = 0;
        for t in all() {
            for all_of_it in [false, true] {
                let args = example(&(t.input_schema)(), all_of_it);
                if check_args(t, &args).is_err() {
                    assert!(all_of_it, "{}: the schema refuses its least example {args}", t.name);
                    continue;
                }
                checked += 1;
                if let Err(p) = block_on(call(&ctx, t, args.clone())) {
                    assert!(!p.detail.starts_with("The arguments do not fit"), "{}: {args}: {}", t.name, p.detail);
                }
            }
        }
        assert!(checked > all().len(), "{checked}");
    }

    #[test]
    fn the_tools_set_apart_are_these() {
        let with = |apart: fn(&Special) -> bool| {
            all().iter().filter(|t| apart(&t.special)).map(|t| t.name).collect::<Vec<_>>()
        };
        let comments = ["list_comments", "resolve_comment", "make_comment", "reopen_comment"];
        assert_eq!(with(|s| s.also.is_some()), [&["search"][..], &comments].concat());
        assert_eq!(with(|s| s.on_playbook.is_some()), ["list_comments"]);
        assert_eq!(with(|s| s.hints_depend.is_some()), ["run_definition", "rerun_run"]);
        assert_eq!(with(|s| s.runs_saved), ["run_definition", "rerun_run"]);
        assert_eq!(with(|s| s.person_only), ["add_connection", "reconnect_connection"]);
        assert_eq!(with(|s| s.opens_link), ["add_connection", "reconnect_connection"]);
        assert_eq!(with(|s| s.lists_reached), ["list_playbooks"]);
        assert_eq!(with(|s| s.describes_guides), ["get_guide"]);
    }

    #[test]
    fn hints_follow_the_spec_table() {
        let h = |n: &str| find(n).map(|t| t.hints);
        assert_eq!(h("list_playbooks"), Some(Hints::READ));
        assert_eq!(h("get_playbook"), Some(Hints::READ));
        assert_eq!(h("get_guide"), Some(Hints::READ));
        assert_eq!(h("create_playbook"), Some(Hints::WRITE));
        assert_eq!(h("restore_playbook"), Some(Hints::WRITE));
        assert_eq!(h("update_playbook"), Some(Hints::WRITE_IDEMPOTENT));
        assert_eq!(h("retire_playbook"), Some(Hints::WRITE_IDEMPOTENT));
        let open = Hints { open_world: true, ..Hints::WRITE };
        assert_eq!(h("create_definition"), Some(open));
        // Destructive while a tool server serves the playbook, which listed_hints says.
        let run = Hints { destructive: false, ..open };
        assert_eq!(h("update_definition"), Some(Hints { idempotent: true, ..open }));
        for n in ["pause_definition", "resume_definition", "retire_definition"] {
            assert_eq!(h(n), Some(Hints::WRITE_IDEMPOTENT), "{n}");
        }
        assert_eq!(h("restore_definition"), Some(Hints::WRITE));
        assert_eq!(h("list_definitions"), Some(Hints::READ));
        assert_eq!(h("get_definition"), Some(Hints::READ));
        assert_eq!(h("run_definition"), Some(run));
        assert_eq!(h("get_run"), Some(Hints::READ));
        assert_eq!(h("list_runs"), Some(Hints::READ));
        assert_eq!(h("get_stats"), Some(Hints::READ));
        assert_eq!(h("publish_event"), Some(Hints::WRITE));
        assert_eq!(h("cancel_run"), Some(Hints::WRITE_IDEMPOTENT));
        assert_eq!(h("answer_interaction"), Some(Hints::WRITE_IDEMPOTENT));
        assert_eq!(h("list_interactions"), Some(Hints::READ));
        assert_eq!(h("list_playbook_events"), Some(Hints::READ));
        assert_eq!(h("get_event"), Some(Hints::READ));
        assert_eq!(h("add_connection"), Some(Hints::WRITE));
        assert_eq!(h("list_connections"), Some(Hints::READ));
        assert_eq!(h("list_connection_tools"), Some(Hints { open_world: true, ..Hints::READ }));
        assert_eq!(h("reconnect_connection"), Some(Hints::WRITE));
        assert_eq!(h("remove_connection"), Some(Hints::WRITE_IDEMPOTENT));
    }
}
