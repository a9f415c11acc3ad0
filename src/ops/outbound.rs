//! What a request to the outside comes back as, whoever sends it (a model call, a tool server, a
//! service's token endpoint): the answer a gateway gave, or why none came.

/// A gateway's answer to a generation request: its status, its media type and its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Fetched {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// Why a request got no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Unanswered {
    /// No answer within the deadline.
    Timeout,
    /// It could not be reached, or the connection broke; the words say why.
    Unreachable(String),
    /// It answered more than this many bytes, more than is read.
    TooLarge(usize),
}
