//! What a reply was ([`Got`]: its type, not its bytes) and what a command may be
//! answered ([`Expect`]: a set of types), decided once per command when the
//! workload is built. A well-formed reply outside its command's set (a Redis `GET`
//! answered `+OK`, a memcached `set` answered `END`) is no success: it is counted as
//! `reply_unexpected` (docs/guide/key-value.md). Error replies are not judged here:
//! they have their kinds already.

/// A whole reply's type, as its framer saw it at the outermost level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Got {
    /// Not known (an error reply, or a framer that did not say).
    #[default]
    Unknown,
    /// RESP `+OK`.
    Ok,
    /// RESP `+` anything but `OK` (`+PONG`, `+QUEUED`…).
    Status,
    /// RESP `:N`.
    Integer,
    /// RESP `$N` with its payload.
    Bulk,
    /// RESP `$-1` or `*-1`.
    Nil,
    /// RESP `*N` (`*0` too).
    Array,
    /// memcached `VALUE…END` with at least one value (or `STAT…END`).
    Values,
    /// memcached `END` alone.
    End,
    Stored,
    NotStored,
    Exists,
    NotFound,
    Deleted,
    Touched,
    /// memcached's `OK`.
    McOk,
    /// memcached `incr`/`decr`'s new value.
    Number,
    Version,
    /// memcached's no-op reply `MN`.
    Mn,
}

impl Got {
    /// What came, as the error sample says it.
    pub fn describe(self) -> &'static str {
        match self {
            Got::Unknown => "a reply",
            Got::Ok => "+OK (a status reply)",
            Got::Status => "a status reply other than +OK",
            Got::Integer => "an integer",
            Got::Bulk => "a bulk string",
            Got::Nil => "nil",
            Got::Array => "an array",
            Got::Values => "VALUE…END (values)",
            Got::End => "END (no value)",
            Got::Stored => "STORED",
            Got::NotStored => "NOT_STORED",
            Got::Exists => "EXISTS",
            Got::NotFound => "NOT_FOUND",
            Got::Deleted => "DELETED",
            Got::Touched => "TOUCHED",
            Got::McOk => "OK",
            Got::Number => "a number",
            Got::Version => "VERSION",
            Got::Mn => "MN",
        }
    }

    fn bit(self) -> u32 {
        1 << self as u8
    }
}

/// The reply types a command may get: a bitset of [`Got`], copied into every request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expect(u32);

impl Default for Expect {
    fn default() -> Expect {
        Expect::ANY
    }
}

impl Expect {
    /// Any reply: HTTP, and store commands hakaru does not know.
    pub const ANY: Expect = Expect(u32::MAX);

    pub const fn of(got: &[Got]) -> Expect {
        let mut bits = 1 << Got::Unknown as u8;
        let mut i = 0;
        while i < got.len() {
            bits |= 1 << got[i] as u8;
            i += 1;
        }
        Expect(bits)
    }

    /// `got` may answer the command.
    #[inline]
    pub fn allows(self, got: Got) -> bool {
        self.0 & got.bit() != 0
    }

    /// A Redis command's replies, by its name (any case); [`Expect::ANY`] for a
    /// command not known here, and for a command with options that change what it
    /// answers beyond what is listed (the second argument on).
    pub fn redis(name: &[u8], args: usize) -> Expect {
        use Got::*;
        let mut upper = [0u8; 16];
        if name.len() > upper.len() {
            return Expect::ANY;
        }
        for (u, c) in upper.iter_mut().zip(name) {
            *u = c.to_ascii_uppercase();
        }
        let one = |g: &[Got]| Expect::of(g);
        match &upper[..name.len()] {
            b"GET" | b"GETDEL" | b"GETEX" | b"HGET" | b"LINDEX" | b"GETSET" | b"RPOPLPUSH"
            | b"LMOVE" => one(&[Bulk, Nil]),
            // `LPOP key count`, `SPOP key count`, `SRANDMEMBER key count`: arrays.
            b"LPOP" | b"RPOP" | b"SPOP" | b"SRANDMEMBER" => one(&[Bulk, Nil, Array]),
            // `SET k v`: +OK; NX/XX: nil when not set; GET: the old value (bulk or nil).
            b"SET" if args <= 3 => one(&[Ok]),
            b"SET" => one(&[Ok, Nil, Bulk]),
            b"MSET" | b"SETEX" | b"PSETEX" | b"HMSET" | b"FLUSHALL" | b"FLUSHDB" => one(&[Ok]),
            b"PING" => one(&[Status, Bulk]),
            // ZADD with INCR answers a bulk (or nil): only its options say so.
            b"ZADD" if args > 4 => one(&[Integer, Bulk, Nil]),
            b"INCR" | b"DECR" | b"INCRBY" | b"DECRBY" | b"DEL" | b"UNLINK" | b"EXISTS"
            | b"HSET" | b"HSETNX" | b"HDEL" | b"HLEN" | b"HEXISTS" | b"HINCRBY" | b"LPUSH"
            | b"RPUSH" | b"LLEN" | b"SADD" | b"SREM" | b"SCARD" | b"SISMEMBER" | b"ZADD"
            | b"ZREM" | b"ZCARD" | b"EXPIRE" | b"PEXPIRE" | b"TTL" | b"PTTL" | b"SETNX"
            | b"APPEND" | b"STRLEN" | b"MSETNX" | b"PERSIST" | b"TOUCH" | b"DBSIZE" => {
                one(&[Integer])
            }
            b"INCRBYFLOAT" | b"HINCRBYFLOAT" | b"ZSCORE" => one(&[Bulk, Nil]),
            b"MGET" | b"HMGET" | b"HGETALL" | b"HKEYS" | b"HVALS" | b"LRANGE" | b"SMEMBERS"
            | b"ZRANGE" | b"ZRANGEBYSCORE" | b"ZREVRANGE" | b"SCAN" | b"KEYS" | b"ZPOPMIN"
            | b"ZPOPMAX" => one(&[Array, Nil]),
            b"TYPE" => one(&[Status, Ok]),
            _ => Expect::ANY,
        }
    }

    /// A memcached command's replies, by its verb; [`Expect::ANY`] for one not known.
    pub fn memcached(verb: &[u8]) -> Expect {
        use Got::*;
        match verb {
            b"get" | b"gets" | b"gat" | b"gats" => Expect::of(&[Values, End]),
            b"set" | b"add" | b"replace" | b"append" | b"prepend" => {
                Expect::of(&[Stored, NotStored])
            }
            // A `cas` with no token goes as `mn`, judged as one.
            b"cas" => Expect::of(&[Stored, Exists, NotFound]),
            b"delete" => Expect::of(&[Deleted, NotFound]),
            b"incr" | b"decr" => Expect::of(&[Number, NotFound]),
            b"touch" => Expect::of(&[Touched, NotFound]),
            b"mn" => Expect::of(&[Mn]),
            b"version" => Expect::of(&[Version]),
            b"flush_all" => Expect::of(&[McOk]),
            _ => Expect::ANY,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_get_answered_ok_is_not_allowed_but_a_value_or_nil_is() {
        let get = Expect::redis(b"get", 2);
        assert!(!get.allows(Got::Ok));
        assert!(!get.allows(Got::Integer) && !get.allows(Got::Array));
        assert!(get.allows(Got::Bulk) && get.allows(Got::Nil));
        let set = Expect::redis(b"SET", 3);
        assert!(set.allows(Got::Ok) && !set.allows(Got::Bulk) && !set.allows(Got::Nil));
        assert!(Expect::redis(b"SET", 4).allows(Got::Nil));
        assert!(!Expect::redis(b"INCR", 2).allows(Got::Ok));
        assert!(Expect::redis(b"HGETALL", 2).allows(Got::Array));
        assert!(!Expect::redis(b"HSET", 4).allows(Got::Array));
        assert_eq!(Expect::redis(b"FT.SEARCH", 3), Expect::ANY);
        assert_eq!(Expect::redis(b"AVERYLONGCOMMANDNAME", 1), Expect::ANY);
    }

    #[test]
    fn memcached_replies_belong_to_their_commands() {
        let get = Expect::memcached(b"get");
        assert!(get.allows(Got::Values) && get.allows(Got::End));
        assert!(!get.allows(Got::Stored) && !get.allows(Got::Number));
        let set = Expect::memcached(b"set");
        assert!(set.allows(Got::Stored) && !set.allows(Got::End) && !set.allows(Got::Values));
        assert!(!Expect::memcached(b"delete").allows(Got::Stored));
        assert!(Expect::memcached(b"cas").allows(Got::Exists));
        assert!(!Expect::memcached(b"mn").allows(Got::NotFound));
    }

    #[test]
    fn an_unknown_reply_type_is_never_judged() {
        assert!(Expect::of(&[]).allows(Got::Unknown));
        assert!(Expect::ANY.allows(Got::Mn));
    }
}
