//! Run and ramp results (request-response, one step or many): the HTML page, the
//! Markdown, the comparison of several runs, and the terminal's text (the summaries,
//! the per-step rows, ab's layout). They stand on the floor of [`crate::report`].

pub mod compare;
pub mod html;
pub mod markdown;
pub mod phases;
pub mod rounds;
pub mod store;
pub mod text;
