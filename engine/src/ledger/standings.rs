//! Reading settlements in the ledger: a period's latest settlement, and its standings by
//! position, by member or by points. Standings are stored in blocks (written by `settle.rs`),
//! unpacked here, each read touching only the blocks it needs:
//!
//! - a page of standings reads the blocks covering it: the last one starting at or before its
//!   offset and those after it up to its end (`GET …/settlement?offset=&limit=`: the header and a
//!   page, [`SETTLEMENT_PAGE`] by default);
//! - a count of members at or better than some points finds the first block whose last (worst)
//!   points are worse — lower, or higher on an ascending board — (index
//!   `standing_blocks_by_points`) and unpacks it alone;
//! - a member's standing reads one block of the member directory (`standing_members`).
//!
//! Every settlement revision stays readable (`?revision=N`, `GET …/settlements`); reads use the
//! latest.

use super::sql::member_id;
use super::{Ledger, LedgerError, instant};
use domain::preview::StandingsBefore;
use domain::settlement::{FinalTotal, Standing, standing_order};
use domain::view::{Settlement, SettlementSummary};
use domain::{BoardSlug, MemberId, PeriodKey, Sort, TiePolicy};
use sqlx::Row;

/// How many standings a settlement answers at once.
pub const SETTLEMENT_PAGE: u64 = 1000;

/// A window of a settled period's standings: the number of members and the rows from `from`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandingsWindow {
    pub total: u64,
    pub rows: Vec<Standing>,
}

impl Ledger {
    /// A period's latest settlement with `limit` of its standings from position `offset`, if it
    /// was settled.
    pub async fn settlement(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        offset: u64,
        limit: u64,
    ) -> Result<Option<Settlement>, LedgerError> {
        self.settlement_revision(board, period, None, offset, limit).await
    }

    /// A settlement revision of a period (the latest for `None`), with `limit` standings from
    /// `offset`; None when there is no such revision.
    pub async fn settlement_revision(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        revision: Option<i64>,
        offset: u64,
        limit: u64,
    ) -> Result<Option<Settlement>, LedgerError> {
        let key = period.to_string();
        let Some(row) = sqlx::query(&format!(
            "SELECT {SETTLEMENT_COLUMNS} FROM settlements WHERE board = $1 AND period = $2 \
             AND ($3 = 0 OR revision = $3) ORDER BY revision DESC LIMIT 1"
        ))
        .bind(board.as_str())
        .bind(&key)
        .bind(revision.unwrap_or(0))
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let summary = summary_from_row(&row)?;
        let standings = self.standings(board, period, summary.revision, offset, limit).await?;
        Ok(Some(Settlement {
            board: board.clone(),
            period: *period,
            revision: summary.revision,
            rule_version: summary.rule_version,
            watermark: summary.watermark,
            digest: summary.digest,
            previous_digest: summary.previous_digest,
            reason: summary.reason,
            members: summary.members,
            actor: summary.actor,
            settled_at: summary.settled_at,
            offset,
            standings,
            segments: summary.segments,
        }))
    }

    /// Every settlement revision of a period, oldest first (none when it was never settled).
    pub async fn settlements(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<Vec<SettlementSummary>, LedgerError> {
        let rows = sqlx::query(&format!(
            "SELECT {SETTLEMENT_COLUMNS} FROM settlements WHERE board = $1 AND period = $2 ORDER BY revision"
        ))
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(summary_from_row).collect()
    }

    /// A slice of a settlement's standings, by position.
    pub async fn standings(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        revision: i64,
        offset: u64,
        limit: u64,
    ) -> Result<Vec<Standing>, LedgerError> {
        read_standings(&self.pool, board.as_str(), &period.to_string(), revision, offset, limit).await
    }

    /// The revision and member count of a period's latest settlement, if it was settled.
    async fn latest_settlement(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
    ) -> Result<Option<(i64, u64)>, LedgerError> {
        let row = sqlx::query(
            "SELECT revision, members FROM settlements WHERE board = $1 AND period = $2 ORDER BY revision DESC LIMIT 1",
        )
        .bind(board.as_str())
        .bind(period.to_string())
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| Ok((r.try_get("revision")?, r.try_get::<i64, _>("members")? as u64))).transpose()
    }

    /// `count` standings from position `from` of a period's latest settlement.
    pub async fn standings_window(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        from: u64,
        count: u64,
    ) -> Result<StandingsWindow, LedgerError> {
        let Some((revision, total)) = self.latest_settlement(board, period).await? else {
            return Ok(StandingsWindow { total: 0, rows: Vec::new() });
        };
        Ok(StandingsWindow { total, rows: self.standings(board, period, revision, from, count).await? })
    }

    /// A member's position (0-based) in a period's latest standings.
    pub async fn standing_position(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        member: &MemberId,
    ) -> Result<Option<u64>, LedgerError> {
        // The block that would hold the member: the last one starting at or before it.
        let row = sqlx::query(&format!(
            "SELECT members FROM standing_members WHERE board = $1 AND period = $2 AND revision = {LATEST} \
             AND first_member <= $3 ORDER BY first_member DESC LIMIT 1"
        ))
        .bind(board.as_str())
        .bind(period.to_string())
        .bind(member.as_str())
        .fetch_optional(&self.pool)
        .await?;
        match row {
            Some(row) => position_in_block(&row.try_get::<String, _>("members")?, member.as_str()),
            None => Ok(None),
        }
    }

    /// A member's rank in every settlement revision of a period, oldest first (None in a revision
    /// where it has no standing).
    pub async fn member_revisions(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        member: &MemberId,
    ) -> Result<Vec<(SettlementSummary, Option<Standing>)>, LedgerError> {
        let mut out = Vec::new();
        let (slug, key) = (board.as_str(), period.to_string());
        for summary in self.settlements(board, period).await? {
            let place = place_in(&self.pool, slug, &key, summary.revision, member).await?;
            out.push((summary, place.map(|(_, standing)| standing)));
        }
        Ok(out)
    }

    /// How many members of a period's latest standings have `min_points` or better (at least
    /// `min_points`, or at most on an ascending board).
    pub async fn standings_at_least(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        sort: Sort,
        min_points: i64,
    ) -> Result<u64, LedgerError> {
        let Some((revision, total)) = self.latest_settlement(board, period).await? else {
            return Ok(0);
        };
        count_at_least(&self.pool, board.as_str(), &period.to_string(), revision, total, sort, min_points)
            .await
    }

    /// The standings of one settlement revision, read as a preview compares them.
    pub fn stored_standings(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        sort: Sort,
        policy: TiePolicy,
        revision: i64,
        members: u64,
    ) -> StoredStandings {
        StoredStandings {
            pool: self.pool.clone(),
            board: board.to_string(),
            period: period.to_string(),
            sort,
            policy,
            revision,
            members,
        }
    }
}

/// A member's position and standing in a settlement revision, if it has one there: the member
/// block that would hold it (the last one starting at or before it), then its standing.
async fn place_in(
    pool: &sqlx::AnyPool,
    board: &str,
    period: &str,
    revision: i64,
    member: &MemberId,
) -> Result<Option<(u64, Standing)>, LedgerError> {
    let row = sqlx::query(
        "SELECT members FROM standing_members WHERE board = $1 AND period = $2 AND revision = $3 \
         AND first_member <= $4 ORDER BY first_member DESC LIMIT 1",
    )
    .bind(board)
    .bind(period)
    .bind(revision)
    .bind(member.as_str())
    .fetch_optional(pool)
    .await?;
    let position = match row {
        Some(row) => position_in_block(&row.try_get::<String, _>("members")?, member.as_str())?,
        None => None,
    };
    let Some(at) = position else { return Ok(None) };
    Ok(read_standings(pool, board, period, revision, at, 1).await?.pop().map(|s| (at, s)))
}

/// How many members of a settlement revision of `total` members have `min_points` or better in
/// `sort` order.
async fn count_at_least(
    pool: &sqlx::AnyPool,
    board: &str,
    period: &str,
    revision: i64,
    total: u64,
    sort: Sort,
    min_points: i64,
) -> Result<u64, LedgerError> {
    // Points never get better along positions, so neither do the blocks' last (worst) points:
    // the members with `min_points` or better end in the first block whose last points are
    // worse. Its last points are the best worse than `min_points` (the highest below them on a
    // descending board, the lowest above them on an ascending one); among blocks with equal
    // last points, the first. Two lookups of `standing_blocks_by_points`, then one block
    // unpacked.
    let (best, worse) = match sort {
        Sort::Desc => ("MAX", "<"),
        Sort::Asc => ("MIN", ">"),
    };
    let row = sqlx::query(&format!(
        "SELECT first_position, rows FROM standing_blocks WHERE board = $1 AND period = $2 AND revision = $3 \
         AND last_points = (SELECT {best}(last_points) FROM standing_blocks WHERE board = $1 AND period = $2 \
         AND revision = $3 AND last_points {worse} $4) ORDER BY first_position LIMIT 1",
    ))
    .bind(board)
    .bind(period)
    .bind(revision)
    .bind(min_points)
    .fetch_optional(pool)
    .await?;
    let Some(row) = row else {
        return Ok(total);
    };
    let first: i64 = row.try_get("first_position")?;
    let block = unpack_block(&row.try_get::<String, _>("rows")?)?;
    Ok(first as u64 + block.partition_point(|s| !sort.better(min_points, s.points)) as u64)
}

/// A settlement revision's stored standings as the standings before of a preview
/// (`domain::preview::StandingsBefore`): a few block lookups per changed member instead of
/// reading every standing. A revision never changes once written, so the reads need no snapshot.
pub struct StoredStandings {
    pool: sqlx::AnyPool,
    board: String,
    period: String,
    sort: Sort,
    policy: TiePolicy,
    revision: i64,
    members: u64,
}

impl StandingsBefore for StoredStandings {
    type Error = LedgerError;

    fn members(&self) -> u64 {
        self.members
    }

    async fn place(&mut self, member: &MemberId) -> Result<Option<(u64, Standing)>, LedgerError> {
        place_in(&self.pool, &self.board, &self.period, self.revision, member).await
    }

    async fn at_least(&mut self, points: i64) -> Result<u64, LedgerError> {
        count_at_least(&self.pool, &self.board, &self.period, self.revision, self.members, self.sort, points)
            .await
    }

    async fn ahead_of(&mut self, total: &FinalTotal) -> Result<u64, LedgerError> {
        let more = match self.sort.next_better(total.points) {
            Some(p) => self.at_least(p).await?,
            None => 0,
        };
        let end = self.at_least(total.points).await?;
        if end == more {
            return Ok(more);
        }
        // Among the members tied on its points, the tie policy decides; `first_reached` needs
        // their reach sequences, which the standings do not keep. The whole tie is read: cheap
        // for the usual few, linear for a change that lands in a tie of very many members.
        let tied = self.window(more, end - more).await?;
        let mut reach: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
        if self.policy == TiePolicy::FirstReached {
            for chunk in tied.chunks(500) {
                let list = (0..chunk.len()).map(|i| format!("${}", i + 3)).collect::<Vec<_>>().join(", ");
                let sql = format!(
                    "SELECT member, reach_seq FROM totals WHERE board = $1 AND period = $2 AND member IN ({list})"
                );
                let mut q = sqlx::query(&sql).bind(&self.board).bind(&self.period);
                for s in chunk {
                    q = q.bind(s.member.as_str());
                }
                for row in q.fetch_all(&self.pool).await? {
                    reach.insert(row.try_get("member")?, row.try_get("reach_seq")?);
                }
            }
        }
        let mut ahead = more;
        for s in tied {
            let reach_seq = match self.policy {
                TiePolicy::FirstReached => *reach
                    .get(s.member.as_str())
                    .ok_or_else(|| LedgerError::Corrupt(format!("no total of standing {}", s.member)))?,
                TiePolicy::Shared => 0,
            };
            let t = FinalTotal { member: s.member, points: s.points, reach_seq };
            if standing_order(self.sort, self.policy, &t, total).is_lt() {
                ahead += 1;
            }
        }
        Ok(ahead)
    }

    async fn window(&mut self, from: u64, count: u64) -> Result<Vec<Standing>, LedgerError> {
        read_standings(&self.pool, &self.board, &self.period, self.revision, from, count).await
    }
}

/// The latest settlement revision of a period (0 when there is none).
const LATEST: &str = "(SELECT COALESCE(MAX(revision), 0) FROM settlements WHERE board = $1 AND period = $2)";

/// `limit` standings from position `offset` of a settlement: the blocks from the last one
/// starting at or before `offset` to the last one starting before the slice's end, unpacked.
/// The blocks' own first positions and lengths say where they stand, whatever block size wrote
/// them.
pub(super) async fn read_standings<'e>(
    executor: impl sqlx::Executor<'e, Database = sqlx::Any>,
    board: &str,
    period: &str,
    revision: i64,
    offset: u64,
    limit: u64,
) -> Result<Vec<Standing>, LedgerError> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let from = offset.min(i64::MAX as u64) as i64;
    let end = offset.saturating_add(limit).min(i64::MAX as u64) as i64;
    let rows = sqlx::query(
        "SELECT first_position, rows FROM standing_blocks WHERE board = $1 AND period = $2 AND revision = $3 \
         AND first_position >= (SELECT COALESCE(MAX(first_position), 0) FROM standing_blocks \
         WHERE board = $1 AND period = $2 AND revision = $3 AND first_position <= $4) \
         AND first_position < $5 ORDER BY first_position",
    )
    .bind(board)
    .bind(period)
    .bind(revision)
    .bind(from)
    .bind(end)
    .fetch_all(executor)
    .await?;
    let corrupt = |at: i64| {
        LedgerError::Corrupt(format!("standing block at {at} of {board} {period} revision {revision}"))
    };
    let mut out = Vec::new();
    let mut next: Option<i64> = None;
    for row in &rows {
        let first: i64 = row.try_get("first_position")?;
        // Blocks follow one another without a gap, from a block holding `offset`.
        if next.is_some_and(|next| next != first) || (next.is_none() && first > from) {
            return Err(corrupt(first));
        }
        let block = unpack_block(&row.try_get::<String, _>("rows")?)?;
        next = Some(first + block.len() as i64);
        let skip = (from - first).max(0) as usize;
        let wanted = (end - from) as usize - out.len();
        out.extend(block.into_iter().skip(skip).take(wanted));
    }
    Ok(out)
}

/// The standings of one block: its JSON array of `[rank, member, points, prize]` in position order.
fn unpack_block(text: &str) -> Result<Vec<Standing>, LedgerError> {
    let items: Vec<(u64, String, i64, Option<String>)> =
        serde_json::from_str(text).map_err(|e| LedgerError::Corrupt(format!("standing block: {e}")))?;
    items
        .into_iter()
        .map(|(rank, member, points, prize)| Ok(Standing { rank, member: member_id(member)?, points, prize }))
        .collect()
}

/// The position of `member` in a block of `standing_members` (`member,position` items in member
/// byte order, separated by spaces).
fn position_in_block(block: &str, member: &str) -> Result<Option<u64>, LedgerError> {
    let corrupt = || LedgerError::Corrupt(format!("member block holding {member}"));
    for item in block.split(' ') {
        let (m, position) = item.split_once(',').ok_or_else(corrupt)?;
        if m == member {
            return Ok(Some(position.parse().map_err(|_| corrupt())?));
        }
    }
    Ok(None)
}

const SETTLEMENT_COLUMNS: &str = "revision, rule_version, watermark, digest, previous_digest, reason, preview_id, members, actor, settled_at, segments";

fn summary_from_row(row: &sqlx::any::AnyRow) -> Result<SettlementSummary, LedgerError> {
    Ok(SettlementSummary {
        revision: row.try_get("revision")?,
        rule_version: row.try_get("rule_version")?,
        watermark: row.try_get("watermark")?,
        digest: row.try_get("digest")?,
        previous_digest: row.try_get("previous_digest")?,
        reason: row.try_get("reason")?,
        preview_id: row.try_get("preview_id")?,
        members: row.try_get::<i64, _>("members")? as u64,
        actor: row.try_get("actor")?,
        settled_at: instant(row.try_get("settled_at")?)?,
        segments: match row.try_get::<Option<String>, _>("segments")? {
            Some(text) => serde_json::from_str(&text)
                .map_err(|e| LedgerError::Corrupt(format!("a settlement's segments: {e}")))?,
            None => Vec::new(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::position_in_block;

    #[test]
    fn a_member_block_answers_the_position_of_its_members_only() {
        let block = "A,7 a,0 a.b,3 u1,12";
        assert_eq!(position_in_block(block, "a.b").unwrap(), Some(3));
        assert_eq!(position_in_block(block, "A").unwrap(), Some(7));
        assert_eq!(position_in_block(block, "a.").unwrap(), None);
        assert!(position_in_block("u1", "u1").is_err());
    }
}
