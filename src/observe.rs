//! One run, several watchers: the console, the Prometheus exporter, the NDJSON stream
//! and the `--abort-on-fail` judge all see the same events. The runner talks to one
//! [`Observer`]; a [`Fanout`] is that one and forwards every event to each of its
//! observers in the order they were added (the console first, so what a person reads
//! comes before anything slower).

use std::time::Duration;

use crate::engine::{Progress, StepSpec};
use crate::result::{RunResult, StepResult};
use crate::runner::{Observer, Position};

/// Observers watching one run together.
#[derive(Default)]
pub struct Fanout<'a> {
    observers: Vec<Box<dyn Observer + 'a>>,
}

impl<'a> Fanout<'a> {
    pub fn new() -> Self {
        Fanout::default()
    }

    /// One more observer, after those already added (a `&mut` to one works too).
    pub fn with(mut self, observer: impl Observer + 'a) -> Self {
        self.push(observer);
        self
    }

    pub fn push(&mut self, observer: impl Observer + 'a) {
        self.observers.push(Box::new(observer));
    }

    /// Every observer of `other` after these.
    pub fn extend(&mut self, other: Fanout<'a>) {
        self.observers.extend(other.observers);
    }

    pub fn len(&self) -> usize {
        self.observers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.observers.is_empty()
    }
}

impl Observer for Fanout<'_> {
    fn step_started(&mut self, at: Position, spec: &StepSpec) {
        self.observers
            .iter_mut()
            .for_each(|o| o.step_started(at, spec));
    }
    fn progress(&mut self, spec: &StepSpec, p: Progress) {
        self.observers.iter_mut().for_each(|o| o.progress(spec, p));
    }
    fn step_finished(&mut self, run: &RunResult, step: &StepResult) {
        self.observers
            .iter_mut()
            .for_each(|o| o.step_finished(run, step));
    }
    fn interval(&mut self, d: Duration) {
        self.observers.iter_mut().for_each(|o| o.interval(d));
    }
    fn warmup_started(&mut self, d: Duration, spec: &StepSpec) {
        self.observers
            .iter_mut()
            .for_each(|o| o.warmup_started(d, spec));
    }
    fn warmup_finished(&mut self, responses: u64, errors: u64) {
        self.observers
            .iter_mut()
            .for_each(|o| o.warmup_finished(responses, errors));
    }
}

/// A borrowed observer is an observer: `Fanout::new().with(&mut console)`.
impl<O: Observer + ?Sized> Observer for &mut O {
    fn step_started(&mut self, at: Position, spec: &StepSpec) {
        (**self).step_started(at, spec);
    }
    fn progress(&mut self, spec: &StepSpec, p: Progress) {
        (**self).progress(spec, p);
    }
    fn step_finished(&mut self, run: &RunResult, step: &StepResult) {
        (**self).step_finished(run, step);
    }
    fn interval(&mut self, d: Duration) {
        (**self).interval(d);
    }
    fn warmup_started(&mut self, d: Duration, spec: &StepSpec) {
        (**self).warmup_started(d, spec);
    }
    fn warmup_finished(&mut self, responses: u64, errors: u64) {
        (**self).warmup_finished(responses, errors);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes down what it saw, tagged with its name.
    struct Log<'a>(&'static str, &'a std::cell::RefCell<Vec<String>>);

    impl Observer for Log<'_> {
        fn interval(&mut self, d: Duration) {
            self.1
                .borrow_mut()
                .push(format!("{} {}", self.0, d.as_secs()));
        }
        fn warmup_finished(&mut self, responses: u64, errors: u64) {
            self.1
                .borrow_mut()
                .push(format!("{} {responses}/{errors}", self.0));
        }
    }

    #[test]
    fn every_observer_sees_every_event_in_the_order_added() {
        let seen = std::cell::RefCell::new(Vec::new());
        let mut first = Log("a", &seen);
        let mut all = Fanout::new().with(&mut first).with(Log("b", &seen));
        let mut more = Fanout::new();
        more.push(Log("c", &seen));
        all.extend(more);
        assert_eq!(all.len(), 3);
        all.interval(Duration::from_secs(2));
        all.warmup_finished(5, 1);
        assert_eq!(
            *seen.borrow(),
            ["a 2", "b 2", "c 2", "a 5/1", "b 5/1", "c 5/1"]
        );
    }
}
