//! Public freezes in the ledger (`engine::lifecycle::public` has the rules in words): the freeze copies the
//! visible totals into `public_standings` in the transaction that marks the period, holding the
//! period's row lock, so the public view is exactly the totals of the writes committed before it;
//! a reveal step copies some members' live totals over their public ones; a full reveal drops
//! the copy. Each change has its audit row.

use super::audit::{AuditRecord, record as audit};
use super::lifecycle::{adjustable, lock_period_state};
use super::sql::{period_key, slug};
use super::{Ledger, LedgerError, Tx, micros};
use domain::{Board, BoardSlug, MemberId, PeriodKey};
use serde_json::json;
use sqlx::Row;
use std::collections::HashMap;

/// Who reads: the public sees a publicly frozen period's public view; admins (the console, an
/// admin token) see it live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Viewer {
    Public,
    Admin,
}

impl Viewer {
    /// The highest entry id this viewer sees of the period `$1`, `$2` of a statement, as SQL: the
    /// public sees no entry after a public freeze's watermark (nor a revocation made after it).
    /// It is read in the same statement as the entries, so no cache can let one through.
    pub(super) fn last_entry_seen(self) -> &'static str {
        match self {
            Viewer::Public => {
                "(SELECT COALESCE(MAX(p.public_watermark), 9223372036854775807) FROM periods p \
                 WHERE p.board = $1 AND p.period = $2)"
            }
            Viewer::Admin => "9223372036854775807",
        }
    }
}

/// A period's public view while it is publicly frozen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublicView {
    pub frozen_at: jiff::Timestamp,
    /// The highest entry id the view holds ("why this score" lists none after it).
    pub watermark: i64,
    /// Reveal steps taken so far.
    pub steps: i64,
}

impl PublicView {
    /// The projection's name for this view (its `:public` marker once in place): a view and
    /// every step of it have their own, so the reconciler can tell which one Redis holds.
    pub fn marker(&self) -> String {
        format!("{}.{}", self.frozen_at.as_microsecond(), self.steps)
    }
}

/// What one reveal step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevealStep {
    /// The members whose live totals entered the public view, with their public (encoded)
    /// score after the step (None: no longer in the view — hidden, or without a total).
    pub revealed: Vec<(MemberId, Option<i64>)>,
    /// The view after the step; None when nothing was left to reveal and the period is live.
    pub view: Option<PublicView>,
    /// Members whose public total still differs from their live one.
    pub pending: u64,
}

/// A member's total as a view holds it: (points, reach sequence).
type Held = HashMap<MemberId, (i64, i64)>;

/// What the next reveal step does, as of now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevealPlan {
    /// The member it makes public, with their place in the public view (1 = first; None: the
    /// view does not hold them yet). None: nothing differs, the step ends the freeze.
    pub next: Option<(MemberId, Option<u64>)>,
    /// Members whose public total differs from their live one, the next one included.
    pub pending: u64,
}

impl RevealPlan {
    fn of(board: &Board, public: &Held, live: &Held) -> Result<Self, LedgerError> {
        let score = |&(points, seq): &(i64, i64)| {
            board.codec.encode(points, seq).map_err(|e| LedgerError::Corrupt(e.to_string()))
        };
        let scores: HashMap<&MemberId, i64> =
            public.iter().map(|(m, h)| Ok((m, score(h)?))).collect::<Result<_, LedgerError>>()?;
        let mut pending: Vec<&MemberId> =
            public.keys().chain(live.keys()).filter(|m| public.get(*m) != live.get(*m)).collect();
        pending.sort();
        pending.dedup();
        let next = domain::lifecycle::next_to_reveal(&scores, pending.iter().copied()).map(|m| {
            // Its place: one more than the members the projection puts above it.
            let place = scores
                .get(m)
                .map(|&s| 1 + scores.iter().filter(|&(o, &t)| t > s || (t == s && *o > m)).count() as u64);
            (m.clone(), place)
        });
        Ok(RevealPlan { next, pending: pending.len() as u64 })
    }
}

impl Ledger {
    /// The public view of a period, if it is publicly frozen.
    pub async fn public_view(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<Option<PublicView>, LedgerError> {
        let row = sqlx::query(
            "SELECT public_frozen_at, public_watermark, public_steps FROM periods \
             WHERE board = $1 AND period = $2 AND public_frozen_at IS NOT NULL",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| view_of(&r)).transpose()
    }

    /// Whether a scheduled public freeze is still to happen: the period is neither publicly
    /// frozen nor was it revealed.
    pub async fn public_freeze_due(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<bool, LedgerError> {
        let row = sqlx::query(
            "SELECT 1 AS done FROM periods WHERE board = $1 AND period = $2 \
             AND (public_frozen_at IS NOT NULL OR revealed_at IS NOT NULL)",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.is_none())
    }

    /// Every publicly frozen period (the reconciler puts each view in place in Redis).
    pub async fn public_views(&self) -> Result<Vec<(BoardSlug, PeriodKey, PublicView)>, LedgerError> {
        let rows = sqlx::query(
            "SELECT board, period, public_frozen_at, public_watermark, public_steps FROM periods \
             WHERE public_frozen_at IS NOT NULL ORDER BY board, period",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok((slug(r.try_get("board")?)?, period_key(&r.try_get::<String, _>("period")?)?, view_of(r)?))
            })
            .collect()
    }

    /// The public standings of a publicly frozen period: (member, points, reach sequence).
    pub async fn public_standings(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<Vec<(MemberId, i64, i64)>, LedgerError> {
        let rows = sqlx::query(
            "SELECT member, points, reach_seq FROM public_standings WHERE board = $1 AND period = $2",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let member = MemberId::parse(r.try_get::<String, _>("member")?)
                    .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
                Ok((member, r.try_get("points")?, r.try_get("reach_seq")?))
            })
            .collect()
    }

    /// How many of a member's entries are newer than the public view (pending publication).
    pub async fn entries_after(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        member: &MemberId,
        watermark: i64,
    ) -> Result<u64, LedgerError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n FROM entries WHERE board = $1 AND period = $2 AND member = $3 AND id > $4",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .bind(member.as_str())
        .bind(watermark)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get::<i64, _>("n")? as u64)
    }

    /// Freezes a period publicly: its visible totals become the public view. A repeat answers
    /// the view in place and changes nothing (`false`).
    pub async fn public_freeze(
        &self,
        board: &Board,
        period: PeriodKey,
        actor: &str,
        reason: Option<&str>,
        now: jiff::Timestamp,
    ) -> Result<(PublicView, bool), LedgerError> {
        let (ledger, board, actor, reason) =
            (self.clone(), board.slug.clone(), actor.to_owned(), reason.map(str::to_owned));
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let key = period.to_string();
            let state = lock_period_state(&mut w.tx, ledger.backend, board.as_str(), &key).await?;
            if let Some(view) = held_view(&mut w.tx, board.as_str(), &key).await? {
                return Ok((view, false));
            }
            adjustable(state, board.as_str(), &key)?;
            let watermark: i64 = sqlx::query(
                "SELECT CAST(COALESCE(MAX(id), 0) AS BIGINT) AS w FROM entries WHERE board = $1 AND period = $2",
            )
            .bind(board.as_str())
            .bind(&key)
            .fetch_one(&mut *w.tx)
            .await?
            .try_get("w")?;
            sqlx::query(
                "UPDATE periods SET public_frozen_at = $3, public_watermark = $4, public_steps = 0 \
                 WHERE board = $1 AND period = $2",
            )
            .bind(board.as_str())
            .bind(&key)
            .bind(micros(now))
            .bind(watermark)
            .execute(&mut *w.tx)
            .await?;
            sqlx::query("DELETE FROM public_standings WHERE board = $1 AND period = $2")
                .bind(board.as_str())
                .bind(&key)
                .execute(&mut *w.tx)
                .await?;
            let copied = sqlx::query(
                "INSERT INTO public_standings (board, period, member, points, reach_seq) \
                 SELECT board, period, member, points, reach_seq FROM totals \
                 WHERE board = $1 AND period = $2 AND version > 0 AND hidden = 0",
            )
            .bind(board.as_str())
            .bind(&key)
            .execute(&mut *w.tx)
            .await?
            .rows_affected();
            let view = PublicView { frozen_at: now, watermark, steps: 0 };
            let record = AuditRecord {
                actor: &actor,
                action: "public_freeze",
                board: Some(board.as_str()),
                period: Some(&key),
                reason: reason.as_deref(),
                after: Some(json!({ "frozen_at": now, "watermark": watermark, "members": copied })),
                ..Default::default()
            };
            audit(&mut w.tx, &record, now).await?;
            w.tx.commit().await?;
            Ok((view, true))
        })
        .await
    }

    /// What the next reveal step of a publicly frozen period would make public (the console says
    /// it beside "Reveal next"); None when the period is not publicly frozen. Read in one
    /// transaction, so the public and the live totals are of the same moment.
    pub async fn reveal_plan(
        &self,
        board: &Board,
        period: &PeriodKey,
    ) -> Result<Option<RevealPlan>, LedgerError> {
        let mut tx = self.pool.begin().await?;
        let (slug, key) = (board.slug.as_str(), period.to_string());
        if held_view(&mut tx, slug, &key).await?.is_none() {
            return Ok(None);
        }
        let public = held(&mut tx, "public_standings", "", slug, &key).await?;
        let live = held(&mut tx, "totals", "AND version > 0 AND hidden = 0", slug, &key).await?;
        tx.commit().await?;
        RevealPlan::of(board, &public, &live).map(Some)
    }

    /// Ends a period's public freeze: the public sees the live standings. False when it was not
    /// publicly frozen (a repeat).
    pub async fn reveal_all(
        &self,
        board: &BoardSlug,
        period: PeriodKey,
        actor: &str,
        reason: Option<&str>,
        now: jiff::Timestamp,
    ) -> Result<bool, LedgerError> {
        let (ledger, board, actor, reason) =
            (self.clone(), board.clone(), actor.to_owned(), reason.map(str::to_owned));
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let key = period.to_string();
            lock_period_state(&mut w.tx, ledger.backend, board.as_str(), &key).await?;
            let Some(view) = held_view(&mut w.tx, board.as_str(), &key).await? else {
                return Ok(false);
            };
            end_view(&mut w.tx, board.as_str(), &key, now).await?;
            let step =
                Revealed { actor: &actor, board: board.as_str(), period: &key, reason: reason.as_deref() };
            step.audit(&mut w.tx, view, json!({ "step": "all" }), now).await?;
            w.tx.commit().await?;
            Ok(true)
        })
        .await
    }

    /// One step of a stepwise reveal, the resolver's way (`domain::lifecycle::next_to_reveal`):
    /// the lowest placed member of the public view whose live total differs — a member the view
    /// does not hold first — so the board fills in from the bottom up, one member per step, and
    /// the winners come last (a member a reveal pushes down is still revealed on its own). When
    /// nothing differs any more, the step ends the freeze. None when the period was not publicly
    /// frozen.
    pub async fn reveal_next(
        &self,
        board: &Board,
        period: PeriodKey,
        actor: &str,
        reason: Option<&str>,
        now: jiff::Timestamp,
    ) -> Result<Option<RevealStep>, LedgerError> {
        let (ledger, board, actor, reason) =
            (self.clone(), board.clone(), actor.to_owned(), reason.map(str::to_owned));
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let key = period.to_string();
            let slug = board.slug.as_str();
            lock_period_state(&mut w.tx, ledger.backend, slug, &key).await?;
            let Some(view) = held_view(&mut w.tx, slug, &key).await? else {
                return Ok(None);
            };
            let public = held(&mut w.tx, "public_standings", "", slug, &key).await?;
            let live = held(&mut w.tx, "totals", "AND version > 0 AND hidden = 0", slug, &key).await?;
            let score = |(points, seq): (i64, i64)| {
                board.codec.encode(points, seq).map_err(|e| LedgerError::Corrupt(e.to_string()))
            };
            let plan = RevealPlan::of(&board, &public, &live)?;
            let chosen: Vec<MemberId> = plan.next.iter().map(|(m, _)| m.clone()).collect();
            let pending = plan.pending;
            let revealing = Revealed { actor: &actor, board: slug, period: &key, reason: reason.as_deref() };
            if chosen.is_empty() {
                end_view(&mut w.tx, slug, &key, now).await?;
                revealing.audit(&mut w.tx, view, json!({ "step": "last" }), now).await?;
                w.tx.commit().await?;
                return Ok(Some(RevealStep { revealed: vec![], view: None, pending: 0 }));
            }
            let mut revealed = Vec::with_capacity(chosen.len());
            for member in &chosen {
                sqlx::query("DELETE FROM public_standings WHERE board = $1 AND period = $2 AND member = $3")
                    .bind(slug)
                    .bind(&key)
                    .bind(member.as_str())
                    .execute(&mut *w.tx)
                    .await?;
                let now_public = match live.get(member) {
                    Some(&(points, seq)) => {
                        sqlx::query(
                            "INSERT INTO public_standings (board, period, member, points, reach_seq) \
                             VALUES ($1, $2, $3, $4, $5)",
                        )
                        .bind(slug)
                        .bind(&key)
                        .bind(member.as_str())
                        .bind(points)
                        .bind(seq)
                        .execute(&mut *w.tx)
                        .await?;
                        Some(score((points, seq))?)
                    }
                    None => None,
                };
                revealed.push((member.clone(), now_public));
            }
            let steps = view.steps + 1;
            sqlx::query("UPDATE periods SET public_steps = $3 WHERE board = $1 AND period = $2")
                .bind(slug)
                .bind(&key)
                .bind(steps)
                .execute(&mut *w.tx)
                .await?;
            let members: Vec<&str> = chosen.iter().map(MemberId::as_str).collect();
            revealing.audit(&mut w.tx, view, json!({ "step": "next", "members": members }), now).await?;
            w.tx.commit().await?;
            Ok(Some(RevealStep {
                pending: pending - chosen.len() as u64,
                revealed,
                view: Some(PublicView { steps, ..view }),
            }))
        })
        .await
    }
}

impl Ledger {
    /// Takes a member out of a period's public view (a hide during a public freeze: moderation
    /// does not wait for the reveal). Answers the view before and after, or None when the period
    /// is not publicly frozen or the view does not hold the member.
    pub async fn drop_from_public_view(
        &self,
        board: &BoardSlug,
        period: PeriodKey,
        member: &MemberId,
    ) -> Result<Option<(PublicView, PublicView)>, LedgerError> {
        let (ledger, board, member) = (self.clone(), board.clone(), member.clone());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let key = period.to_string();
            lock_period_state(&mut w.tx, ledger.backend, board.as_str(), &key).await?;
            let Some(view) = held_view(&mut w.tx, board.as_str(), &key).await? else {
                return Ok(None);
            };
            let dropped =
                sqlx::query("DELETE FROM public_standings WHERE board = $1 AND period = $2 AND member = $3")
                    .bind(board.as_str())
                    .bind(&key)
                    .bind(member.as_str())
                    .execute(&mut *w.tx)
                    .await?
                    .rows_affected();
            if dropped == 0 {
                return Ok(None);
            }
            // A new name for the view, so the reconciler can tell whether Redis has this one.
            let after = PublicView { steps: view.steps + 1, ..view };
            sqlx::query("UPDATE periods SET public_steps = $3 WHERE board = $1 AND period = $2")
                .bind(board.as_str())
                .bind(&key)
                .bind(after.steps)
                .execute(&mut *w.tx)
                .await?;
            w.tx.commit().await?;
            Ok(Some((view, after)))
        })
        .await
    }
}

/// Who reveals which period, for the audit row of each reveal.
struct Revealed<'a> {
    actor: &'a str,
    board: &'a str,
    period: &'a str,
    reason: Option<&'a str>,
}

impl Revealed<'_> {
    async fn audit(
        &self,
        tx: &mut Tx,
        before: PublicView,
        after: serde_json::Value,
        now: jiff::Timestamp,
    ) -> Result<(), LedgerError> {
        let record = AuditRecord {
            actor: self.actor,
            action: "reveal",
            board: Some(self.board),
            period: Some(self.period),
            reason: self.reason,
            before: Some(json!({ "frozen_at": before.frozen_at, "steps": before.steps })),
            after: Some(after),
            ..Default::default()
        };
        audit(tx, &record, now).await
    }
}

fn view_of(row: &sqlx::any::AnyRow) -> Result<PublicView, LedgerError> {
    let frozen_at = jiff::Timestamp::from_microsecond(row.try_get("public_frozen_at")?)
        .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
    Ok(PublicView {
        frozen_at,
        watermark: row.try_get::<Option<i64>, _>("public_watermark")?.unwrap_or(0),
        steps: row.try_get("public_steps")?,
    })
}

/// The view of a period whose row the transaction holds.
async fn held_view(tx: &mut Tx, board: &str, period: &str) -> Result<Option<PublicView>, LedgerError> {
    let row = sqlx::query(
        "SELECT public_frozen_at, public_watermark, public_steps FROM periods \
         WHERE board = $1 AND period = $2 AND public_frozen_at IS NOT NULL",
    )
    .bind(board)
    .bind(period)
    .fetch_optional(&mut **tx)
    .await?;
    row.map(|r| view_of(&r)).transpose()
}

/// Members' (points, reach sequence) from `public_standings` or `totals`.
async fn held(
    tx: &mut Tx,
    table: &str,
    filter: &str,
    board: &str,
    period: &str,
) -> Result<Held, LedgerError> {
    let rows = sqlx::query(&format!(
        "SELECT member, points, reach_seq FROM {table} WHERE board = $1 AND period = $2 {filter}"
    ))
    .bind(board)
    .bind(period)
    .fetch_all(&mut **tx)
    .await?;
    rows.iter()
        .map(|r| {
            let member = MemberId::parse(r.try_get::<String, _>("member")?)
                .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
            Ok((member, (r.try_get("points")?, r.try_get("reach_seq")?)))
        })
        .collect()
}

async fn end_view(tx: &mut Tx, board: &str, period: &str, now: jiff::Timestamp) -> Result<(), LedgerError> {
    sqlx::query(
        "UPDATE periods SET public_frozen_at = NULL, public_watermark = NULL, public_steps = 0, revealed_at = $3 \
         WHERE board = $1 AND period = $2",
    )
    .bind(board)
    .bind(period)
    .bind(micros(now))
    .execute(&mut **tx)
    .await?;
    sqlx::query("DELETE FROM public_standings WHERE board = $1 AND period = $2")
        .bind(board)
        .bind(period)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
