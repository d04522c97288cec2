//! What a run's targets answer, as every view of its result names it: a SQL
//! database's transactions, a key-value store's replies, HTTP's responses; the
//! numbers the engine counts a store's reply and a SQL transaction under (their
//! statuses in a step's `statuses`), by name for people (`-v`, the page) and for
//! the CSV's status columns; and what a run's unit of work is called ([`Work`]: a
//! request, a transaction, a command), here so that the result's own sentences (a
//! run's name, why a ramp ended) speak as its reports do.

/// The status numbers a store's replies are counted under (`kv::STATUS_REPLY`,
/// `kv::STATUS_MISS` and the two of `cas`; neither the result nor the report imports
/// `kv`, a test holds them equal).
pub const STORE_VALUE: u16 = 250;
pub const STORE_MISS: u16 = 254;
/// A memcached `cas` answered `EXISTS`, and one not sent for want of a token.
pub const STORE_EXISTS: u16 = 252;
pub const STORE_NO_TOKEN: u16 = 253;

/// Whether every target is a key-value store (`redis://`, `rediss://`,
/// `memcached://`) of a result's `targets`: its answers are replies to operations,
/// not HTTP responses.
pub fn all_stores(targets: &[String]) -> bool {
    !targets.is_empty()
        && targets.iter().all(|t| {
            t.starts_with("redis://") || t.starts_with("rediss://") || t.starts_with("memcached://")
        })
}

/// Whether every target is a SQL database (`postgres://`, `postgresql://`,
/// `mysql://`, `mariadb://`) of a result's `targets`: its answers are transactions.
pub fn all_sql(targets: &[String]) -> bool {
    !targets.is_empty()
        && targets.iter().all(|t| {
            ["postgres://", "postgresql://", "mysql://", "mariadb://"]
                .iter()
                .any(|s| t.starts_with(s))
        })
}

/// A SQL transaction's status by name, for `-v`'s lines: `ok` for the number a
/// transaction whose every statement was answered without an error is counted
/// under (`STORE_VALUE`: the engine counts it as a store's reply), `error` for 0.
pub fn sql_status_name(code: u16) -> Option<&'static str> {
    match code {
        STORE_VALUE => Some("ok"),
        0 => Some("error"),
        _ => None,
    }
}

/// A store's reply number by its name, for `-v`'s status lines and the slowest
/// list: a read's `250` is a hit, a write's a write done (`reads`: the command's
/// kind, `None` when the figure mixes them); `None` for a number not a store's.
pub fn status_name(code: u16, reads: Option<bool>) -> Option<&'static str> {
    match (code, reads) {
        (STORE_VALUE, Some(true)) => Some("hit"),
        (STORE_VALUE, Some(false)) => Some("done"),
        (STORE_VALUE, None) => Some("hit/done"),
        (STORE_MISS, Some(true)) => Some("miss"),
        (STORE_MISS, Some(false)) => Some("not done"),
        (STORE_MISS, None) => Some("miss/not done"),
        (STORE_EXISTS, _) => Some("cas exists"),
        (STORE_NO_TOKEN, _) => Some("cas not sent"),
        (0, _) => Some("error"),
        _ => None,
    }
}

/// A step's status column in the CSV of a run with these targets: a SQL run's and
/// a store's answers by name in snake case (`ok`, `hit_or_done`, `error`…), never
/// the engine's numbers; HTTP's status as its number (drnbench's columns).
pub fn csv_status_column(code: u16, targets: &[String]) -> String {
    let sql = all_sql(targets);
    match named(code, sql).filter(|_| sql || all_stores(targets)) {
        Some(name) => snake(name),
        None => code.to_string(),
    }
}

/// The status a CSV column named by [`csv_status_column`] counts: `ok` and
/// `hit_or_done` 250, `error` 0…; `None` for any other name (the reader takes a
/// number as its own status).
pub fn csv_status_of_column(name: &str) -> Option<u16> {
    let codes = [STORE_VALUE, STORE_MISS, STORE_EXISTS, STORE_NO_TOKEN, 0];
    [true, false]
        .into_iter()
        .flat_map(|sql| codes.map(|c| (c, sql)))
        .find(|(c, sql)| named(*c, *sql).is_some_and(|n| snake(n) == name))
        .map(|(c, _)| c)
}

/// A target that answers in words of its own, as a CSV tells it by its status
/// columns' names: a file without targets still says whose answers it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// A SQL database's transactions (`ok`).
    Sql,
    /// A key-value store's replies (`hit_or_done`, `miss_or_not_done`, `cas_…`).
    Store,
}

/// Whose answers a CSV's status columns count, from their names: `ok` is a SQL
/// run's, a reply's name a store's; `None` for HTTP's numbers, and for `error`
/// alone, which both write (the reader cannot tell, so it claims neither).
pub fn csv_named_by(columns: &[String]) -> Option<Named> {
    let has = |name: &str| columns.iter().any(|c| c == name);
    if has(&snake(sql_status_name(STORE_VALUE).unwrap_or_default())) {
        return Some(Named::Sql);
    }
    let store = [STORE_VALUE, STORE_MISS, STORE_EXISTS, STORE_NO_TOKEN]
        .iter()
        .any(|&c| status_name(c, None).is_some_and(|n| has(&snake(n))));
    store.then_some(Named::Store)
}

/// A status's name in a SQL run (`sql`) or a store's, the reads and writes mixed.
fn named(code: u16, sql: bool) -> Option<&'static str> {
    if sql {
        sql_status_name(code)
    } else {
        status_name(code, None)
    }
}

/// "miss/not done" as a column's name: "miss_or_not_done".
fn snake(name: &str) -> String {
    name.replace('/', "_or_").replace(' ', "_")
}

/// What a run's unit of work is, from its targets, and so the words its reports
/// count and rate it in: an HTTP request (drnbench's "qps"), a SQL transaction
/// ("tps", as pgbench and sysbench say), a key-value store's command ("ops/s", as
/// memtier says; the terminal's "Operations per second").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    Request,
    Transaction,
    Command,
    /// Runs of different kinds side by side (PostgreSQL against Redis, or an HTTP
    /// API): none's words are true of the others, so what all of them count, an
    /// answer ("answers/s"). Only [`Work::of_all`] says it.
    Answer,
}

impl Work {
    /// The unit of a run with these targets: HTTP's unless every one is a SQL
    /// database or every one a store.
    pub fn of(targets: &[String]) -> Work {
        if all_sql(targets) {
            Work::Transaction
        } else if all_stores(targets) {
            Work::Command
        } else {
            Work::Request
        }
    }

    /// The unit of a run read back: its targets', or, from a file that names none
    /// (a CSV), what its status columns' names say (`ok` a SQL run's).
    pub fn of_series(s: &crate::result::series::Series) -> Work {
        match s.named.filter(|_| s.targets.is_empty()) {
            Some(Named::Sql) => Work::Transaction,
            Some(Named::Store) => Work::Command,
            None => Work::of(&s.targets),
        }
    }

    /// The unit several runs share (a comparison, a ramp's rounds); when their
    /// kinds differ, [`Work::Answer`].
    pub fn of_all(each: impl IntoIterator<Item = Work>) -> Work {
        let mut each = each.into_iter();
        let first = each.next().unwrap_or(Work::Request);
        if each.all(|w| w == first) {
            first
        } else {
            Work::Answer
        }
    }

    /// What is counted: "requests", "transactions", "commands".
    pub fn items(self) -> &'static str {
        match self {
            Work::Request => "requests",
            Work::Transaction => "transactions",
            Work::Command => "commands",
            Work::Answer => "answers",
        }
    }

    /// One of them: "request", "transaction", "command".
    pub fn item(self) -> &'static str {
        let items = self.items();
        &items[..items.len() - 1]
    }

    /// The rate's short unit beside a number: "qps", "tps", "ops/s".
    pub fn rate(self) -> &'static str {
        match self {
            Work::Request => "qps",
            Work::Transaction => "tps",
            Work::Command => "ops/s",
            Work::Answer => "answers/s",
        }
    }

    /// A load's rate beside a number, offered or answered ("500 req/s", "a step at
    /// 400 tps"): HTTP's "req/s" (its measured column is drnbench's qps), a SQL
    /// run's tps (pgbench -R's), a store's ops/s, "answers/s" between kinds.
    pub fn per_s(self) -> &'static str {
        match self {
            Work::Request => "req/s",
            work => work.rate(),
        }
    }

    /// The rate spelled out, for an axis: "queries per second", "transactions per
    /// second", "operations per second".
    pub fn per_second(self) -> &'static str {
        match self {
            Work::Request => "queries per second",
            Work::Transaction => "transactions per second",
            Work::Command => "operations per second",
            Work::Answer => "answers per second",
        }
    }

    /// Whether connections were kept, as the run's users say it: HTTP's
    /// keep-alive ("Keep-alive", "on"); a SQL client's connection as pgbench puts
    /// it ("Connection", "one per client", or with `-C` "a new one per
    /// transaction"), a store's alike per command.
    pub fn kept(self, keep_alive: bool) -> (&'static str, &'static str) {
        match (self, keep_alive) {
            (Work::Request | Work::Answer, true) => ("Keep-alive", "on"),
            (Work::Request | Work::Answer, false) => ("Keep-alive", "off"),
            (_, true) => ("Connection", "one per client"),
            (Work::Transaction, false) => ("Connection", "a new one per transaction"),
            (_, false) => ("Connection", "a new one per command"),
        }
    }

    /// What is answered, for a chart of answers: "responses", "transactions",
    /// "replies".
    pub fn answers(self) -> &'static str {
        match self {
            Work::Request => "responses",
            Work::Transaction => "transactions",
            Work::Command => "replies",
            Work::Answer => "answers",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A SQL run's CSV headed its transactions' share `250`: the engine's number
    /// for a store's reply. Its columns are `ok` and `error`; a store's by name;
    /// HTTP's by number; every name reads back as its status.
    #[test]
    fn a_sql_run_s_csv_status_columns_are_named_never_250() {
        let sql = ["postgres://127.0.0.1/bench".to_string()];
        let store = ["memcached://127.0.0.1:11211".to_string()];
        let http = ["http://127.0.0.1:8080".to_string()];
        let col = |c, t: &[String]| csv_status_column(c, t);
        assert_eq!(
            (col(250, &sql), col(0, &sql)),
            ("ok".into(), "error".into())
        );
        let names: Vec<String> = [250, 254, 252, 253, 0].map(|c| col(c, &store)).into();
        assert_eq!(
            names,
            [
                "hit_or_done",
                "miss_or_not_done",
                "cas_exists",
                "cas_not_sent",
                "error"
            ]
        );
        assert_eq!((col(250, &http), col(0, &http)), ("250".into(), "0".into()));
        for (code, name) in [(250, "ok"), (0, "error"), (254, "miss_or_not_done")] {
            assert_eq!(csv_status_of_column(name), Some(code), "{name}");
        }
        assert_eq!(csv_status_of_column("hit_or_done"), Some(250));
        assert_eq!(csv_status_of_column("250"), None);
        assert_eq!(csv_status_of_column("cache_hit_rate"), None);
    }

    /// A SQL run's CSV read back drew a page in HTTP's words (250, qps): a CSV has
    /// no targets, but its status columns' names say whose answers it counts.
    #[test]
    fn a_csv_s_status_columns_tell_a_sql_run_from_a_store_s() {
        let cols = |c: &[&str]| -> Vec<String> { c.iter().map(|s| s.to_string()).collect() };
        let by = |c: &[&str]| csv_named_by(&cols(c));
        assert_eq!(by(&["n_clients", "ok", "error"]), Some(Named::Sql));
        assert_eq!(by(&["ok"]), Some(Named::Sql));
        assert_eq!(by(&["hit_or_done", "error"]), Some(Named::Store));
        assert_eq!(by(&["miss_or_not_done"]), Some(Named::Store));
        assert_eq!(by(&["200", "0"]), None);
        assert_eq!(by(&["error"]), None);
    }

    /// `hakaru ramp --rate 200,400 postgres://…`'s page was titled "ramp of
    /// postgres://…, 200–400 req/s": a SQL run's rates are tps, a store's ops/s.
    #[test]
    fn a_sql_run_s_name_gives_its_rates_in_tps_never_req_s() {
        use crate::result::fixture::{bare_step, run};
        use crate::result::series::Series;
        let steps = [200.0, 400.0].map(|r| {
            let mut s = bare_step(4);
            s.rate = Some(r);
            s
        });
        let mut r = run(steps.to_vec());
        r.targets = vec!["postgres://127.0.0.1:5432/hb".into()];
        assert_eq!(
            Series::from_run(&r, "a").name(),
            "ramp of postgres://127.0.0.1:5432/hb, 200–400 tps"
        );
        r.targets = vec!["redis://127.0.0.1:6379".into()];
        assert!(Series::from_run(&r, "a")
            .name()
            .ends_with(", 200–400 ops/s"));
        r.targets = vec!["http://127.0.0.1:10041".into()];
        assert!(Series::from_run(&r, "a")
            .name()
            .ends_with(", 200–400 req/s"));
    }
}
