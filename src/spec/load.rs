//! The load's shape (`Load`: one step, a ramp of client counts, a ramp of rates) and
//! the steps it makes, every range checked before any load.

use std::sync::Arc;
use std::time::Duration;

use super::{
    at_most_duration, check_clients, parse_profile, positive_duration, RateSyntaxError, RateText,
    SpecError, DEFAULT_RUN_DURATION, MAX_STEPS,
};
use crate::engine::{StepSpec, MAX_DURATION};
use crate::runner::client_steps;

/// The load's shape: which steps the run has.
#[derive(Debug, Clone, PartialEq)]
pub enum Load {
    /// `run`: one step of `clients` clients, ending after `duration` or `requests`
    /// ([`DEFAULT_RUN_DURATION`] when neither is given, the profile's length when its
    /// segments are timed). With `rate`, an open-model step on that profile (`--rate`).
    Step {
        clients: usize,
        duration: Option<Duration>,
        requests: Option<u64>,
        rate: Option<String>,
    },
    /// `ramp`: one closed-model step per client count, `start` to `end` by `step`
    /// (0 clients runs 1, as in drnbench).
    Clients {
        start: usize,
        end: usize,
        step: usize,
        duration: Duration,
        /// `--until-saturated`: `end` is a cap, the ramp ends when the target
        /// saturates ([`crate::runner::saturated`]); `step` 0 doubles the clients.
        until_saturated: bool,
    },
    /// `ramp --rate`: one open-model step per rate of `rates` (see [`RateText::steps`]),
    /// each with up to `clients` connections.
    Rates {
        rates: String,
        clients: usize,
        duration: Duration,
    },
}

impl Load {
    pub(super) fn steps(&self) -> Result<Vec<StepSpec>, SpecError> {
        match self {
            Load::Step {
                clients,
                duration,
                requests,
                rate,
            } => {
                check_clients("-c", *clients)?;
                if let Some(d) = duration {
                    positive_duration("-d", *d)?;
                }
                if *requests == Some(0) {
                    return Err(SpecError::AtLeast { flag: "-n", min: 1 });
                }
                let rate = match rate {
                    Some(text) => Some(Arc::new(
                        parse_profile(text, *duration).map_err(rate_error(text))?,
                    )),
                    None => None,
                };
                // A profile with timed segments lasts as long as they do.
                let profile_length =
                    match rate.as_ref().and_then(|r| r.length_s()) {
                        Some(s) => Some(Duration::try_from_secs_f64(s).map_err(|_| {
                            SpecError::TooLong {
                                flag: "--rate",
                                max: MAX_DURATION,
                                why: "30 days",
                            }
                        })?),
                        None => None,
                    };
                let duration = match (requests, duration.or(profile_length)) {
                    (None, None) => Some(DEFAULT_RUN_DURATION),
                    (_, d) => d,
                };
                if let Some(d) = duration {
                    at_most_duration("--rate", d)?;
                }
                Ok(vec![StepSpec {
                    n_clients: *clients,
                    duration,
                    n_requests: *requests,
                    rate,
                }])
            }
            Load::Clients {
                start,
                end,
                step,
                duration,
                until_saturated,
            } => {
                if *until_saturated && *step == 0 {
                    if end < start {
                        return Err(SpecError::EndBelowStart {
                            start: *start,
                            end: *end,
                        });
                    }
                    check_clients("--end-n-clients", *end)?;
                    positive_duration("--duration", *duration)?;
                    return Ok(crate::runner::doubling_steps(*start, *end)
                        .into_iter()
                        .map(|n| StepSpec {
                            n_clients: n,
                            duration: Some(*duration),
                            n_requests: None,
                            rate: None,
                        })
                        .collect());
                }
                if *step == 0 {
                    return Err(SpecError::AtLeast {
                        flag: "--step",
                        min: 1,
                    });
                }
                if end < start {
                    return Err(SpecError::EndBelowStart {
                        start: *start,
                        end: *end,
                    });
                }
                check_clients("--end-n-clients", *end)?;
                positive_duration("--duration", *duration)?;
                // Counted before they are listed: a million one-client steps is a typo.
                if (end - start) / step >= MAX_STEPS {
                    return Err(SpecError::TooManyClientSteps {
                        steps: (end - start) / step + 1,
                    });
                }
                Ok(client_steps(*start, *end, *step)
                    .into_iter()
                    .map(|n| StepSpec {
                        n_clients: n,
                        duration: Some(*duration),
                        n_requests: None,
                        rate: None,
                    })
                    .collect())
            }
            Load::Rates {
                rates,
                clients,
                duration,
            } => {
                check_clients("--end-n-clients", *clients)?;
                positive_duration("--duration", *duration)?;
                let steps = RateText::parse(rates)
                    .and_then(|r| r.steps(*duration))
                    .map_err(rate_error(rates))?;
                Ok(steps
                    .into_iter()
                    .map(|profile| StepSpec {
                        n_clients: *clients,
                        duration: Some(*duration),
                        n_requests: None,
                        rate: Some(Arc::new(profile)),
                    })
                    .collect())
            }
        }
    }
}

/// A `--rate` error with the flag and the text as typed.
fn rate_error(text: &str) -> impl Fn(RateSyntaxError) -> SpecError + '_ {
    move |why| SpecError::Rate {
        text: text.to_string(),
        why,
    }
}
