//! The Ledger: the playbook's runs newest first, as `list_runs` answers them, with its filters
//! (a definition, a status) and the chosen run shown beside.

use serde_json::Value;

use super::comments::{section, Thread};
use super::frame::{link, page, Frame, Tab};
use super::{run_facts, runs_table};
use crate::api::sign_in_pages::escape;
use crate::core::run::store::STATUSES;
use crate::core::studio;

/// The Ledger's filters as the page's address gives them: `definition` is `type/name`.
#[derive(Debug, Clone, Default)]
pub struct Filters<'a> {
    pub definition: &'a str,
    pub status: &'a str,
    /// The rehearsals, which the Ledger lists apart from the runs.
    pub rehearsal: bool,
}

impl Filters<'_> {
    /// The filters as a query, to carry them to the next page or a chosen run.
    pub fn query(&self) -> String {
        let mut q = Vec::new();
        if !self.definition.is_empty() {
            q.push(format!("definition={}", studio::seg(self.definition)));
        }
        if !self.status.is_empty() {
            q.push(format!("status={}", studio::seg(self.status)));
        }
        if self.rehearsal {
            q.push("rehearsal=1".into());
        }
        q.join("&")
    }
}

/// `runs` is `list_runs`' answer; `chosen` the chosen run's `get_run` answer, or why it could
/// not be read; `refused` the words of a `list_runs` that refused the filters.
pub fn render(
    f: &Frame,
    runs: Option<&Value>,
    refused: Option<&str>,
    filters: &Filters,
    chosen: Option<Result<&Value, &str>>,
    thread: &Thread,
) -> String {
    let playbook = f.playbook.map(|(id, _)| id).unwrap_or_default();
    let here = studio::ledger("", f.org, playbook, None);
    let options: String = std::iter::once("")
        .chain(STATUSES)
        .map(|s| {
            let selected = if s == filters.status { " selected" } else { "" };
            let label = if s.is_empty() { "any" } else { s };
            format!("<option value=\"{s}\"{selected}>{label}</option>")
        })
        .collect();
    let filter_form = format!(
        "<form method=\"get\" action=\"{here}\" class=\"filters\">\
         <label>Definition <input type=\"text\" name=\"definition\" value=\"{definition}\" placeholder=\"workflow/name\"></label>\
         <label>Status <select name=\"status\">{options}</select></label>\
         <label><input type=\"checkbox\" name=\"rehearsal\" value=\"1\"{rehearsing}> Rehearsals</label><button type=\"submit\">Show</button></form>",
        here = escape(&here),
        definition = escape(filters.definition),
        rehearsing = if filters.rehearsal { " checked" } else { "" },
    );
    let query = filters.query();
    let list = match (runs, refused) {
        (_, Some(words)) => format!("<p class=\"notice refused\" role=\"alert\">{}</p>", escape(words)),
        (Some(runs), None) => {
            let chosen_id = chosen.and_then(|c| c.ok()).and_then(|r| r["run_id"].as_str());
            let mut table = runs_table(f, runs, Some((&query, chosen_id)));
            if let Some(cursor) = runs["next_cursor"].as_str() {
                let sep = if query.is_empty() { "" } else { "&" };
                let next = format!("{here}?{query}{sep}cursor={}", studio::seg(cursor));
                table.push_str(&format!("<p>{}</p>", link(&next, "Older runs")));
            }
            table
        }
        (None, None) => String::new(),
    };
    let beside = match chosen {
        None => "<p class=\"hint\">Choose a run to see it here.</p>".to_string(),
        Some(Err(words)) => format!("<p class=\"notice refused\" role=\"alert\">{}</p>", escape(words)),
        Some(Ok(run)) => {
            let id = run["run_id"].as_str().unwrap_or_default();
            format!(
                "<h2>Run {}</h2>{}<p>{}</p>",
                escape(id),
                run_facts(f, run),
                link(&studio::run("", f.org, playbook, id), "The whole run, with its history")
            )
        }
    };
    let said = match filters.rehearsal {
        true => "The playbook's rehearsals, newest first: runs in which nothing reached outside the runtime.",
        false => "The playbook's runs, newest first. Rehearsals are listed apart.",
    };
    let body = format!(
        "<h1>Ledger</h1><p class=\"hint\">{said}</p>{filter_form}\
         <div class=\"split\"><div>{list}</div><aside>{beside}</aside></div>{section}",
        section = section(f, thread)
    );
    page(f, "Ledger", &[(String::new(), "Ledger".into())], Tab::Ledger, &body)
}
