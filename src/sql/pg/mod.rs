//! PostgreSQL's frontend/backend protocol (version 3.0) as pure state machines over
//! the `postgres-protocol` crate's message encoders and SCRAM: the connection's URL
//! (`url`), the startup and a statement's messages for each query mode (`frontend`),
//! the login's authentication exchange (`auth`: trust, cleartext, md5,
//! SCRAM-SHA-256), the backend's messages framed into one statement's answer without
//! building anything per row (`backend`), and a SQLSTATE's error kind (`sqlstate`).
//! The sockets are `http`'s; nothing here reads or writes one.

pub mod auth;
pub mod backend;
pub mod frontend;
pub mod sqlstate;
pub mod url;
