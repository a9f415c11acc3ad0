//! Step-by-step changes to a Durable Object's SQL tables. An object lists its steps in order, and
//! its database records how many it has had (its version); `plan` says which it still needs. The
//! shell applies them (`shell::migrate`).
//!
//! A step's place in the list is its version, so steps are only ever appended. Every step must be
//! safe to apply again, since a step and the record of it are not one transaction (see
//! `shell::migrate`): `CREATE … IF NOT EXISTS`, and columns added only where they are missing.
//! The same property lets the first steps adopt a database made before versions were recorded,
//! whichever columns it has: it is at version 0 and takes every step.

/// One change to an object's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Statements that change nothing when what they make is there already.
    Sql(&'static str),
    /// A column added after its table was first made: added only when the table lacks it, since
    /// a database from before versions were recorded may have it already, and a new one does:
    /// the statement that makes its table declares it too, since each `ALTER TABLE` has SQLite
    /// read the whole schema again, a cost a new object (each playbook is one) need not pay.
    AddColumn { table: &'static str, column: &'static str, declared: &'static str },
}

impl Step {
    /// The statements that make the change (for `AddColumn`, once the column is found missing).
    pub fn statement(&self) -> String {
        match self {
            Step::Sql(sql) => (*sql).to_string(),
            Step::AddColumn { table, column, declared } => {
                format!("ALTER TABLE {table} ADD COLUMN {column} {declared}")
            }
        }
    }
}

/// What a database at a recorded version needs.
#[derive(Debug, PartialEq, Eq)]
pub enum Plan<'s> {
    /// The steps still to apply, in order, each with the version the database is at once it is
    /// applied; none when it is up to date.
    Apply(Vec<(u32, &'s Step)>),
    /// A newer release recorded more steps than this one knows (a rollback). Steps only add, so
    /// this release can still use the tables, and nothing is applied.
    Ahead { recorded: u32, known: u32 },
}

/// The steps a database that recorded `recorded` still needs of `steps`.
pub fn plan(recorded: u32, steps: &[Step]) -> Plan<'_> {
    let known = u32::try_from(steps.len()).unwrap_or(u32::MAX);
    if recorded > known {
        return Plan::Ahead { recorded, known };
    }
    Plan::Apply(steps.iter().zip(1..).skip(recorded as usize).map(|(step, version)| (version, step)).collect())
}

/// What a new, empty database runs to reach the last of `steps` in one go: the `Sql` steps in
/// order, their statements joined. An `AddColumn` step adds nothing there when the statement that
/// makes its table declares the column already; when one does not, `None`, and the steps are
/// applied one by one. (Each statement SQLite runs on a new object's schema costs it a parse of
/// the whole schema, and a new object is made for every run and every playbook: docs/performance.md.)
pub fn fresh(steps: &[Step]) -> Option<String> {
    let made: Vec<&str> = steps
        .iter()
        .filter_map(|step| match step {
            Step::Sql(sql) => Some(sql.trim().trim_end_matches(';')),
            Step::AddColumn { .. } => None,
        })
        .collect();
    let declared = |table: &str, column: &str| made.iter().any(|sql| declares(sql, table, column));
    steps
        .iter()
        .all(|step| match step {
            Step::AddColumn { table, column, .. } => declared(table, column),
            Step::Sql(_) => true,
        })
        .then(|| made.join(";\n"))
}

/// Whether `sql` makes `table` with `column` among its columns.
fn declares(sql: &str, table: &str, column: &str) -> bool {
    let words: Vec<&str> = sql.split_whitespace().collect();
    let sql = words.join(" ");
    let opening = format!("CREATE TABLE IF NOT EXISTS {table} (");
    let Some(at) = sql.find(&opening) else { return false };
    let body = &sql[at + opening.len()..];
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in body.char_indices() {
        let part = match c {
            '(' => {
                depth += 1;
                None
            }
            ')' if depth == 0 => Some(&body[start..i]),
            ')' => {
                depth -= 1;
                None
            }
            ',' if depth == 0 => Some(&body[start..i]),
            _ => None,
        };
        if let Some(part) = part {
            if part.split_whitespace().next() == Some(column) {
                return true;
            }
            if c == ')' {
                return false;
            }
            start = i + 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const STEPS: &[Step] = &[
        Step::Sql("CREATE TABLE IF NOT EXISTS t (a TEXT)"),
        Step::AddColumn { table: "t", column: "b", declared: "TEXT" },
        Step::Sql("CREATE INDEX IF NOT EXISTS t_b ON t (b)"),
    ];

    fn versions(plan: Plan<'_>) -> Vec<u32> {
        match plan {
            Plan::Apply(steps) => steps.into_iter().map(|(v, _)| v).collect(),
            Plan::Ahead { .. } => panic!("not ahead"),
        }
    }

    #[test]
    fn a_database_without_a_record_takes_every_step_in_order() {
        let Plan::Apply(steps) = plan(0, STEPS) else { panic!("not ahead") };
        assert_eq!(steps, vec![(1, &STEPS[0]), (2, &STEPS[1]), (3, &STEPS[2])]);
    }

    #[test]
    fn a_database_takes_only_the_steps_after_its_version() {
        assert_eq!(versions(plan(1, STEPS)), vec![2, 3]);
        assert_eq!(versions(plan(2, STEPS)), vec![3]);
        assert_eq!(versions(plan(3, STEPS)), Vec::<u32>::new(), "up to date");
    }

    #[test]
    fn a_database_a_newer_release_migrated_is_left_as_it_is() {
        assert_eq!(plan(5, STEPS), Plan::Ahead { recorded: 5, known: 3 });
    }

    #[test]
    fn a_column_is_added_by_name_with_its_declaration() {
        assert_eq!(STEPS[1].statement(), "ALTER TABLE t ADD COLUMN b TEXT");
        assert_eq!(STEPS[0].statement(), "CREATE TABLE IF NOT EXISTS t (a TEXT)");
    }

    #[test]
    fn a_new_database_makes_its_tables_in_one_batch_when_they_declare_every_added_column() {
        const DECLARED: &[Step] = &[
            Step::Sql("CREATE TABLE IF NOT EXISTS t (\n  a TEXT NOT NULL, b TEXT,\n  PRIMARY KEY (a)\n);"),
            Step::AddColumn { table: "t", column: "b", declared: "TEXT" },
            Step::Sql("CREATE INDEX IF NOT EXISTS t_b ON t (b)"),
        ];
        assert_eq!(
            fresh(DECLARED).as_deref(),
            Some("CREATE TABLE IF NOT EXISTS t (\n  a TEXT NOT NULL, b TEXT,\n  PRIMARY KEY (a)\n);\nCREATE INDEX IF NOT EXISTS t_b ON t (b)")
        );
        assert_eq!(fresh(STEPS), None, "t is made without b, so b is added by its own step");
    }

    #[test]
    fn a_column_counts_as_declared_only_in_its_own_table() {
        assert!(declares("CREATE TABLE IF NOT EXISTS t (a TEXT, b TEXT)", "t", "b"));
        assert!(declares("CREATE TABLE IF NOT EXISTS t (a TEXT, b TEXT NOT NULL)", "t", "b"));
        assert!(!declares("CREATE TABLE IF NOT EXISTS t (a TEXT, bb TEXT)", "t", "b"));
        assert!(!declares("CREATE TABLE IF NOT EXISTS u (b TEXT)", "t", "b"));
        assert!(!declares("CREATE TABLE IF NOT EXISTS t (a TEXT, PRIMARY KEY (b))", "t", "b"));
        assert!(!declares("CREATE TABLE IF NOT EXISTS t (a TEXT); CREATE TABLE IF NOT EXISTS v (b TEXT)", "t", "b"));
    }
}
