//! What can go wrong reading, rendering, merging or writing a report.

use std::path::PathBuf;

/// Covenant could not read, render, merge or write a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot create the report directory {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: not a covenant JSON report ({message}); pass a report.json written by `covenant run` or `covenant merge`")]
    Malformed {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("cannot render {format}: {message}")]
    Render {
        format: &'static str,
        message: String,
    },
    #[error("cannot merge: no reports given")]
    NothingToMerge,
    #[error("cannot merge: report #{index} has {what} {found}, but report #1 has {expected}; only shards of one run (same seed, same target) can be merged")]
    Mismatch {
        /// 1-based position of the offending report in the input.
        index: usize,
        what: &'static str,
        expected: String,
        found: String,
    },
    #[error("cannot merge: report #{index} has meta.shard = {value:?}, which is not K/N with 1 <= K <= N")]
    BadShard { index: usize, value: String },
    #[error("cannot merge: report #{sharded} is shard {shard} of a run, but report #{unsharded} is a whole run (no shard); merge the shards of one run alone")]
    ShardMixedWithWhole {
        sharded: usize,
        shard: String,
        unsharded: usize,
    },
    #[error("cannot merge: report #{index} is shard {found}, but report #{first} is shard {expected}; the shards of one run are all K/N with the same N")]
    ShardCounts {
        index: usize,
        found: String,
        first: usize,
        expected: String,
    },
    #[error("cannot merge: reports #{first} and #{second} are both shard {shard}; pass each shard's report once")]
    DuplicateShard {
        shard: String,
        first: usize,
        second: usize,
    },
    #[error("cannot merge: missing {missing} ({given} of {count} shards given); pass the report of every shard of the run, each run with the same --seed")]
    MissingShards {
        /// `shard 2/2`, or `shards 2/3, 3/3`.
        missing: String,
        given: usize,
        count: u32,
    },
    #[error("cannot merge: case {id} appears in reports #{first} and #{second}; shards of one run never share a case")]
    DuplicateCase {
        id: String,
        first: usize,
        second: usize,
    },
    #[error("cannot merge: report #{index} has meta.{field} = {value:?}, which is not an RFC 3339 timestamp")]
    BadTimestamp {
        index: usize,
        field: &'static str,
        value: String,
    },
}
