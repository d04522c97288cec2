//! What drives the engine: each workload is a [`crate::engine::Workload`] — a request
//! source and a response check per client — never a copy of the client loop.
//!
//! - [`request_response`]: requests from patterns files and URLs (`run`, `ramp`, `demo`).
//! - [`check`]: response checks that read bodies: a count at a JSON pointer (Groonga's
//!   `load`), per-item results (CouchDB's `_bulk_docs`).
//! - [`bulk`]: bulk writes (`hakaru bulk`): batches of documents from a template,
//!   built at send time, to CouchDB or Groonga.

pub mod bulk;
pub mod check;
pub mod kv;
pub mod mix;
pub mod request_response;
pub mod sql;
pub mod sysbench;
pub mod ycsb;

pub use request_response::{PlanSource, PlanWorkload};
