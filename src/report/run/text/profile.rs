//! The summary's lines for a step run on a rate profile: the profile as typed (its
//! mean beside it, never instead of it) and whether every segment was held, the first
//! not held named with its figures and its recovery, wrapped to 80 columns.

use super::summary::field;
use crate::report::findings::profile::held_line;
use crate::result::profile::{profile_text, StepProfile};

/// Where a field's value starts ([`field`]'s label column).
const VALUE_COLUMN: usize = 24;
const WIDTH: usize = 80;

/// `Target rate:` and `Held:` of a step with a rate profile.
pub(super) fn profile_fields(out: &mut String, p: &StepProfile, mean: f64, qps: f64) {
    field(
        out,
        "Target rate",
        format!(
            "{} requests/s (mean {mean:.1}; achieved {qps:.1} responses/s)",
            profile_text(&p.segments)
        ),
    );
    if let Some(v) = &p.verdict {
        field(out, "Held", wrap(&held_line(&p.segments, v)));
    }
}

/// `text` broken at spaces into lines that fit after the label column, the later ones
/// indented to it.
pub(super) fn wrap(text: &str) -> String {
    let room = WIDTH - VALUE_COLUMN;
    let mut lines: Vec<String> = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().expect("one line at least");
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > room {
            lines.push(word.to_owned());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines.join(&format!("\n{:VALUE_COLUMN$}", ""))
}
