//! The checks of `hakaru bulk`'s options that need nothing built: what each kind of
//! target refuses, the ranges of the counts and times, and the most bytes one batch
//! may carry (reckoned from the templates before any batch is built).

use super::bulk::{BulkError, BulkOptions};
use super::{at_most_duration, positive_duration, SpecError, MAX_THREADS};
use crate::engine::MAX_TIMEOUT;
use crate::workload::bulk::template::{parse_slot, Slot};
use crate::workload::bulk::{DocTemplate, TargetKind, Templated};

impl BulkOptions {
    /// What the URL must name and the flags each kind of target refuses.
    pub(super) fn check_target(&self, base_path: &str) -> Result<(), BulkError> {
        match self.target {
            TargetKind::CouchDb => {
                if base_path.is_empty() {
                    return Err(BulkError::NoDatabase(self.url.clone()));
                }
                if self.table.is_some() {
                    return Err(BulkError::TableForCouchDb);
                }
            }
            TargetKind::Elasticsearch => {
                if base_path.is_empty() {
                    return Err(BulkError::NoIndex(self.url.clone()));
                }
                let refuse = |what, why| Err(BulkError::NotElasticsearch { what, why });
                if self.table.is_some() {
                    return refuse("--table", "the index is the URL's path");
                }
                if self.single {
                    return refuse(
                        "--single here",
                        "one document per request is --batch-sizes 1 (a _bulk of one)",
                    );
                }
                if self.batch_ok {
                    return refuse(
                        "batch=ok mode",
                        "it is CouchDB's (a 202 for writes kept in memory); leave out --batch-ok",
                    );
                }
                if self.full_commit {
                    return refuse(
                        "full-commit header",
                        "X-Couch-Full-Commit is CouchDB's (Elasticsearch fsyncs its translog per request by default); leave out --full-commit",
                    );
                }
            }
            TargetKind::Template => {
                for (given, what) in [
                    (self.single, "--single"),
                    (self.batch_ok, "--batch-ok"),
                    (self.full_commit, "--full-commit"),
                    (self.table.is_some(), "--table"),
                ] {
                    if given {
                        return Err(BulkError::NotTemplate { what });
                    }
                }
                if self.template.is_none() {
                    return Err(BulkError::NoTemplate);
                }
            }
            TargetKind::Groonga => {
                if self.table.as_deref().is_none_or(|t| t.trim().is_empty()) {
                    return Err(BulkError::NoTable);
                }
                if self.batch_ok {
                    return Err(BulkError::NotGroonga {
                        what: "batch=ok mode",
                        why: "it is CouchDB's (a 202 for writes kept in memory); leave out --batch-ok",
                    });
                }
                if self.full_commit {
                    return Err(BulkError::NotGroonga {
                        what: "full-commit header",
                        why: "X-Couch-Full-Commit is CouchDB's; leave out --full-commit",
                    });
                }
            }
        }
        Ok(())
    }

    /// The template target's own flags only with it; `--action` only for Elasticsearch.
    pub(super) fn check_target_flags(&self) -> Result<(), BulkError> {
        if self.target != TargetKind::Template {
            for (given, flag) in [
                (self.template.is_some(), "--template"),
                (self.method.is_some(), "--method"),
                (self.ok_pointer.is_some(), "--ok-pointer"),
                (self.item_error_pointer.is_some(), "--item-error-pointer"),
                (self.count_url.is_some(), "--count-url"),
                (self.count_pointer.is_some(), "--count-pointer"),
            ] {
                if given {
                    return Err(BulkError::TemplateOnly(flag));
                }
            }
        }
        if self.action.is_some() && self.target != TargetKind::Elasticsearch {
            return Err(BulkError::ActionNotEs(self.target.as_str()));
        }
        Ok(())
    }

    /// `--count`, `--duration`, `--interval`, `--timeout`, `--threads` and `--rate` in range.
    pub(super) fn check_limits(&self) -> Result<(), BulkError> {
        if self.count == Some(0) {
            return Err(BulkError::NoCount);
        }
        if let Some(d) = self.duration {
            positive_duration("--duration", d)?;
        }
        at_most_duration("--interval", self.interval)?;
        if self.timeout.is_zero() {
            return Err(SpecError::NotPositive { flag: "--timeout" }.into());
        }
        if self.timeout > MAX_TIMEOUT {
            return Err(SpecError::TooLong {
                flag: "--timeout",
                max: MAX_TIMEOUT,
                why: "latency is tracked up to one hour",
            }
            .into());
        }
        if self.threads > MAX_THREADS {
            return Err(SpecError::AtMost {
                flag: "--threads",
                max: MAX_THREADS as u64,
                found: self.threads as u64,
            }
            .into());
        }
        if let Some(r) = self.rate {
            if r.is_nan() || r <= 0.0 {
                return Err(BulkError::Rate(r));
            }
        }
        Ok(())
    }

    /// `--content-type`, or the target's own (NDJSON for Elasticsearch).
    pub(super) fn content_type(&self) -> Result<String, BulkError> {
        let content_type = self.content_type.clone().unwrap_or_else(|| {
            match self.target {
                TargetKind::Elasticsearch => "application/x-ndjson",
                _ => "application/json",
            }
            .into()
        });
        if content_type.contains(['\r', '\n']) {
            return Err(BulkError::ContentType(content_type));
        }
        Ok(content_type)
    }
}

/// The most bytes one request's body may be: a batch is built in memory, once per
/// writer, before it is sent.
pub const MAX_BATCH_BYTES: u64 = 256 << 20;

/// Refuses batches whose body would pass [`MAX_BATCH_BYTES`] (`{{bytes:16777216}}` in a
/// batch of a million: 16 TB), reckoned from the templates' longest filling.
pub(super) fn check_batch_bytes(
    batches: &[u64],
    template: &DocTemplate,
    templated: Option<&Templated>,
) -> Result<(), BulkError> {
    // A document, its ID, and its share of the request around it (an action line,
    // a separator, the body template's per-document part).
    let per_doc = longest_filling(template.text())
        + templated.map_or(0, |t| longest_filling(t.body.text()))
        + 128;
    let Some(&batch) = batches.iter().max() else {
        return Ok(());
    };
    let bytes = batch.saturating_mul(per_doc);
    if bytes > MAX_BATCH_BYTES {
        return Err(BulkError::BatchBytes { batch, bytes });
    }
    Ok(())
}

/// The most bytes a template's text can fill to: its text with every placeholder at
/// its longest (`{{bytes:N}}` N bytes, any other 40).
pub(super) fn longest_filling(text: &str) -> u64 {
    let mut total = text.len() as u64;
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open..].find("}}") else {
            break;
        };
        let name = rest[open + 2..open + close].trim();
        let filled = match parse_slot(name) {
            Some(Ok(Slot::Bytes(n))) => n as u64,
            _ => 40,
        };
        total = total.saturating_add(filled);
        rest = &rest[open + close + 2..];
    }
    total
}
