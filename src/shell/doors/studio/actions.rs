//! Studio's forms: an answer to an open request (`answer_interaction`), a workflow run again from
//! a step (`rerun_run`), and a comment left,
//! resolved or reopened (`make_comment`, `resolve_comment`, `reopen_comment`), each run as the
//! person through the tools, with their checks. A refusal is shown in words; a success goes
//! back to the page with `GET`.

use serde_json::{json, Value};
use worker::Response;

use super::{see_other, Visit};
use crate::api::schema_form;
use crate::api::studio::frame::refused;
use crate::api::studio::requests::Refusal;
use crate::api::studio::route::{back, Post};
use crate::core::access::oauth::form::Form;
use crate::core::studio;

pub(super) async fn post(v: &Visit<'_>, post: Post, form: &Form) -> worker::Result<Response> {
    let field = |name: &str| form.one(name).ok().flatten().unwrap_or_default();
    match post {
        Post::Answer { playbook, run_id, .. } => answer(v, &playbook, &run_id, form).await,
        Post::Rerun { playbook, run_id, .. } => rerun(v, &playbook, &run_id, field("from_step")).await,
        Post::Comment { playbook, .. } => {
            let mut args = json!({ "address": field("address").trim(), "body": field("body") });
            if let Some(pb) = &playbook {
                args["playbook"] = pb.as_str().into();
            }
            act(v, playbook.as_deref(), "make_comment", args, field("back")).await
        }
        Post::Resolve { playbook, id, .. } => {
            let how = match field("how") {
                "dismissed" => "dismissed",
                _ => "acted",
            };
            let mut args = json!({ "id": id, "how": how });
            if let Some(pb) = &playbook {
                args["playbook"] = pb.as_str().into();
            }
            act(v, playbook.as_deref(), "resolve_comment", args, field("back")).await
        }
        Post::Reopen { playbook, id, .. } => {
            let mut args = json!({ "id": id });
            if let Some(pb) = &playbook {
                args["playbook"] = pb.as_str().into();
            }
            act(v, playbook.as_deref(), "reopen_comment", args, field("back")).await
        }
    }
}

/// Answers an open request with the form made from its `answer_schema`; on success, the run's
/// page, which waits a little for it to end. A refusal, by the form or by `answer_interaction`,
/// is shown beside the form, filled in again with what the person wrote.
async fn answer(v: &Visit<'_>, playbook: &str, run_id: &str, form: &Form) -> worker::Result<Response> {
    let refuse = |status: u16, words: String, errors: Vec<(String, String)>, values: Option<Value>| async move {
        let refusal = Refusal { run_id, words: &words, errors: &errors, values: values.as_ref() };
        super::pages::show_requests(v, playbook, Some(&refusal), status).await
    };
    let run = match v.run("get_run", json!({ "playbook": playbook, "run_id": run_id })).await {
        Ok(out) => out.value,
        Err(p) => return refuse(p.status(), super::said(&p), Vec::new(), None).await,
    };
    let Some(schema) = run.pointer("/waiting/answer_schema") else {
        let status = run["status"].as_str().unwrap_or("ended");
        let words = format!("This request no longer waits for an answer: its run has {status}. Nothing was sent.");
        return refuse(409, words, Vec::new(), None).await;
    };
    let kept = schema_form::kept(schema, form);
    let answer = match schema_form::read(schema, form) {
        Ok(answer) => answer,
        Err(errors) => {
            let words = "The answer does not fit what the request asks; nothing was sent.".to_string();
            return refuse(400, words, errors, Some(kept)).await;
        }
    };
    match v.run("answer_interaction", json!({ "playbook": playbook, "run_id": run_id, "answer": answer })).await {
        Ok(_) => see_other(&format!("{}?answered=1", studio::run("", &v.caller.org, playbook, run_id))),
        Err(p) => {
            let errors = p.errors.iter().map(|e| (answer_pointer(&e.pointer), e.detail.clone())).collect();
            refuse(p.status(), super::said(&p), errors, Some(kept)).await
        }
    }
}

/// Runs a workflow run again from a step, as the person; on success the new run's page, else the
/// refusal in words with the way back to the old run.
async fn rerun(v: &Visit<'_>, playbook: &str, run_id: &str, from_step: &str) -> worker::Result<Response> {
    let mut args = json!({ "playbook": playbook, "run_id": run_id });
    if !from_step.is_empty() {
        args["from_step"] = from_step.into();
    }
    let old = studio::run("", &v.caller.org, playbook, run_id);
    match v.run("rerun_run", args).await {
        Ok(out) => match out.value["run_id"].as_str() {
            Some(new) => see_other(&studio::run("", &v.caller.org, playbook, new)),
            None => see_other(&old),
        },
        Err(p) => {
            v.html(p.status(), refused(&v.frame(None), "The run was not started again", &super::said(&p), Some(&old)))
        }
    }
}

/// A pointer into `answer_interaction`'s arguments, as a pointer into the answer the form holds.
fn answer_pointer(pointer: &str) -> String {
    match pointer.strip_prefix("/answer") {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.to_string(),
        _ => pointer.to_string(),
    }
}

/// Runs a comment's operation; back to the page at the comment, or its refusal in words.
async fn act(
    v: &Visit<'_>,
    playbook: Option<&str>,
    tool: &str,
    args: Value,
    back_to: &str,
) -> worker::Result<Response> {
    let home = match playbook {
        Some(pb) => studio::playbook_comments("", &v.caller.org, pb),
        None => studio::org_comments("", &v.caller.org),
    };
    let back_to = back(back_to).unwrap_or(&home).to_string();
    match v.run(tool, args).await {
        Ok(out) => {
            let id = out.value["id"].as_str().or(out.value.pointer("/comment/id").and_then(Value::as_str));
            let anchor = id.map(|i| format!("#comment-{}", studio::seg(i))).unwrap_or_default();
            see_other(&format!("{back_to}{anchor}"))
        }
        Err(p) => {
            let title = match tool {
                "make_comment" => "Your comment was not kept",
                "resolve_comment" => "The comment was not resolved",
                _ => "The comment was not reopened",
            };
            v.html(p.status(), refused(&v.frame(None), title, &super::said(&p), Some(&back_to)))
        }
    }
}
