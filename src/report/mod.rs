//! Report writers and readers. (Minimal: the lead merges this with the per-run writers.)

pub mod read;
