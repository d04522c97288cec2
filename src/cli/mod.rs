//! Subcommands. (Minimal: the lead merges this with the other subcommands.)

pub mod compare;
pub mod report;
