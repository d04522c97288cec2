//! Renderers of results: terminal text for a run; charts, HTML, Markdown and
//! comparisons; the sentences they share ([`findings`]) and how numbers are written
//! ([`fmt`]); and the readers that turn hakaru's and drnbench's files into the
//! [`crate::result::series::Series`] the renderers draw.
//!
//! Every renderer is a pure function of a [`crate::result::RunResult`], a
//! [`crate::result::StepResult`] or a series, returning a `String` (PNG bytes for
//! [`png`]); [`files`] decides which files `hakaru report` and `hakaru compare` write
//! and puts them on disk.

pub mod bulk;
pub mod chart;
pub mod compare;
pub mod dispatch;
pub mod find_max;
pub mod findings;
pub mod fmt;
pub mod html;
pub mod junit;
pub mod labels;
pub mod markdown;
pub mod output;
pub mod over_time;
pub mod page;
pub mod png;
mod sections;
pub mod stream;
pub mod suite;
pub mod table;
pub mod text;
pub mod threshold;

use chart::ChartOptions;

/// How a report is drawn.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReportOptions {
    pub chart: ChartOptions,
}
