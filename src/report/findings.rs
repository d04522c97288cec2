//! The sentences of the reports: what the analysis found about a run, and how runs
//! compare, said in words. The analysis returns numbers and findings; every report
//! (terminal, HTML, Markdown, the end of a ramp, comparisons) words them through here,
//! so they say the same thing the same way.

use std::fmt;

use crate::analysis::{
    RateFindings, Saturation, SetupDifference, Warning, CLIENT_CPU_LIMIT, KNEE_FACTOR, MIN_POINTS,
    PLATEAU_SHARE,
};
use crate::report::fmt::{clients, fmt_latency, fmt_qps, fmt_share, Work};
use crate::result::series::Series;
use crate::result::RunState;

pub mod compare;
pub use compare::{compare_sentences, ratio, CompareRow};
pub mod phases;
pub mod profile;

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::FewPoints { n } => write!(
                f,
                "only {n} step{} with clients: a saturation curve needs at least {MIN_POINTS}; \
                 use a smaller --step or a larger --end-n-clients",
                if *n == 1 { "" } else { "s" }
            ),
            Warning::PoorFit {
                r_squared,
                rel_error,
            } => write!(
                f,
                "the Universal Scalability Law fits poorly (R² = {r_squared:.2}, off by {:.0}% \
                 of the peak on a typical step): the curve is noisy or shaped by something \
                 else (errors, cache warm-up, a client limit), so its predictions are rough",
                rel_error * 100.0
            ),
            Warning::StillRising { last_clients } => write!(
                f,
                "throughput was still at its highest at the last step ({}): \
                 the data stop before the peak; raise --end-n-clients",
                clients(*last_clients)
            ),
            Warning::NoKnee { last_clients } => write!(
                f,
                "mean latency never reached {KNEE_FACTOR}× its lowest-load value up to \
                 {}: the data stop before the knee; raise --end-n-clients",
                clients(*last_clients)
            ),
            Warning::ClientBottleneck { steps } => {
                let list: Vec<String> = steps
                    .iter()
                    .map(|(n, s)| {
                        format!(
                            "{n} client{} ({:.0}%)",
                            if *n == 1 { "" } else { "s" },
                            s * 100.0
                        )
                    })
                    .collect();
                write!(
                    f,
                    "hakaru itself used over {:.0}% of the load machine's CPU at {}: \
                     these numbers may be the client's limit, not the server's; run hakaru \
                     on a bigger machine or on several machines",
                    CLIENT_CPU_LIMIT * 100.0,
                    list.join(", ")
                )
            }
            Warning::Incomplete(state) => f.write_str(incomplete(*state)),
            Warning::StartedLate { steps } => write!(f, "{}", started_late(steps)),
        }
    }
}

/// What kind of run a result is, for which warnings apply to it: the saturation
/// curve's (too few steps, a poor fit, still rising, no knee) are a client ramp's
/// only. A scenario's phases are different workloads, a search's probes rates in no
/// order and an open-model run is read by rate, so none of them is a curve over clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    ClientRamp,
    OpenModel,
    FindMax,
    Suite,
}

impl RunKind {
    /// The kind of `s`, with what hakaru's JSON result (`run`, when there is one) keeps.
    pub fn of(s: &Series, run: Option<&crate::result::RunResult>) -> Self {
        use crate::result::series::PointsAre;
        match (run, s.points_are) {
            (Some(r), _) if r.suite.is_some() => RunKind::Suite,
            (Some(r), _) if r.find_max.is_some() => RunKind::FindMax,
            (_, PointsAre::Phases) => RunKind::Suite,
            (_, PointsAre::Probes) => RunKind::FindMax,
            _ if s.is_open_model() => RunKind::OpenModel,
            _ => RunKind::ClientRamp,
        }
    }

    /// Whether `w` means something for a run of this kind.
    pub fn applies(self, w: &Warning) -> bool {
        match w {
            Warning::Incomplete(_)
            | Warning::StartedLate { .. }
            | Warning::ClientBottleneck { .. } => true,
            Warning::FewPoints { .. }
            | Warning::PoorFit { .. }
            | Warning::StillRising { .. }
            | Warning::NoKnee { .. } => self == RunKind::ClientRamp,
        }
    }

    /// The warnings of the analysis of `s` that apply to a run of this kind.
    pub fn warnings(self, s: &Series) -> Vec<Warning> {
        crate::analysis::analyse(s)
            .warnings
            .into_iter()
            .filter(|w| self.applies(w))
            .collect()
    }
}

/// `--start-at`: which steps started late, and what it means for a merged result.
pub fn started_late(steps: &[(usize, f64)]) -> String {
    let list: Vec<String> = steps
        .iter()
        .map(|(i, s)| format!("step {i} by {s:.3} s"))
        .collect();
    format!(
        "started after the --start-at schedule: {}; on several load machines those \
         steps did not run fully together, so the merged step never carried its whole load at once",
        list.join(", ")
    )
}

/// The warnings of several runs, one sentence per problem rather than one per run:
/// "throughput was still at its highest at the last step of a (20 clients) and b
/// (18 clients): …". A problem of a single run reads as "<label>: <warning>".
pub fn grouped_warnings(items: &[(String, Warning)]) -> Vec<String> {
    // Same kind of problem (and, for an incomplete run, the same state).
    type Kind = (std::mem::Discriminant<Warning>, Option<RunState>);
    fn key(w: &Warning) -> Kind {
        match w {
            Warning::Incomplete(s) => (std::mem::discriminant(w), Some(*s)),
            _ => (std::mem::discriminant(w), None),
        }
    }
    let mut kinds: Vec<(Kind, Vec<&(String, Warning)>)> = Vec::new();
    for it in items {
        match kinds.iter_mut().find(|(k, _)| *k == key(&it.1)) {
            Some((_, v)) => v.push(it),
            None => kinds.push((key(&it.1), vec![it])),
        }
    }
    kinds
        .into_iter()
        .map(|(_, runs)| match runs.as_slice() {
            [(label, w)] => format!("{label}: {w}"),
            many => grouped(many),
        })
        .collect()
}

/// Compared bulk writes that differ in what was written or how, in one line: "these
/// bulk runs differ in document (a {"n":1} (7 B), b … (1024 B)) and verify (a on, b
/// off): …". None when they do not.
pub fn bulk_difference_line(diffs: &[crate::analysis::BulkDifference]) -> Option<String> {
    if diffs.is_empty() {
        return None;
    }
    let parts: Vec<String> = diffs
        .iter()
        .map(|d| {
            let each: Vec<String> = d.values.iter().map(|(l, v)| format!("{l} {v}")).collect();
            format!("{} ({})", d.what, each.join(", "))
        })
        .collect();
    Some(format!(
        "these bulk runs differ in {}: their documents per second measure different work, \
         so the comparison may not mean what it seems",
        and_list(&parts)
    ))
}

/// "a (20 clients), b (18 clients) and c (20 clients)".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn grouped(runs: &[&(String, Warning)]) -> String {
    let each = |f: &dyn Fn(&Warning) -> String| {
        and_list(
            &runs
                .iter()
                .map(|(l, w)| format!("{l} ({})", f(w)))
                .collect::<Vec<_>>(),
        )
    };
    let labels = and_list(&runs.iter().map(|(l, _)| l.clone()).collect::<Vec<_>>());
    match &runs[0].1 {
        Warning::FewPoints { .. } => format!(
            "too few steps with clients in {}: a saturation curve needs at least \
             {MIN_POINTS}; use a smaller --step or a larger --end-n-clients",
            each(&|w| match w {
                Warning::FewPoints { n } => n.to_string(),
                _ => String::new(),
            })
        ),
        Warning::PoorFit { .. } => format!(
            "the Universal Scalability Law fits poorly for {}: those curves are noisy or \
             shaped by something else (errors, cache warm-up, a client limit), so their \
             predictions are rough",
            each(&|w| match w {
                Warning::PoorFit {
                    r_squared,
                    rel_error,
                } => format!("R² = {r_squared:.2}, off by {:.0}%", rel_error * 100.0),
                _ => String::new(),
            })
        ),
        Warning::StillRising { .. } => format!(
            "throughput was still at its highest at the last step of {}: the data stop \
             before the peak; raise --end-n-clients",
            each(&|w| match w {
                Warning::StillRising { last_clients } => clients(*last_clients),
                _ => String::new(),
            })
        ),
        Warning::NoKnee { .. } => format!(
            "mean latency never reached {KNEE_FACTOR}× its lowest-load value in {}: the \
             data stop before the knee; raise --end-n-clients",
            each(&|w| match w {
                Warning::NoKnee { last_clients } => format!("up to {}", clients(*last_clients)),
                _ => String::new(),
            })
        ),
        Warning::ClientBottleneck { .. } => format!(
            "hakaru itself used over {:.0}% of the load machine's CPU in {}: these numbers \
             may be the client's limit, not the server's; run hakaru on a bigger machine or \
             on several machines",
            CLIENT_CPU_LIMIT * 100.0,
            each(&|w| match w {
                Warning::ClientBottleneck { steps } => {
                    let n: Vec<String> = steps.iter().map(|(n, _)| n.to_string()).collect();
                    format!("at {} clients", n.join(", "))
                }
                _ => String::new(),
            })
        ),
        Warning::Incomplete(state) => format!("{labels}: {}", incomplete(*state)),
        // Which steps were late differs per run: one sentence per run, joined.
        Warning::StartedLate { .. } => runs
            .iter()
            .map(|(l, w)| format!("{l}: {w}"))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// Why a run's numbers are not the whole run, by its state.
pub fn incomplete(state: RunState) -> &'static str {
    match state {
        RunState::Running => {
            "this result is INCOMPLETE: its file was written while the run was still \
             going, and nothing wrote it again (the run was killed, or is still running); \
             steps after the last one here are missing"
        }
        RunState::Interrupted => {
            "this result is INCOMPLETE: the run was interrupted, so later steps are \
             missing and its last step may be short"
        }
        RunState::Failed => {
            "this result is INCOMPLETE: a step failed and the run stopped there; that \
             step's numbers are incomplete"
        }
        RunState::Complete => "the run finished every step",
    }
}

/// The saturation summary in plain sentences, for reports and the end of a ramp.
/// What differs between compared runs, in words: a warning for a difference that
/// changes what the numbers mean, a plain note for the targets.
pub fn difference_sentence(d: &SetupDifference) -> String {
    fn each<T>(v: &[(String, T)], f: impl Fn(&T) -> String) -> String {
        v.iter()
            .map(|(label, x)| format!("{label} {}", f(x)))
            .collect::<Vec<_>>()
            .join(", ")
    }
    match d {
        SetupDifference::OpenModel(v) => format!(
            "these runs differ in load model ({}): steps by rate and steps by clients do \
             not share an axis, so the overlay and the ratios compare different things",
            each(v, |open| {
                if *open {
                    "open, by rate"
                } else {
                    "closed, by clients"
                }
                .to_owned()
            })
        ),
        SetupDifference::StepDuration(v) => format!(
            "these runs differ in step duration ({}): short steps weigh warm-up and \
             cache effects more",
            each(v, |d| match d {
                Some(d) => format!("{d} s"),
                None => "by request count".to_owned(),
            })
        ),
        SetupDifference::KeepAlive(v) => format!(
            "these runs differ in keep-alive ({}): connection setup is in one and not the \
             other, which alone can change throughput several times over",
            each(v, |k| if *k { "on" } else { "off" }.to_owned())
        ),
        SetupDifference::Coalesce(v) => format!(
            "these runs differ in --coalesce ({}): its latencies are still each answer's \
             arrival, but a closed model's clients send their next request only when their \
             worker wakes, so against a server with room to spare the coalescing run sent less",
            each(v, |c| match c {
                Some(us) => format!("{us} µs"),
                None => "off".to_owned(),
            })
        ),
        SetupDifference::Pipeline(v) => format!(
            "these runs differ in pipeline depth ({}): commands kept in flight on a \
             connection change operations/s several times over, so the ratios compare the \
             depths as much as the stores",
            each(v, |p| match p {
                Some(n) => format!("{n} in flight"),
                None => "none".to_owned(),
            })
        ),
        SetupDifference::Protocol(v) => format!(
            "these runs differ in protocol ({}): HTTP/2 carries many requests on one \
             connection, HTTP/1.1 one at a time, so the ratios compare the protocols as \
             much as the servers",
            each(v, |p| (*p).to_owned())
        ),
        SetupDifference::Patterns(v) => format!(
            "these runs sent different request patterns ({}): they did different work, so \
             the ratios compare different things",
            each(v, |p| p.clone())
        ),
        SetupDifference::Order(v) => format!(
            "these runs differ in request order ({}): a pass in the file's order and a \
             random draw meet the server's caches differently",
            each(v, |o| o.clone())
        ),
        SetupDifference::Wait(v) => format!(
            "these runs differ in the wait between requests ({}): a client that pauses \
             offers less load",
            each(v, |w| format!("{w} s"))
        ),
        SetupDifference::CachePlan(v) => format!(
            "these runs were planned for different cache hit rates ({}): repeated \
             requests are answered from caches",
            each(v, |c| match c {
                Some(c) => format!("{:.0}%", c * 100.0),
                None => "not planned".to_owned(),
            })
        ),
        SetupDifference::Shard(v) => format!(
            "these runs differ in sharding ({}): a shard sent only its part of the load; \
             compare the merged result (hakaru merge)",
            each(v, |k| match k {
                Some(k) => format!("shard {k}"),
                None => "whole".to_owned(),
            })
        ),
        SetupDifference::Targets(v) => format!(
            "Targets: {}.",
            v.iter()
                .map(|(label, t)| format!("{label} → {}", t.join(", ")))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    }
}

/// What an open-model run found, in words: the highest rate held, the first not held
/// and how it showed, or that no limit was reached.
pub fn rate_sentences(s: &Series, f: &RateFindings) -> Vec<String> {
    let mut out = Vec::new();
    let Some(last) = f.steps.last() else {
        return out;
    };
    // "requests/s" of HTTP; a SQL run's "transactions/s", a store's "commands/s".
    let work = Work::of_series(s);
    let per_s = format!("{}/s", work.items());
    // A step with a rate profile is told segment by segment: its mean rate hides any
    // spike inside it. One step: its segments alone; steps of a ramp: their own
    // reading by rate, then each profile of several segments not held.
    let judged: Vec<_> = f
        .steps
        .iter()
        .filter_map(|r| {
            let p = s.points[r.index].profile.as_ref()?;
            Some((r, &p.segments, p.verdict.as_ref()?))
        })
        .collect();
    if let [(_, segments, v)] = judged[..] {
        if f.steps.len() == 1 {
            return profile::profile_sentences(segments, v, work);
        }
    }
    let behind: Vec<String> = judged
        .iter()
        .filter(|(_, segments, v)| !v.held && segments.len() > 1)
        .flat_map(|(r, segments, v)| {
            profile::profile_sentences(segments, v, work)
                .into_iter()
                .map(move |l| format!("Step {}: {l}", r.index + 1))
        })
        .collect();
    match f.first_behind {
        None => out.push(format!(
            "The server kept up with every offered rate, up to {} {per_s}: the run \
             stops before its limit; raise the rates to find it.",
            fmt_qps(f.steps.iter().map(|r| r.rate).fold(last.rate, f64::max))
        )),
        Some(b) => {
            let p = &s.points[b.index];
            match f.highest_held {
                Some(h) if h.rate < b.rate => out.push(format!(
                    "The server kept up to {} {per_s}; at {} {per_s} it fell behind.",
                    fmt_qps(h.rate),
                    fmt_qps(b.rate)
                )),
                _ => out.push(format!(
                    "The server fell behind already at {} {per_s}, the first rate offered.",
                    fmt_qps(b.rate)
                )),
            }
            out.push(format!(
                "There it answered {} per second ({} of the rate), {} {} left more \
                 than 1 ms late and {} never started.",
                fmt_qps(p.qps),
                fmt_share(p.qps / b.rate * 100.0),
                p.late,
                if p.late == 1 {
                    work.item()
                } else {
                    work.items()
                },
                p.dropped
            ));
        }
    }
    if let Some(h) = f.highest_held {
        let p = &s.points[h.index];
        if let Some(p99) = p.p99_s.filter(|v| v.is_finite()) {
            out.push(format!(
                "At {} {per_s}, p99 latency from the due time was {}.",
                fmt_qps(h.rate),
                fmt_latency(p99)
            ));
        }
    }
    out.extend(behind);
    out
}

/// What a ramp's steps say of where it saturates, its rates in the run's unit
/// (`work`: qps, or a SQL run's tps, a store's ops/s).
pub fn sentences(sat: &Saturation, work: Work) -> Vec<String> {
    let mut out = Vec::new();
    let errs = sat.max_error_share;
    let rate = work.rate();
    let errors_line = (errs > 0.0).then(|| match work {
        Work::Request | Work::Answer => format!(
            "Up to {} of a step's requests failed or got an error status.",
            fmt_share(errs)
        ),
        Work::Transaction => format!(
            "Up to {} of a step's transactions ended in an error.",
            fmt_share(errs)
        ),
        Work::Command => format!(
            "Up to {} of a step's commands got no reply or an error reply.",
            fmt_share(errs)
        ),
    });
    let Some(pk) = sat.peak else {
        out.push(
            "No step got a response: there is nothing to analyse; check that the target \
             was up and reachable."
                .into(),
        );
        out.extend(errors_line);
        return out;
    };
    if sat.measured_steps == 1 {
        // A single step (`hakaru run`): state it, there is no curve to read.
        out.push(format!(
            "Throughput was {} {rate} with {}, at a mean latency of {}.",
            fmt_qps(pk.qps),
            clients(pk.n_clients),
            fmt_latency(pk.mean_s)
        ));
        out.extend(errors_line);
        return out;
    }
    out.push(format!(
        "Throughput peaks at {} {rate} with {}.",
        fmt_qps(pk.qps),
        clients(pk.n_clients)
    ));
    if let Some(pl) = sat.plateau {
        if pl.n_clients < pk.n_clients {
            out.push(format!(
                "It levels off from {} on ({} {rate}, {:.0}% of the peak): more clients than \
                 that add waiting, not throughput.",
                clients(pl.n_clients),
                fmt_qps(pl.qps),
                PLATEAU_SHARE * 100.0
            ));
        } else {
            out.push(format!(
                "It levels off there: no smaller load reaches {:.0}% of the peak.",
                PLATEAU_SHARE * 100.0
            ));
        }
    }
    if let Some(b) = sat.baseline {
        match sat.knee {
            Some(k) => out.push(format!(
                "Mean latency is {} at {} and first exceeds twice that at {} ({}): from \
                 there on {} queue.",
                fmt_latency(b.mean_s),
                clients(b.n_clients),
                clients(k.n_clients),
                fmt_latency(k.mean_s),
                work.items()
            )),
            None => out.push(format!(
                "Mean latency is {} at {} and never doubles in this run.",
                fmt_latency(b.mean_s),
                clients(b.n_clients)
            )),
        }
    }
    if let Some(f) = sat.usl {
        let mut s = format!(
            "The Universal Scalability Law fits with R² = {:.2} (contention σ = {:.3}, \
             coherency κ = {:.4})",
            f.r_squared, f.sigma, f.kappa
        );
        match (f.max_qps, f.peak_clients) {
            (Some(m), Some(n)) => s.push_str(&format!(
                "; it predicts at most {} {rate}, at about {n:.0} clients.",
                fmt_qps(m)
            )),
            (Some(m), None) => s.push_str(&format!(
                "; it predicts throughput approaching {} {rate} without a peak.",
                fmt_qps(m)
            )),
            _ => s.push_str("; it sees no limit yet: throughput grows in step with clients."),
        }
        out.push(s);
    }
    out.extend(errors_line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{analyse, tests::series_of};

    #[test]
    fn curve_warnings_are_a_client_ramps_only() {
        let mut s = series_of(&[(1, 10.0, 0.1), (2, 20.0, 0.1)]);
        s.points[1].client_cpu_share = Some(0.97);
        s.state = RunState::Interrupted;
        let kinds = |k: RunKind| k.warnings(&s).len();
        // Incomplete, few points, still rising, no knee, client limit.
        assert_eq!(analyse(&s).warnings.len(), 5);
        assert_eq!(kinds(RunKind::ClientRamp), 5);
        for k in [RunKind::Suite, RunKind::FindMax, RunKind::OpenModel] {
            let w = k.warnings(&s);
            assert_eq!(kinds(k), 2, "{k:?}: {w:?}");
            assert!(matches!(w[0], Warning::Incomplete(RunState::Interrupted)));
            assert!(matches!(w[1], Warning::ClientBottleneck { .. }));
        }
    }

    #[test]
    fn client_bottleneck_says_whose_limit() {
        let mut s = series_of(&[(1, 10.0, 0.1), (2, 20.0, 0.1)]);
        s.points[1].client_cpu_share = Some(0.97);
        let sat = analyse(&s);
        let text = sat
            .warnings
            .iter()
            .map(|w| w.to_string())
            .collect::<String>();
        assert!(text.contains("client's limit"));
    }

    #[test]
    fn single_step_and_dead_runs_read_plainly() {
        let one = series_of(&[(4, 100.0, 0.04)]);
        let sat = analyse(&one);
        assert_eq!(
            sentences(&sat, Work::Request),
            vec!["Throughput was 100.0 qps with 4 clients, at a mean latency of 40.0 ms."]
        );
        let mut dead = series_of(&[(0, 0.0, 0.0), (1, 0.0, 0.0), (2, 0.0, 0.0)]);
        dead.points[1].error_share = 100.0;
        let sat = analyse(&dead);
        let text = sentences(&sat, Work::Request).join(" ");
        assert!(
            text.contains("No step got a response") && text.contains("100%"),
            "{text}"
        );
    }
}
