//! The MySQL framer's cost per answer, on byte strings in memory: what the client
//! side of a sysbench `oltp_point_select` transaction costs hakaru's `sql::mysql`
//! (issue 34 asks at most 0.8x sysbench's client CPU, ~12 µs a transaction here, per
//! FIELD-NOTES.md). It writes a COM_STMT_EXECUTE, then cuts and folds the server's
//! answer (one column definition, EOF, one binary row, EOF), or a text result of ROWS
//! rows, ROUNDS times; prints ns per answer and the allocations made after the first
//! (a counting allocator: the hot path must make none).
//!
//! Usage: `mysql_fold [ROUNDS=1000000] [ROWS=1]`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use hakaru::sql::mysql::answer::{Answer, Mode, Step};
use hakaru::sql::mysql::command;
use hakaru::sql::mysql::packet::next_packet;

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn packet(out: &mut Vec<u8>, seq: u8, body: &[u8]) {
    out.extend_from_slice(&(body.len() as u32).to_le_bytes()[..3]);
    out.push(seq);
    out.extend_from_slice(body);
}

fn coldef(ty: u8) -> Vec<u8> {
    let mut p = Vec::new();
    for s in ["def", "sbtest", "sbtest1", "sbtest1", "c", "c"] {
        p.push(s.len() as u8);
        p.extend_from_slice(s.as_bytes());
    }
    p.extend_from_slice(&[0x0c, 45, 0, 0, 1, 0, 0, ty, 0, 0, 0, 0, 0]);
    p
}

/// The server's answer: one CHAR(120) column, `rows` rows, binary or text.
fn answer(rows: usize, binary: bool) -> Vec<u8> {
    let c = "83868641912-28773972837-60736120486-75162659906-27563526494-20381887404-41576422241-93426793964-56405065102-33518432330";
    let mut s = Vec::new();
    let mut seq = 1;
    let mut next = |s: &mut Vec<u8>, body: &[u8]| {
        packet(s, seq, body);
        seq += 1;
    };
    next(&mut s, b"\x01");
    next(&mut s, &coldef(0xfe));
    next(&mut s, b"\xfe\0\0\x02\0");
    let mut row = if binary { vec![0, 0] } else { vec![] };
    row.push(c.len() as u8);
    row.extend_from_slice(c.as_bytes());
    for _ in 0..rows {
        next(&mut s, &row);
    }
    next(&mut s, b"\xfe\0\0\x02\0");
    s
}

fn main() {
    let arg = |i: usize, d: usize| {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let (rounds, rows) = (arg(1, 1_000_000), arg(2, 1));
    for (name, mode) in [("binary", Mode::Binary), ("text", Mode::Text)] {
        let stream = answer(rows, mode == Mode::Binary);
        let (mut out, mut joined, mut a) = (Vec::new(), Vec::new(), Answer::default());
        let mut run = |n: usize| {
            let mut total = 0u64;
            for i in 0..n {
                out.clear();
                command::execute(&mut out, 1, &[Some(&(i as u32).to_le_bytes())]);
                a.reset(mode);
                let mut at = 0;
                loop {
                    let (seq, p, used) = next_packet(&stream[at..], &mut joined).unwrap().unwrap();
                    at += used;
                    if a.feed(seq, p).unwrap() == Step::Done {
                        break;
                    }
                }
                // The first row is kept by `feed` itself (copied into reused buffers).
                total += a.rows + out.len() as u64;
            }
            total
        };
        run(10);
        let before = ALLOCS.load(Ordering::Relaxed);
        let t = Instant::now();
        let check = run(rounds);
        let ns = t.elapsed().as_nanos() as f64 / rounds as f64;
        let allocs = ALLOCS.load(Ordering::Relaxed) - before;
        println!("{name}: {rows} row(s) an answer, {ns:.0} ns an answer, {allocs} allocations in {rounds} (check {check})");
    }
}
