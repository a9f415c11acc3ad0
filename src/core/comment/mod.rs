//! Comments: what people say in Studio about a thing of a playbook or of the organization, kept
//! open until an agent or a person resolves it. Pure: the address grammar (`address`), the
//! record (`record`), what a change does (`decide`), the call an address leads to and its page
//! in Studio (`call`), and which a list shows (`list`).

pub mod address;
pub mod call;
pub mod decide;
pub mod list;
pub mod record;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub use address::{Address, Whose};
pub use decide::{decide, Among, CommentCommand, Decision, COMMENTS_MAX};
pub use list::{CommentPage, CommentQuery};
pub use record::{By, Comment, How, Status};

/// A make, a resolve or a reopen, sent to the object that keeps the comments: a playbook's
/// object with `playbook`, the organization's without.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteComment {
    pub org: String,
    pub playbook: Option<String>,
    pub command: CommentCommand,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListComments {
    pub org: String,
    pub playbook: Option<String>,
    pub query: CommentQuery,
}

/// A comment as the tools answer it: as kept, with `call` (the tool that reads what it is about)
/// or `report: true` where no tool changes it, and `studio`, its place in Studio.
pub fn shown(c: &Comment, org: &str, base: &str) -> Result<Value, crate::core::Problem> {
    let mut value = crate::core::error::encoded(c)?;
    let whose = if c.playbook.is_some() { Whose::Playbook } else { Whose::Org };
    // A kept address was read when the comment was made; one that no longer reads has no call.
    let address = Address::parse(&c.address, whose).ok();
    match address.as_ref().and_then(|a| call::call(a, c.playbook.as_deref())) {
        Some(call) => value["call"] = call,
        None => value["report"] = json!(true),
    }
    let page = match &address {
        Some(a) => call::studio(base, org, c.playbook.as_deref(), a, &c.id),
        None => call::studio(base, org, c.playbook.as_deref(), &Address::Org, &c.id),
    };
    value["studio"] = json!(page);
    Ok(value)
}
