//! `bulk --verify`'s finding in the result: the documents the server acknowledged
//! against those that appeared in it (moved here from `result/mod.rs` unchanged, to
//! keep that file under 800 lines).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `bulk --verify`: what the server acknowledged against what it holds.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
pub struct VerifyResult {
    /// Where the count was read (CouchDB `GET /db`, Groonga `select --limit 0`).
    pub url: String,
    /// Documents the server acknowledged over every step (items ok).
    pub acknowledged: u64,
    /// Documents that appeared: the count after the last step minus before the first.
    pub present: i64,
    pub present_before: u64,
    pub present_after: u64,
    /// `acknowledged` and `present` agree.
    pub matches: bool,
    /// Documents in requests cut off at a timed step's end: the server may have
    /// written them without hakaru seeing the answer. More present than acknowledged,
    /// by no more than this, is explained (not a failure).
    #[serde(default)]
    pub in_flight: u64,
}

impl VerifyResult {
    /// The comparison: documents that appeared (after − before) against those
    /// acknowledged.
    pub fn compare(
        url: String,
        acknowledged: u64,
        in_flight: u64,
        before: u64,
        after: u64,
    ) -> Self {
        let present = after as i64 - before as i64;
        VerifyResult {
            url,
            acknowledged,
            present,
            present_before: before,
            present_after: after,
            matches: present == acknowledged as i64,
            in_flight,
        }
    }

    /// More present than acknowledged, by no more than the documents in flight when a
    /// timed step ended: nothing acknowledged is missing.
    pub fn explained(&self) -> bool {
        let diff = self.present - self.acknowledged as i64;
        diff > 0 && diff as u64 <= self.in_flight
    }

    /// A difference that means documents are missing or unaccounted for.
    pub fn failed(&self) -> bool {
        !self.matches && !self.explained()
    }
}
