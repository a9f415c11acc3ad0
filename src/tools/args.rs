//! Arguments are checked against the tool's input schema, the one statement of their rules,
//! and every violation comes back with a JSON pointer at the field; then they are read once, as
//! the tool's own type, before the tool runs.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;

use futures::future::LocalBoxFuture;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Ctx, Output, Tool};
use crate::core::schema::{Invalid, InvalidKind, Schema};
use crate::core::{FieldError, Problem};

thread_local! {
    // Compiled once per isolate: a Worker isolate is single-threaded and lives across requests.
    static VALIDATORS: RefCell<HashMap<&'static str, Schema>> = RefCell::new(HashMap::new());
}

pub fn check_args(tool: &Tool, args: &Value) -> Result<(), Problem> {
    if !args.is_object() {
        return Err(Problem::invalid("", "The arguments must be a JSON object."));
    }
    let errors = VALIDATORS.with(|cell| {
        let mut map = cell.borrow_mut();
        if !map.contains_key(tool.name) {
            match Schema::compile(&(tool.input_schema)()) {
                Ok(v) => {
                    map.insert(tool.name, v);
                }
                Err(e) => {
                    return Err(Problem::internal(format!("The input schema of {} does not compile: {e}", tool.name)))
                }
            }
        }
        let Some(validator) = map.get(tool.name) else {
            return Err(Problem::internal("validator missing"));
        };
        Ok(validator.iter_errors(args).map(|e| field_error(&e)).collect::<Vec<_>>())
    })?;
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Problem::invalid_fields(errors))
    }
}

/// Checks `value` against a schema that is not ours, such as a tool server's, with each pointer
/// under `prefix`. A schema that does not compile is said as the words of the `Err`.
pub fn check_against(schema: &Value, value: &Value, prefix: &str) -> Result<Vec<FieldError>, String> {
    // Compiled once per isolate, as every kept schema is: a tool is called with the same schema
    // again and again.
    let validator =
        crate::core::schema::compiled(schema).map_err(|e| format!("its input schema does not compile: {e}"))?;
    Ok(validator
        .iter_errors(value)
        .map(|e| {
            let mut f = field_error(&e);
            f.pointer = format!("{prefix}{}", f.pointer);
            f
        })
        .collect())
}

fn field_error(e: &Invalid) -> FieldError {
    let at = &e.pointer;
    match &e.kind {
        InvalidKind::Required(property) => FieldError::new(format!("{at}/{}", escape(property)), "is required"),
        InvalidKind::Additional(unexpected) => FieldError::new(
            format!("{at}/{}", escape(unexpected.first().map(String::as_str).unwrap_or_default())),
            format!("is not an argument this takes ({})", unexpected.join(", ")),
        ),
        InvalidKind::Other => FieldError::new(at.clone(), e.message.clone()),
    }
}

use crate::core::text::pointer_segment as escape;

/// A tool's `run`, given the arguments the schema checked: reads them as the tool's own `A` and
/// runs the tool with them. A tool's `run` field is `|ctx, args| typed(ctx, args, run)`.
pub fn typed<'a, A: DeserializeOwned, F>(
    ctx: &'a Ctx<'a>,
    args: Value,
    run: impl FnOnce(&'a Ctx<'a>, A) -> F,
) -> LocalBoxFuture<'a, Result<Output, Problem>>
where
    F: Future<Output = Result<Output, Problem>> + 'a,
{
    read_by(ctx, args, parse::<A>, run)
}

/// As `typed`, for arguments that `read` reads in words of its own.
pub fn read_by<'a, A, F>(
    ctx: &'a Ctx<'a>,
    args: Value,
    read: fn(Value) -> Result<A, Problem>,
    run: impl FnOnce(&'a Ctx<'a>, A) -> F,
) -> LocalBoxFuture<'a, Result<Output, Problem>>
where
    F: Future<Output = Result<Output, Problem>> + 'a,
{
    match read(args) {
        Ok(a) => Box::pin(run(ctx, a)),
        Err(p) => refused(p),
    }
}

/// The answer to arguments that do not fit, of one type for every tool.
fn refused<'a>(p: Problem) -> LocalBoxFuture<'a, Result<Output, Problem>> {
    Box::pin(std::future::ready(Err(p)))
}

/// Arguments the schema let through can still miss the tool's type, where the two disagree: that
/// is refused, never a panic.
fn parse<T: DeserializeOwned>(args: Value) -> Result<T, Problem> {
    crate::core::json::from_value(args).map_err(misfit)
}

#[inline(never)]
fn misfit(e: serde_json::Error) -> Problem {
    Problem::invalid("", format!("The arguments do not fit: {e}"))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::core::Caller;
    use crate::ops::memory::Runtime;
    use crate::tools::{call, Door, Hints, Method, Reach, Special};
    use futures::executor::block_on;
    use serde_json::json;

    /// A context for one request to the runtime in memory.
    pub fn ctx<'a>(caller: &'a Caller, backend: &'a Runtime) -> Ctx<'a> {
        Ctx {
            caller,
            backend,
            now: "2026-12-02T10:00:00.000Z".into(),
            random: [7; 16],
            secret: [7; 32],
            models: Default::default(),
            tool_servers: backend.tool_servers(),
            connections: backend.connection_settings(),
            directory: false,
        }
    }

    #[derive(serde::Deserialize)]
    struct Count {
        n: u8,
    }

    async fn count(_: &Ctx<'_>, c: Count) -> Result<Output, Problem> {
        Ok(Output::ok(format!("{} counted.", c.n), json!({ "n": c.n })))
    }

    /// A tool whose schema lets through what its type does not take.
    const LOOSE: Tool = Tool {
        name: "loose",
        title: "Count",
        description: "Counts to n, which its schema leaves unchecked.",
        hints: Hints::READ,
        scope: None,
        door: Door::Both,
        reach: Reach::Anywhere,
        method: Method::Get,
        path: "/v1/orgs/{org}/loose",
        input_schema: || json!({ "type": "object" }),
        run: |ctx, args| typed(ctx, args, count),
        special: Special::NONE,
    };

    #[test]
    fn arguments_past_the_schema_that_miss_the_type_are_refused() {
        let (caller, backend) = (Caller::local(None), Runtime::default());
        let ctx = ctx(&caller, &backend);
        assert_eq!(block_on(call(&ctx, &LOOSE, json!({ "n": 3 }))).unwrap().summary, "3 counted.");
        for wrong in [json!({ "n": "three" }), json!({ "n": 300 }), json!({})] {
            let p = block_on(call(&ctx, &LOOSE, wrong.clone())).unwrap_err();
            assert_eq!(p.status(), 400, "{wrong}");
            assert!(p.detail.starts_with("The arguments do not fit"), "{wrong}: {}", p.detail);
        }
    }

    #[test]
    fn each_bad_field_gets_a_pointer() {
        let tool = super::super::find("create_playbook").unwrap();
        let p = check_args(tool, &json!({"name": 5, "colour": "red"})).unwrap_err();
        let pointers: Vec<&str> = p.errors.iter().map(|e| e.pointer.as_str()).collect();
        assert!(pointers.contains(&"/name"), "{pointers:?}");
        assert!(pointers.contains(&"/colour"), "{pointers:?}");
        let p = check_args(tool, &json!({})).unwrap_err();
        assert_eq!(p.errors[0].pointer, "/name");
        assert!(check_args(tool, &json!({"name": "Ok"})).is_ok());
        assert!(check_args(tool, &json!([])).is_err());
    }

    #[test]
    fn a_servers_schema_is_checked_under_a_prefix() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
        let found = check_against(&schema, &json!({}), "/arguments").unwrap();
        assert_eq!(found[0].pointer, "/arguments/path");
        assert!(check_against(&schema, &json!({"path": "a"}), "/arguments").unwrap().is_empty());
        assert!(check_against(&json!({"type": 5}), &json!({}), "").is_err());
    }
}
