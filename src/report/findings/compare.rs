//! The comparison's sentences: every run against the first, from the figures
//! [`CompareRow`] puts side by side, saying only what
//! [`crate::analysis::comparable`] judged the pair can support: a peak and a level-off
//! between curves, figures at a load both runs measured, a rate profile both ran;
//! otherwise why nothing is compared.

use std::fmt::Write as _;

use crate::analysis::comparable::{self, Load, LoadModel, Measured, Pair, SearchAnswer, Shape};
use crate::analysis::{self, RatioSpread, Spread};
use crate::report::fmt::{
    clients, fmt_latency, fmt_qps, fmt_ratio, fmt_ratio_spread, fmt_share, Work,
};

/// Plain sentences comparing every run with the first.
pub fn compare_sentences(rows: &[CompareRow]) -> Vec<String> {
    let mut out = Vec::new();
    let Some(base) = rows.first() else {
        return out;
    };
    for r in &rows[1..] {
        // The pair's words: both runs' own, or, of different kinds, an answer's.
        let w = Work::of_all([base.work, r.work]);
        match comparable::judge(&base.shape, &r.shape) {
            Pair::Curves { low } => out.extend(curve_sentences(base, r, low)),
            Pair::AtLoad {
                base: x,
                other: y,
                only,
                held,
            } => {
                if let Some((hx, hy)) = held {
                    out.push(held_sentence(base, r, hx, hy));
                }
                out.push(at_load((base, r), x, y, only))
            }
            Pair::SameProfile {
                profile,
                base: x,
                other: y,
            } => out.push(same_profile(&base.label, &r.label, &profile, x, y)),
            Pair::Searches {
                base: x,
                other: y,
                same_slo,
                apart,
            } => out.push(searches(&base.label, &r.label, &x, &y, same_slo, apart)),
            Pair::NoCommonLoad { base: x, other: y } => {
                out.push(no_common_load(base, r, &x, &y, w))
            }
            Pair::Models { base: x, other: y } => out.push(format!(
                "{} ({}) and {} ({}) offered their load differently, so no throughput or \
                 latency ratio is drawn between them.",
                r.label,
                y.describe(),
                base.label,
                x.describe()
            )),
            Pair::Nothing if r.shape.model != LoadModel::Phases && r.shape.steps.is_empty() => {
                out.push(format!("{} has no throughput to compare.", r.label))
            }
            Pair::Nothing => {}
        }
    }
    // The highest peak is a capacity only when every run is a curve.
    if rows.len() > 2 && rows.iter().all(|r| r.shape.is_curve()) {
        if let Some(best) = rows.iter().filter(|r| r.peak_qps.is_some()).max_by(|a, b| {
            a.peak_qps
                .unwrap_or(0.0)
                .total_cmp(&b.peak_qps.unwrap_or(0.0))
        }) {
            out.push(format!(
                "Highest peak: {}, {} {} at {}.",
                best.label,
                best.peak_qps.map(fmt_qps).unwrap_or_default(),
                best.work.rate(),
                clients(best.peak_clients.unwrap_or(0))
            ));
        }
    }
    out
}

/// Two saturation curves: the peaks, the latency at the fewest clients both measured,
/// where each levels off.
fn curve_sentences(
    base: &CompareRow,
    r: &CompareRow,
    low: Option<(Measured, Measured)>,
) -> Vec<String> {
    let mut out = Vec::new();
    let b = &base.label;
    let w = Work::of_all([base.work, r.work]);
    let peak = format!("peak {}", w.rate());
    let mut s = String::new();
    match (r.peak_ratio, ratio(r.peak_qps, base.peak_qps)) {
        // Repetitions on both sides: the ratio with its spread, and whether the
        // difference stands out of the noise at all.
        (Some(rs), _) if rs.within_noise => {
            let _ = write!(
                s,
                "{}'s {peak} is within the noise of {b}'s: {}",
                r.label,
                fmt_ratio_spread(rs.ratio, rs.sd)
            );
        }
        (Some(rs), _) if rs.sd.is_some() => {
            let _ = write!(
                s,
                "{} holds {} {b}'s {peak}",
                r.label,
                fmt_ratio_spread(rs.ratio, rs.sd)
            );
        }
        (_, Some(q)) if q >= 1.05 => {
            let _ = write!(s, "{} holds {} {b}'s {peak}", r.label, fmt_ratio(q));
        }
        (_, Some(q)) if q > 0.95 => {
            let _ = write!(s, "{} matches {b}'s {peak} (within 5%)", r.label);
        }
        (_, Some(q)) => {
            let _ = write!(
                s,
                "{} reaches {}{:.0}% of {b}'s {peak}",
                r.label,
                if q < 0.8 { "only " } else { "" },
                q * 100.0
            );
        }
        (_, None) => {
            let _ = write!(s, "{} has no throughput to compare", r.label);
        }
    }
    if let (Some(p), Some(bp)) = (r.peak_qps, base.peak_qps) {
        let _ = write!(
            s,
            " ({}{})",
            versus((p, r.work), (bp, base.work)),
            match (r.runs, base.runs) {
                (1, 1) => String::new(),
                (a, b) if a == b => format!(", means of {a} runs each"),
                (1, b) => format!(", against a mean of {b} runs"),
                (a, 1) => format!(", a mean of {a} runs against one"),
                (a, b) => format!(", means of {a} and {b} runs"),
            }
        );
    }
    if let Some((x, y)) = low {
        let at = match x.load {
            Load::Clients(n)
                if Some(n) == base.low_load_clients && Some(n) == r.low_load_clients =>
            {
                format!("its {n}-client latency")
            }
            Load::Clients(n) => format!("at {}, the fewest both measured, its latency", clients(n)),
            Load::Rate(q) => format!("at {} its latency", offered(q, w)),
        };
        match ratio(Some(y.mean_s), Some(x.mean_s)) {
            Some(l) if (0.95..1.05).contains(&l) => {
                let _ = write!(s, "; {at} is about the same as {b}'s");
            }
            Some(l) => {
                let _ = write!(s, "; {at} is {} {b}'s", fmt_ratio(l));
            }
            None => {}
        }
    }
    s.push('.');
    out.push(s);
    if let (Some(p), Some(bp)) = (r.plateau_clients, base.plateau_clients) {
        if p != bp {
            out.push(format!(
                "{} levels off at {} ({b}: {bp}).",
                r.label,
                clients(p)
            ));
        }
    }
    out
}

/// A rate as it was asked for: "50", not "50.0" (rates are mostly whole numbers).
fn rate(r: f64) -> String {
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        fmt_qps(r)
    }
}

/// A rate offered in the runs' words: "5000 requests/s" (a SQL run's
/// transactions/s, a store's commands/s); "5000/s" between kinds.
fn offered(q: f64, w: Work) -> String {
    per_s(&rate(q), w)
}

/// `n` (a number, or a list of them) per second of `w`'s items.
fn per_s(n: &str, w: Work) -> String {
    match w {
        Work::Answer => format!("{n}/s"),
        w => format!("{n} {}/s", w.items()),
    }
}

/// Two runs' rates side by side: "1234 vs 567 tps", or each in its own unit when
/// their kinds differ ("1234 tps vs 567 ops/s").
fn versus((a, wa): (f64, Work), (b, wb): (f64, Work)) -> String {
    if wa == wb {
        format!("{} vs {} {}", fmt_qps(a), fmt_qps(b), wa.rate())
    } else {
        format!(
            "{} {} vs {} {}",
            fmt_qps(a),
            wa.rate(),
            fmt_qps(b),
            wb.rate()
        )
    }
}

/// A load in words: "20 clients", "5000 requests/s".
fn load_text(l: Load, w: Work) -> String {
    match l {
        Load::Clients(n) => clients(n),
        Load::Rate(r) => offered(r, w),
    }
}

/// A run's loads in words: "20 clients", "100, 200 and 400 requests/s".
fn loads_text(loads: &[Load], w: Work) -> String {
    match loads {
        [] => "nothing".into(),
        [one] => load_text(*one, w),
        [.., last] => {
            let unit = |l: &Load| match l {
                Load::Clients(n) => n.to_string(),
                Load::Rate(r) => rate(*r),
            };
            let each: Vec<String> = loads.iter().map(unit).collect();
            let list = super::and_list(&each);
            match last {
                Load::Clients(_) => format!("{list} clients"),
                Load::Rate(_) => per_s(&list, w),
            }
        }
    }
}

/// What one run did at a load: "answered 4120/s (p99 535 ms, 3.20% failed, 63088 late)".
fn answered(m: &Measured) -> String {
    let mut parts = Vec::new();
    if let Some(p) = m.p99_s {
        parts.push(format!("p99 {}", fmt_latency(p)));
    } else {
        parts.push(format!("mean {}", fmt_latency(m.mean_s)));
    }
    parts.push(if m.error_share > 0.0 {
        format!("{} failed", fmt_share(m.error_share))
    } else {
        "none failed".into()
    });
    if m.late > 0 {
        parts.push(format!("{} late", m.late));
    }
    if m.dropped > 0 {
        parts.push(format!("{} never sent", m.dropped));
    }
    format!("answered {}/s ({})", fmt_qps(m.qps), parts.join(", "))
}

/// "r's p99 there is 3.2× b's" (or the mean's), when both have it.
fn latency_ratio(b: &str, r: &str, x: &Measured, y: &Measured) -> Option<String> {
    let (what, l) = match (x.p99_s, y.p99_s) {
        (Some(px), Some(py)) => ("p99", ratio(Some(py), Some(px))?),
        _ => ("mean latency", ratio(Some(y.mean_s), Some(x.mean_s))?),
    };
    Some(if (0.95..1.05).contains(&l) {
        format!("{r}'s {what} there is about the same as {b}'s")
    } else {
        format!("{r}'s {what} there is {} {b}'s", fmt_ratio(l))
    })
}

/// Both runs measured at the load `x.load`: the figures there, and only there.
fn at_load(
    (base, row): (&CompareRow, &CompareRow),
    x: Measured,
    y: Measured,
    only: bool,
) -> String {
    let (b, r) = (base.label.as_str(), row.label.as_str());
    let w = Work::of_all([base.work, row.work]);
    let lat = latency_ratio(b, r, &x, &y)
        .map(|l| format!("; {l}"))
        .unwrap_or_default();
    match x.load {
        // An open model's throughput is the rate offered: told as answered vs offered.
        Load::Rate(q) => format!(
            "{}: {b} {}, {r} {}{lat}.",
            if only {
                format!("Both were offered {}", offered(q, w))
            } else {
                format!("At {}, the highest rate both were offered", offered(q, w))
            },
            answered(&x),
            answered(&y)
        ),
        Load::Clients(n) => {
            let q = match ratio(Some(y.qps), Some(x.qps)) {
                Some(q) if (0.95..1.05).contains(&q) => format!("about {b}'s {}", w.rate()),
                Some(q) => format!("{} {b}'s {}", fmt_ratio(q), w.rate()),
                None => "no throughput".into(),
            };
            let which = if only {
                ""
            } else {
                ", the highest load both measured"
            };
            format!(
                "At {}{which}, {r} answered {q} ({}){lat}.",
                clients(n),
                versus((y.qps, row.work), (x.qps, base.work))
            )
        }
    }
}

/// Both were offered the same fixed rates: the highest each held, a capacity found
/// over the same rates.
fn held_sentence(base: &CompareRow, r: &CompareRow, x: Option<f64>, y: Option<f64>) -> String {
    let w = Work::of_all([base.work, r.work]);
    let loads: Vec<Load> = base.shape.steps.iter().map(|m| m.load).collect();
    let top = loads
        .iter()
        .map(|l| match l {
            Load::Rate(q) => *q,
            Load::Clients(n) => *n as f64,
        })
        .fold(0.0, f64::max);
    let each = |h: Option<f64>| match h {
        Some(h) if h >= top => format!("held every rate, up to {}", offered(h, w)),
        Some(h) => format!("held up to {}", offered(h, w)),
        None => "held none of them".to_owned(),
    };
    format!(
        "Offered the same rates ({}), {} {} and {} {}.",
        loads_text(&loads, w),
        base.label,
        each(x),
        r.label,
        each(y)
    )
}

/// Two `--find-max` searches: their answers side by side, a ratio only under one SLO
/// and when their brackets do not overlap.
fn searches(
    b: &str,
    o: &str,
    x: &SearchAnswer,
    y: &SearchAnswer,
    same_slo: bool,
    apart: bool,
) -> String {
    let answer = |s: &SearchAnswer| match (s.held, s.failed) {
        (Some(h), Some(f)) => format!("{}/s (failed at {}/s)", fmt_qps(h), fmt_qps(f)),
        (Some(h), None) => format!("{}/s (no probe failed)", fmt_qps(h)),
        (None, Some(f)) => format!("no rate (the lowest probed, {}/s, failed)", fmt_qps(f)),
        (None, None) => "no rate".to_string(),
    };
    if !same_slo {
        return format!(
            "{b} searched under {}, {o} under {}: their answers ({b} {}, {o} {}) keep \
             different promises, so no ratio is drawn; search both under one --slo.",
            x.slo.join(", "),
            y.slo.join(", "),
            answer(x),
            answer(y)
        );
    }
    let head = format!(
        "Both searched for the highest rate meeting {}: {b} held {}, {o} {}",
        x.slo.join(", "),
        answer(x),
        answer(y)
    );
    match (x.held, y.held) {
        (Some(hx), Some(hy)) if apart => {
            format!("{head}: {o} holds {} {b}'s rate.", fmt_ratio(hy / hx))
        }
        _ if apart => format!("{head}."),
        _ => format!(
            "{head}: the limits' brackets overlap, so neither is shown to hold more; \
             narrow them with a smaller --precision."
        ),
    }
}

/// Both ran one rate profile: their steps compare whole.
fn same_profile(b: &str, r: &str, profile: &str, x: Measured, y: Measured) -> String {
    let lat = latency_ratio(b, r, &x, &y)
        .map(|l| format!("; {l}"))
        .unwrap_or_default();
    format!(
        "Both ran the rate profile {profile}: {b} {} on average, {r} {}{lat}.",
        answered(&x),
        answered(&y)
    )
}

/// The same model, no load in common: what each measured, and why nothing compares.
fn no_common_load(base: &CompareRow, r: &CompareRow, x: &[Load], y: &[Load], w: Work) -> String {
    let (b, o) = (&base.label, &r.label);
    match base.shape.model {
        LoadModel::FixedRate => format!(
            "{b} was offered {}, {o} {}: a fixed rate's throughput is the rate chosen, not \
             what the server can hold, so no ratio is drawn; offer both the same rate, or \
             find each one's limit (ramp --rate, --find-max).",
            loads_text(x, w),
            loads_text(y, w)
        ),
        LoadModel::Search => format!(
            "{b}'s search probed {}, {o}'s {}: no rate in common, so no ratio is drawn; \
             each search's answer is in its own report (hakaru report).",
            loads_text(x, w),
            loads_text(y, w)
        ),
        LoadModel::Profile => format!(
            "{b} ran the rate profile {}, {o} {}: different loads, so no ratio is drawn.",
            base.shape.profile.as_deref().unwrap_or("?"),
            r.shape.profile.as_deref().unwrap_or("?")
        ),
        _ => format!(
            "{b} was measured at {}, {o} at {}: with no load in common neither throughput \
             nor latency compares, so no ratio is drawn; run both at the same clients, or \
             ramp both to compare their curves.",
            loads_text(x, w),
            loads_text(y, w)
        ),
    }
}

/// Runs of different load models, in one warning.
pub fn models_sentence(models: &[(String, LoadModel)]) -> String {
    let each: Vec<String> = models
        .iter()
        .map(|(l, m)| format!("{l} {}", m.describe()))
        .collect();
    format!(
        "these runs differ in load model ({}): a closed model's throughput is what its \
         clients drew, an open model's what was offered, a profile's a mix of rates, so \
         no throughput or latency ratio is drawn between runs of different models",
        each.join(", ")
    )
}

/// The figures of one run that a comparison puts side by side.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareRow {
    pub label: String,
    pub peak_qps: Option<f64>,
    pub peak_clients: Option<usize>,
    /// Fewest clients reaching 95% of the peak.
    pub plateau_clients: Option<usize>,
    /// Mean latency at the lowest load (normally 1 client), seconds.
    pub low_load_latency_s: Option<f64>,
    /// Clients of the lowest-load step (normally 1).
    pub low_load_clients: Option<usize>,
    /// Mean latency at the peak, seconds.
    pub latency_at_peak_s: Option<f64>,
    /// p99 at the peak, seconds, when the file has percentiles.
    pub p99_at_peak_s: Option<f64>,
    /// Percent of all requests of the run without a 2xx/3xx response (a SQL
    /// run's transactions ended in an error, a store's commands without a reply).
    pub error_share: f64,
    /// What the run counts, and so the words its figures are said in (tps, ops/s).
    pub work: Work,
    /// Warnings of the run's saturation analysis.
    pub warnings: Vec<analysis::Warning>,
    /// Repetitions behind the row (rounds, or files of one label); 1 for a single run.
    pub runs: usize,
    /// The peak qps of each repetition, as a spread (`peak_qps` is then its mean).
    pub peak_spread: Option<Spread>,
    /// The peak ratio to the first row with its spread, when both are repeated.
    pub peak_ratio: Option<RatioSpread>,
    /// How the run offered its load and what it measured at each load: what the
    /// judgement of a pair reads.
    pub shape: Shape,
}

/// `a ÷ base` when both are known and the base is positive.
pub fn ratio(a: Option<f64>, base: Option<f64>) -> Option<f64> {
    match (a, base) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}
