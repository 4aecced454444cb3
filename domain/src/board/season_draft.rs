//! A season board's draft (docs/SEASONS.md): checked against its source board — and, when it
//! carries over, against the earlier season — and built into a [`Board`].

use super::{Board, BoardSettings, DEFAULT_TIE_BASE, DraftError, Prize, SegmentPrizes, refuse};
use crate::kinds::{Cadence, Operator, TiePolicy, Unit};
use crate::period::PeriodKey;
use crate::season::{CarryOver, Season, SeasonRule};
use serde::{Deserialize, Serialize};

/// A season board as an admin typed it (`POST /api/v1/boards` with `cadence: season`): its
/// source board, the source's periods it is made of (a list, or the periods that start between
/// two dates), its rule, tie policy and prizes. Everything else comes from the source: the time
/// zone, the unit (`placement` counts points), the bounds (the rule's [`SeasonRule::bounds`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeasonDraft {
    pub slug: String,
    pub title: String,
    pub source: String,
    /// The source's periods (`["2026-W40", …]`); or leave it out and give `from` and `to`.
    #[serde(default)]
    pub periods: Option<Vec<String>>,
    /// With `to`: the source's periods whose first day is from `from` to `to` (both dates,
    /// inclusive), e.g. the ISO weeks that start in a quarter.
    #[serde(default)]
    pub from: Option<String>,
    #[serde(default)]
    pub to: Option<String>,
    pub rule: SeasonRule,
    pub tie_policy: String,
    #[serde(default)]
    pub prizes: Vec<Prize>,
    /// A soft reset from an earlier, settled season (`{from, share_percent, floor}`).
    #[serde(default)]
    pub carry_over: Option<CarryOverDraft>,
}

/// A season's carry-over as drafted: the earlier season, the share, the floor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarryOverDraft {
    pub from: String,
    pub share_percent: i64,
    #[serde(default)]
    pub floor: i64,
}

impl SeasonDraft {
    /// The earlier season's slug as typed, checked, if the draft carries one over.
    pub fn carried_from(&self) -> Result<Option<crate::ids::BoardSlug>, DraftError> {
        self.carry_over
            .as_ref()
            .map(|c| {
                crate::ids::BoardSlug::parse(c.from.clone()).map_err(|e| refuse("carry_over", e.to_string()))
            })
            .transpose()
    }

    /// The source board's slug as typed, checked.
    pub fn source(&self) -> Result<crate::ids::BoardSlug, DraftError> {
        crate::ids::BoardSlug::parse(self.source.clone()).map_err(|e| refuse("source", e.to_string()))
    }

    /// Checks every field against the source board and builds the season board (a draft that
    /// carries over is refused: see [`SeasonDraft::parse_carrying`]).
    pub fn parse(self, source: &Board) -> Result<Board, DraftError> {
        self.parse_carrying(source, None)
    }

    /// [`SeasonDraft::parse`], with `previous`: the season the draft carries over from (the board
    /// named by [`SeasonDraft::carried_from`]), whose largest total bounds the openings.
    pub fn parse_carrying(self, source: &Board, previous: Option<&Board>) -> Result<Board, DraftError> {
        let carry_over = match (self.carry_over, previous) {
            (None, _) => None,
            (Some(_), None) => return Err(refuse("carry_over", "there is no season to carry over from")),
            (Some(draft), Some(previous)) => {
                if previous.season.is_none() {
                    return Err(refuse("carry_over", format!("{} is not a season", previous.slug)));
                }
                let carry = CarryOver {
                    from: previous.slug.clone(),
                    share_percent: draft.share_percent,
                    floor: draft.floor,
                    revision: 0,
                    members: 0,
                };
                carry.check().map_err(|e| refuse("carry_over", e))?;
                Some(carry)
            }
        };
        let slug = crate::ids::BoardSlug::parse(self.slug).map_err(|e| refuse("slug", e.to_string()))?;
        if source.season.is_some() {
            return Err(refuse(
                "source",
                "a season is made of a periodic board's periods, not of another season",
            ));
        }
        let settings = BoardSettings::check(&self.title, None, None, self.prizes, None)?;
        let periods = match (self.periods, self.from, self.to) {
            (Some(listed), None, None) => listed
                .iter()
                .map(|p| PeriodKey::parse(p.trim()).map_err(|e| refuse("periods", e.to_string())))
                .collect::<Result<Vec<_>, _>>()?,
            (None, Some(from), Some(to)) => periods_starting_between(source.cadence, &from, &to)?,
            _ => return Err(refuse("periods", "give either periods, or from and to")),
        };
        Season::check_periods(&periods, source.cadence).map_err(|e| refuse("periods", e))?;
        self.rule.check(periods.len(), source.sort()).map_err(|e| refuse("rule", e))?;
        let policy: TiePolicy = self.tie_policy.parse().map_err(|e| refuse("tie_policy", e))?;
        let (min, max) = self
            .rule
            .bounds(periods.len(), source.codec.bounds())
            .ok_or_else(|| refuse("rule", "the season's totals would not fit in 64 bits"))?;
        // An opening is at most the carried share of the earlier season's largest total.
        let carried = match (&carry_over, previous) {
            (Some(carry), Some(previous)) => carry.opening(previous.codec.bounds().1).unwrap_or(0),
            _ => 0,
        };
        let max = max
            .checked_add(carried)
            .ok_or_else(|| refuse("carry_over", "the openings would not fit in 64 bits"))?;
        let tie_base = match policy {
            TiePolicy::Shared => 1,
            TiePolicy::FirstReached => DEFAULT_TIE_BASE,
        };
        let codec = crate::score::ScoreCodec::new(policy, min, max, tie_base).map_err(|e| {
            refuse("rule", format!("the season's totals ({min} to {max}) do not fit a score: {e}"))
        })?;
        let unit = match self.rule {
            SeasonRule::Placement { .. } => Unit::Points,
            _ => source.unit,
        };
        Ok(Board {
            slug,
            title: settings.title,
            cadence: Cadence::Season,
            zone: source.zone.clone(),
            // Season totals are absolute values with versions, computed from the source.
            operator: Operator::Set,
            codec,
            freeze_grace_seconds: settings.freeze_grace_seconds,
            public_freeze_seconds: 0,
            prizes: settings.prizes,
            unit,
            keep_top: None,
            ranking_ttl_days: settings.ranking_ttl_days,
            segments: Vec::new(),
            segment_prizes: SegmentPrizes::new(),
            season: Some(Season { source: source.slug.clone(), periods, rule: self.rule, carry_over }),
        })
    }
}

/// The periods of `cadence` whose first day is from `from` to `to`, both dates inclusive.
fn periods_starting_between(cadence: Cadence, from: &str, to: &str) -> Result<Vec<PeriodKey>, DraftError> {
    let date = |field: &str, text: &str| {
        text.trim()
            .parse::<jiff::civil::Date>()
            .map_err(|_| refuse(field, format!("{text:?} is not a date (2027-01-01)")))
    };
    let (from, to) = (date("from", from)?, date("to", to)?);
    if to < from {
        return Err(refuse("to", "to comes before from"));
    }
    // Any zone names the same civil dates; UTC keeps the arithmetic simple.
    let noon = |d: jiff::civil::Date| {
        d.at(12, 0, 0, 0).to_zoned(jiff::tz::TimeZone::UTC).map(|z| z.timestamp()).ok()
    };
    let start = noon(from).ok_or_else(|| refuse("from", "out of range"))?;
    let mut period = PeriodKey::containing(cadence, start, &jiff::tz::TimeZone::UTC)
        .map_err(|e| refuse("from", e.to_string()))?;
    if period.first_day() < from {
        period = period.next();
    }
    let mut periods = Vec::new();
    while period.first_day() <= to {
        if periods.len() == crate::season::MAX_SEASON_PERIODS {
            return Err(refuse(
                "to",
                format!("a season is made of at most {} periods", crate::season::MAX_SEASON_PERIODS),
            ));
        }
        periods.push(period);
        period = period.next();
    }
    Ok(periods)
}

#[cfg(test)]
mod tests;
