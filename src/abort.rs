//! `--abort-on-fail`: a judge that watches a run beside the console (one more observer
//! of [`crate::observe::Fanout`]) and ends it (the run's [`Stop`], as Ctrl-C does) as soon as a threshold can no longer hold. It only
//! decides *when to stop*: the verdicts in the result are judged afterwards, as on any
//! run, from the exact HDR figures of what ran.
//!
//! What it judges live, from the engine's progress (every ~250 ms: requests ended and
//! failed, and the coarse live latency histogram, [`crate::engine::live`]):
//! - a **windowed** threshold (`p99[10s]<200ms`) on the last window: the difference of
//!   the counts now and at the snapshot one window ago (kept once a second, so the live
//!   window is 10 to 11 s long). One full window that fails fails the threshold for
//!   good, as in k6's windowed evaluation.
//! - a **whole-step** threshold on the step so far. Figures that only grow (`max`, an
//!   error count) fail for good the moment they pass an upper bound. The others
//!   (percentiles, mean, error share) can still recover, so, like k6's
//!   `delayAbortEval`, they are judged only once they rest on enough samples
//!   ([`min_samples`]: 1,000 responses for a p99, the rule `--find-max` uses). A step's
//!   `qps` is judged when the step ends.
//! - a **label's** threshold (`p99{group=search}<50ms`) alike, on that label's
//!   figures: the engine feeds the labels thresholds name from the seconds its workers
//!   hand over ([`crate::engine::live::LabelFeed`]), so a label's breach is seen once
//!   its second ends (within about a second). A label the feed does not carry (a
//!   `host=` label, a run whose command feeds none) is judged when its step ends.
//! - every threshold on the exact figures is judged again when each step ends; a step
//!   that fails one ends the run there (when steps remain).
//!
//! A latency from the live histogram is read at its bucket's edge that favours the
//! threshold (the lowest value the bucket stands for, against an upper bound), so the
//! judge stops a run only for a breach the exact figures will show too.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::analysis::threshold::{judge, min_samples};
use crate::engine::live::{upper_us, LabelFeed, Snapshot, Tally};
use crate::engine::{Progress, StepSpec, Stop};
use crate::result::threshold::{Aborted, ThresholdsResult};
use crate::result::{RunResult, RunState, StepResult};
use crate::runner::{Observer, Position};
use crate::spec::threshold::{Metric, Op, Threshold};

/// What the engine had counted at one moment of a step: all requests, and each
/// threshold's label (by threshold index; None for a threshold without a label in
/// the feed).
#[derive(Debug, Clone, Default)]
struct Mark {
    elapsed_s: f64,
    all: Tally,
    labels: Vec<Option<Tally>>,
}

impl Mark {
    fn of(p: &Progress, labels: Vec<Option<Tally>>) -> Mark {
        Mark {
            elapsed_s: p.elapsed.as_secs_f64(),
            all: Tally {
                finished: p.finished,
                failed: p.failed,
                latency: p.latency,
            },
            labels,
        }
    }

    /// What threshold `i` (`t`) is judged on at this mark: its label's tally, or
    /// all requests'. None when its label is not fed.
    fn tally(&self, i: usize, t: &Threshold) -> Option<&Tally> {
        match t.label {
            None => Some(&self.all),
            Some(_) => self.labels.get(i)?.as_ref(),
        }
    }
}

/// A figure of the live feed, with how many observations it rests on; Err(why) when
/// there is none.
type Live = (Result<f64, &'static str>, u64);

/// `t`'s metric over `d` (a window or the step so far, `elapsed_s` long), latencies
/// at the edge that favours the threshold.
fn measure(t: &Threshold, d: &Tally, elapsed_s: f64) -> Live {
    let responses = d.latency.count();
    let favour_low = matches!(t.op, Op::Lt | Op::Le);
    if t.metric.is_latency() {
        if responses == 0 {
            return (Err("no responses"), 0);
        }
        let edge = |lo: u64, hi: u64| if favour_low { lo } else { hi } as f64 / 1e6;
        let buckets = edges(&d.latency);
        let v = match t.metric {
            Metric::Percentile(q) => {
                let rank = ((q / 100.0 * responses as f64).ceil() as u64).clamp(1, responses);
                let mut seen = 0;
                buckets
                    .into_iter()
                    .find(|(_, _, n)| {
                        seen += n;
                        seen >= rank
                    })
                    .map_or(0.0, |(lo, hi, _)| edge(lo, hi))
            }
            Metric::Mean => {
                let sum: f64 = buckets
                    .iter()
                    .map(|(lo, hi, n)| edge(*lo, *hi) * *n as f64)
                    .sum();
                sum / responses as f64
            }
            _ => buckets.last().map_or(0.0, |(lo, hi, _)| edge(*lo, *hi)),
        };
        return (Ok(v), responses);
    }
    match t.metric {
        Metric::ErrorShare if d.finished == 0 => (Err("no request ended"), 0),
        Metric::ErrorShare => (Ok(d.failed as f64 / d.finished as f64), d.finished),
        Metric::ErrorCount => (Ok(d.failed as f64), d.finished),
        Metric::Qps => (Ok(responses as f64 / elapsed_s.max(1e-3)), responses),
        _ => (Err("not in the live feed"), 0),
    }
}

/// The buckets of `s` that hold a response, lowest first: the lowest latency each
/// stands for, the first latency above it (µs), and its count.
fn edges(s: &Snapshot) -> Vec<(u64, u64, u64)> {
    s.buckets()
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(i, n)| (if i == 0 { 0 } else { upper_us(i - 1) }, upper_us(i), *n))
        .collect()
}

/// True for a figure that can only grow within a step (`max`, an error count) held to
/// an upper bound: once past it, it stays past.
fn fails_for_good(t: &Threshold) -> bool {
    matches!(t.metric, Metric::Max | Metric::ErrorCount) && matches!(t.op, Op::Lt | Op::Le)
}

/// The words for a live figure: "2.10 s", "3.2%", "7 errors", "12.5/s".
fn words(t: &Threshold, v: f64) -> String {
    match t.metric {
        m if m.is_latency() && v >= 1.0 => format!("{v:.2} s"),
        m if m.is_latency() => format!("{:.1} ms", v * 1e3),
        Metric::ErrorShare => format!("{:.2}%", v * 100.0),
        Metric::ErrorCount => format!("{v:.0} errors"),
        _ => format!("{v:.1}/s"),
    }
}

/// The live judgement of one step's progress: Some(why) for the first threshold that
/// can no longer hold. `marks` holds the step's start and one mark a second since.
fn breach(thresholds: &[Threshold], marks: &VecDeque<Mark>, now: &Mark) -> Option<(usize, String)> {
    let start = marks.front()?;
    for (i, t) in thresholds.iter().enumerate() {
        let Some(current) = now.tally(i, t) else {
            continue;
        };
        let why = match t.window_s {
            Some(w) => {
                // The latest mark at least a window ago.
                let Some((base, earlier)) = marks
                    .iter()
                    .rev()
                    .filter(|m| m.elapsed_s <= now.elapsed_s - w as f64)
                    .find_map(|m| Some((m, m.tally(i, t)?)))
                else {
                    continue;
                };
                let d = current.since(earlier);
                let (v, _) = measure(t, &d, now.elapsed_s - base.elapsed_s);
                if v.is_ok_and(|v| t.op.holds(v, t.bound)) {
                    continue;
                }
                let what = match v {
                    Ok(v) => words(t, v),
                    Err(why) => why.to_string(),
                };
                format!(
                    "live, seconds {:.1}–{:.1} of the step: {what}",
                    base.elapsed_s, now.elapsed_s
                )
            }
            None if t.metric == Metric::Qps => continue,
            None => {
                let d = start.tally(i, t).map_or(*current, |s| current.since(s));
                let (v, samples) = measure(t, &d, now.elapsed_s - start.elapsed_s);
                let Ok(v) = v else { continue };
                let grows = matches!(t.metric, Metric::Max | Metric::ErrorCount);
                // A growing figure under a lower bound may still reach it; the others
                // are trusted once they rest on enough samples.
                let undecided = if grows {
                    !fails_for_good(t)
                } else {
                    samples < min_samples(t)
                };
                if undecided || t.op.holds(v, t.bound) {
                    continue;
                }
                format!(
                    "live, the step's first {:.1} s ({samples} samples): {}",
                    now.elapsed_s,
                    words(t, v)
                )
            }
        };
        return Some((i, why));
    }
    None
}

/// The `--abort-on-fail` observer: trips `stop` when a threshold can no longer hold.
pub struct AbortJudge {
    stop: Stop,
    thresholds: Vec<Threshold>,
    /// The step's start and a mark at every whole second since (enough for the
    /// longest window).
    marks: VecDeque<Mark>,
    /// During the warm-up nothing is judged.
    warming: bool,
    /// The running step: its index in the run's steps, and whether it is the last.
    step: usize,
    last: bool,
    tripped: Option<Aborted>,
    /// The labels the engine feeds, and for each threshold its label's place there.
    feed: Option<(Arc<LabelFeed>, Vec<Option<usize>>)>,
}

impl AbortJudge {
    pub fn new(thresholds: &[Threshold], stop: Stop) -> Self {
        AbortJudge {
            stop,
            thresholds: thresholds.to_vec(),
            marks: VecDeque::new(),
            warming: false,
            step: 0,
            last: false,
            tripped: None,
            feed: None,
        }
    }

    /// Judge the thresholds on labels live too, from the labels `feed` carries (the
    /// run's engine feeds it).
    pub fn with_feed(mut self, feed: Arc<LabelFeed>) -> Self {
        let places = self
            .thresholds
            .iter()
            .map(|t| {
                let sel = t.label.as_ref()?;
                feed.named()
                    .iter()
                    .position(|l| l.key == sel.key && l.value == sel.value)
            })
            .collect();
        self.feed = Some((feed, places));
        self
    }

    /// Each threshold's label tally now (None without a label, or one not fed).
    fn label_tallies(&self) -> Vec<Option<Tally>> {
        let Some((feed, places)) = &self.feed else {
            return Vec::new();
        };
        let tallies = feed.tallies();
        places
            .iter()
            .map(|p| p.and_then(|k| tallies.get(k).copied().flatten()))
            .collect()
    }

    /// Why and when it stopped the run, if it did.
    pub fn tripped(self) -> Option<Aborted> {
        self.tripped
    }

    fn trip(&mut self, threshold: usize, at_s: f64, why: String) {
        let t = &self.thresholds[threshold];
        eprintln!(
            "\nhakaru: --abort-on-fail: {} can no longer hold ({why}); ending the run.",
            t.text
        );
        self.tripped = Some(Aborted {
            threshold: t.text.clone(),
            step: self.step,
            at_s,
            at: crate::sysinfo::now_rfc3339(),
            why,
        });
        self.stop.trigger();
    }

    /// The longest window, seconds (how far back marks are kept).
    fn longest_window(&self) -> f64 {
        self.thresholds
            .iter()
            .filter_map(|t| t.window_s)
            .max()
            .unwrap_or(0) as f64
    }
}

impl Observer for AbortJudge {
    fn step_started(&mut self, at: Position, _spec: &StepSpec) {
        self.marks.clear();
        // The step's start: nothing counted, for every label either (the feed's
        // tallies start again with each step).
        let labels = vec![Some(Tally::default()); self.thresholds.len()];
        self.marks.push_back(Mark {
            labels,
            ..Mark::default()
        });
        self.last = at.round == at.rounds && at.index + 1 == at.of;
    }

    fn progress(&mut self, _spec: &StepSpec, p: Progress) {
        if self.warming || self.tripped.is_some() || self.marks.is_empty() {
            return;
        }
        let now = Mark::of(&p, self.label_tallies());
        if let Some((i, why)) = breach(&self.thresholds, &self.marks, &now) {
            self.trip(i, now.elapsed_s, why);
            return;
        }
        // A mark at each whole second; the ones no window reaches back to are dropped.
        let newest = self.marks.back().map_or(0.0, |m| m.elapsed_s);
        let keep_from = now.elapsed_s - self.longest_window() - 2.0;
        if now.elapsed_s.floor() > newest.floor() {
            self.marks.push_back(now);
        }
        while self.marks.len() > 2 && self.marks[1].elapsed_s < keep_from {
            // The step's start stays: the whole-step figures count from it.
            self.marks.remove(1);
        }
    }

    fn step_finished(&mut self, run: &RunResult, step: &StepResult) {
        self.step = run.steps.len().saturating_sub(1);
        if self.tripped.is_some() || self.last {
            return;
        }
        // The exact figures, labels included: a step that fails a threshold fails the
        // run's, whatever the later steps do.
        let failed = self.thresholds.iter().enumerate().find_map(|(i, t)| {
            let v = judge(t, step);
            (!v.passed).then(|| {
                let what = match (v.value, v.note) {
                    (Some(x), _) => words(t, x),
                    (None, Some(n)) => n,
                    (None, None) => "nothing measured".into(),
                };
                (i, format!("step {} as measured: {what}", self.step + 1))
            })
        });
        if let Some((i, why)) = failed {
            self.trip(i, step.elapsed_s, why);
        }
        self.step += 1;
    }

    fn warmup_started(&mut self, _d: std::time::Duration, _spec: &StepSpec) {
        self.warming = true;
    }

    fn warmup_finished(&mut self, _responses: u64, _errors: u64) {
        self.warming = false;
    }
}

/// Marks a run the judge ended: the record in its thresholds, the reason, the state
/// (failed: exit 1, not 130 as for Ctrl-C).
pub fn record(run: &mut RunResult, aborted: Aborted) {
    run.stop_reason = Some(format!(
        "--abort-on-fail: {} could no longer hold {:.1} s into step {} ({}); the run was ended there",
        aborted.threshold,
        aborted.at_s,
        aborted.step + 1,
        aborted.why
    ));
    run.state = RunState::Failed;
    run.partial = true;
    let t = run.thresholds.get_or_insert_with(ThresholdsResult::default);
    t.passed = false;
    t.aborted = Some(aborted);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::live::Counts;
    use std::time::Duration;

    fn t(s: &str) -> Threshold {
        Threshold::parse(s).expect("valid")
    }

    fn mark(elapsed_s: f64, finished: u64, failed: u64, c: &Counts) -> Mark {
        Mark {
            elapsed_s,
            all: Tally {
                finished,
                failed,
                latency: Snapshot::of([c]),
            },
            labels: Vec::new(),
        }
    }

    #[test]
    fn a_window_fails_on_its_own_seconds_not_the_whole_step() {
        let c = Counts::default();
        let mut marks = VecDeque::from([Mark::default()]);
        for s in 1..=10 {
            for _ in 0..100 {
                c.record(Duration::from_millis(2));
            }
            marks.push_back(mark(s as f64, s * 100, 0, &c));
        }
        let th = [t("p99[2s]<1s"), t("p99<1s")];
        assert_eq!(breach(&th, &marks, marks.back().unwrap()), None);
        // A stall answered at once: 30 slow of 230 in the last two seconds.
        for _ in 0..30 {
            c.record(Duration::from_secs(3));
        }
        for _ in 0..100 {
            c.record(Duration::from_millis(2));
        }
        let now = mark(11.2, 1130, 0, &c);
        let (i, why) = breach(&th, &marks, &now).expect("the window fails");
        assert_eq!(i, 0);
        assert!(
            why.starts_with("live, seconds 9.0–11.2 of the step: "),
            "{why}"
        );
        // The whole step's p99 (30 slow of 1,130, over 2%) fails too once alone.
        let (i, why) = breach(&th[1..], &marks, &now).expect("whole step");
        assert_eq!(i, 0);
        assert!(why.contains("1130 samples"), "{why}");
    }

    #[test]
    fn whole_step_figures_wait_for_samples_unless_they_only_grow() {
        let c = Counts::default();
        for _ in 0..10 {
            c.record(Duration::from_secs(2));
        }
        let start = VecDeque::from([Mark::default()]);
        let now = mark(1.0, 12, 2, &c);
        // A p99 on 10 responses could still recover; a max or an error count cannot.
        assert_eq!(breach(&[t("p99<1s")], &start, &now), None);
        assert!(breach(&[t("max<1s")], &start, &now).is_some());
        assert!(breach(&[t("errors<=1")], &start, &now).is_some());
        assert_eq!(breach(&[t("errors<=2")], &start, &now), None);
        // 2 of 12 failed: a share needs 100 requests for errors<1%.
        assert_eq!(breach(&[t("errors<1%")], &start, &now), None);
        // Labels and a step's qps wait for the step's end; a lower bound on max too.
        assert_eq!(
            breach(
                &[t("max{group=a}<1s"), t("qps>1000"), t("max>5s")],
                &start,
                &now
            ),
            None
        );
    }

    #[test]
    fn the_live_edge_favours_the_threshold() {
        let c = Counts::default();
        for _ in 0..100 {
            c.record(Duration::from_micros(1000));
        }
        let d = mark(1.0, 100, 0, &c);
        // 1000 µs is in a bucket [896, 1024): below 1 ms for an upper bound.
        let (lo, _) = measure(&t("p50<1ms"), &d.all, d.elapsed_s);
        assert!(lo.unwrap() < 0.001 && lo.unwrap() >= 0.0008, "{lo:?}");
        let (hi, _) = measure(&t("p50>1ms"), &d.all, d.elapsed_s);
        assert!(hi.unwrap() > 0.001, "{hi:?}");
        let (q, n) = measure(&t("qps[1s]>1"), &d.all, d.elapsed_s);
        assert_eq!((q, n), (Ok(100.0), 100));
        assert_eq!(
            measure(&t("errors<1%"), &Tally::default(), 0.0).0,
            Err("no request ended")
        );
    }

    #[test]
    fn the_judge_skips_the_warm_up_and_ends_a_ramp_at_a_failed_step() {
        let spec = StepSpec {
            n_clients: 1,
            duration: None,
            n_requests: None,
            rate: None,
        };
        let at = |index| Position {
            round: 1,
            rounds: 1,
            index,
            of: 2,
        };
        let slow = Counts::default();
        slow.record(Duration::from_secs(5));
        let p = |s: f64| Progress {
            elapsed: Duration::from_secs_f64(s),
            finished: 1,
            failed: 0,
            latency: Snapshot::of([&slow]),
        };
        let stop = Stop::default();
        let mut judge = AbortJudge::new(&[t("max<1s"), t("p99{group=a}<1s")], stop.clone());
        // The warm-up's slow response is not the step's.
        judge.warmup_started(Duration::from_secs(1), &spec);
        judge.progress(&spec, p(0.5));
        judge.warmup_finished(1, 0);
        assert!(!stop.is_triggered());
        // A label is judged at the step's end, on the exact figures.
        let mut judge = AbortJudge::new(&[t("p99{group=a}<1s")], stop.clone());
        judge.step_started(at(0), &spec);
        judge.progress(&spec, p(0.5));
        assert!(!stop.is_triggered());
        let step = crate::analysis::threshold::tests_support::step(10, 0, 1.0);
        let run = crate::result::fixture::run(vec![step.clone()]);
        judge.step_finished(&run, &step);
        // Not there at all in the step: not judged, not a reason to stop.
        assert!(!stop.is_triggered());
        // A max past its bound stops the run at once, live.
        let mut judge = AbortJudge::new(&[t("max<1s")], stop.clone());
        judge.step_started(at(1), &spec);
        judge.progress(&spec, p(0.25));
        assert!(stop.is_triggered());
        let a = judge.tripped().expect("tripped");
        assert_eq!((a.threshold.as_str(), a.at_s), ("max<1s", 0.25));
        assert!(
            a.why
                .starts_with("live, the step's first 0.2 s (1 samples): "),
            "{}",
            a.why
        );
    }

    /// Issue 18: label thresholds waited for the step's end. Fed a label's finished
    /// seconds, the judge trips on them alone while the step runs.
    #[test]
    fn a_label_is_judged_live_from_its_finished_seconds() {
        use crate::stats::{Finished, Label, Labels, Outcome, Second};
        let label = |v: &str| Label {
            key: "group".into(),
            value: v.into(),
        };
        let feed = Arc::new(LabelFeed::new(vec![label("slow"), label("gone")]));
        let labels = Labels {
            list: vec![label("fast"), label("slow")],
            note: None,
        };
        assert_eq!(feed.start_step(&labels), vec![1]);
        let spec = StepSpec {
            n_clients: 1,
            duration: None,
            n_requests: None,
            rate: None,
        };
        let at = Position {
            round: 1,
            rounds: 1,
            index: 0,
            of: 1,
        };
        let fast = Counts::default();
        fast.record(Duration::from_millis(1));
        let p = |s: f64| Progress {
            elapsed: Duration::from_secs_f64(s),
            finished: 1,
            failed: 0,
            latency: Snapshot::of([&fast]),
        };
        let stop = Stop::default();
        let th = [
            t("max<1s"),
            t("max{group=gone}<1ms"),
            t("max{group=slow}<50ms"),
        ];
        let mut judge = AbortJudge::new(&th, stop.clone()).with_feed(feed.clone());
        judge.step_started(at, &spec);
        judge.progress(&spec, p(0.5));
        assert!(!stop.is_triggered(), "nothing of the label has arrived yet");
        let second = |ms: u64| {
            let mut s = Second::new();
            s.record(
                Outcome::Status(200),
                Duration::from_millis(ms),
                &Default::default(),
            );
            s
        };
        // A second of the fast label (not fed) and one of the slow label.
        feed.add(&Finished {
            index: 0,
            second: second(1),
            labels: vec![(0, second(500)), (1, second(100))],
        });
        judge.progress(&spec, p(1.25));
        assert!(stop.is_triggered());
        let a = judge.tripped().expect("tripped");
        assert_eq!(a.threshold, "max{group=slow}<50ms");
        assert!(
            a.why
                .starts_with("live, the step's first 1.2 s (1 samples): 9"),
            "the slow label's 100 ms at its bucket's low edge: {}",
            a.why
        );
        // A new step starts the label's tallies again.
        feed.start_step(&labels);
        assert_eq!(feed.tallies(), vec![Some(Tally::default()), None]);
    }

    #[test]
    fn record_marks_the_run_failed_with_the_threshold_and_when() {
        let mut run = crate::result::fixture::run(vec![]);
        record(
            &mut run,
            Aborted {
                threshold: "p99[5s]<1s".into(),
                step: 0,
                at_s: 7.3,
                at: "2026-11-25T13:00:00Z".into(),
                why: "live".into(),
            },
        );
        assert_eq!(run.state, RunState::Failed);
        assert!(run
            .stop_reason
            .as_deref()
            .unwrap()
            .starts_with("--abort-on-fail: p99[5s]<1s could no longer hold 7.3 s into step 1"));
        assert_eq!(crate::runner::exit_code(&run), crate::runner::exit::FAILED);
    }
}
