//! `ramp --find-max --slo …`: the highest open-model rate a server sustains within a
//! service-level objective. Three pure parts the driver ([`crate::find_max`]) runs:
//!
//! - [`cut_parts`]: a probe runs as one step at one rate (so the server's queue carries
//!   from its start to its end, as it would in production); this cuts the step's
//!   per-second timeline into up to [`PARTS`] parts of whole seconds afterwards, so the
//!   judge can see a trend.
//! - [`judge_probe`]: one probe, cut into parts, passes
//!   when (1) it has enough responses for every SLO figure to be trusted
//!   ([`probe_min_samples`]: at least [`MIN_PROBE_SAMPLES`]), (2) every SLO threshold
//!   holds over the whole probe, (3) the queue did not grow: the median response time
//!   does not rise from every part to the next with the last part's median above the
//!   first part's p90 by more than that part's own spread (p90 − p50, at least
//!   [`QUEUE_MARGIN_S`]). Noise moves a part's percentiles by about its spread and
//!   in no particular direction; a growing queue moves them steadily up. A trend
//!   needs [`MIN_TREND_PARTS`] parts (of two, one slow second is a "rise"), and
//!   (4) at most [`LATE_SHARE`] of the due requests were left unsent (else the
//!   client, not the server, set the pace; requests that left late are not a
//!   failure of their own, since their latency counts from the due time anyway). (3) is what keeps the search from
//!   overshooting: just past capacity a queue grows slowly, and a short probe's p99 can
//!   still be under the target while the rate is not sustainable at all.
//! - [`Search`]: grow the rate geometrically from the start until a probe fails, then
//!   bisect between the highest pass and the lowest fail until they are within the
//!   precision, then probe the answer again. The answer is always a rate every probe
//!   of which passed, below every rate that failed: a confirmed failure is never the
//!   answer.
//!   A failure the search has reason to doubt is run again too before it lowers the
//!   bracket ([`Search::doubts`]): one stall of the machine (a probe at 470/s that
//!   ended with nothing for 2.5 s) otherwise lowered the bracket for good, and the
//!   search answered 220/s for a target that held far more. A failure whose repeat
//!   passes is *not confirmed* and moves nothing; one whose repeat fails stands.

use crate::result::find_max::{FailedThreshold, ProbeResult};
use crate::result::StepResult;
use crate::spec::threshold::Threshold;

use super::threshold::{judge, min_samples};

/// The fewest responses a probe is judged on, whatever the SLO: a p99 rests on at
/// least 10 responses beyond it (see [`super::threshold::TAIL_SAMPLES`]).
pub const MIN_PROBE_SAMPLES: u64 = 1000;
/// Below this share of the requests a server keeping up would have ended, a failed
/// probe's reasons say the server fell behind. Not a test of its own: the requests
/// cut off at the probe's end are the slowest, so on a busy machine the estimate reads
/// short of a server that kept up.
pub const KEPT_UP_SHARE: f64 = 0.97;
/// A probe is cut into this many parts (fewer when it lasted fewer whole seconds), so
/// the judge can see a trend.
pub const PARTS: usize = 4;
/// The fewest parts the queue test judges a trend on: two rises in a row. With two
/// parts (a probe of 2 or 3 s) the test was one comparison, and one slow second of a
/// loaded machine failed a probe at half the capacity (1 run in ~16 of
/// `a_probe_after_an_overload_waits_for_the_target_to_settle`); a real server's
/// short probes have the same hiccups. Such a probe is judged on its SLO, responses
/// and timetable, as one under 2 s already was.
pub const MIN_TREND_PARTS: usize = 3;
/// The least margin of the queue test: about the resolution of a server's timers.
pub const QUEUE_MARGIN_S: f64 = 0.001;
/// Above this share of due requests never sent, a probe measured hakaru rather than the
/// server and fails; above this share leaving late, a failed probe's reasons say so
/// (every connection was busy, or hakaru was short of CPU).
pub const LATE_SHARE: f64 = 0.01;

/// Responses a probe needs: [`MIN_PROBE_SAMPLES`], or more when a threshold needs it
/// (a p99.9 needs 10,000).
pub fn probe_min_samples(slo: &[Threshold]) -> u64 {
    slo.iter()
        .map(min_samples)
        .max()
        .unwrap_or(0)
        .max(MIN_PROBE_SAMPLES)
}

/// A stretch of whole seconds of a probe, cut from its step's timeline by
/// [`cut_parts`]: the responses that ended in it and their percentiles.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Part {
    /// The part's first second, from the probe's start.
    pub from_s: u64,
    /// The part's length in the timeline's seconds (the last part also holds whatever
    /// ended in the probe's last, partial second).
    pub seconds: u64,
    pub responses: u64,
    pub p50_s: f64,
    pub p90_s: f64,
}

/// Cuts a probe's one step into `n` parts of whole seconds (fewer when it lasted fewer
/// than `n` whole seconds: a probe of 2.5 s has two parts, one under 2 s has one and no
/// trend) from its per-second timeline, each part's percentiles from its seconds' own
/// histograms added up (exact to the timeline's 2 significant digits). The whole
/// seconds are shared out as evenly as they go, the longer parts last (5 s in 4 parts:
/// 1, 1, 1, 2): the later a part, the more of a growing queue it shows anyway. A
/// step without a timeline is one part.
pub fn cut_parts(step: &StepResult, n: usize) -> Result<Vec<Part>, String> {
    let Some(seconds) = step.timeline.as_deref() else {
        return Ok(vec![whole_as_part(step)]);
    };
    // Whole seconds the probe lasted; entries from the partial second after them (and
    // any later one) join the last part.
    let full = (step.elapsed_s.max(0.0).floor() as u64).max(1);
    let n = (n as u64).clamp(1, full);
    let mut parts: Vec<(Part, hdrhistogram::Histogram<u64>)> = (0..n)
        .map(|i| {
            let from_s = full * i / n;
            let to_s = full * (i + 1) / n;
            let part = Part {
                from_s,
                seconds: to_s - from_s,
                ..Part::default()
            };
            (part, second_histogram())
        })
        .collect();
    for s in seconds {
        // The last part starting at or before the second (the partial one: the last).
        let at = s.second.min(full - 1);
        let i = parts.iter().rposition(|(p, _)| p.from_s <= at).unwrap_or(0);
        let (part, h) = &mut parts[i];
        part.responses += s.responses;
        if s.second >= full {
            part.seconds = part.seconds.max(s.second + s.span_s.max(1) - part.from_s);
        }
        let second = crate::result::decode_histogram(&s.histogram)
            .map_err(|why| format!("second {}: {why}", s.second))?;
        h.add(&second)
            .map_err(|e| format!("second {}: histogram: {e:?}", s.second))?;
    }
    Ok(parts
        .into_iter()
        .map(|(mut part, h)| {
            if !h.is_empty() {
                part.p50_s = h.value_at_quantile(0.5) as f64 / 1e6;
                part.p90_s = h.value_at_quantile(0.9) as f64 / 1e6;
            }
            part
        })
        .collect())
}

/// A step read from a file without a timeline: one part, its own figures.
fn whole_as_part(step: &StepResult) -> Part {
    Part {
        from_s: 0,
        seconds: step.elapsed_s.round() as u64,
        responses: step.responses,
        p50_s: step.latency.p50_s,
        p90_s: step.latency.p90_s,
    }
}

/// The bounds and precision of the timeline's seconds.
fn second_histogram() -> hdrhistogram::Histogram<u64> {
    hdrhistogram::Histogram::new_with_bounds(1, crate::stats::MAX_TRACKABLE_US, 2)
        .expect("static histogram bounds are valid")
}

/// Judge a probe at `rate` from its one step (`whole`) and the parts [`cut_parts`] cut
/// it into. `why` is left empty for the report to word.
pub fn judge_probe(
    slo: &[Threshold],
    rate: f64,
    parts: &[Part],
    whole: &StepResult,
) -> ProbeResult {
    let need = probe_min_samples(slo);
    let failed: Vec<FailedThreshold> = slo
        .iter()
        .filter_map(|t| {
            let v = judge(t, whole);
            (!v.passed).then(|| FailedThreshold {
                threshold: t.text.clone(),
                value: v.value,
            })
        })
        .collect();
    let values = slo
        .iter()
        .map(|t| judge(t, whole).value)
        .collect::<Vec<_>>();
    let medians: Vec<f64> = parts.iter().map(|p| p.p50_s).collect();
    let queue_growing = match (parts.first(), parts.last()) {
        (Some(first), Some(last)) if parts.len() >= MIN_TREND_PARTS => {
            let answered = parts.iter().all(|p| p.responses > 0);
            // Rising from part to part: a burst of noise in one part is not a trend.
            let rising = medians.windows(2).all(|w| w[1] > w[0] + QUEUE_MARGIN_S);
            let margin = (first.p90_s - first.p50_s).max(QUEUE_MARGIN_S);
            answered && rising && last.p50_s > first.p90_s + margin
        }
        _ => false,
    };
    // What a server keeping up would have ended: the requests due (ended, in flight
    // or never sent), less those a steady queue holds at the probe's end: the rate ×
    // the mean response time (Little's law; both count from the due time).
    let due = whole.total_requests + whole.unfinished + whole.dropped;
    let expected = (due as f64 - rate * whole.latency.mean_s).max(0.0);
    let kept_up_share = if expected > 0.0 {
        whole.total_requests as f64 / expected
    } else {
        0.0
    };
    let fell_behind = kept_up_share < KEPT_UP_SHARE;
    let client_behind = whole.dropped as f64 > LATE_SHARE * due as f64;
    let too_few_samples = whole.responses < need;
    ProbeResult {
        rate,
        step: 0,
        passed: failed.is_empty() && !queue_growing && !client_behind && !too_few_samples,
        kept_up_share,
        fell_behind,
        duration_s: whole.elapsed_s,
        responses: whole.responses,
        min_samples: need,
        values,
        failed,
        too_few_samples,
        inconclusive: false,
        queue_growing,
        part_p50_s: medians,
        part_seconds: parts.iter().map(|p| p.seconds).collect(),
        first_part_p90_s: parts.first().map_or(0.0, |p| p.p90_s),
        late: whole.late,
        dropped: whole.dropped,
        client_behind,
        why: Vec::new(),
        repeat: None,
        unconfirmed: false,
        settle: None,
    }
}

/// The bounds of a search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// The first rate probed, requests per second.
    pub start_rate: f64,
    /// No rate above this is probed; reaching it ends the search.
    pub max_rate: f64,
    /// Below this the search gives up going down.
    pub min_rate: f64,
    /// Each growing probe multiplies the rate by this (2: doubling).
    pub growth: f64,
    /// The search ends when the lowest fail is within this share above the highest
    /// pass (0.05: 5%).
    pub precision: f64,
    /// At most this many probes in all, the confirmation included.
    pub max_probes: usize,
}

/// Why a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The highest pass and lowest fail are within the precision, and the answer held
    /// when probed again.
    Converged,
    /// Every probe up to `max_rate` passed: the server sustains at least that.
    MaxRate,
    /// `max_probes` ran out first.
    MaxProbes,
    /// Even `min_rate` failed, or nothing passed.
    NonePassed,
    /// Ctrl-C.
    Interrupted,
}

impl Ended {
    pub fn as_str(self) -> &'static str {
        match self {
            Ended::Converged => "converged",
            Ended::MaxRate => "max_rate",
            Ended::MaxProbes => "max_probes",
            Ended::NonePassed => "none_passed",
            Ended::Interrupted => "interrupted",
        }
    }
}

/// What to do next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    Probe(f64),
    Done(Ended),
}

/// The search's state: every probe's rate and verdict, in order.
#[derive(Debug, Clone)]
pub struct Search {
    pub limits: Limits,
    pub probes: Vec<(f64, bool)>,
    /// Probes that were not judged (too few responses): they count against
    /// `max_probes` only.
    pub inconclusive: usize,
    /// The index in `probes` of a failure the search doubts and runs again before it
    /// counts on it (until then it stands: the summary written meanwhile is the
    /// cautious one).
    awaiting: Option<usize>,
    /// Failures whose repeat passed: not confirmed, they bound nothing.
    unconfirmed: Vec<usize>,
}

impl Search {
    pub fn new(limits: Limits) -> Search {
        Search {
            limits,
            probes: Vec::new(),
            inconclusive: 0,
            awaiting: None,
            unconfirmed: Vec::new(),
        }
    }

    /// A probe that could not be judged: run the same rate again, longer.
    pub fn record_inconclusive(&mut self) {
        self.inconclusive += 1;
    }

    /// A judged probe at `rate`. A failure the search [`doubts`](Search::doubts) is
    /// run again next (once: the repeat's verdict stands, whatever it is); a repeat
    /// that passes leaves its failure unconfirmed.
    pub fn record(&mut self, rate: f64, passed: bool) {
        let doubted = !passed && self.awaiting.is_none() && self.doubts(rate);
        self.probes.push((rate, passed));
        if let Some(failure) = self.awaiting.take() {
            if passed {
                self.unconfirmed.push(failure);
            }
        } else if doubted {
            self.awaiting = Some(self.probes.len() - 1);
        }
    }

    /// Whether a failure at `rate` is run again before it lowers the bracket: when no
    /// probe has passed yet, when no failure counts yet (the one that ends the
    /// growth), or when `rate` is at most the precision above the highest pass. Not
    /// every failure: the bisection's probes well above a pass are what a search
    /// narrowing in expects, and confirming them would add about a probe in three to
    /// every search; one of them failed by a stall caps the answer below its rate but
    /// above the pass below it, within a factor the bisection has already halved. The
    /// doubted ones are where a stall costs most: with nothing passed a failure halves
    /// the rate, and the search never climbs back above a failed rate (the bug: 470/s
    /// stalled, the answer 220/s); the growth's first failure caps the answer at its
    /// rate however far above it the target holds (a stall at 940/s answered under
    /// 940/s for a target of 10,000/s), for one probe a search; at or just above a
    /// rate that passed, a failure contradicts that pass (a target holds less when
    /// offered more, not less) or closes the bracket by itself, within what the user
    /// asked to tell apart.
    pub fn doubts(&self, rate: f64) -> bool {
        self.lowest_fail().is_none()
            || self
                .highest_pass()
                .is_none_or(|lo| rate <= lo * (1.0 + self.limits.precision))
    }

    /// The failure (its index in `probes`) the next probe runs again, if any.
    pub fn awaiting_repeat(&self) -> Option<usize> {
        self.awaiting
    }

    /// True when the failure at `index` in `probes` was run again and the repeat
    /// passed.
    pub fn is_unconfirmed(&self, index: usize) -> bool {
        self.unconfirmed.contains(&index)
    }

    /// The failures that count: every failed probe but the unconfirmed ones.
    fn failures(&self) -> impl Iterator<Item = f64> + '_ {
        self.probes
            .iter()
            .enumerate()
            .filter(|(i, (_, ok))| !ok && !self.unconfirmed.contains(i))
            .map(|(_, (r, _))| *r)
    }

    /// The lowest rate that failed a probe (a failure not confirmed aside).
    pub fn lowest_fail(&self) -> Option<f64> {
        self.failures().min_by(f64::total_cmp)
    }

    fn failed_at(&self, rate: f64) -> bool {
        self.failures().any(|r| r == rate)
    }

    /// The answer so far: the highest rate whose every probe passed (but an unconfirmed
    /// failure), below the lowest fail (a pass above a fail is not trusted).
    pub fn highest_pass(&self) -> Option<f64> {
        let hi = self.lowest_fail();
        self.probes
            .iter()
            .filter(|(r, ok)| *ok && !self.failed_at(*r) && hi.is_none_or(|h| *r < h))
            .map(|(r, _)| *r)
            .max_by(f64::total_cmp)
    }

    /// True when `rate` passed more than once (and never failed, but unconfirmed).
    pub fn confirmed(&self, rate: f64) -> bool {
        !self.failed_at(rate)
            && self
                .probes
                .iter()
                .filter(|(r, ok)| *r == rate && *ok)
                .count()
                > 1
    }

    pub fn next(&self) -> Next {
        let l = &self.limits;
        let lo = self.highest_pass();
        let hi = self.lowest_fail();
        if self.probes.len() + self.inconclusive >= l.max_probes {
            return Next::Done(if lo.is_some() {
                Ended::MaxProbes
            } else {
                Ended::NonePassed
            });
        }
        // A doubted failure runs again before the bracket moves on it.
        if let Some(failure) = self.awaiting {
            return Next::Probe(self.probes[failure].0);
        }
        match (lo, hi) {
            (None, None) => Next::Probe(l.start_rate.min(l.max_rate)),
            (None, Some(h)) => {
                let r = h / l.growth;
                if r < l.min_rate {
                    Next::Done(Ended::NonePassed)
                } else {
                    Next::Probe(r)
                }
            }
            (Some(lo), None) if lo >= l.max_rate => self.confirm(lo, Ended::MaxRate),
            (Some(lo), None) => Next::Probe((lo * l.growth).min(l.max_rate)),
            (Some(lo), Some(h)) if h <= lo * (1.0 + l.precision) => {
                self.confirm(lo, Ended::Converged)
            }
            (Some(lo), Some(h)) => Next::Probe((lo + h) / 2.0),
        }
    }

    fn confirm(&self, lo: f64, then: Ended) -> Next {
        if self.confirmed(lo) {
            Next::Done(then)
        } else {
            Next::Probe(lo)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::threshold::tests_support::step;

    fn limits() -> Limits {
        Limits {
            start_rate: 100.0,
            max_rate: 1e6,
            min_rate: 1.0,
            growth: 2.0,
            precision: 0.05,
            max_probes: 30,
        }
    }

    /// Runs a search whose probe at a rate passes as `passes(rate, nth)` says, `nth`
    /// counting the earlier probes at that rate.
    fn search_by(l: Limits, mut passes: impl FnMut(f64, usize) -> bool) -> (Search, Ended) {
        let mut s = Search::new(l);
        loop {
            match s.next() {
                Next::Probe(r) => {
                    let nth = s.probes.iter().filter(|(x, _)| *x == r).count();
                    s.record(r, passes(r, nth));
                }
                Next::Done(e) => return (s, e),
            }
        }
    }

    /// Runs a search against a server that sustains exactly `capacity`, each rate in
    /// `flaky` failing its first probe as noise.
    fn search(capacity: f64, flaky: &[f64], l: Limits) -> (Search, Ended) {
        search_by(l, |r, nth| {
            r <= capacity && !(nth == 0 && flaky.contains(&r))
        })
    }

    #[test]
    fn grows_then_bisects_then_confirms_on_the_safe_side() {
        for capacity in [150.0, 999.0, 1000.0, 12_345.0, 77.0] {
            let (s, ended) = search(capacity, &[], limits());
            let answer = s.highest_pass().expect("an answer");
            assert_eq!(ended, Ended::Converged, "{capacity}: {:?}", s.probes);
            assert!(answer <= capacity, "{capacity}: {answer}");
            assert!(
                answer >= capacity / 1.05,
                "{capacity}: {answer} {:?}",
                s.probes
            );
            assert!(s.confirmed(answer));
            assert!(s.lowest_fail().unwrap() <= answer * 1.05);
            assert!(s.probes.len() <= 16, "{:?}", s.probes);
        }
    }

    #[test]
    fn a_confirmed_failure_is_never_the_answer() {
        // The calm search's answer passes once, then fails twice (its confirmation and
        // that failure's repeat): the search goes on below it.
        let (calm, _) = search(1000.0, &[], limits());
        let first = calm.highest_pass().expect("an answer");
        let (s, _) = search_by(limits(), |r, nth| r <= 1000.0 && !(r == first && nth > 0));
        let at_first: Vec<_> = s.probes.iter().filter(|(r, _)| *r == first).collect();
        assert_eq!(
            at_first,
            [&(first, true), &(first, false), &(first, false)],
            "{:?}",
            s.probes
        );
        let answer = s.highest_pass().expect("an answer");
        assert!(answer < first && s.confirmed(answer), "{:?}", s.probes);
        assert!(s.probes.iter().all(|(r, ok)| *ok || *r != answer));
    }

    /// Regression (a machine stall failed a low probe for good): the first probe, at
    /// 470/s, ended with nothing for 2.5 s, and the search answered 220/s for a target
    /// that held far more. A failure with nothing passed yet is run again first.
    #[test]
    fn a_stall_in_the_first_probe_is_run_again_and_lowers_nothing() {
        let (s, ended) = search(1000.0, &[100.0], limits());
        assert_eq!(&s.probes[..2], [(100.0, false), (100.0, true)]);
        assert!(s.is_unconfirmed(0) && s.awaiting_repeat().is_none());
        let answer = s.highest_pass().expect("an answer");
        assert_eq!(ended, Ended::Converged);
        assert!((1000.0 / 1.05..=1000.0).contains(&answer), "{:?}", s.probes);
        // One probe more than the search without the stall.
        let (calm, _) = search(1000.0, &[], limits());
        assert_eq!(s.probes.len(), calm.probes.len() + 1);
    }

    /// A stall in the growth, far above every pass: its failure was taken as the
    /// target's, and capped the answer under 3,200/s for a target of 12,345/s. The
    /// first failure is run again, so the growth goes on.
    #[test]
    fn a_stall_that_ends_the_growth_is_run_again_and_the_growth_goes_on() {
        let (s, ended) = search(12_345.0, &[1600.0], limits());
        let at: Vec<_> = s.probes.iter().filter(|(r, _)| *r == 1600.0).collect();
        assert_eq!(
            at[..2],
            [&(1600.0, false), &(1600.0, true)],
            "{:?}",
            s.probes
        );
        let answer = s.highest_pass().expect("an answer");
        assert_eq!(ended, Ended::Converged);
        assert!(
            (12_345.0 / 1.05..=12_345.0).contains(&answer),
            "{:?}",
            s.probes
        );
        // The calm search pays one probe for it: the repeat of the growth's end.
        let (calm, _) = search(12_345.0, &[], limits());
        let first_fail = calm.probes.iter().position(|p| !p.1).expect("a failure");
        assert_eq!(
            calm.probes[first_fail + 1],
            calm.probes[first_fail],
            "{:?}",
            calm.probes
        );
    }

    #[test]
    fn a_stall_in_the_answers_confirmation_is_run_again_and_the_answer_stands() {
        let (calm, _) = search(1000.0, &[], limits());
        let answer = calm.highest_pass().expect("an answer");
        // The answer's second probe fails once; its third passes.
        let (s, ended) = search_by(limits(), |r, nth| r <= 1000.0 && !(r == answer && nth == 1));
        assert_eq!(ended, Ended::Converged);
        assert_eq!(s.highest_pass(), Some(answer), "{:?}", s.probes);
        assert!(s.confirmed(answer));
        assert_eq!(s.probes.len(), calm.probes.len() + 1, "{:?}", s.probes);
    }

    #[test]
    fn a_real_failure_costs_at_most_one_more_probe_at_its_rate() {
        for capacity in [150.0, 999.0, 1000.0, 12_345.0, 77.0, 0.5] {
            let (s, _) = search(capacity, &[], limits());
            let fails_at = |rate: f64| s.probes.iter().filter(|(r, ok)| *r == rate && !ok).count();
            for (rate, _) in &s.probes {
                assert!(fails_at(*rate) <= 2, "{capacity}: {:?}", s.probes);
            }
            // Far above every pass before it, a failure after the first is what the
            // search expects and is not run again.
            let failures = s.probes.iter().enumerate().filter(|(_, p)| !p.1);
            for (i, (rate, ok)) in failures.skip(2) {
                let before = s.probes[..i].iter().filter(|(r, ok)| *ok && r < rate);
                let lo = before.map(|(r, _)| *r).max_by(f64::total_cmp);
                if lo.is_some_and(|lo| rate / lo > 1.05) {
                    assert_ne!(s.probes.get(i + 1), Some(&(*rate, *ok)), "{capacity}");
                }
            }
        }
        // Nothing passes: every rate going down is failed twice, and the repeats
        // count against --max-probes.
        let (s, ended) = search(0.5, &[], limits());
        let rates: Vec<f64> = s.probes.iter().map(|(r, _)| *r).collect();
        let want: Vec<f64> = (0..7)
            .flat_map(|i| [100.0 / f64::powi(2.0, i); 2])
            .collect();
        assert_eq!(rates, want);
        assert_eq!(ended, Ended::NonePassed);
        let (s, _) = search(
            0.5,
            &[],
            Limits {
                max_probes: 3,
                ..limits()
            },
        );
        assert_eq!(s.probes.len(), 3);
    }

    #[test]
    fn bounds_end_the_search() {
        let (s, ended) = search(
            5e6,
            &[],
            Limits {
                max_rate: 1000.0,
                ..limits()
            },
        );
        assert_eq!((ended, s.highest_pass()), (Ended::MaxRate, Some(1000.0)));
        let (s, ended) = search(0.5, &[], limits());
        assert_eq!((ended, s.highest_pass()), (Ended::NonePassed, None));
        let (s, ended) = search(
            10_000.0,
            &[],
            Limits {
                max_probes: 3,
                ..limits()
            },
        );
        assert_eq!(
            (ended, s.highest_pass(), s.probes.len()),
            (Ended::MaxProbes, Some(400.0), 3)
        );
    }

    /// A part of 600 responses with a median of `p50_s` and a p90 `spread_s` above it.
    fn part(p50_s: f64, spread_s: f64) -> Part {
        Part {
            from_s: 0,
            seconds: 1,
            responses: 600,
            p50_s,
            p90_s: p50_s + spread_s,
        }
    }

    #[test]
    fn a_probe_passes_only_on_enough_samples_without_a_growing_queue() {
        let slo = vec![Threshold::parse("p99<2s").expect("valid")];
        // 1,200 responses of 1..=1200 ms, cut into two steady parts.
        let whole = step(1200, 0, 2.0);
        let (a, b) = (part(0.6, 0.48), part(0.6, 0.48));
        let p = judge_probe(&slo, 800.0, &[a.clone(), b.clone()], &whole);
        assert!(p.passed, "{p:?}");
        assert_eq!((p.responses, p.min_samples), (1200, 1000));
        let short = judge_probe(&slo, 800.0, std::slice::from_ref(&a), &step(600, 0, 1.0));
        assert!(short.too_few_samples && !short.passed && !short.queue_growing);
        // The medians rising part after part, the last above the first's p90 by more
        // than its spread: a queue building up.
        let (mid, slow) = (part(0.7, 0.1), part(1.8, 0.1));
        let p = judge_probe(&slo, 800.0, &[a.clone(), mid, slow.clone()], &whole);
        assert!(p.queue_growing && !p.passed && p.failed.is_empty());
        assert_eq!(p.part_p50_s, vec![0.6, 0.7, 1.8]);
        // A slow part that is not the end of a rise is noise.
        let p = judge_probe(&slo, 800.0, &[a.clone(), slow.clone(), b.clone()], &whole);
        assert!(!p.queue_growing, "{p:?}");
        // Two parts are one comparison, not a trend: one slow second of a loaded
        // machine failed a short probe at half the capacity.
        let p = judge_probe(&slo, 800.0, &[a.clone(), slow], &whole);
        assert!(!p.queue_growing && p.passed, "{p:?}");
        let tight = vec![Threshold::parse("p99<100ms").expect("valid")];
        let p = judge_probe(&tight, 800.0, &[a, b], &whole);
        assert_eq!(p.failed[0].threshold, "p99<100ms");
        assert!(!p.passed);
    }

    /// A timeline second in which `n` responses of `ms` ms each ended.
    fn second(at: u64, n: u64, ms: u64) -> crate::result::timeline::SecondResult {
        let mut h = second_histogram();
        h.record_n(ms * 1000, n).expect("in range");
        crate::result::timeline::SecondResult {
            second: at,
            responses: n,
            p50_s: ms as f64 / 1e3,
            histogram: crate::result::encode_histogram(&h),
            ..Default::default()
        }
    }

    /// Regression (the parts dropped their queue): a probe is one step, cut afterwards
    /// from its per-second timeline, so a queue that grows through the probe shows as
    /// medians rising part after part.
    #[test]
    fn a_probe_is_cut_into_parts_of_whole_seconds_from_its_timeline() {
        let mut whole = step(1000, 0, 5.02);
        // 5 whole seconds, a queue growing by 70 ms a second, and a few responses in
        // the last 20 ms.
        let mut seconds: Vec<_> = (0..5).map(|i| second(i, 200, 136 + 70 * i)).collect();
        seconds.push(second(5, 3, 480));
        whole.timeline = Some(seconds);
        let parts = cut_parts(&whole, PARTS).expect("cuts");
        let shape: Vec<(u64, u64, u64)> = parts
            .iter()
            .map(|p| (p.from_s, p.seconds, p.responses))
            .collect();
        // 5 s in 4 parts: the longest last, holding the partial sixth second too.
        assert_eq!(
            shape,
            vec![(0, 1, 200), (1, 1, 200), (2, 1, 200), (3, 3, 403)]
        );
        // The timeline's histograms keep 2 significant digits: within 1%.
        let p50: Vec<f64> = parts.iter().map(|p| p.p50_s * 1e3).collect();
        for (got, want) in p50.iter().zip([136.0, 206.0, 276.0]) {
            assert!((got - want).abs() <= want * 0.01, "{p50:?}");
        }
        assert!((343.0..=420.0).contains(&p50[3]), "{p50:?}");
        let slo = vec![Threshold::parse("p99<2s").expect("valid")];
        let p = judge_probe(&slo, 200.0, &parts, &whole);
        assert!(p.queue_growing && !p.passed, "{p:?}");
        assert_eq!(p.part_seconds, vec![1, 1, 1, 3]);
        // Steady seconds: no trend.
        whole.timeline = Some((0..5).map(|i| second(i, 200, 136 + i % 2)).collect());
        let parts = cut_parts(&whole, PARTS).expect("cuts");
        assert!(!judge_probe(&slo, 200.0, &parts, &whole).queue_growing);
        // Shorter than the parts: one part a whole second, none under 2 s apart.
        whole.elapsed_s = 2.5;
        whole.timeline = Some((0..3).map(|i| second(i, 200, 136 + 70 * i)).collect());
        let parts = cut_parts(&whole, PARTS).expect("cuts");
        assert_eq!(parts.iter().map(|p| p.seconds).collect::<Vec<_>>(), [1, 2]);
        whole.elapsed_s = 0.5;
        whole.timeline = Some(vec![second(0, 200, 136)]);
        assert_eq!(cut_parts(&whole, PARTS).expect("cuts").len(), 1);
        // A file without a timeline: the step as one part.
        whole.timeline = None;
        let parts = cut_parts(&whole, PARTS).expect("cuts");
        assert_eq!((parts.len(), parts[0].responses), (1, 1000));
    }
}
