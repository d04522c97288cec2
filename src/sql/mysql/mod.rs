//! MySQL's and MariaDB's client/server protocol (protocol 4.1, handshake v10) as pure
//! state machines, mirroring `sql::pg`: the connection's URL (`url`), packet framing
//! with its 3-byte length and sequence id, 2^24-1 payloads chained and bounded
//! (`packet`), the handshake and the login's scrambles (`auth`:
//! `mysql_native_password`, `caching_sha2_password`'s fast path and its full
//! authentication over TLS or with the server's RSA key, whose encryption is
//! `rsa`'s), a command's packets written into a reused buffer
//! (`command`: COM_QUERY, COM_STMT_PREPARE/EXECUTE/CLOSE), a command's answer folded
//! from its packets without building anything per row (`answer`: OK/ERR/EOF, text and
//! binary result sets, the first row kept in reused buffers), and a server error's
//! kind (`errcode`). The packet layer is written here rather than taken from
//! `mysql_common`: its row types build a `Vec` of values per row, and the hot path
//! must not allocate; the scrambles use the `sha1`/`sha2` digests directly, and only
//! the RSA encryption is `mysql_common`'s.
//! The sockets are someone else's; nothing here reads or writes one.

pub mod answer;
pub mod auth;
pub mod command;
pub mod errcode;
pub mod packet;
pub mod rsa;
pub mod url;
