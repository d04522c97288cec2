//! What a person sees while a run goes: a live progress line on stderr (only on a
//! terminal), each finished step's row and its slowest/fastest requests on stdout;
//! or, for `hakaru ab`, ab's own "Completed N requests" lines; or nothing (`-q`).

use std::io::{IsTerminal, Write};
use std::time::Duration;

use crate::engine::{Progress, StepSpec};
use crate::report::text;
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
    /// `hakaru ab`: ab's heartbeat lines instead of the live line.
    heartbeat: Option<Heartbeat>,
    step_label: String,
    last_len: usize,
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
            heartbeat: None,
            step_label: String::new(),
            last_len: 0,
        }
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

    /// ab's progress lines for a budget of `requests` (none for 150 or fewer, as ab).
    pub fn ab_heartbeat(mut self, requests: u64) -> Self {
        self.live = false;
        self.rows = false;
        if requests > 150 && !self.quiet {
            let every = (requests / 10).max(100);
            self.heartbeat = Some(Heartbeat { every, next: every });
        }
        self
    }

    fn clear_live(&mut self) {
        if self.live && self.last_len > 0 {
            eprint!("\r{}\r", " ".repeat(self.last_len));
            self.last_len = 0;
        }
    }
}

fn describe(spec: &StepSpec) -> String {
    match &spec.rate {
        Some(r) => format!("{r} req/s over {} connections", spec.n_clients.max(1)),
        None => format!("{} clients", spec.n_clients.max(1)),
    }
}

impl Observer for Console {
    fn step_started(&mut self, at: Position, spec: &StepSpec) {
        let round = if at.rounds > 1 {
            format!("round {}/{}, ", at.round, at.rounds)
        } else {
            String::new()
        };
        self.step_label = format!("{round}step {}/{}: {}", at.index + 1, at.of, describe(spec));
        if self.rows && !self.quiet {
            eprintln!("Running {}...", self.step_label);
        }
    }

    fn progress(&mut self, spec: &StepSpec, p: Progress) {
        if let Some(h) = &mut self.heartbeat {
            while p.finished >= h.next {
                eprintln!("Completed {} requests", h.next);
                h.next += h.every;
            }
        }
        if !self.live {
            return;
        }
        let secs = p.elapsed.as_secs_f64();
        let of = match (spec.duration, spec.n_requests) {
            (Some(d), _) => format!(" / {:.0} s", d.as_secs_f64()),
            _ => String::new(),
        };
        let of_n = spec
            .n_requests
            .map(|n| format!(" / {n}"))
            .unwrap_or_default();
        let line = format!(
            "  {}  {secs:.1} s{of}  {}{of_n} requests  {:.0} req/s",
            self.step_label,
            p.finished,
            p.finished as f64 / secs.max(1e-9)
        );
        let pad = self.last_len.saturating_sub(line.len());
        eprint!("\r{line}{}", " ".repeat(pad));
        let _ = std::io::stderr().flush();
        self.last_len = line.len();
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
            let _ = writeln!(out, "{}", text::step_row(step));
            let _ = writeln!(
                out,
                "{}",
                text::step_detail(step, &run.requests, self.n_slow, self.n_fast)
            );
        }
    }

    fn warmup_started(&mut self, d: Duration, spec: &StepSpec) {
        self.step_label = format!("warm-up: {}", describe(spec));
        if self.quiet {
            return;
        }
        eprintln!(
            "Warm-up: {:.1} s at {}, not counted in any step...",
            d.as_secs_f64(),
            describe(spec)
        );
    }

    fn warmup_finished(&mut self, responses: u64, errors: u64) {
        self.clear_live();
        if self.quiet {
            return;
        }
        eprintln!("Warm-up done: {responses} responses and {errors} errors, not counted.");
    }

    fn interval(&mut self, d: Duration) {
        if self.rows && self.live {
            eprintln!("  (interval {:.1} s)", d.as_secs_f64());
        }
    }
}
