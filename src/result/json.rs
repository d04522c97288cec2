//! The JSON result file: the whole [`RunResult`], from which every other report can
//! be drawn again later.

use serde::Deserialize;
use thiserror::Error;

use crate::result::{RunResult, SCHEMA_VERSION};

/// Why a result file could not be read. Every message names the file.
#[derive(Debug, Error)]
pub enum ResultReadError {
    /// Not JSON, or JSON that is not a hakaru result.
    #[error("{path}:{line}:{column}: not a hakaru result: {message}")]
    Invalid {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// Written by a newer hakaru whose fields this one may misread.
    #[error(
        "{path} was written by a newer hakaru (schema {found}, this reads up to {supported}); \
         upgrade hakaru to read it"
    )]
    TooNew {
        path: String,
        found: u32,
        supported: u32,
    },
}

/// The result as pretty-printed JSON, ending with a newline.
pub fn to_json(run: &RunResult) -> String {
    let mut s = serde_json::to_string_pretty(run).expect("a RunResult always serializes");
    s.push('\n');
    s
}

/// Read a result written by [`to_json`]. `path_for_errors` only labels the errors.
///
/// The schema version is checked before anything else, so a newer file is refused
/// with that reason rather than with whichever field changed.
pub fn from_json(text: &str, path_for_errors: &str) -> Result<RunResult, ResultReadError> {
    #[derive(Deserialize)]
    struct Version {
        schema_version: u32,
        state: Option<serde::de::IgnoredAny>,
    }
    let invalid = |e: serde_json::Error| ResultReadError::Invalid {
        path: path_for_errors.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let version: Version = serde_json::from_str(text).map_err(invalid)?;
    if version.schema_version > SCHEMA_VERSION {
        return Err(ResultReadError::TooNew {
            path: path_for_errors.to_string(),
            found: version.schema_version,
            supported: SCHEMA_VERSION,
        });
    }
    let mut run: RunResult = serde_json::from_str(text).map_err(invalid)?;
    if version.state.is_none() {
        run.state = super::RunState::from_partial(run.partial);
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::fixture::{recorded_step, run};
    use crate::stats::ErrorKind;

    fn sample() -> RunResult {
        let ok: Vec<(u16, u64)> = (1..=500).map(|i| (200, i * 13)).collect();
        let mut with_errors = ok.clone();
        with_errors.push((503, 90_000));
        run(vec![
            recorded_step(1, 1.0, &ok, &[]),
            recorded_step(2, 1.0, &with_errors, &[(ErrorKind::Timeout, 5_000_000)]),
        ])
    }

    #[test]
    fn round_trips_with_histograms() {
        let original = sample();
        let text = to_json(&original);
        assert!(text.ends_with("}\n"));
        let back = from_json(&text, "r.json").unwrap();
        assert_eq!(to_json(&back), text);
        for (a, b) in original.steps.iter().zip(&back.steps) {
            let (ha, hb) = (a.decode_histogram().unwrap(), b.decode_histogram().unwrap());
            assert_eq!(ha, hb);
            assert_eq!(hb.len(), a.responses);
        }
        assert_eq!(back.steps[1].errors[&ErrorKind::Timeout], 1);
        assert_eq!(back.steps[1].statuses[&503], 1);
    }

    #[test]
    fn newer_schema_is_refused_by_name() {
        let mut r = sample();
        r.schema_version = SCHEMA_VERSION + 1;
        let err = from_json(&to_json(&r), "old/r.json").unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, ResultReadError::TooNew { .. }));
        assert!(msg.contains("old/r.json"), "{msg}");
        assert!(
            msg.contains(&format!(
                "newer hakaru (schema {}, this reads up to {SCHEMA_VERSION})",
                SCHEMA_VERSION + 1
            )),
            "{msg}"
        );
    }

    #[test]
    fn newer_schema_wins_over_unknown_shape() {
        let text = format!(
            "{{\"schema_version\": {}, \"steps\": 7}}",
            SCHEMA_VERSION + 5
        );
        let err = from_json(&text, "x.json").unwrap_err();
        assert!(matches!(err, ResultReadError::TooNew { .. }), "{err}");
    }

    #[test]
    fn bad_json_names_path_line_and_column() {
        let text = "{\n  \"schema_version\": 1,\n  oops\n}";
        let err = from_json(text, "bad.json").unwrap_err();
        match &err {
            ResultReadError::Invalid { line, column, .. } => {
                assert_eq!((*line, *column), (3, 3));
            }
            other => panic!("{other}"),
        }
        assert!(err.to_string().starts_with("bad.json:3:3: "), "{err}");
    }

    #[test]
    fn missing_fields_are_invalid_not_a_panic() {
        let err = from_json("{\"schema_version\": 1}", "s.json").unwrap_err();
        assert!(err.to_string().contains("missing field"), "{err}");
        let err = from_json("", "e.json").unwrap_err();
        assert!(err.to_string().starts_with("e.json:"), "{err}");
    }

    #[test]
    fn files_without_a_state_read_from_partial() {
        use crate::result::RunState;
        let mut r = sample();
        r.state = RunState::Running;
        let text = to_json(&r);
        assert!(text.contains("\"state\": \"running\""), "{text}");
        assert_eq!(from_json(&text, "r.json").unwrap().state, RunState::Running);
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v.as_object_mut().unwrap().remove("state");
        let old = serde_json::to_string(&v).unwrap();
        assert_eq!(from_json(&old, "r.json").unwrap().state, RunState::Complete);
        v["partial"] = true.into();
        let old = serde_json::to_string(&v).unwrap();
        assert_eq!(
            from_json(&old, "r.json").unwrap().state,
            RunState::Interrupted
        );
    }
}
