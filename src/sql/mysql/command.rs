//! A command's packets, appended to the caller's reused buffer: each command starts
//! its own sequence at 0. COM_QUERY carries the text; COM_STMT_PREPARE's answer
//! (`answer::Mode::Prepare`) gives the statement id that COM_STMT_EXECUTE names, its
//! parameters sent as strings (the server converts them as it would in a text
//! query); COM_STMT_CLOSE and COM_QUIT have no answer.

use super::packet;

pub const COM_QUIT: u8 = 0x01;
pub const COM_QUERY: u8 = 0x03;
pub const COM_PING: u8 = 0x0e;
pub const COM_STMT_PREPARE: u8 = 0x16;
pub const COM_STMT_EXECUTE: u8 = 0x17;
pub const COM_STMT_CLOSE: u8 = 0x19;

/// MYSQL_TYPE_VAR_STRING: how every parameter is sent.
const VAR_STRING: u8 = 0xfd;

fn simple(out: &mut Vec<u8>, command: u8, body: &[u8]) {
    let mut seq = 0;
    let at = packet::start(out);
    out.push(command);
    out.extend_from_slice(body);
    packet::finish(out, at, &mut seq);
}

/// COM_QUERY: `sql` as text (several statements at once when separated by `;`, the
/// login asks for CLIENT_MULTI_STATEMENTS).
pub fn query(out: &mut Vec<u8>, sql: &str) {
    simple(out, COM_QUERY, sql.as_bytes());
}

/// COM_STMT_PREPARE: `sql` with `?` for its parameters.
pub fn prepare(out: &mut Vec<u8>, sql: &str) {
    simple(out, COM_STMT_PREPARE, sql.as_bytes());
}

/// COM_STMT_EXECUTE of statement `id` with `params` as strings (`None` is NULL).
pub fn execute(out: &mut Vec<u8>, id: u32, params: &[Option<&[u8]>]) {
    let mut seq = 0;
    let at = packet::start(out);
    out.push(COM_STMT_EXECUTE);
    out.extend_from_slice(&id.to_le_bytes());
    out.push(0); // CURSOR_TYPE_NO_CURSOR
    out.extend_from_slice(&1u32.to_le_bytes()); // iteration count, always 1
    if !params.is_empty() {
        let bitmap = out.len();
        out.resize(bitmap + params.len().div_ceil(8), 0);
        for (i, p) in params.iter().enumerate() {
            if p.is_none() {
                out[bitmap + i / 8] |= 1 << (i % 8);
            }
        }
        out.push(1); // new-params-bound: the types follow
        for _ in params {
            out.extend_from_slice(&[VAR_STRING, 0]);
        }
        for v in params.iter().flatten() {
            packet::put_lenenc_int(out, v.len() as u64);
            out.extend_from_slice(v);
        }
    }
    packet::finish(out, at, &mut seq);
}

/// COM_STMT_CLOSE of statement `id` (the server answers nothing).
pub fn close(out: &mut Vec<u8>, id: u32) {
    simple(out, COM_STMT_CLOSE, &id.to_le_bytes());
}

/// COM_QUIT: the polite goodbye before closing the socket.
pub fn quit(out: &mut Vec<u8>) {
    simple(out, COM_QUIT, b"");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_framed_at_sequence_0_into_the_reused_buffer() {
        let mut out = Vec::new();
        query(&mut out, "SELECT 1");
        assert_eq!(out, b"\x09\0\0\0\x03SELECT 1");
        out.clear();
        execute(&mut out, 7, &[Some(b"42"), None, Some(b"")]);
        assert_eq!(
            out,
            b"\x16\0\0\0\x17\x07\0\0\0\0\x01\0\0\0\x02\x01\xfd\0\xfd\0\xfd\0\x0242\x00"
        );
        out.clear();
        execute(&mut out, 1, &[]);
        assert_eq!(out, b"\x0a\0\0\0\x17\x01\0\0\0\0\x01\0\0\0");
        let cap = out.capacity();
        out.clear();
        close(&mut out, 1);
        quit(&mut out);
        assert_eq!(out, b"\x05\0\0\0\x19\x01\0\0\0\x01\0\0\0\x01");
        assert_eq!(out.capacity(), cap, "no new allocation once warm");
    }
}
