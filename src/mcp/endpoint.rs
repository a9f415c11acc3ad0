//! The MCP endpoints and what each acts on: `/mcp` the caller's own org and, through a
//! `playbook` argument, its playbooks; `/orgs/{org}/mcp` one org's playbooks; and
//! `/orgs/{org}/playbooks/{playbook}/mcp` one playbook, whose tools then take no `playbook`;
//! and the run-mode endpoints, `/orgs/{org}/tools/mcp` and
//! `/orgs/{org}/playbooks/{playbook}/tools/mcp`, which offer the workflows offered as tools and
//! the tools that follow their runs, and nothing that builds.

use serde_json::Value;

use crate::core::caller::Principal;
use crate::core::definition::workflow_tool::RUN_MODE_TOOLS;
use crate::core::directory::unknown_playbook;
use crate::core::{Caller, Problem};
use crate::tools::{self, Reach, Tool};

/// The tools of generation functions, which the directory listing does not list (spec: Endpoints),
/// and `rerun_run`, which could start a generation function's run again, or a workflow's that
/// runs one, by the id of a run alone.
pub const DIRECTORY_LEAVES_OUT: &[&str] = &["list_generation_models", "get_asset", "rerun_run"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Root,
    /// The directory listing: the caller's own org, as `/mcp`, less what a directory leaves out
    /// (generation functions and tool servers that handle money).
    Directory,
    Org {
        org: String,
    },
    Playbook {
        org: String,
        playbook: String,
    },
    /// Run mode: one playbook's offered workflows, or, without a playbook, every playbook's the
    /// caller reaches.
    Run {
        org: String,
        playbook: Option<String>,
    },
}

impl Endpoint {
    /// The endpoint a path names, if it names one.
    pub fn from_path(path: &str) -> Option<Endpoint> {
        let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
        match parts.as_slice() {
            ["", "mcp"] => Some(Endpoint::Root),
            ["", "directory"] => Some(Endpoint::Directory),
            ["", "orgs", org, "mcp"] if !org.is_empty() => Some(Endpoint::Org { org: org.to_string() }),
            ["", "orgs", org, "playbooks", pb, "mcp"] if !org.is_empty() && !pb.is_empty() => {
                Some(Endpoint::Playbook { org: org.to_string(), playbook: pb.to_string() })
            }
            ["", "orgs", org, "tools", "mcp"] if !org.is_empty() => {
                Some(Endpoint::Run { org: org.to_string(), playbook: None })
            }
            ["", "orgs", org, "playbooks", pb, "tools", "mcp"] if !org.is_empty() && !pb.is_empty() => {
                Some(Endpoint::Run { org: org.to_string(), playbook: Some(pb.to_string()) })
            }
            _ => None,
        }
    }

    /// A scoped endpoint grants nothing: its org must be the caller's, and its playbook one the
    /// caller reaches. The operator manages access over HTTP and connects to none.
    pub fn admit(&self, caller: &Caller) -> Result<(), Problem> {
        if caller.principal == Principal::Operator {
            return Err(Problem::forbidden(
                "ADMIN_TOKEN manages keys and roles over HTTP, and connects to no MCP endpoint: connect with a key or sign in.",
            ));
        }
        match self {
            Endpoint::Org { org } | Endpoint::Playbook { org, .. } | Endpoint::Run { org, .. }
                if *org != caller.org =>
            {
                Err(Problem::forbidden(format!(
                    "This caller acts in the org {}; it cannot connect to the org {org}.",
                    caller.org
                )))
            }
            Endpoint::Playbook { playbook, .. } | Endpoint::Run { playbook: Some(playbook), .. }
                if !caller.reaches(playbook) =>
            {
                Err(unknown_playbook(playbook))
            }
            _ => Ok(()),
        }
    }

    /// The operations this endpoint lists to this caller; the directory listing leaves out those of
    /// generation functions. A run-mode endpoint lists its workflows' tools beside these
    /// (`mcp::offered`).
    pub fn tools<'c>(&'c self, caller: &'c Caller) -> impl Iterator<Item = &'static Tool> + 'c {
        tools::offered(caller).filter(move |t| match (self, t.reach) {
            (Endpoint::Directory, _) if DIRECTORY_LEAVES_OUT.contains(&t.name) => false,
            (Endpoint::Run { .. }, _) => RUN_MODE_TOOLS.contains(&t.name),
            (Endpoint::Root | Endpoint::Directory, _) | (_, Reach::Anywhere) => true,
            (Endpoint::Org { .. }, reach) => reach == Reach::Org,
            (Endpoint::Playbook { .. }, reach) => reach == Reach::Playbook,
        })
    }

    /// The playbook a playbook endpoint fixes, which its tools take in place of an argument.
    pub fn playbook(&self) -> Option<&str> {
        match self {
            Endpoint::Playbook { playbook, .. } | Endpoint::Run { playbook: Some(playbook), .. } => Some(playbook),
            _ => None,
        }
    }

    /// The playbook this endpoint gives `tool` in place of its `playbook` argument: a playbook
    /// endpoint's own, to a tool that works inside a playbook or, like `search`, may.
    pub fn fixes_playbook(&self, tool: &Tool) -> Option<&str> {
        let takes = match tool.reach {
            Reach::Playbook => true,
            Reach::Anywhere => (tool.input_schema)().pointer("/properties/playbook").is_some(),
            Reach::Org => false,
        };
        self.playbook().filter(|_| takes)
    }

    /// A tool's input schema as this endpoint lists it: `/directory` takes no `generation` type
    /// and names no generation guide.
    pub fn input_schema(&self, tool: &Tool) -> Value {
        let mut schema = (tool.input_schema)();
        if *self == Endpoint::Directory {
            without_generation(&mut schema);
        }
        if self.fixes_playbook(tool).is_some() {
            if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
                props.remove("playbook");
            }
            if let Some(req) = schema.get_mut("required").and_then(Value::as_array_mut) {
                req.retain(|r| r != "playbook");
            }
        }
        schema
    }

    /// The sentence of the instructions that says what the connection acts on.
    pub fn acts_on(&self, caller: &Caller) -> String {
        match self {
            Endpoint::Root | Endpoint::Directory => {
                let mut s = match self {
                    Endpoint::Directory => "This connection is the directory listing, which acts on the caller's own org as /mcp does, less generation functions and tool servers that handle money".to_string(),
                    _ => "This connection acts on the caller's own org".to_string(),
                };
                let names: Vec<&str> = self.tools(caller).map(|t| t.name).collect();
                if names.contains(&"list_playbooks") && names.contains(&"create_playbook") {
                    s.push_str(": list_playbooks lists its playbooks and create_playbook makes a new one; a tool that works inside a playbook takes its id as playbook.");
                } else {
                    s.push_str("; a tool that works inside a playbook takes its id as playbook.");
                }
                s
            }
            Endpoint::Org { org } => format!(
                "This connection acts on the playbooks of the org {org}. Their functions are made on each playbook's own endpoint, /orgs/{org}/playbooks/<playbook>/mcp."
            ),
            Endpoint::Playbook { playbook, .. } => format!(
                "This connection acts on one playbook, {playbook}: its tools take no playbook argument."
            ),
            Endpoint::Run { org, playbook: Some(playbook) } => format!(
                "This connection runs the workflows the playbook {playbook} offers as tools, each a tool of its own that answers the run's output or its handle; get_run, list_runs, cancel_run, list_interactions and answer_interaction follow those runs and take no playbook argument. It builds nothing: the playbook is changed on /orgs/{org}/playbooks/{playbook}/mcp."
            ),
            Endpoint::Run { org, playbook: None } => format!(
                "This connection runs the workflows the playbooks of the org {org} offer as tools, each named <playbook>_<tool>, which answers the run's output or its handle; get_run, list_runs, cancel_run, list_interactions and answer_interaction follow those runs and take the playbook's id as playbook. It builds nothing: a playbook is changed on /orgs/{org}/playbooks/<playbook>/mcp."
            ),
        }
    }
}

/// A schema as `/directory` lists it: a definition `type` without `generation`, and
/// `get_guide`'s names without the generation guide.
fn without_generation(schema: &mut Value) {
    let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) else { return };
    if let Some(kind) = props.get_mut("type") {
        if let Some(values) = kind.get_mut("enum").and_then(Value::as_array_mut) {
            values.retain(|v| v != "generation");
            if kind.get("description").and_then(Value::as_str) == Some(crate::tools::definition_words::TYPE_HELP) {
                kind["description"] = Value::from(crate::tools::definition_words::DIRECTORY_TYPE_HELP);
            }
        }
    }
    if let Some(guide) = props.get_mut("guide").filter(|g| g.get("description").is_some()) {
        let names = crate::guides::served_names(true).join(", ");
        guide["description"] = Value::from(format!("The guide's name: one of {names}."));
    }
}

/// Whether a call's arguments name a generation function, as a definition tool's `type` or a
/// step's `type/name` would; `/directory` answers such a call `not_found`.
pub fn names_generation(args: &Value) -> bool {
    args.get("type").and_then(Value::as_str) == Some("generation")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_tools() {
        assert_eq!(Endpoint::from_path("/mcp"), Some(Endpoint::Root));
        assert_eq!(Endpoint::from_path("/directory"), Some(Endpoint::Directory));
        assert_eq!(Endpoint::from_path("/orgs/local/mcp"), Some(Endpoint::Org { org: "local".into() }));
        let pb = Endpoint::from_path("/orgs/local/playbooks/pb_x/mcp").unwrap();
        assert_eq!(pb.playbook(), Some("pb_x"));
        assert!(Endpoint::from_path("/orgs//mcp").is_none());
        let caller = Caller::local(None);
        let on_pb: Vec<&str> = pb.tools(&caller).map(|t| t.name).collect();
        assert!(on_pb.contains(&"create_definition") && on_pb.contains(&"get_guide"));
        assert!(!on_pb.contains(&"create_playbook"));
        let on_org: Vec<&str> = Endpoint::Org { org: "local".into() }.tools(&caller).map(|t| t.name).collect();
        assert!(on_org.contains(&"create_playbook") && !on_org.contains(&"create_definition"));
        let tool = tools::find("get_definition").unwrap();
        let schema = pb.input_schema(tool);
        assert!(schema["properties"].get("playbook").is_none());
        assert!(!schema["required"].as_array().unwrap().contains(&"playbook".into()));
        assert!(Endpoint::Org { org: "other".into() }.admit(&caller).is_err());
    }

    #[test]
    fn the_directory_lists_no_generation_tool() {
        let caller = Caller::local(None);
        let names = |e: Endpoint| e.tools(&caller).map(|t| t.name).collect::<Vec<_>>();
        let (root, directory) = (names(Endpoint::Root), names(Endpoint::Directory));
        assert!(root.contains(&"list_generation_models") && !directory.contains(&"list_generation_models"));
        assert!(names(Endpoint::Org { org: "local".into() }).contains(&"list_generation_models"));
        let playbook = Endpoint::Playbook { org: "local".into(), playbook: "pb".into() };
        assert!(!names(playbook).contains(&"list_generation_models"));
        let rest: Vec<&str> = root.into_iter().filter(|t| !DIRECTORY_LEAVES_OUT.contains(t)).collect();
        assert_eq!(rest, directory);
    }

    #[test]
    fn the_directory_does_not_list_get_asset() {
        let caller = Caller::local(None);
        let names = |e: Endpoint| e.tools(&caller).map(|t| t.name).collect::<Vec<_>>();
        assert!(names(Endpoint::Root).contains(&"get_asset") && !names(Endpoint::Directory).contains(&"get_asset"));
        assert!(!names(Endpoint::Org { org: "local".into() }).contains(&"get_asset"));
        assert!(names(Endpoint::Playbook { org: "local".into(), playbook: "pb".into() }).contains(&"get_asset"));
    }
}
