//! Who may write: admin tokens (`laurel admin token`) and ingest keys scoped to boards, made and
//! revoked by admins (`POST /api/v1/keys`, the console's `/admin/keys`, `laurel apikey create`).
//! Secrets are random, shown once, stored as SHA-256 digests (they are high-entropy, so a fast
//! hash is the right tool; passwords use argon2). Each key has rate limits of its own, and so has
//! each client without credentials ([`Access::admit_client`]), shared by every instance
//! ([`super::ratelimit`]).
//!
//! Every ingest request names its key, so each process keeps the keys and tokens it recently
//! found for [`CREDENTIAL_TTL`] (`Credentials`) instead of asking the ledger each time: a key
//! revoked on this process stops at once, one revoked on another within that time. Unknown and
//! revoked secrets are not kept, so a key made on any instance works everywhere at once.
//!
//! An ingest key is `laurel_ik_` and 48 random hex characters; the ledger keeps its SHA-256
//! digest and its first 16 characters (`key_prefix`) to recognise it by, and listings, audit rows
//! and metrics show only that prefix. The full key is answered once, by the call that makes it:
//! `POST /api/v1/keys`, the console (in the page when JavaScript runs; after a plain form post,
//! through a cookie only `/admin/keys` receives, for 5 minutes, cleared by the page that shows it
//! — never in a URL: `app/src/api/keys.rs`) or `laurel apikey create` (actor `cli`). Making a key
//! checks that every board exists (periodic or hot) and that the limits are within bounds
//! (`domain::apikey::KeyLimits`), else 422 and nothing is written; the key and its audit row
//! (`apikey_create`) are one transaction (`ledger/auth.rs`). Revoking twice answers the key
//! unchanged and writes one audit row (`apikey_revoke`).
//!
//! Each key has limits of its own (migration 0006; keys made before it get the defaults, 50
//! requests a second and a burst of 100). The REST edge (`server/src/rest/auth.rs`) counts every
//! authenticated request of a key — events, totals, submissions, profiles, hits: one allowance
//! for all its routes — with [`Access::admit`] before it reads the body: over the limit the
//! answer is 429 `rate_limited` with `Retry-After` (whole seconds, at least 1), nothing is parsed
//! or written, and the refusal takes nothing from the allowance. Admin tokens and console
//! sessions are never limited. Refusals are counted per process in
//! `laurel_rate_limited_total{key_prefix}`.

use super::Access;
use super::ratelimit::{Cell, ClientNet};
use crate::EngineError;
use crate::hex;
use crate::ledger::NewApiKey;
use domain::BoardSlug;
use domain::apikey::{ApiKeyView, KeyLimits};
use sha2::{Digest, Sha256};
use std::net::IpAddr;

const ADMIN_TOKEN_PREFIX: &str = "laurel_at_";
const API_KEY_PREFIX: &str = "laurel_ik_";
/// Characters of an ingest key kept in clear for display (its prefix plus a few).
const SHOWN: usize = API_KEY_PREFIX.len() + 6;

/// What a live ingest key may do, and how fast.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyScope {
    pub id: i64,
    /// The key's shown characters (`laurel_ik_` and six more): safe to log and to label metrics.
    pub prefix: String,
    pub boards: Vec<String>,
    pub limits: KeyLimits,
}

/// A new ingest key: the secret (shown this once) and the key as listed.
#[derive(Debug, Clone)]
pub struct IssuedKey {
    pub key: String,
    pub view: ApiKeyView,
}

/// A key went over its rate limit; the request was not served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimited {
    /// Whole seconds until a request would pass (at least 1): the `Retry-After`.
    pub retry_after_seconds: u64,
}

/// How long a process trusts a key or token it found in the ledger: the longest a key revoked
/// by another instance keeps working here.
pub const CREDENTIAL_TTL: std::time::Duration = std::time::Duration::from_secs(1);
/// The most credentials a process keeps; past it the cache starts over (a flood of distinct
/// valid secrets is all it could take, and each costs a ledger read as before).
const CREDENTIALS_KEPT: usize = 10_000;

/// What a live secret is.
#[derive(Debug, Clone)]
enum Holder {
    Key(KeyScope),
    /// An admin token, by id.
    Admin(i64),
}

/// The live secrets this process found recently, by digest, each with when it was read. Unknown
/// and revoked secrets are not kept: they are read each time, so a key made on another instance
/// works at once.
#[derive(Default)]
pub(super) struct Credentials {
    found: std::sync::Mutex<std::collections::HashMap<String, (Holder, std::time::Instant)>>,
}

impl Credentials {
    fn get(&self, digest: &str, now: std::time::Instant) -> Option<Holder> {
        let found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found.get(digest).filter(|(_, at)| now.duration_since(*at) < CREDENTIAL_TTL).map(|(h, _)| h.clone())
    }

    fn put(&self, digest: String, holder: Holder, now: std::time::Instant) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        if found.len() >= CREDENTIALS_KEPT {
            found.clear();
        }
        found.insert(digest, (holder, now));
    }

    /// Forgets an ingest key (revoked here).
    fn forget_key(&self, id: i64) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found.retain(|_, (h, _)| !matches!(h, Holder::Key(k) if k.id == id));
    }
}

/// Reasons recorded in the audit trail hold at most this many bytes.
const MAX_REASON_BYTES: usize = 1000;

impl KeyScope {
    pub fn allows(&self, board: &BoardSlug) -> bool {
        self.boards.iter().any(|b| b == board.as_str())
    }
}

fn secret(prefix: &str) -> Result<String, EngineError> {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).map_err(|e| EngineError::Invalid(format!("no randomness available: {e}")))?;
    Ok(format!("{prefix}{}", hex(&bytes)))
}

fn digest(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

impl Access {
    /// Creates an admin token and returns it (the only time it is visible).
    pub async fn issue_admin_token(&self) -> Result<String, EngineError> {
        let token = secret(ADMIN_TOKEN_PREFIX)?;
        self.core.ledger.store_admin_token(&digest(&token), jiff::Timestamp::now()).await?;
        Ok(token)
    }

    /// The audit trail's name for the holder of an admin token (`token#<id>`), if it is one.
    pub async fn admin_actor(&self, token: &str) -> Result<Option<String>, EngineError> {
        if !token.starts_with(ADMIN_TOKEN_PREFIX) {
            return Ok(None);
        }
        let (digest, now) = (digest(token), std::time::Instant::now());
        if let Some(Holder::Admin(id)) = self.credentials.get(&digest, now) {
            return Ok(Some(format!("token#{id}")));
        }
        let id = self.core.ledger.admin_token_id(&digest).await?;
        if let Some(id) = id {
            self.credentials.put(digest, Holder::Admin(id), now);
        }
        Ok(id.map(|id| format!("token#{id}")))
    }

    /// Creates an ingest key for existing boards (periodic or hot) with its limits, audited as
    /// `apikey_create` by `actor`, and returns it (the only time the secret is visible). No
    /// board, an unknown board or limits out of bounds → `Invalid`, and nothing is written.
    pub async fn issue_api_key(
        &self,
        boards: &[BoardSlug],
        limits: KeyLimits,
        actor: &str,
    ) -> Result<IssuedKey, EngineError> {
        let mut boards = boards.to_vec();
        boards.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        boards.dedup();
        if boards.is_empty() {
            return Err(EngineError::Invalid("an ingest key needs at least one board".into()));
        }
        let limits = limits.check().map_err(EngineError::Invalid)?;
        for board in &boards {
            let ledger = &self.core.ledger;
            if ledger.board(board).await?.is_none() && ledger.hot_board(board).await?.is_none() {
                return Err(EngineError::Invalid(format!("board {board} does not exist")));
            }
        }
        let key = secret(API_KEY_PREFIX)?;
        let new = NewApiKey { prefix: key[..SHOWN].to_owned(), hash: digest(&key), boards, limits };
        let view = self.core.ledger.store_api_key(new, actor, jiff::Timestamp::now()).await?;
        Ok(IssuedKey { key, view })
    }

    /// Every ingest key, live and revoked, oldest first: prefixes only, never secrets.
    pub async fn api_keys(&self) -> Result<Vec<ApiKeyView>, EngineError> {
        Ok(self.core.ledger.api_keys().await?)
    }

    /// Revokes an ingest key (it answers 401 from then on), audited as `apikey_revoke`. Revoking
    /// a revoked key answers it unchanged and writes nothing; an unknown id → `NotFound`.
    pub async fn revoke_api_key(
        &self,
        id: i64,
        actor: &str,
        reason: Option<&str>,
    ) -> Result<ApiKeyView, EngineError> {
        let reason = reason.map(str::trim).filter(|r| !r.is_empty());
        if reason.is_some_and(|r| r.len() > MAX_REASON_BYTES) {
            return Err(EngineError::Invalid(format!("a reason holds at most {MAX_REASON_BYTES} bytes")));
        }
        let view = self.core.ledger.revoke_api_key(id, actor, reason, jiff::Timestamp::now()).await?;
        self.credentials.forget_key(id);
        self.limiter.forget(id);
        Ok(view)
    }

    /// The scope of an ingest key, or None when it is unknown or revoked.
    pub async fn api_key_scope(&self, key: &str) -> Result<Option<KeyScope>, EngineError> {
        if !key.starts_with(API_KEY_PREFIX) {
            return Ok(None);
        }
        let (digest, now) = (digest(key), std::time::Instant::now());
        if let Some(Holder::Key(scope)) = self.credentials.get(&digest, now) {
            return Ok(Some(scope));
        }
        let scope = self.core.ledger.api_key_scope(&digest).await?.map(|s| KeyScope {
            id: s.id,
            prefix: s.prefix,
            boards: s.boards,
            limits: s.limits,
        });
        if let Some(scope) = &scope {
            self.credentials.put(digest, Holder::Key(scope.clone()), now);
        }
        Ok(scope)
    }

    /// Whether `secret` is a live admin token or ingest key (both are kept in `Credentials`, so
    /// a repeated secret costs no ledger query).
    pub async fn knows_secret(&self, secret: &str) -> Result<bool, EngineError> {
        Ok(self.admin_actor(secret).await?.is_some() || self.api_key_scope(secret).await?.is_some())
    }

    /// Counts one request of a key against its limits, across every instance (the key's cell in
    /// Redis); while Redis cannot be reached, against this process's own cell (fail open: see
    /// `ratelimit`). Over the limit, the request must not be served (it took nothing from the
    /// allowance); counted in `laurel_rate_limited_total` by key prefix.
    pub async fn admit(&self, scope: &KeyScope) -> Result<(), RateLimited> {
        self.admit_cell(Cell::Key(scope.id), scope.limits, &scope.prefix).await
    }

    /// Counts one request of a client without credentials against `limits`, per client network
    /// ([`ClientNet`]) and across every instance, as [`Access::admit`] does for keys; counted in
    /// `laurel_rate_limited_total` under the key prefix `anonymous`.
    pub async fn admit_client(&self, client: IpAddr, limits: KeyLimits) -> Result<(), RateLimited> {
        self.admit_cell(Cell::Client(ClientNet::of(client)), limits, "anonymous").await
    }

    async fn admit_cell(&self, cell: Cell, limits: KeyLimits, label: &str) -> Result<(), RateLimited> {
        let (share, tolerance) = crate::access::ratelimit::share_and_tolerance(limits);
        let verdict = match self.core.projection.rate_check(cell.clone(), share, tolerance).await {
            Ok(None) => Ok(()),
            Ok(Some(wait)) => Err(wait),
            Err(_) => self.limiter.check(&cell, limits, std::time::Instant::now()),
        };
        verdict.map_err(|wait| {
            self.core.metrics.count_rate_limited(label);
            RateLimited { retry_after_seconds: crate::access::ratelimit::retry_after_seconds(wait) }
        })
    }
}
