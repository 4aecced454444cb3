//! A board's definition: the choices fixed when it is created (their words live in `kinds` and are
//! re-exported here), the draft an admin types, the settings that may change later and the prize
//! table. Operator and tie policy never change afterwards: changing them would change what every
//! stored score means.
//!
//! - `BoardDraft::parse` is the one parser behind `POST /api/v1/boards` and the console's form; a
//!   refusal names its field (the 2^53 budget, the zone, overlapping prizes, an unknown `sort` or
//!   `unit`). `sort` (`desc`, `asc`: lower is better) lives in the codec, since it decides what
//!   a stored score means; `unit` (`points`, `ms`) only changes how values are shown.
//! - `BoardSettings` is what may change later — title, freeze grace, scheduled public freeze,
//!   prizes — through `Engine::edit_board`, audited `board_edit`.
//! - `Board::closes_at` is the one instant a period closes (its end + the board's grace): the
//!   write path, the scheduler and the console's attention list all read it.

mod season_draft;

pub use season_draft::{CarryOverDraft, SeasonDraft};

use serde::{Deserialize, Serialize};

pub use crate::kinds::{Cadence, Operator, Sort, TiePolicy, Unit};
use crate::period::PeriodKey;
use crate::season::Season;

/// The cadence word of hot boards (sliding windows, Redis only; see [`crate::hot`]). Not a
/// [`Cadence`]: a hot board has no periods, no ledger entries and no lifecycle.
pub const HOT_CADENCE: &str = "hot";

/// A board's definition, as stored in the ledger and checked at creation.
#[derive(Debug, Clone, PartialEq)]
pub struct Board {
    pub slug: crate::ids::BoardSlug,
    pub title: String,
    pub cadence: Cadence,
    /// The IANA zone periods are computed in; resolved by the engine, which owns the database.
    pub zone: jiff::tz::TimeZone,
    pub operator: Operator,
    /// Carries the tie policy and the score bounds; its existence proves they are exact.
    pub codec: crate::score::ScoreCodec,
    /// How long after a period's end writes are still accepted (clock skew, queues).
    pub freeze_grace_seconds: i64,
    /// Contest mode: the last this many seconds of each period are publicly frozen by the
    /// scheduler (the public sees the standings of that moment until a reveal); 0: never.
    pub public_freeze_seconds: i64,
    /// Checked by [`check_prizes`]: no overlaps.
    pub prizes: Vec<Prize>,
    /// What the points stand for, for display (`crate::format::points`). The order (`Sort`) is
    /// the codec's, since it decides what every stored score means.
    pub unit: Unit,
    /// A bounded board: the live projection keeps only the best this many members (the ledger
    /// keeps everyone; members below are read from it). None: unbounded. Fixed at creation.
    pub keep_top: Option<u64>,
    /// How many days a settled period's Redis keys live after its settlement; reads then come
    /// from its standings.
    pub ranking_ttl_days: i64,
    /// The segment dimensions a write may name (`crate::segment`); each value ranks its members
    /// on a ranking of its own. Empty: none. Fixed at creation; never on bounded boards.
    pub segments: Vec<String>,
    /// Each dimension's prize table (`province` → ranks 1–3 of every province's ranking), checked
    /// by [`check_segment_prizes`]. A settlement awards them beside the board's own.
    pub segment_prizes: SegmentPrizes,
    /// A season board's definition (`cadence: season`): its standings are made of another
    /// board's periods (`crate::season`); nothing is written to it directly. None otherwise.
    pub season: Option<Season>,
}

/// Prize tables by segment dimension: every value's ranking of a dimension shares its table.
pub type SegmentPrizes = std::collections::BTreeMap<String, Vec<Prize>>;

impl Board {
    pub fn tie_policy(&self) -> TiePolicy {
        self.codec.policy()
    }

    /// Which end of the points ranks first (fixed at creation, carried by the codec).
    pub fn sort(&self) -> Sort {
        self.codec.sort()
    }

    /// The zone's IANA name (`Asia/Shanghai`).
    pub fn time_zone(&self) -> &str {
        self.zone.iana_name().unwrap_or("UTC")
    }

    /// The period that contains `at`, an instant of the server's own clock (always within the
    /// supported years). Instants from clients go through [`Board::period_of`].
    pub fn period_at(&self, at: jiff::Timestamp) -> crate::period::PeriodKey {
        self.period_of(at).expect("the server's clock is within the supported years")
    }

    /// The instant after which writes for `period` are late and the scheduler freezes it: its end
    /// plus the board's grace. The write path, the scheduler and the console's attention list
    /// all close a period here.
    pub fn closes_at(&self, period: crate::period::PeriodKey) -> jiff::Timestamp {
        period
            .span(&self.zone)
            .end
            .checked_add(jiff::SignedDuration::from_secs(self.freeze_grace_seconds))
            .unwrap_or(jiff::Timestamp::MAX)
    }

    /// The period a caller named (`2026-W34`), or why this board has no such period: of another
    /// cadence, not in the calendar, or — on a season — not the season's one period.
    pub fn period_named(&self, text: &str) -> Result<PeriodKey, crate::period::PeriodError> {
        let key = PeriodKey::parse_for(self.cadence, text)?;
        match &self.season {
            Some(season) if season.key() != key => Err(crate::period::PeriodError::NotTheSeason {
                key: text.to_owned(),
                season: season.key().to_string(),
            }),
            _ => Ok(key),
        }
    }

    /// Whether this board has `period` (its cadence's, and on a season its one period).
    pub fn has_period(&self, period: PeriodKey) -> bool {
        period.cadence() == self.cadence && self.season.as_ref().is_none_or(|s| s.key() == period)
    }

    /// The period that contains `at`, or why no period of this board can hold it.
    pub fn period_of(
        &self,
        at: jiff::Timestamp,
    ) -> Result<crate::period::PeriodKey, crate::period::PeriodError> {
        match &self.season {
            // A season has one period, whatever the instant.
            Some(season) => Ok(season.key()),
            None => crate::period::PeriodKey::containing(self.cadence, at, &self.zone),
        }
    }
}

/// Default B for first_reached boards: a million reach sequences per period.
pub const DEFAULT_TIE_BASE: i64 = 1_000_000;
pub const DEFAULT_GRACE_SECONDS: i64 = 300;
pub const MAX_GRACE_SECONDS: i64 = 7 * 24 * 3600;
/// The longest scheduled public freeze: a month's last week.
pub const MAX_PUBLIC_FREEZE_SECONDS: i64 = 7 * 24 * 3600;
/// The most members a bounded board's live projection may keep: beyond this, keep the board
/// unbounded.
pub const MAX_KEEP_TOP: i64 = 1_000_000;
/// How long a settled period's Redis keys live by default.
pub const DEFAULT_RANKING_TTL_DAYS: i64 = 7;
/// The longest a settled period's Redis keys may live.
pub const MAX_RANKING_TTL_DAYS: i64 = 366;

/// A board as an admin typed it (the REST body or the console form), before any check. The one
/// place a board definition is parsed, so both ways of creating one refuse the same things with
/// the same words.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardDraft {
    pub slug: String,
    pub title: String,
    pub cadence: String,
    pub time_zone: String,
    pub operator: String,
    pub tie_policy: String,
    pub max_points: i64,
    pub min_points: Option<i64>,
    pub tie_base: Option<i64>,
    pub freeze_grace_seconds: Option<i64>,
    #[serde(default)]
    pub public_freeze_seconds: Option<i64>,
    pub prizes: Vec<Prize>,
    /// `desc` (blank: the default) or `asc`.
    #[serde(default)]
    pub sort: Option<String>,
    /// `points` (blank: the default) or `ms`.
    #[serde(default)]
    pub unit: Option<String>,
    /// Blank: unbounded.
    #[serde(default)]
    pub keep_top: Option<i64>,
    /// Blank: [`DEFAULT_RANKING_TTL_DAYS`].
    #[serde(default)]
    pub ranking_ttl_days: Option<i64>,
    /// Segment dimensions (`["province", "class"]`); blank: none.
    #[serde(default)]
    pub segments: Option<Vec<String>>,
    /// Prize tables by declared dimension (`{"province": [...]}`); blank: none.
    #[serde(default)]
    pub segment_prizes: Option<SegmentPrizes>,
}

/// Why a draft is not a board: the field to fix and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct DraftError {
    /// The draft's field name (`max_points`, `prizes`, …); the console shows the message there.
    pub field: String,
    pub message: String,
}

fn refuse(field: &str, message: impl Into<String>) -> DraftError {
    DraftError { field: field.into(), message: message.into() }
}

impl BoardDraft {
    /// Checks every field and builds the board. The score bounds must be exact: with the tie base
    /// they must keep every encoded score within 2^53 (`ScoreCodec::new`).
    pub fn parse(self) -> Result<Board, DraftError> {
        let slug = crate::ids::BoardSlug::parse(self.slug).map_err(|e| refuse("slug", e.to_string()))?;
        let settings = BoardSettings::check(
            &self.title,
            self.freeze_grace_seconds,
            self.public_freeze_seconds,
            self.prizes,
            self.ranking_ttl_days,
        )?;
        let keep_top = match self.keep_top {
            None => None,
            Some(k) if (1..=MAX_KEEP_TOP).contains(&k) => Some(k as u64),
            Some(_) => {
                return Err(refuse(
                    "keep_top",
                    format!("keep_top must be 1-{MAX_KEEP_TOP}, or left out for an unbounded board"),
                ));
            }
        };
        let segments = self.segments.unwrap_or_default();
        crate::segment::check_dimensions(&segments).map_err(|e| refuse("segments", e))?;
        if keep_top.is_some() && !segments.is_empty() {
            // A bounded ranking holds only its best K, so a segment's could not be told from it.
            return Err(refuse("segments", "a bounded board (keep_top) cannot declare segments"));
        }
        let segment_prizes = self.segment_prizes.unwrap_or_default();
        check_segment_prizes(&segments, &segment_prizes).map_err(|e| refuse("segment_prizes", e))?;
        let cadence: Cadence = self.cadence.parse().map_err(|e| refuse("cadence", e))?;
        if cadence == Cadence::Season {
            return Err(refuse(
                "cadence",
                "a season board is made with source, periods and rule (SeasonDraft)",
            ));
        }
        let operator: Operator = self.operator.parse().map_err(|e| refuse("operator", e))?;
        let policy: TiePolicy = self.tie_policy.parse().map_err(|e| refuse("tie_policy", e))?;
        let sort: Sort = word_or(self.sort.as_deref(), Sort::Desc).map_err(|e| refuse("sort", e))?;
        let unit: Unit = word_or(self.unit.as_deref(), Unit::Points).map_err(|e| refuse("unit", e))?;
        let zone = jiff::tz::TimeZone::get(self.time_zone.trim()).map_err(|_| {
            refuse("time_zone", format!("unknown time zone {:?}; use an IANA name", self.time_zone))
        })?;
        let tie_base = match policy {
            TiePolicy::Shared => self.tie_base.unwrap_or(1),
            TiePolicy::FirstReached => self.tie_base.unwrap_or(DEFAULT_TIE_BASE),
        };
        let codec =
            crate::score::ScoreCodec::new(policy, self.min_points.unwrap_or(0), self.max_points, tie_base)
                .map_err(|e| refuse("max_points", e.to_string()))?
                .sorted(sort);
        let BoardSettings {
            title,
            freeze_grace_seconds,
            public_freeze_seconds,
            prizes,
            ranking_ttl_days,
            ..
        } = settings;
        Ok(Board {
            slug,
            title,
            cadence,
            zone,
            operator,
            codec,
            freeze_grace_seconds,
            public_freeze_seconds,
            prizes,
            unit,
            keep_top,
            ranking_ttl_days,
            segments,
            segment_prizes,
            season: None,
        })
    }
}

/// A word typed in a draft, or `default` when it was left out or blank.
fn word_or<T: std::str::FromStr<Err = String>>(typed: Option<&str>, default: T) -> Result<T, String> {
    match typed.map(str::trim) {
        None | Some("") => Ok(default),
        Some(word) => word.parse(),
    }
}

/// What an admin may change on an existing board: its title, its freeze grace, its scheduled
/// public freeze, its prize table and how long settled periods' Redis keys live.
/// Everything else (cadence, zone, operator, tie policy, bounds) decides what stored totals and
/// periods mean, so it is fixed at creation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardSettings {
    pub title: String,
    pub freeze_grace_seconds: i64,
    #[serde(default)]
    pub public_freeze_seconds: i64,
    pub prizes: Vec<Prize>,
    #[serde(default = "default_ranking_ttl_days")]
    pub ranking_ttl_days: i64,
    /// The segment dimensions' prize tables ([`check_segment_prizes`]); None: as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment_prizes: Option<SegmentPrizes>,
}

fn default_ranking_ttl_days() -> i64 {
    DEFAULT_RANKING_TTL_DAYS
}

impl BoardSettings {
    /// Checks the settings as typed (a blank grace or TTL is the default, a blank public freeze
    /// none); a refusal names its field.
    pub fn check(
        title: &str,
        freeze_grace_seconds: Option<i64>,
        public_freeze_seconds: Option<i64>,
        prizes: Vec<Prize>,
        ranking_ttl_days: Option<i64>,
    ) -> Result<Self, DraftError> {
        // Counted as typed (the OpenAPI document's maxLength), then trimmed.
        if title.trim().is_empty() || title.chars().count() > 200 {
            return Err(refuse("title", "title must be 1-200 characters"));
        }
        let title = title.trim().to_owned();
        let freeze_grace_seconds = freeze_grace_seconds.unwrap_or(DEFAULT_GRACE_SECONDS);
        if !(0..=MAX_GRACE_SECONDS).contains(&freeze_grace_seconds) {
            return Err(refuse(
                "freeze_grace_seconds",
                format!("freeze_grace_seconds must be 0-{MAX_GRACE_SECONDS}"),
            ));
        }
        let public_freeze_seconds = public_freeze_seconds.unwrap_or(0);
        if !(0..=MAX_PUBLIC_FREEZE_SECONDS).contains(&public_freeze_seconds) {
            return Err(refuse(
                "public_freeze_seconds",
                format!("public_freeze_seconds must be 0-{MAX_PUBLIC_FREEZE_SECONDS}"),
            ));
        }
        check_prizes(&prizes).map_err(|e| refuse("prizes", e))?;
        let ranking_ttl_days = ranking_ttl_days.unwrap_or(DEFAULT_RANKING_TTL_DAYS);
        if !(0..=MAX_RANKING_TTL_DAYS).contains(&ranking_ttl_days) {
            return Err(refuse(
                "ranking_ttl_days",
                format!("ranking_ttl_days must be 0-{MAX_RANKING_TTL_DAYS}"),
            ));
        }
        Ok(Self {
            title,
            freeze_grace_seconds,
            public_freeze_seconds,
            prizes,
            ranking_ttl_days,
            segment_prizes: None,
        })
    }

    /// The settings with the segment prize tables `tables`, checked against the board's
    /// dimensions `declared`.
    pub fn with_segment_prizes(self, declared: &[String], tables: SegmentPrizes) -> Result<Self, DraftError> {
        check_segment_prizes(declared, &tables).map_err(|e| refuse("segment_prizes", e))?;
        Ok(Self { segment_prizes: Some(tables), ..self })
    }

    /// A board's current settings.
    pub fn of(board: &Board) -> Self {
        Self {
            title: board.title.clone(),
            freeze_grace_seconds: board.freeze_grace_seconds,
            public_freeze_seconds: board.public_freeze_seconds,
            prizes: board.prizes.clone(),
            ranking_ttl_days: board.ranking_ttl_days,
            segment_prizes: Some(board.segment_prizes.clone()),
        }
    }
}

/// Writes a prize table one range per line, as [`parse_prize_lines`] reads it.
pub fn prize_lines(prizes: &[Prize]) -> String {
    let line = |p: &Prize| match p.from_rank == p.to_rank {
        true => format!("{}: {}", p.from_rank, p.prize),
        false => format!("{}-{}: {}", p.from_rank, p.to_rank, p.prize),
    };
    prizes.iter().map(line).collect::<Vec<_>>().join("\n")
}

/// Writes segment prize tables one range per line, the dimension first (`province 1-3: Medal`),
/// as [`parse_segment_prize_lines`] reads them.
pub fn segment_prize_lines(tables: &SegmentPrizes) -> String {
    let lines = tables.iter().flat_map(|(dim, prizes)| {
        prize_lines(prizes).lines().map(|l| format!("{dim} {l}")).collect::<Vec<_>>()
    });
    lines.collect::<Vec<_>>().join("\n")
}

/// Reads segment prize tables written one range per line, the dimension first
/// (`province 1-3: Medal`; the console's form); blank lines are skipped. Checked against the
/// board's dimensions by [`BoardSettings::with_segment_prizes`].
pub fn parse_segment_prize_lines(text: &str) -> Result<SegmentPrizes, DraftError> {
    let mut tables = SegmentPrizes::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (dim, rest) = line.split_once(char::is_whitespace).ok_or_else(|| {
            refuse(
                "segment_prizes",
                format!(
                    "{line:?}: write the dimension, a space, then the ranks and prize (province 1-3: Medal)"
                ),
            )
        })?;
        let prizes =
            parse_prize_lines(rest).map_err(|e| DraftError { field: "segment_prizes".into(), ..e })?;
        tables.entry(dim.to_owned()).or_default().extend(prizes);
    }
    Ok(tables)
}

/// Reads a prize table written one range per line, `1: Gold`, `2-3: Silver` (the console's
/// form); blank lines are skipped. The ranges are checked by [`check_prizes`] when the draft is.
pub fn parse_prize_lines(text: &str) -> Result<Vec<Prize>, DraftError> {
    let mut prizes = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let bad = || {
            refuse(
                "prizes",
                format!("{line:?}: write a rank or a range, a colon, then the prize (2-3: Silver)"),
            )
        };
        let (ranks, prize) = line.split_once(':').ok_or_else(bad)?;
        let (from, to) = ranks.split_once('-').unwrap_or((ranks, ranks));
        let from_rank = from.trim().parse().map_err(|_| bad())?;
        let to_rank = to.trim().parse().map_err(|_| bad())?;
        prizes.push(Prize { from_rank, to_rank, prize: prize.trim().to_owned() });
    }
    Ok(prizes)
}

/// One line of a board's prize table: ranks `from_rank..=to_rank` win `prize`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prize {
    pub from_rank: u64,
    pub to_rank: u64,
    pub prize: String,
}

/// The highest rank a prize may name (`int64`, as the OpenAPI document says).
pub const MAX_RANK: u64 = i64::MAX as u64;

/// Checks a prize table: ranks start at 1, each range is ordered, and no two ranges overlap.
pub fn check_prizes(prizes: &[Prize]) -> Result<(), String> {
    let mut ranges: Vec<&Prize> = prizes.iter().collect();
    ranges.sort_by_key(|p| p.from_rank);
    for p in &ranges {
        if p.from_rank == 0 || p.to_rank < p.from_rank || p.to_rank > MAX_RANK {
            return Err(format!(
                "prize {:?}: ranks must satisfy 1 <= from_rank <= to_rank <= {MAX_RANK}",
                p.prize
            ));
        }
        if p.prize.trim().is_empty() || p.prize.chars().count() > 200 {
            return Err("a prize must be 1-200 characters of text".into());
        }
    }
    if let Some(w) = ranges.windows(2).find(|w| w[1].from_rank <= w[0].to_rank) {
        return Err(format!("prizes {:?} and {:?} overlap", w[0].prize, w[1].prize));
    }
    Ok(())
}

/// Checks segment prize tables: each names a declared dimension and is a prize table
/// ([`check_prizes`]).
pub fn check_segment_prizes(declared: &[String], tables: &SegmentPrizes) -> Result<(), String> {
    for (dim, prizes) in tables {
        if !declared.contains(dim) {
            return Err(format!("segment_prizes names {dim:?}, which is not a declared segment dimension"));
        }
        check_prizes(prizes).map_err(|e| format!("{dim}: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod prize_tests;
