//! Previews in the ledger: what a set of admin changes would make of a period's totals, worked
//! out in memory from one consistent read, and the draft (migration 0012) — the only row a
//! preview writes.
//!
//! The read is one transaction (PostgreSQL: `REPEATABLE READ, READ ONLY`) that takes the period's
//! ranked totals, the touched members' totals and entries and the late writes. A change that
//! could not be made refuses the whole preview and nothing is stored: an unknown event or late
//! write is `NotFound`; a late write not pending, an event already revoked or of another period,
//! a correction out of bounds or a hide of a hidden member is `Invalid`, naming the change.
//!
//! Each change is simulated with the rules the real change uses: a revoke replays the member's
//! remaining entries (`domain::write::replay`), a correction or an accepted late write goes
//! through `judge` / `conclude` like `apply` (bounds, version, reach sequence from the period's
//! counter), a hide flips the flag. Changes apply in the order given, each on the result of the
//! ones before.
//!
//! **The watermark** (`based_on.watermark`): `v<SUM(totals.version)>.a<last audit id>` of an open
//! or frozen period. Every change of a total raises its version (writes, revokes, corrections,
//! accepted late writes, hides), so the sum rises with any change of points, reach sequences or
//! hidden flags; the last audit row of the period or of the board (period NULL: `board_edit`
//! changes the prize table) moves with transitions, late decisions and settlements. Neither ever
//! goes back. It may move without the standings changing (a rejected write is audited), which only
//! makes a draft stale sooner, never wrongly fresh. A settled or archived period's totals change
//! only by an applied preview, which writes the next settlement revision: its watermark is
//! `r<latest revision>.a<last audit id>`, two index lookups instead of a sum over every total.

use super::adjust::counting_entries;
use super::decide::{Verdict, conclude, judge};
use super::late::{LATE_COLUMNS, late_change, late_from_row};
use super::settle::final_totals;
use super::sql::{member_id, parse_state, period_key};
use super::write_rows::LockedTotal;
use super::{Backend, Ledger, LedgerError, Tx, instant, micros};
use domain::ErrorCode;
use domain::lifecycle::State;
use domain::preview::{Contender, PreviewChange, Touched};
use domain::settlement::FinalTotal;
use domain::write::{Change, Counted, Current, Effect, replay};
use domain::{Board, BoardSlug, MemberId, PeriodKey, TiePolicy};
use sqlx::Row;
use std::collections::HashMap;

/// What a preview reads, in one snapshot of the ledger, and the touched members' totals after.
#[derive(Debug, Clone)]
pub struct PreviewBase {
    pub state: State,
    /// The latest settlement's revision, when settled.
    pub revision: Option<i64>,
    pub watermark: String,
    /// Every ranked (visible) total before, in no particular order — for an open or frozen
    /// period only: a settled one compares with its stored standings.
    pub before: Vec<FinalTotal>,
    /// For a settled or archived period: how many members its latest standings rank.
    pub members: u64,
    /// For a settled or archived period: the prize table it was settled with (what a
    /// re-settlement keeps).
    pub prizes: Option<Vec<domain::board::Prize>>,
    /// For a settled or archived period: the segment prize tables it was settled with.
    pub segment_prizes: Option<domain::board::SegmentPrizes>,
    /// The members the changes touch, first touch first.
    pub touched: Vec<Touched>,
    /// The segment values after the changes of the members a move touched (all their values).
    pub moved: HashMap<String, domain::segment::Values>,
}

/// A stored preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    pub id: String,
    pub board: String,
    pub period: PeriodKey,
    pub actor: String,
    pub reason: String,
    pub changes: Vec<PreviewChange>,
    pub watermark: String,
    pub revision: Option<i64>,
    pub created_at: jiff::Timestamp,
    pub expires_at: jiff::Timestamp,
    /// `draft`, `applied` or `cancelled` (a draft past `expires_at` is expired).
    pub status: String,
    /// For a settled or archived period: the digest of the standings after, once computed.
    pub digest_after: Option<String>,
}

/// A touched member while the changes are simulated.
struct Sim {
    before: Option<Contender>,
    total: LockedTotal,
    /// The entries that count, with their ids (simulated ones have none); read at first need.
    entries: Option<Vec<(Option<i64>, Counted)>>,
    /// The member's segment values, once a move touched them.
    values: Option<domain::segment::Values>,
}

impl Sim {
    fn contender(&self) -> Option<Contender> {
        let t = &self.total;
        (t.current.version > 0).then_some(Contender {
            points: t.current.points,
            reach_seq: t.reach_seq,
            hidden: t.hidden,
        })
    }
}

impl Ledger {
    /// Reads a period's standings inputs and simulates `changes` on them, without writing
    /// anything. A change that could not be made (an unknown event, a late write not pending, a
    /// correction out of bounds, …) is refused: `Missing` or `Refused { code: "invalid_change" }`.
    pub async fn preview_base(
        &self,
        board: &Board,
        period: PeriodKey,
        changes: &[PreviewChange],
    ) -> Result<PreviewBase, LedgerError> {
        let mut tx = self.pool.begin().await?;
        if self.backend == Backend::Postgres {
            // One snapshot for every read below.
            sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                .execute(&mut *tx)
                .await?;
        }
        let (slug, key) = (board.slug.as_str(), period.to_string());
        let row = sqlx::query("SELECT state, next_seq FROM periods WHERE board = $1 AND period = $2")
            .bind(slug)
            .bind(&key)
            .fetch_optional(&mut *tx)
            .await?;
        let (state, next_seq) = match row {
            Some(r) => (parse_state(&r.try_get::<String, _>("state")?)?, r.try_get::<i64, _>("next_seq")?),
            None => (State::Open, 0),
        };
        let last = super::settle::last_revision(&mut tx, board, &key).await?;
        let members = last.as_ref().map_or(0, |l| l.members);
        let revision = last.as_ref().map(|l| l.revision);
        let (prizes, segment_prizes) = last.map(|l| (l.prizes, l.segment_prizes)).unzip();
        let watermark = watermark(&mut tx, slug, &key, state).await?;
        let before = match state.is_adjustable() {
            true => final_totals(&mut tx, self.backend, slug, &key).await?,
            false => Vec::new(),
        };

        let mut sim = Simulation {
            sims: HashMap::new(),
            order: Vec::new(),
            decided: Vec::new(),
            next_seq,
            backend: self.backend,
        };
        for (n, change) in changes.iter().enumerate() {
            sim.apply(&mut tx, board, period, n, change).await?;
        }
        tx.commit().await?;
        let moved = sim
            .sims
            .iter()
            .filter_map(|(m, s)| s.values.as_ref().map(|v| (m.to_string(), v.clone())))
            .collect();
        let touched = sim
            .order
            .into_iter()
            .map(|member| {
                let sim = &sim.sims[&member];
                Touched { before: sim.before, after: sim.contender(), member }
            })
            .collect();
        Ok(PreviewBase {
            state,
            revision,
            watermark,
            before,
            members,
            prizes,
            segment_prizes,
            touched,
            moved,
        })
    }

    /// The period's watermark now (see the module's doc).
    pub async fn preview_watermark(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<String, LedgerError> {
        let state = self.state_of(board, period).await?;
        let mut tx = self.pool.begin().await?;
        let w = watermark(&mut tx, board.as_str(), &period.to_string(), state).await?;
        tx.commit().await?;
        Ok(w)
    }

    /// Stores a draft (nothing else).
    pub async fn save_draft(&self, draft: &Draft) -> Result<(), LedgerError> {
        let changes =
            serde_json::to_string(&draft.changes).map_err(|e| LedgerError::Corrupt(e.to_string()))?;
        let (ledger, draft) = (self.clone(), draft.clone());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            sqlx::query(
                "INSERT INTO previews (id, board, period, actor, reason, changes, watermark, revision, \
                 created_at, expires_at, status, digest_after) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            )
            .bind(&draft.id)
            .bind(&draft.board)
            .bind(draft.period.to_string())
            .bind(&draft.actor)
            .bind(&draft.reason)
            .bind(&changes)
            .bind(&draft.watermark)
            .bind(draft.revision)
            .bind(micros(draft.created_at))
            .bind(micros(draft.expires_at))
            .bind(&draft.status)
            .bind(&draft.digest_after)
            .execute(&mut *w.tx)
            .await?;
            w.tx.commit().await?;
            Ok(())
        })
        .await
    }

    /// Records the digest of a draft's standings after, computed after the draft was answered.
    pub async fn set_draft_digest(&self, board: &str, id: &str, digest: &str) -> Result<(), LedgerError> {
        let (ledger, board, id, digest) = (self.clone(), board.to_owned(), id.to_owned(), digest.to_owned());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            sqlx::query("UPDATE previews SET digest_after = $1 WHERE board = $2 AND id = $3")
                .bind(&digest)
                .bind(&board)
                .bind(&id)
                .execute(&mut *w.tx)
                .await?;
            w.tx.commit().await?;
            Ok(())
        })
        .await
    }

    /// A stored draft of a board.
    pub async fn draft(&self, board: &str, id: &str) -> Result<Draft, LedgerError> {
        let row = sqlx::query(&format!("SELECT {DRAFT_COLUMNS} FROM previews WHERE board = $1 AND id = $2"))
            .bind(board)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| LedgerError::Missing(format!("preview {id} of {board}")))?;
        draft_from_row(&row)
    }

    /// Moves a draft from `draft` to `status` (`cancelled`), once: answers whether it moved.
    pub async fn close_draft(
        &self,
        board: &str,
        id: &str,
        status: &str,
        actor: &str,
        now: jiff::Timestamp,
    ) -> Result<bool, LedgerError> {
        let (ledger, board, id, status, actor) =
            (self.clone(), board.to_owned(), id.to_owned(), status.to_owned(), actor.to_owned());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let moved = sqlx::query(
                "UPDATE previews SET status = $1, decided_by = $2, decided_at = $3 \
                 WHERE board = $4 AND id = $5 AND status = 'draft'",
            )
            .bind(&status)
            .bind(&actor)
            .bind(micros(now))
            .bind(&board)
            .bind(&id)
            .execute(&mut *w.tx)
            .await?
            .rows_affected();
            w.tx.commit().await?;
            Ok(moved == 1)
        })
        .await
    }
}

pub(super) const DRAFT_COLUMNS: &str = "id, board, period, actor, reason, changes, watermark, revision, created_at, expires_at, status, digest_after";

pub(super) fn draft_from_row(row: &sqlx::any::AnyRow) -> Result<Draft, LedgerError> {
    let (id, changes): (String, String) = (row.try_get("id")?, row.try_get("changes")?);
    Ok(Draft {
        board: row.try_get("board")?,
        period: period_key(&row.try_get::<String, _>("period")?)?,
        actor: row.try_get("actor")?,
        reason: row.try_get("reason")?,
        changes: serde_json::from_str(&changes)
            .map_err(|e| LedgerError::Corrupt(format!("preview {id}'s changes: {e}")))?,
        watermark: row.try_get("watermark")?,
        revision: row.try_get("revision")?,
        created_at: instant(row.try_get("created_at")?)?,
        expires_at: instant(row.try_get("expires_at")?)?,
        status: row.try_get("status")?,
        digest_after: row.try_get("digest_after")?,
        id,
    })
}

/// `v<SUM(version)>.a<last audit id>` of an open or frozen period, `r<revision>.a<last audit id>`
/// of a settled or archived one (see the module's doc).
pub(super) async fn watermark(
    tx: &mut Tx,
    board: &str,
    period: &str,
    state: State,
) -> Result<String, LedgerError> {
    let totals = match state.is_adjustable() {
        true => {
            "SELECT 'v' || CAST(COALESCE(SUM(version), 0) AS BIGINT) AS w FROM totals \
                 WHERE board = $1 AND period = $2"
        }
        false => {
            "SELECT 'r' || CAST(COALESCE(MAX(revision), 0) AS BIGINT) AS w FROM settlements \
                  WHERE board = $1 AND period = $2"
        }
    };
    let totals: String =
        sqlx::query(totals).bind(board).bind(period).fetch_one(&mut **tx).await?.try_get("w")?;
    // Two lookups of the index `audit_by_board` (board, period, id) rather than one OR.
    let last = |sql: &'static str| sqlx::query(sql).bind(board);
    let of_period: i64 =
        last("SELECT CAST(COALESCE(MAX(id), 0) AS BIGINT) AS a FROM audit WHERE board = $1 AND period = $2")
            .bind(period)
            .fetch_one(&mut **tx)
            .await?
            .try_get("a")?;
    let of_board: i64 = last(
        "SELECT CAST(COALESCE(MAX(id), 0) AS BIGINT) AS a FROM audit WHERE board = $1 AND period IS NULL",
    )
    .fetch_one(&mut **tx)
    .await?
    .try_get("a")?;
    let audit = of_period.max(of_board);
    Ok(format!("{totals}.a{audit}"))
}

/// The member's simulation, read from the ledger at its first touch.
async fn touch<'a>(
    tx: &mut Tx,
    sims: &'a mut HashMap<MemberId, Sim>,
    order: &mut Vec<MemberId>,
    slug: &str,
    key: &str,
    member: &MemberId,
) -> Result<&'a mut Sim, LedgerError> {
    if !sims.contains_key(member) {
        let row = sqlx::query(
            "SELECT points, version, reach_seq, set_version, hidden FROM totals \
             WHERE board = $1 AND period = $2 AND member = $3",
        )
        .bind(slug)
        .bind(key)
        .bind(member.as_str())
        .fetch_optional(&mut **tx)
        .await?;
        let total = match row {
            Some(r) => LockedTotal {
                current: Current {
                    points: r.try_get("points")?,
                    version: r.try_get("version")?,
                    set_version: r.try_get("set_version")?,
                },
                reach_seq: r.try_get("reach_seq")?,
                hidden: r.try_get::<i64, _>("hidden")? != 0,
            },
            None => LockedTotal::NONE,
        };
        let mut sim = Sim { before: None, total, entries: None, values: None };
        sim.before = sim.contender();
        sims.insert(member.clone(), sim);
        order.push(member.clone());
    }
    Ok(sims.get_mut(member).expect("inserted above"))
}

async fn entries_of<'a>(
    tx: &mut Tx,
    sim: &'a mut Sim,
    slug: &str,
    key: &str,
    member: &MemberId,
) -> Result<&'a mut Vec<(Option<i64>, Counted)>, LedgerError> {
    if sim.entries.is_none() {
        let read = counting_entries(tx, slug, key, member).await?;
        sim.entries = Some(read.into_iter().map(|(id, c)| (Some(id), c)).collect());
    }
    Ok(sim.entries.as_mut().expect("read above"))
}

/// A revoke's recount: the total replayed from the entries left, with the next version (as
/// `adjust::recompute`).
fn recount(sim: &mut Sim, sort: domain::Sort) -> Result<(), LedgerError> {
    let counted: Vec<Counted> = sim.entries.iter().flatten().map(|(_, c)| *c).collect();
    let replayed =
        replay(&counted, sort).ok_or_else(|| LedgerError::Corrupt("a replayed total overflows".into()))?;
    let t = &mut sim.total;
    t.current = Current {
        points: replayed.points,
        version: t.current.version + 1,
        set_version: replayed.set_version,
    };
    t.reach_seq = replayed.reach_seq.unwrap_or(t.reach_seq);
    Ok(())
}

/// A change recorded as `apply` would: judged against the simulated total, given the period's
/// next reach sequence under `first_reached`, concluded. Answers false when it would be rejected.
async fn record(
    tx: &mut Tx,
    board: &Board,
    period: PeriodKey,
    sim: &mut Sim,
    member: &MemberId,
    change: &Change,
    next_seq: &mut i64,
) -> Result<bool, LedgerError> {
    let (slug, key) = (board.slug.as_str(), period.to_string());
    entries_of(tx, sim, slug, &key, member).await?;
    let points = match judge(board, period, change, sim.total.current) {
        Verdict::Answer(r) => return Ok(r.outcome != domain::write::Outcome::Rejected),
        Verdict::Record(points) => points,
    };
    let entry_seq = match board.tie_policy() {
        TiePolicy::FirstReached => {
            *next_seq += 1;
            Some(*next_seq - 1)
        }
        TiePolicy::Shared => None,
    };
    let (_, state) = match conclude(board, period, member, change, &sim.total, points, entry_seq) {
        Ok(done) => done,
        Err(_) => return Ok(false),
    };
    let effect = match *change {
        Change::Point { delta, .. } | Change::Correction { delta, .. } => Effect::Add(delta),
        Change::Total { version, total } => Effect::Total { version, total },
        Change::Submission { score, .. } => Effect::Submission(score),
    };
    sim.entries.get_or_insert_default().push((None, Counted { effect, reach_seq: entry_seq }));
    if let Some(s) = state {
        let t = &mut sim.total;
        t.current = Current { points: s.points, version: s.version, set_version: s.set_version };
        t.reach_seq = s.reach_seq;
    }
    Ok(true)
}

/// The members a preview touches, simulated change by change in its read-only transaction.
struct Simulation {
    sims: HashMap<MemberId, Sim>,
    /// The touched members, in the order first touched.
    order: Vec<MemberId>,
    /// Late writes decided so far (one decision each).
    decided: Vec<i64>,
    next_seq: i64,
    backend: super::Backend,
}

impl Simulation {
    /// Makes change `n` of a preview as applying it would, or refuses it (`invalid_change`).
    async fn apply(
        &mut self,
        tx: &mut Tx,
        board: &Board,
        period: PeriodKey,
        n: usize,
        change: &PreviewChange,
    ) -> Result<(), LedgerError> {
        let (slug, key) = (board.slug.as_str(), &period.to_string());
        let refuse = |detail: String| {
            LedgerError::refused(ErrorCode::InvalidChange, format!("change {}: {detail}", n + 1))
        };
        match change {
            PreviewChange::Revoke(event_id) => {
                let row = sqlx::query(
                    "SELECT id, period, member FROM entries WHERE board = $1 AND external_id = $2",
                )
                .bind(slug)
                .bind(event_id.as_str())
                .fetch_optional(&mut **tx)
                .await?
                .ok_or_else(|| LedgerError::Missing(format!("applied event {event_id} on {slug}")))?;
                let id: i64 = row.try_get("id")?;
                let of: String = row.try_get("period")?;
                if of != *key {
                    return Err(refuse(format!("event {event_id} belongs to {of}, not {key}")));
                }
                let member = member_id(row.try_get("member")?)?;
                let sim = touch(tx, &mut self.sims, &mut self.order, slug, key, &member).await?;
                let entries = entries_of(tx, sim, slug, key, &member).await?;
                let Some(at) = entries.iter().position(|(e, _)| *e == Some(id)) else {
                    return Err(refuse(format!("event {event_id} is already revoked")));
                };
                entries.remove(at);
                recount(sim, board.sort())?;
            }
            PreviewChange::RevokeMember(member) => {
                let sim = touch(tx, &mut self.sims, &mut self.order, slug, key, member).await?;
                let entries = entries_of(tx, sim, slug, key, member).await?;
                if !entries.iter().any(|(id, _)| id.is_some()) {
                    return Err(refuse(format!("{member} has no entry that counts in {key}")));
                }
                // One revoke after the other, oldest first, as applying them would.
                while let Some(at) =
                    sim.entries.as_ref().and_then(|e| e.iter().position(|(id, _)| id.is_some()))
                {
                    let (id, _) = sim.entries.as_mut().expect("read above").remove(at);
                    debug_assert!(id.is_some());
                    recount(sim, board.sort())?;
                }
            }
            PreviewChange::Correct { member, delta } => {
                let sim = touch(tx, &mut self.sims, &mut self.order, slug, key, member).await?;
                let change = Change::Correction { correction_id: None, delta: *delta };
                if !record(tx, board, period, sim, member, &change, &mut self.next_seq).await? {
                    return Err(refuse(format!("the correction of {member} by {delta} would be rejected")));
                }
            }
            PreviewChange::AcceptLate(id) | PreviewChange::RejectLate(id) => {
                let row = sqlx::query(&format!(
                    "SELECT {LATE_COLUMNS} FROM late_entries WHERE board = $1 AND period = $2 AND id = $3"
                ))
                .bind(slug)
                .bind(key)
                .bind(*id)
                .fetch_optional(&mut **tx)
                .await?
                .ok_or_else(|| LedgerError::Missing(format!("late write {id} of {slug} {key}")))?;
                let entry = late_from_row(&row)?;
                if entry.status != "pending" {
                    return Err(refuse(format!("late write {id} is {}, not pending", entry.status)));
                }
                if self.decided.contains(id) {
                    return Err(refuse(format!("late write {id} is decided twice")));
                }
                self.decided.push(*id);
                let sim = touch(tx, &mut self.sims, &mut self.order, slug, key, &entry.member).await?;
                if matches!(change, PreviewChange::AcceptLate(..)) {
                    // As an accept: whatever the write does (stale, rejected) is its outcome.
                    let change = late_change(&entry)?;
                    record(tx, board, period, sim, &entry.member, &change, &mut self.next_seq).await?;
                }
            }
            PreviewChange::Hide(member) | PreviewChange::Unhide(member) => {
                let hide = matches!(change, PreviewChange::Hide(..));
                let sim = touch(tx, &mut self.sims, &mut self.order, slug, key, member).await?;
                if sim.total.current.version == 0 {
                    return Err(LedgerError::Missing(format!("member {member} in {slug} {key}")));
                }
                if sim.total.hidden == hide {
                    let already = if hide { "hidden" } else { "visible" };
                    return Err(refuse(format!("{member} is already {already}")));
                }
                sim.total.hidden = hide;
                sim.total.current.version += 1;
            }
            PreviewChange::Move { member, dimension, value } => {
                let to = domain::segment::Segment::of(&board.segments, dimension, value).map_err(refuse)?;
                let sim = touch(tx, &mut self.sims, &mut self.order, slug, key, member).await?;
                if sim.total.current.version == 0 {
                    return Err(LedgerError::Missing(format!("member {member} in {slug} {key}")));
                }
                if sim.values.is_none() {
                    let mut held =
                        super::segments::held_in(tx, self.backend, slug, key, &[member.as_str()]).await?;
                    sim.values = Some(held.remove(member.as_str()).unwrap_or_default());
                }
                let values = sim.values.as_mut().expect("read above");
                if values.get(&to.dimension) == Some(&to.value) {
                    return Err(refuse(format!("{member} is already in {to}")));
                }
                values.insert(to.dimension, to.value);
                sim.total.current.version += 1;
            }
        }
        Ok(())
    }
}
