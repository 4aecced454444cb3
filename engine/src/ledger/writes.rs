//! The exactly-once write path of all three operators.
//!
//! One transaction per call (a batch is one transaction; on SQLite, calls queued for the writer
//! share one, `group.rs`). For each write, in order:
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
//!   `Locking::Last`); each period's state and next reach sequence are read;
//! - the writes are then decided in order in memory (`decide_batch`) with the steps of [`apply`]
//!   (`judge`, `conclude`), each seeing the totals, the ids and the reach sequences as the writes
//!   before it in the batch left them — so the answers are those of one write after the other;
//! - the entries (in batch order), the late entries and the changed totals are written with
//!   multi-row statements (under `Locking::Last` the totals by adding the deltas, which locks
//!   them, and the batch is decided again on what they held: `add_deltas`), each period's next
//!   reach sequence once, and a rejected write's audit row one by one.
//!
//! The unique `(board, external_id)` constraint has the last word on duplicates: when an entry
//! is not inserted because another transaction recorded its id after the check (PostgreSQL), the
//! batch's answers are void: it rolls back and is retried, and the retry answers that write
//! `duplicate`. So concurrent retries through several instances still count once.

use super::sql::{INSERT_CHUNK, Params, multi_row_insert};
use super::{Backend, Ledger, LedgerError, Tx, micros};
use domain::write::{Change, Current, Decision, Outcome, Write, decide};
use domain::{Board, MemberId, PeriodKey, TiePolicy};
use sqlx::Row;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// What the projection needs to mirror one member's new total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projected {
    pub period: PeriodKey,
    pub member: MemberId,
    pub points: i64,
    pub version: i64,
    /// The encoded Redis score (see `domain::score`).
    pub score: i64,
    /// The member is hidden in the period: the projection keeps its version, not its score.
    pub hidden: bool,
}

/// The ledger's answer for one write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub outcome: Outcome,
    /// None for a write no period can hold (refused by `domain::write::admit`).
    pub period: Option<PeriodKey>,
    /// Why a write was rejected or kept as late.
    pub reason: Option<String>,
    /// The member's total after the write, when it changed (to be projected).
    pub total: Option<Projected>,
    /// The member's points and version after the write, when known.
    pub points: Option<i64>,
    pub version: Option<i64>,
}

impl Recorded {
    pub(super) fn bare(outcome: Outcome, period: PeriodKey, reason: Option<String>) -> Self {
        Self { outcome, period: Some(period), reason, total: None, points: None, version: None }
    }
}

impl Ledger {
    /// Records `writes` on `board` in one transaction and answers each in order. On SQLite the
    /// transaction also records the board's other calls waiting at the same moment (`group.rs`).
    pub async fn record(
        &self,
        board: &Board,
        writes: &[Write],
        now: jiff::Timestamp,
    ) -> Result<Vec<Recorded>, LedgerError> {
        match self.backend {
            // One writer at a time: calls that would queue for it are recorded together.
            Backend::Sqlite => self.record_grouped(board.clone(), writes.to_vec(), now).await,
            // Concurrent transactions run side by side; grouped, their larger statements cost
            // more than the lock waits they saved (measured: docs/BENCHMARKS.md, ingest).
            Backend::Postgres => {
                let (ledger, board, writes) = (self.clone(), board.clone(), writes.to_vec());
                super::detached(async move { ledger.record_retrying(&board, &writes, now).await }).await
            }
        }
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
        // `Engine::record` admitted every write; this guard keeps a key that could not be parsed
        // back out of the ledger whoever the caller is.
        let periods = writes
            .iter()
            .map(|w| board.period_of(w.occurred_at))
            .collect::<Result<Vec<PeriodKey>, _>>()
            .map_err(|e| LedgerError::refused("invalid", e.to_string()))?;
        let keys: Vec<String> = periods.iter().map(|p| p.to_string()).collect();
        if backend == Backend::Postgres {
            match locking {
                Locking::First => lock_in_order(tx, board, writes, &keys, now).await?,
                Locking::Last => lock_periods(tx, board, keys.iter().map(String::as_str).collect()).await?,
            }
        }

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
        let mut states: HashMap<&str, PeriodRow> = HashMap::new();
        for key in &keys {
            if !states.contains_key(key.as_str()) {
                states.insert(key.as_str(), period_row(tx, backend, slug, key).await?);
            }
        }

        // 3. Each write in order, in memory: the same steps as `apply`, on the running totals.
        let mut decided = decide_batch(board, writes, &periods, &keys, &seen, totals, &states, now);

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
            let again = decide_batch(board, writes, &periods, &keys, &seen, before, &states, now);
            if !again.records_as(&decided) {
                w.tx.rollback().await?;
                return Ok(Attempt::Moved);
            }
            decided = Decided { stored: HashMap::new(), ..again };
        }
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
        w.tx.commit().await?;
        Ok(Attempt::Recorded(answers))
    }
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

/// The ids a batch found already recorded.
struct Seen {
    /// In `entries`: the write was applied (or recorded) before.
    applied: HashSet<String>,
    /// In `late_entries`: the write was kept as late before.
    kept: HashSet<String>,
}

/// What a batch decided in memory, to be written.
struct Decided<'a> {
    answers: Vec<Recorded>,
    /// The entries to insert, in batch order, and the writes they record (index, reach sequence).
    entries: Vec<NewEntry<'a>>,
    recorded: Vec<(usize, Option<i64>)>,
    /// The late entries to insert, and the writes they keep.
    late: Vec<NewEntry<'a>>,
    kept: Vec<usize>,
    stored: HashMap<(&'a str, &'a str), StoredState>,
    /// Rejected writes (index, period key), for the audit trail.
    rejected: Vec<(usize, &'a str)>,
    /// Reach sequences taken per period.
    taken: HashMap<&'a str, i64>,
}

impl Decided<'_> {
    /// Both record the same writes as the same entries (and so differ only in the totals).
    fn records_as(&self, other: &Self) -> bool {
        self.recorded == other.recorded && self.kept == other.kept
    }
}

/// The (period, member) totals the writes that may apply will start from, per period, each
/// list sorted and without repeats.
fn wanted_totals<'a>(writes: &'a [Write], keys: &'a [String], seen: &Seen) -> Vec<(&'a str, Vec<&'a str>)> {
    let mut wanted: HashMap<&str, Vec<&str>> = HashMap::new();
    for (write, key) in writes.iter().zip(keys) {
        let id = write.change.external_id().map(|id| id.as_str());
        if id.is_none_or(|id| !seen.applied.contains(id) && !seen.kept.contains(id)) {
            wanted.entry(key.as_str()).or_default().push(write.member.as_str());
        }
    }
    let mut wanted: Vec<_> = wanted.into_iter().collect();
    wanted.sort_unstable();
    for (_, members) in &mut wanted {
        members.sort_unstable();
        members.dedup();
    }
    wanted
}

/// Reads the `wanted` totals that have a row: one statement per period and `LOOKUP_CHUNK`
/// members.
async fn read_wanted<'a>(
    tx: &mut Tx,
    backend: Backend,
    slug: &str,
    wanted: &[(&'a str, Vec<&'a str>)],
) -> Result<HashMap<(&'a str, &'a str), LockedTotal>, LedgerError> {
    let mut totals = HashMap::new();
    for (key, members) in wanted {
        for (member, locked) in read_totals(tx, backend, slug, key, members).await? {
            let member = members[members.binary_search(&member.as_str()).map_err(|_| {
                LedgerError::Corrupt(format!("total of {member} in {slug} {key} was not asked for"))
            })?];
            totals.insert((*key, member), locked);
        }
    }
    Ok(totals)
}

/// Under `Locking::Last` on PostgreSQL: adds the deltas of the writes `decided` records to the
/// `wanted` totals (creating missing rows; a total without a recorded write gets zero, which
/// locks it all the same), one multi-row upsert per `INSERT_CHUNK` rows in (period, member)
/// order — the order every batch locks totals in. Answers the totals as they were before.
async fn add_deltas<'a>(
    tx: &mut Tx,
    slug: &str,
    writes: &[Write],
    keys: &[String],
    wanted: &[(&'a str, Vec<&'a str>)],
    decided: &Decided<'_>,
    now: jiff::Timestamp,
) -> Result<HashMap<(&'a str, &'a str), LockedTotal>, LedgerError> {
    // (period, member) -> (sum of deltas, number of writes)
    let mut added: HashMap<(&str, &str), (i64, i64)> = HashMap::new();
    for &(i, _) in &decided.recorded {
        let delta = match writes[i].change {
            Change::Point { delta, .. } | Change::Correction { delta, .. } => delta,
            _ => return Err(LedgerError::Corrupt("only point events and corrections add deltas".into())),
        };
        let sum = added.entry((keys[i].as_str(), writes[i].member.as_str())).or_default();
        *sum = (sum.0 + delta, sum.1 + 1);
    }
    let rows: Vec<(&'a str, &'a str)> =
        wanted.iter().flat_map(|(key, members)| members.iter().map(move |m| (*key, *m))).collect();
    let mut before = HashMap::with_capacity(rows.len());
    for chunk in rows.chunks(INSERT_CHUNK) {
        let mut sql = String::from(
            "INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, updated_at) \
             VALUES ",
        );
        for i in 0..chunk.len() {
            let sep = if i == 0 { "" } else { ", " };
            let n = 4 * i + 3;
            let _ = write!(sql, "{sep}($1, ${n}, ${}, ${}, ${}, 0, 0, $2)", n + 1, n + 2, n + 3);
        }
        sql.push_str(
            " ON CONFLICT (board, period, member) DO UPDATE SET points = totals.points + excluded.points, \
             version = totals.version + excluded.version, updated_at = excluded.updated_at \
             RETURNING period, member, points, version, set_version, reach_seq, hidden",
        );
        let mut query = sqlx::query(&sql).bind(slug).bind(micros(now));
        for &(key, member) in chunk {
            let (delta, count) = added.get(&(key, member)).copied().unwrap_or_default();
            query = query.bind(key).bind(member).bind(delta).bind(count);
        }
        for row in query.fetch_all(&mut **tx).await? {
            let (period, member): (String, String) = (row.try_get("period")?, row.try_get("member")?);
            let at = chunk[chunk.binary_search(&(period.as_str(), member.as_str())).map_err(|_| {
                LedgerError::Corrupt(format!("total of {member} in {slug} {period} was not asked for"))
            })?];
            let (delta, count) = added.get(&at).copied().unwrap_or_default();
            let locked = LockedTotal {
                current: Current {
                    points: row.try_get::<i64, _>("points")? - delta,
                    version: row.try_get::<i64, _>("version")? - count,
                    set_version: row.try_get("set_version")?,
                },
                reach_seq: row.try_get("reach_seq")?,
                hidden: row.try_get::<i64, _>("hidden")? != 0,
            };
            before.insert(at, locked);
        }
    }
    Ok(before)
}

/// Decides each write of a batch in order, in memory, with the steps of [`apply`] (`judge`,
/// `conclude`), each seeing the totals, the ids and the reach sequences as the writes before it
/// in the batch left them — so the answers are those of one write after the other.
#[allow(clippy::too_many_arguments)]
fn decide_batch<'a>(
    board: &Board,
    writes: &'a [Write],
    periods: &[PeriodKey],
    keys: &'a [String],
    seen: &Seen,
    mut totals: HashMap<(&'a str, &'a str), LockedTotal>,
    states: &HashMap<&str, PeriodRow>,
    now: jiff::Timestamp,
) -> Decided<'a> {
    let mut d = Decided {
        answers: Vec::with_capacity(writes.len()),
        entries: Vec::new(),
        recorded: Vec::new(),
        late: Vec::new(),
        kept: Vec::new(),
        stored: HashMap::new(),
        rejected: Vec::new(),
        taken: HashMap::new(),
    };
    // Ids this batch applies or keeps, for its own repeats.
    let (mut applied_now, mut kept_now): (HashSet<&str>, HashSet<&str>) = Default::default();
    for (i, ((write, &period), key)) in writes.iter().zip(periods).zip(keys).enumerate() {
        let external_id = write.change.external_id().map(|id| id.as_str());
        if let Some(id) = external_id {
            if seen.applied.contains(id) || applied_now.contains(id) {
                d.answers.push(Recorded::bare(Outcome::Duplicate, period, None));
                continue;
            }
            if seen.kept.contains(id) || kept_now.contains(id) {
                // The same answer as the first time: a retry must not learn anything new.
                d.answers.push(Recorded::bare(Outcome::Late, period, Some(late_reason(None))));
                continue;
            }
        }
        let row = &states[key.as_str()];
        let entry = NewEntry {
            period: key,
            member: &write.member,
            change: &write.change,
            meta: EntryMeta {
                occurred_at: write.occurred_at,
                metadata: write.metadata.as_deref(),
                ..Default::default()
            },
            reach_seq: None,
        };
        if row.state != "open" || now >= closes_at(board, period) {
            let why = (row.state != "open").then_some(row.state.as_str());
            d.answers.push(Recorded::bare(Outcome::Late, period, Some(late_reason(why))));
            d.late.push(entry);
            d.kept.push(i);
            kept_now.extend(external_id);
            continue;
        }
        let member = write.member.as_str();
        let locked = totals.entry((key.as_str(), member)).or_insert(LockedTotal::NONE);
        let recorded = match judge(board, period, &write.change, locked.current) {
            Verdict::Answer(recorded) => recorded,
            Verdict::Record(points) => {
                let entry_seq = match board.tie_policy() {
                    TiePolicy::FirstReached => {
                        let taken = d.taken.entry(key.as_str()).or_insert(0);
                        *taken += 1;
                        Some(row.next_seq + *taken - 1)
                    }
                    TiePolicy::Shared => None,
                };
                match conclude(board, period, &write.member, &write.change, locked, points, entry_seq) {
                    Err(recorded) => recorded,
                    Ok((recorded, state)) => {
                        d.entries.push(NewEntry { reach_seq: entry_seq, ..entry });
                        d.recorded.push((i, entry_seq));
                        applied_now.extend(external_id);
                        if let Some(state) = state {
                            locked.current = Current {
                                points: state.points,
                                version: state.version,
                                set_version: state.set_version,
                            };
                            locked.reach_seq = state.reach_seq;
                            d.stored.insert((key.as_str(), member), state);
                        }
                        recorded
                    }
                }
            }
        };
        if recorded.outcome == Outcome::Rejected {
            d.rejected.push((i, key.as_str()));
        }
        d.answers.push(recorded);
    }
    d
}

/// The instant after which writes for `period` are late: its end plus the board's grace.
fn closes_at(board: &Board, period: PeriodKey) -> jiff::Timestamp {
    period
        .span(&board.zone)
        .end
        .checked_add(jiff::SignedDuration::from_secs(board.freeze_grace_seconds))
        .unwrap_or(jiff::Timestamp::MAX)
}

/// The ids among `ids` that `entries` holds (applied) and that `late_entries` holds (kept),
/// read with one statement per `LOOKUP_CHUNK` ids.
///
/// Each id is looked up by the unique (board, external_id) in a scalar subquery of the select
/// list, which PostgreSQL runs once per id. The planner of a ledger whose statistics are still
/// empty (a new database, minutes before autovacuum) believes the board's entries few, and then
/// read every one of them at each batch, while the batch's rows were locked
/// (docs/BENCHMARKS.md, ingest): as a filter over the board's entries when written as
/// `board = … AND external_id IN (…)` (100 ms and more a statement), and as one hashed pass over
/// them when written with `EXISTS` (16–36 ms, growing with the board).
async fn seen_ids(tx: &mut Tx, backend: Backend, board: &str, ids: &[&str]) -> Result<Seen, LedgerError> {
    let (mut applied, mut kept) = (HashSet::new(), HashSet::new());
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    for chunk in ids.chunks(LOOKUP_CHUNK) {
        let chunk = &padded(chunk);
        let mut p = Params::new(backend);
        // (board, external_id) is unique in both tables: a scalar subquery finds one row or none.
        let seen = |table: &str, board: String| {
            format!(
                "COALESCE((SELECT CAST(1 AS BIGINT) FROM {table} t WHERE t.board = {board} \
                 AND t.external_id = v.column1), 0)"
            )
        };
        let applied_sql = seen("entries", p.list(1));
        let kept_sql = seen("late_entries", p.list(1));
        let values: Vec<String> = (0..chunk.len()).map(|_| format!("({})", p.list(1))).collect();
        let sql = format!(
            "SELECT v.column1 AS external_id, {applied_sql} AS applied, {kept_sql} AS kept \
             FROM (VALUES {}) AS v",
            values.join(", ")
        );
        let mut query = sqlx::query(&sql).bind(board).bind(board);
        for id in chunk {
            query = query.bind(*id);
        }
        for row in query.fetch_all(&mut **tx).await? {
            let id: String = row.try_get("external_id")?;
            if row.try_get::<i64, _>("applied")? == 1 {
                applied.insert(id);
            } else if row.try_get::<i64, _>("kept")? == 1 {
                kept.insert(id);
            }
        }
    }
    Ok(Seen { applied, kept })
}

/// Most keys one lookup statement asks for (`seen_ids`, `read_totals`).
const LOOKUP_CHUNK: usize = 128;

/// `keys` padded to the next power of two by repeating the last one (the lookups' answers are
/// sets), so that lookups come in a handful of statement shapes: PostgreSQL plans each new shape
/// of a prepared statement anew, while a few shapes are planned a few times per connection and
/// then run on cached plans.
fn padded<'a>(keys: &[&'a str]) -> Vec<&'a str> {
    let mut keys = keys.to_vec();
    if let Some(&last) = keys.last() {
        keys.resize(keys.len().next_power_of_two(), last);
    }
    keys
}

/// A period's row as a batch uses it: its state, and the reach sequences the batch took so far.
struct PeriodRow {
    state: String,
    next_seq: i64,
}

/// An entry a batch will insert (into `entries` or `late_entries`).
pub(super) struct NewEntry<'a> {
    period: &'a str,
    member: &'a MemberId,
    change: &'a Change,
    meta: EntryMeta<'a>,
    reach_seq: Option<i64>,
}

/// Who made an entry and why, beyond the write itself.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct EntryMeta<'a> {
    pub occurred_at: jiff::Timestamp,
    pub metadata: Option<&'a str>,
    /// The admin behind a correction or an accepted late write.
    pub actor: Option<&'a str>,
    pub reason: Option<&'a str>,
}

/// Applies one change to a member's total in `period`, whatever the period's state (the caller
/// has decided it may): locks the total, lets the operator decide, checks the bounds, records the
/// entry and moves the total, its version and — under `first_reached` — its reach sequence.
///
/// Under `first_reached` every recorded entry takes the period's next reach sequence; the member
/// adopts it when its points move (a member keeps the moment it reached its current points).
/// Storing it on the entry lets a revoke recompute the member's sequence (`domain::write::replay`).
#[allow(clippy::too_many_arguments)]
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
        Err(rejected) => return Ok(rejected),
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

/// What the operator and the board's bounds make of a change to `current`.
enum Verdict {
    /// Nothing is recorded: the answer (`stale`, or `rejected` with a reason).
    Answer(Recorded),
    /// The entry is recorded, and the total moves to these points (`None`: best, not higher).
    Record(Option<i64>),
}

fn judge(board: &Board, period: PeriodKey, change: &Change, current: Current) -> Verdict {
    let points = match decide(change, current) {
        Decision::Ignore(outcome) => {
            let mut r = Recorded::bare(outcome, period, None);
            (r.points, r.version) = (Some(current.points), Some(current.version));
            return Verdict::Answer(r);
        }
        Decision::Refuse(reason) => {
            return Verdict::Answer(Recorded::bare(Outcome::Rejected, period, Some(reason.into())));
        }
        Decision::RecordOnly => return Verdict::Record(None),
        Decision::Change { points } => points,
    };
    match board.codec.check_points(points) {
        Ok(()) => Verdict::Record(Some(points)),
        Err(e) => Verdict::Answer(Recorded::bare(Outcome::Rejected, period, Some(e.to_string()))),
    }
}

/// The answer to a change [`judge`] let through, recorded with `entry_seq`, and the member's new
/// stored total (`None` when the total stays). `Err`: rejected after all, nothing is written
/// (only a used-up sequence budget gets there: bounds were checked by `judge`).
fn conclude(
    board: &Board,
    period: PeriodKey,
    member: &MemberId,
    change: &Change,
    locked: &LockedTotal,
    points: Option<i64>,
    entry_seq: Option<i64>,
) -> Result<(Recorded, Option<StoredState>), Recorded> {
    let LockedTotal { current, reach_seq, hidden } = *locked;
    let Some(points) = points else {
        // best: the submission is recorded (so a repeat is recognised) but the total stays.
        let mut r = Recorded::bare(Outcome::NotHigher, period, None);
        (r.points, r.version) = (Some(current.points), Some(current.version));
        return Ok((r, None));
    };
    let moved = points != current.points || current.version == 0;
    let seq = match entry_seq {
        Some(seq) if moved => seq,
        _ => reach_seq,
    };
    let score = board
        .codec
        .encode(points, seq)
        .map_err(|e| Recorded::bare(Outcome::Rejected, period, Some(e.to_string())))?;
    let set_version = match *change {
        Change::Total { version, .. } => version,
        _ => current.set_version,
    };
    let version = current.version + 1;
    let outcome =
        if matches!(change, Change::Submission { .. }) { Outcome::Improved } else { Outcome::Applied };
    let recorded = Recorded {
        outcome,
        // A hidden member stays hidden: its new total is recorded and projected out of the ranking.
        total: Some(Projected { period, member: member.clone(), points, version, score, hidden }),
        period: Some(period),
        reason: None,
        points: Some(points),
        version: Some(version),
    };
    Ok((recorded, Some(StoredState { points, version, reach_seq: seq, set_version })))
}

/// A member's total as stored, with its reach sequence.
#[derive(Debug, Clone, Copy)]
pub(super) struct StoredState {
    pub points: i64,
    pub version: i64,
    pub reach_seq: i64,
    pub set_version: i64,
}

/// A member's total as [`lock_total`] read it.
#[derive(Debug, Clone, Copy)]
pub(super) struct LockedTotal {
    pub current: Current,
    pub reach_seq: i64,
    /// Hidden in the period (moderation): kept by every change of the total.
    pub hidden: bool,
}

impl LockedTotal {
    /// The total of a member without a row yet.
    const NONE: Self =
        Self { current: Current { points: 0, version: 0, set_version: 0 }, reach_seq: 0, hidden: false };
}

/// Reads a member's total for change. SQLite holds its one write lock; on PostgreSQL the row was
/// locked up front (`lock_in_order` / `lock_member`).
pub(super) async fn lock_total(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
    member: &MemberId,
) -> Result<LockedTotal, LedgerError> {
    let mut found = read_totals(tx, backend, board, period, &[member.as_str()]).await?;
    Ok(found.pop().map_or(LockedTotal::NONE, |(_, locked)| locked))
}

/// Reads the totals of `members` in a period that have a row, as [`lock_total`] does, with one
/// statement per `LOOKUP_CHUNK` members.
///
/// One point lookup per member by the whole key, joined with UNION ALL, rather than
/// `member IN (…)`: PostgreSQL may run such a list as a filter over the scan of every total of
/// the period, and chooses that whenever it believes the period small, as it does of every period
/// its statistics do not know yet (a new week, a new ledger). The filter then read all the
/// period's totals at every batch, with the batch's rows locked (docs/BENCHMARKS.md, ingest).
async fn read_totals(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
    members: &[&str],
) -> Result<Vec<(String, LockedTotal)>, LedgerError> {
    let mut found = Vec::with_capacity(members.len());
    for chunk in members.chunks(LOOKUP_CHUNK) {
        let chunk = &padded(chunk);
        let mut p = Params::new(backend);
        let lookups: Vec<String> = chunk
            .iter()
            .map(|_| {
                format!(
                    "SELECT member, points, version, set_version, reach_seq, hidden FROM totals \
                     WHERE board = {} AND period = {} AND member = {}",
                    p.list(1),
                    p.list(1),
                    p.list(1)
                )
            })
            .collect();
        let sql = lookups.join(" UNION ALL ");
        let mut query = sqlx::query(&sql);
        for member in chunk {
            query = query.bind(board).bind(period).bind(*member);
        }
        for row in query.fetch_all(&mut **tx).await? {
            let locked = LockedTotal {
                current: Current {
                    points: row.try_get("points")?,
                    version: row.try_get("version")?,
                    set_version: row.try_get("set_version")?,
                },
                reach_seq: row.try_get("reach_seq")?,
                hidden: row.try_get::<i64, _>("hidden")? != 0,
            };
            found.push((row.try_get("member")?, locked));
        }
    }
    Ok(found)
}

/// Writes a member's total (creating the row on its first change). `hidden` is left as it is:
/// only `Ledger::set_hidden` changes it.
pub(super) async fn store_total(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
    member: &MemberId,
    state: StoredState,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    store_totals(tx, backend, board, &[((period, member.as_str()), state)], now).await
}

/// Writes members' totals as [`store_total`] does, `INSERT_CHUNK` rows per statement (each
/// (period, member) at most once).
async fn store_totals(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    totals: &[((&str, &str), StoredState)],
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    for chunk in totals.chunks(INSERT_CHUNK) {
        let mut sql = multi_row_insert(
            backend,
            "INSERT INTO totals (board, period, member, points, version, reach_seq, set_version, updated_at) VALUES ",
            8,
            chunk.len(),
        );
        sql.push_str(
            " ON CONFLICT (board, period, member) DO UPDATE SET \
             points = excluded.points, version = excluded.version, reach_seq = excluded.reach_seq, \
             set_version = excluded.set_version, updated_at = excluded.updated_at",
        );
        let mut query = sqlx::query(&sql);
        for ((period, member), state) in chunk {
            query = query
                .bind(board)
                .bind(*period)
                .bind(*member)
                .bind(state.points)
                .bind(state.version)
                .bind(state.reach_seq)
                .bind(state.set_version)
                .bind(micros(now));
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}

/// Hands out the period's next reach sequence (the period row exists and is locked or SQLite is).
pub(super) async fn next_seq(tx: &mut Tx, board: &str, period: &str) -> Result<i64, LedgerError> {
    Ok(sqlx::query(
        "UPDATE periods SET next_seq = next_seq + 1 WHERE board = $1 AND period = $2 RETURNING next_seq - 1 AS seq",
    )
    .bind(board)
    .bind(period)
    .fetch_one(&mut **tx)
    .await?
    .try_get("seq")?)
}

/// Creates a period row (`open`) if it does not exist yet.
pub(super) async fn ensure_period(tx: &mut Tx, board: &str, period: &str) -> Result<(), LedgerError> {
    sqlx::query("INSERT INTO periods (board, period, state) VALUES ($1, $2, 'open') ON CONFLICT DO NOTHING")
        .bind(board)
        .bind(period)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The state and next reach sequence of a period, creating it as `open` on its first write (on
/// PostgreSQL `lock_in_order` has created and locked it).
async fn period_row(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
) -> Result<PeriodRow, LedgerError> {
    if backend == Backend::Sqlite {
        ensure_period(tx, board, period).await?;
    }
    let row = sqlx::query("SELECT state, next_seq FROM periods WHERE board = $1 AND period = $2")
        .bind(board)
        .bind(period)
        .fetch_one(&mut **tx)
        .await?;
    Ok(PeriodRow { state: row.try_get("state")?, next_seq: row.try_get("next_seq")? })
}

/// Locks a period row on PostgreSQL: exclusively under first_reached (it hands out reach
/// sequences), shared otherwise — so a freeze or settle (which update the row) waits for the
/// writes in flight, and no write commits into a period after it was settled.
async fn lock_period(tx: &mut Tx, board: &Board, period: &str) -> Result<(), LedgerError> {
    let mode = match board.tie_policy() {
        TiePolicy::FirstReached => "UPDATE",
        TiePolicy::Shared => "SHARE",
    };
    sqlx::query(&format!("SELECT 1 FROM periods WHERE board = $1 AND period = $2 FOR {mode}"))
        .bind(board.slug.as_str())
        .bind(period)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// The locks one admin change of a member's total needs, in the same order as a batch's.
pub(super) async fn lock_member(
    tx: &mut Tx,
    backend: Backend,
    board: &Board,
    period: &str,
    member: &MemberId,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    if backend == Backend::Postgres {
        lock_rows(tx, board, vec![(period.to_owned(), member.as_str())], now).await?;
    }
    Ok(())
}

/// Takes every row lock a batch will need, in one global order (periods, then (period, member)),
/// so concurrent batches on PostgreSQL wait for each other instead of deadlocking.
async fn lock_in_order(
    tx: &mut Tx,
    board: &Board,
    writes: &[Write],
    keys: &[String],
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    let rows = writes.iter().zip(keys).map(|(w, key)| (key.clone(), w.member.as_str())).collect();
    lock_rows(tx, board, rows, now).await
}

/// Locks the given (period, member) rows on PostgreSQL, creating them if missing, periods first,
/// each sorted. The totals rows are locked by one statement per `INSERT_CHUNK` rows: a multi-row
/// insert whose conflicts take the existing rows' `FOR UPDATE` lock (`DO UPDATE … WHERE FALSE`
/// locks without changing anything), row by row in the order of its `VALUES` — so the order is
/// the same as locking one row after the other, new rows and existing rows alike.
async fn lock_rows(
    tx: &mut Tx,
    board: &Board,
    rows: Vec<(String, &str)>,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    lock_periods(tx, board, rows.iter().map(|(p, _)| p.as_str()).collect()).await?;
    lock_totals(tx, board.slug.as_str(), rows, now).await
}

/// Creates and locks the period rows a batch writes into (`lock_period`), sorted.
async fn lock_periods(tx: &mut Tx, board: &Board, mut periods: Vec<&str>) -> Result<(), LedgerError> {
    periods.sort_unstable();
    periods.dedup();
    for period in periods {
        ensure_period(tx, board.slug.as_str(), period).await?;
        lock_period(tx, board, period).await?;
    }
    Ok(())
}

/// Creates and locks totals rows, sorted (see [`lock_rows`]).
async fn lock_totals(
    tx: &mut Tx,
    slug: &str,
    mut rows: Vec<(String, &str)>,
    now: jiff::Timestamp,
) -> Result<(), LedgerError> {
    rows.sort_unstable();
    rows.dedup();
    for chunk in rows.chunks(INSERT_CHUNK) {
        let mut sql = String::from(
            "INSERT INTO totals (board, period, member, points, version, reach_seq, updated_at) VALUES ",
        );
        for i in 0..chunk.len() {
            let sep = if i == 0 { "" } else { ", " };
            let _ = write!(sql, "{sep}($1, ${}, ${}, 0, 0, 0, $2)", 2 * i + 3, 2 * i + 4);
        }
        sql.push_str(
            " ON CONFLICT (board, period, member) DO UPDATE SET updated_at = totals.updated_at WHERE FALSE",
        );
        let mut query = sqlx::query(&sql).bind(slug).bind(micros(now));
        for (period, member) in chunk {
            query = query.bind(period.as_str()).bind(*member);
        }
        query.execute(&mut **tx).await?;
    }
    Ok(())
}

fn late_reason(state: Option<&str>) -> String {
    match state {
        Some(state) => format!("the period is {state}; the write is kept for review"),
        None => "the period has closed; the write is kept for review".into(),
    }
}

/// Inserts changes into `entries` or `late_entries`, in order, `INSERT_CHUNK` rows per statement.
/// Returns how many were inserted: a row whose id was already there is skipped.
async fn insert_entries(
    tx: &mut Tx,
    backend: Backend,
    table: &str,
    board: &str,
    rows: &[NewEntry<'_>],
    now: jiff::Timestamp,
) -> Result<u64, LedgerError> {
    let (prefix, columns) = if table == "entries" {
        (
            "INSERT INTO entries (board, period, member, kind, external_id, delta, value, set_version, \
             occurred_at, recorded_at, metadata, reach_seq, actor, reason) VALUES ",
            14,
        )
    } else {
        (
            "INSERT INTO late_entries (board, period, member, kind, external_id, delta, value, set_version, \
             occurred_at, received_at, metadata) VALUES ",
            11,
        )
    };
    let mut inserted = 0;
    for chunk in rows.chunks(INSERT_CHUNK) {
        let mut sql = multi_row_insert(backend, prefix, columns, chunk.len());
        sql.push_str(" ON CONFLICT (board, external_id) DO NOTHING");
        let mut query = sqlx::query(&sql);
        for row in chunk {
            let (delta, value, set_version) = match *row.change {
                Change::Point { delta, .. } | Change::Correction { delta, .. } => (Some(delta), None, None),
                Change::Total { version, total } => (None, Some(total), Some(version)),
                Change::Submission { score, .. } => (None, Some(score), None),
            };
            query = query
                .bind(board)
                .bind(row.period)
                .bind(row.member.as_str())
                .bind(row.change.kind())
                .bind(row.change.external_id().map(|id| id.as_str()))
                .bind(delta)
                .bind(value)
                .bind(set_version)
                .bind(micros(row.meta.occurred_at))
                .bind(micros(now))
                .bind(row.meta.metadata);
            if table == "entries" {
                query = query.bind(row.reach_seq).bind(row.meta.actor).bind(row.meta.reason);
            }
        }
        inserted += query.execute(&mut **tx).await?.rows_affected();
    }
    Ok(inserted)
}
