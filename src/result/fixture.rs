//! Hand-built results shared by the report tests.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::result::{
    encode_histogram, LatencySummary, LoadModel, Machine, Mode, RequestInfo, RequestList,
    RequestOrder, RunResult, RunState, Settings, StepFacts, StepResult, SCHEMA_VERSION,
};
use crate::stats::{new_histogram, ErrorKind, Outcome, Recorder, RequestSample};

/// A step where nothing happened; tests set the fields they care about.
pub fn bare_step(n_clients: usize) -> StepResult {
    StepResult {
        n_clients,
        rate: None,
        started_at: "2026-11-01T00:00:00Z".into(),
        elapsed_s: 30.0,
        partial: false,
        total_requests: 0,
        responses: 0,
        qps: 0.0,
        latency: LatencySummary::default(),
        service: None,
        connect: LatencySummary::default(),
        tls_handshake: None,
        statuses: BTreeMap::new(),
        ok_status: Default::default(),
        errors: BTreeMap::new(),
        error_samples: BTreeMap::new(),
        unfinished: 0,
        late: 0,
        dropped: 0,
        retried: 0,
        retries: 0,
        skipped: 0,
        bytes_received: 0,
        bytes_sent: 0,
        connections_opened: 0,
        connections_http2: 0,
        server_closes: 0,
        coalesce: None,
        client_cpu_s: 0.0,
        client_cpu_share: 0.0,
        per_host: Vec::new(),
        slowest: Vec::new(),
        fastest: Vec::new(),
        histogram: encode_histogram(&new_histogram()),
        service_histogram: None,
        slowest_capacity: None,
        fastest_capacity: None,
        connect_histogram: None,
        tls_handshake_histogram: None,
        waiting_histogram: None,
        processing_histogram: None,
        probes: Vec::new(),
        cache_hit_rate: None,
        server_process: None,
        round: 1,
        rate_profile: None,
        profile: None,
        failure: None,
        pacer_lag: None,
        pacer_lag_histogram: None,
        items: None,
        bulk: None,
        start_late_s: None,
        logins_s: None,
        timeline: None,
        timeline_note: None,
        labels: Vec::new(),
        labels_note: None,
        operations: BTreeMap::new(),
        before_round: None,
        before_step: None,
    }
}

/// A step measured the real way, through a [`Recorder`]: `responses` are
/// (status, latency µs), `errors` are (kind, time µs until the error).
pub fn recorded_step(
    n_clients: usize,
    elapsed_s: f64,
    responses: &[(u16, u64)],
    errors: &[(ErrorKind, u64)],
) -> StepResult {
    let mut rec = Recorder::new(1, 5, 5);
    let outcomes = responses
        .iter()
        .map(|(s, us)| (Outcome::Status(*s), *us))
        .chain(errors.iter().map(|(k, us)| (Outcome::Error(*k), *us)));
    for (i, (outcome, us)) in outcomes.enumerate() {
        let status = match outcome {
            Outcome::Status(s) => s,
            Outcome::Error(_) => 0,
        };
        rec.record(0, outcome, Duration::from_micros(us), || RequestSample {
            elapsed_s: us as f64 / 1e6,
            request: i % 2,
            status,
            client: i % n_clients.max(1),
            index: (i / n_clients.max(1)) as u64,
            sent: None,
        });
    }
    let facts = StepFacts {
        n_clients,
        rate: None,
        started_at: "2026-11-01T00:00:00Z".into(),
        elapsed_s,
        partial: false,
        failure: None,
        rate_profile: None,
        client_cpu_s: 0.5,
        cpus: 2,
    };
    StepResult::from_recorder(facts, &rec, &["http://127.0.0.1:10041".into()], false)
}

pub fn run(steps: Vec<StepResult>) -> RunResult {
    RunResult {
        schema_version: SCHEMA_VERSION,
        tool: "hakaru 0.1.0".into(),
        command_line: vec!["hakaru".into(), "ramp".into()],
        mode: Mode::Ramp,
        started_at: "2026-11-01T00:00:00Z".into(),
        partial: false,
        state: RunState::Complete,
        stop_reason: None,
        ended_because: None,
        settings: Settings {
            duration_s: Some(30.0),
            interval_s: 10.0,
            timeout_s: 10.0,
            keep_alive: true,
            model: LoadModel::Closed,
            order: RequestOrder::Random,
            seed: 42,
            patterns_source: "patterns.txt".into(),
            n_patterns: 2,
            threads: 2,
            ..Settings::default()
        },
        machine: Machine {
            hostname: "node0".into(),
            os: "linux".into(),
            cpus: 2,
            cpu_model: "test cpu".into(),
            memory_bytes: 1 << 30,
            fd_limit: Some(1024),
        },
        targets: vec!["http://127.0.0.1:10041".into()],
        requests: RequestList::all(vec![
            RequestInfo {
                id: None,
                method: "GET".into(),
                url: "http://127.0.0.1:10041/d/status".into(),
            },
            RequestInfo {
                id: None,
                method: "GET".into(),
                url: "http://127.0.0.1:10041/d/select?table=Store".into(),
            },
        ]),
        steps,
        verify: None,
        suite: None,
        thresholds: None,
        find_max: None,
        stopped_by_command: None,
    }
}
