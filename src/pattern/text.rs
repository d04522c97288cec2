//! The plain-text patterns file: one path (`/d/select?...`) or absolute URL a line,
//! as drnbench and the tutorial write it. Blank lines and lines starting with `#`
//! are skipped; a bad line is an error naming its number.

use super::{check_target, Group, Pattern, PatternError};

pub(super) fn parse_text(body: &str, source: &str) -> Result<Group, PatternError> {
    let mut patterns = Vec::new();
    for (i, raw) in body.split('\n').enumerate() {
        // Only ASCII whitespace is trimmed: an ideographic space at the end of a
        // Japanese query term is part of the term.
        let line = raw.trim_matches(|c: char| c.is_ascii_whitespace());
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        check_target(line).map_err(|message| PatternError::Line {
            path: source.into(),
            line: i + 1,
            message,
        })?;
        patterns.push(Pattern {
            path: Some(line.into()),
            ..Pattern::default()
        });
    }
    if patterns.is_empty() {
        return Err(PatternError::Empty {
            path: source.into(),
        });
    }
    Ok(Group {
        patterns,
        ..Group::default()
    })
}
