//! A workflow: steps that run functions of the playbook or wait, in the order their `after`
//! says, each with a condition, retries and a fallback, and the output built from them; and the
//! triggers that start it. The document is all front matter; the checker builds its `Plan`.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::check::{escape, Findings};
use super::{Kind, Ref, Spec};
use crate::core::definition::workflow_tool::ToolOffer;
use crate::core::error::Problem;
use crate::core::workflow::plan::{
    Action, Fields, OnFailure, Output, Plan, Retry, Step, Wait, BACKOFF_MAX, RETRY_ATTEMPTS_MAX, RETRY_DELAY_MAX,
};
use crate::core::workflow::trigger::{check_triggers, filter_where};
use crate::core::workflow::Filter;

const KEYS: &[&str] = &["description", "page", "glance", "input", "steps", "output", "triggers", "tool"];
const STEP_KEYS: &[&str] = &["id", "function", "input", "wait", "after", "when", "retry", "on_failure", "fallback"];
pub const STEPS_MAX: usize = 50;
pub const STEP_ID_MAX: usize = 40;
/// The longest a wait may last: a year.
pub const WAIT_MAX_SECONDS: i64 = 366 * 86_400;

/// A workflow as its runs start: the input they take and the plan they follow. Only its checker makes one.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkflowSpec {
    input_schema: Value,
    plan: Plan,
    tool: Option<ToolOffer>,
}

impl WorkflowSpec {
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The tool the workflow offers itself as, where its front matter offers one.
    pub fn tool(&self) -> Option<&ToolOffer> {
        self.tool.as_ref()
    }
}

/// The plan of a workflow document, as its runs follow it; refused as `check_document` refuses it.
pub fn plan(source: &str) -> Result<Plan, Problem> {
    match super::spec(Kind::Workflow, source)? {
        Spec::Workflow(w) => Ok(w.plan),
        _ => Err(Problem::internal("the workflow passed its checks but has no plan")),
    }
}

/// The spec, where the document gave every part of it; each problem goes to the findings.
pub fn check(f: &mut Findings<'_>) -> Option<WorkflowSpec> {
    f.only_keys("", KEYS, "a workflow");
    f.only_keys("/input", &["schema"], "input");
    let mut required = Vec::new();
    let mut input_schema = None;
    if f.mapping("/input", true).is_some() {
        input_schema = f.schema("/input/schema", true, true);
        if let Some(schema) = input_schema {
            let names = schema.get("required").and_then(Value::as_array).into_iter().flatten();
            required = names.filter_map(Value::as_str).map(str::to_string).collect();
        }
    }
    let steps = steps(f);
    let output = output(f, steps.as_deref());
    let triggers = check_triggers(f, &required);
    let tool = crate::core::definition::workflow_tool::check(f);
    f.empty_body("A workflow");
    let plan = Plan { steps: steps?, output: output?, triggers };
    Some(WorkflowSpec { input_schema: input_schema?.clone(), plan, tool })
}

fn steps(f: &mut Findings<'_>) -> Option<Vec<Step>> {
    let Some(list) = f.get("/steps").and_then(Value::as_array) else {
        f.error("/steps", "is required: a list of steps, each with an id and a function to run or a wait");
        return None;
    };
    if list.is_empty() || list.len() > STEPS_MAX {
        f.error("/steps", format!("must list 1 to {STEPS_MAX} steps"));
    }
    // Ids first, so that every reference can be checked whatever its place.
    let mut index: HashMap<String, usize> = HashMap::new();
    for i in 0..list.len() {
        let at = format!("/steps/{i}/id");
        if f.mapping(&format!("/steps/{i}"), true).is_none() {
            continue;
        }
        let Some(id) = f.string(&at, true, STEP_ID_MAX) else { continue };
        if let Some(problem) = id_problem(id) {
            f.error(at, problem);
        } else if index.insert(id.to_string(), i).is_some() {
            f.error(at, "is the id of an earlier step; each step has its own");
        }
    }
    let fallbacks = fallbacks(f, list.len(), &index);
    let mut drafts = Vec::new();
    let mut previous: Option<String> = None;
    for i in 0..list.len() {
        let draft = step(f, i, &index, &fallbacks, previous.as_deref());
        if let Some(s) = &draft {
            if s.fallback_for.is_none() {
                previous = Some(s.id.clone());
            }
        }
        drafts.push(draft);
    }
    let steps: Vec<Step> = drafts.into_iter().collect::<Option<_>>()?;
    super::workflow_graph::check_graph(f, &steps)?;
    Some(steps)
}

/// fallback step id → (the step it stands in for), with each fallback named once.
fn fallbacks(f: &mut Findings<'_>, n: usize, index: &HashMap<String, usize>) -> HashMap<String, String> {
    let mut found: HashMap<String, String> = HashMap::new();
    for i in 0..n {
        let at = format!("/steps/{i}/fallback");
        let Some(name) = f.string(&at, false, STEP_ID_MAX) else { continue };
        let own = f.get(&format!("/steps/{i}/id")).and_then(Value::as_str).unwrap_or_default().to_string();
        if !index.contains_key(name) {
            f.error(at, format!("names no step of this workflow: {name}"));
        } else if name == own {
            f.error(at, "names the step itself; a fallback is another step, run when this one fails");
        } else if let Some(first) = found.get(name) {
            f.error(at, format!("names {name}, the fallback of {first} already; a step is the fallback of one step"));
        } else {
            found.insert(name.to_string(), own);
        }
    }
    found
}

fn step(
    f: &mut Findings<'_>,
    i: usize,
    index: &HashMap<String, usize>,
    fallbacks: &HashMap<String, String>,
    previous: Option<&str>,
) -> Option<Step> {
    let at = format!("/steps/{i}");
    f.mapping(&at, true)?;
    f.only_keys(&at, STEP_KEYS, "a step");
    let id = f.get(&format!("{at}/id")).and_then(Value::as_str).filter(|s| index.get(*s) == Some(&i))?.to_string();
    let fallback_for = fallbacks.get(&id).cloned();
    let after = after(f, &at, &id, index, fallback_for.is_some(), previous);
    let when = f.string(&format!("{at}/when"), false, 1000).map(str::to_string);
    if fallback_for.is_some() && when.is_some() {
        f.error(format!("{at}/when"), "belongs to no fallback: a fallback runs when the step it stands in for fails");
    }
    let action = match (f.get(&format!("{at}/function")).is_some(), f.get(&format!("{at}/wait")).is_some()) {
        (true, true) => {
            f.error(format!("{at}/wait"), "a step runs a function or waits: give function or wait, not both");
            None
        }
        (false, false) => {
            f.error(format!("{at}/function"), "is required, or wait: a step runs a function or waits");
            None
        }
        (true, false) => call(f, &at),
        (false, true) => wait(f, &at),
    };
    if !matches!(action, Some(Action::Call { .. })) && f.get(&format!("{at}/input")).is_some() {
        f.error(format!("{at}/input"), "belongs to a step that runs a function; a wait takes no input");
    }
    let retry = retry(f, &at, matches!(action, Some(Action::Wait(_))));
    let on_failure = match (f.string(&format!("{at}/on_failure"), false, 16), f.get(&format!("{at}/fallback"))) {
        (Some(_), Some(_)) => {
            f.error(
                format!("{at}/on_failure"),
                "is left out where a step names a fallback: the fallback runs when it fails",
            );
            OnFailure::Fail
        }
        (_, Some(name)) => OnFailure::Fallback(name.as_str().unwrap_or_default().to_string()),
        (None | Some("fail"), None) => OnFailure::Fail,
        (Some("continue"), None) => OnFailure::Continue,
        (Some(_), None) => {
            f.error(
                format!("{at}/on_failure"),
                "must be fail or continue; to run another step in its place, name it as fallback",
            );
            OnFailure::Fail
        }
    };
    Some(Step { id, after: after?, when, action: action?, retry, on_failure, fallback_for })
}

fn after(
    f: &mut Findings<'_>,
    at: &str,
    id: &str,
    index: &HashMap<String, usize>,
    is_fallback: bool,
    previous: Option<&str>,
) -> Option<Vec<String>> {
    let pointer = format!("{at}/after");
    let Some(value) = f.get(&pointer) else {
        return Some(if is_fallback { Vec::new() } else { previous.map(str::to_string).into_iter().collect() });
    };
    if is_fallback {
        f.error(&pointer, "belongs to no fallback: a fallback runs when the step it stands in for fails");
        return None;
    }
    let Some(list) = value.as_array() else {
        f.error(
            pointer,
            "must be a list of the ids of the steps this one follows, as [review_brief]; [] starts it at once",
        );
        return None;
    };
    let mut seen = BTreeSet::new();
    let mut ok = true;
    for (j, item) in list.iter().enumerate() {
        let p = format!("{pointer}/{j}");
        match item.as_str() {
            Some(name) if name == id => {
                f.error(p, "names the step itself; a step follows other steps");
                ok = false;
            }
            Some(name) if index.contains_key(name) => {
                if !seen.insert(name.to_string()) {
                    f.error(p, format!("names {name} a second time; name each step once"));
                }
            }
            _ => {
                f.error(p, "names no step of this workflow");
                ok = false;
            }
        }
    }
    ok.then(|| seen.into_iter().collect())
}

fn call(f: &mut Findings<'_>, at: &str) -> Option<Action> {
    let pointer = format!("{at}/function");
    let text = f.string(&pointer, true, 80)?;
    let function = match Ref::parse(text) {
        Some(r) if r.kind == Kind::Workflow => {
            f.error(&pointer, "names a workflow; a step runs a function: its reasoning, lookup, interaction, prediction, computation or generation");
            None
        }
        Some(r) if !r.kind.served() => {
            f.error(&pointer, format!("names a {} function, which this runtime does not serve yet", r.kind.as_str()));
            None
        }
        Some(r) => Some(r),
        None => {
            f.error(
                &pointer,
                "must name a function of this playbook as type/name, such as reasoning/review-campaign-brief",
            );
            None
        }
    };
    let input = fields(f, &format!("{at}/input"), false).unwrap_or_default();
    Some(Action::Call { function: function?, input })
}

fn wait(f: &mut Findings<'_>, at: &str) -> Option<Action> {
    let pointer = format!("{at}/wait");
    f.mapping(&pointer, true)?;
    f.only_keys(&pointer, &["event", "where", "timeout_seconds", "seconds", "until"], "wait");
    let given: Vec<&str> =
        ["event", "seconds", "until"].into_iter().filter(|k| f.get(&format!("{pointer}/{k}")).is_some()).collect();
    for key in ["where", "timeout_seconds"] {
        if given != ["event"] && f.get(&format!("{pointer}/{key}")).is_some() {
            f.error(format!("{pointer}/{key}"), "belongs to a wait for an event; give event, or leave it out");
        }
    }
    match given.as_slice() {
        ["event"] => {
            let kind = f.string(&format!("{pointer}/event"), true, 64)?;
            if crate::core::event::check_kind(kind).is_err() {
                f.error(format!("{pointer}/event"), "must name an event kind: lowercase letters, digits, _ . and -, starting with a letter, as brief_submitted");
                return None;
            }
            let mut filter = Filter::kind(kind);
            filter.fields = filter_where(f, &format!("{pointer}/where")).unwrap_or_default();
            let timeout_seconds = f.integer(&format!("{pointer}/timeout_seconds"), 1, WAIT_MAX_SECONDS);
            Some(Action::Wait(Wait::Event { filter, timeout_seconds }))
        }
        ["seconds"] => {
            let s = f.integer(&format!("{pointer}/seconds"), 1, WAIT_MAX_SECONDS);
            if s.is_none() && f.get(&format!("{pointer}/seconds")).is_some_and(Value::is_null) {
                f.error(format!("{pointer}/seconds"), format!("must be a whole number from 1 to {WAIT_MAX_SECONDS}"));
            }
            s.map(|s| Action::Wait(Wait::Seconds(s)))
        }
        ["until"] => {
            f.string(&format!("{pointer}/until"), true, 1000).map(|e| Action::Wait(Wait::Until(e.to_string())))
        }
        _ => {
            f.error(pointer, "must wait for one thing: an event, a number of seconds, or until a time");
            None
        }
    }
}

fn retry(f: &mut Findings<'_>, at: &str, is_wait: bool) -> Retry {
    let pointer = format!("{at}/retry");
    let mut retry = Retry::default();
    if f.mapping(&pointer, false).is_none() {
        return retry;
    }
    if is_wait {
        f.error(&pointer, "belongs to a step that runs a function; a wait is not tried again");
    }
    f.only_keys(&pointer, &["attempts", "delay_seconds", "backoff"], "retry");
    if let Some(n) = f.integer(&format!("{pointer}/attempts"), 1, RETRY_ATTEMPTS_MAX) {
        retry.attempts = n as u32;
    }
    if let Some(n) = f.integer(&format!("{pointer}/delay_seconds"), 1, RETRY_DELAY_MAX) {
        retry.delay_seconds = n;
    }
    if let Some(n) = f.integer(&format!("{pointer}/backoff"), 1, BACKOFF_MAX) {
        retry.backoff = n;
    }
    retry
}

/// A mapping of names to expressions, written as text. The expressions are checked later, with
/// the steps they may name.
pub fn fields(f: &mut Findings<'_>, pointer: &str, required: bool) -> Option<Fields> {
    let map = f.mapping(pointer, required)?;
    let mut fields = Vec::new();
    for (key, value) in map {
        match value.as_str() {
            Some(expr) => fields.push((key.clone(), expr.to_string())),
            None => f.error(
                format!("{pointer}/{}", escape(key)),
                "must be an expression written as text, such as input.file or steps.review_brief.output; quote text as 'text'",
            ),
        }
    }
    Some(fields)
}

fn output(f: &mut Findings<'_>, steps: Option<&[Step]>) -> Option<Output> {
    let output = match f.get("/output") {
        None | Some(Value::Null) => Output::Steps,
        Some(Value::String(expr)) => Output::Expression(expr.clone()),
        Some(Value::Object(_)) => Output::Fields(fields(f, "/output", true)?),
        Some(_) => {
            f.error("/output", "must be a mapping of fields to expressions, or one expression written as text");
            return None;
        }
    };
    let names: Vec<String> = steps.unwrap_or_default().iter().map(|s| s.id.clone()).collect();
    let exprs: Fields = match &output {
        Output::Steps => Vec::new(),
        Output::Expression(e) => vec![(String::new(), e.clone())],
        Output::Fields(fields) => fields.clone(),
    };
    for (key, expr) in exprs {
        let pointer = if key.is_empty() { "/output".to_string() } else { format!("/output/{}", escape(&key)) };
        super::workflow_graph::check_expression(f, &pointer, &expr, steps.map(|_| names.as_slice()), &names);
    }
    Some(output)
}

/// A step's id: lowercase letters, digits and `_`, starting with a letter, so that an expression
/// can name it as `steps.review_brief`.
pub fn id_problem(id: &str) -> Option<String> {
    let ok = id.starts_with(|c: char| c.is_ascii_lowercase())
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    (!ok).then(|| {
        "must hold lowercase letters, digits and _, starting with a letter, as review_brief; summaries read it as review brief"
            .to_string()
    })
}
