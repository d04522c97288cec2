//! Findings about one step from its own numbers: which side's CPU was the limit,
//! whether the server's cache hit rate matched the plan, whether keep-alive happened.
//! Thresholds live here, once; the terminal report words the findings.

use super::CLIENT_CPU_LIMIT;
use crate::result::{Settings, StepResult};

/// Cache hit rates off the plan by more than this (0..1) are worth a warning.
pub const HIT_RATE_TOLERANCE: f64 = 0.10;
/// A process below this share of the cores is far from using its cores.
pub const IDLE_SHARE: f64 = 0.5;
/// A watched server process above this share of the cores was the limit.
pub const SERVER_BUSY_SHARE: f64 = 0.9;
/// Connections per request from which keep-alive counts as not having happened.
pub const NO_KEEP_ALIVE_RATIO: f64 = 0.9;

/// Which side's CPU limited a step, when one clearly did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuLimit {
    /// hakaru was saturated while the server sat mostly idle: the numbers are the
    /// client's limit, not the server's.
    Client,
    /// The server kept its cores busy while hakaru had room to spare.
    Server,
}

/// True when hakaru's own CPU share (0..1 of all cores) says it may be the bottleneck.
pub fn client_busy(client_cpu_share: f64) -> bool {
    client_cpu_share > CLIENT_CPU_LIMIT
}

/// Which side was the limit, from hakaru's and the server's shares of the cores (0..1).
pub fn cpu_limit(client_share: f64, server_share: f64) -> Option<CpuLimit> {
    if client_busy(client_share) && server_share < IDLE_SHARE {
        Some(CpuLimit::Client)
    } else if server_share > SERVER_BUSY_SHARE && client_share < IDLE_SHARE {
        Some(CpuLimit::Server)
    } else {
        None
    }
}

/// True when the measured cache hit rate is off the planned one by more than
/// [`HIT_RATE_TOLERANCE`] (both 0..1).
pub fn hit_rate_off_plan(measured: f64, planned: f64) -> bool {
    (measured - planned).abs() > HIT_RATE_TOLERANCE
}

/// True when keep-alive was asked for but nearly every request opened a connection.
pub fn keep_alive_missing(settings: &Settings, step: &StepResult) -> bool {
    settings.keep_alive
        && step.total_requests > 1
        && step.connections_opened as f64 / step.total_requests as f64 >= NO_KEEP_ALIVE_RATIO
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busy_side_is_the_limit_only_when_the_other_is_idle() {
        assert_eq!(cpu_limit(0.95, 0.2), Some(CpuLimit::Client));
        assert_eq!(cpu_limit(0.2, 0.95), Some(CpuLimit::Server));
        assert_eq!(cpu_limit(0.95, 0.95), None);
        assert_eq!(cpu_limit(0.6, 0.6), None);
        assert!(client_busy(0.91) && !client_busy(0.9));
    }

    #[test]
    fn hit_rate_tolerance_is_in_points() {
        assert!(!hit_rate_off_plan(0.55, 0.5));
        assert!(hit_rate_off_plan(0.65, 0.5));
    }
}
