//! SQL databases' pure parts, no I/O (like `kv/`): PostgreSQL's frontend/backend
//! protocol as state machines and framers (`pg`), MySQL's/MariaDB's client/server
//! protocol likewise (`mysql`), pgbench's script language (`script`: the parser and
//! `\set`'s expressions) and a client's interpreter of it (`interp`, the seam the
//! engine's SQL arms drive), pgbench's built-in scripts and `-i` steps, and what every
//! SQL target's URL shares (`url`).

pub mod builtin;
pub mod init;
pub mod interp;
pub mod mysql;
pub mod pg;
pub mod script;
pub mod url;
