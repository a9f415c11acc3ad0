//! Four answers, each the least work of its kind: `/static` touches no Durable Object, `/read`
//! asks one object for one stored value, `/write` has it store a new value and answer it. Those
//! two go to the one object named `floor`, as every call on one playbook goes to that playbook's
//! object in the runtime. `/create` writes to a new object each time, as each run and each
//! playbook of the runtime is an object of its own: the least a start of one can cost.
//!
//! Two more make the runtime's chains of calls with the least work in each, to say what those
//! chains allow: `/chain` is `run_definition`'s (a read of `floor`, a new object that writes, then
//! writes to `floor` before it answers), `/nested` is `create_playbook`'s (`floor` has a new
//! object write, then writes itself).
//!
//! `POST /read-answer?bytes=n` is a read on the wire of an MCP call: it reads the request's body,
//! asks `floor` for its value as `/read` does, and answers n bytes as an event stream, beside the
//! runtime's `get_playbook` of that size.

use worker::{durable_object, event, Context, DurableObject, Env, Request, Response, SqlStorage, State};

#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    let path = req.path();
    match path.as_str() {
        "/read" | "/write" | "/create" | "/nested" => {
            let name = match path.as_str() {
                "/create" => fresh(),
                _ => "floor".to_string(),
            };
            call(&env, &name, &path).await
        }
        "/read-answer" => {
            let mut req = req;
            req.bytes().await?;
            call(&env, "floor", "/read").await?;
            let bytes = req.url()?.query_pairs().find(|(k, _)| k == "bytes").and_then(|(_, v)| v.parse().ok());
            let mut resp = Response::ok("x".repeat(bytes.unwrap_or(0usize).min(1 << 20)))?;
            resp.headers_mut().set("content-type", "text/event-stream")?;
            resp.headers_mut().set("cache-control", "no-cache")?;
            Ok(resp)
        }
        "/chain" => {
            call(&env, "floor", "/read").await?;
            call(&env, &fresh(), "/create-then-write").await
        }
        _ => json(200, r#"{"ok":true}"#.to_string()),
    }
}

/// The name of an object never used before.
fn fresh() -> String {
    format!("new-{}", worker::js_sys::Math::random())
}

/// One call to the object `name`, its answer passed on.
async fn call(env: &Env, name: &str, path: &str) -> worker::Result<Response> {
    let stub = env.durable_object("FLOOR")?.get_by_name(name)?;
    let mut answer = stub.fetch_with_str(&format!("https://object{path}")).await?;
    let text = answer.text().await?;
    json(answer.status_code(), text)
}

fn json(status: u16, body: String) -> worker::Result<Response> {
    let mut resp = Response::ok(body)?.with_status(status);
    resp.headers_mut().set("content-type", "application/json")?;
    Ok(resp)
}

#[durable_object]
pub struct FloorObject {
    sql: SqlStorage,
    env: Env,
}

#[derive(serde::Deserialize)]
struct Row {
    v: i64,
}

impl DurableObject for FloorObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        let _ = sql.exec(
            "CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
             INSERT OR IGNORE INTO kv (k, v) VALUES ('value', 0);",
            None,
        );
        FloorObject { sql, env }
    }

    async fn fetch(&self, req: Request) -> worker::Result<Response> {
        let path = req.path();
        // `floor` has a new object write first; a new object writes, then has `floor` write.
        if path == "/nested" {
            call(&self.env, &fresh(), "/create").await?;
        }
        if path != "/read" {
            self.sql.exec("UPDATE kv SET v = v + 1 WHERE k = 'value'", None)?;
        }
        if path == "/create-then-write" {
            call(&self.env, "floor", "/write").await?;
        }
        let rows: Vec<Row> = self.sql.exec("SELECT v FROM kv WHERE k = 'value'", None)?.to_array()?;
        let value = rows.first().map(|r| r.v).unwrap_or_default();
        json(200, format!(r#"{{"value":{value}}}"#))
    }
}
