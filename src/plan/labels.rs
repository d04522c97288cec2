//! The labels of a plan's requests: a pattern's own `name` when the file names any
//! (a pattern without one takes its group's name, or "unnamed"), otherwise the group
//! (`group`: its name, or `#N` in the array forms) when there are several, otherwise
//! none (one kind of request: the step's totals are its numbers).
//!
//! Labels are numbered busiest first, by the share of requests a random draw gives
//! them (group frequency ÷ patterns in the group), so that the engine's timed labels
//! are the busiest and the cap of [`crate::stats::MAX_LABELS`] folds the rarest into
//! "other".

use std::collections::HashMap;
use std::sync::Arc;

use crate::pattern::{Entry, Group, PatternSet};
use crate::stats::{LabelSet, Labels};

/// Each request's label, and the labels' names.
#[derive(Debug, Clone, Default)]
pub(super) struct PlanLabels {
    pub labels: Arc<Labels>,
    /// By request, when patterns are named.
    by_request: Option<Vec<u16>>,
    /// By group (in the plan's group order), otherwise.
    pub by_group: Vec<u16>,
}

impl PlanLabels {
    /// The label of request `id`; `group` finds the plan's group it belongs to.
    #[inline]
    pub fn of(&self, id: usize, group: impl FnOnce() -> usize) -> u16 {
        match &self.by_request {
            Some(v) => v[id],
            None => self.by_group.get(group()).copied().unwrap_or(0),
        }
    }
}

/// Collects provisional labels as the plan is built, then numbers them busiest first.
pub(super) struct Collector {
    key: &'static str,
    /// Provisional labels: value and expected share of requests.
    values: Vec<(String, f64)>,
    index: HashMap<String, u32>,
    by_request: Vec<u32>,
    by_group: Vec<u32>,
}

impl Collector {
    pub fn new(set: &PatternSet) -> Self {
        let named = set.groups.iter().any(|g| {
            g.patterns
                .iter()
                .any(|e| matches!(e, Entry::Full(p) if p.name.is_some()))
        });
        Collector {
            key: if named { "name" } else { "group" },
            values: Vec::new(),
            index: HashMap::new(),
            by_request: Vec::new(),
            by_group: Vec::new(),
        }
    }

    fn provisional(&mut self, value: &str, share: f64) -> u32 {
        let i = *self.index.entry(value.to_string()).or_insert_with(|| {
            self.values.push((value.to_string(), 0.0));
            self.values.len() as u32 - 1
        });
        self.values[i as usize].1 += share;
        i
    }

    /// Pattern `entry` of group `gi` became `n` requests; `share` is its expected
    /// share of all requests.
    pub fn pattern(&mut self, gi: usize, group: &Group, entry: &Entry<'_>, n: usize, share: f64) {
        if self.key != "name" {
            return;
        }
        let own = match entry {
            Entry::Full(p) => p.name.as_deref(),
            Entry::Path { .. } => None,
        };
        let value = match (own, &group.name) {
            (Some(n), _) => n.to_string(),
            (None, Some(g)) => g.clone(),
            (None, None) => format!("unnamed #{}", gi + 1),
        };
        let i = self.provisional(&value, share);
        self.by_request.extend(std::iter::repeat_n(i, n));
    }

    /// Group `gi` of the file became the plan's next group, with this share.
    pub fn group(&mut self, gi: usize, group: &Group, share: f64) {
        if self.key != "group" {
            return;
        }
        let value = group.name.clone().unwrap_or_else(|| format!("#{}", gi + 1));
        let i = self.provisional(&value, share);
        self.by_group.push(i);
    }

    pub fn finish(self) -> PlanLabels {
        let mut order: Vec<usize> = (0..self.values.len()).collect();
        // Busiest first; ties keep file order.
        order.sort_by(|a, b| self.values[*b].1.total_cmp(&self.values[*a].1));
        let mut set = LabelSet::new();
        let mut final_of = vec![0u16; self.values.len()];
        for i in order {
            final_of[i] = set.intern(self.key, &self.values[i].0);
        }
        let cause = if self.key == "name" {
            "the patterns' names"
        } else {
            "the patterns file's groups"
        };
        let labels = set.finish(cause);
        if labels.is_empty() {
            return PlanLabels::default();
        }
        let map = |v: Vec<u32>| v.into_iter().map(|i| final_of[i as usize]).collect();
        PlanLabels {
            labels: Arc::new(labels),
            by_request: (self.key == "name").then(|| map(self.by_request)),
            by_group: map(self.by_group),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::{Defaults, Plan};

    fn plan(text: &str) -> Plan {
        let set = crate::pattern::parse(text, "t").expect("parses");
        Plan::build(&set, &Defaults::default()).expect("builds")
    }

    fn values(p: &Plan) -> Vec<(String, String)> {
        p.labels()
            .list
            .iter()
            .map(|l| (l.key.clone(), l.value.clone()))
            .collect()
    }

    #[test]
    fn groups_are_labels_busiest_first() {
        let p = plan(
            r#"{"load": {"frequency": 0.2, "patterns": ["http://127.0.0.1:1/l"]},
                "search": {"frequency": 0.8,
                           "patterns": ["http://127.0.0.1:1/a", "http://127.0.0.1:1/b"]}}"#,
        );
        let g = |v: &str| ("group".to_string(), v.to_string());
        assert_eq!(values(&p), vec![g("search"), g("load")]);
        // Request 0 is load's, 1 and 2 search's.
        assert_eq!((p.label(0), p.label(1), p.label(2)), (1, 0, 0));
    }

    #[test]
    fn names_win_over_groups_and_one_kind_is_no_breakdown() {
        let p = plan(
            "name=a http://127.0.0.1:1/a\nhttp://127.0.0.1:1/x\nname=b http://127.0.0.1:1/b\n\
             name=a http://127.0.0.1:1/a2\n",
        );
        let names: Vec<String> = values(&p).into_iter().map(|(_, v)| v).collect();
        assert_eq!(names, ["a", "unnamed #1", "b"]);
        assert_eq!(
            (0..4).map(|i| p.label(i)).collect::<Vec<_>>(),
            vec![0, 1, 2, 0]
        );
        assert!(plan("http://127.0.0.1:1/a\nhttp://127.0.0.1:1/b\n")
            .labels()
            .is_empty());
        assert_eq!(plan("http://127.0.0.1:1/a\n").label(0), 0);
    }

    #[test]
    fn unique_names_past_the_cap_are_other() {
        let text: String = (0..300)
            .map(|i| format!("name=u{i} http://127.0.0.1:1/{i}\n"))
            .collect();
        let p = plan(&text);
        let labels = p.labels();
        assert_eq!(labels.len(), crate::stats::MAX_LABELS);
        assert_eq!(labels.list.last().map(|l| l.value.as_str()), Some("other"));
        assert!(labels.note.as_deref().unwrap_or("").contains("101 more"));
        assert_eq!(usize::from(p.label(299)), crate::stats::MAX_LABELS - 1);
    }
}
