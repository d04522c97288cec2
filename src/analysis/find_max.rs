//! `ramp --find-max --slo …`: the highest open-model rate a server sustains within a
//! service-level objective. Two pure parts the driver ([`crate::find_max`]) runs:
//!
//! - [`judge_probe`]: one probe at one rate, run as parts back to back, passes
//!   when (1) it has enough responses for every SLO figure to be trusted
//!   ([`probe_min_samples`]: at least [`MIN_PROBE_SAMPLES`]), (2) every SLO threshold
//!   holds over the whole probe, (3) the queue did not grow: the median response time
//!   does not rise from every part to the next with the last part's median above the
//!   first part's p90 by more than that part's own spread (p90 − p50, at least
//!   [`QUEUE_MARGIN_S`]). Noise moves a part's percentiles by about its spread and
//!   in no particular direction; a growing queue moves them steadily up,
//!   (4) at most [`LATE_SHARE`] of the due requests were left unsent (else the
//!   client, not the server, set the pace; requests that left late are not a
//!   failure of their own, since their latency counts from the due time anyway). (3) is what keeps the search from
//!   overshooting: just past capacity a queue grows slowly, and a short probe's p99 can
//!   still be under the target while the rate is not sustainable at all.
//! - [`Search`]: grow the rate geometrically from the start until a probe fails, then
//!   bisect between the highest pass and the lowest fail until they are within the
//!   precision, then probe the answer again. The answer is always a rate every probe
//!   of which passed, below every rate that failed: a failed probe is never the answer.

use crate::result::find_max::{FailedThreshold, ProbeResult};
use crate::result::StepResult;
use crate::spec::threshold::Threshold;

use super::threshold::{judge, min_samples};

/// The fewest responses a probe is judged on, whatever the SLO: a p99 rests on at
/// least 10 responses beyond it (see [`super::threshold::TAIL_SAMPLES`]).
pub const MIN_PROBE_SAMPLES: u64 = 1000;
/// Below this share of the requests a server keeping up would have ended, a failed
/// probe's reasons say the server fell behind. Not a test of its own: the requests
/// cut off at a part's end are the slowest, so on a busy machine the estimate reads
/// 10% short of a server that kept up.
pub const KEPT_UP_SHARE: f64 = 0.97;
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

/// Judge a probe at `rate` from its parts (run back to back, at least two) and the
/// parts taken together. `why` is left empty for the report to word.
pub fn judge_probe(
    slo: &[Threshold],
    rate: f64,
    parts: &[&StepResult],
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
    let medians: Vec<f64> = parts.iter().map(|p| p.latency.p50_s).collect();
    let queue_growing = match (parts.first(), parts.last()) {
        (Some(first), Some(last)) if parts.len() > 1 => {
            let answered = parts.iter().all(|p| p.responses > 0);
            // Rising from part to part: a burst of noise in one part is not a trend.
            let rising = medians.windows(2).all(|w| w[1] > w[0] + QUEUE_MARGIN_S);
            let margin = (first.latency.p90_s - first.latency.p50_s).max(QUEUE_MARGIN_S);
            answered && rising && last.latency.p50_s > first.latency.p90_s + margin
        }
        _ => false,
    };
    // What a server keeping up would have ended in each part: the requests due (ended,
    // in flight or never sent), less those a steady queue holds at the cut: the rate ×
    // the mean response time (Little's law; both count from the due time).
    let expected: f64 = parts
        .iter()
        .map(|h| {
            let due = (h.total_requests + h.unfinished + h.dropped) as f64;
            (due - rate * h.latency.mean_s).max(0.0)
        })
        .sum();
    let kept_up_share = if expected > 0.0 {
        whole.total_requests as f64 / expected
    } else {
        0.0
    };
    let fell_behind = kept_up_share < KEPT_UP_SHARE;
    let due = whole.total_requests + whole.unfinished + whole.dropped;
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
        first_part_p90_s: parts.first().map_or(0.0, |p| p.latency.p90_s),
        late: whole.late,
        dropped: whole.dropped,
        client_behind,
        why: Vec::new(),
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
}

impl Search {
    pub fn new(limits: Limits) -> Search {
        Search {
            limits,
            probes: Vec::new(),
            inconclusive: 0,
        }
    }

    /// A probe that could not be judged: run the same rate again, longer.
    pub fn record_inconclusive(&mut self) {
        self.inconclusive += 1;
    }

    pub fn record(&mut self, rate: f64, passed: bool) {
        self.probes.push((rate, passed));
    }

    /// The lowest rate that failed any probe.
    pub fn lowest_fail(&self) -> Option<f64> {
        self.probes
            .iter()
            .filter(|(_, ok)| !ok)
            .map(|(r, _)| *r)
            .min_by(f64::total_cmp)
    }

    fn failed_at(&self, rate: f64) -> bool {
        self.probes.iter().any(|(r, ok)| *r == rate && !ok)
    }

    /// The answer so far: the highest rate whose every probe passed, below the lowest
    /// fail (a pass above a fail is not trusted).
    pub fn highest_pass(&self) -> Option<f64> {
        let hi = self.lowest_fail();
        self.probes
            .iter()
            .filter(|(r, ok)| *ok && !self.failed_at(*r) && hi.is_none_or(|h| *r < h))
            .map(|(r, _)| *r)
            .max_by(f64::total_cmp)
    }

    /// True when `rate` passed more than once (and never failed).
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

    /// Runs a search against a server that sustains exactly `capacity`, with probes
    /// at listed rates failing once as noise.
    fn search(capacity: f64, flaky: &[f64], l: Limits) -> (Search, Ended) {
        let mut s = Search::new(l);
        let mut flaked = Vec::new();
        loop {
            match s.next() {
                Next::Probe(r) => {
                    let noise = flaky.contains(&r) && !flaked.contains(&r);
                    if noise {
                        flaked.push(r);
                    }
                    s.record(r, r <= capacity && !noise);
                }
                Next::Done(e) => return (s, e),
            }
        }
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
    fn a_failed_probe_is_never_the_answer() {
        // The answer's confirmation fails once: the search goes on below it.
        let (s, _) = search(1000.0, &[1000.0, 975.0, 937.5], limits());
        let answer = s.highest_pass().expect("an answer");
        assert!(
            s.probes.iter().all(|(r, ok)| *ok || *r != answer),
            "{:?}",
            s.probes
        );
        assert!(answer < 1000.0 && s.confirmed(answer));
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

    #[test]
    fn a_probe_passes_only_on_enough_samples_without_a_growing_queue() {
        let slo = vec![Threshold::parse("p99<2s").expect("valid")];
        // Two parts of 1..=600 ms: steady.
        let (a, b) = (step(600, 0, 1.0), step(600, 0, 1.0));
        let whole = crate::analysis::threshold::combine(&[&a, &b], 2)
            .unwrap()
            .unwrap();
        let p = judge_probe(&slo, 800.0, &[&a, &b], &whole);
        assert!(p.passed, "{p:?}");
        assert_eq!((p.responses, p.min_samples), (1200, 1000));
        let short = judge_probe(&slo, 800.0, &[&a, &a], &a);
        assert!(short.too_few_samples && !short.passed);
        // The medians rising part after part, the last above the first's p90: a queue
        // building up.
        let (mut mid, mut slow) = (step(600, 0, 1.0), step(600, 0, 1.0));
        mid.latency.p50_s = 0.7;
        slow.latency.p50_s = 1.5;
        let p = judge_probe(&slo, 800.0, &[&a, &mid, &slow], &whole);
        assert!(p.queue_growing && !p.passed && p.failed.is_empty());
        // A slow part that is not the end of a rise is noise.
        let p = judge_probe(&slo, 800.0, &[&a, &slow, &b], &whole);
        assert!(!p.queue_growing, "{p:?}");
        let tight = vec![Threshold::parse("p99<100ms").expect("valid")];
        let p = judge_probe(&tight, 800.0, &[&a, &b], &whole);
        assert_eq!(p.failed[0].threshold, "p99<100ms");
        assert!(!p.passed);
    }
}
