//! The plain-text patterns file: one path (`/d/select?...`) or absolute URL a line,
//! as drnbench and the tutorial write it. Blank lines and lines starting with `#`
//! are skipped; a bad line is an error naming its number. Lines are taken one at a
//! time, so a file of millions is read without holding it whole.
//!
//! A line may give its pattern a name, counted as a label in the result:
//! `name=search /d/select?query=a`. A path starts with `/` and a URL with `http`, so
//! a line starting with `name=` is never a target; the name runs to the first space
//! and the target follows it. (A named pattern is kept whole, not compactly.)

use super::{check_name, check_target, Group, Pattern, PatternError, Patterns};

/// What starts a named line.
const NAME: &str = "name=";

/// Reads the text form line by line.
pub(super) struct TextParser<'s> {
    source: &'s str,
    patterns: Patterns,
}

impl<'s> TextParser<'s> {
    pub(super) fn new(source: &'s str) -> Self {
        TextParser {
            source,
            patterns: Patterns::default(),
        }
    }

    /// Line `number` (1-based), with or without its line break.
    pub(super) fn line(&mut self, number: usize, raw: &str) -> Result<(), PatternError> {
        // Only ASCII whitespace is trimmed: an ideographic space at the end of a
        // Japanese query term is part of the term.
        let line = raw.trim_matches(|c: char| c.is_ascii_whitespace());
        if line.is_empty() || line.starts_with('#') {
            return Ok(());
        }
        let bad = |message| PatternError::Line {
            path: self.source.into(),
            line: number,
            message,
        };
        if let Some(named) = line.strip_prefix(NAME) {
            let (name, target) = named
                .split_once(|c: char| c.is_ascii_whitespace())
                .ok_or_else(|| bad(format!("{NAME}NAME needs a path or URL after a space")))?;
            let target = target.trim_matches(|c: char| c.is_ascii_whitespace());
            check_name(name).map_err(bad)?;
            check_target(target).map_err(bad)?;
            self.patterns.push(Pattern {
                path: Some(target.into()),
                name: Some(name.into()),
                ..Pattern::default()
            });
            return Ok(());
        }
        check_target(line).map_err(bad)?;
        self.patterns.push_path(line);
        Ok(())
    }

    pub(super) fn finish(mut self) -> Result<Group, PatternError> {
        if self.patterns.is_empty() {
            return Err(PatternError::Empty {
                path: self.source.into(),
            });
        }
        self.patterns.shrink();
        Ok(Group {
            patterns: self.patterns,
            ..Group::default()
        })
    }
}

pub(super) fn parse_text(body: &str, source: &str) -> Result<Group, PatternError> {
    let mut parser = TextParser::new(source);
    for (i, raw) in body.split('\n').enumerate() {
        parser.line(i + 1, raw)?;
    }
    parser.finish()
}
