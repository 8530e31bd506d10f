//! `--concurrency` lanes: at most that many requests in flight across the whole run, each lane
//! sending one request at a time, back to back, as a load tool's connections do.
//!
//! A semaphore gave the same bound, but each freed permit went to a request whose task then
//! had to be scheduled, and build and serialize its request, before it could send, and it held
//! its permit while the answer was parsed. A lane only sends requests built beforehand and reads
//! their answers; the case's task builds them and parses the answers, so the CPU work happens
//! beside the requests in flight rather than between them.

use super::{Response, SendError};
use std::future::Future;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot, Mutex};

/// What a lane hands back: the answer, unparsed.
type Sent = Result<Response, SendError>;

/// A built request waiting for a lane.
struct Job<R> {
    request: R,
    /// Its endpoint, for the pace.
    endpoint: String,
    reply: oneshot::Sender<Sent>,
}

/// The queue in front of the lanes; the lanes end when every handle to it is dropped.
pub(super) struct Lanes<R> {
    jobs: mpsc::Sender<Job<R>>,
}

// Not derived: a handle clones whatever the requests are.
impl<R> Clone for Lanes<R> {
    fn clone(&self) -> Lanes<R> {
        Lanes {
            jobs: self.jobs.clone(),
        }
    }
}

/// Requests queued in front of the lanes before a sender waits.
const QUEUE: usize = 1024;

impl<R: Send + 'static> Lanes<R> {
    /// Starts `n` lanes, each sending its requests with `execute` (the client's own send, at
    /// the run's pace: a request and its endpoint in, the answer out). `None` outside a tokio
    /// runtime, where requests are then sent directly.
    pub(super) fn start<E, F>(n: usize, execute: E) -> Option<Lanes<R>>
    where
        E: Fn(R, String) -> F + Send + Sync + 'static,
        F: Future<Output = Sent> + Send + 'static,
    {
        let handle = tokio::runtime::Handle::try_current().ok()?;
        let (jobs, queue) = mpsc::channel(QUEUE);
        let queue = Arc::new(Mutex::new(queue));
        let execute = Arc::new(execute);
        for _ in 0..n.max(1) {
            handle.spawn(lane(execute.clone(), queue.clone()));
        }
        Some(Lanes { jobs })
    }

    /// Sends `request` on the next free lane and reads its answer.
    pub(super) async fn execute(&self, request: R, endpoint: &str) -> Sent {
        let (reply, answer) = oneshot::channel();
        let gone = || {
            SendError::Transport(
                "covenant defect: the request lanes have stopped; please report it".to_owned(),
            )
        };
        self.jobs
            .send(Job {
                request,
                endpoint: endpoint.to_owned(),
                reply,
            })
            .await
            .map_err(|_| gone())?;
        answer.await.unwrap_or_else(|_| Err(gone()))
    }
}

async fn lane<R, E, F>(execute: Arc<E>, queue: Arc<Mutex<mpsc::Receiver<Job<R>>>>)
where
    E: Fn(R, String) -> F,
    F: Future<Output = Sent>,
{
    loop {
        let job = queue.lock().await.recv().await;
        let Some(job) = job else {
            return;
        };
        if job.reply.is_closed() {
            // The case that queued it has ended (cut short): nothing to send it for.
            continue;
        }
        let outcome = execute(job.request, job.endpoint).await;
        let _ = job.reply.send(outcome);
    }
}
