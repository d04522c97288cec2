//! The JSON Schema of the result file, generated from the result structs (their doc
//! comments become the descriptions) and committed at `docs/result.schema.json`.
//!
//! A test regenerates it and compares with the committed file, so the writer cannot
//! drift from the published schema unnoticed; `HAKARU_BLESS=1 cargo test schema`
//! rewrites the file after a deliberate change (bump [`super::SCHEMA_VERSION`] when a
//! field changes meaning or disappears).

use std::borrow::Cow;

use schemars::generate::SchemaSettings;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};

use super::RunResult;
use crate::stats::{ErrorKind, RequestSample};

/// Where the committed schema lives, relative to the crate root.
pub const SCHEMA_PATH: &str = "docs/result.schema.json";

/// The schema of what [`super::json::to_json`] writes, pretty-printed, ending with a newline.
pub fn result_schema() -> String {
    let schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<RunResult>();
    let mut s = serde_json::to_string_pretty(&schema).expect("a schema always serializes");
    s.push('\n');
    s
}

// The two stats types a result holds get their schemas here rather than by a derive in
// `stats`, which knows nothing of files. Both are built from the types themselves
// (the kinds from `ErrorKind::ALL`, the sample's fields from the mirror below, checked
// against a serialized sample in the tests), so neither can drift silently.

impl JsonSchema for ErrorKind {
    fn schema_name() -> Cow<'static, str> {
        "ErrorKind".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let kinds: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        json_schema!({
            "description": "Why a request produced no HTTP response.",
            "type": "string",
            "enum": kinds,
        })
    }
}

/// The fields of [`RequestSample`] as the file holds them.
#[derive(JsonSchema)]
#[schemars(rename = "RequestSample")]
#[allow(dead_code)] // Only its schema is used.
struct RequestSampleFields {
    /// Response time in seconds.
    elapsed_s: f64,
    /// Index of the request in `requests`.
    request: usize,
    /// HTTP status, or 0 when the request ended in an error.
    status: u16,
    /// Which virtual client sent it.
    client: usize,
    /// The n-th request of that client in this step (0-based).
    index: u64,
    /// The request as it was sent, when its entry in `requests` is a template (a
    /// key-value command with the key it drew: `GET key:4711`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sent: Option<String>,
}

impl JsonSchema for RequestSample {
    fn schema_name() -> Cow<'static, str> {
        RequestSampleFields::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        RequestSampleFields::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::*;
    use crate::result::json::from_json;

    fn manifest_path(relative: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
    }

    #[test]
    fn schema_on_disk_matches_the_writer() {
        let path = manifest_path(SCHEMA_PATH);
        let generated = result_schema();
        if std::env::var_os("HAKARU_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(&path, &generated).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{SCHEMA_PATH} differs from the result structs: if the change is deliberate, \
             run `HAKARU_BLESS=1 cargo test schema` and commit the file (and bump \
             SCHEMA_VERSION if a field changed meaning or disappeared)"
        );
    }

    #[test]
    fn request_sample_schema_has_the_serialized_fields() {
        let sample = RequestSample {
            elapsed_s: 0.1,
            request: 0,
            status: 200,
            client: 0,
            index: 0,
            sent: Some("GET key:4711".into()),
        };
        let value = serde_json::to_value(&sample).unwrap();
        let written: BTreeSet<String> = value.as_object().unwrap().keys().cloned().collect();
        let schema = schemars::schema_for!(RequestSample);
        let described: BTreeSet<String> = schema
            .get("properties")
            .and_then(|p| p.as_object())
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(written, described);
    }

    #[test]
    fn schema_1_fixture_still_reads() {
        let path = manifest_path("tests/fixtures/hakaru-result.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let run = from_json(&text, "hakaru-result.json").unwrap();
        assert_eq!(run.schema_version, 1);
        assert!(!run.steps.is_empty());
        let host = &run.steps[0].per_host[0];
        assert_eq!(host.mean_s(), 0.00046);
    }
}
