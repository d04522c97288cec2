//! A client's script interpreter: the one seam between pgbench's scripts and the
//! wire. The engine's client asks [`Session::begin`] for a transaction, then
//! [`Session::next`] for each step — a query to send, a sleep, a pipeline's bounds —
//! and tells [`Session::answered`] what each query brought back, until `Done`.
//! `\set`, `\if` and `\gset` run here, between the answers, on the client's own
//! variables and random state; nothing here does I/O.
//!
//! Per transaction nothing allocates once every variable has been set once: the
//! SQL text, the parameters and the variables' texts live in buffers reused from
//! one statement to the next.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use crate::sql::script::expr::{self, text_value, Env, Value};
use crate::sql::script::rand::Rand;
use crate::sql::script::{Amount, Command, Part, Script};
use crate::sql::Dialect;

/// How statements go out (`-M`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// One `Query` message with the variables' values in the text.
    #[default]
    Simple,
    /// Parse/Bind/Execute of an unnamed statement, the values as `$n` parameters.
    Extended,
    /// A named statement parsed once per connection, then Bind/Execute.
    Prepared,
}

/// One script of a run with its weight (`-b name@w`, `-f file@w`).
#[derive(Debug, Clone)]
pub struct Weighted {
    pub name: String,
    pub weight: u32,
    pub script: Script,
}

/// A statement, ready for each mode: its text with `$n` in place of its variables,
/// the variables in order, and its prepared statement's name. An `\endpipeline` is
/// numbered as one too (no text): pgbench's `-r` times the pipeline's wait there.
#[derive(Debug, Clone)]
struct Stmt {
    script: usize,
    /// Index into the script's commands.
    command: usize,
    param_sql: String,
    param_vars: Vec<String>,
    name: String,
}

/// Every script of a run, parsed, weighted, their statements numbered across
/// scripts (a statement's number is its label's index), and the mode.
#[derive(Debug, Clone)]
pub struct Scripts {
    pub scripts: Vec<Weighted>,
    pub mode: Mode,
    /// Variables set before the first transaction (`:scale`, `-D`), in order.
    pub defines: Vec<(String, Define)>,
    stmts: Vec<Stmt>,
    /// For each script, for each command, its statement's number (SQL only).
    stmt_of: Vec<Vec<usize>>,
    total_weight: u64,
    /// `--max-tries`: a transaction's tries at most when it fails with a
    /// serialization failure or a deadlock (1: never retried).
    pub max_tries: u32,
    /// pgbench's `-l`: each transaction's line, handed over per worker.
    pub log: Option<Arc<TxnLog>>,
}

/// A variable set before the first transaction.
#[derive(Debug, Clone, PartialEq)]
pub enum Define {
    /// A number (`:scale`).
    Value(Value),
    /// Text as given (`-D NAME=VALUE`, any text): `:NAME` in SQL is the text
    /// itself; an expression reads it as pgbench reads text (see [`expr::text_value`]).
    Text(String),
}

/// pgbench's per-transaction log (`-l` without `--aggregate-interval`): what its
/// lines carry beyond the fixed fields, and where a worker's whole lines go. The
/// engine fills a buffer per worker and hands it to `write` (the front end's files)
/// only when it is full or the worker ends: no file is touched per transaction.
pub struct TxnLog {
    /// `-R`: each line ends with its schedule lag (µs).
    pub lag: bool,
    /// `--max-tries` above 1: and then with its retries.
    pub retries: bool,
    /// `--failures-detailed`: a failed transaction's time is `serialization` or
    /// `deadlock` when it is one (else `failed`, as every failure without it).
    pub detailed: bool,
    /// Writes whole lines of worker `thread` (pgbench's thread number).
    #[allow(clippy::type_complexity)]
    pub write: Box<dyn Fn(usize, &[u8]) + Send + Sync>,
}

impl std::fmt::Debug for TxnLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TxnLog")
            .field("lag", &self.lag)
            .field("retries", &self.retries)
            .field("detailed", &self.detailed)
            .finish_non_exhaustive()
    }
}

impl Scripts {
    /// Numbers the statements; `scripts` is non-empty with positive weights (the
    /// front end checks that with the flag's name).
    pub fn new(scripts: Vec<Weighted>, mode: Mode, defines: Vec<(String, Define)>) -> Scripts {
        let (stmts, stmt_of) = number(&scripts, Dialect::Postgres);
        let total_weight = scripts.iter().map(|s| s.weight as u64).sum();
        Scripts {
            scripts,
            mode,
            defines,
            stmts,
            stmt_of,
            total_weight,
            max_tries: 1,
            log: None,
        }
    }

    /// The same scripts, a transaction tried up to `n` times (pgbench's
    /// `--max-tries`; at least 1).
    pub fn with_max_tries(mut self, n: u32) -> Scripts {
        self.max_tries = n.max(1);
        self
    }

    /// The first script with a `\startpipeline` when the mode is simple: pgbench
    /// aborts its client there ("cannot use pipeline mode with the simple query
    /// protocol"); the front ends refuse it before any load.
    pub fn pipeline_in_simple_mode(&self) -> Option<&str> {
        self.pipelined().filter(|_| self.mode == Mode::Simple)
    }

    /// The first script with a `\startpipeline` (MySQL's protocol has none: the
    /// front ends refuse it on a `mysql://` target).
    pub fn pipelined(&self) -> Option<&str> {
        self.scripts
            .iter()
            .find(|w| w.script.commands.contains(&Command::StartPipeline))
            .map(|w| w.name.as_str())
    }

    /// pgbench's `-l`: each transaction's line handed to `log` (see [`TxnLog`]).
    pub fn with_txn_log(mut self, log: Option<Arc<TxnLog>>) -> Scripts {
        self.log = log;
        self
    }

    /// The same scripts with their parameters written for `dialect`'s wire: `?` on
    /// MySQL, each occurrence of a variable its own parameter (positional, where
    /// PostgreSQL's `$n` may name one twice).
    pub fn with_dialect(mut self, dialect: Dialect) -> Scripts {
        (self.stmts, self.stmt_of) = number(&self.scripts, dialect);
        self
    }

    /// The statements' labels, by number: the first line as written (pgbench `-r`), and
    /// `\endpipeline` for a pipeline's end.
    pub fn labels(&self) -> Vec<&str> {
        self.stmts
            .iter()
            .map(
                |s| match &self.scripts[s.script].script.commands[s.command] {
                    Command::Sql(q) => q.first_line.as_str(),
                    Command::EndPipeline => "\\endpipeline",
                    _ => "",
                },
            )
            .collect()
    }

    /// Each statement's script (its index in `scripts`), by number.
    pub fn statement_scripts(&self) -> Vec<usize> {
        self.stmts.iter().map(|s| s.script).collect()
    }

    /// How many statements all the scripts hold.
    pub fn statements(&self) -> usize {
        self.stmts.len()
    }
}

/// Numbers the scripts' statements across scripts, each with its parameterised
/// text for `dialect` and its variables in the order their placeholders take them.
fn number(scripts: &[Weighted], dialect: Dialect) -> (Vec<Stmt>, Vec<Vec<usize>>) {
    let mut stmts = Vec::new();
    let mut stmt_of = Vec::new();
    for (si, w) in scripts.iter().enumerate() {
        let mut of = vec![usize::MAX; w.script.commands.len()];
        for (ci, c) in w.script.commands.iter().enumerate() {
            let s = match c {
                Command::Sql(s) => s,
                Command::EndPipeline => {
                    of[ci] = stmts.len();
                    stmts.push(Stmt {
                        script: si,
                        command: ci,
                        param_sql: String::new(),
                        param_vars: Vec::new(),
                        name: String::new(),
                    });
                    continue;
                }
                _ => continue,
            };
            of[ci] = stmts.len();
            let mut param_sql = String::new();
            let mut param_vars: Vec<String> = Vec::new();
            for p in &s.parts {
                match p {
                    Part::Text(t) => param_sql.push_str(t),
                    Part::Var(v) => {
                        let seen = param_vars.iter().position(|x| x == v);
                        let n = match seen {
                            Some(n) if dialect == Dialect::Postgres => n,
                            _ => {
                                param_vars.push(v.clone());
                                param_vars.len() - 1
                            }
                        };
                        dialect.placeholder(n + 1, &mut param_sql);
                    }
                }
            }
            stmts.push(Stmt {
                script: si,
                command: ci,
                param_sql,
                param_vars,
                name: format!("P{si}_{ci}"),
            });
        }
        stmt_of.push(of);
    }
    (stmts, stmt_of)
}

/// A query's parameters as text (`None` is SQL NULL), in one reused buffer.
#[derive(Debug, Default)]
pub struct Params {
    buf: String,
    spans: Vec<Option<(usize, usize)>>,
}

impl Params {
    pub fn len(&self) -> usize {
        self.spans.len()
    }
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        self.spans[i].map(|(a, b)| &self.buf.as_bytes()[a..b])
    }
    pub fn iter(&self) -> impl Iterator<Item = Option<&[u8]>> {
        (0..self.len()).map(|i| self.get(i))
    }
    /// Empties the parameters, keeping the buffers' capacity.
    pub fn clear(&mut self) {
        self.buf.clear();
        self.spans.clear();
    }
    /// Appends a parameter whose text `write` puts in the buffer (a conversation
    /// that builds its own statements: sysbench's OLTP tests).
    pub fn push_with(&mut self, write: impl FnOnce(&mut String)) {
        let a = self.buf.len();
        write(&mut self.buf);
        self.spans.push(Some((a, self.buf.len())));
    }
}

/// What the client does next in this transaction.
#[derive(Debug)]
pub enum Action<'a> {
    Query {
        /// The statement's number across all scripts: its label (`-r`).
        stmt: usize,
        /// Simple mode: the text with the variables' values in it; extended and
        /// prepared: the text with `$1..$n`.
        sql: &'a str,
        /// Extended and prepared: the values, as text.
        params: &'a Params,
        /// Prepared: the statement's name, parsed once per connection.
        prepared: Option<&'a str>,
    },
    Sleep(Duration),
    /// `\startpipeline`: the queries up to `PipelineEnd` are sent without waiting
    /// for their answers (extended or prepared mode).
    PipelineStart,
    /// `\endpipeline`: one Sync, then every pipelined query's answer in order, each
    /// told to `answered`. `stmt` is its number (its label, as a statement's).
    PipelineEnd {
        stmt: usize,
    },
    /// The transaction ended.
    Done,
    /// A run-time script error: the transaction fails with this text as its sample.
    Failed(String),
}

/// A transaction the engine's SQL arm drives: it asks [`Conversation::next`] for
/// each step and tells [`Conversation::answered`] each query's answer, until
/// `Done`. A pgbench script's [`Session`] is one; a workload that builds its
/// statements itself (YCSB over SQL, sysbench's OLTP tests) is another.
pub trait Conversation {
    /// What to do next in this transaction; the action borrows the conversation's
    /// buffers until the next call.
    fn next(&mut self) -> Action<'_>;
    /// The awaited query's answer.
    fn answered(&mut self, answer: &StatementAnswer<'_>);
    /// After a statement failed with `failure`: whether the transaction starts again
    /// from its beginning (pgbench's `--max-tries`, sysbench's ignored errors).
    fn retry(&mut self, failure: SqlFailure) -> bool {
        let _ = failure;
        false
    }
    /// The label statement `stmt`'s own time is counted under (`stmt=<n>`), if any.
    fn statement_label(&self, stmt: usize) -> Option<u16> {
        let _ = stmt;
        None
    }
    /// pgbench's `-l`: the log, this client's id and the script begun (its index).
    fn txn_log(&self) -> Option<(&Arc<TxnLog>, usize, usize)> {
        None
    }
}

impl Conversation for Session {
    fn next(&mut self) -> Action<'_> {
        Session::next(self)
    }
    fn answered(&mut self, answer: &StatementAnswer<'_>) {
        Session::answered(self, answer)
    }
    fn statement_label(&self, stmt: usize) -> Option<u16> {
        self.stmt_labels.as_ref()?.get(stmt).copied()
    }
    fn retry(&mut self, failure: SqlFailure) -> bool {
        failure.retryable() && Session::retry(self)
    }
    fn txn_log(&self) -> Option<(&Arc<TxnLog>, usize, usize)> {
        let log = self.scripts.log.as_ref()?;
        Some((log, self.client, self.script))
    }
}

/// A failed statement's error as the server named it: the conversation decides
/// whether it is worth the transaction's retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlFailure {
    /// PostgreSQL's SQLSTATE.
    Pg([u8; 5]),
    /// MySQL's or MariaDB's error code and SQLSTATE.
    My(u16, [u8; 5]),
}

impl SqlFailure {
    /// pgbench's `--max-tries` set: a serialization failure or a deadlock, and
    /// MySQL's lock wait timeout (sysbench's).
    pub fn retryable(self) -> bool {
        match self {
            SqlFailure::Pg(state) => crate::sql::pg::sqlstate::SqlErrorKind::of(&state).retryable(),
            SqlFailure::My(code, state) => {
                crate::sql::mysql::errcode::MyErrorKind::of(code, &state).retryable()
            }
        }
    }
}

/// A query's answer, as the wire read it.
#[derive(Debug, Default)]
pub struct StatementAnswer<'a> {
    pub failed: bool,
    pub rows: u64,
    /// Rows a write changed (PostgreSQL's CommandComplete count, MySQL's OK
    /// packet's affected rows); 0 for BEGIN and COMMIT.
    pub affected: u64,
    /// The values `\gset`/`\aset` store, as text (`None`: NULL): each result's
    /// last row, results in order (a compound query, `\;`, has several).
    pub first_row: &'a [Option<&'a [u8]>],
    /// Their columns' names (RowDescription), aligned with `first_row`.
    pub columns: &'a [&'a [u8]],
    /// The last result's rows, and where its columns start: `\gset` reads it alone.
    pub last_rows: u64,
    pub last_from: usize,
}

/// A variable: its value, or text a query returned (`Value::Null` with `is_text`).
#[derive(Debug, Clone)]
struct Var {
    name: String,
    value: Value,
    text: String,
    is_text: bool,
}

/// The client's variables and generator, what expressions read.
struct Vars {
    vars: Vec<Var>,
    rng: Rand,
    default_seed: i64,
}

impl Vars {
    fn slot(&mut self, name: &str) -> &mut Var {
        match self.vars.iter().position(|v| v.name == name) {
            Some(i) => &mut self.vars[i],
            None => {
                self.vars.push(Var {
                    name: name.to_string(),
                    value: Value::Null,
                    text: String::new(),
                    is_text: false,
                });
                self.vars.last_mut().expect("just pushed")
            }
        }
    }
    fn find(&self, name: &str) -> Option<&Var> {
        self.vars.iter().find(|v| v.name == name)
    }
    fn set(&mut self, name: &str, value: Value) {
        let v = self.slot(name);
        v.value = value;
        v.is_text = false;
    }
    fn set_text(&mut self, name: &str, text: Option<&[u8]>) {
        let v = self.slot(name);
        v.text.clear();
        match text {
            Some(t) => {
                v.text.push_str(&String::from_utf8_lossy(t));
                v.is_text = true;
            }
            None => {
                v.value = Value::Null;
                v.is_text = false;
            }
        }
    }
    /// Writes the variable's value as SQL text; false when it is not set.
    fn write(&self, name: &str, out: &mut String) -> bool {
        match self.find(name) {
            None => false,
            Some(v) if v.is_text => {
                out.push_str(&v.text);
                true
            }
            Some(v) => {
                match v.value {
                    Value::Int(i) => out.push_str(itoa::Buffer::new().format(i)),
                    other => {
                        let _ = write!(out, "{other}");
                    }
                }
                true
            }
        }
    }
}

impl Env for Vars {
    fn var(&self, name: &str) -> Option<Result<Value, String>> {
        let v = self.find(name)?;
        if !v.is_text {
            return Some(Ok(v.value));
        }
        Some(
            text_value(&v.text)
                .ok_or_else(|| format!("malformed variable \"{name}\" value: \"{}\"", v.text)),
        )
    }
    fn rng(&mut self) -> &mut Rand {
        &mut self.rng
    }
    fn default_seed(&self) -> i64 {
        self.default_seed
    }
}

/// One client's interpreter.
pub struct Session {
    scripts: Arc<Scripts>,
    vars: Vars,
    script: usize,
    pc: usize,
    /// The statement whose answer is awaited, if any (the command's index).
    awaiting: Option<usize>,
    ended: bool,
    sql: String,
    params: Params,
    error: Option<String>,
    /// Each statement's label, by number (see [`Session::with_statement_labels`]).
    stmt_labels: Option<Arc<[u16]>>,
    /// The random state as the transaction began (kept only with `--max-tries`):
    /// a retry draws the same values, as pgbench's does.
    began_with: Option<Rand>,
    /// This transaction's tries so far.
    tries: u32,
    /// The client's id (`:client_id`).
    client: usize,
}

impl Session {
    /// Client `client`'s interpreter; `seed` is the run's `--random-seed`.
    pub fn new(scripts: Arc<Scripts>, seed: u64, client: usize) -> Session {
        let mut vars = Vars {
            vars: Vec::new(),
            rng: Rand::new(seed, client as u64),
            default_seed: Rand::new(seed, u64::MAX).next_u64() as i64,
        };
        vars.set("client_id", Value::Int(client as i64));
        vars.set("default_seed", Value::Int(vars.default_seed));
        for (name, define) in &scripts.defines {
            match define {
                Define::Value(v) => vars.set(name, *v),
                Define::Text(t) => vars.set_text(name, Some(t.as_bytes())),
            }
        }
        Session {
            scripts,
            vars,
            script: 0,
            pc: 0,
            awaiting: None,
            ended: true,
            sql: String::new(),
            params: Params::default(),
            error: None,
            stmt_labels: None,
            began_with: None,
            tries: 0,
            client,
        }
    }

    /// Each statement's label (by its number across the scripts), under which the
    /// engine counts its own time besides its transaction's.
    pub fn with_statement_labels(mut self, labels: Arc<[u16]>) -> Session {
        self.stmt_labels = Some(labels);
        self
    }

    /// Starts the next transaction: a script drawn by weight. Returns its index.
    pub fn begin(&mut self) -> usize {
        let s = &self.scripts;
        self.script = if s.scripts.len() == 1 {
            0
        } else {
            let mut x = self.vars.rng.next_u64() % s.total_weight.max(1);
            let mut pick = 0;
            for (i, w) in s.scripts.iter().enumerate() {
                if x < w.weight as u64 {
                    pick = i;
                    break;
                }
                x -= w.weight as u64;
            }
            pick
        };
        self.pc = 0;
        self.awaiting = None;
        self.ended = false;
        self.tries = 1;
        if self.scripts.max_tries > 1 {
            self.began_with = Some(self.vars.rng.clone());
        }
        self.script
    }

    /// Starts the transaction again from its first command with the random state
    /// it began with, if `--max-tries` leaves a try; false when none is left.
    pub fn retry(&mut self) -> bool {
        if self.tries >= self.scripts.max_tries {
            return false;
        }
        if let Some(rng) = &self.began_with {
            self.vars.rng = rng.clone();
        }
        self.tries += 1;
        self.pc = 0;
        self.awaiting = None;
        self.ended = false;
        self.error = None;
        true
    }

    /// What to do next in this transaction. (Not an `Iterator`: each action
    /// borrows the session's buffers until the next call.)
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Action<'_> {
        if let Some(e) = self.error.take() {
            self.ended = true;
            return Action::Failed(e);
        }
        if self.ended {
            return Action::Done;
        }
        let scripts = Arc::clone(&self.scripts);
        let commands = &scripts.scripts[self.script].script.commands;
        loop {
            let Some(c) = commands.get(self.pc) else {
                self.ended = true;
                return Action::Done;
            };
            let at = self.pc;
            self.pc += 1;
            match c {
                Command::Sql(_) => {
                    let stmt = scripts.stmt_of[self.script][at];
                    if let Err(e) = self.build(&scripts, stmt) {
                        self.ended = true;
                        return Action::Failed(e);
                    }
                    self.awaiting = Some(at);
                    let st = &self.scripts.stmts[stmt];
                    return Action::Query {
                        stmt,
                        sql: &self.sql,
                        params: &self.params,
                        prepared: (self.scripts.mode == Mode::Prepared).then_some(st.name.as_str()),
                    };
                }
                Command::Set { var, expr } => match expr::eval(expr, &mut self.vars) {
                    Ok(v) => self.vars.set(var, v),
                    Err(e) => return self.fail(format!("\\set {var}: {e}")),
                },
                Command::Sleep { amount, unit_us } => {
                    let n = match amount {
                        Amount::Num(n) => *n,
                        Amount::Var(v) => match self.vars.var(v) {
                            Some(Ok(Value::Int(n))) => n,
                            Some(Ok(x)) => {
                                return self.fail(format!("\\sleep: :{v} is {x}, not an integer"))
                            }
                            Some(Err(e)) => return self.fail(format!("\\sleep: {e}")),
                            None => {
                                return self.fail(format!("\\sleep: undefined variable \"{v}\""))
                            }
                        },
                    };
                    let us = (n.max(0) as u64).saturating_mul(*unit_us);
                    return Action::Sleep(Duration::from_micros(us));
                }
                Command::JumpUnless { cond, to } => match expr::eval(cond, &mut self.vars) {
                    Ok(Value::Null) | Ok(Value::Bool(false)) | Ok(Value::Int(0)) => self.pc = *to,
                    Ok(Value::Double(0.0)) => self.pc = *to,
                    Ok(_) => {}
                    Err(e) => return self.fail(format!("\\if: {e}")),
                },
                Command::Jump { to } => self.pc = *to,
                Command::StartPipeline => return Action::PipelineStart,
                Command::EndPipeline => {
                    let stmt = scripts.stmt_of[self.script][at];
                    return Action::PipelineEnd { stmt };
                }
            }
        }
    }

    fn fail(&mut self, e: String) -> Action<'static> {
        self.ended = true;
        Action::Failed(e)
    }

    /// Fills the SQL text (and parameters) of statement `stmt` for this mode.
    fn build(&mut self, scripts: &Scripts, stmt: usize) -> Result<(), String> {
        let st = &scripts.stmts[stmt];
        self.sql.clear();
        self.params.clear();
        if scripts.mode == Mode::Simple {
            let Command::Sql(q) = &scripts.scripts[st.script].script.commands[st.command] else {
                return Ok(());
            };
            for p in &q.parts {
                match p {
                    Part::Text(t) => self.sql.push_str(t),
                    Part::Var(v) => {
                        // An unset variable stays as written, as pgbench leaves it.
                        if !self.vars.write(v, &mut self.sql) {
                            self.sql.push(':');
                            self.sql.push_str(v);
                        }
                    }
                }
            }
            return Ok(());
        }
        self.sql.push_str(&st.param_sql);
        for v in &st.param_vars {
            let a = self.params.buf.len();
            match self.vars.find(v) {
                None => return Err(format!("undefined variable \"{v}\"")),
                Some(x) if !x.is_text && x.value == Value::Null => self.params.spans.push(None),
                Some(_) => {
                    self.vars.write(v, &mut self.params.buf);
                    self.params.spans.push(Some((a, self.params.buf.len())));
                }
            }
        }
        Ok(())
    }

    /// The awaited query's answer: `\gset`/`\aset` store its values; a failed
    /// query ends the transaction (the next step is `Done`). In a pipeline each
    /// query's answer comes after `\endpipeline`, in order (none has `\gset`), and
    /// one failed among them, or the pipeline's commit at its Sync, ends it too.
    pub fn answered(&mut self, ans: &StatementAnswer<'_>) {
        if ans.failed {
            self.awaiting = None;
            self.ended = true;
            return;
        }
        let Some(at) = self.awaiting.take() else {
            return;
        };
        let scripts = Arc::clone(&self.scripts);
        let Command::Sql(q) = &scripts.scripts[self.script].script.commands[at] else {
            return;
        };
        let Some(g) = &q.gset else { return };
        // pgbench: `\gset` wants the last result to be one row and stores it;
        // `\aset` stores every result's last row, a result without rows skipped.
        let (rows, from) = match g.all {
            false => (ans.last_rows, ans.last_from),
            true => (ans.rows, 0),
        };
        if !g.all && rows != 1 {
            self.error = Some(format!("expected one row, got {rows}"));
            return;
        }
        if rows == 0 {
            return;
        }
        let mut name = String::new();
        let values = ans.first_row.get(from..).unwrap_or_default();
        for (col, val) in ans
            .columns
            .get(from..)
            .unwrap_or_default()
            .iter()
            .zip(values)
        {
            name.clear();
            name.push_str(&g.prefix);
            name.push_str(&String::from_utf8_lossy(col));
            self.vars.set_text(&name, *val);
        }
    }

    /// A variable's value as text, for tests and `debug`.
    pub fn var_text(&self, name: &str) -> Option<String> {
        let mut s = String::new();
        self.vars.write(name, &mut s).then_some(s)
    }
}

#[cfg(test)]
mod tests;
