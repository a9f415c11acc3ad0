//! The open requests of the playbook's interaction functions, as `list_interactions` answers
//! them, each answerable on the page in the shape of its `answer_schema`; its answer goes to
//! `answer_interaction`, whose refusal is shown beside the form.

use serde_json::Value;

use super::comments::{leave, section, Comments, Thread};
use super::frame::{form, link, moment, page, text, Frame, Tab};
use crate::api::markdown::to_html;
use crate::api::schema_form;
use crate::api::sign_in_pages::escape;
use crate::core::studio;

/// A refused answer, to show beside its form with what the person wrote.
#[derive(Debug, Clone)]
pub struct Refusal<'a> {
    pub run_id: &'a str,
    pub words: &'a str,
    /// Each field refused: its JSON pointer, and why.
    pub errors: &'a [(String, String)],
    /// The answer as the person wrote it, to fill the form in again.
    pub values: Option<&'a Value>,
}

/// `listed` is `list_interactions`' answer; `comments` those under `requests`.
pub fn render(f: &Frame, listed: &Value, refusal: Option<&Refusal>, more: Option<&str>, comments: Comments) -> String {
    let playbook = f.playbook.map(|(id, _)| id).unwrap_or_default();
    let here = studio::requests("", f.org, playbook);
    let list = listed["requests"].as_array().map(Vec::as_slice).unwrap_or_default();
    let items: String = list.iter().map(|r| request(f, playbook, &here, r, refusal)).collect();
    let items = match list.is_empty() {
        true => "<p>No request is waiting.</p>".to_string(),
        false => items,
    };
    let more = more.map(|m| format!("<p>{}</p>", link(m, "More requests"))).unwrap_or_default();
    let thread = Thread { comments, address: "", back: &here };
    let body = format!(
        "<h1>Open requests</h1><p class=\"hint\">What the playbook's interaction functions ask people, newest first.</p>{items}{more}{}",
        section(f, &thread)
    );
    page(f, "Open requests", &[(String::new(), "Requests".into())], Tab::Requests, &body)
}

fn request(f: &Frame, playbook: &str, here: &str, r: &Value, refusal: Option<&Refusal>) -> String {
    let run_id = text(r, "/run_id");
    let kind = text(r, "/definition/type");
    let name = text(r, "/definition/name");
    let refused = refusal.filter(|x| x.run_id == run_id);
    let notice = refused
        .map(|x| format!("<p class=\"notice refused\" role=\"alert\">{}</p>", escape(x.words)))
        .unwrap_or_default();
    let answer = match f.writes {
        true => {
            let action = format!("{here}/{}/answer", studio::seg(run_id));
            let (values, errors) = refused.map_or((None, &[][..]), |x| (x.values, x.errors));
            form(
                &action,
                f.csrf,
                "",
                &format!(
                    "{}<button type=\"submit\">Answer</button>",
                    schema_form::fields(&r["answer_schema"], values, errors)
                ),
            )
        }
        false => "<p class=\"hint\">You may read this request; answering it needs a role that changes playbooks (editor, admin or owner).</p>".to_string(),
    };
    let expires = match text(r, "/expires_at") {
        "" => String::new(),
        at => format!(" · expires {}", moment(at)),
    };
    format!(
        "<article class=\"request\" id=\"request-{id}\"><h2>{definition}</h2>\
         <p class=\"hint\">Asked {asked}{expires} · run {run}</p><div class=\"page\">{question}</div>{notice}{answer}{comment}</article>",
        id = escape(run_id),
        definition = link(&studio::definition("", f.org, playbook, kind, name), name),
        asked = moment(text(r, "/asked_at")),
        run = link(&studio::run("", f.org, playbook, run_id), run_id),
        question = to_html(text(r, "/question")),
        comment = leave(f, &format!("requests/{run_id}"), here),
    )
}
