//! The person a grant acts for, as the upstream OpenID Connect provider named them.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    /// Their `sub` at the identity provider: the one name of theirs that never changes.
    pub sub: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

impl Person {
    /// Their caller id, `person:<sub>`, which role assignments name them by.
    pub fn id(&self) -> String {
        format!("person:{}", self.sub)
    }
}
