//! What a comparison of runs can support, decided before any sentence is written.
//!
//! Two runs' figures compare only where they were measured the same way: the same load
//! model (clients, a fixed rate, a rate profile, a search's probes) and the same load.
//! A fixed-rate run's throughput is the rate it was offered, not what the server could
//! hold, so two of them never compare as capacity; a single step has no curve, so no
//! level-off; a latency compares at a client count (or rate) both runs measured. The
//! judgement here says which of these hold for a pair; `report::findings::compare`
//! words it, and says nothing the judgement does not allow.

use crate::analysis::MIN_POINTS;
use crate::result::series::{PointsAre, Series};

/// How a run offered its load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadModel {
    /// Closed model: a number of clients per step, each sending when answered.
    Clients,
    /// Open model, each step at one constant rate (`run --rate 5000`, `ramp --rate`).
    FixedRate,
    /// Open model, a rate that changes within the step (`--rate 2s@5000,1s@60000`).
    Profile,
    /// `ramp --find-max`: probes at the rates the search chose.
    Search,
    /// A suite's phases: different workloads, compared phase by phase elsewhere.
    Phases,
}

impl LoadModel {
    /// The model in a few words, for a warning.
    pub fn describe(self) -> &'static str {
        match self {
            LoadModel::Clients => "closed, by clients",
            LoadModel::FixedRate => "open, at fixed rates",
            LoadModel::Profile => "open, on a rate profile",
            LoadModel::Search => "a --find-max search",
            LoadModel::Phases => "a suite's phases",
        }
    }
}

/// The load one step was measured at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Load {
    Clients(usize),
    /// Requests per second offered.
    Rate(f64),
}

impl Load {
    /// The same load, rates within 0.5% (a merged run's rate is a sum of fractions).
    fn same(self, other: Load) -> bool {
        match (self, other) {
            (Load::Clients(a), Load::Clients(b)) => a == b,
            (Load::Rate(a), Load::Rate(b)) => (a - b).abs() <= 0.005 * a.max(b),
            _ => false,
        }
    }

    fn size(self) -> f64 {
        match self {
            Load::Clients(n) => n as f64,
            Load::Rate(r) => r,
        }
    }
}

/// One measured step, as a comparison reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub load: Load,
    /// Responses per second.
    pub qps: f64,
    /// Mean latency, seconds.
    pub mean_s: f64,
    pub p99_s: Option<f64>,
    /// Percent of the step's requests without a successful response.
    pub error_share: f64,
    /// Open model: requests sent more than 1 ms late, and never started.
    pub late: u64,
    pub dropped: u64,
    /// Open model: the server kept up with the rate ([`crate::analysis::rate::held`]).
    pub held: bool,
}

/// A `--find-max` search's answer, as a comparison reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchAnswer {
    /// The thresholds every probe had to meet, as written.
    pub slo: Vec<String>,
    /// The highest rate that passed (None: none did).
    pub held: Option<f64>,
    /// The lowest rate that failed (None: every probe passed).
    pub failed: Option<f64>,
}

impl SearchAnswer {
    /// Where the limit lies: from the rate held (0 when none) up to the lowest failed.
    fn bracket(&self) -> (f64, f64) {
        (
            self.held.unwrap_or(0.0),
            self.failed.unwrap_or(f64::INFINITY),
        )
    }

    /// The same thresholds, in any order.
    fn same_slo(&self, other: &SearchAnswer) -> bool {
        let norm = |v: &[String]| {
            let mut v: Vec<String> = v.iter().map(|t| t.replace(' ', "")).collect();
            v.sort();
            v
        };
        norm(&self.slo) == norm(&other.slo)
    }
}

/// One run (or repetitions of one setup, folded) as the judgement reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub label: String,
    pub model: LoadModel,
    /// The rate profile as `--rate` wrote it, for [`LoadModel::Profile`].
    pub profile: Option<String>,
    /// The steps that got a response, in run order.
    pub steps: Vec<Measured>,
    /// A search's answer, for [`LoadModel::Search`] (only hakaru's JSON keeps it).
    pub search: Option<SearchAnswer>,
}

impl Shape {
    /// The shape of `s`; `profile` is its step's rate profile when it had one (only
    /// hakaru's JSON result keeps it).
    pub fn of(s: &Series, profile: Option<String>) -> Shape {
        let model = match s.points_are {
            PointsAre::Phases => LoadModel::Phases,
            PointsAre::Probes => LoadModel::Search,
            PointsAre::Steps if profile.is_some() => LoadModel::Profile,
            PointsAre::Steps if s.is_open_model() => LoadModel::FixedRate,
            PointsAre::Steps => LoadModel::Clients,
        };
        let steps = s
            .points
            .iter()
            .filter(|p| p.total_requests > 0 && p.mean_s.is_finite())
            .map(|p| Measured {
                load: match (model, p.rate) {
                    (LoadModel::Clients | LoadModel::Phases, _) | (_, None) => {
                        Load::Clients(p.n_clients)
                    }
                    (_, Some(r)) => Load::Rate(r),
                },
                qps: p.qps,
                mean_s: p.mean_s,
                p99_s: p.p99_s.filter(|v| v.is_finite()),
                error_share: p.error_share,
                late: p.late,
                dropped: p.dropped,
                held: crate::analysis::rate::held(p),
            })
            .collect();
        Shape {
            label: s.label.clone(),
            model,
            profile,
            steps,
            search: None,
        }
    }

    /// The shape with its search's answer.
    pub fn with_search(mut self, search: Option<SearchAnswer>) -> Shape {
        self.search = search;
        self
    }

    /// Enough steps by clients for a saturation curve (a peak, a level-off, a knee).
    pub fn is_curve(&self) -> bool {
        self.model == LoadModel::Clients && self.steps.len() >= MIN_POINTS
    }

    fn at(&self, load: Load) -> Option<&Measured> {
        self.steps.iter().find(|m| m.load.same(load))
    }
}

/// What a pair of runs (a baseline and another) can support.
#[derive(Debug, Clone, PartialEq)]
pub enum Pair {
    /// Both are closed-model curves of at least [`MIN_POINTS`] steps: peak, level-off
    /// and knee compare; a latency at `low`, the fewest clients both measured (None:
    /// no client count in common).
    Curves { low: Option<(Measured, Measured)> },
    /// The same model and at least one load both measured: figures compare there only,
    /// at the highest such load (the baseline's step, then the other's). `only`: it is
    /// the one step of both runs.
    AtLoad {
        base: Measured,
        other: Measured,
        only: bool,
        /// Both offered the same fixed rates, several of them: the highest rate each
        /// held (None: none), a capacity both searched for over the same rates.
        held: Option<(Option<f64>, Option<f64>)>,
    },
    /// Two `--find-max` searches: their answers compare when they searched under
    /// the same SLO (`same_slo`), and tell the two apart only when their brackets
    /// (held … failed) do not overlap (`apart`).
    Searches {
        base: SearchAnswer,
        other: SearchAnswer,
        same_slo: bool,
        apart: bool,
    },
    /// Both ran the same rate profile: their whole steps compare.
    SameProfile {
        profile: String,
        base: Measured,
        other: Measured,
    },
    /// The same model, but no load in common: each run's loads, nothing compared.
    NoCommonLoad { base: Vec<Load>, other: Vec<Load> },
    /// Different load models: nothing compared.
    Models { base: LoadModel, other: LoadModel },
    /// Suites' phases, or a run without a measured step: nothing to say here.
    Nothing,
}

impl Pair {
    /// Whether the table may put the other run's figures as ratios to the baseline's:
    /// its figures (the peak's) are then at the same load, or both are curves.
    pub fn table_ratios(&self) -> bool {
        matches!(
            self,
            Pair::Curves { .. } | Pair::AtLoad { only: true, .. } | Pair::SameProfile { .. }
        )
    }
}

/// What `base` and `other` can support, compared.
pub fn judge(base: &Shape, other: &Shape) -> Pair {
    if base.model != other.model {
        return Pair::Models {
            base: base.model,
            other: other.model,
        };
    }
    if base.model == LoadModel::Phases || base.steps.is_empty() || other.steps.is_empty() {
        return Pair::Nothing;
    }
    if let (LoadModel::Search, Some(a), Some(b)) = (base.model, &base.search, &other.search) {
        let ((a_lo, a_hi), (b_lo, b_hi)) = (a.bracket(), b.bracket());
        return Pair::Searches {
            base: a.clone(),
            other: b.clone(),
            same_slo: a.same_slo(b),
            apart: a_hi <= b_lo || b_hi <= a_lo,
        };
    }
    if base.model == LoadModel::Profile {
        return match (
            &base.profile,
            &other.profile,
            base.steps.as_slice(),
            other.steps.as_slice(),
        ) {
            (Some(a), Some(b), [x], [y]) if a == b => Pair::SameProfile {
                profile: a.clone(),
                base: *x,
                other: *y,
            },
            _ => Pair::NoCommonLoad {
                base: base.steps.iter().map(|m| m.load).collect(),
                other: other.steps.iter().map(|m| m.load).collect(),
            },
        };
    }
    if base.is_curve() && other.is_curve() {
        let low = base
            .steps
            .iter()
            .filter_map(|b| other.at(b.load).map(|o| (*b, *o)))
            .min_by(|x, y| x.0.load.size().total_cmp(&y.0.load.size()));
        return Pair::Curves { low };
    }
    let common = base
        .steps
        .iter()
        .filter_map(|b| other.at(b.load).map(|o| (*b, *o)))
        .max_by(|x, y| x.0.load.size().total_cmp(&y.0.load.size()));
    match common {
        Some((b, o)) => Pair::AtLoad {
            base: b,
            other: o,
            only: base.steps.len() == 1 && other.steps.len() == 1,
            held: same_rates(base, other).then(|| (highest_held(base), highest_held(other))),
        },
        None => Pair::NoCommonLoad {
            base: base.steps.iter().map(|m| m.load).collect(),
            other: other.steps.iter().map(|m| m.load).collect(),
        },
    }
}

/// Both runs offered the same fixed rates, more than one.
fn same_rates(a: &Shape, b: &Shape) -> bool {
    a.model == LoadModel::FixedRate
        && a.steps.len() > 1
        && a.steps.len() == b.steps.len()
        && a.steps.iter().all(|m| b.at(m.load).is_some())
}

/// The highest rate a run held.
fn highest_held(s: &Shape) -> Option<f64> {
    s.steps
        .iter()
        .filter(|m| m.held)
        .filter_map(|m| match m.load {
            Load::Rate(r) => Some(r),
            Load::Clients(_) => None,
        })
        .max_by(f64::total_cmp)
}

/// Each run's load model, when they are not all the same (suites aside: they are
/// compared phase by phase).
pub fn models_differ(shapes: &[Shape]) -> Option<Vec<(String, LoadModel)>> {
    let models: Vec<(String, LoadModel)> = shapes
        .iter()
        .filter(|s| s.model != LoadModel::Phases)
        .map(|s| (s.label.clone(), s.model))
        .collect();
    models
        .windows(2)
        .any(|w| w[0].1 != w[1].1)
        .then_some(models)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tests::series_of;

    fn closed(label: &str, steps: &[(usize, f64, f64)]) -> Shape {
        let mut s = series_of(steps);
        s.label = label.into();
        for p in &mut s.points {
            p.total_requests = 100;
        }
        Shape::of(&s, None)
    }

    fn fixed(label: &str, rates: &[(f64, f64)]) -> Shape {
        let steps: Vec<(usize, f64, f64)> = rates.iter().map(|&(_, q)| (50, q, 0.01)).collect();
        let mut s = series_of(&steps);
        s.label = label.into();
        for (p, (r, _)) in s.points.iter_mut().zip(rates) {
            p.rate = Some(*r);
            p.total_requests = 100;
        }
        Shape::of(&s, None)
    }

    /// Regression (issue 35): two fixed-rate runs compared said "holds 6.0× peak
    /// qps", which is only the ratio of the rates chosen.
    #[test]
    fn fixed_rates_apart_have_no_load_in_common() {
        let a = fixed("a", &[(1000.0, 1000.0)]);
        let b = fixed("b", &[(6000.0, 6000.0)]);
        assert_eq!(a.model, LoadModel::FixedRate);
        let p = judge(&a, &b);
        assert!(matches!(p, Pair::NoCommonLoad { .. }), "{p:?}");
        assert!(!p.table_ratios());
    }

    #[test]
    fn fixed_rates_alike_compare_at_that_rate() {
        let a = fixed("a", &[(5000.0, 5000.0)]);
        let b = fixed("b", &[(5000.0, 4120.0)]);
        match judge(&a, &b) {
            Pair::AtLoad {
                base, other, only, ..
            } => {
                assert_eq!(base.load, Load::Rate(5000.0));
                assert_eq!((base.qps, other.qps, only), (5000.0, 4120.0, true));
            }
            p => panic!("{p:?}"),
        }
    }

    /// Regression (issue 35): two single-step runs at 20 and 50 clients were told
    /// "levels off at 20 clients (nginx: 50)" and "its 20-client latency is 5.7×".
    #[test]
    fn single_steps_at_different_clients_compare_nothing() {
        let a = closed("a", &[(20, 1000.0, 0.02)]);
        let b = closed("b", &[(50, 1200.0, 0.04)]);
        assert!(!a.is_curve());
        assert_eq!(
            judge(&a, &b),
            Pair::NoCommonLoad {
                base: vec![Load::Clients(20)],
                other: vec![Load::Clients(50)],
            }
        );
    }

    #[test]
    fn a_ramp_and_a_step_compare_at_the_step_only() {
        let ramp = closed(
            "ramp",
            &[
                (1, 100.0, 0.01),
                (2, 190.0, 0.01),
                (4, 300.0, 0.013),
                (8, 320.0, 0.025),
            ],
        );
        let one = closed("one", &[(4, 280.0, 0.014)]);
        match judge(&ramp, &one) {
            Pair::AtLoad {
                base, other, only, ..
            } => {
                assert_eq!(
                    (base.load, other.load, only),
                    (Load::Clients(4), Load::Clients(4), false)
                );
            }
            p => panic!("{p:?}"),
        }
    }

    #[test]
    fn curves_compare_latency_at_the_fewest_clients_both_measured() {
        let a = closed(
            "a",
            &[
                (1, 100.0, 0.01),
                (2, 190.0, 0.01),
                (4, 300.0, 0.013),
                (8, 320.0, 0.025),
            ],
        );
        let b = closed(
            "b",
            &[
                (2, 150.0, 0.013),
                (4, 250.0, 0.016),
                (8, 300.0, 0.026),
                (16, 310.0, 0.05),
            ],
        );
        match judge(&a, &b) {
            Pair::Curves { low: Some((x, y)) } => {
                assert_eq!((x.load, y.load), (Load::Clients(2), Load::Clients(2)));
            }
            p => panic!("{p:?}"),
        }
    }

    #[test]
    fn models_apart_are_named_and_compare_nothing() {
        let ramp = closed(
            "ramp",
            &[
                (1, 100.0, 0.01),
                (2, 190.0, 0.01),
                (4, 300.0, 0.013),
                (8, 320.0, 0.025),
            ],
        );
        let rate = fixed("rate", &[(5000.0, 5000.0)]);
        assert_eq!(
            judge(&ramp, &rate),
            Pair::Models {
                base: LoadModel::Clients,
                other: LoadModel::FixedRate
            }
        );
        let m = models_differ(&[ramp.clone(), rate]).expect("they differ");
        assert_eq!(m[1], ("rate".to_string(), LoadModel::FixedRate));
        assert!(models_differ(&[ramp.clone(), ramp]).is_none());
    }

    #[test]
    fn the_same_rates_offered_compare_the_highest_held() {
        let a = fixed("a", &[(100.0, 100.0), (200.0, 200.0), (400.0, 390.0)]);
        let b = fixed("b", &[(100.0, 100.0), (200.0, 150.0), (400.0, 160.0)]);
        match judge(&a, &b) {
            Pair::AtLoad { base, held, .. } => {
                assert_eq!(base.load, Load::Rate(400.0));
                assert_eq!(held, Some((Some(400.0), Some(100.0))));
            }
            p => panic!("{p:?}"),
        }
        // Rates in common but not the same set: no capacity compared.
        let c = fixed("c", &[(100.0, 100.0), (800.0, 700.0)]);
        assert!(matches!(judge(&a, &c), Pair::AtLoad { held: None, .. }));
    }

    #[test]
    fn profiles_compare_only_when_the_same() {
        let mut s = series_of(&[(50, 4000.0, 0.01)]);
        s.points[0].rate = Some(4000.0);
        s.points[0].total_requests = 100;
        let a = Shape::of(&s, Some("2s@5000, 1s@60000".into()));
        let b = Shape::of(&s, Some("2s@5000, 1s@60000".into()));
        let c = Shape::of(&s, Some("3s@5000".into()));
        assert_eq!(a.model, LoadModel::Profile);
        assert!(matches!(judge(&a, &b), Pair::SameProfile { .. }));
        assert!(matches!(judge(&a, &c), Pair::NoCommonLoad { .. }));
        let plain = fixed("f", &[(4000.0, 4000.0)]);
        assert!(matches!(judge(&a, &plain), Pair::Models { .. }));
    }

    fn search(slo: &[&str], held: Option<f64>, failed: Option<f64>) -> Shape {
        let mut s = Shape::of(&series_of(&[(50, 1000.0, 0.01)]), None);
        s.model = LoadModel::Search;
        s.with_search(Some(SearchAnswer {
            slo: slo.iter().map(|t| t.to_string()).collect(),
            held,
            failed,
        }))
    }

    /// Two --find-max searches compared nothing unless they happened to probe a rate
    /// in common, though each answer is the capacity a user ran them for.
    #[test]
    fn two_searches_compare_their_answers_under_one_slo() {
        let a = search(&["p99<50ms", "errors<0.1%"], Some(1500.0), Some(1700.0));
        let b = search(&["errors<0.1%", "p99 < 50ms"], Some(2000.0), Some(2200.0));
        assert!(matches!(
            judge(&a, &b),
            Pair::Searches {
                same_slo: true,
                apart: true,
                ..
            }
        ));
        // Overlapping brackets: the same answer at this precision.
        let c = search(&["p99<50ms", "errors<0.1%"], Some(1600.0), Some(1800.0));
        assert!(matches!(judge(&a, &c), Pair::Searches { apart: false, .. }));
        // A search that passed everything: its limit is at least its answer.
        let d = search(&["p99<50ms", "errors<0.1%"], Some(1650.0), None);
        assert!(matches!(judge(&a, &d), Pair::Searches { apart: false, .. }));
        let e = search(&["p99<20ms"], Some(900.0), Some(1000.0));
        assert!(matches!(
            judge(&a, &e),
            Pair::Searches {
                same_slo: false,
                ..
            }
        ));
    }
}
