//! SQL databases' pure parts, no I/O (like `kv/`): PostgreSQL's frontend/backend
//! protocol as state machines and framers (`pg`), pgbench's script language
//! (`script`: the parser and `\set`'s expressions) and a client's interpreter of it
//! (`interp`, the seam the engine's PostgreSQL arm drives).

pub mod builtin;
pub mod init;
pub mod interp;
pub mod pg;
pub mod script;
