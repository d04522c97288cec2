//! The summary's count of a step's answers: complete and failed requests (by kind,
//! with the first message of each) and non-2xx responses; a SQL run's transactions;
//! a store's operations, their hits, misses and error replies.

use std::fmt::Write as _;

use super::summary::field;
use crate::report::run::store::{is_store, STORE_EXISTS, STORE_MISS, STORE_NO_TOKEN, STORE_VALUE};
use crate::result::{RunResult, StepResult};
use crate::stats::ErrorKind;

/// Complete requests, failed requests by kind (with the first message of each and
/// the client's own limits), and the responses outside 2xx by status.
pub(super) fn failures(out: &mut String, run: &RunResult, step: &StepResult) {
    if is_store(run) {
        return store_failures(out, run, step);
    }
    let sql = crate::report::fmt::all_sql(&run.targets);
    if sql {
        // A transaction is complete when every statement was answered without an
        // error; one that failed is counted below by its SQLSTATE's or code's kind.
        field(
            out,
            "Complete transactions",
            format!("{} (every statement answered, no error)", step.responses),
        );
    } else {
        field(
            out,
            "Complete requests",
            format!("{} (whole HTTP responses, any status)", step.responses),
        );
    }
    let failed = step.error_total();
    if failed == 0 {
        let what = if sql {
            "Failed transactions"
        } else {
            "Failed requests"
        };
        field(out, what, 0);
    } else {
        let kinds: Vec<String> = step
            .errors
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let (what, why) = if sql {
            ("Failed transactions", "by kind")
        } else {
            ("Failed requests", "no response")
        };
        field(out, what, format!("{failed} ({why}: {})", kinds.join(", ")));
        for (kind, message) in &step.error_samples {
            field(out, &format!("  first {kind}"), message);
        }
        if step.errors.contains_key(&ErrorKind::ClientLimit) {
            let limit = run
                .machine
                .fd_limit
                .map(|n| format!(" (open-file limit {n})"))
                .unwrap_or_default();
            field(
                out,
                "Client limit",
                format!(
                    "hakaru itself ran out of file descriptors or local ports{limit}: \
                     raise the limit with ulimit -n, or use fewer clients"
                ),
            );
        }
        if step.errors.contains_key(&ErrorKind::SqlTooManyConnections) {
            // PostgreSQL's default is 100 (3 kept for superusers), MariaDB's 151:
            // a search's or a ramp's 100 clients meet it before any other limit.
            field(
                out,
                "Server limit",
                format!(
                    "the server refused logins past its max_connections ({} clients \
                     asked): use fewer clients, or raise max_connections",
                    step.n_clients
                ),
            );
        }
    }
    if sql {
        return;
    }
    let non_2xx: Vec<(u16, u64)> = step
        .statuses
        .iter()
        .filter(|(c, _)| !(200..300).contains(*c))
        .map(|(c, n)| (*c, *n))
        .collect();
    let n_non_2xx: u64 = non_2xx.iter().map(|(_, n)| n).sum();
    if n_non_2xx == 0 {
        field(out, "Non-2xx responses", 0);
    } else {
        let codes: Vec<String> = non_2xx.iter().map(|(c, n)| format!("{c}: {n}")).collect();
        field(
            out,
            "Non-2xx responses",
            format!("{n_non_2xx} ({})", codes.join(", ")),
        );
    }
    // A server that answers 500 to everything answered: say it plainly, not "0 failed".
    let not_ok = step.non_success();
    if not_ok * 100 > step.responses && step.responses > 0 {
        let _ = writeln!(
            out,
            "Warning: {not_ok} of {} responses ({}) were not a success (success: status {}; \
             --ok-status to change)",
            step.responses,
            crate::report::fmt::fmt_share(not_ok as f64 * 100.0 / step.responses as f64),
            step.ok_status,
        );
    }
}

/// A store's operations: whole replies (their hits and misses per command are the
/// table's, [`crate::report::run::store`]), a `cas`'s own answers, and the failed
/// ones split into error replies (by kind) and no reply at all.
fn store_failures(out: &mut String, run: &RunResult, step: &StepResult) {
    let per_s = |n: u64| {
        if step.elapsed_s > 0.0 {
            format!("{:.2}/s", n as f64 / step.elapsed_s)
        } else {
            "no time measured".to_string()
        }
    };
    let status = |code: u16| step.statuses.get(&code).copied().unwrap_or(0);
    let (hits, misses) = (status(STORE_VALUE), status(STORE_MISS));
    field(
        out,
        "Complete operations",
        format!("{} (whole replies; per command below)", step.responses),
    );
    if crate::report::run::store::text(run, step).is_empty() {
        // A result from before its commands were kept: the step's counts alone.
        field(out, "  hits or done", format!("{hits} ({})", per_s(hits)));
        field(out, "  misses", format!("{misses} ({})", per_s(misses)));
    }
    let (exists, no_token) = (status(STORE_EXISTS), status(STORE_NO_TOKEN));
    if exists > 0 {
        field(
            out,
            "  cas EXISTS",
            format!("{exists} (changed since its gets; {})", per_s(exists)),
        );
    }
    if no_token > 0 {
        field(
            out,
            "  cas not sent",
            format!("{no_token} (no token from a gets yet: a no-op went instead)"),
        );
    }
    let other = step
        .responses
        .saturating_sub(hits + misses + exists + no_token);
    if other > 0 {
        field(out, "  other answers", other);
    }
    field(out, "Failed operations", step.error_total());
    let (replies, none): (Vec<_>, Vec<_>) = step
        .errors
        .iter()
        .partition(|(k, _)| k.as_str().starts_with("reply_"));
    for (label, kinds) in [("  error replies", replies), ("  no reply", none)] {
        if kinds.is_empty() {
            continue;
        }
        let n: u64 = kinds.iter().map(|(_, n)| **n).sum();
        let each: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        field(out, label, format!("{n} ({})", each.join(", ")));
    }
    for (kind, message) in &step.error_samples {
        field(out, &format!("  first {kind}"), message);
    }
}

#[cfg(test)]
mod tests {
    use super::super::summary::run_summary;
    use super::super::tests::detailed_step;
    use super::*;
    use crate::result::fixture::run;

    /// Issue 21: a Redis run's summary spoke of "whole HTTP responses" and
    /// "Non-2xx responses". It speaks of operations, hits, misses and error replies by
    /// kind, within 80 columns. (A result without its commands' kinds, from before
    /// issue 35, keeps the step's counts; the table per command is `store`'s test.)
    #[test]
    fn a_store_s_summary_speaks_of_operations_at_80_columns() {
        assert_eq!(
            (STORE_VALUE, STORE_MISS, STORE_EXISTS, STORE_NO_TOKEN),
            (
                crate::kv::STATUS_REPLY,
                crate::kv::STATUS_MISS,
                crate::kv::STATUS_EXISTS,
                crate::kv::STATUS_NO_TOKEN
            )
        );
        let mut step = detailed_step();
        step.responses = 1010;
        step.statuses = [(250, 900), (254, 100), (252, 6), (253, 4)]
            .into_iter()
            .collect();
        step.errors = [(ErrorKind::ReplyErr, 2), (ErrorKind::Timeout, 3)]
            .into_iter()
            .collect();
        step.error_samples = [
            (ErrorKind::ReplyErr, "ERR unknown command 'FOO'".to_string()),
            (
                ErrorKind::Timeout,
                "no whole response within the timeout (5000 ms)".to_string(),
            ),
        ]
        .into_iter()
        .collect();
        step.elapsed_s = 2.0;
        step.qps = 500.0;
        let mut r = run(vec![step.clone()]);
        r.targets = vec!["redis://127.0.0.1:6379".to_string()];
        let text = run_summary(&r, &step);
        let from = text.find("Complete operations").expect("operations");
        let to = text.find("Total transferred").expect("bytes");
        assert_eq!(
            &text[from..to],
            "\
Complete operations:    1010 (whole replies; per command below)
  hits or done:         900 (450.00/s)
  misses:               100 (50.00/s)
  cas EXISTS:           6 (changed since its gets; 3.00/s)
  cas not sent:         4 (no token from a gets yet: a no-op went instead)
Failed operations:      5
  error replies:        2 (reply_err 2)
  no reply:             3 (timeout 3)
  first timeout:        no whole response within the timeout (5000 ms)
  first reply_err:      ERR unknown command 'FOO'
"
        );
        assert!(
            text.contains("Operations per second:  500.00 [#/sec] (replies / measured wall time)"),
            "{text}"
        );
        for word in ["HTTP", "Non-2xx", "Complete requests"] {
            assert!(!text.contains(word), "{word} in\n{text}");
        }
        for line in text[..to].lines() {
            assert!(line.chars().count() <= 80, "over 80 columns: {line:?}");
        }
    }

    /// A SQL run's summary spoke of "whole HTTP responses", "Non-2xx responses" and
    /// "Requests per second". It speaks of transactions, its failures by kind.
    #[test]
    fn a_sql_run_s_summary_speaks_of_transactions() {
        let mut step = detailed_step();
        step.responses = 1000;
        step.statuses = [(STORE_VALUE, 1000)].into_iter().collect();
        step.errors = [(ErrorKind::SqlSerializationFailure, 3)]
            .into_iter()
            .collect();
        step.error_samples = Default::default();
        step.elapsed_s = 2.0;
        step.qps = 500.0;
        let mut r = run(vec![step.clone()]);
        r.targets = vec!["postgres://127.0.0.1:5432".to_string()];
        let text = run_summary(&r, &step);
        for line in [
            "Complete transactions:  1000 (every statement answered, no error)",
            "Failed transactions:    3 (by kind: sql_serialization_failure 3)",
            "Transactions/s:         500.00 [#/sec] (transactions / measured wall time)",
            "(mean, across all concurrent transactions)",
            "(time taken / complete transactions: derived)",
        ] {
            assert!(text.contains(line), "{line:?} not in\n{text}");
        }
        for word in [
            "HTTP",
            "Non-2xx",
            "Complete requests",
            "Requests per second",
        ] {
            assert!(!text.contains(word), "{word} in\n{text}");
        }
    }

    /// A SQL run with more clients than the server's max_connections (a find-max's
    /// default 100 against PostgreSQL's default 100) said only
    /// "sql_too_many_connections"; it says which limit, and what to change.
    #[test]
    fn too_many_connections_name_the_server_s_limit_and_the_clients_asked() {
        let mut step = detailed_step();
        step.n_clients = 100;
        step.errors = [(ErrorKind::SqlTooManyConnections, 4)]
            .into_iter()
            .collect();
        let mut r = run(vec![step.clone()]);
        r.targets = vec!["postgres://127.0.0.1:5432".to_string()];
        let text = run_summary(&r, &step);
        assert!(
            text.contains(
                "Server limit:           the server refused logins past its max_connections \
                 (100 clients asked): use fewer clients, or raise max_connections"
            ),
            "{text}"
        );
    }

    #[test]
    fn client_limit_errors_say_how_to_raise_the_limit() {
        let mut step = detailed_step();
        step.errors.insert(ErrorKind::ClientLimit, 7);
        let text = run_summary(&run(vec![step.clone()]), &step);
        assert!(text.contains("client_limit 7"), "{text}");
        assert!(
            text.contains(
                "Client limit:           hakaru itself ran out of file descriptors or local ports \
             (open-file limit 1024): raise the limit with ulimit -n"
            ),
            "{text}"
        );
    }
}
