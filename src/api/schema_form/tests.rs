use serde_json::json;

use super::*;
use crate::core::access::oauth::form::encode_pairs;

/// One tag's attributes, unescaped; a bare attribute (`checked`) has the value "".
fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = tag.split_once(char::is_whitespace).map_or("", |(_, r)| r).trim_end_matches('>');
    while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
        rest = &rest[start..];
        let end = rest.find(|c: char| c == '=' || c.is_whitespace()).unwrap_or(rest.len());
        let name = rest[..end].to_string();
        rest = &rest[end..];
        if let Some(after) = rest.strip_prefix("=\"") {
            let close = after.find('"').expect("a closing quote");
            out.push((name, unescape(&after[..close])));
            rest = &after[close + 1..];
        } else {
            out.push((name, String::new()));
        }
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

fn attr<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// What a browser posts of the fields as they stand, as the form the page reads.
fn submit(html: &str) -> Form {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut at = 0;
    while let Some(open) = html[at..].find('<') {
        let start = at + open;
        let end = start + html[start..].find('>').expect("a tag ends");
        let tag = &html[start..=end];
        at = end + 1;
        let attrs = attributes(tag);
        let name = attr(&attrs, "name").map(str::to_string);
        if tag.starts_with("<input") {
            let Some(name) = name else { continue };
            let kind = attr(&attrs, "type").unwrap_or("text");
            let value = attr(&attrs, "value").unwrap_or("on").to_string();
            if !matches!(kind, "checkbox" | "radio") || attr(&attrs, "checked").is_some() {
                pairs.push((name, value));
            }
        } else if tag.starts_with("<textarea") {
            let close = at + html[at..].find("</textarea>").expect("a textarea ends");
            // The HTML parser drops one newline right after the start tag.
            let text = unescape(&html[at..close]);
            let text = text.strip_prefix('\n').unwrap_or(&text).replace('\n', "\r\n");
            pairs.push((name.expect("a named textarea"), text));
        } else if tag.starts_with("<select") {
            let close = at + html[at..].find("</select>").expect("a select ends");
            let options: Vec<Vec<(String, String)>> = html[at..close]
                .split("<option")
                .skip(1)
                .map(|o| attributes(&format!("<option{}", &o[..=o.find('>').expect("an option tag")])))
                .collect();
            let chosen = options.iter().find(|o| attr(o, "selected").is_some()).or(options.first());
            if let Some(o) = chosen.filter(|o| attr(o, "disabled").is_none()) {
                pairs.push((name.expect("a named select"), attr(o, "value").unwrap_or_default().to_string()));
            }
        }
    }
    let refs: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    Form::parse(&encode_pairs(&refs)).expect("a form a browser sends")
}

fn post(pairs: &[(&str, &str)]) -> Form {
    Form::parse(&encode_pairs(pairs)).expect("a form")
}

/// The answer schema the interaction-function guide's worked example declares.
fn verdict_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "verdict": { "type": "string", "enum": ["approve", "reject"], "description": "Whether the invoice may be paid." },
            "note": { "type": "string", "description": "Why, in a sentence." }
        },
        "required": ["verdict"]
    })
}

#[test]
fn a_verdict_and_a_note_become_radios_and_a_textarea() {
    let html = fields(&verdict_schema(), None, &[]);
    assert!(html.contains("<legend>Verdict <span class=\"required\">required</span></legend>"), "{html}");
    assert!(html.contains("type=\"radio\" name=\"verdict\" value=\"approve\""), "{html}");
    assert!(html.contains("type=\"radio\" name=\"verdict\" value=\"reject\""), "{html}");
    assert!(html.contains("Whether the invoice may be paid."), "{html}");
    assert!(html.contains("<textarea") && html.contains("name=\"note\""), "{html}");
    assert!(!html.contains("No answer"), "a required choice offers no empty one: {html}");
    assert_eq!(read(&verdict_schema(), &post(&[("verdict", "approve")])), Ok(json!({ "verdict": "approve" })));
    assert_eq!(
        read(&verdict_schema(), &post(&[("verdict", "reject"), ("note", "Not ours.")])),
        Ok(json!({ "verdict": "reject", "note": "Not ours." }))
    );
    assert_eq!(
        read(&verdict_schema(), &post(&[("note", "  ")])),
        Err(vec![("/verdict".to_string(), "is required: fill it in.".to_string())])
    );
    let odd = read(&verdict_schema(), &post(&[("verdict", "maybe")])).expect_err("not a choice");
    assert_eq!(odd, vec![("/verdict".into(), "must be one of the choices: approve, reject.".into())]);
}

#[test]
fn a_hostile_name_title_and_description_are_text() {
    let name = "\"><script>alert(1)</script>";
    let schema = json!({
        "type": "object",
        "properties": {
            name: { "type": "string", "maxLength": 40, "title": "<b onmouseover=alert(2)>Title</b>", "description": "<img src=x onerror=alert(3)>" },
            "pick": { "enum": ["<i>a</i>", "b\"c"] }
        },
        "required": [name]
    });
    // A JSON pointer writes the name's `/` as `~1`.
    let errors = [(format!("/{}", name.replace('/', "~1")), "<script>alert(4)</script>".to_string())];
    let html = fields(&schema, Some(&json!({ name: "</textarea><script>alert(5)</script>" })), &errors);
    assert!(
        !html.contains("<script") && !html.contains("<img") && !html.contains("<b ") && !html.contains("<i>"),
        "{html}"
    );
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
    assert!(html.contains("&lt;img src=x onerror=alert(3)&gt;"), "{html}");
    assert!(html.contains("<p class=\"error\""), "the error is beside its field: {html}");
    assert!(html.contains("&lt;script&gt;alert(4)&lt;/script&gt;"), "{html}");
    // What the browser posts back reads as what was shown.
    let value = json!({ name: "</textarea><script>alert(5)</script>", "pick": "b\"c" });
    assert_eq!(read(&schema, &submit(&fields(&schema, Some(&value), &[]))), Ok(value));
}

#[test]
fn each_shape_round_trips_through_the_browser() {
    let schema = json!({
        "type": "object",
        "properties": {
            "verdict": { "type": "string", "enum": ["approve", "reject"] },
            "note": { "type": "string" },
            "name": { "type": "string", "maxLength": 80, "title": "Your name" },
            "email": { "type": "string", "format": "email" },
            "due": { "type": "string", "format": "date" },
            "count": { "type": "integer", "minimum": 1, "maximum": 10 },
            "ratio": { "type": "number" },
            "urgent": { "type": "boolean" },
            "quiet": { "type": "boolean" },
            "level": { "type": "string", "enum": ["low", "medium", "high", "urgent", "critical"] },
            "size": { "oneOf": [{ "const": "s", "title": "Small" }, { "const": "l", "title": "Large" }] },
            "tags": { "type": "array", "items": { "type": "string", "enum": ["a", "b", "c"] } },
            "address": {
                "type": "object",
                "properties": { "city": { "type": "string", "maxLength": 60 }, "zip.code": { "type": "string", "maxLength": 10 } },
                "required": ["city"]
            },
            "lines": { "type": "array", "items": { "type": "object", "properties": { "sku": { "type": "string" } } } },
            "anything": {}
        },
        "required": ["verdict", "count", "address"]
    });
    let value = json!({
        "verdict": "reject",
        "note": "First line\nsecond <line> & more",
        "name": "Ada \"Countess\" Lovelace",
        "email": "ada@example.com",
        "due": "2026-12-24",
        "count": 3,
        "ratio": 2.5,
        "urgent": true,
        "quiet": false,
        "level": "critical",
        "size": "l",
        "tags": ["a", "c"],
        "address": { "city": "Paris", "zip.code": "75001" },
        "lines": [{ "sku": "X-1" }, { "sku": "Y-2" }],
        "anything": { "free": [1, "two", null] }
    });
    let html = fields(&schema, Some(&value), &[]);
    assert!(html.contains("type=\"email\"") && html.contains("type=\"date\""), "{html}");
    assert!(html.contains("type=\"number\" step=\"1\" min=\"1\" max=\"10\""), "{html}");
    assert!(!STYLE.contains("url(") && !STYLE.contains("@import"), "the style loads nothing");
    assert!(html.contains("<select") && html.contains("value=\"critical\" selected"), "five choices are a select");
    assert!(html.contains("value=\"l\" checked> Large"), "a const's title labels it: {html}");
    assert!(html.contains("name=\"address.city\"") && html.contains("name=\"address.zip%2Ecode\""), "{html}");
    assert!(html.contains("<fieldset") && html.contains("<legend>Address"), "{html}");
    assert!(html.contains("class=\"json\"") && html.contains("name=\"lines\""), "{html}");
    assert!(html.contains("<label for=\"") && html.contains(">Your name</label>"), "{html}");
    assert!(
        html.contains(">Zip.code</label>") && html.contains(">Due</label>"),
        "a name without a title reads as words: {html}"
    );
    assert_eq!(read(&schema, &submit(&html)), Ok(value.clone()));
    assert_eq!(kept(&schema, &submit(&html)), value);

    // The least an answer may hold: the optional fields left empty are left out.
    let least =
        json!({ "verdict": "approve", "count": 1, "urgent": false, "quiet": false, "address": { "city": "Oslo" } });
    assert_eq!(read(&schema, &submit(&fields(&schema, Some(&least), &[]))), Ok(least));
}

#[test]
fn what_cannot_be_read_is_said_at_its_pointer_and_kept_as_written() {
    let schema = json!({
        "type": "object",
        "properties": {
            "count": { "type": "integer", "minimum": 1 },
            "ratio": { "type": "number", "exclusiveMaximum": 1 },
            "code": { "type": "string", "minLength": 3, "pattern": "^[A-Z]+$" },
            "lines": { "type": "array" },
            "where": { "type": "object", "properties": { "a/b": { "type": "string" } }, "required": ["a/b"] }
        },
        "required": ["where"]
    });
    let form = post(&[("count", "three"), ("ratio", "1"), ("code", "ab"), ("lines", "[1,"), ("where.a/b", "")]);
    let errors = read(&schema, &form).expect_err("five problems");
    let at: Vec<&str> = errors.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(at, ["/count", "/ratio", "/code", "/lines", "/where/a~1b"], "{errors:?}");
    assert_eq!(errors[0].1, "must be a whole number, such as 3.");
    assert_eq!(errors[1].1, "must be less than 1.");
    assert_eq!(errors[2].1, "is too short: write at least 3 characters.");
    assert!(errors[3].1.starts_with("is not JSON: "), "{}", errors[3].1);
    assert_eq!(errors[4].1, "is required: fill it in.");
    let again = kept(&schema, &form);
    assert_eq!(again["count"], "three");
    assert_eq!(again["lines"], "[1,");
    let html = fields(&schema, Some(&again), &errors);
    assert!(
        html.contains("type=\"text\" inputmode=\"numeric\" id=\"") && html.contains("value=\"three\""),
        "what was written is shown again: {html}"
    );
    assert!(html.contains(">\n[1,</textarea>"), "not as a JSON string: {html}");
    assert_eq!(html.matches("<p class=\"error\"").count(), 5, "{html}");
    assert_eq!(html.matches("aria-invalid=\"true\"").count(), 5, "{html}");

    // What the fields all read but the schema refuses is said by the schema's own check.
    let pattern = read(&schema, &post(&[("code", "abc"), ("where.a/b", "x")])).expect_err("the pattern");
    assert_eq!(pattern.len(), 1);
    assert_eq!(pattern[0].0, "/code");
    assert!(pattern[0].1.contains("^[A-Z]+$"), "{}", pattern[0].1);

    // An error no field holds is said above them all.
    let html = fields(&schema, None, &[(String::new(), "The request is no longer open.".into())]);
    assert!(
        html.starts_with("<ul class=\"errors\" role=\"alert\"><li>The request is no longer open.</li></ul>"),
        "{html}"
    );
    // A value given twice is refused rather than one of them taken.
    let twice = read(&schema, &post(&[("count", "1"), ("count", "2"), ("where.a/b", "x")])).expect_err("twice");
    assert_eq!(twice, vec![("/count".into(), "is given more than once: give one value.".into())]);
}

#[test]
fn an_optional_object_left_empty_is_left_out_and_its_required_fields_with_it() {
    let schema = json!({
        "type": "object",
        "properties": {
            "ok": { "type": "boolean" },
            "contact": {
                "type": "object",
                "properties": { "name": { "type": "string" }, "call": { "type": "boolean" } },
                "required": ["name"]
            },
            "tags": { "type": "array", "items": { "enum": ["x", "y"] }, "minItems": 1 }
        }
    });
    assert_eq!(read(&schema, &post(&[])), Ok(json!({ "ok": false })));
    assert_eq!(
        read(&schema, &post(&[("contact.call", "true")])),
        Err(vec![("/contact/name".into(), "is required: fill it in.".into())])
    );
    assert_eq!(
        read(&schema, &post(&[("tags", "y"), ("tags", "x")])),
        Ok(json!({ "ok": false, "tags": ["x", "y"] })),
        "in the order of the choices"
    );
    let odd = read(&schema, &post(&[("tags", "z")])).expect_err("not a choice");
    assert_eq!(odd[0].0, "/tags");
}

#[test]
fn defaults_fill_a_new_form_and_ids_differ_between_forms() {
    let schema = json!({
        "type": "object",
        "properties": { "n": { "type": "integer", "default": 5 }, "mood": { "enum": ["up", "down"], "default": "down" } }
    });
    let html = fields(&schema, None, &[]);
    assert!(html.contains("value=\"5\""), "{html}");
    assert!(html.contains("value=\"down\" checked"), "{html}");
    assert!(html.contains("value=\"\"> No answer"), "an optional choice may be left unanswered: {html}");
    let given = fields(&schema, Some(&json!({})), &[]);
    assert!(!given.contains("value=\"5\""), "values given replace the defaults: {given}");
    let id = |h: &str| h[h.find("id=\"").unwrap_or(0)..].chars().take(12).collect::<String>();
    assert_ne!(id(&html), id(&given), "two forms on one page keep their ids apart");
}

#[test]
fn a_schema_that_is_not_an_object_of_fields_is_one_json_field() {
    let schema = json!({ "type": "array", "items": { "type": "number" } });
    let html = fields(&schema, Some(&json!([1, 2])), &[]);
    assert!(html.contains("name=\"json\"") && html.contains("class=\"json\""), "{html}");
    assert_eq!(read(&schema, &submit(&html)), Ok(json!([1, 2])));
    assert_eq!(read(&schema, &post(&[])), Err(vec![(String::new(), "is required: fill it in.".into())]));
}
