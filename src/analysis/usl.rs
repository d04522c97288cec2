//! Gunther's Universal Scalability Law fitted to a ramp's (clients, qps): how much of
//! the work is serialised (σ) and how much coherency costs (κ), and so where
//! throughput would peak.

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
mod tests {
    use super::*;

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
}
