//! A rate profile judged segment by segment (`--rate 2s@5000,1s@60000,3s@5000`): a
//! step's mean rate hides a spike inside it, so each segment is read on the seconds
//! it covers — what was due in them, what was answered, how many requests left late,
//! its p99 — and held only when those seconds kept up; a step's profile is held only
//! where every segment was. After a segment not held, the first second back at the
//! offered rate with lateness gone is when the server recovered.
//!
//! Seconds are the step's timeline entries; each goes to the segment that covers most
//! of it (a segment shorter than a second is judged with the second it falls in), and
//! what was due in a second is the profile's integral over it, whichever segments it
//! spans. Pure: numbers only, the sentences are `report::findings`'.

use crate::result::profile::{ProfileVerdict, RateSegment, SegmentVerdict};
use crate::result::timeline::SecondResult;
use crate::result::StepResult;

use super::rate::HELD_SHARE;

/// The mean lag (pacer lag over the requests due) a held second or segment may have,
/// seconds. A backlog makes requests hundreds of milliseconds late; a busy load
/// machine makes a few of them a millisecond or two late, which is not the server's
/// doing, so the count of late requests (past 1 ms) is told but not the test.
pub const LAG_LIMIT_S: f64 = 0.005;

/// Held: nearly all that was due answered, and requests left on time on average.
fn kept_up(ok: u64, offered: f64, lag_sum_us: u64) -> bool {
    ok as f64 >= offered * HELD_SHARE && lag_sum_us as f64 / 1e6 <= offered * LAG_LIMIT_S
}

/// A second answering more than this share of its offered requests (plus
/// [`CATCH_UP_SLACK`]) is still draining a backlog: not yet back at the rate.
const CATCH_UP_SHARE: f64 = 1.05;
const CATCH_UP_SLACK: f64 = 2.0;

/// The step's profile judged, when it has one and a timeline.
pub fn judge(step: &StepResult) -> Option<ProfileVerdict> {
    let profile = step.profile.as_ref().filter(|p| !p.segments.is_empty())?;
    let seconds = step.timeline.as_deref()?;
    Some(judge_seconds(&profile.segments, seconds, step.elapsed_s))
}

/// Judge every step's profile and keep the verdicts in the result (its JSON says
/// them), replacing any an earlier reading kept.
pub fn judge_steps(run: &mut crate::result::RunResult) {
    for step in &mut run.steps {
        let verdict = judge(step);
        if let Some(p) = step.profile.as_mut() {
            p.verdict = verdict;
        }
    }
}

/// One second as the verdict reads it.
#[derive(Debug, Clone, Copy)]
struct Sec<'a> {
    s: &'a SecondResult,
    offered: f64,
    /// The segment it belongs to.
    segment: usize,
}

impl Sec<'_> {
    fn kept_up(&self) -> bool {
        kept_up(self.s.ok(), self.offered, self.s.pacer_lag_sum_us)
    }

    /// Kept up, and not answering a backlog on top of the rate.
    fn back(&self) -> bool {
        self.kept_up() && (self.s.ok() as f64) <= self.offered * CATCH_UP_SHARE + CATCH_UP_SLACK
    }
}

/// `segments` judged on `seconds`, a step of `elapsed_s`.
pub fn judge_seconds(
    segments: &[RateSegment],
    seconds: &[SecondResult],
    elapsed_s: f64,
) -> ProfileVerdict {
    let end = segments
        .last()
        .map_or(0.0, RateSegment::end_s)
        .min(elapsed_s);
    let secs: Vec<Sec> = seconds
        .iter()
        .filter_map(|s| {
            let (a, b) = (s.second as f64, (s.second + s.span_s.max(1)) as f64);
            // A second the step did not reach whole is left out (a cut-short end).
            if b > end + 1e-6 && a + (b - a) / 2.0 >= end {
                return None;
            }
            let segment = widest_overlap(segments, a, b.min(end))?;
            let offered = segments.iter().map(|g| g.due_between(a, b.min(end))).sum();
            Some(Sec {
                s,
                offered,
                segment,
            })
        })
        .collect();
    let counted = secs.iter().any(|s| s.s.sent > 0);
    let verdicts: Vec<SegmentVerdict> = (0..segments.len())
        .map(|k| {
            let mut v = segment_verdict(k, &secs);
            if counted && v.seconds > 0 {
                v.unsent_at_end = Some(unsent_by(&secs, v.first_second + v.seconds));
            }
            v
        })
        .collect();
    ProfileVerdict {
        held: verdicts.iter().all(|v| v.held),
        segments: verdicts,
    }
}

/// Requests due before second `end` that had not left by then.
fn unsent_by(secs: &[Sec], end: u64) -> u64 {
    let before = secs.iter().filter(|s| s.s.second < end);
    let due: f64 = before.clone().map(|s| s.offered).sum();
    let sent: u64 = before.map(|s| s.s.sent).sum();
    (due.round() as u64).saturating_sub(sent)
}

/// The segment covering most of `[a, b)`; on a tie, the later one.
fn widest_overlap(segments: &[RateSegment], a: f64, b: f64) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (k, g) in segments.iter().enumerate() {
        let overlap = b.min(g.end_s()) - a.max(g.start_s);
        if overlap > 0.0 && best.is_none_or(|(_, o)| overlap >= o) {
            best = Some((k, overlap));
        }
    }
    best.map(|(k, _)| k)
}

fn segment_verdict(k: usize, secs: &[Sec]) -> SegmentVerdict {
    let mine: Vec<&Sec> = secs.iter().filter(|s| s.segment == k).collect();
    let offered: f64 = mine.iter().map(|s| s.offered).sum();
    let ok: u64 = mine.iter().map(|s| s.s.ok()).sum();
    let failed: u64 = mine
        .iter()
        .map(|s| s.s.bad_status.min(s.s.responses) + s.s.error_total())
        .sum();
    let late: u64 = mine.iter().map(|s| s.s.late).sum();
    let lag_sum_us: u64 = mine.iter().map(|s| s.s.pacer_lag_sum_us).sum();
    let held = mine.is_empty() || kept_up(ok, offered, lag_sum_us);
    // Back after the segment's last second that did not keep up (within it, when the
    // server caught up before it ended; after it, when it was behind to its end).
    let last_behind = mine
        .iter()
        .rev()
        .find(|s| !s.kept_up())
        .or(mine.first())
        .map(|s| s.s.second + s.s.span_s.max(1));
    let recovered_at_s = match (held, last_behind) {
        (false, Some(after)) => secs
            .iter()
            .find(|s| s.s.second >= after && s.back())
            .map(|s| s.s.second),
        _ => None,
    };
    SegmentVerdict {
        first_second: mine.first().map_or(0, |s| s.s.second),
        seconds: mine.iter().map(|s| s.s.span_s.max(1)).sum(),
        offered,
        ok,
        failed,
        late,
        unsent_at_end: None,
        mean_lag_s: (offered > 0.0 && lag_sum_us > 0).then(|| lag_sum_us as f64 / 1e6 / offered),
        p99_s: p99(&mine),
        held,
        recovered: (!held).then_some(recovered_at_s.is_some()),
        recovered_at_s,
    }
}

/// The p99 of every response that ended in these seconds, from their histograms
/// added together; `None` without any (or with a histogram that does not decode).
fn p99(secs: &[&Sec]) -> Option<f64> {
    let mut all: Option<hdrhistogram::Histogram<u64>> = None;
    for s in secs.iter().filter(|s| s.s.responses > 0) {
        let h = crate::result::decode_histogram(&s.s.histogram).ok()?;
        match all.as_mut() {
            Some(a) => a.add(&h).ok()?,
            None => all = Some(h),
        }
    }
    all.filter(|h| !h.is_empty())
        .map(|h| h.value_at_quantile(0.99) as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::profile::RateSegment;

    fn seg(start_s: f64, duration_s: f64, rate: f64) -> RateSegment {
        RateSegment {
            start_s,
            duration_s,
            from: rate,
            to: rate,
        }
    }

    /// A second with `ok` 200s, `late` of them sent 100 ms late, each taking `ms`.
    fn sec(second: u64, ok: u64, late: u64, ms: u64) -> SecondResult {
        let mut h = crate::stats::new_histogram();
        if ok > 0 {
            h.record_n(ms * 1000, ok).unwrap();
        }
        SecondResult {
            second,
            responses: ok,
            statuses: [(200, ok)].into_iter().filter(|_| ok > 0).collect(),
            late,
            sent: ok,
            pacer_lag_sum_us: late * 100_000,
            histogram: crate::result::encode_histogram(&h),
            ..SecondResult::default()
        }
    }

    /// The spike: 2 s at 100/s, 1 s at 400/s, 3 s at 100/s against a server
    /// of 200/s.
    fn spike() -> Vec<RateSegment> {
        vec![
            seg(0.0, 2.0, 100.0),
            seg(2.0, 1.0, 400.0),
            seg(3.0, 3.0, 100.0),
        ]
    }

    #[test]
    fn a_spike_the_mean_hides_is_not_held_and_its_recovery_is_found() {
        // The step's mean (150/s) was answered in all; the spike second was not.
        let secs = [
            sec(0, 100, 0, 10),
            sec(1, 100, 0, 10),
            sec(2, 200, 150, 500),
            sec(3, 200, 90, 900),
            sec(4, 160, 20, 300),
            sec(5, 100, 0, 12),
        ];
        let v = judge_seconds(&spike(), &secs, 6.001);
        assert!(!v.held);
        let s = &v.segments[1];
        assert_eq!((s.first_second, s.seconds, s.ok, s.late), (2, 1, 200, 150));
        assert!(!s.held);
        assert!((s.offered - 400.0).abs() < 1e-9);
        assert!((s.p99_s.unwrap() - 0.5).abs() < 0.01, "{:?}", s.p99_s);
        // 600 due by its end, 400 sent: 200 waiting for a client.
        assert_eq!(s.unsent_at_end, Some(200));
        // Seconds 3 and 4 answer the backlog (late, or above the rate): back at 5.
        assert_eq!((s.recovered, s.recovered_at_s), (Some(true), Some(5)));
        assert!(v.segments[0].held);
        assert_eq!(v.segments[0].recovered, None);
        // The last segment's first seconds were late and over the rate: not held
        // either, back within it.
        assert!(!v.segments[2].held);
        assert_eq!(v.segments[2].recovered_at_s, Some(5));
    }

    #[test]
    fn a_spike_never_recovered_from_says_so() {
        let secs = [
            sec(0, 100, 0, 10),
            sec(1, 100, 0, 10),
            sec(2, 200, 150, 500),
            sec(3, 120, 90, 900),
            sec(4, 110, 80, 950),
            sec(5, 105, 70, 990),
        ];
        let v = judge_seconds(&spike(), &secs, 6.0);
        assert_eq!(v.segments[1].recovered, Some(false));
        assert_eq!(v.segments[1].recovered_at_s, None);
    }

    #[test]
    fn a_profile_kept_up_with_is_held_with_a_few_late() {
        // Each second a tenth of the requests a millisecond and a half late: a busy
        // load machine, not a backlog.
        let secs: Vec<SecondResult> = [100, 100, 399, 101, 100, 100]
            .iter()
            .enumerate()
            .map(|(i, &n)| SecondResult {
                pacer_lag_sum_us: n / 10 * 1500,
                ..sec(i as u64, n, n / 10, 10)
            })
            .collect();
        let v = judge_seconds(&spike(), &secs, 6.002);
        assert!(v.held, "{v:?}");
        assert!(v.segments.iter().all(|s| s.recovered.is_none()));
        // A trailing second with a straggler is past the profile: not judged.
        let mut more = secs.clone();
        more.push(sec(6, 1, 0, 10));
        assert_eq!(judge_seconds(&spike(), &more, 6.002), v);
    }

    #[test]
    fn seconds_go_to_the_segment_covering_most_of_them() {
        // 1.5 s at 10/s then 1.5 s at 30/s: second 1 is shared (0.5 s each; the later
        // segment takes the tie) and offers 5 + 15.
        let g = [seg(0.0, 1.5, 10.0), seg(1.5, 1.5, 30.0)];
        let secs = [sec(0, 10, 0, 5), sec(1, 20, 0, 5), sec(2, 30, 0, 5)];
        let v = judge_seconds(&g, &secs, 3.0);
        assert_eq!((v.segments[0].first_second, v.segments[0].seconds), (0, 1));
        assert_eq!((v.segments[1].first_second, v.segments[1].seconds), (1, 2));
        assert!((v.segments[1].offered - 50.0).abs() < 1e-9);
        assert!(v.held);
    }

    #[test]
    fn a_step_cut_short_judges_what_it_reached() {
        // Stopped at 2.4 s: second 2 is mostly missing, the spike never judged.
        let secs = [sec(0, 100, 0, 10), sec(1, 100, 0, 10), sec(2, 40, 0, 10)];
        let v = judge_seconds(&spike(), &secs, 2.4);
        assert!(v.held);
        assert_eq!(v.segments[1].seconds, 0);
        assert_eq!(v.segments[2].seconds, 0);
    }

    #[test]
    fn a_linear_segment_offers_its_integral() {
        let g = RateSegment {
            start_s: 0.0,
            duration_s: 2.0,
            from: 0.0,
            to: 200.0,
        };
        assert!((g.due_between(0.0, 1.0) - 50.0).abs() < 1e-9);
        assert!((g.due_between(1.0, 2.0) - 150.0).abs() < 1e-9);
        assert_eq!(g.text(), "2s@0..200");
        assert_eq!(seg(2.0, 1.0, 60000.0).text(), "1s@60000");
    }
}
