//! The built-in scenarios (`hakaru suite --profile NAME`), kept as files under
//! `suites/` and embedded: each a documented starting point to print, copy and adapt.

/// Name → the scenario's text.
pub const PROFILES: [(&str, &str); 3] = [
    ("read-heavy", include_str!("../../suites/read-heavy.toml")),
    ("write-heavy", include_str!("../../suites/write-heavy.toml")),
    (
        "fault-tolerance",
        include_str!("../../suites/fault-tolerance.toml"),
    ),
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
    }
}
