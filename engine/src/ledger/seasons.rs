//! Seasons' rows (issue 45): the source totals a season is made of, and the season's own totals,
//! levelled from them by `crate::seasons`. A season total is absolute, with a version that is a
//! function of the source rows it was computed from, so levelling is idempotent and a stale
//! computation never overwrites a newer one (`WHERE totals.version < excluded.version`), whichever
//! process computed it.

use super::boards::{BOARD_COLUMNS, StoredTotal, board_from_row};
use super::locks::ensure_period;
use super::sql::{INSERT_CHUNK, LOOKUP_CHUNK, multi_row_insert, padded, period_key};
use super::{Backend, Ledger, LedgerError, Tx, micros};
use domain::season::{Season, WeekResult};
use domain::settlement::SeasonWeek;
use domain::{Board, BoardSlug, MemberId, PeriodKey, TiePolicy};
use sqlx::Row;
use std::collections::{BTreeMap, HashMap};

const SOURCE_COLUMNS: &str = "SELECT member, period, points, version, hidden, updated_at FROM totals";

/// One source total as a season reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceTotal {
    pub member: MemberId,
    pub period: PeriodKey,
    pub points: i64,
    pub version: i64,
    pub hidden: bool,
    /// When the total last changed (microseconds): the ledger's order across weeks.
    pub updated_at: i64,
}

/// A season total as the season computed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeasonTotal {
    pub member: MemberId,
    pub points: i64,
    pub version: i64,
    /// Not ranked in the season (hidden in every week, or never placed).
    pub hidden: bool,
    /// When the member reached this total (`SourceTotal::updated_at` of the latest week that
    /// counts): under `first_reached`, changed totals take reach sequences in this order.
    pub reached: i64,
}

impl Ledger {
    /// Every season board's definition.
    pub async fn season_boards(&self) -> Result<Vec<Board>, LedgerError> {
        sqlx::query(&format!("SELECT {BOARD_COLUMNS} FROM boards WHERE season IS NOT NULL ORDER BY slug"))
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(board_from_row)
            .collect()
    }

    /// The totals of `members` in `periods` of `source`.
    pub async fn source_totals(
        &self,
        source: &BoardSlug,
        periods: &[PeriodKey],
        members: &[MemberId],
    ) -> Result<Vec<SourceTotal>, LedgerError> {
        let mut conn = self.pool.acquire().await?;
        source_totals_in(&mut conn, source, periods, members).await
    }

    /// A page of the totals of `source` in `periods`, by member: every total of the members
    /// after `after`, up to about `limit` members, and the last member of the page when more
    /// may follow. Each period is read in member order; the page ends at the smallest last
    /// member of the periods that filled their `limit`, so no member is cut in two.
    pub async fn source_totals_page(
        &self,
        source: &BoardSlug,
        periods: &[PeriodKey],
        after: Option<&MemberId>,
        limit: u64,
    ) -> Result<(Vec<SourceTotal>, Option<MemberId>), LedgerError> {
        let mut rows = Vec::new();
        let mut end: Option<MemberId> = None;
        // One read-only transaction, so the planner setting of `in_key_order` stays with it.
        let mut tx = self.pool.begin().await?;
        super::in_key_order(&mut tx, self.backend).await?;
        for period in periods {
            let page = sqlx::query(&format!(
                "{SOURCE_COLUMNS} WHERE board = $1 AND period = $2 AND member > $3 AND version > 0 \
                 ORDER BY member LIMIT $4"
            ))
            .bind(source.as_str())
            .bind(period.to_string())
            .bind(after.map_or("", MemberId::as_str))
            .bind(limit as i64)
            .fetch_all(&mut *tx)
            .await?;
            let page = page.iter().map(source_total).collect::<Result<Vec<_>, _>>()?;
            if page.len() as u64 == limit
                && let Some(last) = page.last()
                && end.as_ref().is_none_or(|end| last.member < *end)
            {
                end = Some(last.member.clone());
            }
            rows.extend(page);
        }
        tx.commit().await?;
        rows.retain(|t| end.as_ref().is_none_or(|end| t.member <= *end));
        rows.sort_unstable_by(|a, b| (&a.member, a.period).cmp(&(&b.member, b.period)));
        Ok((rows, end))
    }

    /// Writes the season totals whose version is newer than the ledger's, in one transaction,
    /// and returns them as stored (for the projection). Nothing is written once the season's
    /// period is settled or archived: its standings are final. Under `first_reached` a total
    /// whose points change takes the period's next reach sequence, in the order members reached
    /// their totals.
    pub async fn level_season(
        &self,
        season: &Board,
        rows: Vec<SeasonTotal>,
        now: jiff::Timestamp,
    ) -> Result<Vec<StoredTotal>, LedgerError> {
        let Some(definition) = &season.season else { return Ok(Vec::new()) };
        let (ledger, season, key) = (self.clone(), season.clone(), definition.key().to_string());
        super::detached(async move {
            let mut w = ledger.begin_write().await?;
            ensure_period(&mut w.tx, season.slug.as_str(), &key).await?;
            let state: String = sqlx::query("SELECT state FROM periods WHERE board = $1 AND period = $2")
                .bind(season.slug.as_str())
                .bind(&key)
                .fetch_one(&mut *w.tx)
                .await?
                .try_get("state")?;
            if !super::sql::parse_state(&state)?.is_adjustable() {
                return Ok(Vec::new());
            }
            let stored = level_season_in(&mut w.tx, ledger.backend, &season, rows, now).await?;
            w.tx.commit().await?;
            Ok(stored)
        })
        .await
    }
}

/// The totals of `members` in `periods` of `source`, on `conn` (a transaction's, or the pool's).
pub(super) async fn source_totals_in(
    conn: &mut sqlx::AnyConnection,
    source: &BoardSlug,
    periods: &[PeriodKey],
    members: &[MemberId],
) -> Result<Vec<SourceTotal>, LedgerError> {
    let mut out = Vec::new();
    // Every period at once: one statement per chunk of members, whatever the season's length.
    let periods: Vec<String> = periods.iter().map(ToString::to_string).collect();
    let period_list: Vec<String> = (0..periods.len()).map(|i| format!("${}", i + 2)).collect();
    for chunk in members.chunks(LOOKUP_CHUNK) {
        let keys: Vec<&str> = chunk.iter().map(MemberId::as_str).collect();
        let keys = padded(&keys);
        let first = periods.len() + 2;
        let list: Vec<String> = (0..keys.len()).map(|i| format!("${}", i + first)).collect();
        let sql = format!(
            "{SOURCE_COLUMNS} WHERE board = $1 AND period IN ({}) AND version > 0 AND member IN ({})",
            period_list.join(", "),
            list.join(", ")
        );
        let mut q = sqlx::query(&sql).bind(source.as_str());
        for period in &periods {
            q = q.bind(period);
        }
        for key in keys {
            q = q.bind(key);
        }
        for row in &q.fetch_all(&mut *conn).await? {
            out.push(source_total(row)?);
        }
    }
    // A padded lookup may answer a member twice.
    out.sort_unstable_by(|a, b| (&a.member, a.period).cmp(&(&b.member, b.period)));
    out.dedup_by(|a, b| a.member == b.member && a.period == b.period);
    Ok(out)
}

/// Writes the season totals in `rows` whose version is newer than the ledger's, in `tx`, whatever
/// the season's state (the caller decides: a live season, or a settled one a correction
/// re-settles), and returns them as stored.
pub(super) async fn level_season_in(
    tx: &mut Tx,
    backend: Backend,
    season: &Board,
    mut rows: Vec<SeasonTotal>,
    now: jiff::Timestamp,
) -> Result<Vec<StoredTotal>, LedgerError> {
    let Some(definition) = &season.season else { return Ok(Vec::new()) };
    let (slug, key, policy) = (season.slug.as_str(), definition.key().to_string(), season.tie_policy());
    // A placement total's version moves with every week's, so it is written only when its
    // points or its place in the ranking change, and a member who never placed gets no row.
    let placement = definition.rule.reads_ranks();
    rows.sort_unstable_by(|a, b| (a.reached, &a.member).cmp(&(b.reached, &b.member)));
    let mut held: HashMap<String, (i64, i64, i64, bool)> = HashMap::with_capacity(rows.len());
    for chunk in rows.chunks(LOOKUP_CHUNK) {
        let keys: Vec<&str> = chunk.iter().map(|r| r.member.as_str()).collect();
        let keys = padded(&keys);
        let list: Vec<String> = (0..keys.len()).map(|i| format!("${}", i + 3)).collect();
        let sql = format!(
            "SELECT member, points, version, reach_seq, hidden FROM totals \
             WHERE board = $1 AND period = $2 AND member IN ({})",
            list.join(", ")
        );
        let mut q = sqlx::query(&sql).bind(slug).bind(&key);
        for k in keys {
            q = q.bind(k);
        }
        for row in q.fetch_all(&mut **tx).await? {
            held.insert(
                row.try_get("member")?,
                (
                    row.try_get("points")?,
                    row.try_get("version")?,
                    row.try_get("reach_seq")?,
                    row.try_get::<i64, _>("hidden")? != 0,
                ),
            );
        }
    }
    let newer: Vec<&SeasonTotal> = rows
        .iter()
        .filter(|r| match held.get(r.member.as_str()) {
            None => !(placement && r.hidden),
            Some((points, version, _, hidden)) => {
                *version < r.version && !(placement && *points == r.points && *hidden == r.hidden)
            }
        })
        .collect();
    // Reach sequences for the totals whose points change, in the order they were reached.
    let changed = newer
        .iter()
        .filter(|r| held.get(r.member.as_str()).is_none_or(|(points, ..)| *points != r.points))
        .count() as i64;
    let mut seq = match policy {
        TiePolicy::FirstReached if changed > 0 => sqlx::query(
            "UPDATE periods SET next_seq = next_seq + $1 WHERE board = $2 AND period = $3 \
             RETURNING next_seq - $1 AS first",
        )
        .bind(changed)
        .bind(slug)
        .bind(&key)
        .fetch_one(&mut **tx)
        .await?
        .try_get::<i64, _>("first")?,
        _ => 0,
    };
    let mut stored = Vec::with_capacity(newer.len());
    for r in &newer {
        let reach_seq = match held.get(r.member.as_str()) {
            Some((points, _, reach, _)) if *points == r.points => *reach,
            _ if policy == TiePolicy::FirstReached => {
                seq += 1;
                seq - 1
            }
            _ => 0,
        };
        stored.push(StoredTotal {
            member: r.member.clone(),
            points: r.points,
            version: r.version,
            reach_seq,
            hidden: r.hidden,
        });
    }
    let at = micros(now);
    for chunk in stored.chunks(INSERT_CHUNK) {
        let sql = multi_row_insert(
            backend,
            "INSERT INTO totals (board, period, member, points, version, reach_seq, hidden, updated_at) VALUES ",
            8,
            chunk.len(),
        ) + " ON CONFLICT (board, period, member) DO UPDATE SET points = excluded.points, \
              version = excluded.version, reach_seq = excluded.reach_seq, hidden = excluded.hidden, \
              updated_at = excluded.updated_at WHERE totals.version < excluded.version";
        let mut q = sqlx::query(&sql);
        for t in chunk {
            q = q
                .bind(slug)
                .bind(&key)
                .bind(t.member.as_str())
                .bind(t.points)
                .bind(t.version)
                .bind(t.reach_seq)
                .bind(i64::from(t.hidden))
                .bind(at);
        }
        q.execute(&mut **tx).await?;
    }
    Ok(stored)
}

/// The `sum`, `best` or `weighted` season totals of the members in `rows` (sorted by member,
/// then week); each version is the member's weekly versions added up. A member hidden in a week
/// has no total there; hidden in every week, none in the season. A member's opening (`openings`,
/// carry-over) adds its points, and 1 to the version: the opening's own.
pub fn summed_totals(
    definition: &Season,
    rows: &[SourceTotal],
    openings: &HashMap<MemberId, i64>,
) -> Vec<SeasonTotal> {
    let mut totals = Vec::new();
    for member_rows in rows.chunk_by(|a, b| a.member == b.member) {
        let opening = openings.get(&member_rows[0].member).copied();
        let weeks: Vec<WeekResult> = member_rows
            .iter()
            .filter(|r| !r.hidden)
            .filter_map(|r| {
                Some(WeekResult {
                    week: definition.week_of(r.period)?,
                    points: r.points,
                    rank: 0,
                    reached: r.updated_at,
                })
            })
            .collect();
        let result = definition.rule.apply(&weeks);
        totals.push(SeasonTotal {
            member: member_rows[0].member.clone(),
            points: result.points + opening.unwrap_or(0),
            version: member_rows.iter().map(|r| r.version).sum::<i64>() + i64::from(opening.is_some()),
            hidden: weeks.is_empty() && opening.is_none(),
            reached: result.reached,
        });
    }
    totals
}

/// The `placement` season totals of the members in `weeks` (each member's places, one per week
/// it placed in; members without any place get a hidden total of 0, out of the ranking, unless
/// they opened with points), each with the version after `weeks_sum`, the weeks' version sum they
/// were computed at (after the openings' own version 1). A member's opening adds its points.
pub fn placement_totals(
    definition: &Season,
    weeks: BTreeMap<MemberId, Vec<WeekResult>>,
    weeks_sum: i64,
    openings: &HashMap<MemberId, i64>,
) -> Vec<SeasonTotal> {
    weeks
        .into_iter()
        .map(|(member, weeks)| {
            let result = definition.rule.apply(&weeks);
            let opening = openings.get(&member).copied();
            SeasonTotal {
                points: result.points + opening.unwrap_or(0),
                version: weeks_sum + 1,
                hidden: !result.ranked && opening.is_none(),
                reached: result.reached,
                member,
            }
        })
        .collect()
}

/// The version sum of `periods` of `source` (what a `placement` season's totals carry), in `tx`.
pub(super) async fn weeks_version_sum_in(
    tx: &mut Tx,
    source: &BoardSlug,
    periods: &[PeriodKey],
) -> Result<i64, LedgerError> {
    let mut sum = 0;
    for period in periods {
        let row = sqlx::query(
            "SELECT CAST(COALESCE(SUM(version), 0) AS BIGINT) AS v FROM totals WHERE board = $1 AND period = $2",
        )
        .bind(source.as_str())
        .bind(period.to_string())
        .fetch_one(&mut **tx)
        .await?;
        sum += row.try_get::<i64, _>("v")?;
    }
    Ok(sum)
}

/// The members holding a total in a season, in `tx`.
pub(super) async fn season_members_in(
    tx: &mut Tx,
    season: &BoardSlug,
    key: &str,
) -> Result<Vec<MemberId>, LedgerError> {
    sqlx::query("SELECT member FROM totals WHERE board = $1 AND period = $2 AND version > 0")
        .bind(season.as_str())
        .bind(key)
        .fetch_all(&mut **tx)
        .await?
        .iter()
        .map(|row| super::sql::member_id(row.try_get("member")?))
        .collect()
}

/// The latest settlement revision and digest of each of a season's weeks, in the season's order
/// (revision 0 and an empty digest for a week with no settlement row).
pub(super) async fn season_weeks(tx: &mut Tx, season: &Season) -> Result<Vec<SeasonWeek>, LedgerError> {
    let mut weeks = Vec::with_capacity(season.periods.len());
    for period in &season.periods {
        let row = sqlx::query(
            "SELECT revision, digest FROM settlements WHERE board = $1 AND period = $2 ORDER BY revision DESC LIMIT 1",
        )
        .bind(season.source.as_str())
        .bind(period.to_string())
        .fetch_optional(&mut **tx)
        .await?;
        let (revision, digest) = match row {
            Some(row) => (row.try_get("revision")?, row.try_get("digest")?),
            None => (0, String::new()),
        };
        weeks.push(SeasonWeek { period: period.to_string(), revision, digest });
    }
    Ok(weeks)
}

/// A row of [`SOURCE_COLUMNS`].
fn source_total(row: &sqlx::any::AnyRow) -> Result<SourceTotal, LedgerError> {
    Ok(SourceTotal {
        member: MemberId::parse(row.try_get::<String, _>("member")?)
            .map_err(|e| LedgerError::Corrupt(e.to_string()))?,
        period: period_key(&row.try_get::<String, _>("period")?)?,
        points: row.try_get("points")?,
        version: row.try_get("version")?,
        hidden: row.try_get::<i64, _>("hidden")? != 0,
        updated_at: row.try_get("updated_at")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::season::SeasonRule;

    #[test]
    fn a_member_hidden_in_every_week_has_a_hidden_total_that_still_counts_its_versions() {
        let definition = Season {
            source: BoardSlug::parse("w").unwrap(),
            periods: vec![PeriodKey::parse("2026-W40").unwrap(), PeriodKey::parse("2026-W41").unwrap()],
            rule: SeasonRule::Sum {},
            carry_over: None,
        };
        let row = |week: &str, points, version, hidden| SourceTotal {
            member: MemberId::parse("u1").unwrap(),
            period: PeriodKey::parse(week).unwrap(),
            points,
            version,
            hidden,
            updated_at: 0,
        };
        let none = HashMap::new();
        let totals =
            summed_totals(&definition, &[row("2026-W40", 5, 2, true), row("2026-W41", 7, 3, true)], &none);
        assert_eq!((totals[0].points, totals[0].version, totals[0].hidden), (0, 5, true));
        let totals =
            summed_totals(&definition, &[row("2026-W40", 5, 2, false), row("2026-W41", 7, 3, true)], &none);
        assert_eq!((totals[0].points, totals[0].version, totals[0].hidden), (5, 5, false));
        // An opening keeps the member ranked, adds its points and its own version.
        let opened = HashMap::from([(MemberId::parse("u1").unwrap(), 40)]);
        let totals =
            summed_totals(&definition, &[row("2026-W40", 5, 2, true), row("2026-W41", 7, 3, true)], &opened);
        assert_eq!((totals[0].points, totals[0].version, totals[0].hidden), (40, 6, false));
    }
}
