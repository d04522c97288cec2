//! The "top slow / top fast" lists: the N largest (or smallest) requests of a step,
//! kept in constant memory.

use serde::{Deserialize, Serialize};

/// One request kept for the "top slow / top fast" lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestSample {
    /// Response time in seconds.
    pub elapsed_s: f64,
    /// Index of the request in the plan (resolved to method and URL by the caller).
    pub request: usize,
    /// HTTP status, or 0 when the request ended in an error.
    pub status: u16,
    /// Which virtual client sent it.
    pub client: usize,
    /// The n-th request of that client in this step (0-based).
    pub index: u64,
    /// The request as it was sent, when its entry in `requests` is a template (a
    /// key-value command with the key it drew: `GET key:4711`); made only for a
    /// request that enters a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent: Option<String>,
}

/// Keeps the N largest (or smallest) samples in constant memory.
#[derive(Debug, Clone)]
pub struct TopN {
    keep: usize,
    slowest: bool,
    items: Vec<RequestSample>,
}

impl TopN {
    pub fn new(keep: usize, slowest: bool) -> Self {
        TopN {
            keep,
            slowest,
            items: Vec::with_capacity(keep + 1),
        }
    }

    /// Would a sample with this elapsed time enter the list? Cheap enough for the hot path.
    #[inline]
    pub fn wants(&self, elapsed_s: f64) -> bool {
        if self.keep == 0 {
            return false;
        }
        if self.items.len() < self.keep {
            return true;
        }
        let worst = self.items[self.items.len() - 1].elapsed_s;
        if self.slowest {
            elapsed_s > worst
        } else {
            elapsed_s < worst
        }
    }

    pub fn offer(&mut self, sample: RequestSample) {
        if !self.wants(sample.elapsed_s) {
            return;
        }
        // Sorted best-first; the list is tiny, so an insertion is cheaper than a heap.
        let slowest = self.slowest;
        let pos = self
            .items
            .iter()
            .position(|s| {
                if slowest {
                    sample.elapsed_s > s.elapsed_s
                } else {
                    sample.elapsed_s < s.elapsed_s
                }
            })
            .unwrap_or(self.items.len());
        self.items.insert(pos, sample);
        self.items.truncate(self.keep);
    }

    pub fn merge(&mut self, other: &TopN) {
        for s in &other.items {
            self.offer(s.clone());
        }
    }

    /// How many samples the list keeps at most.
    pub fn keep(&self) -> usize {
        self.keep
    }

    pub fn into_vec(self) -> Vec<RequestSample> {
        self.items
    }

    pub fn as_slice(&self) -> &[RequestSample] {
        &self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(ms: u64) -> RequestSample {
        RequestSample {
            elapsed_s: ms as f64 / 1e3,
            request: 0,
            status: 200,
            client: 0,
            index: ms,
            sent: None,
        }
    }

    #[test]
    fn top_n_keeps_constant_size() {
        let mut t = TopN::new(5, true);
        for ms in 0..10_000 {
            t.offer(sample(ms));
        }
        assert_eq!(t.as_slice().len(), 5);
        assert_eq!(t.as_slice()[0].index, 9999);
    }
}
