//! Studio's pictures: a workflow drawn from its steps and a workflow run drawn on it, served
//! alone as SVG from what `get_definition` and `get_run` answer with `picture: true`, and a
//! function's Mermaid diagram drawn into its page. A picture loads nothing and runs nothing.

use serde_json::{json, Value};
use worker::Response;

use super::Visit;
use crate::api::studio::definition::Drawing;
use crate::api::studio::{svg_data, PICTURE_CSP};
use crate::core::picture;
use crate::core::workflow::view::StepView;
use crate::core::Problem;

pub(super) async fn definition(v: &Visit<'_>, playbook: &str, name: &str) -> worker::Result<Response> {
    let args = json!({ "playbook": playbook, "type": "workflow", "name": name, "picture": true });
    serve(v, "get_definition", args).await
}

pub(super) async fn run(v: &Visit<'_>, playbook: &str, run_id: &str) -> worker::Result<Response> {
    serve(v, "get_run", json!({ "playbook": playbook, "run_id": run_id, "picture": true })).await
}

async fn serve(v: &Visit<'_>, tool: &str, args: Value) -> worker::Result<Response> {
    let answer = match v.run(tool, args).await {
        Ok(out) => out.value,
        Err(p) => return super::stop(p.status(), "No picture", &super::said(&p)),
    };
    match svg_of(&answer) {
        Some(svg) => svg_response(svg),
        None => {
            let p = Problem::not_found("It has no picture: only a workflow and a workflow's run are drawn.");
            super::stop(p.status(), "No picture", &p.detail)
        }
    }
}

/// The SVG text of an answer with `picture: true`.
fn svg_of(answer: &Value) -> Option<&str> {
    answer.pointer("/picture/svg").or(answer.get("svg")).and_then(Value::as_str)
}

fn svg_response(svg: &str) -> worker::Result<Response> {
    let mut resp = Response::ok(svg)?;
    let headers = resp.headers_mut();
    headers.set("content-type", "image/svg+xml")?;
    headers.set("content-security-policy", PICTURE_CSP)?;
    headers.set("x-content-type-options", "nosniff")?;
    headers.set("x-frame-options", "DENY")?;
    headers.set("cache-control", "no-store")?;
    Ok(resp)
}

/// A function's Mermaid diagram, drawn into its page; its source where the picture does not
/// draw it (a kind of diagram it does not know, or one too large).
pub(super) fn mermaid(source: &str) -> Drawing<'_> {
    match picture::mermaid(source) {
        Some(svg) => Drawing::Image { src: svg_data(&svg), alt: "The function's diagram".to_string() },
        None => Drawing::Source(source),
    }
}

/// The timeline of a workflow run's steps, drawn into its page, from the steps `get_run` answered.
pub(super) fn timeline(run: &Value) -> Option<String> {
    let steps: Vec<StepView> = crate::core::json::from_value(run.get("steps")?.clone()).ok()?;
    Some(svg_data(&picture::timeline(&steps, crate::shell::env::instant())))
}
