//! Who may write: admin tokens (`laurel admin token`) and ingest keys scoped to boards
//! (`laurel apikey create --board B`). Secrets are random, shown once, stored as SHA-256 digests
//! (they are high-entropy, so a fast hash is the right tool; passwords will use argon2).

use crate::hex;
use crate::{Engine, EngineError};
use domain::BoardSlug;
use sha2::{Digest, Sha256};

const ADMIN_TOKEN_PREFIX: &str = "laurel_at_";
const API_KEY_PREFIX: &str = "laurel_ik_";
/// Characters of an ingest key kept in clear for display (its prefix plus a few).
const SHOWN: usize = API_KEY_PREFIX.len() + 6;

/// What an ingest key may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyScope {
    pub boards: Vec<String>,
}

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

impl Engine {
    /// Creates an admin token and returns it (the only time it is visible).
    pub async fn issue_admin_token(&self) -> Result<String, EngineError> {
        let token = secret(ADMIN_TOKEN_PREFIX)?;
        self.ledger.store_admin_token(&digest(&token), jiff::Timestamp::now()).await?;
        Ok(token)
    }

    /// The audit trail's name for the holder of an admin token (`token#<id>`), if it is one.
    pub async fn admin_actor(&self, token: &str) -> Result<Option<String>, EngineError> {
        if !token.starts_with(ADMIN_TOKEN_PREFIX) {
            return Ok(None);
        }
        Ok(self.ledger.admin_token_id(&digest(token)).await?.map(|id| format!("token#{id}")))
    }

    /// Creates an ingest key for existing boards (periodic or hot) and returns it (the only time
    /// it is visible).
    pub async fn issue_api_key(&self, boards: &[BoardSlug]) -> Result<String, EngineError> {
        if boards.is_empty() {
            return Err(EngineError::Invalid("an ingest key needs at least one board".into()));
        }
        for board in boards {
            if let Err(EngineError::NotFound { .. }) = self.board(board).await {
                self.hot_board(board).await?;
            }
        }
        let key = secret(API_KEY_PREFIX)?;
        self.ledger.store_api_key(&key[..SHOWN], &digest(&key), boards, jiff::Timestamp::now()).await?;
        Ok(key)
    }

    /// The scope of an ingest key, or None when it is unknown or revoked.
    pub async fn api_key_scope(&self, key: &str) -> Result<Option<KeyScope>, EngineError> {
        if !key.starts_with(API_KEY_PREFIX) {
            return Ok(None);
        }
        Ok(self.ledger.api_key_boards(&digest(key)).await?.map(|boards| KeyScope { boards }))
    }
}
