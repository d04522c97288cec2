//! SQL databases' pure parts, no I/O (like `kv/`): PostgreSQL's frontend/backend
//! protocol as state machines and framers (`pg`), MySQL's/MariaDB's client/server
//! protocol likewise (`mysql`), and pgbench's script language and its interpreter
//! (the script side lives beside it).

pub mod mysql;
pub mod pg;
