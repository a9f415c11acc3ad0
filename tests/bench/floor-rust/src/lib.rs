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
//!
//! `POST /run-steps` is a reasoning run's chain with the least work in each part: a read of
//! `floor` (the definition), then a new object that writes its row (the run kept), makes each
//! request of the body's `steps` in turn (the model's, the tool's, the model's again, as the
//! runtime sent them), writing its row after each answer (the answer kept before the next request),
//! and has `floor` write (the run's history reported) before it answers.

use worker::{
    durable_object, event, Context, DurableObject, Env, Fetch, Headers, Method, Request, RequestInit, Response,
    SqlStorage, State,
};

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
        "/run-steps" => {
            let mut req = req;
            let steps = req.text().await?;
            call(&env, "floor", "/read").await?;
            call_with(&env, &fresh(), "/steps", steps).await
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

/// `call`, with a body.
async fn call_with(env: &Env, name: &str, path: &str, body: String) -> worker::Result<Response> {
    let stub = env.durable_object("FLOOR")?.get_by_name(name)?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_body(Some(body.into()));
    let mut answer = stub.fetch_with_request(Request::new_with_init(&format!("https://object{path}"), &init)?).await?;
    let text = answer.text().await?;
    json(answer.status_code(), text)
}

/// One request of `/run-steps`, as the runtime sent it.
#[derive(serde::Deserialize)]
struct Step {
    url: String,
    method: String,
    headers: std::collections::BTreeMap<String, String>,
    body: String,
}

#[derive(serde::Deserialize)]
struct Steps {
    steps: Vec<Step>,
}

/// Makes one request and reads its answer whole.
async fn send(step: &Step) -> worker::Result<()> {
    let headers = Headers::new();
    for (name, value) in &step.headers {
        headers.set(name, value)?;
    }
    let method = Method::from(step.method.clone());
    let mut init = RequestInit::new();
    init.with_method(method).with_headers(headers).with_body(Some(step.body.clone().into()));
    let mut answer = Fetch::Request(Request::new_with_init(&step.url, &init)?).send().await?;
    answer.text().await.map(drop)
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
        if path == "/steps" {
            let mut req = req;
            let Steps { steps } = serde_json::from_str(&req.text().await?)?;
            for step in &steps {
                send(step).await?;
                self.sql.exec("UPDATE kv SET v = v + 1 WHERE k = 'value'", None)?;
            }
            call(&self.env, "floor", "/write").await?;
        }
        let rows: Vec<Row> = self.sql.exec("SELECT v FROM kv WHERE k = 'value'", None)?.to_array()?;
        let value = rows.first().map(|r| r.v).unwrap_or_default();
        json(200, format!(r#"{{"value":{value}}}"#))
    }
}
