//! `--concurrency` lanes: at most that many requests in flight across the whole run, each lane
//! sending one request at a time, back to back, as a load tool's connections do.
//!
//! A semaphore gave the same bound, but each freed permit went to a request whose task then
//! had to be scheduled, and build and serialize its request, before it could send, and it held
//! its permit while the answer was parsed. A lane only sends requests built beforehand and reads
//! their answers; the case's task builds them and parses the answers, so the CPU work happens
//! beside the requests in flight rather than between them.
//!
//! Two queues stand in front of the lanes. A request its case waits on alone (the next step of
//! a chain: a scenario, an explorer sequence) goes before requests sent in batches (a generated
//! case's bodies, eight at a time): a chain has one request in flight at most, so the batches
//! lose little, while a chain queued behind every batch took a round of the whole queue per step
//! and made the run as long as its longest chain times the queue's length.

use super::{Response, SendError};
use std::future::Future;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot, Mutex};

/// What a lane hands back: the answer, unparsed.
type LaneAnswer = Result<Response, SendError>;

/// A built request waiting for a lane.
struct QueuedRequest<R> {
    request: R,
    /// Its endpoint, for the pace.
    endpoint: String,
    reply: oneshot::Sender<LaneAnswer>,
}

/// Which queue a request waits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Urgency {
    /// Its case waits on it alone before it sends anything else: it goes first.
    Chain,
    /// One of several its case has in flight at once.
    Batch,
}

/// The queues in front of the lanes; the lanes end when every handle to them is dropped.
pub(super) struct Lanes<R> {
    chain: mpsc::Sender<QueuedRequest<R>>,
    batch: mpsc::Sender<QueuedRequest<R>>,
}

// Not derived: a handle clones whatever the requests are.
impl<R> Clone for Lanes<R> {
    fn clone(&self) -> Lanes<R> {
        Lanes {
            chain: self.chain.clone(),
            batch: self.batch.clone(),
        }
    }
}

/// The receiving ends, which the lanes take turns at.
struct Queues<R> {
    chain: mpsc::Receiver<QueuedRequest<R>>,
    batch: mpsc::Receiver<QueuedRequest<R>>,
}

impl<R> Queues<R> {
    /// The next job, a chain's first; `None` once both queues are closed and empty.
    async fn next(&mut self) -> Option<QueuedRequest<R>> {
        tokio::select! {
            biased;
            Some(job) = self.chain.recv() => Some(job),
            Some(job) = self.batch.recv() => Some(job),
            else => None,
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
        F: Future<Output = LaneAnswer> + Send + 'static,
    {
        let handle = tokio::runtime::Handle::try_current().ok()?;
        let (chain, chain_queue) = mpsc::channel(QUEUE);
        let (batch, batch_queue) = mpsc::channel(QUEUE);
        let queue = Arc::new(Mutex::new(Queues {
            chain: chain_queue,
            batch: batch_queue,
        }));
        let execute = Arc::new(execute);
        for _ in 0..n.max(1) {
            handle.spawn(lane(execute.clone(), queue.clone()));
        }
        Some(Lanes { chain, batch })
    }

    /// Sends `request` on the next free lane, after the chains' requests waiting when it is a
    /// batch's, and reads its answer.
    pub(super) async fn execute(&self, request: R, endpoint: &str, urgency: Urgency) -> LaneAnswer {
        let (reply, answer) = oneshot::channel();
        let gone = || {
            SendError::Transport(
                "covenant defect: the request lanes have stopped; please report it".to_owned(),
            )
        };
        let queue = match urgency {
            Urgency::Chain => &self.chain,
            Urgency::Batch => &self.batch,
        };
        queue
            .send(QueuedRequest {
                request,
                endpoint: endpoint.to_owned(),
                reply,
            })
            .await
            .map_err(|_| gone())?;
        answer.await.unwrap_or_else(|_| Err(gone()))
    }
}

async fn lane<R, E, F>(execute: Arc<E>, queue: Arc<Mutex<Queues<R>>>)
where
    E: Fn(R, String) -> F,
    F: Future<Output = LaneAnswer>,
{
    loop {
        let job = queue.lock().await.next().await;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex as Shared;
    use tokio::sync::Semaphore;

    /// Lets the runtime's other tasks run a few turns each.
    async fn settle() {
        for _ in 0..16 {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn a_chains_request_goes_before_the_batches_queued_ahead_of_it() {
        let sent = Arc::new(Shared::new(Vec::new()));
        let gate = Arc::new(Semaphore::new(0));
        let (log, open) = (sent.clone(), gate.clone());
        let lanes = Lanes::start(1, move |request: &'static str, _endpoint| {
            let (log, open) = (log.clone(), open.clone());
            async move {
                open.acquire().await.expect("never closed").forget();
                log.lock().expect("not poisoned").push(request);
                Err(SendError::Stopped)
            }
        })
        .expect("inside a runtime");
        let send = |name: &'static str, urgency| {
            let lanes = lanes.clone();
            tokio::spawn(async move { lanes.execute(name, "GET /x", urgency).await })
        };
        // The one lane takes the first batch request and holds it until the gate opens.
        let mut waiting = vec![send("batch 1", Urgency::Batch)];
        settle().await;
        for (name, urgency) in [
            ("batch 2", Urgency::Batch),
            ("batch 3", Urgency::Batch),
            ("chain", Urgency::Chain),
            ("batch 4", Urgency::Batch),
        ] {
            waiting.push(send(name, urgency));
            settle().await;
        }
        gate.add_permits(waiting.len());
        for answer in waiting {
            assert!(answer.await.expect("no panic").is_err());
        }
        assert_eq!(
            *sent.lock().expect("not poisoned"),
            ["batch 1", "chain", "batch 2", "batch 3", "batch 4"]
        );
    }
}
