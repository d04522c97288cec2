//! `--rate`'s one grammar, for every command that paces (`run`, `ramp`, `bulk`,
//! `stream send`, a scenario's `rate`). The engine's pacer only runs the timetable
//! ([`RateProfile`]); how a person writes it is read here, once.
//!
//! A rate is requests (documents, records) per second: `500`, `2.5k`, `1M`. A list is
//! comma-separated items, each optionally prefixed with `DURATION@`:
//! - `RATE`: a fixed rate;
//! - `FROM..TO`: a linear ramp from one rate to the other;
//! - `START:END:STEP`: the fixed rates START, START+STEP, … END (drnbench-style, the
//!   same as writing them out).
//!
//! What a list means depends on the command, never its spelling: `run`, `stream` and a
//! scenario's phase take the items as the parts of one step (sharing the step's time
//! unless timed: `100,200,400`, `5s@100,10s@100..2000`); `ramp` takes each as a step
//! of its own (`100,200,400`, `100:2000:100`, and `100..200`: one step whose rate rises
//! across it); `bulk` takes one fixed rate.

use std::time::Duration;

use super::MAX_STEPS;
use crate::engine::pacer::{RateError, Segment, MAX_RATE, MIN_RATE};
use crate::engine::RateProfile;

/// What is wrong with a `--rate` (the caller names the flag and quotes the text).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RateSyntaxError {
    #[error("\"{0}\" is not a rate (per second: 500, 2.5k, 100..2000, 5s@100, 100:2000:100)")]
    NotARate(String),
    #[error("no rate given")]
    Empty,
    #[error("\"{0}\": the duration before @ is not a duration (5s, 1m30s)")]
    BadDuration(String),
    #[error("\"{0}\": expected START:END:STEP with END >= START and STEP > 0")]
    BadRange(String),
    #[error("more than the {MAX_STEPS} steps a run may have")]
    TooMany,
    #[error("{0}")]
    Range(#[from] RateError),
    #[error("the parts without a duration share the step's duration, but the step has none (give -d, or a duration to every part: 5s@100)")]
    NeedsDuration,
    #[error("the parts' durations ({0:.3} s) exceed the step's duration")]
    TooLong(f64),
    #[error("\"{0}\": each ramp step lasts --duration; DURATION@ is for one step's profile (run --rate)")]
    TimedStep(String),
    #[error("\"{0}\": one fixed rate is wanted here (e.g. 5000 or 5k), not a profile")]
    NotFixed(String),
}

/// One item of the list.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Item {
    Fixed(f64),
    Linear(f64, f64),
    Stepped { from: f64, to: f64, step: f64 },
}

/// A `--rate` as written: its items, each with its duration if it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct RateText {
    items: Vec<(Option<f64>, Item, String)>,
}

/// A rate per second: a number, with `k` (thousand) or `M` (million) if wanted. Zero is
/// allowed here (a linear ramp from 0); out-of-range rates are the profile's to refuse.
fn number(s: &str) -> Result<f64, RateSyntaxError> {
    let t = s.trim();
    let (digits, scale) = match t.strip_suffix(['k', 'K']) {
        Some(d) => (d, 1e3),
        None => match t.strip_suffix('M') {
            Some(d) => (d, 1e6),
            None => (t, 1.0),
        },
    };
    match digits.parse::<f64>() {
        Ok(r) if r.is_finite() => Ok(r * scale),
        _ => Err(RateSyntaxError::NotARate(s.trim().to_string())),
    }
}

impl RateText {
    /// Read the list; no meaning is given to it yet (see [`RateText::profile`],
    /// [`RateText::steps`], [`RateText::fixed`]).
    pub fn parse(text: &str) -> Result<RateText, RateSyntaxError> {
        let mut items = Vec::new();
        for part in text.split(',').map(str::trim) {
            if part.is_empty() {
                return Err(if text.trim().is_empty() {
                    RateSyntaxError::Empty
                } else {
                    RateSyntaxError::NotARate(text.trim().to_string())
                });
            }
            let (dur, spec) = match part.split_once('@') {
                Some((d, s)) => {
                    let d = super::parse_duration(d)
                        .map_err(|_| RateSyntaxError::BadDuration(part.to_string()))?;
                    (Some(d.as_secs_f64()), s)
                }
                None => (None, part),
            };
            let item = if let Some((a, b)) = spec.split_once("..") {
                Item::Linear(number(a)?, number(b)?)
            } else if spec.contains(':') {
                let nums: Vec<f64> = spec.split(':').map(number).collect::<Result<_, _>>()?;
                match nums[..] {
                    [from, to, step] if step > 0.0 && to >= from => {
                        if (to - from) / step >= MAX_STEPS as f64 {
                            return Err(RateSyntaxError::TooMany);
                        }
                        Item::Stepped { from, to, step }
                    }
                    _ => return Err(RateSyntaxError::BadRange(part.to_string())),
                }
            } else {
                Item::Fixed(number(spec)?)
            };
            items.push((dur, item, part.to_string()));
        }
        if items.len() > MAX_STEPS {
            return Err(RateSyntaxError::TooMany);
        }
        Ok(RateText { items })
    }

    /// The items with `START:END:STEP` written out: (duration, from, to, as typed).
    fn pieces(&self) -> Vec<(Option<f64>, f64, f64, &str)> {
        let mut out = Vec::new();
        for (dur, item, text) in &self.items {
            match *item {
                Item::Fixed(r) => out.push((*dur, r, r, text.as_str())),
                Item::Linear(a, b) => out.push((*dur, a, b, text.as_str())),
                Item::Stepped { from, to, step } => {
                    let mut i = 0.0;
                    while from + i * step <= to + 1e-9 {
                        let r = from + i * step;
                        out.push((*dur, r, r, text.as_str()));
                        i += 1.0;
                    }
                }
            }
        }
        out
    }

    /// One step's profile: the items one after the other, those without a duration
    /// sharing what is left of `step`. A single fixed rate needs no duration.
    pub fn profile(&self, step: Option<Duration>) -> Result<RateProfile, RateSyntaxError> {
        if let [(None, Item::Fixed(r), _)] = self.items[..] {
            return Ok(RateProfile::constant(fixed_in_range(r)?)?);
        }
        let pieces = self.pieces();
        if pieces.len() > MAX_STEPS {
            return Err(RateSyntaxError::TooMany);
        }
        let fixed: f64 = pieces.iter().filter_map(|p| p.0).sum();
        let unset = pieces.iter().filter(|p| p.0.is_none()).count();
        let total = step.map(|d| d.as_secs_f64());
        if let Some(t) = total {
            if fixed > t + 1e-9 {
                return Err(RateSyntaxError::TooLong(fixed));
            }
        }
        let share = match (unset, total) {
            (0, _) => 0.0,
            (_, None) => return Err(RateSyntaxError::NeedsDuration),
            (n, Some(t)) => (t - fixed) / n as f64,
        };
        let segments = pieces
            .into_iter()
            .map(|(d, from, to, _)| Segment {
                duration_s: Some(d.unwrap_or(share)),
                from,
                to,
            })
            .collect();
        Ok(RateProfile::new(segments)?)
    }

    /// A ramp's steps, one per item (`START:END:STEP` written out), each lasting
    /// `step`: a fixed rate, or a linear ramp across the step.
    pub fn steps(&self, step: Duration) -> Result<Vec<RateProfile>, RateSyntaxError> {
        if let Some((_, _, text)) = self.items.iter().find(|i| i.0.is_some()) {
            return Err(RateSyntaxError::TimedStep(text.clone()));
        }
        let pieces = self.pieces();
        if pieces.len() > MAX_STEPS {
            return Err(RateSyntaxError::TooMany);
        }
        pieces
            .into_iter()
            .map(|(_, from, to, _)| {
                if from == to {
                    Ok(RateProfile::constant(fixed_in_range(from)?)?)
                } else {
                    Ok(RateProfile::new(vec![Segment {
                        duration_s: Some(step.as_secs_f64()),
                        from,
                        to,
                    }])?)
                }
            })
            .collect()
    }

    /// One fixed rate (`bulk`'s documents per second).
    pub fn fixed(&self) -> Result<f64, RateSyntaxError> {
        match self.items[..] {
            [(None, Item::Fixed(r), _)] => fixed_in_range(r),
            _ => Err(RateSyntaxError::NotFixed(
                self.items
                    .iter()
                    .map(|i| i.2.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
            )),
        }
    }
}

fn fixed_in_range(r: f64) -> Result<f64, RateSyntaxError> {
    if (MIN_RATE..=MAX_RATE).contains(&r) {
        Ok(r)
    } else {
        Err(RateError::OutOfRange(r).into())
    }
}

/// One step's profile from `--rate`'s text (see [`RateText::profile`]).
pub fn parse_profile(text: &str, step: Option<Duration>) -> Result<RateProfile, RateSyntaxError> {
    RateText::parse(text)?.profile(step)
}

/// A clap value parser for a command that takes one fixed rate (`bulk --rate`).
pub fn parse_fixed_rate(text: &str) -> Result<f64, String> {
    RateText::parse(text)
        .and_then(|r| r.fixed())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Option<Duration> {
        Some(Duration::from_secs(s))
    }

    #[test]
    fn a_profile_of_one_step() {
        let p = parse_profile("0..200", secs(10)).unwrap();
        assert!((p.mean_rate(secs(10)) - 100.0).abs() < 1e-9);
        let p = parse_profile("100,200,400", secs(3)).unwrap();
        assert!((p.due_s(300).unwrap() - 2.0).abs() < 1e-9);
        let p = parse_profile("1s@10,1s@10..30", None).unwrap();
        assert_eq!(p.length_s(), Some(2.0));
        assert_eq!(
            parse_profile("2.5k", None).unwrap().fixed_rate(),
            Some(2500.0)
        );
        assert_eq!(parse_profile("1M", None).unwrap().fixed_rate(), Some(1e6));
        // ramp's spelling, accepted as the list it stands for.
        assert_eq!(
            parse_profile("100:300:100", secs(3)).unwrap(),
            parse_profile("100,200,300", secs(3)).unwrap()
        );
    }

    #[test]
    fn a_ramps_steps() {
        let d = Duration::from_secs(2);
        let rates = |t: &str| -> Vec<Option<f64>> {
            RateText::parse(t)
                .unwrap()
                .steps(d)
                .unwrap()
                .iter()
                .map(|p| p.fixed_rate())
                .collect()
        };
        assert_eq!(rates("100,200"), [Some(100.0), Some(200.0)]);
        assert_eq!(
            rates("100:300:100"),
            [Some(100.0), Some(200.0), Some(300.0)]
        );
        assert_eq!(
            rates("100:200:100,400"),
            [Some(100.0), Some(200.0), Some(400.0)]
        );
        // run's spelling: one step that rises across its duration.
        let steps = RateText::parse("100..200").unwrap().steps(d).unwrap();
        assert_eq!(steps.len(), 1);
        assert!((steps[0].mean_rate(Some(d)) - 150.0).abs() < 1e-9);
        let e = RateText::parse("5s@100").unwrap().steps(d).unwrap_err();
        assert!(
            e.to_string().contains("each ramp step lasts --duration"),
            "{e}"
        );
    }

    #[test]
    fn what_is_wrong_is_said() {
        let err = |t: &str, step| parse_profile(t, step).unwrap_err().to_string();
        assert!(err("x", None).contains("\"x\" is not a rate"));
        assert!(err("", None).contains("no rate"));
        assert!(err("100,", secs(1)).contains("is not a rate"));
        assert!(err("1e-20", None).contains("between"));
        assert!(err("1e9", None).contains("between"));
        assert!(err("0", None).contains("between"));
        assert!(err("nan", None).contains("not a rate"));
        assert!(err("100..200", None).contains("the step has none"));
        assert!(err("5s@100", secs(2)).contains("exceed"));
        assert!(err("300:100:100", secs(2)).contains("START:END:STEP"));
        assert!(err("1:100000:1", secs(2)).contains("steps a run may have"));
        assert!(err("x@100", secs(2)).contains("duration before @"));
        assert!(parse_fixed_rate("100..200")
            .unwrap_err()
            .contains("one fixed rate"));
        assert_eq!(parse_fixed_rate("5k"), Ok(5000.0));
    }
}
