//! The prompts a connection offers: `get-started`, for a person who does not yet know what to
//! ask, then the recipes, each the guide of the same name with the person's words filled in.
//! A prompt is offered only where the connection lists every tool its steps call.

use serde_json::{json, Map, Value};

use super::jsonrpc::RpcError;
use crate::core::text::{join_and, quote};
use crate::guides;

pub struct Argument {
    pub name: &'static str,
    pub description: &'static str,
    pub required: bool,
    /// What the recipe reads in place of an optional argument left out.
    pub absent: &'static str,
}

/// What a prompt answers: one fixed message, or a recipe guide and the format guide it names.
pub enum Body {
    Message(&'static str),
    Recipe { format: Option<&'static str> },
}

pub struct Prompt {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub arguments: &'static [Argument],
    /// Offered only where the connection lists every one of these tools.
    pub needs: &'static [&'static str],
    pub body: Body,
}

/// The longest value an argument may carry: a person's words, not a document.
const ARGUMENT_MAX_CHARS: usize = 1000;

const ALL: [Prompt; 7] = [
    Prompt {
        name: "get-started",
        title: "Get started with Auto",
        description: "For a person who does not yet know what to ask: builds a first playbook with them.",
        arguments: &[],
        needs: &["create_playbook", "create_definition", "run_definition"],
        body: Body::Message(
            "Create a playbook in Auto with one function and run it on a made-up example. Ask me what the playbook is for and anything else you need first, then give me a link to the run in Studio.",
        ),
    },
    Prompt {
        name: "first-playbook",
        title: "Create your first playbook",
        description: "Creates a playbook from the job the person wants done again and again: a function of the right type for each part and the workflow that runs them, each with its page, saved and run once the person has agreed.",
        arguments: &[],
        needs: &[
            "list_playbooks",
            "create_playbook",
            "get_guide",
            "create_definition",
            "update_definition",
            "run_definition",
            "get_run",
            "list_interactions",
            "answer_interaction",
            "list_playbook_events",
        ],
        body: Body::Recipe { format: None },
    },
    Prompt {
        name: "connect-a-service",
        title: "Connect a service",
        description: "Connects a service the team uses, asks for the access the playbook needs to run and to be set up there, in one approval where the provider's first consent or a group of its more covers both, sets the service up by hand once the person agrees, and says what it can do.",
        arguments: &[Argument {
            name: "service",
            description: "The service to connect, such as Slack or Google Drive.",
            required: true,
            absent: "",
        }],
        // Its steps add the connection, which the org's tools do, and set the service up by
        // hand, which a playbook's tools do: so only /mcp and /directory offer it.
        needs: &[
            "search",
            "add_connection",
            "list_connections",
            "list_connection_tools",
            "reconnect_connection",
            "remove_connection",
            "introspect",
            "dry_run",
            "query_connection",
            "execute_connection",
        ],
        body: Body::Recipe { format: None },
    },
    Prompt {
        name: "give-tools",
        title: "Give the playbook tools",
        description: "Puts the tools of the playbook's tool servers to work: a lookup function for a read, an interaction function for an act or a message, and a reasoning function's tools only where its model must choose, by the mark each tool declares.",
        arguments: &[Argument {
            name: "server",
            description: "The tool server whose tools to use, by its name as search lists it, or in the person's words.",
            required: false,
            absent: "the servers search lists for it",
        }],
        needs: &[
            "search",
            "introspect",
            "dry_run",
            "query_connection",
            "execute_connection",
            "get_guide",
            "create_definition",
            "update_definition",
            "run_definition",
            "list_playbook_events",
        ],
        body: Body::Recipe { format: None },
    },
    Prompt {
        name: "schedule",
        title: "Run a workflow on a schedule",
        description: "Starts a workflow on a schedule or on an event, and reads how its runs went.",
        arguments: &[
            Argument { name: "workflow", description: "The workflow to start, by its name or in the person's words.", required: true, absent: "" },
            Argument { name: "when", description: "When to run it, in the person's words, such as every Monday at 9 in Paris.", required: true, absent: "" },
        ],
        needs: &[
            "list_definitions",
            "get_definition",
            "update_definition",
            "resume_definition",
            "list_runs",
            "get_run",
            "list_interactions",
            "answer_interaction",
        ],
        body: Body::Recipe { format: Some("triggers") },
    },
    Prompt {
        name: "keep",
        title: "Keep something for later",
        description: "Keeps what the person wants kept as the output of a run, and reads it back with a lookup of that definition's runs.",
        arguments: &[Argument { name: "what", description: "What to keep, in the person's words.", required: true, absent: "" }],
        needs: &["list_definitions", "create_definition", "run_definition"],
        body: Body::Recipe { format: Some("lookup-function") },
    },
    Prompt {
        name: "try-before-you-save",
        title: "Try before you save",
        description: "Checks a document without saving it, rehearses it on stand-ins so that nothing reaches a tool, a model or a person, then saves and runs it, and runs a failed workflow again from its failing step.",
        arguments: &[Argument {
            name: "definition",
            description: "The function or workflow to build or change, by its name or in the person's words.",
            required: false,
            absent: "what the person asks for next",
        }],
        needs: &["get_guide", "check_definition", "create_definition", "update_definition", "run_definition", "get_run", "list_runs", "rerun_run"],
        body: Body::Recipe { format: None },
    },
];

pub fn all() -> &'static [Prompt] {
    &ALL
}

pub fn offered(listed_tools: &[&str]) -> Vec<&'static Prompt> {
    ALL.iter().filter(|p| p.needs.iter().all(|t| listed_tools.contains(t))).collect()
}

/// The recipes a connection can follow, which `get_guide`'s description names.
pub fn recipes_sentence(listed_tools: &[&str]) -> String {
    let names: Vec<String> = offered(listed_tools)
        .iter()
        .filter(|p| matches!(p.body, Body::Recipe { .. }))
        .map(|p| p.name.to_string())
        .collect();
    if names.is_empty() {
        "This connection can follow no recipe: each calls tools it does not list.".into()
    } else {
        format!("The recipes this connection can follow, step by step, are {}.", join_and(&names))
    }
}

pub fn list(listed_tools: &[&str]) -> Value {
    let prompts: Vec<Value> = offered(listed_tools)
        .iter()
        .map(|p| {
            let arguments: Vec<Value> = p
                .arguments
                .iter()
                .map(|a| json!({ "name": a.name, "description": a.description, "required": a.required }))
                .collect();
            json!({ "name": p.name, "title": p.title, "description": p.description, "arguments": arguments })
        })
        .collect();
    json!({ "prompts": prompts })
}

pub fn get(listed_tools: &[&str], params: &Map<String, Value>) -> Result<Value, RpcError> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params("prompts/get needs the argument name, the prompt's name."));
    };
    let Some(prompt) = offered(listed_tools).into_iter().find(|p| p.name == name) else {
        let names: Vec<&str> = offered(listed_tools).iter().map(|p| p.name).collect();
        let offers = if names.is_empty() { "no prompt".to_string() } else { names.join(", ") };
        return Err(RpcError::invalid_params(format!("Unknown prompt: {name}. This connection offers: {offers}.")));
    };
    let given = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(RpcError::invalid_params("arguments must be an object of strings.")),
    };
    let words = arguments(prompt, &given)?;
    let messages = match &prompt.body {
        Body::Message(text) => vec![text_message(text)],
        Body::Recipe { format } => recipe_messages(prompt, &words, *format)?,
    };
    Ok(json!({ "description": prompt.description, "messages": messages }))
}

/// The person's words for each argument the prompt takes, each checked.
fn arguments<'p>(prompt: &'p Prompt, given: &Map<String, Value>) -> Result<Vec<(&'p str, String)>, RpcError> {
    if let Some(unknown) = given.keys().find(|k| !prompt.arguments.iter().any(|a| a.name == k.as_str())) {
        let takes: Vec<&str> = prompt.arguments.iter().map(|a| a.name).collect();
        let takes = if takes.is_empty() { "no argument".to_string() } else { takes.join(", ") };
        return Err(RpcError::invalid_params(format!(
            "The prompt {} takes no argument {unknown}; it takes {takes}.",
            prompt.name
        )));
    }
    let mut words = Vec::new();
    for a in prompt.arguments {
        let value = match given.get(a.name) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) if s.chars().count() > ARGUMENT_MAX_CHARS => {
                return Err(RpcError::invalid_params(format!(
                    "The argument {} of the prompt {} holds more than {ARGUMENT_MAX_CHARS} characters.",
                    a.name, prompt.name
                )))
            }
            Some(Value::String(s)) => Some(s.trim().to_string()),
            Some(_) => {
                return Err(RpcError::invalid_params(format!(
                    "The argument {} of the prompt {} must be a string.",
                    a.name, prompt.name
                )))
            }
        };
        match value {
            Some(v) => words.push((a.name, v)),
            None if a.required => {
                return Err(RpcError::invalid_params(format!(
                    "The prompt {} needs the argument {}: {}",
                    prompt.name, a.name, a.description
                )))
            }
            None => {}
        }
    }
    Ok(words)
}

/// The recipe with the person's words in place of its `<argument>` marks, then the format
/// guide it names, embedded as the resource `guide://<name>`.
fn recipe_messages(prompt: &Prompt, words: &[(&str, String)], format: Option<&str>) -> Result<Vec<Value>, RpcError> {
    let missing =
        |name: &str| RpcError::new(super::jsonrpc::INTERNAL_ERROR, format!("The guide {name} is not served."));
    let recipe = guides::find(prompt.name).ok_or_else(|| missing(prompt.name))?;
    let mut text = recipe.text.to_string();
    for (name, value) in words {
        text = text.replace(&format!("`<{name}>`"), &quote(value));
    }
    for a in prompt.arguments.iter().filter(|a| !words.iter().any(|(n, _)| *n == a.name)) {
        text = text.replace(&format!("`<{}>`", a.name), a.absent);
    }
    let mut messages = vec![text_message(&text)];
    if let Some(name) = format {
        let guide = guides::find(name).ok_or_else(|| missing(name))?;
        messages.push(json!({
            "role": "user",
            "content": {
                "type": "resource",
                "resource": { "uri": format!("guide://{name}"), "mimeType": "text/markdown", "text": guide.text }
            }
        }));
    }
    Ok(messages)
}

fn text_message(text: &str) -> Value {
    json!({ "role": "user", "content": { "type": "text", "text": text } })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Caller;
    use crate::mcp::endpoint::Endpoint;

    fn listed(endpoint: &Endpoint) -> Vec<&'static str> {
        let caller = Caller::local(None);
        endpoint.tools(&caller).map(|t| t.name).collect()
    }

    fn names(endpoint: &Endpoint) -> Vec<&'static str> {
        offered(&listed(endpoint)).iter().map(|p| p.name).collect()
    }

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn each_endpoint_offers_the_recipes_whose_tools_it_lists() {
        let everything = [
            "get-started",
            "first-playbook",
            "connect-a-service",
            "give-tools",
            "schedule",
            "keep",
            "try-before-you-save",
        ];
        assert_eq!(names(&Endpoint::Root), everything);
        // `/directory` leaves out rerun_run, which the last recipe calls.
        assert_eq!(names(&Endpoint::Directory), everything[..6]);
        assert!(names(&Endpoint::Org { org: "local".into() }).is_empty());
        let pb = Endpoint::Playbook { org: "local".into(), playbook: "pb_x".into() };
        assert_eq!(names(&pb), ["give-tools", "schedule", "keep", "try-before-you-save"]);
        let reader = Caller {
            scopes: vec![crate::core::caller::Scope::OrgRead, crate::core::caller::Scope::PlaybookRead],
            ..Caller::local(None)
        };
        let read_only: Vec<&str> = Endpoint::Root.tools(&reader).map(|t| t.name).collect();
        assert!(offered(&read_only).is_empty(), "a caller that may only read gets no prompt");
        assert_eq!(
            recipes_sentence(&listed(&pb)),
            "The recipes this connection can follow, step by step, are give-tools, schedule, keep and try-before-you-save."
        );
    }

    #[test]
    fn every_recipe_is_a_guide_and_needs_only_real_tools() {
        for p in all() {
            for t in p.needs {
                assert!(crate::tools::find(t).is_some(), "{} needs {t}, which is no tool", p.name);
            }
            if let Body::Recipe { format } = p.body {
                let guide = guides::find(p.name).unwrap_or_else(|| panic!("no guide {}", p.name));
                assert_eq!(guide.title, p.title, "{}", p.name);
                for a in p.arguments {
                    assert!(guide.text.contains(&format!("`<{}>`", a.name)), "{} never uses <{}>", p.name, a.name);
                }
                if let Some(f) = format {
                    assert!(guides::find(f).is_some(), "{} names {f}", p.name);
                }
            }
        }
    }

    #[test]
    fn a_recipe_fills_in_the_persons_words_and_embeds_its_format_guide() {
        let all_tools = listed(&Endpoint::Root);
        let got = get(&all_tools, &params(json!({ "name": "schedule", "arguments": { "workflow": "weekly-review", "when": "every Monday at 9" } })))
            .expect("the schedule prompt");
        let text = got["messages"][0]["content"]["text"].as_str().unwrap_or_default();
        assert!(text.contains("The person wants the workflow “weekly-review” to run “every Monday at 9”."), "{text}");
        assert!(!text.contains("`<"), "every mark is filled: {text}");
        assert_eq!(got["messages"][1]["content"]["resource"]["uri"], "guide://triggers");
        let first = get(&all_tools, &params(json!({ "name": "first-playbook" }))).expect("first-playbook");
        assert_eq!(first["messages"].as_array().map(Vec::len), Some(1), "first-playbook names no format guide");
    }

    #[test]
    fn a_missing_or_wrong_argument_is_invalid_params_naming_it() {
        let all_tools = listed(&Endpoint::Root);
        let e = get(&all_tools, &params(json!({ "name": "keep" }))).expect_err("what is required");
        assert_eq!(e.code, crate::mcp::jsonrpc::INVALID_PARAMS);
        assert!(e.message.contains("the argument what"), "{}", e.message);
        let e = get(&all_tools, &params(json!({ "name": "schedule", "arguments": { "workflow": "w" } })))
            .expect_err("when");
        assert!(e.message.contains("the argument when"), "{}", e.message);
        let e = get(&all_tools, &params(json!({ "name": "keep", "arguments": { "what": 3 } }))).expect_err("a number");
        assert!(e.message.contains("must be a string"), "{}", e.message);
        let e = get(&all_tools, &params(json!({ "name": "keep", "arguments": { "what": "x", "how": "y" } })))
            .expect_err("an unknown argument");
        assert!(e.message.contains("no argument how"), "{}", e.message);
        let pb = Endpoint::Playbook { org: "local".into(), playbook: "pb_x".into() };
        let e = get(&listed(&pb), &params(json!({ "name": "first-playbook" }))).expect_err("not offered there");
        assert!(e.message.contains("schedule, keep"), "{}", e.message);
    }

    #[test]
    fn connect_a_service_needs_the_service_and_fills_it_in() {
        let all_tools = listed(&Endpoint::Root);
        let e = get(&all_tools, &params(json!({ "name": "connect-a-service" }))).expect_err("service is required");
        assert_eq!(e.code, crate::mcp::jsonrpc::INVALID_PARAMS);
        assert!(e.message.contains("the argument service"), "{}", e.message);
        let got = get(&all_tools, &params(json!({ "name": "connect-a-service", "arguments": { "service": "Slack" } })))
            .expect("connect-a-service");
        let text = got["messages"][0]["content"]["text"].as_str().unwrap_or_default();
        assert!(text.contains("The person wants to connect “Slack”."), "{text}");
        assert!(!text.contains("`<service>`"), "every mark is filled: {text}");
        assert_eq!(got["messages"].as_array().map(Vec::len), Some(1), "connect-a-service names no format guide");
        let org = Endpoint::Org { org: "local".into() };
        let e =
            get(&listed(&org), &params(json!({ "name": "connect-a-service", "arguments": { "service": "Slack" } })))
                .expect_err("the org endpoint sets nothing up by hand");
        assert!(e.message.contains("offers: no prompt"), "{}", e.message);
    }

    #[test]
    fn give_tools_reads_the_servers_search_lists_where_no_server_is_named() {
        let all: Vec<&str> = listed(&Endpoint::Root);
        let any = get(&all, &params(json!({ "name": "give-tools" }))).expect("give-tools");
        let text = any["messages"][0]["content"]["text"].as_str().unwrap_or_default();
        assert!(text.contains("use the tools of the servers search lists for it."), "{text}");
        assert_eq!(any["messages"].as_array().map(Vec::len), Some(1), "give-tools names no format guide");
        let files = get(&all, &params(json!({ "name": "give-tools", "arguments": { "server": "files" } }))).unwrap();
        let text = files["messages"][0]["content"]["text"].as_str().unwrap_or_default();
        assert!(text.contains("use the tools of “files”."), "{text}");
    }
}
