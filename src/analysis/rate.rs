//! The open model's reading of a run whose steps differ by arrival rate: which offered
//! rates the server held and the first it could not. A rate is held when at least
//! [`HELD_SHARE`] of it was answered and no due request was left unsent; past that
//! point, latency measured from the due time grows without bound, so the highest rate
//! held is the capacity the run found.

use crate::result::series::{Point, Series};

/// Share of the offered rate that must be answered for the rate to count as held.
pub const HELD_SHARE: f64 = 0.95;

/// True when the server kept up with this step's offered rate: and with a rate
/// profile, with every segment of it (a mean rate answered hides a spike not held).
pub fn held(p: &Point) -> bool {
    let segments = p
        .profile
        .as_ref()
        .and_then(|x| x.verdict.as_ref())
        .is_none_or(|v| v.held);
    segments
        && p.rate
            .is_some_and(|r| p.qps >= r * HELD_SHARE && p.dropped == 0)
}

/// One step of an open-model run, as the reports need it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateStep {
    /// Index of the step in the series.
    pub index: usize,
    /// Offered rate, requests per second.
    pub rate: f64,
    /// Responses per second.
    pub achieved: f64,
    pub held: bool,
}

/// What an open-model run found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RateFindings {
    /// Every step with an offered rate, in run order.
    pub steps: Vec<RateStep>,
    /// The highest offered rate the server held.
    pub highest_held: Option<RateStep>,
    /// The first step (in run order) whose rate the server did not hold.
    pub first_behind: Option<RateStep>,
}

/// Read an open-model series; empty findings for a series without rates.
pub fn analyse_rates(s: &Series) -> RateFindings {
    let steps: Vec<RateStep> = s
        .points
        .iter()
        .enumerate()
        .filter_map(|(index, p)| {
            p.rate.map(|rate| RateStep {
                index,
                rate,
                achieved: p.qps,
                held: held(p),
            })
        })
        .collect();
    let highest_held = steps
        .iter()
        .filter(|r| r.held)
        .max_by(|a, b| a.rate.total_cmp(&b.rate))
        .copied();
    let first_behind = steps.iter().find(|r| !r.held).copied();
    RateFindings {
        steps,
        highest_held,
        first_behind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::series::SourceFormat;

    fn series(pts: &[(f64, f64, u64)]) -> Series {
        Series {
            label: "r".into(),
            source: "r.json".into(),
            format: SourceFormat::HakaruJson,
            points: pts
                .iter()
                .map(|&(rate, qps, dropped)| Point {
                    n_clients: 50,
                    rate: Some(rate),
                    qps,
                    dropped,
                    ..Point::default()
                })
                .collect(),
            settings: None,
            machine: None,
            command_line: Vec::new(),
            tool: None,
            started_at: None,
            targets: Vec::new(),
            partial: false,
            state: Default::default(),
            named: None,
            points_are: Default::default(),
        }
    }

    #[test]
    fn finds_the_highest_rate_held_and_the_first_not() {
        let f = analyse_rates(&series(&[
            (100.0, 100.0, 0),
            (200.0, 199.0, 0),
            (400.0, 320.0, 0),
            (800.0, 330.0, 120),
        ]));
        assert_eq!(f.highest_held.map(|r| r.rate), Some(200.0));
        assert_eq!(f.first_behind.map(|r| (r.index, r.rate)), Some((2, 400.0)));
        // Requests left unsent mean the rate was not held, whatever was answered.
        assert!(!held(&series(&[(100.0, 100.0, 1)]).points[0]));
    }

    #[test]
    fn a_server_that_kept_up_everywhere_has_no_limit_found() {
        let f = analyse_rates(&series(&[(100.0, 100.2, 0), (200.0, 199.9, 0)]));
        assert_eq!(f.first_behind, None);
        assert_eq!(f.highest_held.map(|r| r.rate), Some(200.0));
        assert!(analyse_rates(&series(&[])).steps.is_empty());
    }
}
