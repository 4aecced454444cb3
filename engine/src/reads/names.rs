//! Display names and avatars: every process keeps a copy of all members' display names, and of
//! the avatars of the members that have one, and brings it level with the ledger's profiles by
//! their revision (migration 0008), so the names and avatars of a page are joined from memory.
//! A per-page ledger query cost more than the rest of an around-me read (docs/BENCHMARKS.md,
//! reads), and a cache of recent lookups could not help a board whose readers look up members
//! at random.
//!
//! Freshness: a read finds the copy at most [`NAME_SYNC_INTERVAL`] older than the ledger; a
//! profile written through this engine shows in its reads at once. Memory: every profile's
//! member id and display name (about 100 bytes each; a million profiles ≈ 100 MB), and, in a
//! map of their own so that members without an avatar cost nothing, the member id and URL of
//! each avatar (about 150 bytes for a typical URL, at most about 600 with the API's 512-character
//! limit; a million avatars ≈ 150 MB).
//!
//! Profile revisions are handed out under one locked row of `profile_clock`, so they commit in
//! order and a catch-up "after revision R" (`Ledger::profile_changes`) never skips one.

use super::Reads;
use crate::EngineError;
use domain::MemberId;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// How old the copy of the display names may be when a read uses it.
pub const NAME_SYNC_INTERVAL: Duration = Duration::from_secs(1);

/// Profiles read from the ledger per catch-up query.
const SYNC_PAGE: i64 = 50_000;

/// This process's copy of the display names and avatars.
#[derive(Default)]
pub struct Names {
    copy: RwLock<Copy>,
    /// One catch-up at a time; readers that find the copy old wait for it instead of each
    /// asking the ledger the same question.
    catching_up: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Copy {
    by_member: HashMap<MemberId, Arc<str>>,
    /// Avatar URLs of the members whose profile has one (most have none).
    avatars: HashMap<MemberId, Arc<str>>,
    /// The highest profile revision applied.
    revision: i64,
    /// When the last catch-up asked the ledger (everything committed before then is in).
    asked_at: Option<Instant>,
}

impl Names {
    fn is_fresh(&self) -> bool {
        let copy = self.copy.read().expect("names");
        copy.asked_at.is_some_and(|at| at.elapsed() < NAME_SYNC_INTERVAL)
    }
}

impl Reads {
    /// Display names of `members` (absent: no profile), from this process's copy, brought level
    /// with the ledger first when it is older than [`NAME_SYNC_INTERVAL`].
    pub async fn display_names(
        &self,
        members: &[MemberId],
    ) -> Result<HashMap<MemberId, String>, EngineError> {
        self.level_names().await?;
        let copy = self.names.copy.read().expect("names");
        Ok(of(&copy.by_member, members))
    }

    /// [`Reads::display_names`] of `members` and their avatar URLs (absent: no profile, or a
    /// profile without one), from one look at the copy: what a ranking page joins. Avatars are
    /// untrusted text, http or https as the profile gave it.
    pub(crate) async fn names_and_avatars(
        &self,
        members: &[MemberId],
    ) -> Result<(HashMap<MemberId, String>, HashMap<MemberId, String>), EngineError> {
        self.level_names().await?;
        let copy = self.names.copy.read().expect("names");
        Ok((of(&copy.by_member, members), of(&copy.avatars, members)))
    }

    /// Brings the copy level with the ledger when it is older than [`NAME_SYNC_INTERVAL`].
    async fn level_names(&self) -> Result<(), EngineError> {
        if !self.names.is_fresh() {
            self.catch_up_names(false).await?;
        }
        Ok(())
    }

    /// Loads the display names ahead of the first read (at start).
    pub async fn load_names(&self) -> Result<(), EngineError> {
        self.catch_up_names(true).await
    }

    /// Applies the profiles changed since the copy's revision. Unless `always`, does nothing
    /// when another reader caught up while this one waited for its turn.
    pub(crate) async fn catch_up_names(&self, always: bool) -> Result<(), EngineError> {
        let _turn = self.names.catching_up.lock().await;
        if !always && self.names.is_fresh() {
            return Ok(());
        }
        let asked_at = Instant::now();
        let mut after = self.names.copy.read().expect("names").revision;
        loop {
            let changes = self.core.ledger.profile_changes(after, SYNC_PAGE).await?;
            let complete = (changes.len() as i64) < SYNC_PAGE;
            let mut copy = self.names.copy.write().expect("names");
            for (member, name, avatar, revision) in changes {
                // A profile whose avatar was removed drops out of the avatars.
                match avatar {
                    Some(url) => copy.avatars.insert(member.clone(), url.into()),
                    None => copy.avatars.remove(&member),
                };
                copy.by_member.insert(member, name.into());
                copy.revision = copy.revision.max(revision);
            }
            after = copy.revision;
            if complete {
                copy.asked_at = Some(asked_at);
                return Ok(());
            }
        }
    }

    /// The newest profile revision in this process's copy: it moves whenever a name or avatar
    /// the reads show may have changed (a profile written here, or caught up from the ledger).
    pub fn names_revision(&self) -> i64 {
        self.names.copy.read().expect("names").revision
    }
}

/// The values of `map` for those of `members` it holds.
fn of(map: &HashMap<MemberId, Arc<str>>, members: &[MemberId]) -> HashMap<MemberId, String> {
    members.iter().filter_map(|m| map.get(m).map(|v| (m.clone(), v.to_string()))).collect()
}
