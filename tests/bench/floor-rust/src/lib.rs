//! Four answers, each the least work of its kind: `/static` touches no Durable Object, `/read`
//! asks one object for one stored value, `/write` has it store a new value and answer it. Those
//! two go to the one object named `floor`, as every call on one playbook goes to that playbook's
//! object in the runtime. `/create` writes to a new object each time, as each run and each
//! playbook of the runtime is an object of its own: the least a start of one can cost.

use worker::{durable_object, event, Context, DurableObject, Env, Request, Response, SqlStorage, State};

#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    let path = req.path();
    match path.as_str() {
        "/read" | "/write" | "/create" => {
            let name = match path.as_str() {
                "/create" => format!("new-{}", worker::js_sys::Math::random()),
                _ => "floor".to_string(),
            };
            let stub = env.durable_object("FLOOR")?.get_by_name(&name)?;
            let mut answer = stub.fetch_with_str(&format!("https://object{path}")).await?;
            let text = answer.text().await?;
            json(answer.status_code(), text)
        }
        _ => json(200, r#"{"ok":true}"#.to_string()),
    }
}

fn json(status: u16, body: String) -> worker::Result<Response> {
    let mut resp = Response::ok(body)?.with_status(status);
    resp.headers_mut().set("content-type", "application/json")?;
    Ok(resp)
}

#[durable_object]
pub struct FloorObject {
    sql: SqlStorage,
}

#[derive(serde::Deserialize)]
struct Row {
    v: i64,
}

impl DurableObject for FloorObject {
    fn new(state: State, _env: Env) -> Self {
        let sql = state.storage().sql();
        let _ = sql.exec(
            "CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
             INSERT OR IGNORE INTO kv (k, v) VALUES ('value', 0);",
            None,
        );
        FloorObject { sql }
    }

    async fn fetch(&self, req: Request) -> worker::Result<Response> {
        if req.path() != "/read" {
            self.sql.exec("UPDATE kv SET v = v + 1 WHERE k = 'value'", None)?;
        }
        let rows: Vec<Row> = self.sql.exec("SELECT v FROM kv WHERE k = 'value'", None)?.to_array()?;
        let value = rows.first().map(|r| r.v).unwrap_or_default();
        json(200, format!(r#"{{"value":{value}}}"#))
    }
}
