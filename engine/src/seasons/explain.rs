//! What a season's readers ask of it beyond its ranking: "why this season total" (what each
//! period gave a member, read from the periods' rankings as the caller sees them) and its weeks
//! with their states (the console).

use super::Seasons;
use crate::EngineError;
use crate::ledger::Viewer;
use crate::scope::Scope;
use domain::MemberId;
use domain::season::SEASON_ROWS;

impl Seasons {
    /// A season's periods with their states, in order; None on a board that is not a season.
    pub async fn season_weeks(
        &self,
        scope: &Scope,
    ) -> Result<Option<Vec<domain::view::PeriodInfo>>, EngineError> {
        let Some(definition) = &scope.board().season else { return Ok(None) };
        let source = self.reads.board(&definition.source).await?;
        let mut weeks = Vec::with_capacity(definition.periods.len());
        for period in &definition.periods {
            weeks.push(self.reads.period_info(&source, *period).await?);
        }
        Ok(Some(weeks))
    }

    /// "Why this season total": what each period of the season in `scope` gave `member`, read
    /// from the periods' rankings as `viewer` sees them (a public freeze's view for the public),
    /// with the member's rank in the season. Not found on a board that is not a season: it has
    /// no season to explain.
    pub async fn member_season(
        &self,
        viewer: Viewer,
        scope: &Scope,
        member: &MemberId,
    ) -> Result<domain::season::MemberSeason, EngineError> {
        let Some(definition) = &scope.board().season else {
            return Err(EngineError::NotFound {
                what: crate::Missing::Other(format!("a season: {} is not a season board", scope.slug())),
            });
        };
        let mut results = Vec::with_capacity(definition.periods.len());
        for period in &definition.periods {
            let week = self.reads.scope_of(&definition.source, *period).await?;
            results.push(self.entry_of(viewer, &week, member).await?);
        }
        let rank = self.entry_of(viewer, scope, member).await?.map(|(_, rank)| rank);
        let members = std::slice::from_ref(member);
        let carried = self.core.ledger.openings(scope.board(), Some(members)).await?.get(member).copied();
        Ok(definition.explain(member.clone(), &results, rank, carried))
    }

    /// "Why this season total" for each of `members` (the rows a board page shows, at most
    /// [`SEASON_ROWS`]) as the public sees the periods: one read of the ranks of the list per
    /// period and one in the season, whatever the number of members.
    pub async fn season_rows(
        &self,
        scope: &Scope,
        members: &[MemberId],
    ) -> Result<Vec<domain::season::MemberSeason>, EngineError> {
        let Some(definition) = &scope.board().season else {
            return Err(EngineError::NotFound {
                what: crate::Missing::Other(format!("a season: {} is not a season board", scope.slug())),
            });
        };
        if members.is_empty() || members.len() > SEASON_ROWS {
            return Err(EngineError::Invalid(format!(
                "name 1 to {SEASON_ROWS} members, got {}",
                members.len()
            )));
        }
        let at = |member: &MemberId| members.iter().position(|m| m == member);
        let mut results = vec![vec![None; definition.periods.len()]; members.len()];
        for (week, period) in definition.periods.iter().enumerate() {
            let scope = self.reads.scope_of(&definition.source, *period).await?;
            for entry in self.ranks_in(&scope, members).await? {
                if let Some(i) = at(&entry.member) {
                    results[i][week] = Some((entry.points, entry.rank));
                }
            }
        }
        let mut ranks = vec![None; members.len()];
        for entry in self.ranks_in(scope, members).await? {
            if let Some(i) = at(&entry.member) {
                ranks[i] = Some(entry.rank);
            }
        }
        let openings = self.core.ledger.openings(scope.board(), Some(members)).await?;
        Ok(members
            .iter()
            .enumerate()
            .map(|(i, m)| definition.explain(m.clone(), &results[i], ranks[i], openings.get(m).copied()))
            .collect())
    }

    /// The public ranks of `members` in a ranking (none for a period nobody wrote to).
    async fn ranks_in(
        &self,
        scope: &Scope,
        members: &[MemberId],
    ) -> Result<Vec<domain::view::Entry>, EngineError> {
        match self.reads.ranks_of(scope, members).await {
            Ok(found) => Ok(found.value),
            Err(EngineError::NotFound { .. }) => Ok(Vec::new()),
            Err(error) => Err(error),
        }
    }

    /// A member's points and rank in a ranking as `viewer` sees it; None when not in it.
    async fn entry_of(
        &self,
        viewer: Viewer,
        scope: &Scope,
        member: &MemberId,
    ) -> Result<Option<(i64, u64)>, EngineError> {
        match self.reads.around_as(viewer, scope, member, 0).await {
            Ok(page) => {
                Ok(page.entries.into_iter().find(|e| e.member == *member).map(|e| (e.points, e.rank)))
            }
            Err(EngineError::NotFound { .. }) => Ok(None),
            Err(error) => Err(error),
        }
    }
}
