//! Saturation analysis of a ramp: where throughput peaks and levels off, where latency
//! turns up, how well the Universal Scalability Law explains the curve, and whether
//! the numbers can be trusted (enough steps, past the knee, client not the bottleneck).
//!
//! Everything here is a pure function of a [`Series`] returning numbers and findings;
//! the reports word them ([`crate::report::findings`]).

use crate::series::{Point, Series};

/// Share of the peak that counts as "levelled off".
pub const PLATEAU_SHARE: f64 = 0.95;
/// Mean latency above this many times the lowest-load latency marks the knee.
pub const KNEE_FACTOR: f64 = 2.0;
/// Client CPU share (of all cores) above which the client may be the bottleneck.
pub const CLIENT_CPU_LIMIT: f64 = 0.9;
/// R² below which the USL fit is called poor.
pub const GOOD_FIT_R2: f64 = 0.9;
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

/// The Universal Scalability Law fitted to (clients, qps):
/// X(N) = λN / (1 + σ(N−1) + κN(N−1)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UslFit {
    /// Throughput of one client alone, qps.
    pub lambda: f64,
    /// Contention: the share of work that is serialised (0 = none).
    pub sigma: f64,
    /// Coherency: the cost of keeping clients consistent, growing with N² (0 = none).
    pub kappa: f64,
    /// Coefficient of determination of the fit on qps, 1 = perfect.
    pub r_squared: f64,
    /// Highest throughput the fit predicts; None when it grows without bound (σ = κ = 0).
    pub max_qps: Option<f64>,
    /// Clients at which the fit peaks, N* = √((1−σ)/κ); None when κ = 0 (it only levels off).
    pub peak_clients: Option<f64>,
}

impl UslFit {
    /// The fitted throughput at `n` clients.
    pub fn predict(&self, n: f64) -> f64 {
        usl(self.lambda, self.sigma, self.kappa, n)
    }
}

/// Something the reader should know before trusting the numbers.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// Too few steps to show a curve.
    FewPoints { n: usize },
    /// The USL explains the curve poorly.
    PoorFit { r_squared: f64 },
    /// Throughput was still at its highest on the last step.
    StillRising { last_clients: usize },
    /// Latency never doubled: the run stopped before the knee.
    NoKnee { last_clients: usize },
    /// hakaru's own CPU was near its cores' limit on these steps (clients, share 0..1).
    ClientBottleneck { steps: Vec<(usize, f64)> },
    /// The run was interrupted; the last step may be short.
    Partial,
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
                .filter(|s| *s > CLIENT_CPU_LIMIT)
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
    if series.partial {
        warnings.push(Warning::Partial);
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
    if let Some(fit) = usl {
        if pts.len() >= MIN_POINTS && fit.r_squared < GOOD_FIT_R2 {
            warnings.push(Warning::PoorFit {
                r_squared: fit.r_squared,
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

fn usl(lambda: f64, sigma: f64, kappa: f64, n: f64) -> f64 {
    lambda * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0))
}

/// The λ that minimises the squared error for fixed σ, κ (the model is linear in λ),
/// and that error.
fn profile(pts: &[(f64, f64)], sigma: f64, kappa: f64) -> (f64, f64) {
    let (mut xf, mut ff) = (0.0, 0.0);
    for &(n, x) in pts {
        let f = usl(1.0, sigma, kappa, n);
        xf += x * f;
        ff += f * f;
    }
    let lambda = if ff > 0.0 { xf / ff } else { 0.0 };
    let sse = pts
        .iter()
        .map(|&(n, x)| (x - lambda * usl(1.0, sigma, kappa, n)).powi(2))
        .sum();
    (lambda, sse)
}

const SIGMA_MAX: f64 = 1.0;
const KAPPA_MAX: f64 = 1.0;

/// Fits Gunther's Universal Scalability Law (N. J. Gunther, "Guerrilla Capacity
/// Planning", 2007) to (clients, qps) by least squares on qps: a coarse grid over
/// σ, κ ≥ 0 with λ solved in closed form, refined by Levenberg–Marquardt on all three
/// parameters, kept within σ ∈ [0, 1], κ ∈ [0, 1]. Needs three points with distinct
/// client counts.
pub fn fit_usl(pts: &[(f64, f64)]) -> Option<UslFit> {
    let pts: Vec<(f64, f64)> = pts
        .iter()
        .copied()
        .filter(|(n, x)| *n > 0.0 && x.is_finite() && n.is_finite())
        .collect();
    let mut ns: Vec<f64> = pts.iter().map(|p| p.0).collect();
    ns.sort_by(f64::total_cmp);
    ns.dedup();
    if ns.len() < 3 {
        return None;
    }

    // Grid: 0 plus log-spaced values, so both "no contention" and tiny values are tried.
    let grid = |max: f64, min: f64, k: usize| -> Vec<f64> {
        let mut g = vec![0.0];
        let (lo, hi) = (min.ln(), max.ln());
        for i in 0..k {
            g.push((lo + (hi - lo) * i as f64 / (k - 1) as f64).exp());
        }
        g
    };
    let mut best = (f64::INFINITY, 0.0, 0.0, 0.0);
    for &s in &grid(SIGMA_MAX, 1e-5, 50) {
        for &k in &grid(KAPPA_MAX, 1e-7, 50) {
            let (l, sse) = profile(&pts, s, k);
            if sse < best.0 {
                best = (sse, l, s, k);
            }
        }
    }
    let (_, mut l, mut s, mut k) = best;

    // Levenberg–Marquardt on (λ, σ, κ), with bounds enforced by clamping each step.
    let sse_of = |l: f64, s: f64, k: f64| -> f64 {
        pts.iter()
            .map(|&(n, x)| (x - usl(l, s, k, n)).powi(2))
            .sum()
    };
    let mut cur = sse_of(l, s, k);
    let mut mu = 1e-3;
    for _ in 0..500 {
        let mut jtj = [[0.0f64; 3]; 3];
        let mut jtr = [0.0f64; 3];
        for &(n, x) in &pts {
            let d = 1.0 + s * (n - 1.0) + k * n * (n - 1.0);
            let j = [
                n / d,
                -l * n * (n - 1.0) / (d * d),
                -l * n * n * (n - 1.0) / (d * d),
            ];
            let r = x - l * n / d;
            for a in 0..3 {
                jtr[a] += j[a] * r;
                for b in 0..3 {
                    jtj[a][b] += j[a] * j[b];
                }
            }
        }
        let mut improved = false;
        for _ in 0..30 {
            let mut m = jtj;
            for (a, row) in m.iter_mut().enumerate() {
                row[a] += mu * jtj[a][a].max(1e-12);
            }
            let Some(delta) = solve3(m, jtr) else {
                mu *= 10.0;
                continue;
            };
            let nl = (l + delta[0]).max(0.0);
            let ns = (s + delta[1]).clamp(0.0, SIGMA_MAX);
            let nk = (k + delta[2]).clamp(0.0, KAPPA_MAX);
            let next = sse_of(nl, ns, nk);
            if next < cur {
                let gain = cur - next;
                (l, s, k, cur) = (nl, ns, nk, next);
                mu = (mu / 3.0).max(1e-12);
                improved = gain > 1e-15 * cur.max(1e-300);
                break;
            }
            mu *= 4.0;
        }
        if !improved {
            break;
        }
    }

    let mean = pts.iter().map(|p| p.1).sum::<f64>() / pts.len() as f64;
    let sst: f64 = pts.iter().map(|p| (p.1 - mean).powi(2)).sum();
    let r_squared = if sst > 0.0 { 1.0 - cur / sst } else { 1.0 };
    let (max_qps, peak_clients) = if k > 0.0 {
        let n_star = ((1.0 - s) / k).sqrt().max(1.0);
        (Some(usl(l, s, k, n_star)), Some(n_star))
    } else if s > 0.0 {
        // Only contention: throughput levels off at λ/σ as N grows.
        (Some(l / s), None)
    } else {
        (None, None)
    };
    Some(UslFit {
        lambda: l,
        sigma: s,
        kappa: k,
        r_squared,
        max_qps,
        peak_clients,
    })
}

/// Solves a 3×3 system by Gaussian elimination with partial pivoting.
fn solve3(mut a: [[f64; 3]; 3], mut b: [f64; 3]) -> Option<[f64; 3]> {
    for c in 0..3 {
        let p = (c..3).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[p][c].abs() < 1e-300 {
            return None;
        }
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..3 {
            let f = a[r][c] / a[c][c];
            let pivot = a[c];
            for (v, pv) in a[r].iter_mut().zip(pivot).skip(c) {
                *v -= f * pv;
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = [0.0; 3];
    for c in (0..3).rev() {
        let s: f64 = (c + 1..3).map(|k| a[c][k] * x[k]).sum();
        x[c] = (b[c] - s) / a[c][c];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::series::SourceFormat;

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
        }
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn usl_parameters_are_fitted_back() {
        let (l, s, k) = (50.0, 0.05, 0.002);
        let pts: Vec<(f64, f64)> = (1..=40)
            .map(|n| (n as f64, usl(l, s, k, n as f64)))
            .collect();
        let f = fit_usl(&pts).unwrap();
        assert!(close(f.lambda, l, 0.05), "{f:?}");
        assert!(close(f.sigma, s, 0.05), "{f:?}");
        assert!(close(f.kappa, k, 0.05), "{f:?}");
        assert!(f.r_squared > 0.999);
        let n_star = ((1.0 - s) / k).sqrt();
        assert!(close(f.peak_clients.unwrap(), n_star, 0.05));
        assert!(close(f.max_qps.unwrap(), usl(l, s, k, n_star), 0.05));
    }

    #[test]
    fn usl_fit_with_mild_noise_stays_close() {
        let (l, s, k) = (120.0, 0.1, 0.0005);
        // Deterministic ±2% wobble.
        let pts: Vec<(f64, f64)> = (1..=30)
            .map(|n| {
                let w = 1.0 + 0.02 * ((n * 7919 % 13) as f64 / 6.0 - 1.0);
                (n as f64, usl(l, s, k, n as f64) * w)
            })
            .collect();
        let f = fit_usl(&pts).unwrap();
        assert!(close(f.lambda, l, 0.1), "{f:?}");
        assert!(f.r_squared > 0.95);
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
        assert!(close(f.lambda, 30.0, 0.01));
        assert!(sat.warnings.contains(&Warning::NoKnee { last_clients: 10 }));
        assert!(sat
            .warnings
            .contains(&Warning::StillRising { last_clients: 10 }));
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
