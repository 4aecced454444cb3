//! Board definitions and member profiles.

use super::audit::AuditRecord;
use super::sql::{parse_state, period_key, slug};
use super::{Ledger, LedgerError, micros};
use domain::board::BoardSettings;
use domain::segment::Values;
use domain::{Board, BoardSlug, MemberId, ScoreCodec};
use sqlx::Row;
use sqlx::any::AnyRow;

pub(super) const BOARD_COLUMNS: &str = "slug, title, cadence, time_zone, operator, tie_policy, min_points, \
                             max_points, tie_base, freeze_grace_seconds, prizes, public_freeze_seconds, sort, unit, \
                             keep_top, ranking_ttl_days, segments, segment_prizes, season";

impl Ledger {
    /// Stores a new board. Returns false (and changes nothing) when the slug is taken.
    pub async fn create_board(&self, board: &Board, now: jiff::Timestamp) -> Result<bool, LedgerError> {
        let (ledger, board) = (self.clone(), board.clone());
        super::detached(async move { ledger.insert_board(&board, now).await }).await
    }

    async fn insert_board(&self, board: &Board, now: jiff::Timestamp) -> Result<bool, LedgerError> {
        let mut w = self.begin_write().await?;
        self.lock_board_slugs(&mut w.tx).await?;
        let inserted = insert_board_in(&mut w.tx, board, now).await?;
        w.tx.commit().await?;
        Ok(inserted)
    }

    /// Serialises board creation: a slug is unique across `boards` and `hot_boards`, which no
    /// single constraint can say. SQLite writers are already serial (the writer lock); PostgreSQL
    /// takes a transaction-scoped advisory lock.
    pub(super) async fn lock_board_slugs(&self, tx: &mut super::Tx) -> Result<(), LedgerError> {
        if self.backend == super::Backend::Postgres {
            // One fixed key, shared by the two board inserts.
            sqlx::query("SELECT CAST(pg_advisory_xact_lock(7041425820) AS TEXT) AS locked")
                .fetch_one(&mut **tx)
                .await?;
        }
        Ok(())
    }

    /// Changes a board's title, freeze grace, scheduled public freeze and prize table, with its audit row (`board_edit`,
    /// the settings before and after) in the same transaction. None when there is no such board.
    pub async fn edit_board(
        &self,
        slug: &BoardSlug,
        settings: &BoardSettings,
        actor: &str,
        now: jiff::Timestamp,
    ) -> Result<Option<Board>, LedgerError> {
        let (ledger, slug, settings, actor) =
            (self.clone(), slug.clone(), settings.clone(), actor.to_owned());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let Some(before) = sqlx::query(&format!("SELECT {BOARD_COLUMNS} FROM boards WHERE slug = $1"))
                .bind(slug.as_str())
                .fetch_optional(&mut *w.tx)
                .await?
                .map(|row| board_from_row(&row))
                .transpose()?
            else {
                return Ok(None);
            };
            let segment_prizes = settings.segment_prizes.clone().unwrap_or_else(|| before.segment_prizes.clone());
            domain::board::check_segment_prizes(&before.segments, &segment_prizes)
                .map_err(|e| LedgerError::refused(domain::ErrorCode::Invalid, e))?;
            sqlx::query(
                "UPDATE boards SET title = $1, freeze_grace_seconds = $2, prizes = $3, public_freeze_seconds = $5, \
                 ranking_ttl_days = $6, segment_prizes = $7 WHERE slug = $4",
            )
            .bind(&settings.title)
            .bind(settings.freeze_grace_seconds)
            .bind(serde_json::to_string(&settings.prizes).expect("prizes serialise"))
            .bind(slug.as_str())
            .bind(settings.public_freeze_seconds)
            .bind(settings.ranking_ttl_days)
            .bind(serde_json::to_string(&segment_prizes).expect("prizes serialise"))
            .execute(&mut *w.tx)
            .await?;
            let record = AuditRecord {
                actor: &actor,
                action: "board_edit",
                board: Some(slug.as_str()),
                before: Some(serde_json::to_value(BoardSettings::of(&before)).expect("settings serialise")),
                after: Some(serde_json::to_value(&settings).expect("settings serialise")),
                ..AuditRecord::default()
            };
            super::audit::record(&mut w.tx, &record, now).await?;
            w.tx.commit().await?;
            let BoardSettings { title, freeze_grace_seconds, public_freeze_seconds, prizes, ranking_ttl_days, .. } =
                settings;
            Ok(Some(Board {
                title,
                freeze_grace_seconds,
                public_freeze_seconds,
                prizes,
                ranking_ttl_days,
                segment_prizes,
                ..before
            }))
        })
        .await
    }

    pub async fn board(&self, slug: &BoardSlug) -> Result<Option<Board>, LedgerError> {
        sqlx::query(&format!("SELECT {BOARD_COLUMNS} FROM boards WHERE slug = $1"))
            .bind(slug.as_str())
            .fetch_optional(&self.pool)
            .await?
            .map(|row| board_from_row(&row))
            .transpose()
    }

    pub async fn boards(&self) -> Result<super::Listing<Board>, LedgerError> {
        let rows = sqlx::query(&format!("SELECT {BOARD_COLUMNS} FROM boards ORDER BY slug"))
            .fetch_all(&self.pool)
            .await?;
        Ok(super::Listing::read("boards", &rows, |r| super::rows::text(r, "slug"), board_from_row))
    }

    /// Creates or replaces a member's profile; `segments` are the segment values it names (none:
    /// empty), which writes on boards declaring those dimensions take as the member's values
    /// where they name none (`writes.rs`).
    pub async fn put_profile(
        &self,
        member: &MemberId,
        display_name: &str,
        avatar_url: Option<&str>,
        segments: &Values,
        now: jiff::Timestamp,
    ) -> Result<(), LedgerError> {
        let (ledger, member, name) = (self.clone(), member.clone(), display_name.to_owned());
        let (avatar, segments) = (avatar_url.map(str::to_owned), segments.clone());
        super::detached(async move {
            ledger.upsert_profile(&member, &name, avatar.as_deref(), &segments, now).await
        })
        .await
    }

    async fn upsert_profile(
        &self,
        member: &MemberId,
        display_name: &str,
        avatar_url: Option<&str>,
        segments: &Values,
        now: jiff::Timestamp,
    ) -> Result<(), LedgerError> {
        let segments = (!segments.is_empty()).then(|| super::sql::json_text(segments)).transpose()?;
        let mut w = self.begin_write().await?;
        // The next revision; the clock row stays locked until commit (migration 0008).
        let revision: i64 = sqlx::query(
            "UPDATE profile_clock SET revision = revision + 1 WHERE singleton = 1 RETURNING revision",
        )
        .fetch_one(&mut *w.tx)
        .await?
        .try_get("revision")?;
        sqlx::query(
            "INSERT INTO profiles (member, display_name, avatar_url, updated_at, revision, name_key, segments) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (member) DO UPDATE SET display_name = excluded.display_name, \
             avatar_url = excluded.avatar_url, updated_at = excluded.updated_at, revision = excluded.revision, \
             name_key = excluded.name_key, segments = excluded.segments",
        )
        .bind(member.as_str())
        .bind(display_name)
        .bind(avatar_url)
        .bind(micros(now))
        .bind(revision)
        .bind(name_key(display_name))
        .bind(segments)
        .execute(&mut *w.tx)
        .await?;
        w.tx.commit().await?;
        Ok(())
    }

    /// Up to `limit` profiles whose display name starts with `prefix`, ASCII letters in either
    /// case (`name_key`), in name order: one range of `profiles_by_name_key` (migration 0019).
    pub async fn profiles_named(
        &self,
        prefix: &str,
        limit: i64,
    ) -> Result<Vec<(MemberId, String)>, LedgerError> {
        let from = name_key(prefix.trim());
        if from.is_empty() {
            return Ok(Vec::new());
        }
        // Every key that starts with `from` sorts below `from` + the last code point.
        let until = format!("{from}{}", char::MAX);
        sqlx::query(
            "SELECT member, display_name FROM profiles WHERE name_key >= $1 AND name_key < $2 \
             ORDER BY name_key, member LIMIT $3",
        )
        .bind(&from)
        .bind(&until)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            let member = MemberId::parse(row.try_get::<String, _>("member")?)
                .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
            Ok((member, row.try_get("display_name")?))
        })
        .collect()
    }

    /// Up to `limit` profiles changed after revision `after`, in revision order: each member's
    /// display name and avatar URL (None: the profile has none) as they are now, with the
    /// revision of its last change.
    pub async fn profile_changes(
        &self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<(MemberId, String, Option<String>, i64)>, LedgerError> {
        sqlx::query(
            "SELECT member, display_name, avatar_url, revision FROM profiles WHERE revision > $1 \
             ORDER BY revision LIMIT $2",
        )
        .bind(after)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|row| {
            let member = MemberId::parse(row.try_get::<String, _>("member")?)
                .map_err(|e| LedgerError::Corrupt(e.to_string()))?;
            let avatar: Option<String> = row.try_get("avatar_url")?;
            Ok((member, row.try_get("display_name")?, avatar, row.try_get("revision")?))
        })
        .collect()
    }
}

/// Inserts a board in `tx` (the caller holds the slugs' lock); false when the slug is taken.
pub(super) async fn insert_board_in(
    tx: &mut super::Tx,
    board: &Board,
    now: jiff::Timestamp,
) -> Result<bool, LedgerError> {
    let (min, max) = board.codec.bounds();
    let inserted = sqlx::query(&format!(
        "INSERT INTO boards ({BOARD_COLUMNS}, created_at) \
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20 \
         WHERE NOT EXISTS (SELECT 1 FROM hot_boards WHERE slug = $1) ON CONFLICT (slug) DO NOTHING"
    ))
    .bind(board.slug.as_str())
    .bind(&board.title)
    .bind(board.cadence.as_str())
    .bind(board.time_zone())
    .bind(board.operator.as_str())
    .bind(board.tie_policy().as_str())
    .bind(min)
    .bind(max)
    .bind(board.codec.tie_base())
    .bind(board.freeze_grace_seconds)
    .bind(serde_json::to_string(&board.prizes).expect("prizes serialise"))
    .bind(board.public_freeze_seconds)
    .bind(board.sort().as_str())
    .bind(board.unit.as_str())
    .bind(board.keep_top.map(|k| k as i64))
    .bind(board.ranking_ttl_days)
    .bind(serde_json::to_string(&board.segments).expect("segments serialise"))
    .bind(serde_json::to_string(&board.segment_prizes).expect("prizes serialise"))
    .bind(board.season.as_ref().map(|s| serde_json::to_string(s).expect("a season serialises")))
    .bind(micros(now))
    .execute(&mut **tx)
    .await?
    .rows_affected()
        == 1;
    Ok(inserted)
}

/// A display name as searches compare it: ASCII letters in lower case, everything else as it
/// is — exactly what the migration's SQL folds, so old and new rows compare alike.
pub(crate) fn name_key(name: &str) -> String {
    name.to_ascii_lowercase()
}

pub(super) fn board_from_row(row: &AnyRow) -> Result<Board, LedgerError> {
    let corrupt = |what: String| LedgerError::Corrupt(what);
    let text = |col: &str| -> Result<String, LedgerError> { Ok(row.try_get::<String, _>(col)?) };
    let zone_name = text("time_zone")?;
    let codec = ScoreCodec::new(
        text("tie_policy")?.parse().map_err(corrupt)?,
        row.try_get("min_points")?,
        row.try_get("max_points")?,
        row.try_get("tie_base")?,
    )
    .map_err(|e| corrupt(e.to_string()))?
    .sorted(text("sort")?.parse().map_err(corrupt)?);
    Ok(Board {
        slug: BoardSlug::parse(text("slug")?).map_err(|e| corrupt(e.to_string()))?,
        title: text("title")?,
        cadence: text("cadence")?.parse().map_err(corrupt)?,
        zone: jiff::tz::TimeZone::get(&zone_name).map_err(|e| corrupt(format!("{zone_name}: {e}")))?,
        operator: text("operator")?.parse().map_err(corrupt)?,
        codec,
        freeze_grace_seconds: row.try_get("freeze_grace_seconds")?,
        public_freeze_seconds: row.try_get("public_freeze_seconds")?,
        prizes: serde_json::from_str(&text("prizes")?).map_err(|e| corrupt(format!("prizes: {e}")))?,
        unit: text("unit")?.parse().map_err(corrupt)?,
        keep_top: match row.try_get::<Option<i64>, _>("keep_top")? {
            Some(k) if k >= 1 => Some(k as u64),
            Some(k) => return Err(corrupt(format!("keep_top {k}"))),
            None => None,
        },
        ranking_ttl_days: row.try_get("ranking_ttl_days")?,
        segments: serde_json::from_str(&text("segments")?).map_err(|e| corrupt(format!("segments: {e}")))?,
        segment_prizes: serde_json::from_str(&text("segment_prizes")?)
            .map_err(|e| corrupt(format!("segment_prizes: {e}")))?,
        season: match row.try_get::<Option<String>, _>("season")? {
            Some(json) => Some(serde_json::from_str(&json).map_err(|e| corrupt(format!("season: {e}")))?),
            None => None,
        },
    })
}

/// A member's stored total, as the projection needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredTotal {
    pub member: MemberId,
    pub points: i64,
    pub version: i64,
    pub reach_seq: i64,
    /// Hidden in the period: the projection holds its version but leaves it out of the ranking.
    pub hidden: bool,
}

impl Ledger {
    /// Every total of a period that has changed at least once.
    pub async fn totals(
        &self,
        board: &BoardSlug,
        period: &domain::PeriodKey,
    ) -> Result<Vec<StoredTotal>, LedgerError> {
        self.totals_page(board, period, None, i64::MAX as u64).await
    }

    /// Up to `limit` totals of a period, by member id, after `after` (keyset pages over the
    /// primary key: a rebuild streams a large period page by page).
    pub async fn totals_page(
        &self,
        board: &BoardSlug,
        period: &domain::PeriodKey,
        after: Option<&MemberId>,
        limit: u64,
    ) -> Result<Vec<StoredTotal>, LedgerError> {
        // One read-only transaction, so the planner setting of `in_key_order` stays with it.
        let mut tx = self.pool.begin().await?;
        super::in_key_order(&mut tx, self.backend).await?;
        let rows = sqlx::query(
            "SELECT member, points, version, reach_seq, hidden FROM totals \
             WHERE board = $1 AND period = $2 AND member > $3 AND version > 0 ORDER BY member LIMIT $4",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .bind(after.map_or("", |m| m.as_str()))
        .bind(limit.min(i64::MAX as u64) as i64)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        rows.iter().map(stored_total).collect()
    }

    /// The totals of `members` in a period (those that have one), one lookup each: for the few
    /// members the reconciler checks at a time.
    pub async fn totals_of(
        &self,
        board: &BoardSlug,
        period: &domain::PeriodKey,
        members: &[MemberId],
    ) -> Result<Vec<StoredTotal>, LedgerError> {
        let mut totals = Vec::with_capacity(members.len());
        for member in members {
            let row = sqlx::query(
                "SELECT member, points, version, reach_seq, hidden FROM totals \
                 WHERE board = $1 AND period = $2 AND member = $3 AND version > 0",
            )
            .bind(board.as_str())
            .bind(period.to_string())
            .bind(member.as_str())
            .fetch_optional(&self.pool)
            .await?;
            totals.extend(row.as_ref().map(stored_total).transpose()?);
        }
        Ok(totals)
    }

    /// The sum of a period's total versions: equal to the projection's `vsum` exactly when every
    /// member's projected version is the ledger's.
    pub async fn version_sum(
        &self,
        board: &BoardSlug,
        period: &domain::PeriodKey,
    ) -> Result<i64, LedgerError> {
        let row = sqlx::query(
            "SELECT CAST(COALESCE(SUM(version), 0) AS BIGINT) AS vsum FROM totals WHERE board = $1 AND period = $2",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get("vsum")?)
    }

    /// How many members of a period are ranked (have a total and are not hidden), and the sum of
    /// the versions of every total, hidden or not — what the projection's ZCARD and `vsum` hold.
    pub async fn version_summary(
        &self,
        board: &BoardSlug,
        period: &domain::PeriodKey,
    ) -> Result<(u64, i64), LedgerError> {
        let row = sqlx::query(
            "SELECT CAST(COALESCE(SUM(CASE WHEN hidden = 0 THEN 1 ELSE 0 END), 0) AS BIGINT) AS n, \
             CAST(COALESCE(SUM(version), 0) AS BIGINT) AS vsum \
             FROM totals WHERE board = $1 AND period = $2 AND version > 0",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_one(&self.pool)
        .await?;
        Ok((row.try_get::<i64, _>("n")? as u64, row.try_get("vsum")?))
    }

    /// Periods whose projection is live (open or frozen), as (board, period, state), by board and
    /// period: what the reconciler levels and the console's attention list checks. Reads the
    /// `periods` rows (one per board period that saw a write).
    pub async fn live_periods(
        &self,
    ) -> Result<super::Listing<(BoardSlug, domain::PeriodKey, domain::State)>, LedgerError> {
        let rows = sqlx::query(
            "SELECT board, period, state FROM periods WHERE state IN ('open', 'frozen') ORDER BY board, period",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(super::Listing::read("periods", &rows, super::schedule::period_row_key, |row| {
            Ok((
                slug(row.try_get("board")?)?,
                period_key(&row.try_get::<String, _>("period")?)?,
                parse_state(&row.try_get::<String, _>("state")?)?,
            ))
        }))
    }
}

/// A row of `member, points, version, reach_seq, hidden` from `totals`.
fn stored_total(row: &sqlx::any::AnyRow) -> Result<StoredTotal, LedgerError> {
    Ok(StoredTotal {
        member: MemberId::parse(row.try_get::<String, _>("member")?)
            .map_err(|e| LedgerError::Corrupt(e.to_string()))?,
        points: row.try_get("points")?,
        version: row.try_get("version")?,
        reach_seq: row.try_get("reach_seq")?,
        hidden: row.try_get::<i64, _>("hidden")? != 0,
    })
}
