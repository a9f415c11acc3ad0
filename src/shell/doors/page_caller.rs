//! Who the runtime's own pages act as, and how they act: a page's person becomes the caller of
//! one org with the scopes of the role they hold there (the local developer in local mode), and
//! each page runs its operation through `tools::call` as that caller, as its JSON route would.
//! So a page shows exactly what the tools answer, with the same scopes and checks.

use serde_json::Value;
use worker::Env;

use crate::core::access::oauth::person::Person;
use crate::core::access::role::Role;
use crate::core::access::session::PagePerson;
use crate::core::access::store::RolesOf;
use crate::core::caller::{Caller, Principal};
use crate::core::Problem;
use crate::shell::backend::Objects;
use crate::shell::do_rpc;
use crate::shell::env::{Settings, ACCESS};
use crate::shell::singletons::ACCESS_NAME as NAME;
use crate::tools::{self, Output};

/// Runs one operation as `caller`, as its JSON route would. `base` is the runtime's own
/// address, for the links an answer carries where `PUBLIC_URL` names none.
pub async fn run(env: &Env, caller: &Caller, base: &str, name: &str, args: Value) -> Result<Output, Problem> {
    let tool = tools::find(name).ok_or_else(|| Problem::internal(format!("no operation {name}")))?;
    let backend = Objects { env };
    let mut ctx = backend.context(caller)?;
    if ctx.connections.base.is_empty() {
        ctx.connections.base = base.to_string();
    }
    tools::call(&ctx, tool, args).await
}

/// The caller a page acts as in `org`: the local developer in local mode, else the person with
/// the scopes of the role they hold there.
///
/// # Errors
/// Not found for another org than `local` in local mode; forbidden for a person with no role
/// in `org`; unavailable when the Access object does not answer.
pub async fn caller_of(env: &Env, settings: &Settings, person: &PagePerson, org: &str) -> Result<Caller, Problem> {
    if settings.local {
        let caller = Caller::local(settings.local_user.clone());
        if org != caller.org {
            return Err(Problem::not_found(format!("In local mode the only org is local; the org {org} is not here.")));
        }
        return Ok(caller);
    }
    let roles = roles_of(env, settings, person).await?;
    let role = roles.into_iter().find(|(o, _)| o == org).map(|(_, r)| r).ok_or_else(|| {
        Problem::forbidden(format!(
            "You hold no role in the org {org}, so its pages are not open to you. An owner or admin of the org can give you one."
        ))
    })?;
    Ok(Caller {
        id: person.id.clone(),
        principal: Principal::Person { name: person.name.clone(), email: person.email.clone() },
        org: org.to_string(),
        scopes: role.scopes().to_vec(),
        playbooks: None,
    })
}

/// The orgs a signed-in person holds a role in, and the role, as the Access object gives them.
pub async fn roles_of(env: &Env, settings: &Settings, person: &PagePerson) -> Result<Vec<(String, Role)>, Problem> {
    let sub = person.id.strip_prefix("person:").unwrap_or(&person.id).to_string();
    let who = Person { sub, name: person.name.clone(), email: person.email.clone() };
    let stub = env
        .durable_object(ACCESS)
        .and_then(|ns| ns.get_by_name(NAME))
        .map_err(|_| Problem::unavailable("Storage is not reachable just now; try again."))?;
    do_rpc::send(&stub, &RolesOf { person: who, owners: settings.owners.clone(), now: crate::shell::env::instant() })
        .await
}
