//! A definition's page and a workflow's glance: templates over the definition's results, checked
//! when the document is saved and rendered when they are read.
//!
//! Both are given the same five names: `definition` (its type, name, version and description),
//! `runs` (its newest runs, newest first), `latest` (the run that ended last, or none), `counts`
//! (how its runs stand) and `last_run_at` (when its newest run started). Every run holds every
//! key, `null` where it has no value, so that a page may test `{% if run.output %}` under strict
//! names. Rendering spends the fuel of every template (`template::environment`).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::check::{find_in_tags, Findings, PAGE_MAX_BYTES};
use super::template::{self, environment};
use crate::core::run::{Run, RunStatus};

/// The names a page, and each part of a glance, may use.
pub const NAMES: [&str; 5] = ["definition", "runs", "latest", "counts", "last_run_at"];
/// The newest runs a page is given as `runs`.
pub const RUNS_SHOWN: usize = 20;
/// The newest runs one read of the definition's runs takes: `counts` and `standing` count these.
pub const RUNS_READ: usize = 100;
/// The most a rendered page may hold, so that a loop cannot answer megabytes.
pub const RENDERED_MAX_BYTES: usize = 262_144;
/// The most a `sample_output` may hold, written as JSON.
pub const SAMPLE_MAX_BYTES: usize = 65_536;
pub const FIGURES_MAX: usize = 4;
pub const HEADLINE_MAX: usize = 300;
pub const LABEL_MAX: usize = 40;
pub const EXPRESSION_MAX: usize = 500;
/// The most a figure's value may hold, written as JSON: a number or a few words, not a list of runs.
pub const FIGURE_VALUE_MAX_BYTES: usize = 1_000;
const GLANCE_KEYS: &[&str] = &["headline", "figures", "attention"];
const FIGURE_KEYS: &[&str] = &["label", "value"];

/// What a page is rendered over: the definition's runs as they stand now, as they stood when
/// one run ended, or one made-up run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Over {
    Runs,
    SampleOutput,
}

/// What a definition says about itself to the page: `definition` in the context.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct About<'a> {
    #[serde(rename = "type")]
    pub kind: &'a str,
    pub name: &'a str,
    pub version: u32,
    pub description: &'a str,
}

/// How a definition's runs stand: `counts` in the context, and with the status of the latest
/// and when it last ran, the `standing` that `get_definition` answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    pub runs: usize,
    pub succeeded: usize,
    pub failed: usize,
    pub cancelled: usize,
    /// Started and not ended yet, an interaction's waiting for its answer among them.
    pub running: usize,
}

/// How a definition stands, in the words `get_definition` answers it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    #[serde(flatten)]
    pub counts: Counts,
    /// How the run that ended last ended: `succeeded`, `failed` or `cancelled`.
    pub latest_status: Option<String>,
    /// When its newest run started.
    pub last_run_at: Option<String>,
    /// The same in one sentence a person reads.
    pub says: String,
}

/// A workflow's glance as its document gives it: a headline template, up to four figures,
/// each a label and an expression, and an expression that says it needs a person's attention.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Glance {
    pub headline: String,
    pub figures: Vec<(String, String)>,
    pub attention: Option<String>,
}

/// A glance rendered: what a card of the workflow shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shown {
    pub headline: String,
    pub figures: Vec<Figure>,
    pub attention: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub label: String,
    pub value: Value,
}

/// Why a page or a glance did not render: the words, and where in the document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failed {
    pub pointer: String,
    pub detail: String,
}

/// Checks `page`: text of at most `PAGE_MAX_BYTES`, a template that compiles and names only
/// `NAMES`. Answers the page where it has one, to render later.
pub fn check_page<'d>(f: &mut Findings<'d>) -> Option<&'d str> {
    let page = match f.get("/page") {
        None | Some(Value::Null) => return None,
        Some(Value::String(p)) => p.as_str(),
        Some(_) => {
            f.error("/page", "must be text: the Markdown of the page");
            return None;
        }
    };
    if page.len() > PAGE_MAX_BYTES {
        f.error("/page", format!("is more than the {PAGE_MAX_BYTES} bytes a page may hold"));
        return Some(page);
    }
    template(f, "/page", "page", page);
    Some(page)
}

/// Checks a workflow's `glance`, where it has one.
pub fn check_glance(f: &mut Findings<'_>) -> Option<Glance> {
    f.mapping("/glance", false)?;
    f.only_keys("/glance", GLANCE_KEYS, "a glance");
    let headline = f.string("/glance/headline", true, HEADLINE_MAX);
    if let Some(h) = headline {
        if h.contains('\n') {
            f.error("/glance/headline", "must be one line");
        }
        template(f, "/glance/headline", "headline", h);
    }
    let mut figures = Vec::new();
    match f.get("/glance/figures") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => {
            if list.len() > FIGURES_MAX {
                f.error("/glance/figures", format!("may list at most {FIGURES_MAX} figures"));
            }
            for i in 0..list.len().min(FIGURES_MAX) {
                let at = format!("/glance/figures/{i}");
                if f.mapping(&at, true).is_none() {
                    continue;
                }
                f.only_keys(&at, FIGURE_KEYS, "a figure");
                let label = f.string(&format!("{at}/label"), true, LABEL_MAX);
                let value = f.string(&format!("{at}/value"), true, EXPRESSION_MAX);
                if let Some(v) = value {
                    expression(f, &format!("{at}/value"), v);
                }
                if let (Some(l), Some(v)) = (label, value) {
                    figures.push((l.to_string(), v.to_string()));
                }
            }
        }
        Some(_) => f.error("/glance/figures", "must be a list of figures, each {label, value}"),
    }
    let attention = f.string("/glance/attention", false, EXPRESSION_MAX);
    if let Some(a) = attention {
        expression(f, "/glance/attention", a);
    }
    Some(Glance { headline: headline?.to_string(), figures, attention: attention.map(str::to_string) })
}

fn template(f: &mut Findings<'_>, pointer: &str, what: &str, text: &str) {
    if let Some(why) = super::template::refusal(text) {
        f.error(pointer, why.to_string());
        return;
    }
    let env = environment();
    match env.template_from_str(text) {
        Err(e) => {
            let line = e.line().map(|l| format!(" at line {l} of the {what}")).unwrap_or_default();
            f.error(pointer, format!("does not compile{line}: {}", e.detail().unwrap_or("syntax error")));
        }
        Ok(t) => {
            let unknown = outside(t.undeclared_variables(false));
            if let Some(first) = unknown.first() {
                let line = find_in_tags(text, first).map(|at| text[..at].matches('\n').count() + 1);
                let line = line.map(|l| format!(" (line {l} of the {what})")).unwrap_or_default();
                f.error(
                    pointer,
                    format!(
                        "uses {}{line}, which it is not given; it may use {}",
                        unknown.join(", "),
                        NAMES.join(", ")
                    ),
                );
            }
        }
    }
}

fn expression(f: &mut Findings<'_>, pointer: &str, text: &str) {
    let env = environment();
    match env.compile_expression(text) {
        Err(e) => f.error(pointer, format!("does not compile: {}", e.detail().unwrap_or("syntax error"))),
        Ok(x) => {
            let unknown = outside(x.undeclared_variables(false));
            if !unknown.is_empty() {
                f.error(
                    pointer,
                    format!("uses {}, which it is not given; it may use {}", unknown.join(", "), NAMES.join(", ")),
                );
            }
        }
    }
}

/// The names used that are neither given nor the engine's own, sorted.
fn outside(used: std::collections::HashSet<String>) -> Vec<String> {
    let mut unknown: Vec<String> = used
        .into_iter()
        .filter(|v| !NAMES.contains(&v.as_str()) && !super::check::GLOBALS.contains(&v.as_str()))
        .collect();
    unknown.sort();
    unknown
}

/// How `runs` (newest first, as one read answers them) stand.
pub fn counts(runs: &[Run]) -> Counts {
    let mut c = Counts { runs: runs.len(), ..Counts::default() };
    for run in runs {
        match run.status {
            RunStatus::Started { .. } => c.running += 1,
            RunStatus::Succeeded { .. } => c.succeeded += 1,
            RunStatus::Failed { .. } => c.failed += 1,
            RunStatus::Cancelled { .. } => c.cancelled += 1,
        }
    }
    c
}

/// The run that ended last, or none.
pub fn latest(runs: &[Run]) -> Option<&Run> {
    let mut found: Option<&Run> = None;
    for run in runs {
        let Some(end) = run.status.finished_at() else { continue };
        if found.and_then(|f| f.status.finished_at()).is_none_or(|best| later(end, best)) {
            found = Some(run);
        }
    }
    found
}

/// How `runs` stand: their counts, how the latest ended and when the newest started.
pub fn standing(runs: &[Run]) -> Standing {
    let counts = counts(runs);
    let latest_status = latest(runs).map(|r| r.status.word().to_string());
    let last_run_at = runs.first().map(|r| r.started_at.clone());
    let says = says(&counts, latest_status.as_deref(), last_run_at.as_deref());
    Standing { counts, latest_status, last_run_at, says }
}

fn says(c: &Counts, latest: Option<&str>, last: Option<&str>) -> String {
    if c.runs == 0 {
        return "It has not run yet.".into();
    }
    let mut parts = Vec::new();
    for (n, word) in [(c.succeeded, "succeeded"), (c.failed, "failed"), (c.cancelled, "cancelled")] {
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    if c.running > 0 {
        parts.push(format!("{} still going", c.running));
    }
    let newest = if c.runs >= RUNS_READ { format!("Of its newest {RUNS_READ} runs") } else { "Of its runs".into() };
    let mut text = format!("{newest}, {}.", crate::core::text::join_and(&parts));
    if let Some(l) = latest {
        text.push_str(&format!(" The latest to end {l}."));
    }
    if let Some(at) = last {
        text.push_str(&format!(" It last ran at {at}."));
    }
    text
}

/// The runs as they stood when `run` ended: those started by then, each that ended later shown
/// still going. Render them with `run` as the latest, whatever ended at the same moment.
pub fn as_it_stood(runs: &[Run], run: &Run) -> Vec<Run> {
    let Some(end) = run.status.finished_at() else { return runs.to_vec() };
    let mut stood: Vec<Run> = Vec::new();
    let mut has_it = false;
    for r in runs {
        if r.run_id == run.run_id {
            stood.push(run.clone());
            has_it = true;
            continue;
        }
        if later(&r.started_at, end) {
            continue;
        }
        let mut r = r.clone();
        if r.status.finished_at().is_none_or(|f| later(f, end)) {
            r.status = RunStatus::Started { waiting: None };
        }
        stood.push(r);
    }
    if !has_it {
        stood.insert(0, run.clone());
    }
    stood
}

/// One made-up run that succeeded with `output`, for a preview.
pub fn sample_run(definition: &crate::core::definition::Ref, version: u32, output: Value, now: &str) -> Run {
    let mut run = Run::started("sample", ("", ""), definition.clone(), version, json!({}), now);
    run.status = RunStatus::Succeeded { output, finished_at: now.to_string() };
    run
}

/// The context a page and a glance render with: `runs` newest first, `latest` the run that ended
/// last (where `latest` is given, that run).
pub fn context(about: &About<'_>, runs: &[Run], latest_run: Option<&Run>) -> Value {
    let latest_run = latest_run.or_else(|| latest(runs));
    json!({
        "definition": about,
        "runs": runs.iter().take(RUNS_SHOWN).map(shown).collect::<Vec<_>>(),
        "latest": latest_run.map(shown),
        "counts": counts(runs),
        "last_run_at": runs.first().map(|r| r.started_at.clone()),
    })
}

/// One run as a page reads it: every key, `null` where it has no value.
fn shown(run: &Run) -> Value {
    let (output, error) = match &run.status {
        RunStatus::Succeeded { output, .. } => (output.clone(), Value::Null),
        RunStatus::Failed { error, .. } => (Value::Null, json!({ "reason": error.reason, "detail": error.detail })),
        _ => (Value::Null, Value::Null),
    };
    json!({
        "run_id": run.run_id,
        "status": run.status.word(),
        "started_at": run.started_at,
        "finished_at": run.status.finished_at(),
        "input": run.input,
        "output": output,
        "error": error,
    })
}

/// The page rendered over `context`: its Markdown, or why it did not render.
pub fn render(page: &str, context: &Value) -> Result<String, Failed> {
    let env = environment();
    let failed = |e: minijinja::Error| Failed { pointer: "/page".into(), detail: words(&e, "page") };
    let text = template::render(&env, page, context).map_err(failed)?;
    if text.len() > RENDERED_MAX_BYTES {
        return Err(Failed {
            pointer: "/page".into(),
            detail: format!("renders {} bytes, more than the {RENDERED_MAX_BYTES} a page may show", text.len()),
        });
    }
    Ok(text)
}

/// The glance rendered over `context`, or the first part that did not render.
pub fn render_glance(glance: &Glance, context: &Value) -> Result<Shown, Failed> {
    let env = environment();
    let headline = template::render(&env, &glance.headline, context)
        .map_err(|e| Failed { pointer: "/glance/headline".into(), detail: words(&e, "headline") })?;
    let mut figures = Vec::new();
    for (i, (label, value)) in glance.figures.iter().enumerate() {
        let failed =
            |e: minijinja::Error| Failed { pointer: format!("/glance/figures/{i}/value"), detail: words(&e, "") };
        let v = env.compile_expression(value).and_then(|x| x.eval(context)).map_err(failed)?;
        let pointer = format!("/glance/figures/{i}/value");
        let value = serde_json::to_value(&v)
            .map_err(|e| Failed { pointer: pointer.clone(), detail: format!("gives a value that is not JSON: {e}") })?;
        if value.to_string().len() > FIGURE_VALUE_MAX_BYTES {
            let detail = format!("gives more than {FIGURE_VALUE_MAX_BYTES} bytes; a figure is a number or a few words");
            return Err(Failed { pointer, detail });
        }
        figures.push(Figure { label: label.clone(), value });
    }
    let attention = match &glance.attention {
        None => false,
        Some(a) => env
            .compile_expression(a)
            .and_then(|x| x.eval(context))
            .map_err(|e| Failed { pointer: "/glance/attention".into(), detail: words(&e, "") })?
            .is_true(),
    };
    Ok(Shown { headline: crate::core::text::cap(&headline, HEADLINE_MAX), figures, attention })
}

/// The engine's words for a failed render, with the line where a template has lines.
fn words(e: &minijinja::Error, what: &str) -> String {
    let detail = e.detail().map(str::to_string).unwrap_or_else(|| e.kind().to_string());
    match e.line() {
        Some(line) if !what.is_empty() => format!("line {line} of the {what}: {detail}"),
        _ => detail,
    }
}

/// Whether `a` is later than `b`, as times; as text where either is not one.
fn later(a: &str, b: &str) -> bool {
    match (chrono::DateTime::parse_from_rfc3339(a), chrono::DateTime::parse_from_rfc3339(b)) {
        (Ok(a), Ok(b)) => a > b,
        _ => a > b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::{Kind, Ref};

    fn run(id: &str, started: u32, ended: Option<u32>) -> Run {
        let at = |s: u32| format!("2026-12-02T10:00:{s:02}.000Z");
        let r = Ref { kind: Kind::Computation, name: "add-vat".into() };
        let mut run = Run::started(id, ("local", "pb"), r, 1, json!({ "net": started }), at(started));
        if let Some(end) = ended {
            run.status = RunStatus::Succeeded { output: json!({ "gross": started }), finished_at: at(end) };
        }
        run
    }

    #[test]
    fn the_latest_is_the_run_that_ended_last() {
        // Newest first by start: c still runs, b ended before a did.
        let runs = [run("c", 5, None), run("b", 3, Some(4)), run("a", 1, Some(6))];
        assert_eq!(latest(&runs).map(|r| r.run_id.as_str()), Some("a"));
        let s = standing(&runs);
        assert_eq!((s.counts.runs, s.counts.succeeded, s.counts.running), (3, 2, 1));
        assert_eq!(s.last_run_at.as_deref(), Some("2026-12-02T10:00:05.000Z"));
        assert_eq!(
            s.says,
            "Of its runs, 2 succeeded and 1 still going. The latest to end succeeded. It last ran at 2026-12-02T10:00:05.000Z."
        );
        assert_eq!(standing(&[]).says, "It has not run yet.");
    }

    #[test]
    fn a_run_ended_as_its_runs_stood_then() {
        let runs = [run("c", 5, None), run("b", 3, Some(4)), run("a", 1, Some(6))];
        // b ended at 4: c had not started, a was still going.
        let stood = as_it_stood(&runs, &runs[1]);
        let ids: Vec<(&str, &str)> = stood.iter().map(|r| (r.run_id.as_str(), r.status.word())).collect();
        assert_eq!(ids, [("b", "succeeded"), ("a", "started")]);
        let about = About { kind: "computation", name: "add-vat", version: 1, description: "Adds VAT" };
        let context = context(&about, &stood, Some(&runs[1]));
        assert_eq!(context["latest"]["run_id"], "b");
        assert_eq!(context["counts"], json!({ "runs": 2, "succeeded": 1, "failed": 0, "cancelled": 0, "running": 1 }));
        assert_eq!(context["runs"][1]["output"], Value::Null, "a run still going has every key");
        assert_eq!(render("{{ latest.output.gross }} of {{ counts.runs }}", &context), Ok("3 of 2".to_string()));
    }

    #[test]
    fn a_glance_is_bounded() {
        let context = json!({ "definition": {}, "runs": [1, 2], "latest": null, "counts": {}, "last_run_at": null });
        let glance = Glance {
            headline: "{% for i in range(200) %}word {% endfor %}".into(),
            figures: vec![("All".into(), "range(500)".into())],
            attention: None,
        };
        let failed = render_glance(&glance, &context).unwrap_err();
        assert_eq!(failed.pointer, "/glance/figures/0/value");
        let shown = render_glance(&Glance { figures: vec![], ..glance }, &context).unwrap();
        assert_eq!(shown.headline.chars().count(), HEADLINE_MAX);
    }

    #[test]
    fn a_render_is_bounded() {
        let context = json!({ "definition": {}, "runs": [], "latest": null, "counts": {}, "last_run_at": null });
        let big = render("{% for i in range(20000) %}{{ 'x' * 20 }}{% endfor %}", &context).unwrap_err();
        assert_eq!(big.pointer, "/page");
        let failed = render("line one\n{{ latest.output }}", &context).unwrap_err();
        assert!(failed.detail.starts_with("line 2 of the page"), "{}", failed.detail);
    }
}
