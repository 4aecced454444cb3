//! The public view of a publicly frozen period in Redis (`engine::lifecycle::public` decides; this module
//! moves keys). While the marker `:public` exists, `:rank` — what every public read reads — holds
//! the public standings, and writes (`project.lua`, `level.lua`, rebuilds) go to `:live`. So a
//! write after the freeze can never reach a public read, whichever instance made it and whatever
//! each process has cached.

use super::{BATCH, Projection, RedisConn};
use ::redis::{RedisResult, Script};
use domain::{BoardSlug, MemberId, PeriodKey};
use std::sync::LazyLock;

static BEGIN: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/public_begin.lua")));
static COMMIT: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/public_commit.lua")));
static STEP: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/public_step.lua")));
static END: LazyLock<Script> = LazyLock::new(|| Script::new(include_str!("scripts/public_end.lua")));

impl Projection {
    /// The key of the live ranking: `:live` while the period is publicly frozen, else `:rank`
    /// (admin reads and settlement's cross-check; not atomic with the read that follows, which
    /// is why public reads never use it).
    pub(super) async fn live_ranking(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<String> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        let frozen: bool = ::redis::cmd("EXISTS").arg(&keys.public).query_async(&mut conn).await?;
        Ok(if frozen { keys.live } else { keys.rank })
    }

    /// The marker's value (None: the public reads the live ranking).
    pub async fn public_marker(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<Option<String>> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        ::redis::cmd("GET").arg(&keys.public).query_async(&mut conn).await
    }

    /// Starts a public view: writes go to `:live` from now on; the public keeps reading `:rank`
    /// as it is until [`Projection::public_commit`]. `marker` says the view is being assembled.
    pub async fn public_begin(&self, board: &BoardSlug, period: &PeriodKey, marker: &str) -> RedisResult<()> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        BEGIN
            .key(&keys.rank)
            .key(&keys.live)
            .key(&keys.public)
            .key(&keys.public_staging)
            .arg(marker)
            .invoke_async::<i64>(&mut conn)
            .await?;
        Ok(())
    }

    /// Puts the public standings `rows` (member, encoded score) in place of `:rank`, if the
    /// marker still says `assembling`; then the marker says `installed`. False when the marker
    /// changed meanwhile (nothing was put in place).
    pub async fn public_commit(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        rows: &[(MemberId, i64)],
        assembling: &str,
        installed: &str,
    ) -> RedisResult<bool> {
        let keys = self.keys.period(board, period);
        let mut conn: RedisConn = self.conn().await?;
        for chunk in rows.chunks(BATCH) {
            let scores: Vec<(i64, &str)> = chunk.iter().map(|(m, s)| (*s, m.as_str())).collect();
            ::redis::pipe().zadd_multiple(&keys.public_staging, &scores).exec_async(&mut conn).await?;
        }
        let done: i64 = COMMIT
            .key(&keys.rank)
            .key(&keys.public)
            .key(&keys.public_staging)
            .arg(assembling)
            .arg(installed)
            .invoke_async(&mut conn)
            .await?;
        Ok(done == 1)
    }

    /// One reveal step: the members' public scores (None: out of the view), if the view in place
    /// is `before`; the marker then says `after`. False when another view was in place.
    pub async fn public_step(
        &self,
        board: &BoardSlug,
        period: &PeriodKey,
        changes: &[(MemberId, Option<i64>)],
        before: &str,
        after: &str,
    ) -> RedisResult<bool> {
        let keys = self.keys.period(board, period);
        let mut call = STEP.key(&keys.rank);
        call.key(&keys.public).arg(before).arg(after);
        for (member, score) in changes {
            call.arg(member.as_str()).arg(score.map(|s| s.to_string()).unwrap_or_default());
        }
        let mut conn = self.conn().await?;
        Ok(call.invoke_async::<i64>(&mut conn).await? == 1)
    }

    /// Ends the public view: the live ranking is what the public reads, at once.
    pub async fn public_end(&self, board: &BoardSlug, period: &PeriodKey) -> RedisResult<bool> {
        let keys = self.keys.period(board, period);
        let mut conn = self.conn().await?;
        let ended: i64 = END
            .key(&keys.rank)
            .key(&keys.live)
            .key(&keys.public)
            .key(&keys.public_staging)
            .invoke_async(&mut conn)
            .await?;
        Ok(ended == 1)
    }
}
