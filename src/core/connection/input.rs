//! What `add_connection` is given, checked: a provider by its name, or a server given by hand,
//! each refusal at its pointer, all of them at once where they can be found together.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::given::{credentials_in, only};
use super::plan::{check_name, rules};
pub use super::plan::{Plan, ALLOWED_MAX, PLAYBOOKS_MAX};
use super::providers::{Need, Provider, Providers, Server, Way};
use super::{Credential, Document, OauthClient, Target};
use crate::core::text::{pointer_segment, quote};
use crate::core::tool_server::settings::check_address;
use crate::core::{FieldError, Problem};

/// Checks the input of `add_connection`. `deployed` refuses addresses a deployed runtime does not
/// reach.
pub fn check(args: &Value, providers: &Providers, deployed: bool) -> Result<Plan, Problem> {
    let empty = Map::new();
    let a = args.as_object().unwrap_or(&empty);
    let mut errors = Vec::new();
    for field in ["entry", "placeholders", "credential"] {
        if let Some(v) = a.get(field) {
            credentials_in(v, &format!("/{field}"), &mut errors);
        }
    }
    let fingerprint = fingerprint(args);
    let plan = match a.get("provider").and_then(Value::as_str) {
        Some(name) => {
            let Some(provider) = providers.named(name).filter(|p| providers.offered(p)) else {
                return Err(Problem::invalid(
                    "/provider",
                    format!(
                        "is {}, a provider this runtime does not have; search lists the providers a person may connect",
                        quote(name)
                    ),
                ));
            };
            from_provider(a, provider, providers, deployed, &mut errors)
        }
        None => super::hand::from_hand(a, deployed, &mut errors),
    };
    if !errors.is_empty() {
        errors.dedup();
        return Err(Problem::invalid_fields(errors));
    }
    let mut plan = plan?;
    plan.fingerprint = fingerprint;
    Ok(plan)
}

fn from_provider(
    a: &Map<String, Value>,
    p: &Provider,
    providers: &Providers,
    deployed: bool,
    errors: &mut Vec<FieldError>,
) -> Result<Plan, Problem> {
    if a.contains_key("type") {
        errors.push(FieldError::new("/type", format!("is given by the provider {}; leave it out", p.name)));
    }
    if let Some(entry) = a.get("entry").and_then(Value::as_object) {
        for k in entry.keys().filter(|k| !["playbooks", "allowed", "record_content"].contains(&k.as_str())) {
            errors.push(FieldError::new(
                format!("/entry/{}", pointer_segment(k)),
                format!("is given by the provider {}; with a provider, entry takes playbooks, allowed and record_content alone", p.name),
            ));
        }
    }
    let name = a.get("name").and_then(Value::as_str).unwrap_or(&p.name).to_string();
    check_name(&name, errors);
    let placeholders = placeholders(a, p, errors);
    let (credential, way) = provider_credential(a, p, providers, errors);
    let mut asked: Vec<String> = way.map(|w| w.scopes().iter().map(|s| s.name.clone()).collect()).unwrap_or_default();
    let more = a.get("more").and_then(Value::as_str).map(str::to_string);
    if let (Some(group), Some(way)) = (&more, way) {
        match way.groups().iter().find(|g| &g.name == group) {
            None => errors.push(FieldError::new("/more", no_group(p, way, group))),
            Some(g) => {
                let own = if credential.as_ref().is_some_and(Credential::own_client) {
                    OauthClient::Own
                } else {
                    OauthClient::Runtime
                };
                if errors.is_empty() && !providers.group_askable(p, way, own) {
                    return Err(Problem::conflict(format!(
                        "No OAuth client set up here covers the group {group} of {}.",
                        p.title
                    )));
                }
                asked
                    .extend(g.scopes.iter().map(|s| s.name.clone()).filter(|s| !asked.contains(s)).collect::<Vec<_>>());
            }
        }
    }
    let fill = |text: &str| placeholders.iter().fold(text.to_string(), |t, (k, v)| t.replace(&format!("{{{k}}}"), v));
    let target = match &p.server {
        Server::Mcp { url } => Target::Mcp { url: fill(url) },
        Server::Openapi { document, base_url } => {
            Target::Openapi { document: Document::At(fill(document)), base_url: fill(base_url) }
        }
    };
    let address = target.address();
    if errors.is_empty() {
        if let Err(why) = check_address(address, deployed) {
            errors.push(FieldError::new("/provider", format!("resolves to the address {address}, which {why}")));
        }
    }
    Ok(Plan {
        name,
        provider: Some(p.name.clone()),
        placeholders,
        target,
        credential,
        rules: rules(a, errors),
        handles_money: p.handles_money,
        more,
        asked_scopes: asked,
        fingerprint: String::new(),
    })
}

fn no_group(p: &Provider, way: &Way, group: &str) -> String {
    let names: Vec<String> = way.groups().iter().map(|g| g.name.clone()).collect();
    if names.is_empty() {
        format!("is {}, where {} offers no group of scopes beyond its first consent", quote(group), p.title)
    } else {
        format!("is {}, not a group of {}; it offers {}", quote(group), p.title, crate::core::text::join_and(&names))
    }
}

fn placeholders(a: &Map<String, Value>, p: &Provider, errors: &mut Vec<FieldError>) -> BTreeMap<String, String> {
    let given = a.get("placeholders").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut values = BTreeMap::new();
    for (k, v) in &given {
        let at = format!("/placeholders/{}", pointer_segment(k));
        let Some(placeholder) = p.placeholders.iter().find(|ph| &ph.name == k) else {
            errors.push(FieldError::new(at, format!("is not a placeholder of {}", p.title)));
            continue;
        };
        let value = v.as_str().unwrap_or_default();
        let fits = super::pattern::read(&placeholder.pattern).is_ok_and(|pat| pat.matches(value))
            && value.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
        if fits {
            values.insert(k.clone(), value.to_string());
        } else {
            errors
                .push(FieldError::new(at, format!("must match {}: {}", placeholder.pattern, placeholder.description)));
        }
    }
    for ph in p.placeholders.iter().filter(|ph| !given.contains_key(&ph.name)) {
        errors.push(FieldError::new(
            format!("/placeholders/{}", pointer_segment(&ph.name)),
            format!("is required: {}", ph.description),
        ));
    }
    values
}

fn provider_credential<'p>(
    a: &Map<String, Value>,
    p: &'p Provider,
    providers: &Providers,
    errors: &mut Vec<FieldError>,
) -> (Option<Credential>, Option<&'p Way>) {
    let c = a.get("credential").and_then(Value::as_object);
    let way = match c.and_then(|c| c.get("kind")).and_then(Value::as_str) {
        None => providers.default_way(p),
        Some(kind) => match providers.way(p, kind) {
            Some(w) if providers.offer(p, w).is_some() => Some(w),
            Some(_) => {
                errors.push(FieldError::new(
                    "/credential/kind",
                    format!("is {kind}, a way of {} that is not offered here while what it needs is not set", p.title),
                ));
                return (None, None);
            }
            None => {
                let kinds: Vec<String> = p.ways.iter().map(|w| w.kind().to_string()).collect();
                errors.push(FieldError::new(
                    "/credential/kind",
                    format!(
                        "is {kind}, not a way of {}, which offers {}",
                        p.title,
                        crate::core::text::join_and(&kinds)
                    ),
                ));
                return (None, None);
            }
        },
    };
    let own = match c.and_then(|c| c.get("oauth_client")) {
        None => false,
        Some(v) if v == "own" && matches!(way, Some(Way::Authorization { .. })) => true,
        Some(v) if v == "own" => {
            errors.push(FieldError::new("/credential/oauth_client", "is taken only beside kind: authorization"));
            false
        }
        Some(_) => {
            errors.push(FieldError::new(
                "/credential/oauth_client",
                "must be own, where the org connects under its own OAuth client",
            ));
            false
        }
    };
    if let (Some(c), Some(way)) = (c, way) {
        let takes: &[&str] = if matches!(way, Way::Authorization { .. }) { &["oauth_client"] } else { &[] };
        let mut fields = c.clone();
        if !matches!(way, Way::Authorization { .. }) {
            fields.remove("oauth_client");
        }
        only(&fields, way.kind(), takes, errors);
    }
    let credential = way.map(|w| match w {
        Way::Authorization { issuer, .. } => {
            let required = providers.offer(p, w) == Some(Need::Required);
            let oauth_client = if own || required { OauthClient::Own } else { OauthClient::Runtime };
            Credential::Authorization { issuer: Some(issuer.clone()), oauth_client }
        }
        Way::Secret { name, place, scheme, instructions, key_page, example, pattern } => Credential::Secret {
            name: name.clone(),
            place: *place,
            scheme: scheme.clone(),
            help: super::KeyHelp {
                instructions: instructions.clone(),
                key_page: key_page.clone(),
                example: example.clone(),
                pattern: pattern.clone(),
            },
        },
        Way::Reference { variable, name, place, scheme } => Credential::Reference {
            variable: variable.clone(),
            name: name.clone(),
            place: *place,
            scheme: scheme.clone(),
        },
        Way::ClientCredentials { issuer, scope } => {
            Credential::ClientCredentials { issuer: issuer.clone(), client_id: None, scope: scope.clone() }
        }
        Way::None => Credential::None,
    });
    (credential, way)
}

/// The digest of the input with its keys in order, the same for the same call.
fn fingerprint(args: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let ordered: BTreeMap<&String, Value> = m.iter().map(|(k, v)| (k, sorted(v))).collect();
                serde_json::to_value(ordered).unwrap_or(Value::Null)
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    Sha256::digest(sorted(args).to_string().as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
