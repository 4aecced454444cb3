//! The access service: who may do what. Admin tokens and ingest keys with their rate limits
//! ([`keys`], counted by [`ratelimit`]), the public's allowance per client network, console
//! accounts and sessions ([`admins`]) and signed contestant links ([`links`]).

pub mod admins;
pub mod keys;
pub mod links;
pub mod ratelimit;

use crate::Core;
use std::sync::Arc;

/// Owns the credentials this process found recently, the local rate limiter and the link key;
/// reached through [`crate::Engine::access`].
#[derive(Clone)]
pub struct Access {
    core: Core,
    /// Keys and tokens recently found in the ledger (see [`keys::CREDENTIAL_TTL`]).
    credentials: Arc<keys::Credentials>,
    /// Rate limits counted in this process while Redis cannot count them (see [`ratelimit`]).
    limiter: Arc<ratelimit::RateLimiter>,
    /// The key of contestant links; None: links are not set up.
    link_secret: Option<Arc<links::LinkSecret>>,
}

impl Access {
    pub(crate) fn new(core: Core) -> Self {
        Self { core, credentials: Arc::default(), limiter: Arc::default(), link_secret: None }
    }

    /// Installs the key contestant links are signed and checked with.
    pub(crate) fn set_link_secret(&mut self, secret: links::LinkSecret) {
        self.link_secret = Some(Arc::new(secret));
    }
}
