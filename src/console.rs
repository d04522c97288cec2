//! What a person sees while a run goes: a live progress line on stderr (only on a
//! terminal), each finished step's row on stdout (with `--verbose`, drnbench's block
//! and the slowest/fastest requests after it);
//! or, for `hakaru ab`, ab's own "Completed N requests" lines; or nothing (`-q`).

use std::io::{IsTerminal, Write};
use std::time::Duration;

use crate::engine::{Progress, StepSpec};
use crate::report::fmt::Work;
use crate::report::run::text;
use crate::result::{RunResult, StepResult};
use crate::runner::{Observer, Position};

pub struct Console {
    /// Print each step's row and details (ramp) rather than waiting for the summary (run).
    pub rows: bool,
    pub n_slow: usize,
    pub n_fast: usize,
    live: bool,
    /// `-q`: no progress, no rows, no warm-up lines.
    quiet: bool,
    /// `--verbose`: drnbench's whole block after each row.
    verbose: bool,
    /// "unfinished" has been explained (once per run).
    explained_unfinished: bool,
    /// Steps still to run after the current one (all rounds); None in the warm-up.
    steps_left: Option<usize>,
    /// The pause between steps, once the runner has said it.
    interval: Duration,
    /// Not on a terminal: when the next plain progress line is due (step time).
    next_plain: Duration,
    /// Plain progress lines off a terminal (not for `ab`, which has its own).
    plain_lines: bool,
    /// `hakaru ab`: ab's heartbeat lines instead of the live line.
    heartbeat: Option<Heartbeat>,
    step_label: String,
    last_len: usize,
    /// The live rate and p99: over the last second or so, from the last two samples
    /// at least [`RATE_WINDOW`] apart.
    window: Window,
    /// What the run counts, for the live line's words: a SQL run's transactions and
    /// tps, a store's commands and ops/s, HTTP's requests and req/s.
    work: Work,
}

/// Where the live window starts, and what it measured when it last closed.
#[derive(Default)]
struct Window {
    at: Duration,
    ended: u64,
    latency: crate::engine::live::Snapshot,
    /// Requests ended per second over the last closed window.
    rate: Option<f64>,
    /// Its responses' p99 (coarse: the live histogram's bucket edge).
    p99: Option<Duration>,
}

/// The live line's rate is over this long: steady enough to read, quick to follow.
const RATE_WINDOW: Duration = Duration::from_secs(1);

/// Off a terminal (a log, CI), a plain progress line this often within a step.
const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// A time left, read at a glance: "45s", "1m20s", "2h05m".
pub(crate) fn fmt_eta(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

/// ab's progress: "Completed N requests" every tenth of the budget (at least every
/// 100), only for budgets over 150 requests, as ab prints them.
struct Heartbeat {
    every: u64,
    next: u64,
}

impl Console {
    pub fn new(rows: bool, n_slow: usize, n_fast: usize) -> Self {
        Console {
            rows,
            n_slow,
            n_fast,
            live: std::io::stderr().is_terminal(),
            quiet: false,
            verbose: false,
            explained_unfinished: false,
            steps_left: None,
            interval: Duration::ZERO,
            next_plain: PLAIN_EVERY,
            plain_lines: true,
            heartbeat: None,
            step_label: String::new(),
            last_len: 0,
            window: Window::default(),
            work: Work::Request,
        }
    }

    /// The run's unit of work, from its targets ([`Work::of`]): the live line and the
    /// step's description say "transactions"/"tps" for a SQL run.
    pub fn work(mut self, work: Work) -> Self {
        self.work = work;
        self
    }

    /// Show nothing while the run goes (`-q`); the summary is printed by the command.
    pub fn quiet(mut self, quiet: bool) -> Self {
        if quiet {
            self.quiet = true;
            self.live = false;
            self.rows = false;
        }
        self
    }

    /// After each step's row, drnbench's block: statuses, errors by kind, elapsed
    /// min/max/average, the slowest and fastest requests (`--verbose`).
    pub fn verbose(mut self, verbose: bool) -> Self {
        self.verbose = verbose;
        self
    }

    /// ab's progress lines for a budget of `requests` (none for 150 or fewer, as ab).
    pub fn ab_heartbeat(mut self, requests: u64) -> Self {
        self.live = false;
        self.plain_lines = false;
        self.rows = false;
        if requests > 150 && !self.quiet {
            let every = (requests / 10).max(100);
            self.heartbeat = Some(Heartbeat { every, next: every });
        }
        self
    }

    /// Takes a progress sample into the live rate's window.
    fn sample(&mut self, p: Progress) {
        let w = &self.window;
        if p.elapsed < w.at {
            // A new step: start again.
            self.window = Window {
                at: p.elapsed,
                ended: p.finished,
                latency: p.latency,
                ..Window::default()
            };
        } else if p.elapsed - w.at >= RATE_WINDOW {
            let rate = p.finished.saturating_sub(w.ended) as f64 / (p.elapsed - w.at).as_secs_f64();
            let p99 = p.latency.since(&w.latency).quantile(0.99);
            self.window = Window {
                at: p.elapsed,
                ended: p.finished,
                latency: p.latency,
                rate: Some(rate),
                p99,
            };
        }
    }

    /// "  step 2/5: 4 clients  12.0 s / 30 s  41230 requests  3436 req/s  3 failed (0.01%)
    /// run ends in ~1m50s" (a SQL run's "transactions" and "tps"): the rate is the last
    /// second's once there is one. It fits in `width` columns: a line that wraps is
    /// redrawn as a new line on every update (a tmux pane of 80 columns kept seven
    /// copies per step), so the least needed parts go first — the run's end, the p99,
    /// the requests — and the failures stay.
    fn progress_line(&self, spec: &StepSpec, p: Progress, width: usize) -> String {
        let secs = p.elapsed.as_secs_f64();
        let of = match (spec.duration, spec.n_requests) {
            (Some(d), _) => format!(" / {:.0} s", d.as_secs_f64()),
            _ => String::new(),
        };
        let of_n = spec
            .n_requests
            .map(|n| format!(" / {n}"))
            .unwrap_or_default();
        let rate = self
            .window
            .rate
            .unwrap_or(p.finished as f64 / secs.max(1e-9));
        // (text, the order in which it goes when the line is too long; 0 stays)
        let mut parts: Vec<(String, u8)> = vec![
            (format!("  {}", self.step_label), 0),
            (format!("{secs:.1} s{of}"), 0),
            (format!("{}{of_n} {}", p.finished, self.work.items()), 3),
            (
                format!(
                    "{} {}",
                    crate::report::fmt::fmt_qps(rate),
                    self.work.per_s()
                ),
                0,
            ),
        ];
        if let Some(p99) = self.window.p99 {
            let p99 = crate::report::fmt::fmt_latency(p99.as_secs_f64());
            parts.push((format!("p99 ≤ {p99}"), 2));
        }
        if p.failed > 0 {
            let share = p.failed as f64 * 100.0 / p.finished.max(1) as f64;
            let share = crate::report::fmt::fmt_share(share);
            parts.push((format!("{} failed ({share})", p.failed), 0));
        }
        // The whole run's end, when every step lasts a known time.
        if let (Some(left), Some(d), None) = (self.steps_left, spec.duration, spec.n_requests) {
            if left > 0 {
                let eta = d.saturating_sub(p.elapsed) + (d + self.interval) * left as u32;
                parts.push((format!("run ends in ~{}", fmt_eta(eta)), 1));
            }
        }
        fit(parts, width)
    }

    fn clear_live(&mut self) {
        if self.live && self.last_len > 0 {
            eprint!("\r{}\r", " ".repeat(self.last_len));
            self.last_len = 0;
        }
    }
}

/// The parts joined by two spaces, dropping the optional ones (lowest rank first) until
/// the line is shorter than `width`, then cut with "…" if it still is not.
fn fit(mut parts: Vec<(String, u8)>, width: usize) -> String {
    let join = |parts: &[(String, u8)]| {
        let texts: Vec<&str> = parts.iter().map(|(t, _)| t.as_str()).collect();
        texts.join("  ")
    };
    let limit = width.saturating_sub(1).max(20);
    let mut line = join(&parts);
    while line.chars().count() > limit {
        let Some(i) = (1..=3).find_map(|r| parts.iter().position(|(_, rank)| *rank == r)) else {
            break;
        };
        parts.remove(i);
        line = join(&parts);
    }
    if line.chars().count() > limit {
        line = line.chars().take(limit - 1).collect::<String>() + "…";
    }
    line
}

/// Columns of the terminal on stderr; 80 when it cannot tell.
fn terminal_width() -> usize {
    terminal_size::terminal_size_of(std::io::stderr()).map_or(80, |(w, _)| usize::from(w.0))
}

/// What a step offers: "8 clients", "500 req/s over 4 connections" (a SQL run's tps).
fn describe(spec: &StepSpec, work: Work) -> String {
    match &spec.rate {
        Some(r) => format!(
            "{r} {} over {} connection{}",
            work.per_s(),
            spec.n_clients.max(1),
            if spec.n_clients > 1 { "s" } else { "" }
        ),
        None => crate::report::fmt::clients(spec.n_clients.max(1)),
    }
}

impl Observer for Console {
    fn step_started(&mut self, at: Position, spec: &StepSpec) {
        let round = if at.rounds > 1 {
            format!("round {}/{}, ", at.round, at.rounds)
        } else {
            String::new()
        };
        self.step_label = format!(
            "{round}step {}/{}: {}",
            at.index + 1,
            at.of,
            describe(spec, self.work)
        );
        self.steps_left = Some(at.of - at.index - 1 + (at.rounds - at.round) * at.of);
        self.next_plain = PLAIN_EVERY;
        self.window = Window::default();
        // One row per step: a terminal shows the step on the live line, a log gets a
        // plain progress line while a long step runs.
    }

    fn progress(&mut self, spec: &StepSpec, p: Progress) {
        if let Some(h) = &mut self.heartbeat {
            while p.finished >= h.next {
                eprintln!("Completed {} requests", h.next);
                h.next += h.every;
            }
        }
        if self.quiet || self.heartbeat.is_some() {
            return;
        }
        self.sample(p);
        if !self.live && self.plain_lines {
            // A log gets a plain line now and then instead of a redrawn one.
            if p.elapsed >= self.next_plain {
                self.next_plain = p.elapsed + PLAIN_EVERY;
                eprintln!("{}", self.progress_line(spec, p, usize::MAX));
            }
        }
        if !self.live {
            return;
        }
        let line = self.progress_line(spec, p, terminal_width());
        let pad = self.last_len.saturating_sub(line.chars().count());
        eprint!("\r{line}{}", " ".repeat(pad));
        let _ = std::io::stderr().flush();
        self.last_len = line.chars().count();
    }

    fn step_finished(&mut self, run: &RunResult, step: &StepResult) {
        self.clear_live();
        if let Some(h) = &mut self.heartbeat {
            // The last marks may fall between two progress reports.
            while step.total_requests >= h.next {
                eprintln!("Completed {} requests", h.next);
                h.next += h.every;
            }
            eprintln!("Finished {} requests", step.total_requests);
        }
        if self.rows {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", text::step_row(step, Work::of(&run.targets)));
            if text::unfinished_matters(step) && !self.explained_unfinished {
                self.explained_unfinished = true;
                let _ = writeln!(out, "{}", text::UNFINISHED_NOTE);
            }
            if self.verbose {
                let _ = writeln!(
                    out,
                    "{}",
                    text::step_detail(run, step, self.n_slow, self.n_fast)
                );
            }
        }
    }

    fn warmup_started(&mut self, d: Duration, spec: &StepSpec) {
        self.step_label = format!("warm-up: {}", describe(spec, self.work));
        self.steps_left = None;
        self.next_plain = PLAIN_EVERY;
        if self.quiet {
            return;
        }
        eprintln!(
            "Warm-up: {:.1} s at {}, not counted in any step...",
            d.as_secs_f64(),
            describe(spec, self.work)
        );
    }

    fn warmup_finished(&mut self, responses: u64, errors: u64) {
        self.clear_live();
        if self.quiet {
            return;
        }
        eprintln!(
            "Warm-up done: {responses} {} and {errors} errors, not counted.",
            self.work.answers()
        );
    }

    fn interval(&mut self, d: Duration) {
        self.interval = d;
        if self.rows && self.live {
            eprintln!("  (interval {:.1} s)", d.as_secs_f64());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RateProfile;
    use std::sync::Arc;

    #[test]
    fn eta_reads_at_a_glance() {
        assert_eq!(fmt_eta(Duration::from_secs(45)), "45s");
        assert_eq!(fmt_eta(Duration::from_secs(80)), "1m20s");
        assert_eq!(fmt_eta(Duration::from_secs(2 * 3600 + 5 * 60)), "2h05m");
    }

    #[test]
    fn the_progress_line_says_when_the_run_ends() {
        let mut c = Console::new(true, 0, 0);
        let spec = StepSpec {
            n_clients: 4,
            duration: Some(Duration::from_secs(30)),
            n_requests: None,
            rate: None,
        };
        c.interval = Duration::from_secs(10);
        c.step_started(
            Position {
                round: 1,
                rounds: 1,
                index: 1,
                of: 4,
            },
            &spec,
        );
        let line = c.progress_line(
            &spec,
            Progress {
                elapsed: Duration::from_secs(10),
                finished: 1000,
                failed: 0,
                latency: Default::default(),
            },
            usize::MAX,
        );
        // 20 s of this step, then two steps of 30 s with 10 s pauses.
        assert_eq!(
            line,
            "  step 2/4: 4 clients  10.0 s / 30 s  1000 requests  100.0 req/s  run ends in ~1m40s"
        );
        // Then the last second's rate, and the failures when there are some.
        c.sample(Progress {
            elapsed: Duration::from_secs(10),
            finished: 1000,
            failed: 0,
            latency: Default::default(),
        });
        let p = Progress {
            elapsed: Duration::from_secs(11),
            finished: 1500,
            failed: 3,
            latency: Default::default(),
        };
        c.sample(p);
        assert_eq!(
            c.progress_line(&spec, p, usize::MAX),
            "  step 2/4: 4 clients  11.0 s / 30 s  1500 requests  500.0 req/s  3 failed (0.20%)  run ends in ~1m39s"
        );
        let one = StepSpec {
            n_clients: 1,
            ..spec
        };
        c.step_started(
            Position {
                round: 1,
                rounds: 1,
                index: 3,
                of: 4,
            },
            &one,
        );
        let line = c.progress_line(
            &one,
            Progress {
                elapsed: Duration::from_secs(1),
                finished: 10,
                failed: 0,
                latency: Default::default(),
            },
            usize::MAX,
        );
        assert!(line.starts_with("  step 4/4: 1 client  "), "{line}");
        assert!(!line.contains("run ends"), "{line}");
    }

    /// Regression: in an 80-column tmux pane, `ramp --rate 200,400` left seven copies
    /// of its 85-character live line per step (a wrapped line is redrawn below itself).
    #[test]
    fn the_live_line_never_wraps_at_80_columns() {
        let mut c = Console::new(true, 0, 0);
        let spec = StepSpec {
            n_clients: 20,
            duration: Some(Duration::from_secs(30)),
            n_requests: None,
            rate: None,
        };
        let at = Position {
            round: 2,
            rounds: 3,
            index: 1,
            of: 2,
        };
        c.step_started(at, &spec);
        let p = Progress {
            elapsed: Duration::from_secs(12),
            finished: 4_812_345,
            failed: 3,
            latency: Default::default(),
        };
        let full = c.progress_line(&spec, p, usize::MAX);
        assert!(full.chars().count() > 80, "{full}");
        let line = c.progress_line(&spec, p, 80);
        assert!(line.chars().count() < 80, "{line}");
        // The failures stay; the run's end goes first.
        assert!(line.contains("3 failed"), "{line}");
        assert!(!line.contains("run ends"), "{line}");
        // Narrower still, the line is cut, never wrapped.
        assert!(c.progress_line(&spec, p, 30).chars().count() < 30);
    }

    /// `hakaru run postgres://… --rate 400` showed "step 1/1: 400 req/s over 4
    /// connections  …  1000 requests  100.0 req/s": a SQL run's live line counts
    /// transactions in tps, a store's commands in ops/s; HTTP's stays.
    #[test]
    fn a_sql_run_s_live_line_says_transactions_and_tps_never_req_s() {
        let spec = StepSpec {
            n_clients: 4,
            duration: Some(Duration::from_secs(30)),
            n_requests: None,
            rate: Some(Arc::new(RateProfile::constant(400.0).unwrap())),
        };
        let at = Position {
            round: 1,
            rounds: 1,
            index: 0,
            of: 1,
        };
        let p = Progress {
            elapsed: Duration::from_secs(10),
            finished: 1000,
            failed: 0,
            latency: Default::default(),
        };
        let line = |work: Work| {
            let mut c = Console::new(true, 0, 0).work(work);
            c.step_started(at, &spec);
            c.progress_line(&spec, p, usize::MAX)
        };
        assert_eq!(
            line(Work::Transaction),
            "  step 1/1: 400 tps over 4 connections  10.0 s / 30 s  1000 transactions  100.0 tps"
        );
        assert_eq!(
            line(Work::Command),
            "  step 1/1: 400 ops/s over 4 connections  10.0 s / 30 s  1000 commands  100.0 ops/s"
        );
        assert_eq!(
            line(Work::Request),
            "  step 1/1: 400 req/s over 4 connections  10.0 s / 30 s  1000 requests  100.0 req/s"
        );
    }

    #[test]
    fn the_progress_line_shows_the_last_windows_p99() {
        use crate::engine::live::{Counts, Snapshot};
        let mut c = Console::new(false, 0, 0);
        let spec = StepSpec {
            n_clients: 2,
            duration: Some(Duration::from_secs(10)),
            n_requests: None,
            rate: None,
        };
        let counts = Counts::default();
        // A slow first second, then a fast one: the line shows the last second's p99.
        for _ in 0..100 {
            counts.record(Duration::from_millis(300));
        }
        c.sample(Progress {
            elapsed: Duration::from_secs(1),
            finished: 100,
            failed: 0,
            latency: Snapshot::of([&counts]),
        });
        for _ in 0..1000 {
            counts.record(Duration::from_micros(1500));
        }
        let p = Progress {
            elapsed: Duration::from_secs(2),
            finished: 1100,
            failed: 0,
            latency: Snapshot::of([&counts]),
        };
        c.sample(p);
        let line = c.progress_line(&spec, p, usize::MAX);
        assert!(line.contains("1000 req/s  p99 ≤ 1.54 ms"), "{line}");
    }
}
