//! Saturation analysis of a ramp: where throughput peaks and levels off, where latency
//! turns up, how well the Universal Scalability Law explains the curve, and whether
//! the numbers can be trusted (enough steps, past the knee, client not the bottleneck).
//! An open-model run (steps by arrival rate) is read by [`rate`] instead.
//!
//! Everything here is a pure function of a [`Series`] returning numbers and findings;
//! the reports word them ([`crate::report::findings`]).

pub mod comparable;
pub mod find_max;
pub mod rate;
pub mod recovery;
pub mod repeat;
pub mod segments;
pub mod setup;
pub mod step;
pub mod threshold;
pub mod timeline;
mod usl;

pub use rate::{analyse_rates, RateFindings, RateStep};
pub use repeat::{RatioSpread, Spread};
pub use setup::{bulk_differences, setup_differences, BulkDifference, SetupDifference};
pub use usl::{fit_usl, UslFit};

use crate::result::series::{Point, Series};
use crate::result::RunState;

/// Share of the peak that counts as "levelled off".
pub const PLATEAU_SHARE: f64 = 0.95;
/// Mean latency above this many times the lowest-load latency marks the knee.
pub const KNEE_FACTOR: f64 = 2.0;
/// Client CPU share (of all cores) above which the client may be the bottleneck.
pub const CLIENT_CPU_LIMIT: f64 = 0.9;
/// R² below which the USL fit may be poor.
pub const GOOD_FIT_R2: f64 = 0.9;
/// …and it is, when its typical miss is also above this share of the peak: a flat
/// plateau with a little noise has a low R² (little variance to explain) although
/// the curve fits it well.
pub const POOR_FIT_ERROR: f64 = 0.05;
/// Fewer steps than this cannot show a saturation curve.
pub const MIN_POINTS: usize = 4;

/// A step singled out by the analysis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepRef {
    /// Index into `Series::points`.
    pub index: usize,
    pub n_clients: usize,
    pub qps: f64,
    pub mean_s: f64,
}

impl StepRef {
    fn of(index: usize, p: &Point) -> Self {
        StepRef {
            index,
            n_clients: p.n_clients,
            qps: p.qps,
            mean_s: p.mean_s,
        }
    }
}

/// Something the reader should know before trusting the numbers.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// Too few steps to show a curve.
    FewPoints { n: usize },
    /// The USL explains the curve poorly: a low R² and a typical miss (root mean
    /// square, as a share of the peak qps) above [`POOR_FIT_ERROR`].
    PoorFit { r_squared: f64, rel_error: f64 },
    /// Throughput was still at its highest on the last step.
    StillRising { last_clients: usize },
    /// Latency never doubled: the run stopped before the knee.
    NoKnee { last_clients: usize },
    /// hakaru's own CPU was near its cores' limit on these steps (clients, share 0..1).
    ClientBottleneck { steps: Vec<(usize, f64)> },
    /// The run did not finish: still running when its file was written (or killed
    /// then), interrupted, or stopped by a failed step.
    Incomplete(RunState),
    /// `--start-at`: steps that started more than [`START_LATE_LIMIT_S`] after their
    /// planned moment (step number from 1, seconds late): on many load machines, their
    /// windows did not fully overlap.
    StartedLate { steps: Vec<(usize, f64)> },
}

/// A step that starts later than this after its `--start-at` moment is worth a word.
pub const START_LATE_LIMIT_S: f64 = 0.1;

/// Steps that started late: (step number from 1, seconds).
pub fn started_late(series: &Series) -> Vec<(usize, f64)> {
    series
        .points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            p.start_late_s
                .filter(|s| *s > START_LATE_LIMIT_S)
                .map(|s| (i + 1, s))
        })
        .collect()
}

/// What a ramp says about saturation.
#[derive(Debug, Clone, PartialEq)]
pub struct Saturation {
    /// The step with the highest qps (the first one on ties).
    pub peak: Option<StepRef>,
    /// The fewest clients reaching [`PLATEAU_SHARE`] of the peak.
    pub plateau: Option<StepRef>,
    /// The lowest-load step: the first with clients and responses.
    pub baseline: Option<StepRef>,
    /// The first step whose mean latency exceeds [`KNEE_FACTOR`]× the baseline's.
    pub knee: Option<StepRef>,
    pub usl: Option<UslFit>,
    pub warnings: Vec<Warning>,
    /// Steps with clients and responses: 1 is a single-step run, not a curve.
    pub measured_steps: usize,
    /// The highest share of a step's requests without a 2xx/3xx response, percent.
    pub max_error_share: f64,
}

/// Steps that carry a measurement: some clients and some responses.
fn measured(series: &Series) -> impl Iterator<Item = (usize, &Point)> {
    series
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.n_clients > 0 && p.qps > 0.0)
}

/// The step with the highest qps.
pub fn peak(series: &Series) -> Option<StepRef> {
    let mut best: Option<(usize, &Point)> = None;
    for (i, p) in measured(series) {
        if best.is_none_or(|(_, b)| p.qps > b.qps) {
            best = Some((i, p));
        }
    }
    best.map(|(i, p)| StepRef::of(i, p))
}

/// The fewest clients whose step reaches `PLATEAU_SHARE` of the peak qps.
pub fn plateau(series: &Series) -> Option<StepRef> {
    let pk = peak(series)?;
    measured(series)
        .filter(|(_, p)| p.qps >= PLATEAU_SHARE * pk.qps)
        .min_by_key(|(_, p)| p.n_clients)
        .map(|(i, p)| StepRef::of(i, p))
}

/// The first step whose mean latency exceeds `KNEE_FACTOR`× the first measured step's.
pub fn knee(series: &Series) -> Option<StepRef> {
    let mut steps = measured(series);
    let (_, base) = steps.next()?;
    if base.mean_s <= 0.0 {
        return None;
    }
    steps
        .find(|(_, p)| p.mean_s > KNEE_FACTOR * base.mean_s)
        .map(|(i, p)| StepRef::of(i, p))
}

/// Steps where hakaru's own CPU share exceeded [`CLIENT_CPU_LIMIT`]: (clients, share).
pub fn client_bottleneck(series: &Series) -> Vec<(usize, f64)> {
    series
        .points
        .iter()
        .filter_map(|p| {
            p.client_cpu_share
                .filter(|s| step::client_busy(*s))
                .map(|s| (p.n_clients, s))
        })
        .collect()
}

/// The whole saturation analysis of a series.
pub fn analyse(series: &Series) -> Saturation {
    let pts: Vec<(f64, f64)> = measured(series)
        .map(|(_, p)| (p.n_clients as f64, p.qps))
        .collect();
    let baseline = measured(series).next().map(|(i, p)| StepRef::of(i, p));
    let pk = peak(series);
    let kn = knee(series);
    let usl = fit_usl(&pts);
    let mut warnings = Vec::new();
    if series.state != RunState::Complete {
        warnings.push(Warning::Incomplete(series.state));
    } else if series.partial {
        warnings.push(Warning::Incomplete(RunState::Interrupted));
    }
    let late = started_late(series);
    if !late.is_empty() {
        warnings.push(Warning::StartedLate { steps: late });
    }
    // No step at all: the summary says so. One step: a single-step run (`hakaru run`),
    // not a ramp that came out short.
    if pts.len() >= 2 && pts.len() < MIN_POINTS {
        warnings.push(Warning::FewPoints { n: pts.len() });
    }
    let last = measured(series).last().map(|(i, p)| (i, p.n_clients));
    if pts.len() >= 2 {
        if let (Some(pk), Some((last_i, last_clients))) = (pk, last) {
            // Rising only if no earlier step came within the plateau share of it.
            let levelled = plateau(series).is_some_and(|p| p.index != last_i);
            if pk.index == last_i && !levelled {
                warnings.push(Warning::StillRising { last_clients });
            }
            if kn.is_none() {
                warnings.push(Warning::NoKnee { last_clients });
            }
        }
    }
    if let (Some(fit), Some(pk)) = (usl, pk) {
        let rms = (pts
            .iter()
            .map(|(n, q)| (q - fit.predict(*n)).powi(2))
            .sum::<f64>()
            / pts.len().max(1) as f64)
            .sqrt();
        let rel_error = rms / pk.qps;
        if pts.len() >= MIN_POINTS && fit.r_squared < GOOD_FIT_R2 && rel_error > POOR_FIT_ERROR {
            warnings.push(Warning::PoorFit {
                r_squared: fit.r_squared,
                rel_error,
            });
        }
    }
    let cb = client_bottleneck(series);
    if !cb.is_empty() {
        warnings.push(Warning::ClientBottleneck { steps: cb });
    }
    Saturation {
        peak: pk,
        plateau: plateau(series),
        baseline,
        knee: kn,
        usl,
        warnings,
        measured_steps: pts.len(),
        max_error_share: series
            .points
            .iter()
            .map(|p| p.error_share)
            .fold(0.0, f64::max),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::result::series::SourceFormat;

    pub(crate) fn series_of(pts: &[(usize, f64, f64)]) -> Series {
        Series {
            label: "t".into(),
            source: "t.csv".into(),
            format: SourceFormat::DrnbenchCsv,
            points: pts
                .iter()
                .map(|&(n, qps, mean)| Point {
                    n_clients: n,
                    total_requests: (qps * 10.0) as u64,
                    qps,
                    mean_s: mean,
                    min_s: mean / 2.0,
                    max_s: mean * 3.0,
                    ..Point::default()
                })
                .collect(),
            settings: None,
            machine: None,
            command_line: vec![],
            tool: None,
            started_at: None,
            targets: vec![],
            partial: false,
            state: crate::result::RunState::Complete,
            named: None,
            points_are: Default::default(),
        }
    }

    #[test]
    fn linear_curve_has_no_knee_and_no_coherency() {
        let s = series_of(
            &(1..=10)
                .map(|n| (n, 30.0 * n as f64, 0.02))
                .collect::<Vec<_>>(),
        );
        let sat = analyse(&s);
        assert_eq!(sat.knee, None);
        let f = sat.usl.unwrap();
        assert!(f.kappa < 1e-6 && f.sigma < 1e-6, "{f:?}");
        assert!((f.lambda - 30.0).abs() <= 0.01 * 30.0);
        assert!(sat.warnings.contains(&Warning::NoKnee { last_clients: 10 }));
        assert!(sat
            .warnings
            .contains(&Warning::StillRising { last_clients: 10 }));
    }

    /// Issue 35: a ramp whose throughput levelled off at 5 clients, its peak by noise
    /// at the last step, must not also say "still at its highest at the last step".
    #[test]
    fn a_curve_that_levelled_off_is_not_still_rising_though_its_peak_is_last() {
        let s = series_of(&[
            (1, 430.0, 0.0023),
            (2, 860.0, 0.0023),
            (4, 1660.0, 0.0024),
            (5, 1977.0, 0.0025),
            (8, 1972.0, 0.0040),
            (16, 1982.0, 0.0080),
        ]);
        let sat = analyse(&s);
        assert_eq!(sat.peak.unwrap().n_clients, 16);
        assert_eq!(sat.plateau.unwrap().n_clients, 5);
        assert!(
            !sat.warnings
                .iter()
                .any(|w| matches!(w, Warning::StillRising { .. })),
            "{:?}",
            sat.warnings
        );
    }

    #[test]
    fn few_points_and_client_bottleneck_are_warned() {
        let mut s = series_of(&[(1, 10.0, 0.1), (2, 20.0, 0.1)]);
        s.points[1].client_cpu_share = Some(0.97);
        let sat = analyse(&s);
        assert!(sat.warnings.contains(&Warning::FewPoints { n: 2 }));
        assert!(sat.usl.is_none());
        assert!(sat.warnings.contains(&Warning::ClientBottleneck {
            steps: vec![(2, 0.97)]
        }));
    }

    #[test]
    fn peak_plateau_and_knee() {
        let s = series_of(&[
            (0, 0.0, 0.0),
            (1, 30.0, 0.010),
            (2, 60.0, 0.011),
            (4, 96.0, 0.015),
            (6, 100.0, 0.025),
            (8, 99.0, 0.05),
        ]);
        let sat = analyse(&s);
        assert_eq!(sat.peak.unwrap().n_clients, 6);
        assert_eq!(sat.plateau.unwrap().n_clients, 4);
        assert_eq!(sat.knee.unwrap().n_clients, 6);
        assert_eq!(sat.baseline.unwrap().n_clients, 1);
    }

    #[test]
    fn single_step_and_dead_runs_read_plainly() {
        let one = series_of(&[(4, 100.0, 0.04)]);
        let sat = analyse(&one);
        assert!(sat.warnings.is_empty(), "{:?}", sat.warnings);
        assert_eq!(sat.measured_steps, 1);
        let mut dead = series_of(&[(0, 0.0, 0.0), (1, 0.0, 0.0), (2, 0.0, 0.0)]);
        dead.points[1].error_share = 100.0;
        let sat = analyse(&dead);
        assert_eq!(sat.peak, None);
        assert!(sat.usl.is_none() && sat.warnings.is_empty());
        assert_eq!(sat.max_error_share, 100.0);
    }
}
