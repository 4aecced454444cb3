//! The exactly-once write path of all three operators.
//!
//! One transaction per call (a batch is one transaction; on SQLite calls queued for the writer,
//! and on PostgreSQL single writes, share one: `group.rs`). For each write, in order:
//! 1. a repeat of an event or submission id answers `duplicate` (or `late`, if the first copy was
//!    kept as late) and changes nothing — a repeat within the batch too;
//! 2. a write whose period is not `open`, or whose period ended more than the board's grace ago,
//!    is kept in `late_entries` for review and not applied — whether or not the scheduler has
//!    frozen the period yet;
//! 3. the member's total is locked and the operator decides (`domain::write::decide`); the
//!    result is checked against the board's bounds and the 2^53 codec;
//! 4. the entry is inserted, the total and its version move, and under `first_reached` the member
//!    gets the period's next reach sequence when its points changed.
//!
//! A batch is recorded with a few set-based statements, not several per write: each statement
//! through sqlx's `Any` driver cost far more than the work it did (docs/BENCHMARKS.md, the ingest
//! benchmark). In its transaction:
//! - on PostgreSQL, the rows the batch needs are locked in one global order (periods, then
//!   (period, member)); when the totals are locked is the batch's [`Locking`]: first
//!   (`lock_in_order`, one multi-row statement for the totals rows), or last, for point events and
//!   corrections on `shared` boards, so that concurrent batches sharing members do not queue behind each other's
//!   whole transactions;
//! - one statement per `LOOKUP_CHUNK` ids finds which of them `entries` and `late_entries`
//!   already hold;
//! - one statement per period and `LOOKUP_CHUNK` members reads their totals (not under
//!   `Locking::Last`); each period's state and next reach sequence are read (on PostgreSQL by
//!   the statement that locks the period row);
//! - the writes are then decided in order in memory (`Batch::decide`) with the steps of [`apply`]
//!   (`judge`, `conclude`), each seeing the totals, the ids and the reach sequences as the writes
//!   before it in the batch left them — so the answers are those of one write after the other;
//! - the entries (in batch order), the late entries and the changed totals are written with
//!   multi-row statements (under `Locking::Last` the totals by adding the deltas, which locks
//!   them, and the batch is decided again on what they held: `add_deltas`), each period's next
//!   reach sequence once, and a rejected write's audit row one by one.
//!
//! Segments (`segments.rs`): the values the batch's members hold are read with the totals; a
//! write naming another value than the one held is `rejected` (`segment_conflict`, audited like
//! every rejection), and the first recorded write naming a dimension fixes the member's value;
//! the new values are inserted before the totals are stored, and one fixed by a concurrent
//! transaction first makes the batch retry, like a raced id.
//!
//! On PostgreSQL a round of one point event on a `shared` board without segments is first tried as one
//! autocommitted statement (`POINT_AT_ONCE`), which answers only `applied` or `duplicate` and
//! otherwise writes nothing and leaves the write to the batch path.
//!
//! The unique `(board, external_id)` constraint has the last word on duplicates: when an entry
//! is not inserted because another transaction recorded its id after the check (PostgreSQL), the
//! batch's answers are void: it rolls back and is retried, and the retry answers that write
//! `duplicate`. So concurrent retries through several instances still count once.
//!
//! This module holds the entry of the write path: [`Ledger::record`], its retries and one attempt
//! at a batch, and [`apply`], one change on its own (late review, corrections). The steps live in
//! siblings, each by what it works on: `decide.rs` decides writes in memory, `entries.rs` and
//! `totals.rs` hold the SQL of entries (and late entries) and of totals, `locks.rs` the period
//! rows and the row locks in their one global order.

use super::decide::{Batch, Decided, Held, Verdict, conclude, judge};
use super::entries::{EntryMeta, NewEntry, insert_entries, seen_ids};
use super::locks::{lock_in_order, lock_periods, next_seq, period_row};
use super::segments::{held_in, insert_memberships, profile_values};
use super::totals::{add_deltas, lock_total, read_wanted, store_total, store_totals, wanted_totals};
use super::write_rows::{Projected, Recorded};
use super::{Backend, Ledger, LedgerError, Tx};
use domain::ErrorCode;
use domain::segment::Values;
use domain::write::{Change, Outcome, Write};
use domain::{Board, MemberId, PeriodKey, TiePolicy};
use sqlx::Row;
use std::collections::HashMap;

impl Ledger {
    /// Records `writes` on `board` in one transaction and answers each in order. The transaction
    /// may also record the board's other calls waiting at the same moment (`group.rs`).
    pub async fn record(
        &self,
        board: &Board,
        writes: &[Write],
        now: jiff::Timestamp,
    ) -> Result<Vec<Recorded>, LedgerError> {
        match self.backend {
            // One writer at a time: calls that would queue for it are recorded together.
            Backend::Sqlite => self.record_grouped(board.clone(), writes.to_vec(), now).await,
            // Single writes, what most hosts send (one event per user action), are grouped too:
            // a round of many is one transaction of a few statements, where alone each paid a
            // statement, a commit and a period row lock of its own (measured: docs/BENCHMARKS.md,
            // ingest); a round of one is still one statement (`record_alone`).
            Backend::Postgres if writes.len() == 1 => {
                self.record_grouped(board.clone(), writes.to_vec(), now).await
            }
            // Batches run side by side: each already shares its statements among its writes, and
            // grouped they left PostgreSQL's other cores waiting (measured slower: docs/BENCHMARKS.md,
            // ingest).
            Backend::Postgres => {
                let (ledger, board, writes) = (self.clone(), board.clone(), writes.to_vec());
                super::detached(async move { ledger.record_alone(&board, &writes, now).await }).await
            }
        }
    }

    /// Records one call's writes in a transaction of their own. On PostgreSQL a single point
    /// event on a `shared` board is first tried as one statement that commits on its own
    /// (`record_point_at_once`); anything it cannot answer takes the batch path.
    pub(super) async fn record_alone(
        &self,
        board: &Board,
        writes: &[Write],
        now: jiff::Timestamp,
    ) -> Result<Vec<Recorded>, LedgerError> {
        if self.backend == Backend::Postgres
            && let [write] = writes
            && let Some(answer) = self.record_point_at_once(board, write, now).await?
        {
            return Ok(vec![answer]);
        }
        self.record_retrying(board, writes, now).await
    }

    pub(super) async fn record_retrying(
        &self,
        board: &Board,
        writes: &[Write],
        now: jiff::Timestamp,
    ) -> Result<Vec<Recorded>, LedgerError> {
        // Concurrent PostgreSQL transactions could still pick the same victims in a different
        // order in rare cases; a deadlock or serialization failure is retried as a whole. So is
        // a batch that lost a race for one of its ids (see `record_batch`): the retry's
        // duplicate check sees the id the other transaction committed, so each such retry has
        // one id fewer left to race for and the retries end (the bound only guards that).
        // A batch whose totals moved under it so that a write would be decided differently is
        // retried with its totals locked first (`Locking`), which cannot happen twice.
        let (mut attempt, mut raced) = (0, 0);
        let mut locking = Locking::for_batch(self.backend, board, writes);
        loop {
            match self.record_batch(board, writes, now, locking).await {
                Err(LedgerError::Sql(sqlx::Error::Database(e)))
                    if attempt < 3 && matches!(e.code().as_deref(), Some("40P01" | "40001")) =>
                {
                    attempt += 1;
                    tracing::debug!(attempt, error = %e, "write transaction retried");
                }
                Ok(Attempt::Raced) if raced < writes.len() => {
                    raced += 1;
                    tracing::debug!(raced, "write transaction retried: an id was recorded concurrently");
                }
                Ok(Attempt::Raced) => {
                    return Err(LedgerError::Interrupted(
                        "the batch's ids kept being recorded concurrently".into(),
                    ));
                }
                Ok(Attempt::Moved) if locking == Locking::Last => {
                    locking = Locking::First;
                    tracing::debug!("write transaction retried: totals moved before they were locked");
                }
                Ok(Attempt::Moved) => {
                    return Err(LedgerError::Corrupt("locked totals moved under a batch".into()));
                }
                Ok(Attempt::Recorded(answers)) => return Ok(answers),
                Err(e) => return Err(e),
            }
        }
    }

    /// One attempt at a batch.
    async fn record_batch(
        &self,
        board: &Board,
        writes: &[Write],
        now: jiff::Timestamp,
        locking: Locking,
    ) -> Result<Attempt, LedgerError> {
        let backend = self.backend;
        let mut w = self.begin_write().await?;
        let tx = &mut w.tx;
        let slug = board.slug.as_str();
        // `Writes::record` admitted every write; this guard keeps a key that could not be parsed
        // back out of the ledger whoever the caller is.
        let periods = writes
            .iter()
            .map(|w| board.period_of(w.occurred_at))
            .collect::<Result<Vec<PeriodKey>, _>>()
            .map_err(|e| LedgerError::refused(ErrorCode::Invalid, e.to_string()))?;
        let keys: Vec<String> = periods.iter().map(|p| p.to_string()).collect();
        // On PostgreSQL the period rows are read as they are locked; SQLite reads them below.
        let mut states = match (backend, locking) {
            (Backend::Sqlite, _) => HashMap::new(),
            (Backend::Postgres, Locking::First) => lock_in_order(tx, board, writes, &keys, now).await?,
            (Backend::Postgres, Locking::Last) => {
                lock_periods(tx, board, keys.iter().map(String::as_str).collect()).await?
            }
        };

        // 1. Which ids were applied or kept as late before this batch: one statement.
        let ids: Vec<&str> =
            writes.iter().filter_map(|w| w.change.external_id().map(|id| id.as_str())).collect();
        let seen = seen_ids(tx, backend, slug, &ids).await?;

        // 2. The totals every write that may apply will start from, one statement per period
        //    (under `Locking::Last`: not yet, the batch is first decided from zero); and the
        //    state of each period.
        let wanted = wanted_totals(writes, &keys, &seen);
        let totals = match locking {
            Locking::First => read_wanted(tx, backend, slug, &wanted).await?,
            Locking::Last => HashMap::new(),
        };
        for key in &keys {
            if !states.contains_key(key) {
                states.insert(key.clone(), period_row(tx, slug, key).await?);
            }
        }

        let (values, profiles) = segment_values(tx, backend, board, writes, &keys).await?;
        let held = Held { values, profiles: &profiles };

        // 3. Each write in order, in memory: the same steps as `apply`, on the running totals.
        let batch =
            Batch { board, writes, periods: &periods, keys: &keys, seen: &seen, states: &states, now };
        let mut decided = batch.decide(totals, held.clone());

        // 4. Everything the batch writes, a few rows-at-once statements.
        if insert_entries(tx, backend, "entries", slug, &decided.entries, now).await?
            != decided.entries.len() as u64
        {
            // Another transaction recorded one of these ids since our check (PostgreSQL, several
            // connections or instances): the answers above are void.
            w.tx.rollback().await?;
            return Ok(Attempt::Raced);
        }
        // (A late id recorded concurrently answers `late` all the same, as a repeat would.)
        insert_entries(tx, backend, "late_entries", slug, &decided.late, now).await?;
        if locking == Locking::Last {
            // Only now are the totals locked: the batch's deltas are added to them, and the batch
            // is decided again from the totals they held. It stands if it records the same
            // entries; then the totals it stores are the ones just written.
            let before = add_deltas(tx, slug, writes, &keys, &wanted, &decided, now).await?;
            let again = batch.decide(before, held);
            if !again.records_as(&decided) {
                w.tx.rollback().await?;
                return Ok(Attempt::Moved);
            }
            decided = Decided { stored: HashMap::new(), ..again };
        }
        if insert_memberships(tx, backend, slug, &decided.memberships).await?
            != decided.memberships.len() as u64
        {
            // Another transaction fixed one of these values first (PostgreSQL): decide again on it.
            w.tx.rollback().await?;
            return Ok(Attempt::Raced);
        }
        let answers = write_decided(tx, backend, slug, writes, decided, now).await?;
        w.tx.commit().await?;
        Ok(Attempt::Recorded(answers))
    }
}

/// Writes what a batch decided besides its entries and memberships: the totals it changed, the
/// reach sequences it took and an audit row per write refused by a rule. Answers the batch's
/// answers.
async fn write_decided(
    tx: &mut Tx,
    backend: super::Backend,
    slug: &str,
    writes: &[Write],
    decided: Decided<'_>,
    now: jiff::Timestamp,
) -> Result<Vec<Recorded>, LedgerError> {
    let Decided { answers, stored, rejected, taken, .. } = decided;
    let mut stored: Vec<_> = stored.into_iter().collect();
    stored.sort_unstable_by_key(|(at, _)| *at);
    store_totals(tx, backend, slug, &stored, now).await?;
    for (key, taken) in taken {
        sqlx::query("UPDATE periods SET next_seq = next_seq + $1 WHERE board = $2 AND period = $3")
            .bind(taken)
            .bind(slug)
            .bind(key)
            .execute(&mut **tx)
            .await?;
    }
    for (i, key) in rejected {
        // A write refused by a rule is part of the audit trail (docs/DESIGN.md, "Count and
        // explain").
        let write = &writes[i];
        let external_id = write.change.external_id().map(|id| id.as_str());
        let after = serde_json::json!({ "kind": write.change.kind(), "external_id": external_id });
        super::audit::record(
            tx,
            &super::audit::AuditRecord {
                actor: "ingest",
                action: "write_rejected",
                board: Some(slug),
                period: Some(key),
                member: Some(write.member.as_str()),
                reason: answers[i].reason.as_deref(),
                before: None,
                after: Some(after),
            },
            now,
        )
        .await?;
    }
    Ok(answers)
}

/// The segment values the batch's members hold (segmented boards only), and the values named by
/// the profiles of members still without one in some dimension their write does not name either:
/// what a recorded write fixes by default.
async fn segment_values<'a>(
    tx: &mut Tx,
    backend: super::Backend,
    board: &Board,
    writes: &'a [Write],
    keys: &'a [String],
) -> Result<(HashMap<(&'a str, &'a str), Values>, HashMap<String, Values>), LedgerError> {
    if board.segments.is_empty() {
        return Ok(Default::default());
    }
    let values = held_segments(tx, backend, board.slug.as_str(), writes, keys).await?;
    let mut unsettled: Vec<&str> = writes
        .iter()
        .zip(keys)
        .filter(|(w, key)| {
            let held = values.get(&(key.as_str(), w.member.as_str()));
            board
                .segments
                .iter()
                .any(|d| held.is_none_or(|v| !v.contains_key(d)) && !w.segments.contains_key(d))
        })
        .map(|(w, _)| w.member.as_str())
        .collect();
    unsettled.sort_unstable();
    unsettled.dedup();
    let profiles = match unsettled.is_empty() {
        true => HashMap::new(),
        false => profile_values(tx, backend, &unsettled).await?,
    };
    Ok((values, profiles))
}

/// One point event on a `shared` board on PostgreSQL, in one statement run on its own (it commits
/// as it ends): the period row locked `FOR SHARE` and found `open`, the id found in neither
/// `entries` nor `late_entries`, the member's total upserted with the delta added when the new
/// total is within the board's bounds, and the entry inserted only when the total moved. So a
/// write is one round trip instead of the batch path's six (BEGIN, the period's row as it is
/// locked, the ids, the entry, the total, COMMIT; docs/BENCHMARKS.md, ingest).
///
/// The answers are the batch path's exactly: it answers here only `applied` and `duplicate`;
/// whatever else the write may be — a period that is missing, not open or past its end + grace, a
/// write kept as late before, a total that would leave the bounds or overflow, an id recorded by a
/// concurrent transaction after this statement's snapshot (the entry's unique key fails the
/// statement: nothing was written) — it answers None, having written nothing, and the caller
/// records the write through the batch path, which decides it.
const POINT_AT_ONCE: &str = "WITH \
    p AS (SELECT state FROM periods WHERE board = $1 AND period = $2 FOR SHARE), \
    seen AS (SELECT EXISTS (SELECT 1 FROM entries WHERE board = $1 AND external_id = $4) AS applied, \
                    EXISTS (SELECT 1 FROM late_entries WHERE board = $1 AND external_id = $4) AS kept), \
    t AS (INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, updated_at) \
          SELECT $1, $2, $3, $5, 1, 0, 0, $8 FROM p, seen \
          WHERE p.state = 'open' AND NOT seen.applied AND NOT seen.kept \
          ON CONFLICT (board, period, member) DO UPDATE SET points = totals.points + excluded.points, \
            version = totals.version + 1, updated_at = excluded.updated_at \
          WHERE totals.points + excluded.points BETWEEN $9 AND $10 \
          RETURNING points, version, hidden), \
    e AS (INSERT INTO entries (board, period, member, kind, external_id, delta, occurred_at, recorded_at, metadata) \
          SELECT $1, $2, $3, $6, $4, $5, $7, $8, $11 FROM t) \
    SELECT (SELECT state FROM p) AS state, seen.applied, seen.kept, t.points, t.version, t.hidden \
    FROM seen LEFT JOIN t ON TRUE";

impl Ledger {
    /// See [`POINT_AT_ONCE`]: Some answer when the one statement recorded the write or found it
    /// a duplicate, None when the batch path must decide it (nothing was written).
    async fn record_point_at_once(
        &self,
        board: &Board,
        write: &Write,
        now: jiff::Timestamp,
    ) -> Result<Option<Recorded>, LedgerError> {
        let Change::Point { event_id, delta } = &write.change else { return Ok(None) };
        // On a board with segments a write checks and fixes the member's values (the ones it
        // names, or its profile's) and answers them for the projection: the batch path's work.
        if !board.segments.is_empty() {
            return Ok(None);
        }
        let Ok(period) = board.period_of(write.occurred_at) else { return Ok(None) };
        // A member's first write stores the delta itself, which must be within the bounds.
        if board.tie_policy() != TiePolicy::Shared
            || now >= board.closes_at(period)
            || board.codec.check_points(*delta).is_err()
        {
            return Ok(None);
        }
        let (min, max) = board.codec.bounds();
        let key = period.to_string();
        let row = sqlx::query(POINT_AT_ONCE)
            .bind(board.slug.as_str())
            .bind(key.as_str())
            .bind(write.member.as_str())
            .bind(event_id.as_str())
            .bind(*delta)
            .bind(write.change.kind())
            .bind(super::micros(write.occurred_at))
            .bind(super::micros(now))
            .bind(min)
            .bind(max)
            .bind(write.metadata.as_deref())
            .fetch_one(&self.writer)
            .await;
        let row = match row {
            Ok(row) => row,
            // A unique key (an id recorded concurrently), an overflow: the batch path decides.
            Err(sqlx::Error::Database(e)) => {
                tracing::debug!(error = %e, "single write left to the batch path");
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        };
        if row.try_get::<bool, _>("applied")? {
            return Ok(Some(Recorded::bare(Outcome::Duplicate, period, None)));
        }
        let (Some(points), Some(version), Some(hidden)) = (
            row.try_get::<Option<i64>, _>("points")?,
            row.try_get::<Option<i64>, _>("version")?,
            row.try_get::<Option<i64>, _>("hidden")?,
        ) else {
            return Ok(None);
        };
        // Under `shared` the score is the points (the reach sequence is not part of it).
        let score = board.codec.encode(points, 0).map_err(|e| LedgerError::Corrupt(e.to_string()))?;
        Ok(Some(Recorded {
            outcome: Outcome::Applied,
            period: Some(period),
            reason: None,
            total: Some(Projected {
                period,
                member: write.member.clone(),
                points,
                version,
                score,
                hidden: hidden != 0,
            }),
            points: Some(points),
            version: Some(version),
            segments: None,
        }))
    }
}

/// The segment values held by the members of `writes`, by (period key, member): one lookup per
/// period. Every member's, not only those of writes naming values: the answers carry them to the
/// projection of the segment rankings, which then reads nothing after the commit.
async fn held_segments<'a>(
    tx: &mut Tx,
    backend: super::Backend,
    slug: &str,
    writes: &'a [Write],
    keys: &'a [String],
) -> Result<HashMap<(&'a str, &'a str), Values>, LedgerError> {
    let mut wanted: HashMap<&'a str, Vec<&'a str>> = HashMap::new();
    for (w, key) in writes.iter().zip(keys) {
        wanted.entry(key.as_str()).or_default().push(w.member.as_str());
    }
    let mut held = HashMap::new();
    for (key, mut members) in wanted {
        members.sort_unstable();
        members.dedup();
        for (member, values) in held_in(tx, backend, slug, key, &members).await? {
            let at = members.binary_search(&member.as_str()).map_err(|_| {
                LedgerError::Corrupt(format!("segments of {member} in {slug} {key} were not asked for"))
            })?;
            held.insert((key, members[at]), values);
        }
    }
    Ok(held)
}

/// When a batch on PostgreSQL takes the row locks of the totals it changes. Concurrent batches
/// that share members wait for each other from the moment the first of them locks a shared total
/// until it commits; a batch that holds its totals from the start holds them through all its
/// statements, and the batches waiting behind it hold theirs while they wait, so under load they
/// queue in long chains (docs/BENCHMARKS.md, ingest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Locking {
    /// Lock every total before anything is read (`lock_in_order`). SQLite's one write lock is
    /// always this.
    First,
    /// Decide the batch as if every total were zero, insert its entries, and only then lock the
    /// totals by adding the batch's deltas to them in one statement (`add_deltas`), which answers
    /// what they held before. The batch is decided again on those: it stands if it records the
    /// same entries, and is retried with `First` otherwise (a bound that only the real totals
    /// reach or leave). Totals are held for that statement and the commit only.
    Last,
}

impl Locking {
    /// `Last` only where a write's decision rarely depends on the total it finds: point events
    /// and corrections (only a bound can refuse one) on `shared` boards on PostgreSQL.
    /// `first_reached` locks its period exclusively anyway (reach sequences), and `set` and `best`
    /// decide on the very value they find.
    fn for_batch(backend: Backend, board: &Board, writes: &[Write]) -> Self {
        let points_only =
            writes.iter().all(|w| matches!(w.change, Change::Point { .. } | Change::Correction { .. }));
        match (backend, board.tie_policy()) {
            (Backend::Postgres, TiePolicy::Shared) if points_only => Locking::Last,
            _ => Locking::First,
        }
    }
}

/// How an attempt at a batch ended.
enum Attempt {
    Recorded(Vec<Recorded>),
    /// Another transaction recorded one of the batch's ids after the duplicate check: nothing
    /// was written.
    Raced,
    /// Under `Locking::Last`, the locked totals would record other entries: nothing was written.
    Moved,
}

/// Applies one change to a member's total in `period`, whatever the period's state (the caller
/// has decided it may): locks the total, lets the operator decide, checks the bounds, records the
/// entry and moves the total, its version and — under `first_reached` — its reach sequence.
///
/// Under `first_reached` every recorded entry takes the period's next reach sequence; the member
/// adopts it when its points move (a member keeps the moment it reached its current points).
/// Storing it on the entry lets a revoke recompute the member's sequence (`domain::write::replay`).
#[allow(
    clippy::too_many_arguments,
    reason = "the transaction, the member's period, the change and its entry's facts, and the \
              time of recording that every statement of the ledger takes beside its transaction"
)]
pub(super) async fn apply(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    period: PeriodKey,
    member: &MemberId,
    change: &Change,
    entry: &EntryMeta<'_>,
    now: jiff::Timestamp,
) -> Result<Recorded, LedgerError> {
    let (slug, key) = (board.slug.as_str(), period.to_string());
    let locked = lock_total(tx, backend, slug, &key, member).await?;
    let points = match judge(board, period, change, locked.current) {
        Verdict::Answer(recorded) => return Ok(recorded),
        Verdict::Record(points) => points,
    };
    let entry_seq = match board.tie_policy() {
        TiePolicy::FirstReached => Some(next_seq(tx, slug, &key).await?),
        TiePolicy::Shared => None,
    };
    let (recorded, state) = match conclude(board, period, member, change, &locked, points, entry_seq) {
        Ok(done) => done,
        Err(rejected) => return Ok(*rejected),
    };
    let new = NewEntry { period: &key, member, change, meta: *entry, reach_seq: entry_seq };
    if insert_entries(tx, backend, "entries", slug, std::slice::from_ref(&new), now).await? == 0 {
        // Another transaction recorded the same id since our check: it counts once.
        return Ok(Recorded::bare(Outcome::Duplicate, period, None));
    }
    if let Some(state) = state {
        store_total(tx, backend, slug, &key, member, state, now).await?;
    }
    Ok(recorded)
}
