//! Grouped calls: calls with the same key (a period's projection, an ingest key's rate check, a
//! hot board's hits) that arrive while one is in flight go to Redis together, as one script
//! call, once it returns.
//!
//! Besides its ledger write, every write request makes two Redis calls: its key's rate check
//! and its totals' projection. With many requests in flight (wrk's 32 connections, a host's
//! worker pool) they come in cohorts — the ledger's group commit answers a round of calls at
//! once — and each paid its own round trip and script run, in this process and in Redis alike
//! (docs/BENCHMARKS.md, ingest). Grouped, a cohort costs one or two calls.
//!
//! - The first call for a key leads: a task of its own (a caller that hangs up neither stops it
//!   nor strands the calls behind it) that runs rounds until no call is waiting. A round takes
//!   the calls waiting when it begins, at most `MAX_ROUND`; calls that arrive meanwhile wait for
//!   the next round.
//! - A round answers each of its calls, in arrival order. If the leader stops without answering
//!   (a panic), its calls get `None`, and the key's next call starts a new leader.
//! - Nothing waits for more calls to come: a lone call is sent at once, as it was alone.
//!
//! The rounds themselves are [`super::Projection::project_grouped`] (totals merged by member, the
//! highest version kept: the projection's values are absolute and versioned, so one call leaves
//! what the calls one by one would have), [`super::Projection::rate_check`] (`rate.lua`
//! admits the first n of a round's requests, as n calls in a row would) and
//! [`super::Projection::hot_hit`] (`hot_hit.lua` counts a round's hits one after the other).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::oneshot;

/// Most calls a round takes.
const MAX_ROUND: usize = 512;

type Waiting<T, A> = Vec<(T, oneshot::Sender<A>)>;

/// The calls waiting for each key; a key is present while its leader runs.
pub(super) struct Grouped<K, T, A> {
    queues: Mutex<HashMap<K, Waiting<T, A>>>,
}

impl<K, T, A> Default for Grouped<K, T, A> {
    fn default() -> Self {
        Self { queues: Mutex::default() }
    }
}

impl<K, T, A> Grouped<K, T, A>
where
    K: Eq + Hash + Clone + Send + Sync + 'static,
    T: Send + 'static,
    A: Send + 'static,
{
    /// Runs `item` in a round of `key`'s calls; `round` gets the round's items, in arrival
    /// order, and answers one result per item.
    pub(super) async fn call<R, Fut>(self: &Arc<Self>, key: K, item: T, round: R) -> Option<A>
    where
        R: FnMut(&K, Vec<T>) -> Fut + Send + 'static,
        Fut: Future<Output = Vec<A>> + Send + 'static,
    {
        let (answer, answered) = oneshot::channel();
        let lead = match self.queues().entry(key.clone()) {
            Entry::Occupied(mut waiting) => {
                waiting.get_mut().push((item, answer));
                false
            }
            Entry::Vacant(queue) => {
                queue.insert(vec![(item, answer)]);
                true
            }
        };
        if lead {
            tokio::spawn(Arc::clone(self).lead(key, round));
        }
        answered.await.ok()
    }

    fn queues(&self) -> std::sync::MutexGuard<'_, HashMap<K, Waiting<T, A>>> {
        self.queues.lock().unwrap_or_else(PoisonError::into_inner)
    }

    async fn lead<R, Fut>(self: Arc<Self>, key: K, mut round: R)
    where
        R: FnMut(&K, Vec<T>) -> Fut + Send + 'static,
        Fut: Future<Output = Vec<A>> + Send + 'static,
    {
        let mut leader = Leader { grouped: &self, key: &key, done: false };
        loop {
            let calls = {
                let mut queues = self.queues();
                let waiting = queues.get_mut(&key).expect("a leader's key has a queue");
                if waiting.is_empty() {
                    queues.remove(&key);
                    leader.done = true;
                    return;
                }
                let n = waiting.len().min(MAX_ROUND);
                waiting.drain(..n).collect::<Vec<_>>()
            };
            let (items, answers): (Vec<T>, Vec<_>) = calls.into_iter().unzip();
            let results = round(&key, items).await;
            debug_assert_eq!(results.len(), answers.len(), "one result per call");
            for (answer, result) in answers.into_iter().zip(results) {
                let _ = answer.send(result);
            }
        }
    }
}

/// A running leader. If it stops before its queue is empty, the calls still waiting are
/// answered `None` (their senders drop) and the key's next call starts a new leader.
struct Leader<'a, K: Eq + Hash, T, A> {
    grouped: &'a Grouped<K, T, A>,
    key: &'a K,
    done: bool,
}

impl<K: Eq + Hash, T, A> Drop for Leader<'_, K, T, A> {
    fn drop(&mut self) {
        if !self.done {
            self.grouped.queues.lock().unwrap_or_else(PoisonError::into_inner).remove(self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls that arrive while a round runs go together in the next one, each answered its own.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_behind_a_round_share_the_next_and_each_gets_its_answer() {
        let grouped: Arc<Grouped<&str, u32, u32>> = Arc::default();
        let rounds = Arc::new(Mutex::new(Vec::new()));
        let (release, released) = tokio::sync::watch::channel(false);
        let round = {
            let rounds = rounds.clone();
            move |_: &&str, items: Vec<u32>| {
                rounds.lock().unwrap().push(items.clone());
                let mut released = released.clone();
                async move {
                    let _ = released.wait_for(|r| *r).await;
                    items.iter().map(|i| i * 10).collect()
                }
            }
        };
        let first = tokio::spawn({
            let (g, r) = (grouped.clone(), round.clone());
            async move { g.call("k", 1, r).await }
        });
        while rounds.lock().unwrap().is_empty() {
            tokio::task::yield_now().await;
        }
        let behind: Vec<_> = (2..=4)
            .map(|i| {
                let (g, r) = (grouped.clone(), round.clone());
                tokio::spawn(async move { g.call("k", i, r).await })
            })
            .collect();
        while grouped.queues().get("k").map_or(0, Vec::len) < 3 {
            tokio::task::yield_now().await;
        }
        release.send(true).unwrap();
        assert_eq!(first.await.unwrap(), Some(10));
        let mut answers = Vec::new();
        for call in behind {
            answers.push(call.await.unwrap());
        }
        assert_eq!(answers, [Some(20), Some(30), Some(40)]);
        // The three arrived in an order of the runtime's choosing, all behind the first round.
        let mut rounds = rounds.lock().unwrap().clone();
        rounds[1].sort_unstable();
        assert_eq!(rounds, [vec![1], vec![2, 3, 4]]);
        assert!(grouped.queues().is_empty(), "the leader ends when no call is waiting");
    }

    /// A leader that panics answers its waiting calls `None`; the next call leads anew.
    #[tokio::test]
    async fn a_leader_that_stops_leaves_no_call_waiting_for_ever() {
        let grouped: Arc<Grouped<&str, u32, u32>> = Arc::default();
        let failed =
            grouped.call("k", 1, |_: &&str, _: Vec<u32>| async { panic!("a round that fails") }).await;
        assert_eq!(failed, None);
        let next = grouped.call("k", 2, |_: &&str, items: Vec<u32>| async move { items }).await;
        assert_eq!(next, Some(2));
    }
}
