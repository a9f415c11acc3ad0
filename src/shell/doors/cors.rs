//! CORS for the browser MCP clients of origins the operator allows (`ALLOWED_ORIGINS`): they may
//! send a credential and the MCP headers, and read the challenge that starts a sign-in.

use worker::{Headers, Response};

const ALLOW_HEADERS: &str =
    "authorization, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, mcp-session-id, last-event-id";
const EXPOSE_HEADERS: &str = "www-authenticate, mcp-session-id, mcp-protocol-version";

/// Marks a response to an allowed origin as readable by it.
pub fn allow(headers: &mut Headers, origin: &str) -> worker::Result<()> {
    headers.set("access-control-allow-origin", origin)?;
    headers.set("access-control-expose-headers", EXPOSE_HEADERS)?;
    headers.append("vary", "Origin")?;
    Ok(())
}

/// The answer to a preflight that passed the origin check.
pub fn preflight() -> worker::Result<Response> {
    let mut resp = Response::empty()?.with_status(204);
    let headers = resp.headers_mut();
    headers.set("access-control-allow-methods", "GET, POST, DELETE, OPTIONS")?;
    headers.set("access-control-allow-headers", ALLOW_HEADERS)?;
    headers.set("access-control-max-age", "600")?;
    Ok(resp)
}
