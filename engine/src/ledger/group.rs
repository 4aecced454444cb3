//! Group commit: write calls on the same board that arrive while one is being recorded are recorded
//! together, in one transaction, in the order they arrived — every call on SQLite, calls of a
//! single write on PostgreSQL.
//!
//! SQLite has one writer, so concurrent calls queue for it anyway, each paying its own statements
//! and commit, and each commit appending the pages it changed to the WAL. Recorded as one, they pay
//! those once, and a page several calls change (a member's total) is written once
//! (docs/BENCHMARKS.md, ingest). PostgreSQL runs transactions side by side, but one per single
//! write costs a statement, a commit and a share lock of the period row each (a lock several
//! transactions hold at once is written as a MultiXact); grouped per board and instance, single
//! events took 1.3–1.6× the events/s at a quarter to a half less CPU each (docs/BENCHMARKS.md,
//! ingest). Its batches are not grouped (`Ledger::record`). A round of one call is recorded by
//! `Ledger::record_alone`: on PostgreSQL a single point event is then one statement.
//!
//! - The first call for a board starts the board's leader, a task of its own; calls that arrive
//!   while it records queue behind it and are recorded together by its next round, at most
//!   `MAX_GROUP_WRITES` writes a round (a single call is never split). The leader ends when no call
//!   is waiting. A caller that hangs up does not stop it: its writes are recorded all the same, as
//!   a write in flight must be.
//! - A group is one batch: its writes are decided in arrival order, each seeing what the ones
//!   before it did, exactly as if the calls had been recorded one after the other (a repeated id in
//!   a later call answers `duplicate`). Each call gets its own answers back.
//! - The group is recorded at the time of its newest call (`now`): writes are recorded when the
//!   transaction runs, and a write that reached the server before its period's end is judged with
//!   the board's grace like any write in flight.
//! - If the group's transaction fails, each of its calls is recorded again on its own, so that one
//!   call's failure is never another's.
//! - After a round of several calls, the leader gathers before its next round: it waits until as
//!   many calls are waiting as the last round held, or `GATHER` (2 ms) has passed, whichever comes
//!   first (woken once, by the call that completes the round, not by every call). Without it,
//!   clients that keep a number of requests in flight split into a large round and a round of the
//!   one or two calls that arrived just after it began: half the transactions held one call
//!   (measured: 1,072 of 2,231 rounds at 32 connections; docs/BENCHMARKS.md, ingest), each paying a
//!   whole transaction. The wait only delays when a round begins: every call is still answered
//!   after the commit of the transaction holding its writes. A single client (rounds of one call)
//!   never waits.

use super::write_rows::Recorded;
use super::{Ledger, LedgerError};
use domain::Board;
use domain::write::Write;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, oneshot};

/// Most writes a leader records in one round.
const MAX_GROUP_WRITES: usize = 2000;

/// Longest a leader waits, after a round of several calls, for as many calls to be waiting.
const GATHER: Duration = Duration::from_millis(2);

type Answer = Result<Vec<Recorded>, LedgerError>;

/// A call waiting for its group.
struct Pending {
    board: Board,
    writes: Vec<Write>,
    now: jiff::Timestamp,
    answer: oneshot::Sender<Answer>,
}

/// The calls waiting for each board, and whether a leader is recording that board.
#[derive(Default)]
pub(super) struct Groups {
    boards: Mutex<HashMap<String, Queue>>,
}

#[derive(Default)]
struct Queue {
    waiting: Vec<Pending>,
    leading: bool,
    /// Woken once `gather_for` calls are waiting, for a leader gathering its next round.
    arrived: Arc<Notify>,
    /// How many waiting calls the gathering leader waits for (0: it is not gathering).
    gather_for: usize,
}

impl Ledger {
    /// Records one call's writes with whatever other calls on the board are waiting (see the
    /// module documentation).
    pub(super) async fn record_grouped(
        &self,
        board: Board,
        writes: Vec<Write>,
        now: jiff::Timestamp,
    ) -> Answer {
        let (answer, answered) = oneshot::channel();
        let slug = board.slug.as_str().to_owned();
        let lead = {
            let mut boards = self.groups.boards.lock().unwrap_or_else(|e| e.into_inner());
            let queue = boards.entry(slug.clone()).or_default();
            queue.waiting.push(Pending { board, writes, now, answer });
            if queue.gather_for != 0 && queue.waiting.len() >= queue.gather_for {
                // Once per gathering: the leader is woken when its round is complete, not per call.
                queue.gather_for = 0;
                queue.arrived.notify_one();
            }
            !std::mem::replace(&mut queue.leading, true)
        };
        if lead {
            tokio::spawn(self.clone().lead(slug));
        }
        answered
            .await
            .unwrap_or_else(|_| Err(LedgerError::Interrupted("the board's group commit stopped".into())))
    }

    /// Records the board's waiting calls, round after round, until none is left.
    async fn lead(self, slug: String) {
        let mut leader = Leader { groups: &self.groups, slug: &slug, done: false };
        let mut last_round = 0;
        loop {
            if last_round > 1 {
                self.gather(&slug, last_round).await;
            }
            let group = {
                let mut boards = self.groups.boards.lock().unwrap_or_else(|e| e.into_inner());
                let queue = boards.get_mut(&slug).expect("a leader's board has a queue");
                if queue.waiting.is_empty() {
                    boards.remove(&slug);
                    leader.done = true;
                    return;
                }
                let mut size = 0;
                let fits = queue
                    .waiting
                    .iter()
                    .take_while(|p| {
                        size += p.writes.len();
                        size <= MAX_GROUP_WRITES
                    })
                    .count();
                queue.waiting.drain(..fits.max(1)).collect::<Vec<_>>()
            };
            last_round = group.len();
            self.record_group(group).await;
        }
    }

    /// Waits until `calls` calls are waiting for the board, or `GATHER` has passed. (A round
    /// takes the calls whose writes fit in `MAX_GROUP_WRITES`; the rest wait for the next.)
    async fn gather(&self, slug: &str, calls: usize) {
        let arrived = {
            let mut boards = self.groups.boards.lock().unwrap_or_else(|e| e.into_inner());
            let queue = boards.get_mut(slug).expect("a leader's board has a queue");
            if queue.waiting.len() >= calls {
                return;
            }
            queue.gather_for = calls;
            queue.arrived.clone()
        };
        let _ = tokio::time::timeout(GATHER, arrived.notified()).await;
        let mut boards = self.groups.boards.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(queue) = boards.get_mut(slug) {
            queue.gather_for = 0;
        }
    }

    async fn record_group(&self, group: Vec<Pending>) {
        tracing::trace!(calls = group.len(), "group commit");
        if group.len() == 1 {
            let one = group.into_iter().next().expect("one call");
            let answer = self.record_alone(&one.board, &one.writes, one.now).await;
            let _ = one.answer.send(answer);
            return;
        }
        // The newest call's board (an edit between the calls is seen by the later ones anyway).
        let last = group.last().expect("a group has calls");
        let (board, now) = (last.board.clone(), group.iter().map(|p| p.now).max().unwrap_or(last.now));
        let mut group = group;
        let sizes: Vec<usize> = group.iter().map(|p| p.writes.len()).collect();
        let mut writes: Vec<Write> = group.iter_mut().flat_map(|p| std::mem::take(&mut p.writes)).collect();
        match self.record_retrying(&board, &writes, now).await {
            Ok(answers) => {
                let mut answers = answers.into_iter();
                for (pending, size) in group.into_iter().zip(sizes) {
                    let _ = pending.answer.send(Ok(answers.by_ref().take(size).collect()));
                }
            }
            Err(error) => {
                tracing::debug!(%error, calls = group.len(), "group commit failed; recording its calls one by one");
                for (mut pending, size) in group.into_iter().zip(sizes) {
                    pending.writes = writes.drain(..size).collect();
                    let answer = self.record_alone(&pending.board, &pending.writes, pending.now).await;
                    let _ = pending.answer.send(answer);
                }
            }
        }
    }
}

/// A running leader. If it stops before its queue is empty (a panic while recording), the calls
/// still waiting are answered with an error instead of waiting for ever, and the board's next
/// call starts a new leader.
struct Leader<'a> {
    groups: &'a Groups,
    slug: &'a str,
    done: bool,
}

impl Drop for Leader<'_> {
    fn drop(&mut self) {
        if !self.done {
            let mut boards = self.groups.boards.lock().unwrap_or_else(|e| e.into_inner());
            boards.remove(self.slug);
        }
    }
}
