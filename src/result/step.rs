//! A step's result from what the engine measured ([`StepResult::from_recorder`]) and
//! back ([`StepResult::to_recorder`]): the inverse, exact for every histogram,
//! counter, label and the per-second timeline, so results merge as exactly as the
//! workers of one step do.

use hdrhistogram::Histogram;

use super::{
    decode_histogram, encode_histogram, labels, timeline, CoalesceUse, HostResult, ItemsResult,
    LatencySummary, StepResult,
};
use crate::stats::timeline::{COARSE_SPAN_S, FINE_S};
use crate::stats::{ErrorKind, Recorder, MAX_TRACKABLE_US};

/// What a step's `timeline_note` says once its timeline was coarsened.
fn coarse_note() -> String {
    format!(
        "seconds after the first {FINE_S} are kept as {COARSE_SPAN_S}-second entries \
         (span_s {COARSE_SPAN_S}), so that a long run's timeline stays small"
    )
}

/// What the engine hands over at the end of a step, besides the recorder.
#[derive(Debug, Clone)]
pub struct StepFacts {
    pub n_clients: usize,
    pub rate: Option<f64>,
    pub started_at: String,
    pub elapsed_s: f64,
    pub partial: bool,
    pub failure: Option<String>,
    /// The rate profile in `--rate`'s syntax, when it changes within the step.
    pub rate_profile: Option<String>,
    pub client_cpu_s: f64,
    pub cpus: usize,
}

impl StepResult {
    pub fn from_recorder(
        facts: StepFacts,
        rec: &Recorder,
        targets: &[String],
        open_model: bool,
    ) -> Self {
        let responses = rec.responses();
        let errors = rec.error_counts();
        let total_requests = responses + rec.total_errors();
        let per_host = rec
            .per_host
            .iter()
            .enumerate()
            .map(|(i, h)| HostResult {
                target: targets.get(i).cloned().unwrap_or_default(),
                responses: h.responses,
                errors: h.errors,
                latency_sum_us: u64::try_from(h.latency_sum_us).unwrap_or(u64::MAX),
            })
            .collect();
        let elapsed = facts.elapsed_s.max(1e-9);
        StepResult {
            round: 1,
            n_clients: facts.n_clients,
            rate: facts.rate,
            started_at: facts.started_at,
            elapsed_s: facts.elapsed_s,
            partial: facts.partial,
            total_requests,
            responses,
            qps: responses as f64 / elapsed,
            latency: LatencySummary::of(&rec.latency),
            service: open_model.then(|| LatencySummary::of(&rec.service)),
            connect: LatencySummary::of(&rec.connect),
            tls_handshake: (!rec.tls_handshake.is_empty())
                .then(|| LatencySummary::of(&rec.tls_handshake)),
            statuses: rec.status_counts(),
            ok_status: rec.ok,
            errors,
            error_samples: rec.error_sample_map(),
            unfinished: rec.unfinished,
            late: rec.late,
            dropped: rec.dropped,
            retried: rec.retried,
            retries: rec.retries,
            skipped: rec.skipped,
            bytes_received: rec.bytes_received,
            bytes_sent: rec.bytes_sent,
            connections_opened: rec.connections_opened,
            connections_http2: rec.connections_http2,
            server_closes: rec.server_closes,
            coalesce: (rec.coalesce_pauses + rec.coalesce_passed > 0).then(|| CoalesceUse {
                pauses: rec.coalesce_pauses,
                slept_s: rec.coalesce_slept_us as f64 / 1e6,
                passed: rec.coalesce_passed,
            }),
            client_cpu_s: facts.client_cpu_s,
            client_cpu_share: facts.client_cpu_s / elapsed / facts.cpus.max(1) as f64,
            per_host,
            slowest: rec.slowest.as_slice().to_vec(),
            fastest: rec.fastest.as_slice().to_vec(),
            slowest_capacity: Some(rec.slowest.keep()),
            fastest_capacity: Some(rec.fastest.keep()),
            histogram: encode_histogram(&rec.latency),
            service_histogram: open_model.then(|| encode_histogram(&rec.service)),
            connect_histogram: Some(encode_histogram(&rec.connect)),
            tls_handshake_histogram: (!rec.tls_handshake.is_empty())
                .then(|| encode_histogram(&rec.tls_handshake)),
            waiting_histogram: (!rec.waiting.is_empty()).then(|| encode_histogram(&rec.waiting)),
            processing_histogram: (!rec.processing.is_empty())
                .then(|| encode_histogram(&rec.processing)),
            probes: Vec::new(),
            cache_hit_rate: None,
            server_process: None,
            rate_profile: facts.rate_profile,
            profile: None,
            failure: facts.failure,
            pacer_lag: (!rec.pacer_lag.is_empty()).then(|| LatencySummary::of(&rec.pacer_lag)),
            pacer_lag_histogram: (!rec.pacer_lag.is_empty())
                .then(|| encode_histogram(&rec.pacer_lag)),
            items: rec.items.has_items().then(|| ItemsResult {
                sent: rec.items.sent,
                ok: rec.items.ok,
                failed: rec.items.failed.iter().cloned().collect(),
            }),
            bulk: None,
            start_late_s: None,
            logins_s: None,
            timeline: rec
                .timeline
                .as_ref()
                .map(|t| timeline::seconds(t, facts.elapsed_s)),
            timeline_note: rec
                .timeline
                .as_ref()
                .filter(|t| t.coarsened())
                .map(|_| coarse_note()),
            operations: rec.items.operations.iter().cloned().collect(),
            before_round: None,
            before_step: None,
            labels: labels::of(rec, facts.elapsed_s),
            labels_note: rec.label_names.note.clone(),
        }
    }
}

/// Why a step result cannot become a recorder again.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("step {n_clients} clients (round {round}): {which} histogram: {message}")]
pub struct ToRecorderError {
    pub n_clients: usize,
    pub round: usize,
    /// "response-time", "service-time", "connect", "TLS handshake", "pacer lag",
    /// "per-second" or "label".
    pub which: &'static str,
    pub message: String,
}

impl StepResult {
    /// The recorder this step was made from: the inverse of [`StepResult::from_recorder`],
    /// exact for every histogram, counter and the slowest/fastest lists, so results
    /// from many runs or machines merge as exactly as the workers of one step do.
    ///
    /// A histogram absent from the file (schema 1 had no connect histogram) comes back
    /// empty; one that is present but does not decode is an error.
    pub fn to_recorder(&self) -> Result<Recorder, ToRecorderError> {
        let slow_keep = self.slowest_capacity.unwrap_or(self.slowest.len());
        let fast_keep = self.fastest_capacity.unwrap_or(self.fastest.len());
        let mut rec =
            Recorder::new(self.per_host.len(), slow_keep, fast_keep).with_ok(self.ok_status);
        // Into the recorder's own histogram, so every recorder keeps the same bounds
        // and merges without fail; values beyond them cannot come from hakaru.
        let put = |which: &'static str, text: Option<&String>, into: &mut Histogram<u64>| {
            let Some(text) = text else { return Ok(()) };
            decode_histogram(text)
                .and_then(|h| {
                    into.add(&h)
                        .map_err(|e| format!("values beyond {MAX_TRACKABLE_US} µs: {e:?}"))
                })
                .map_err(|message| ToRecorderError {
                    n_clients: self.n_clients,
                    round: self.round,
                    which,
                    message,
                })
        };
        put("response-time", Some(&self.histogram), &mut rec.latency)?;
        put(
            "service-time",
            self.service_histogram.as_ref(),
            &mut rec.service,
        )?;
        put("connect", self.connect_histogram.as_ref(), &mut rec.connect)?;
        put(
            "TLS handshake",
            self.tls_handshake_histogram.as_ref(),
            &mut rec.tls_handshake,
        )?;
        put("waiting", self.waiting_histogram.as_ref(), &mut rec.waiting)?;
        put(
            "processing",
            self.processing_histogram.as_ref(),
            &mut rec.processing,
        )?;
        put(
            "pacer lag",
            self.pacer_lag_histogram.as_ref(),
            &mut rec.pacer_lag,
        )?;
        if let Some(items) = &self.items {
            rec.items.sent = items.sent;
            rec.items.ok = items.ok;
            rec.items.failed = items.failed.iter().map(|(k, n)| (k.clone(), *n)).collect();
        }
        rec.items.operations = self
            .operations
            .iter()
            .map(|(k, n)| (k.clone(), *n))
            .collect();
        let last_code = rec.statuses.len() - 1;
        for (code, n) in &self.statuses {
            rec.statuses[usize::from(*code).min(last_code)] += n;
        }
        for (kind, n) in &self.errors {
            if let Some(i) = ErrorKind::ALL.iter().position(|k| k == kind) {
                rec.errors[i] += n;
            }
        }
        for (kind, message) in &self.error_samples {
            rec.note_error(*kind, || message.clone());
        }
        rec.bytes_received = self.bytes_received;
        rec.bytes_sent = self.bytes_sent;
        rec.connections_opened = self.connections_opened;
        rec.connections_http2 = self.connections_http2;
        rec.server_closes = self.server_closes;
        rec.unfinished = self.unfinished;
        rec.late = self.late;
        rec.skipped = self.skipped;
        rec.dropped = self.dropped;
        rec.retried = self.retried;
        rec.retries = self.retries;
        if let Some(c) = self.coalesce {
            rec.coalesce_pauses = c.pauses;
            rec.coalesce_slept_us = (c.slept_s * 1e6).round() as u64;
            rec.coalesce_passed = c.passed;
        }
        for (into, h) in rec.per_host.iter_mut().zip(&self.per_host) {
            into.responses = h.responses;
            into.errors = h.errors;
            into.latency_sum_us = u128::from(h.latency_sum_us);
        }
        // Offered in list order, ties keep their order: the lists come back as they were.
        for s in &self.slowest {
            rec.slowest.offer(s.clone());
        }
        for s in &self.fastest {
            rec.fastest.offer(s.clone());
        }
        let fail = |which: &'static str| {
            move |message: String| ToRecorderError {
                n_clients: self.n_clients,
                round: self.round,
                which,
                message,
            }
        };
        if let Some(t) = &self.timeline {
            rec.timeline = Some(timeline::to_timeline(t).map_err(fail("per-second"))?);
        }
        labels::into_recorder(&self.labels, self.labels_note.as_ref(), &mut rec)
            .map_err(fail("label"))?;
        Ok(rec)
    }
}
