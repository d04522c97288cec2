//! What drives the engine: a [`Workload`] names the targets and gives each virtual
//! client a [`RequestSource`] (what to send next) and a [`ResponseCheck`] (what to
//! make of the answer). The engine owns pacing, connections, timeouts and recording;
//! a new kind of load is a new workload, never a copy of the client loop.
//!
//! The workloads themselves live in [`crate::workload`].

use std::sync::Arc;
use std::time::Duration;

use crate::http::Target;
use crate::kv::Expect;
use crate::result::RequestInfo;
use crate::stats::{ItemCounts, Labels};

/// A request's place in the step, handed to [`RequestSource::next`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Turn {
    /// The virtual client sending it (0-based, unique in the step).
    pub client: usize,
    /// The client's own count of requests in this step (0-based).
    pub n: u64,
    /// Open model: the request's index in the step's global timetable (unique across
    /// workers and shards). `None` in the closed model.
    pub index: Option<u64>,
}

/// One request, ready for the socket.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// Index into [`Workload::targets`].
    pub target: usize,
    /// The whole request as it goes on the wire.
    pub bytes: &'a [u8],
    pub timeout: Duration,
    /// A HEAD request: the response has no body whatever its headers say.
    pub head: bool,
    /// Index into [`Workload::request_infos`], for the slowest/fastest lists.
    pub info: usize,
    /// Items the request carries (documents of a bulk write); 0 for plain requests.
    pub items: u64,
    /// Index into [`Workload::labels`]: the kind of request it is counted under (0
    /// when the workload has no labels).
    pub label: u16,
    /// A key-value command's reply types ([`Expect::ANY`] for HTTP): decided once per
    /// command when the workload is built, checked where the reply is recorded.
    pub expect: Expect,
}

/// One virtual client's requests. Lives on one worker thread, so it needs no locks;
/// it may keep buffers and reuse them for every request.
pub trait RequestSource {
    fn next(&mut self, turn: Turn) -> Request<'_>;

    /// A request that is a conversation (a PostgreSQL transaction: the request
    /// [`RequestSource::next`] gave began it): its interpreter, which the target's
    /// connection asks for each statement and tells each answer. `None` (the
    /// default) for every one-message request.
    fn session(&mut self) -> Option<&mut dyn crate::sql::interp::Conversation> {
        None
    }

    /// The request [`RequestSource::next`] last gave as a person reads it, when the
    /// result's request list holds only its template (a key-value command with the
    /// key it drew, `GET key:4711`, not `GET key:{key}`); `None` (the default) when
    /// the list says it. Asked only of a request that enters the slowest or fastest
    /// list, so it may allocate.
    fn sent(&self) -> Option<String> {
        None
    }
}

/// A whole response, as a check sees it.
#[derive(Debug, Clone, Copy)]
pub struct Answer<'a> {
    pub status: u16,
    /// The body, up to [`ResponseCheck::body_limit`] bytes (empty when that is 0).
    pub body: &'a [u8],
    /// The body was longer than the limit; `body` holds its start.
    pub truncated: bool,
    /// Items the request carried ([`Request::items`]).
    pub items: u64,
}

/// What a client makes of each response beyond its status, which the engine always
/// records. Per client, like the source.
pub trait ResponseCheck {
    /// Bytes of body this check reads; 0 (the default) keeps bodies out of memory:
    /// they are counted and dropped as they arrive.
    fn body_limit(&self) -> usize {
        0
    }

    /// Look at one whole response and count what it says about the items it carried.
    fn check(&mut self, answer: &Answer<'_>, items: &mut ItemCounts);
}

/// The default check: the status is the whole story.
#[derive(Debug, Clone, Copy, Default)]
pub struct StatusOnly;

impl ResponseCheck for StatusOnly {
    #[inline]
    fn check(&mut self, _: &Answer<'_>, _: &mut ItemCounts) {}
}

/// A kind of load: the hosts it talks to and, per client, a source and a check.
/// Shared by every worker thread, so it is `Send + Sync`; what each client keeps for
/// itself lives in the source and check it makes.
pub trait Workload: Send + Sync + 'static {
    type Source: RequestSource + 'static;
    type Check: ResponseCheck + 'static;

    /// The hosts, resolved before any load.
    fn targets(&self) -> &[Target];

    /// Method and URL of the requests [`Request::info`] points at.
    fn request_infos(&self) -> Vec<RequestInfo>;

    /// Method and URL of request `info` alone, for the results' slowest and fastest
    /// lists; by default looked up in [`Workload::request_infos`]. A workload of many
    /// requests answers directly, so that the list is never built.
    fn request_info(&self, info: usize) -> Option<RequestInfo> {
        self.request_infos().into_iter().nth(info)
    }

    /// The kinds of request [`Request::label`] points at (a drnbench group, a
    /// pattern's name, a YCSB operation), built once: the engine counts each label's
    /// requests, and gives the first [`crate::stats::TIMED_LABELS`] a per-second
    /// timeline of their own, so a workload lists its busiest first. Empty (the
    /// default) for a workload of one kind.
    fn labels(&self) -> Arc<Labels> {
        Arc::default()
    }

    /// The source and the check of client `id.index` (unique in the step) in draw
    /// `id.draw`, made on the worker thread that runs it; the two may share
    /// per-client state (what was sent, for the check to compare). A workload that
    /// draws at random seeds its client from [`ClientId::seed`], so that each step
    /// draws requests of its own while a round repeats its earlier round's.
    fn client(&self, id: ClientId) -> (Self::Source, Self::Check);
}

/// Which client a workload makes, and from which of the run's draws.
///
/// A workload is made once per run and asked for its clients anew at every step. Were
/// a client's random state seeded by the run's seed and its index alone, every step's
/// client k would send exactly what the step before's client k sent: a short step's
/// requests would be ones the server has just answered, its cache hit rate inflated
/// (0.77 measured on Groonga against a planned 0.5). So each step has a draw of its own:
/// the runner numbers a step by its place in its round, so the rounds of
/// `--rounds` (Sekka's cold, warm and cleared measurements) send the same requests
/// while the steps of a ramp do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClientId {
    /// The virtual client (0-based, unique in the step).
    pub index: usize,
    /// The step's draw: which of the run's sequences its clients draw from.
    pub draw: u64,
}

impl ClientId {
    pub const fn new(index: usize, draw: u64) -> Self {
        ClientId { index, draw }
    }

    /// The seed of this draw, from the run's: the run's own seed in draw 0 (so a run
    /// of one step sends what it always did for a given `--seed`), and in every other
    /// draw a seed of its own. The workload mixes in the client's index as it always
    /// has. Distinct draws give distinct seeds: the draw times an odd constant is a
    /// bijection, and so is SplitMix64's finalizer.
    pub fn seed(self, run: u64) -> u64 {
        if self.draw == 0 {
            return run;
        }
        let mut z = (run ^ self.draw.wrapping_mul(0xD6E8_FEB8_6659_FD93))
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A bare index is client `index` of draw 0: a run's first step (and tests').
impl From<usize> for ClientId {
    fn from(index: usize) -> Self {
        ClientId { index, draw: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_seeds_apart_from_the_others() {
        // Draw 0 keeps the run's seed, so one-step runs send what they always did.
        assert_eq!(ClientId::new(3, 0).seed(42), 42);
        assert_eq!(ClientId::from(3), ClientId::new(3, 0));
        let seeds: std::collections::HashSet<u64> =
            (0..10_000).map(|d| ClientId::new(0, d).seed(42)).collect();
        assert_eq!(seeds.len(), 10_000);
        // The same draw of the same run is the same seed (rounds replay), another run's
        // seed another sequence.
        assert_eq!(ClientId::new(0, 5).seed(42), ClientId::new(9, 5).seed(42));
        assert_ne!(ClientId::new(0, 5).seed(42), ClientId::new(0, 5).seed(43));
    }
}
