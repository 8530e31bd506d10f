//! SIGINT and SIGTERM (Ctrl-C elsewhere), as a stream of reasons.
//!
//! A run stops on the first signal and abandons its requests in flight on the second; `covenant
//! serve` stops on the first. Both listen through this one type, registered when it is made, so
//! that a signal sent as soon as a command has printed its first line is never missed.

/// SIGINT and SIGTERM (Ctrl-C elsewhere), as a stream of reasons.
pub struct Signals {
    #[cfg(unix)]
    handlers: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    pub fn new() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let handlers = match (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) {
                (Ok(int), Ok(term)) => Some((int, term)),
                _ => None,
            };
            Signals { handlers }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The next signal; never resolves when the handlers could not be installed.
    pub async fn next(&mut self) -> String {
        #[cfg(unix)]
        {
            let Some((int, term)) = self.handlers.as_mut() else {
                return std::future::pending().await;
            };
            tokio::select! {
                _ = int.recv() => "interrupted (SIGINT)".to_owned(),
                _ = term.recv() => "interrupted (SIGTERM)".to_owned(),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "interrupted".to_owned()
        }
    }
}

impl Default for Signals {
    fn default() -> Signals {
        Signals::new()
    }
}
