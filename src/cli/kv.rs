//! The key-value flags of `run` and `ramp` (`redis://` and `memcached://` targets),
//! flattened into their request flags; `spec::kv` checks them.

use std::path::PathBuf;

use clap::Args;

use crate::spec::kv::KvOptions;

#[derive(Args, Debug, Clone, Default)]
pub struct KvArgs {
    /// Key-value targets: how many keys `{key}` draws from [default: 100000].
    #[arg(
        long,
        value_name = "N",
        help_heading = "Key-value stores (redis://, memcached://)"
    )]
    pub keys: Option<u64>,

    /// How `{key}` is drawn: uniform, zipfian, latest (YCSB's) or sequential [default: uniform].
    #[arg(
        long,
        value_name = "DIST",
        help_heading = "Key-value stores (redis://, memcached://)"
    )]
    pub key_distribution: Option<String>,

    /// Bytes of `{value}`: N, or LO..HI drawn per request [default: 32].
    #[arg(
        long,
        value_name = "BYTES",
        help_heading = "Key-value stores (redis://, memcached://)"
    )]
    pub value_size: Option<String>,

    /// Without --commands: SETS:GETS of `key:{key}` (memtier's flag) [default: 1:10].
    #[arg(
        long,
        value_name = "SETS:GETS",
        help_heading = "Key-value stores (redis://, memcached://)"
    )]
    pub ratio: Option<String>,

    /// A commands file: one command a line, `weight=N` and `name=NAME` before it,
    /// `{key}` and `{value}` in it (docs/guide/key-value.md).
    #[arg(
        long,
        value_name = "FILE",
        help_heading = "Key-value stores (redis://, memcached://)"
    )]
    pub commands: Option<PathBuf>,

    /// Write every key once before the first step (not counted in any step).
    #[arg(long, help_heading = "Key-value stores (redis://, memcached://)")]
    pub preload: bool,
}

impl KvArgs {
    pub fn options(&self) -> KvOptions {
        KvOptions {
            keys: self.keys,
            key_distribution: self.key_distribution.clone(),
            value_size: self.value_size.clone(),
            ratio: self.ratio.clone(),
            commands: self.commands.clone(),
            preload: self.preload,
        }
    }
}
