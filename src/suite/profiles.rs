//! The built-in scenarios (`hakaru suite --profile NAME`), kept as files under
//! `suites/` and embedded: each a documented starting point to print, copy and adapt.

/// Name → the scenario's text.
pub const PROFILES: [(&str, &str); 9] = [
    ("read-heavy", include_str!("../../suites/read-heavy.toml")),
    ("write-heavy", include_str!("../../suites/write-heavy.toml")),
    (
        "fault-tolerance",
        include_str!("../../suites/fault-tolerance.toml"),
    ),
    // YCSB's core workloads over a CouchDB-style API: a load, then the mix.
    ("ycsb-a", include_str!("../../suites/ycsb-a.toml")),
    ("ycsb-b", include_str!("../../suites/ycsb-b.toml")),
    ("ycsb-c", include_str!("../../suites/ycsb-c.toml")),
    ("ycsb-d", include_str!("../../suites/ycsb-d.toml")),
    ("ycsb-e", include_str!("../../suites/ycsb-e.toml")),
    ("ycsb-f", include_str!("../../suites/ycsb-f.toml")),
];

/// The text of profile `name`.
pub fn profile(name: &str) -> Option<&'static str> {
    PROFILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The names, for messages: "read-heavy, write-heavy, fault-tolerance".
pub fn names() -> String {
    PROFILES
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::Scenario;
    use std::path::Path;

    #[test]
    fn every_profile_is_a_valid_scenario() {
        for (name, text) in PROFILES {
            let s = Scenario::parse(text, Path::new(&format!("profile:{name}")))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!s.phases.is_empty(), "{name}");
        }
        assert!(profile("fault-tolerance")
            .unwrap()
            .contains("kill -STOP {pid:node1}"));
        assert_eq!(profile("ycsb-z"), None);
        // Each YCSB profile loads, then runs its own workload over the same records.
        for k in ["a", "b", "c", "d", "e", "f"] {
            let name = format!("ycsb-{k}");
            let s = Scenario::parse(profile(&name).unwrap(), Path::new(&name)).unwrap();
            let ycsb: Vec<_> = s
                .phases
                .iter()
                .map(|p| match &p.workloads[0].source {
                    crate::suite::scenario::Source::Ycsb(y) => y.clone(),
                    other => panic!("{name}: {other:?}"),
                })
                .collect();
            assert_eq!(ycsb[0].core, crate::workload::ycsb::Core::Load, "{name}");
            assert_eq!(ycsb[1].core.as_str(), k);
            assert_eq!(
                (ycsb[0].records, ycsb[0].url.clone()),
                (ycsb[1].records, ycsb[1].url.clone())
            );
            assert_eq!(ycsb[1].distribution, ycsb[1].core.default_distribution());
        }
    }
}
