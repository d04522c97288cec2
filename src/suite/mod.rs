//! `hakaru suite`: scenarios — phases of load run back to back (warm-up, steady,
//! spike, recovery…), each a weighted mix of workloads under a closed or open model,
//! with events (shell commands: stop, kill, restart a server) at given times, a
//! per-second timeline of the whole, and the recovery after each event.
//!
//! - [`scenario`]: the TOML file, checked before any load (file, line and key in
//!   every error); `file`: its shape as serde reads it.
//!   `phases`: its targets, phases and events checked; `sources`: its bulk and YCSB
//!   workloads' checks.
//! - [`events`]: the events' clock and their commands.
//! - [`run`]: phases → the runner's steps, the mix, the events, the recovery;
//!   `workloads`: each phase's workloads built and checked.
//! - [`profiles`]: the built-in scenarios (`--profile NAME`).

mod connection;
pub mod events;
mod file;
mod phases;
pub mod profiles;
pub mod run;
pub mod scenario;
mod sources;
mod workloads;

pub use run::{build, SuiteError, SuiteReady};
pub use scenario::{Scenario, ScenarioError};
