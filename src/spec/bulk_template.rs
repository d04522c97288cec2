//! `hakaru bulk --target template`: the body template file, the method, the
//! response rule and the count for `--verify`, each checked before any load.

use std::path::PathBuf;

use super::bulk::{BulkError, BulkOptions};
use crate::workload::bulk::{BodyTemplate, ResponseRule, Templated};
use crate::workload::check::StarPointer;

impl BulkOptions {
    /// `--target template`'s body, method, response rule and count.
    pub(super) fn templated(
        &self,
        path: &PathBuf,
        content_type: &str,
    ) -> Result<Templated, BulkError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|why| BulkError::TemplateFile {
            path: shown.clone(),
            why,
        })?;
        let body = BodyTemplate::parse(&text).map_err(|why| BulkError::Body {
            path: shown.clone(),
            why,
        })?;
        let media = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        let check = if media == "application/x-ndjson" {
            Some(true)
        } else if media == "application/json" || media.ends_with("+json") {
            Some(false)
        } else {
            None
        };
        if let Some(ndjson) = check {
            body.check_json(ndjson)
                .map_err(|why| BulkError::Body { path: shown, why })?;
        }
        let method = self.method.clone().unwrap_or_else(|| "POST".into());
        if method.is_empty() || !method.chars().all(|c| c.is_ascii_alphabetic()) {
            return Err(BulkError::Method(method));
        }
        let rule = match (&self.ok_pointer, &self.item_error_pointer) {
            (Some(_), Some(_)) => return Err(BulkError::BothRules),
            (Some(p), None) if !p.starts_with('/') => return Err(BulkError::OkPointer(p.clone())),
            (Some(p), None) => ResponseRule::Count(p.clone()),
            (None, Some(p)) => {
                ResponseRule::Items(StarPointer::parse(p).map_err(BulkError::ItemPointer)?)
            }
            (None, None) => ResponseRule::Status,
        };
        let count = match (&self.count_url, &self.count_pointer) {
            (Some(u), Some(p)) => {
                crate::http::url::parse_http_url(u)
                    .map_err(|e| BulkError::Url(format!("--count-url: {e}")))?;
                if !p.starts_with('/') {
                    return Err(BulkError::Url(format!(
                        "--count-pointer {p}: a JSON pointer starts with '/'"
                    )));
                }
                Some((u.clone(), p.clone()))
            }
            (None, None) => None,
            _ => return Err(BulkError::VerifyTemplate),
        };
        if self.verify && count.is_none() {
            return Err(BulkError::VerifyTemplate);
        }
        Ok(Templated {
            body,
            method: method.to_ascii_uppercase(),
            rule,
            count,
        })
    }
}
