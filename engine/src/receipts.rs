//! Receipts (`domain::receipt`): a member's leaf in a settlement revision's Merkle tree with its
//! inclusion proof — or the proof of its absence — and the chain of links from that revision to
//! the latest one (`GET …/settlements/{revision}/receipts/{member}`, public as the settlement is).
//!
//! What a request may cost: a tree is built from all the revision's standing blocks, O(N), so it
//! is built once per process and kept by the [`Receipts`] service (the last [`RECEIPT_TREES`] revisions
//! asked for); a proof is then O(log N). One tree is built at a time per process, and concurrent
//! requests for the same tree wait for that one build. The chain is one read of the period's
//! revision rows; a revision written before migration 0023 stored no root, and gets it from its
//! (cached) tree.

use crate::ledger::StoredLink;
use crate::scope::Scope;
use crate::{Core, EngineError};
use domain::receipt::{ChainLink, Receipt, Tree, link};
use domain::{BoardSlug, MemberId, PeriodKey};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::sync::{OnceCell, Semaphore};

/// How many revisions' trees a process keeps (a tree of a million members is ≈ 150 MB).
pub const RECEIPT_TREES: usize = 4;

type TreeKey = (BoardSlug, PeriodKey, i64);
/// A tree, or its build under way (the first caller builds, the others wait for it).
type TreeSlot = Arc<OnceCell<Arc<Tree>>>;

/// The receipts trees this process built, most recent last.
struct ReceiptTrees {
    trees: Mutex<VecDeque<(TreeKey, TreeSlot)>>,
    /// One build at a time: a caller asking for many revisions waits rather than multiplying work.
    building: Semaphore,
}

impl Default for ReceiptTrees {
    fn default() -> Self {
        Self { trees: Mutex::default(), building: Semaphore::new(1) }
    }
}

impl ReceiptTrees {
    /// The slot of a tree, made (and the oldest dropped) when missing.
    fn slot(&self, key: &TreeKey) -> TreeSlot {
        let mut trees = self.trees.lock().expect("receipt trees");
        if let Some(at) = trees.iter().position(|(k, _)| k == key) {
            let entry = trees.remove(at).expect("a position in the list");
            let cell = entry.1.clone();
            trees.push_back(entry);
            return cell;
        }
        if trees.len() >= RECEIPT_TREES {
            trees.pop_front();
        }
        let cell = Arc::new(OnceCell::new());
        trees.push_back((key.clone(), cell.clone()));
        cell
    }
}

/// The receipts service: members' receipts, from the trees this process built. Cheap to clone.
#[derive(Clone)]
pub struct Receipts {
    core: Core,
    trees: Arc<ReceiptTrees>,
}

impl Receipts {
    pub(crate) fn new(core: Core) -> Self {
        Self { core, trees: Arc::default() }
    }

    /// The tree of one settlement revision, from this process's cache or built once.
    async fn tree(
        &self,
        board: &BoardSlug,
        period: PeriodKey,
        revision: i64,
    ) -> Result<Arc<Tree>, EngineError> {
        let cell = self.trees.slot(&(board.clone(), period, revision));
        let tree = cell
            .get_or_try_init(|| async {
                let _one = self.trees.building.acquire().await.expect("never closed");
                Ok::<_, EngineError>(Arc::new(self.core.ledger.receipt_tree(board, &period, revision).await?))
            })
            .await?;
        Ok(tree.clone())
    }

    /// The chain of a period's settlement revisions, oldest first: roots as stored, or from the
    /// cached tree of a revision written before migration 0023.
    async fn chain(&self, board: &BoardSlug, period: PeriodKey) -> Result<Vec<ChainLink>, EngineError> {
        let mut chain: Vec<ChainLink> = Vec::new();
        let rows: Vec<StoredLink> = self.core.ledger.settlement_links(board, &period).await?;
        for row in rows {
            let root = match row.root {
                Some(root) => root,
                None => self.tree(board, period, row.revision).await?.root(),
            };
            let previous_link = chain.last().map(|c| c.link.clone());
            let link = row.link.unwrap_or_else(|| {
                link(
                    board.as_str(),
                    &period.to_string(),
                    row.revision,
                    previous_link.as_deref(),
                    &row.digest,
                    &root,
                )
            });
            chain.push(ChainLink { revision: row.revision, previous_link, digest: row.digest, root, link });
        }
        Ok(chain)
    }

    /// A member's receipt for settlement revision `revision` of the scope's period: its leaf and
    /// inclusion proof, or the proof of its absence, and the chain from that revision to the
    /// latest. Not found when the period has no such revision.
    pub async fn receipt(
        &self,
        scope: &Scope,
        revision: i64,
        member: &MemberId,
    ) -> Result<Receipt, EngineError> {
        let (board, period) = (scope.slug(), scope.period());
        let mut chain = self.chain(board, period).await?;
        let Some(at) = chain.iter().position(|c| c.revision == revision) else {
            return Err(EngineError::NotFound {
                what: crate::Missing::Other(format!("settlement revision {revision} of {board} {period}")),
            });
        };
        let chain = chain.split_off(at);
        let tree = self.tree(board, period, revision).await?;
        Ok(Receipt::new(board.as_str(), &period.to_string(), &tree, member.as_str(), chain))
    }
}
