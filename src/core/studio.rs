//! Studio's addresses: where each page of the runtime's own Studio lives, so that an answer's
//! `studio` link, a comment's place and the page that serves it are written in one place.
//! Every address is absolute, on `base` (`PUBLIC_URL` when set, else the runtime's own origin).

/// The path every Studio page lives under.
pub const ROOT: &str = "/studio";

/// A path segment as a URL carries it: ids and names are kept to safe characters by their own
/// rules, so this only guards against a value that was never checked.
pub fn seg(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn on(base: &str, path: &str) -> String {
    format!("{}{path}", base.trim_end_matches('/'))
}

/// The org's home: its playbooks.
pub fn home(base: &str, org: &str) -> String {
    on(base, &format!("{ROOT}/{}", seg(org)))
}

/// The org's own comments, those on no playbook.
pub fn org_comments(base: &str, org: &str) -> String {
    on(base, &format!("{ROOT}/{}/comments", seg(org)))
}

fn playbook_path(org: &str, playbook: &str) -> String {
    format!("{ROOT}/{}/playbooks/{}", seg(org), seg(playbook))
}

/// A playbook's page: its page, its definitions and their standing, its workflows at a glance.
pub fn playbook(base: &str, org: &str, playbook: &str) -> String {
    on(base, &playbook_path(org, playbook))
}

/// A definition's page: its document, overview, diagram or picture, versions, page and runs.
pub fn definition(base: &str, org: &str, playbook: &str, kind: &str, name: &str) -> String {
    on(base, &format!("{}/definitions/{}/{}", playbook_path(org, playbook), seg(kind), seg(name)))
}

/// A workflow's picture, as SVG.
pub fn definition_picture(base: &str, org: &str, playbook: &str, name: &str) -> String {
    format!("{}/picture.svg", definition(base, org, playbook, "workflow", name))
}

/// The Ledger: the playbook's runs, newest first; with `run`, that run chosen.
pub fn ledger(base: &str, org: &str, playbook: &str, run: Option<&str>) -> String {
    let path = on(base, &format!("{}/ledger", playbook_path(org, playbook)));
    match run {
        Some(id) => format!("{path}?run={}", seg(id)),
        None => path,
    }
}

/// A run's page: input, output, error, record, history, and its picture for a workflow's run.
pub fn run(base: &str, org: &str, playbook: &str, run_id: &str) -> String {
    on(base, &format!("{}/runs/{}", playbook_path(org, playbook), seg(run_id)))
}

/// A workflow run drawn on its workflow's picture, as SVG.
pub fn run_picture(base: &str, org: &str, playbook: &str, run_id: &str) -> String {
    format!("{}/picture.svg", run(base, org, playbook, run_id))
}

/// The open requests of the playbook's interaction functions, each answerable on the page.
pub fn requests(base: &str, org: &str, playbook: &str) -> String {
    on(base, &format!("{}/requests", playbook_path(org, playbook)))
}

/// The playbook's comments.
pub fn playbook_comments(base: &str, org: &str, playbook: &str) -> String {
    on(base, &format!("{}/comments", playbook_path(org, playbook)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_sit_on_the_base_under_studio() {
        let base = "https://auto.example/";
        assert_eq!(home(base, "acme"), "https://auto.example/studio/acme");
        assert_eq!(playbook(base, "acme", "pb_1"), "https://auto.example/studio/acme/playbooks/pb_1");
        assert_eq!(
            definition(base, "acme", "pb_1", "workflow", "review-and-approve"),
            "https://auto.example/studio/acme/playbooks/pb_1/definitions/workflow/review-and-approve"
        );
        assert_eq!(
            ledger(base, "acme", "pb_1", Some("run_9")),
            "https://auto.example/studio/acme/playbooks/pb_1/ledger?run=run_9"
        );
        assert_eq!(
            run_picture(base, "acme", "pb_1", "run_9"),
            "https://auto.example/studio/acme/playbooks/pb_1/runs/run_9/picture.svg"
        );
    }

    #[test]
    fn an_unchecked_value_cannot_leave_its_segment() {
        assert_eq!(
            playbook("http://127.0.0.1:8787", "local", "a/../b?c"),
            "http://127.0.0.1:8787/studio/local/playbooks/a%2F..%2Fb%3Fc"
        );
    }
}
