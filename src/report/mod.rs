//! Renderers of results: terminal text for a run; charts, HTML, Markdown and
//! comparisons; and the readers that turn hakaru's and drnbench's files into the
//! [`crate::series::Series`] the renderers draw.
//!
//! Every renderer is a pure function of a [`crate::result::RunResult`], a
//! [`crate::result::StepResult`] or a series, returning a `String`; choosing a file or
//! stdout is the caller's business ([`crate::result::store::write_atomic`] puts bytes
//! on disk).

pub mod chart;
pub mod compare;
pub mod findings;
pub mod fmt;
pub mod html;
pub mod markdown;
pub mod png;
pub mod read;
pub mod text;
