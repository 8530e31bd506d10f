//! What keeps a report out of a matrix.

use std::path::PathBuf;

/// A report covenant cannot put in a matrix; each names its file and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum MatrixError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a covenant report ({why}); pass the report.json a `covenant run`, `covenant merge`, `covenant proxy` or `covenant check` wrote")]
    NotAReport { path: PathBuf, why: String },
    #[error("{path}: the report of shard {shard} of a run; merge the shards of the run first (`covenant merge`) and pass the merged report.json")]
    Shard { path: PathBuf, shard: String },
    #[error(
        "--name {0:?}: expected LABEL=REPORT.json, e.g. --name staging=reports/staging/report.json"
    )]
    Label(String),
    #[error("no report given: pass the report.json of each implementation")]
    Nothing,
    #[error(transparent)]
    Write(#[from] crate::report::ReportError),
}
