//! Repetitions of one setup — the rounds of a `--rounds N` run, or several result
//! files given the same label — and what they say about noise: a figure's mean and
//! standard deviation over the repetitions, a ratio between two setups with its
//! spread (hyperfine's "1.18 ± 0.05×"), and whether a difference is inside the noise.
//!
//! The first round of a `--rounds` run meets cold caches and connections; it is kept
//! apart ([`Group::cold`]) so it neither hides nor fakes a difference between setups.

use crate::result::series::{Point, Series};

/// A difference is called real when it exceeds this many standard errors of the
/// difference (about 95% for normally spread repetitions).
pub const NOISE_SIGMAS: f64 = 2.0;

/// A figure over repetitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub mean: f64,
    /// Sample standard deviation (n − 1); 0 with one repetition.
    pub sd: f64,
    pub n: usize,
}

impl Spread {
    /// Mean and sample standard deviation of the finite values; None without any.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Spread> {
        let v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        let n = v.len();
        let mean = v.iter().sum::<f64>() / n as f64;
        let sd = if n > 1 {
            (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        Some(Spread { mean, sd, n })
    }

    /// Standard error of the mean.
    fn se(&self) -> f64 {
        self.sd / (self.n as f64).sqrt()
    }
}

/// `a ÷ base` over repetitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioSpread {
    pub ratio: f64,
    /// Spread of the ratio, propagated from both standard deviations as hyperfine
    /// does: ratio × √((sd_a/mean_a)² + (sd_b/mean_b)²). None without repetitions.
    pub sd: Option<f64>,
    /// True when the difference of the means is within [`NOISE_SIGMAS`] standard
    /// errors of the difference (Welch): the repetitions cannot tell the two apart.
    pub within_noise: bool,
}

/// The ratio of two spreads; None when the base is not positive.
pub fn ratio(a: Spread, base: Spread) -> Option<RatioSpread> {
    if base.mean <= 0.0 || !a.mean.is_finite() {
        return None;
    }
    let r = a.mean / base.mean;
    let repeated = a.n > 1 && base.n > 1;
    let sd = repeated.then(|| {
        let rel_a = if a.mean != 0.0 { a.sd / a.mean } else { 0.0 };
        let rel_b = base.sd / base.mean;
        r * (rel_a * rel_a + rel_b * rel_b).sqrt()
    });
    let se_diff = (a.se().powi(2) + base.se().powi(2)).sqrt();
    Some(RatioSpread {
        ratio: r,
        sd,
        within_noise: repeated && (a.mean - base.mean).abs() <= NOISE_SIGMAS * se_diff,
    })
}

/// One setup as a comparison sees it.
#[derive(Debug, Clone)]
pub struct Group {
    pub label: String,
    /// The repetitions to compare (warm rounds, or the files of one label).
    pub runs: Vec<Series>,
    /// The first round of a `--rounds` run, apart: caches and connections were cold.
    pub cold: Option<Series>,
}

impl Group {
    /// The repetitions' mean, step by step: what the tables and charts show.
    pub fn mean(&self) -> Series {
        mean_series(&self.runs, &self.label)
    }

    /// A figure of each repetition, as a spread.
    pub fn spread(&self, f: impl Fn(&Series) -> Option<f64>) -> Option<Spread> {
        Spread::of(self.runs.iter().filter_map(f))
    }
}

/// Groups results into setups: a file with several rounds is one group (round 1 as
/// its cold run, the rest as repetitions); files in a row with the same label are
/// one group; any other file is a group of one.
pub fn groups(series: &[Series]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for s in series {
        let rounds = s.rounds();
        if rounds > 1 {
            out.push(Group {
                label: s.label.clone(),
                runs: (2..=rounds).map(|r| s.round(r)).collect(),
                cold: Some(s.round(1)),
            });
            continue;
        }
        let runs = vec![s.clone()];
        match out.last_mut() {
            Some(g) if g.label == s.label && g.cold.is_none() => g.runs.extend(runs),
            _ => out.push(Group {
                label: s.label.clone(),
                runs,
                cold: None,
            }),
        }
    }
    out
}

/// The step-by-step mean of repetitions of one setup (matched by position), labelled
/// `label`. Counts and rates are averaged; latencies are the mean of each
/// repetition's figure (a mean of percentiles, not the percentile of the merged
/// histograms: close enough to draw, and the tables say so).
pub fn mean_series(runs: &[Series], label: &str) -> Series {
    let Some(first) = runs.first() else {
        return Series {
            label: label.to_owned(),
            ..empty()
        };
    };
    let mut s = first.clone();
    s.label = label.to_owned();
    if runs.len() == 1 {
        return s;
    }
    let n_steps = runs.iter().map(|r| r.points.len()).min().unwrap_or(0);
    s.points.truncate(n_steps);
    for (i, p) in s.points.iter_mut().enumerate() {
        let all: Vec<&Point> = runs.iter().map(|r| &r.points[i]).collect();
        let mean =
            |f: &dyn Fn(&Point) -> f64| all.iter().map(|p| f(p)).sum::<f64>() / all.len() as f64;
        let mean_opt = |f: &dyn Fn(&Point) -> Option<f64>| {
            let v: Vec<f64> = all.iter().filter_map(|p| f(p)).collect();
            (v.len() == all.len()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        p.qps = mean(&|p| p.qps);
        p.mean_s = mean(&|p| p.mean_s);
        p.p50_s = mean_opt(&|p| p.p50_s);
        p.p90_s = mean_opt(&|p| p.p90_s);
        p.p99_s = mean_opt(&|p| p.p99_s);
        p.min_s = all.iter().map(|p| p.min_s).fold(f64::INFINITY, f64::min);
        p.max_s = all.iter().map(|p| p.max_s).fold(0.0, f64::max);
        p.error_share = mean(&|p| p.error_share);
        p.total_requests = all.iter().map(|p| p.total_requests).sum::<u64>() / all.len() as u64;
        // A distribution of one repetition would pass for all of them.
        p.percentiles.clear();
    }
    s
}

fn empty() -> Series {
    Series {
        label: String::new(),
        source: Default::default(),
        format: crate::result::series::SourceFormat::HakaruJson,
        points: Vec::new(),
        settings: None,
        machine: None,
        command_line: Vec::new(),
        tool: None,
        started_at: None,
        targets: Vec::new(),
        partial: false,
        state: crate::result::RunState::Complete,
        named: None,
        points_are: Default::default(),
    }
}

/// The setups of a comparison as drawn and tabled: each group's mean over its
/// repetitions (labelled "<label> warm" when a cold first round is set apart), then
/// that cold round ("<label> cold").
pub fn display_series(series: &[Series]) -> Vec<Series> {
    display(&groups(series))
        .into_iter()
        .map(|(s, _)| s)
        .collect()
}

/// Each displayed series with the peak qps of its repetitions.
pub fn display(groups: &[Group]) -> Vec<(Series, Option<Spread>)> {
    let peak_of = |s: &Series| super::peak(s).map(|p| p.qps);
    let mut out = Vec::new();
    for g in groups {
        let mut mean = g.mean();
        if let Some(cold) = &g.cold {
            mean.label = format!("{} warm", g.label);
            out.push((mean, g.spread(peak_of)));
            let mut c = cold.clone();
            c.label = format!("{} cold", g.label);
            let spread = Spread::of(peak_of(&c));
            out.push((c, spread));
        } else {
            out.push((mean, g.spread(peak_of)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tests::series_of;

    #[test]
    fn spread_and_ratio_as_hyperfine() {
        let a = Spread::of([118.0, 120.0, 122.0]).unwrap();
        assert_eq!((a.mean, a.sd, a.n), (120.0, 2.0, 3));
        let b = Spread::of([99.0, 100.0, 101.0]).unwrap();
        let r = ratio(a, b).unwrap();
        assert!((r.ratio - 1.2).abs() < 1e-12);
        let want = 1.2 * ((2.0f64 / 120.0).powi(2) + (1.0f64 / 100.0).powi(2)).sqrt();
        assert!((r.sd.unwrap() - want).abs() < 1e-12);
        assert!(!r.within_noise);
        // Means 2 apart with a spread of 5: the repetitions cannot tell them apart.
        let c = Spread::of([95.0, 102.0, 109.0]).unwrap();
        assert!(ratio(c, b).unwrap().within_noise);
        // One run each: no spread, and nothing is called noise.
        let one = Spread::of([100.0]).unwrap();
        let r = ratio(one, Spread::of([90.0]).unwrap()).unwrap();
        assert_eq!((r.sd, r.within_noise), (None, false));
    }

    #[test]
    fn files_of_one_label_group_and_rounds_split_cold_from_warm() {
        let mut a1 = series_of(&[(1, 100.0, 0.01), (2, 180.0, 0.011)]);
        a1.label = "a".into();
        let mut a2 = a1.clone();
        a2.points[1].qps = 200.0;
        let mut b = series_of(&[(1, 90.0, 0.01)]);
        b.label = "b".into();
        for (r, p) in b.points.iter_mut().enumerate() {
            p.round = r + 1;
        }
        let mut rounds = series_of(&[(1, 50.0, 0.02), (1, 60.0, 0.02), (1, 62.0, 0.02)]);
        rounds.label = "c".into();
        for (r, p) in rounds.points.iter_mut().enumerate() {
            p.round = r + 1;
        }
        let g = groups(&[a1, a2, b, rounds]);
        let labels: Vec<(&str, usize, bool)> = g
            .iter()
            .map(|g| (g.label.as_str(), g.runs.len(), g.cold.is_some()))
            .collect();
        assert_eq!(labels, [("a", 2, false), ("b", 1, false), ("c", 2, true)]);
        assert_eq!(g[0].mean().points[1].qps, 190.0);
        assert_eq!(g[2].cold.as_ref().unwrap().points[0].qps, 50.0);
        assert_eq!(g[2].mean().points[0].qps, 61.0);
    }
}
