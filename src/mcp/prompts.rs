//! The prompts a connection offers: `get-started`, for a person who does not yet know what to ask.

use serde_json::{json, Map, Value};

use super::jsonrpc::RpcError;

pub struct Prompt {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// Offered only where the connection lists every one of these tools.
    pub needs: &'static [&'static str],
    pub message: &'static str,
}

pub const GET_STARTED: Prompt = Prompt {
    name: "get-started",
    title: "Get started with Auto",
    description: "For a person who does not yet know what to ask: builds a first playbook with them.",
    needs: &["create_playbook", "create_definition", "run_definition"],
    message: "Create a playbook in Auto with one function and run it on a made-up example. Ask me what the playbook is for and anything else you need first, then give me a link to the run in Studio.",
};

const ALL: [Prompt; 1] = [GET_STARTED];

pub fn offered(listed_tools: &[&str]) -> Vec<&'static Prompt> {
    ALL.iter().filter(|p| p.needs.iter().all(|t| listed_tools.contains(t))).collect()
}

pub fn list(listed_tools: &[&str]) -> Value {
    let prompts: Vec<Value> = offered(listed_tools)
        .iter()
        .map(|p| json!({ "name": p.name, "title": p.title, "description": p.description, "arguments": [] }))
        .collect();
    json!({ "prompts": prompts })
}

pub fn get(listed_tools: &[&str], params: &Map<String, Value>) -> Result<Value, RpcError> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params("prompts/get needs the argument name, the prompt's name."));
    };
    let Some(prompt) = offered(listed_tools).into_iter().find(|p| p.name == name) else {
        let names: Vec<&str> = offered(listed_tools).iter().map(|p| p.name).collect();
        return Err(RpcError::invalid_params(format!(
            "Unknown prompt: {name}. This connection offers: {}.",
            names.join(", ")
        )));
    };
    if let Some(args) = params.get("arguments") {
        if !args.is_object() && !args.is_null() {
            return Err(RpcError::invalid_params("arguments must be an object of strings."));
        }
    }
    Ok(json!({
        "description": prompt.description,
        "messages": [ { "role": "user", "content": { "type": "text", "text": prompt.message } } ]
    }))
}
