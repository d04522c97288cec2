//! Report writers and readers. (Minimal: the lead merges this with the per-run writers.)

pub mod chart;
pub mod compare;
pub mod html;
pub mod markdown;
pub mod png;
pub mod read;
