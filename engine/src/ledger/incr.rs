//! The exactly-once write of point events (operator `incr`).
//!
//! One transaction per call (a batch is one transaction): for each event, a repeat of an
//! `event_id` is answered `duplicate`; otherwise the event is inserted, the member's total moves by
//! the delta, its version rises by one and — under `first_reached` — it gets the next reach
//! sequence of the period. The unique `(board, event_id)` constraint is the last word on
//! duplicates, so concurrent retries on several instances still count once.

use super::{Ledger, LedgerError, micros};
use domain::{Board, EventId, MemberId, PeriodKey, TiePolicy};
use sqlx::Row;

/// A point event, parsed at the edge.
#[derive(Debug, Clone, PartialEq)]
pub struct PointEvent {
    pub event_id: EventId,
    pub member: MemberId,
    pub delta: i64,
    pub occurred_at: jiff::Timestamp,
    /// Caller-supplied JSON kept with the event for "why this score".
    pub metadata: Option<String>,
}

/// What the projection needs to mirror one member's new total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projected {
    pub period: PeriodKey,
    pub member: MemberId,
    pub points: i64,
    pub version: i64,
    /// The encoded Redis score (see `domain::score`).
    pub score: i64,
}

/// The ledger's answer for one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IncrOutcome {
    Applied(Projected),
    Duplicate { period: PeriodKey },
    Rejected { period: PeriodKey, reason: String },
}

impl Ledger {
    /// Records `events` on `board` in one transaction and answers each in order.
    pub async fn record_incr(
        &self,
        board: &Board,
        events: &[PointEvent],
        now: jiff::Timestamp,
    ) -> Result<Vec<IncrOutcome>, LedgerError> {
        let mut w = self.begin_write().await?;
        let mut outcomes = Vec::with_capacity(events.len());
        for event in events {
            outcomes.push(self.record_one(&mut w.tx, board, event, now).await?);
        }
        w.tx.commit().await?;
        Ok(outcomes)
    }

    async fn record_one(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Any>,
        board: &Board,
        e: &PointEvent,
        now: jiff::Timestamp,
    ) -> Result<IncrOutcome, LedgerError> {
        let period = board.period_at(e.occurred_at);
        let (slug, key, member) = (board.slug.as_str(), period.to_string(), e.member.as_str());

        let seen = sqlx::query("SELECT 1 FROM point_events WHERE board = $1 AND event_id = $2")
            .bind(slug)
            .bind(e.event_id.as_str())
            .fetch_optional(&mut **tx)
            .await?;
        if seen.is_some() {
            return Ok(IncrOutcome::Duplicate { period });
        }

        sqlx::query(
            "INSERT INTO periods (board, period, state) VALUES ($1, $2, 'open') ON CONFLICT DO NOTHING",
        )
        .bind(slug)
        .bind(&key)
        .execute(&mut **tx)
        .await?;
        // A version-0 row exists so it can be locked; reads ignore totals that never changed.
        sqlx::query(
            "INSERT INTO totals (board, period, member, points, version, reach_seq, updated_at) \
             VALUES ($1, $2, $3, 0, 0, 0, $4) ON CONFLICT DO NOTHING",
        )
        .bind(slug)
        .bind(&key)
        .bind(member)
        .bind(micros(now))
        .execute(&mut **tx)
        .await?;
        let lock = match self.backend {
            super::Backend::Postgres => " FOR UPDATE",
            super::Backend::Sqlite => "",
        };
        let row = sqlx::query(&format!(
            "SELECT points, version FROM totals WHERE board = $1 AND period = $2 AND member = $3{lock}"
        ))
        .bind(slug)
        .bind(&key)
        .bind(member)
        .fetch_one(&mut **tx)
        .await?;
        let (points, version): (i64, i64) = (row.try_get("points")?, row.try_get("version")?);

        let Some(new_points) = points.checked_add(e.delta) else {
            return Ok(IncrOutcome::Rejected { period, reason: "points overflow".into() });
        };
        if let Err(reason) = board.codec.check_points(new_points) {
            return Ok(IncrOutcome::Rejected { period, reason: reason.to_string() });
        }
        let seq = match board.tie_policy() {
            TiePolicy::Shared => 0,
            TiePolicy::FirstReached => sqlx::query(
                "UPDATE periods SET next_seq = next_seq + 1 WHERE board = $1 AND period = $2 \
                     RETURNING next_seq - 1 AS seq",
            )
            .bind(slug)
            .bind(&key)
            .fetch_one(&mut **tx)
            .await?
            .try_get("seq")?,
        };
        let score = match board.codec.encode(new_points, seq) {
            Ok(score) => score,
            Err(reason) => return Ok(IncrOutcome::Rejected { period, reason: reason.to_string() }),
        };

        let inserted = sqlx::query(
            "INSERT INTO point_events (board, event_id, period, member, delta, occurred_at, recorded_at, metadata) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (board, event_id) DO NOTHING",
        )
        .bind(slug)
        .bind(e.event_id.as_str())
        .bind(&key)
        .bind(member)
        .bind(e.delta)
        .bind(micros(e.occurred_at))
        .bind(micros(now))
        .bind(e.metadata.as_deref())
        .execute(&mut **tx)
        .await?
        .rows_affected();
        if inserted == 0 {
            // Another transaction recorded the same event since our check: it counts once.
            return Ok(IncrOutcome::Duplicate { period });
        }

        sqlx::query(
            "UPDATE totals SET points = $1, version = $2, reach_seq = $3, updated_at = $4 \
             WHERE board = $5 AND period = $6 AND member = $7",
        )
        .bind(new_points)
        .bind(version + 1)
        .bind(seq)
        .bind(micros(now))
        .bind(slug)
        .bind(&key)
        .bind(member)
        .execute(&mut **tx)
        .await?;

        Ok(IncrOutcome::Applied(Projected {
            period,
            member: e.member.clone(),
            points: new_points,
            version: version + 1,
            score,
        }))
    }
}
