//! Renderers of results, cut by kind of run on one floor.
//!
//! The kinds, each with its text, page and charts: [`run`] (run and ramp, and their
//! comparison), [`bulk`], [`stream`], [`suite`], [`find_max`]. The floor they stand
//! on: [`fmt`] (numbers), [`page`] (the HTML frame), [`table`] (Markdown tables and the
//! escape), [`chart`] and [`png`], [`findings`] (the sentences), `sections`,
//! [`threshold`] and [`junit`], [`over_time`] and [`labels`]. No kind imports another
//! and the floor imports no kind (`tests/imports.rs` refuses a circle).
//!
//! Every renderer is a pure function of a [`crate::result::RunResult`], a
//! [`crate::result::StepResult`] or a series, returning text or bytes; [`dispatch`]
//! picks the renderer by the result's kind, and [`output`] is the one place that
//! writes a report's files (or stdout). The readers live in [`crate::result::read`].

pub mod bulk;
pub mod chart;
pub mod dispatch;
pub mod find_max;
pub mod findings;
pub mod fmt;
pub mod junit;
pub mod labels;
pub mod output;
pub mod over_time;
pub mod page;
pub mod png;
pub mod run;
mod sections;
pub mod stream;
pub mod suite;
pub mod table;
pub mod threshold;

use chart::ChartOptions;

/// How a report is drawn.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReportOptions {
    pub chart: ChartOptions,
}
