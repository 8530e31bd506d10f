//! The async runtime a command runs in.

use covenant::exit::Fatal;

/// The multi-threaded tokio runtime of a command, with `workers` threads (tokio's default, one
/// per core, when `None`).
pub fn runtime(workers: Option<usize>) -> Result<tokio::runtime::Runtime, Fatal> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = workers {
        builder.worker_threads(n);
    }
    builder
        .enable_all()
        .build()
        .map_err(|e| Fatal::Startup(format!("cannot start the async runtime: {e}")))
}
