//! `--report-interval`: sysbench's line every N seconds while the run goes, from the
//! engine's progress reports (every 100 ms or so). Events and errors per second are
//! counted; the latency percentile comes from the live coarse histogram (each
//! bucket at most 19% wide; the report's figures are the HDR histogram's); the
//! queries per second by class are the events that ended well times the test's
//! statements per event (the report's own counts are measured). Reconnects are not
//! counted live: their rate reads 0 here, the report counts them.

use std::time::Duration;

use crate::cli::args::Human;
use crate::engine::live::Snapshot;
use crate::engine::{Progress, StepSpec};
use crate::report::run::text::sysbench::{interval_line, IntervalFigures};
use crate::result::{RunResult, StepResult};
use crate::runner::{Observer, Position};
use crate::sql::sysbench::QueryCounts;

/// Prints a line each interval of the measured step (not of the warm-up).
pub struct Intervals {
    pub every: Duration,
    pub threads: u64,
    pub percentile: u32,
    pub per_event: QueryCounts,
    pub human: Human,
    next: Duration,
    last: (Duration, u64, u64, Snapshot),
    /// The latest report's latency, for the interval the run's end closes.
    latest: Snapshot,
    /// `--time` and `--events`: whether the run ended on time.
    time: Option<Duration>,
    events: Option<u64>,
    measuring: bool,
}

impl Intervals {
    pub fn new(
        every: Duration,
        threads: u64,
        percentile: u32,
        per_event: QueryCounts,
        human: Human,
    ) -> Self {
        Intervals {
            every,
            threads,
            percentile,
            per_event,
            human,
            next: every,
            last: (Duration::ZERO, 0, 0, Snapshot::default()),
            latest: Snapshot::default(),
            time: None,
            events: None,
            measuring: false,
        }
    }

    /// The run's limits: `--time`, `--events`.
    pub fn limits(self, time: Option<Duration>, events: Option<u64>) -> Self {
        Intervals {
            time,
            events,
            ..self
        }
    }

    /// The line of the interval from the last one to `at`: `finished` and `failed`
    /// events so far, latency from `latency`.
    fn line(&mut self, at: Duration, finished: u64, failed: u64, latency: Snapshot) {
        let (t0, finished0, failed0, ref lat) = self.last;
        let secs = (at - t0).as_secs_f64().max(1e-9);
        let errors = failed.saturating_sub(failed0);
        let good = finished.saturating_sub(finished0).saturating_sub(errors) as f64;
        let q = self.per_event;
        let pct = if self.percentile == 0 {
            95
        } else {
            self.percentile
        };
        let p = latency.since(lat).quantile(f64::from(pct) / 100.0);
        let f = IntervalFigures {
            at_s: at.as_secs_f64(),
            threads: self.threads,
            tps: good / secs,
            rwo: [q.read, q.write, q.other].map(|n| n as f64 * good / secs),
            percentile: pct,
            latency_ms: p.map_or(0.0, |d| d.as_secs_f64() * 1e3),
            errors_per_s: errors as f64 / secs,
            reconnects_per_s: 0.0,
        };
        self.human.print(&interval_line(&f));
        self.last = (at, finished, failed, latency);
    }
}

impl Observer for Intervals {
    fn step_started(&mut self, _at: Position, _spec: &StepSpec) {
        self.measuring = true;
        self.next = self.every;
        self.last = (Duration::ZERO, 0, 0, Snapshot::default());
    }

    fn warmup_started(&mut self, _d: Duration, _spec: &StepSpec) {
        self.measuring = false;
    }

    fn progress(&mut self, _spec: &StepSpec, p: Progress) {
        self.latest = p.latency;
        if !self.measuring || p.elapsed < self.next {
            return;
        }
        while self.next <= p.elapsed {
            self.next += self.every;
        }
        self.line(p.elapsed, p.finished, p.failed, p.latency);
    }

    /// A run that ended on time at an interval's end (`--time` a multiple of it)
    /// gets that interval's line too, as sysbench's timer mostly prints it before
    /// the run stops; the engine's last report came up to a beat before the end
    /// (with `--rate`, the step ends at its last answer, just before). Its counts
    /// are the step's; its percentile the latest report's.
    fn step_finished(&mut self, _run: &RunResult, step: &StepResult) {
        let on_time = !step.partial
            && self.events.is_none_or(|n| step.total_requests < n)
            && self.time.is_some_and(|t| t >= self.next);
        if self.measuring && on_time {
            let end = Duration::from_secs_f64(step.elapsed_s).max(self.last.0);
            self.line(end, step.total_requests, step.error_total(), self.latest);
        }
        self.measuring = false;
    }
}
