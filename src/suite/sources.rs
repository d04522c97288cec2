//! The workloads of a scenario's phases that take more than a file or a URL: `hakaru
//! bulk`'s writers (`bulk = {…}`) and YCSB's workloads (`ycsb = {…}`), checked with the
//! file's line and key like the rest of [`super::scenario`].

use toml::Spanned;

use super::file::{FileBulk, FileYcsb};
use super::scenario::{Locator, ScenarioError};

/// A YCSB workload of a phase, as the file says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YcsbSpec {
    /// The database's URL: `http://127.0.0.1:5984/ycsb`.
    pub url: String,
    pub core: crate::workload::ycsb::Core,
    /// YCSB's `recordcount`.
    pub records: u64,
    pub distribution: crate::workload::ycsb::Distribution,
    pub fields: u32,
    pub field_length: u32,
    pub max_scan: u32,
    pub batch: u64,
    /// YCSB's `table` over SQL.
    pub table: String,
}

/// YCSB's defaults: `recordcount`, `fieldcount`, `fieldlength`, `maxscanlength`.
pub const YCSB_RECORDS: u64 = 1000;
pub const YCSB_FIELDS: u32 = 10;
pub const YCSB_FIELD_LENGTH: u32 = 100;
pub const YCSB_MAX_SCAN: u32 = 100;
/// Records per `_bulk_docs` request of a YCSB load.
pub const YCSB_BATCH: u64 = 100;
/// The most records a YCSB scenario may name.
pub const YCSB_MAX_RECORDS: u64 = 1_000_000_000;

/// A bulk write in a phase's mix: `hakaru bulk`'s options that make sense there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkSpec {
    pub target: crate::workload::bulk::TargetKind,
    /// CouchDB: the database's URL; Groonga: the server's.
    pub url: String,
    /// Documents per request.
    pub batch: u64,
    /// The document template (`--doc`); None: `hakaru bulk`'s default.
    pub doc: Option<String>,
    pub table: Option<String>,
    pub single: bool,
    /// Compare acknowledged documents with the server's count after the last phase.
    pub verify: bool,
    pub ids: Option<crate::workload::bulk::IdStrategy>,
}

impl Locator<'_> {
    pub(super) fn bulk(&self, b: &Spanned<FileBulk>) -> Result<BulkSpec, ScenarioError> {
        use crate::workload::bulk::{IdStrategy, TargetKind};
        let span = b.span();
        let b = b.get_ref();
        let target = match b.target.as_deref() {
            None | Some("couchdb") => TargetKind::CouchDb,
            Some("groonga") => TargetKind::Groonga,
            Some("elasticsearch") => TargetKind::Elasticsearch,
            Some(other) => {
                return Err(self.error(
                    span,
                    "bulk.target",
                    &format!("\"{other}\": use \"couchdb\", \"groonga\" or \"elasticsearch\""),
                ))
            }
        };
        let batch = b.batch.unwrap_or(if b.single { 1 } else { 100 });
        if !(1..=crate::spec::bulk::MAX_BATCH).contains(&batch) {
            return Err(self.error(
                span,
                "bulk.batch",
                &format!(
                    "between 1 and {}, found {batch}",
                    crate::spec::bulk::MAX_BATCH
                ),
            ));
        }
        let ids = match &b.ids {
            None => None,
            Some(i) => Some(IdStrategy::parse(i).ok_or_else(|| {
                self.error(
                    span.clone(),
                    "bulk.ids",
                    &format!("\"{i}\": use sequential, random, uuid or server"),
                )
            })?),
        };
        Ok(BulkSpec {
            target,
            url: b.url.clone(),
            batch,
            doc: b.doc.clone(),
            table: b.table.clone(),
            single: b.single,
            verify: b.verify,
            ids,
        })
    }

    pub(super) fn ycsb(&self, y: &Spanned<FileYcsb>) -> Result<YcsbSpec, ScenarioError> {
        use crate::workload::ycsb::{Core, Distribution};
        let span = y.span();
        let y = y.get_ref();
        let err = |key: &str, why: String| self.error(span.clone(), key, &why);
        let core = Core::parse(&y.workload).ok_or_else(|| {
            err(
                "ycsb.workload",
                format!("\"{}\": use load, a, b, c, d, e or f", y.workload),
            )
        })?;
        let distribution = match &y.distribution {
            None => core.default_distribution(),
            Some(d) => Distribution::parse(d).ok_or_else(|| {
                err(
                    "ycsb.distribution",
                    format!("\"{d}\": use uniform, zipfian or latest"),
                )
            })?,
        };
        let within = |key: &str, v: u64, lo: u64, hi: u64| {
            if (lo..=hi).contains(&v) {
                Ok(v)
            } else {
                Err(err(key, format!("between {lo} and {hi}, found {v}")))
            }
        };
        let records = within(
            "ycsb.records",
            y.records.unwrap_or(YCSB_RECORDS),
            1,
            YCSB_MAX_RECORDS,
        )?;
        let fields = within(
            "ycsb.fields",
            y.fields.map_or(u64::from(YCSB_FIELDS), u64::from),
            1,
            1000,
        )? as u32;
        let field_length = within(
            "ycsb.field_length",
            y.field_length
                .map_or(u64::from(YCSB_FIELD_LENGTH), u64::from),
            1,
            1 << 20,
        )? as u32;
        let max_scan = within(
            "ycsb.max_scan",
            y.max_scan.map_or(u64::from(YCSB_MAX_SCAN), u64::from),
            1,
            100_000,
        )? as u32;
        let batch = within("ycsb.batch", y.batch.unwrap_or(YCSB_BATCH), 1, 10_000)?;
        if u64::from(fields) * u64::from(field_length) > 16 << 20 {
            return Err(err(
                "ycsb.fields",
                "fields × field_length over 16 MiB a record".into(),
            ));
        }
        let table = y
            .table
            .clone()
            .unwrap_or_else(|| crate::workload::ycsb::sql::TABLE.into());
        let sql = crate::workload::ycsb::sql::is_sql(&y.url);
        if y.table.is_some() && !sql {
            return Err(err(
                "ycsb.table",
                "a table is for a SQL url (postgres://, mysql://)".into(),
            ));
        }
        if sql {
            crate::workload::ycsb::sql::check_url(&y.url).map_err(|why| err("ycsb.url", why))?;
            crate::workload::ycsb::sql::check_table(&table)
                .map_err(|why| err("ycsb.table", why))?;
        } else if crate::http::url::kv_scheme(&y.url).is_some() {
            // Redis or memcached (workload::kv::ycsb): the URL names the store.
            let url = crate::http::url::parse_kv_url(&y.url).map_err(|why| err("ycsb.url", why))?;
            if let Some(why) = crate::workload::kv::ycsb::refused(core, url.scheme) {
                return Err(err("ycsb.workload", why));
            }
        } else {
            let url =
                crate::http::url::parse_http_url(&y.url).map_err(|why| err("ycsb.url", why))?;
            if url.path.trim_matches('/').is_empty() || url.path.contains('?') {
                return Err(err(
                    "ycsb.url",
                    format!(
                        "\"{}\": give the database's URL, http://host:port/db",
                        y.url
                    ),
                ));
            }
        }
        Ok(YcsbSpec {
            url: y.url.clone(),
            core,
            records,
            distribution,
            fields,
            field_length,
            max_scan,
            batch,
            table,
        })
    }
}
