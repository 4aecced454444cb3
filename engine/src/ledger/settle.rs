//! Writing a settlement in the ledger: a frozen period's standings from its final totals, their
//! digest, one reward row per prized member and the state `settled`, in one transaction. The
//! standings are written in blocks, as an import of a settled period writes them too.
//!
//! The transaction locks the period row, refuses while a late write is pending (`late_pending`:
//! review them first), reads the final totals (hidden members left out: they have no standing, no
//! rank and no prize, and the digest covers the visible members only; the audit row counts them
//! as `hidden_members`), orders them with `domain::settlement::standings` — order, ranks and
//! prizes are computed in Rust only, never in SQL — and writes the settlement (revision 1,
//! `RULE_VERSION`, watermark = the period's highest entry id, SHA-256 of `canonical_text`, actor,
//! time, the receipts' Merkle root and chain link: `receipts.rs`), the standings, each member's position in `standing_members`, one `rewards` row per
//! prized member (status `pending`, the outbox of `crate::rewards`), the state `settled` and the
//! audit row. Settling again answers the stored settlement. The step times are logged
//! (`settlement written`). Failpoints `settle.after_standings` and `settle.before_commit` are
//! inside the transaction (a crash there leaves nothing); `settle.after_commit` is the engine's.
//!
//! A million members move in bulk (docs/BENCHMARKS.md, settle): the totals are read in pages of
//! 50 000 members, each packed by the server into one text; the member count is one `COUNT` in
//! the same transaction, before the reads (the progress total). Standings are stored in blocks,
//! not a row per member (migration 0009): a row of `standing_blocks` holds up to
//! `STANDING_BLOCK` (1 000) consecutive standings in position order as one JSON text of
//! `[rank, member, points, prize]` items, keyed by its first position and carrying its last
//! (worst: lowest, or highest on an ascending board) points, written `BLOCKS_PER_INSERT` (100) blocks per statement; the member directory
//! `standing_members` holds blocks of `MEMBER_BLOCK` (1 000) `member,position` items in member
//! byte order, keyed by the block's first member. A million members are a thousand rows in each.
//! Reading them back is `standings.rs`.

use super::audit::{AuditRecord, record as audit};
use super::lifecycle::{lock_period_state, set_state};
use super::rewards::reward_key;
use super::segments::period_rosters;
use super::sql::{INSERT_CHUNK, json_text, member_id, multi_row_insert, settle_batch};
use super::standings::SETTLEMENT_PAGE;
use super::{Backend, Ledger, LedgerError, Tx, micros};
use crate::progress::Progress;
use domain::ErrorCode;
use domain::board::{Prize, SegmentPrizes};
use domain::lifecycle::{State, Step, Transition, step};
use domain::receipt::{self, Tree};
use domain::settlement::{
    FinalTotal, RULE_VERSION, SegmentSettled, SegmentStandings, Standing, roster_standings, standings,
};
use domain::view::{RewardKind, Settlement};
use domain::{Board, BoardSlug, PeriodKey};
use serde_json::json;
use sqlx::Row;

/// The digest of `standings` alone: SHA-256 (hex) of their canonical text. A settlement with
/// segment rankings records [`Outcome::digest`], which folds this one in.
pub fn digest(board: &str, period: &str, standings: &[Standing]) -> String {
    receipt::digest(board, period, standings)
}

/// What a settlement revision records: the board's standings, every segment ranking of the
/// period's value rosters (`domain::settlement::roster_standings`), each with its member count and
/// digest, and the revision's digest folding them in (`receipt::settlement_digest`).
pub(super) struct Outcome {
    pub standings: Vec<Standing>,
    pub segments: Vec<SegmentStandings>,
    pub settled: Vec<SegmentSettled>,
    pub digest: String,
}

impl Outcome {
    /// Orders, ranks and awards `totals` with the board's table `prizes` and each dimension's
    /// table in `segment_prizes` — the tables of the revision's first settlement, which later
    /// revisions keep.
    pub(super) async fn of(
        tx: &mut Tx,
        backend: Backend,
        board: &Board,
        key: &str,
        totals: Vec<FinalTotal>,
        (prizes, segment_prizes): (&[Prize], &SegmentPrizes),
    ) -> Result<Self, LedgerError> {
        let slug = board.slug.as_str();
        let standings = standings(board.sort(), board.tie_policy(), totals, prizes);
        let rosters = match board.segments.is_empty() {
            true => Vec::new(),
            false => period_rosters(tx, backend, slug, key).await?,
        };
        let rosters = rosters.iter().map(|(d, v, members)| (d.as_str(), v.as_str(), members.split(' ')));
        let segments = roster_standings(board.tie_policy(), &standings, rosters, segment_prizes);
        let settled = receipt::segments_settled(slug, key, &segments);
        let digest = receipt::settlement_digest(slug, key, &standings, &settled);
        Ok(Self { standings, segments, settled, digest })
    }

    /// Every prized standing with the ranking that awarded it (None: the board's own).
    pub(super) fn prized(&self) -> Vec<(Option<String>, &Standing)> {
        let prized = |s: &&Standing| s.prize.is_some();
        let board = self.standings.iter().filter(prized).map(|s| (None, s));
        let segments = self
            .segments
            .iter()
            .flat_map(|r| r.standings.iter().filter(prized).map(|s| (Some(r.segment.to_string()), s)));
        board.chain(segments).collect()
    }

    /// On a season: folds its weeks' latest settlements into the digest, so a season is checked
    /// from its weeks' published digests (nothing on another board).
    pub(super) async fn name_weeks(
        &mut self,
        tx: &mut Tx,
        board: &Board,
        key: &str,
    ) -> Result<(), LedgerError> {
        if let Some(season) = &board.season {
            let weeks = super::seasons::season_weeks(tx, season).await?;
            let (slug, source) = (board.slug.as_str(), season.source.as_str());
            self.digest = receipt::season_digest(slug, key, &self.digest, source, &weeks);
        }
        Ok(())
    }

    /// The segment records as the `settlements.segments` column holds them (NULL: none).
    pub(super) fn segments_text(&self) -> Result<Option<String>, LedgerError> {
        (!self.settled.is_empty()).then(|| json_text(&self.settled)).transpose()
    }
}

/// A test-only crash hook called between the steps of a settlement (see `engine::failpoints`).
pub type Failpoint = std::sync::Arc<dyn Fn(&'static str) -> Result<(), LedgerError> + Send + Sync>;

impl Ledger {
    /// Settles a frozen period in one transaction: standings from the ledger's totals (hidden
    /// members left out), their digest, one reward row per prized member, the state `settled` and
    /// the audit row. A period already settled answers its settlement unchanged.
    pub async fn settle(
        &self,
        board: &Board,
        period: PeriodKey,
        actor: &str,
        now: jiff::Timestamp,
        failpoint: Failpoint,
    ) -> Result<(Settlement, bool), LedgerError> {
        self.settle_with_progress(board, period, actor, now, failpoint, &Progress::new()).await
    }

    /// [`Ledger::settle`], reporting its phases to `progress`: reading totals, writing standings,
    /// writing the member directory (members, counted in the transaction before the reads), and
    /// writing rewards (prized members).
    pub async fn settle_with_progress(
        &self,
        board: &Board,
        period: PeriodKey,
        actor: &str,
        now: jiff::Timestamp,
        failpoint: Failpoint,
        progress: &Progress,
    ) -> Result<(Settlement, bool), LedgerError> {
        let slug = board.slug.clone();
        let (ledger, board, actor) = (self.clone(), board.clone(), actor.to_owned());
        let progress = progress.clone();
        let settled = super::detached(async move {
            let mut w = ledger.begin_write().await?;
            let (slug, key) = (board.slug.as_str(), period.to_string());
            let state = lock_period_state(&mut w.tx, ledger.backend, slug, &key).await?;
            match step(state, Transition::Settle)
                .map_err(|e| LedgerError::refused(ErrorCode::InvalidTransition, e.to_string()))?
            {
                Step::Already => return Ok(false),
                Step::Move(_) => {}
            }
            super::late::refuse_pending(&mut w.tx, slug, &key).await?;
            // Step times go to the log (docs/BENCHMARKS.md reads them for a million members).
            let clock = std::time::Instant::now();
            // Hidden members keep their entries and totals but have no standing and no prize.
            // The members to read are counted first, in this transaction, so the reads report how
            // many of how many.
            let counts = sqlx::query(
                "SELECT CAST(COALESCE(SUM(CASE WHEN hidden = 0 THEN 1 ELSE 0 END), 0) AS BIGINT) AS ranked, \
                 CAST(COALESCE(SUM(CASE WHEN hidden <> 0 THEN 1 ELSE 0 END), 0) AS BIGINT) AS hidden \
                 FROM totals WHERE board = $1 AND period = $2 AND version > 0",
            )
            .bind(slug)
            .bind(&key)
            .fetch_one(&mut *w.tx)
            .await?;
            let hidden: i64 = counts.try_get("hidden")?;
            progress.phase("reading totals", "members", counts.try_get::<i64, _>("ranked")? as u64);
            let totals =
                final_totals_with_progress(&mut w.tx, ledger.backend, slug, &key, Some(&progress)).await?;
            let read = clock.elapsed();
            let tables = (&board.prizes[..], &board.segment_prizes);
            let mut outcome = Outcome::of(&mut w.tx, ledger.backend, &board, &key, totals, tables).await?;
            outcome.name_weeks(&mut w.tx, &board, &key).await?;
            let (standings, digest) = (&outcome.standings, &outcome.digest);
            let ordered = clock.elapsed();
            let revision = 1_i64;
            let watermark = insert_first_revision(&mut w.tx, &board, &key, &outcome, &actor, now).await?;
            insert_standings_with_progress(
                &mut w.tx,
                ledger.backend,
                &board.slug,
                &period,
                revision,
                standings,
                Some(&progress),
            )
            .await?;
            let written = clock.elapsed();
            failpoint("settle.after_standings")?;
            insert_rewards(
                &mut w.tx,
                ledger.backend,
                (slug, &key, revision),
                &outcome.prized(),
                now,
                &progress,
            )
            .await?;
            set_state(&mut w.tx, slug, &key, State::Settled, now).await?;
            let record = AuditRecord {
                actor: &actor,
                action: "settle",
                board: Some(slug),
                period: Some(&key),
                before: Some(json!({ "state": state })),
                after: Some(json!({
                    "state": State::Settled, "digest": digest, "watermark": watermark,
                    "members": standings.len(), "hidden_members": hidden, "rule_version": RULE_VERSION,
                    "segment_rankings": outcome.settled.len(),
                })),
                ..Default::default()
            };
            audit(&mut w.tx, &record, now).await?;
            failpoint("settle.before_commit")?;
            let before_commit = clock.elapsed();
            w.tx.commit().await?;
            let ms = |d: std::time::Duration| d.as_millis() as u64;
            tracing::info!(
                board = slug, period = %key, members = standings.len(),
                read_totals_ms = ms(read), standings_and_digest_ms = ms(ordered - read),
                write_standings_ms = ms(written - ordered), rest_ms = ms(before_commit - written),
                commit_ms = ms(clock.elapsed() - before_commit),
                "settlement written"
            );
            Ok(true)
        })
        .await?;
        let settlement = self.settlement(&slug, &period, 0, SETTLEMENT_PAGE).await?.ok_or_else(|| {
            LedgerError::Corrupt(format!("{slug} {period} is settled without a settlement"))
        })?;
        Ok((settlement, settled))
    }
}

/// Writes a period's first settlement revision: its digest, prize tables, the receipts' root
/// and the first link of the revisions' chain (migration 0023). Answers its watermark, the
/// period's last entry.
async fn insert_first_revision(
    tx: &mut Tx,
    board: &Board,
    key: &str,
    outcome: &Outcome,
    actor: &str,
    now: jiff::Timestamp,
) -> Result<i64, LedgerError> {
    let (slug, revision, standings) = (board.slug.as_str(), 1_i64, &outcome.standings);
    let watermark: i64 = sqlx::query(
        "SELECT CAST(COALESCE(MAX(id), 0) AS BIGINT) AS w FROM entries WHERE board = $1 AND period = $2",
    )
    .bind(slug)
    .bind(key)
    .fetch_one(&mut **tx)
    .await?
    .try_get("w")?;
    let root = Tree::of_standings(standings).root();
    let link = receipt::link(slug, key, revision, None, &outcome.digest, &root);
    sqlx::query(
        "INSERT INTO settlements (board, period, revision, rule_version, watermark, digest, members, actor, \
         settled_at, prizes, merkle_root, link, segment_prizes, segments) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
    )
    .bind(slug)
    .bind(key)
    .bind(revision)
    .bind(RULE_VERSION)
    .bind(watermark)
    .bind(&outcome.digest)
    .bind(standings.len() as i64)
    .bind(actor)
    .bind(micros(now))
    .bind(json_text(&board.prizes)?)
    .bind(&root)
    .bind(&link)
    .bind(json_text(&board.segment_prizes)?)
    .bind(outcome.segments_text()?)
    .execute(&mut **tx)
    .await?;
    Ok(watermark)
}

/// Writes a settlement's standings: blocks of up to STANDING_BLOCK consecutive standings in
/// position order (`standing_blocks`, migration 0009), then the member directory
/// `standing_members`: each member's position, in blocks of members in byte order. A block is
/// one JSON text, and a statement writes BLOCKS_PER_INSERT blocks: a million-member settlement
/// writes a thousand rows in ten statements, where a row per standing cost PostgreSQL 20 s and
/// more (docs/BENCHMARKS.md, settle).
pub(super) async fn insert_standings(
    tx: &mut Tx,
    backend: Backend,
    board: &BoardSlug,
    period: &PeriodKey,
    revision: i64,
    standings: &[Standing],
) -> Result<(), LedgerError> {
    insert_standings_with_progress(tx, backend, board, period, revision, standings, None).await
}

/// [`insert_standings`], reporting two phases to `progress`: writing standings and writing the
/// member directory, each counted in members and advanced per statement.
pub(super) async fn insert_standings_with_progress(
    tx: &mut Tx,
    backend: Backend,
    board: &BoardSlug,
    period: &PeriodKey,
    revision: i64,
    standings: &[Standing],
    progress: Option<&Progress>,
) -> Result<(), LedgerError> {
    let (slug, key) = (board.as_str(), period.to_string());
    let phase = |name: &'static str| progress.inspect(|p| p.phase(name, "members", standings.len() as u64));
    let advance = |members: usize| progress.inspect(|p| p.advance(members as u64));
    phase("writing standings");
    use std::fmt::Write as _;
    let batch = settle_batch();
    // (Smaller blocks, and fewer per statement, when a test makes statements smaller, so that
    // its reads cross blocks and its writes cross statements.)
    let block = STANDING_BLOCK.min(batch);
    let per_insert = BLOCKS_PER_INSERT.min(batch);
    for (chunk_no, chunk) in standings.chunks(block * per_insert).enumerate() {
        let blocks = chunk
            .chunks(block)
            .enumerate()
            .map(|(i, rows)| {
                let first = chunk_no * block * per_insert + i * block;
                let items: Vec<(u64, &str, i64, Option<&str>)> =
                    rows.iter().map(|s| (s.rank, s.member.as_str(), s.points, s.prize.as_deref())).collect();
                let last_points = rows.last().map_or(0, |s| s.points);
                Ok((first as i64, rows.len() as i64, last_points, json_text(&items)?))
            })
            .collect::<Result<Vec<_>, LedgerError>>()?;
        let sql = multi_row_insert(
            backend,
            "INSERT INTO standing_blocks (board, period, revision, first_position, members, last_points, rows) VALUES ",
            7,
            blocks.len(),
        );
        let mut query = sqlx::query(&sql);
        for (first, members, last_points, text) in &blocks {
            query = query
                .bind(slug)
                .bind(&key)
                .bind(revision)
                .bind(*first)
                .bind(*members)
                .bind(*last_points)
                .bind(text.as_str());
        }
        query.execute(&mut **tx).await?;
        advance(chunk.len());
    }

    // The member directory: blocks of MEMBER_BLOCK members in byte order (`str` orders by bytes,
    // as SQLite's BINARY collation and PostgreSQL's "C", the collation of `first_member` there).
    let mut by_member: Vec<(&str, usize)> =
        standings.iter().enumerate().map(|(position, s)| (s.member.as_str(), position)).collect();
    by_member.sort_unstable_by(|a, b| a.0.cmp(b.0));
    // (Smaller blocks when a test makes statements smaller, so that its lookups cross blocks.)
    let blocks: Vec<(&str, String)> = by_member
        .chunks(MEMBER_BLOCK.min(batch))
        .map(|block| {
            let mut text = String::with_capacity(block.len() * 20);
            for (i, (member, position)) in block.iter().enumerate() {
                let _ = write!(text, "{}{member},{position}", if i == 0 { "" } else { " " });
            }
            (block[0].0, text)
        })
        .collect();
    phase("writing the member directory");
    let directory_block = MEMBER_BLOCK.min(batch);
    for (i, chunk) in blocks.chunks(INSERT_CHUNK).enumerate() {
        let sql = multi_row_insert(
            backend,
            "INSERT INTO standing_members (board, period, revision, first_member, members) VALUES ",
            5,
            chunk.len(),
        );
        let mut query = sqlx::query(&sql);
        for (first, text) in chunk {
            query = query.bind(slug).bind(&key).bind(revision).bind(*first).bind(text.as_str());
        }
        query.execute(&mut **tx).await?;
        // Members written so far: every block is full but the last.
        let before = i * INSERT_CHUNK * directory_block;
        let through = (before + chunk.len() * directory_block).min(by_member.len());
        advance(through - before);
    }
    Ok(())
}

/// Members per row of `standing_members`: a million-member settlement writes a thousand rows
/// there, and a lookup reads one row of about 16 KiB.
const MEMBER_BLOCK: usize = 1000;

/// Standings per row of `standing_blocks`: a page of SETTLEMENT_PAGE standings reads one or two
/// rows of a few tens of KiB.
const STANDING_BLOCK: usize = 1000;

/// Rows of `standing_blocks` per INSERT: a few MiB of text per statement.
const BLOCKS_PER_INSERT: usize = 100;

/// The final totals of a period: every member with at least one applied write who is not hidden
/// (a hidden member has no standing; its total and entries stay in the ledger). Read in pages by
/// member, each page packed by the server into one text of `member,points,reach_seq` items
/// separated by spaces (member ids hold neither), because fetching a million rows one by one
/// through sqlx's `Any` driver cost several seconds (docs/BENCHMARKS.md, settle).
pub(super) async fn final_totals(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
) -> Result<Vec<FinalTotal>, LedgerError> {
    final_totals_with_progress(tx, backend, board, period, None).await
}

/// [`final_totals`], advancing `progress` by each page's members.
async fn final_totals_with_progress(
    tx: &mut Tx,
    backend: Backend,
    board: &str,
    period: &str,
    progress: Option<&Progress>,
) -> Result<Vec<FinalTotal>, LedgerError> {
    let concat = match backend {
        Backend::Sqlite => "group_concat",
        Backend::Postgres => "string_agg",
    };
    // MAX(member) is the page's last member in the order of the key the page was read by.
    let sql = format!(
        "SELECT {concat}(member || ',' || points || ',' || reach_seq, ' ') AS page, MAX(member) AS last, \
         COUNT(*) AS n FROM (SELECT member, points, reach_seq FROM totals WHERE board = $1 AND period = $2 \
         AND member > $3 AND version > 0 AND hidden = 0 ORDER BY member LIMIT $4) AS t"
    );
    let page_size = settle_batch() as i64;
    super::in_key_order(tx, backend).await?;
    let totals = read_total_pages(tx, &sql, board, period, page_size, progress).await;
    if backend == Backend::Postgres {
        // The rest of the settlement plans as usual.
        sqlx::query("SET LOCAL enable_sort = on").execute(&mut **tx).await?;
    }
    totals
}

async fn read_total_pages(
    tx: &mut Tx,
    sql: &str,
    board: &str,
    period: &str,
    page_size: i64,
    progress: Option<&Progress>,
) -> Result<Vec<FinalTotal>, LedgerError> {
    let mut totals = Vec::new();
    let mut after = String::new();
    loop {
        let row = sqlx::query(sql)
            .bind(board)
            .bind(period)
            .bind(&after)
            .bind(page_size)
            .fetch_one(&mut **tx)
            .await?;
        let n: i64 = row.try_get("n")?;
        if n == 0 {
            break;
        }
        let page: String = row.try_get("page")?;
        for item in page.split(' ') {
            let corrupt = || LedgerError::Corrupt(format!("total {item:?} of {board} {period}"));
            let mut parts = item.split(',');
            let (Some(member), Some(points), Some(reach_seq), None) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return Err(corrupt());
            };
            totals.push(FinalTotal {
                member: member_id(member.to_owned())?,
                points: points.parse().map_err(|_| corrupt())?,
                reach_seq: reach_seq.parse().map_err(|_| corrupt())?,
            });
        }
        if let Some(p) = progress {
            p.advance(n as u64);
        }
        if n < page_size {
            break;
        }
        after = row.try_get("last")?;
    }
    Ok(totals)
}

/// One outbox row per prized standing of each ranking, keyed for the receiver by
/// `rewards::reward_key`.
async fn insert_rewards(
    tx: &mut Tx,
    backend: Backend,
    (board, period, revision): (&str, &str, i64),
    prized: &[(Option<String>, &Standing)],
    now: jiff::Timestamp,
    progress: &Progress,
) -> Result<(), LedgerError> {
    progress.phase("writing rewards", "rewards", prized.len() as u64);
    for chunk in prized.chunks(INSERT_CHUNK) {
        let sql = multi_row_insert(
            backend,
            "INSERT INTO rewards (board, period, revision, member, rank, prize, idempotency_key, next_attempt_at, \
             ranking) VALUES ",
            9,
            chunk.len(),
        );
        let mut query = sqlx::query(&sql);
        for (ranking, s) in chunk {
            let key =
                reward_key(board, period, revision, s.member.as_str(), RewardKind::Grant, ranking.as_deref());
            query = query
                .bind(board)
                .bind(period)
                .bind(revision)
                .bind(s.member.as_str())
                .bind(s.rank as i64)
                .bind(s.prize.as_deref())
                .bind(key)
                .bind(micros(now))
                .bind(ranking.as_deref().unwrap_or(""));
        }
        query.execute(&mut **tx).await?;
        progress.advance(chunk.len() as u64);
    }
    Ok(())
}

/// The latest settlement revision of a period, as a re-settlement (and its preview) builds on it.
pub(super) struct LastRevision {
    pub revision: i64,
    pub digest: String,
    /// The prize table it was computed with, which a re-settlement keeps: `board`'s own table for
    /// a settlement written before migration 0013, which did not record it.
    pub prizes: Vec<domain::board::Prize>,
    /// How many members its standings rank.
    pub members: u64,
    /// The segment prize tables it awarded, which a re-settlement keeps (none before 0025).
    pub segment_prizes: SegmentPrizes,
}

/// The latest settlement revision of a period; None when it was never settled.
pub(super) async fn last_revision(
    tx: &mut Tx,
    board: &domain::Board,
    period: &str,
) -> Result<Option<LastRevision>, LedgerError> {
    let row = sqlx::query(
        "SELECT revision, digest, prizes, members, segment_prizes FROM settlements WHERE board = $1 AND period = $2 \
         ORDER BY revision DESC LIMIT 1",
    )
    .bind(board.slug.as_str())
    .bind(period)
    .fetch_optional(&mut **tx)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let prizes = match row.try_get::<Option<String>, _>("prizes")? {
        Some(text) => serde_json::from_str(&text)
            .map_err(|e| LedgerError::Corrupt(format!("the prize table of {} {period}: {e}", board.slug)))?,
        None => board.prizes.clone(),
    };
    let segment_prizes = match row.try_get::<Option<String>, _>("segment_prizes")? {
        Some(text) => serde_json::from_str(&text).map_err(|e| {
            LedgerError::Corrupt(format!("the segment prize tables of {} {period}: {e}", board.slug))
        })?,
        None => SegmentPrizes::new(),
    };
    Ok(Some(LastRevision {
        revision: row.try_get("revision")?,
        digest: row.try_get("digest")?,
        prizes,
        members: row.try_get::<i64, _>("members")? as u64,
        segment_prizes,
    }))
}
