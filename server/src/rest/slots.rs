//! The live streams open on this process, counted in all and per client address, so that one
//! client (or every one) cannot hold more than its share of the stream handler's connections
//! (`stream.rs`). One [`StreamSlots`] lives in the state every handler reaches (`state.rs`).

use super::error::ApiError;
use domain::ErrorCode;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The most live streams one client address may hold open on one instance (tabs, a household or
/// a classroom behind one address); past it a stream is answered 429 `too_many_streams`.
pub const STREAMS_PER_CLIENT: u32 = 64;
/// The most live streams one instance holds open; past it a stream is answered 503 `streams_full`.
pub const STREAMS_IN_ALL: u32 = 20_000;
/// What a refused stream is told to wait before trying again.
const RETRY_STREAM_AFTER: u64 = 30;

/// The live streams open on this process: how many in all and per client address. Each stream
/// holds a [`StreamSlot`], which gives its place back when the stream ends.
#[derive(Default)]
pub struct StreamSlots(Arc<Mutex<Open>>);

#[derive(Default)]
struct Open {
    total: u32,
    by_client: HashMap<IpAddr, u32>,
}

/// One open stream's place; dropped with the stream.
pub struct StreamSlot {
    open: Arc<Mutex<Open>>,
    client: Option<IpAddr>,
}

impl StreamSlots {
    /// A place for one more stream of `client` (None: the address is unknown, counted in all
    /// only), or the refusal to answer.
    pub fn take(&self, client: Option<IpAddr>) -> Result<StreamSlot, ApiError> {
        let mut open = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if open.total >= STREAMS_IN_ALL {
            let detail = "this server holds as many live streams as it can; retry later";
            return Err(ApiError::new(ErrorCode::StreamsFull, detail).retry_after(RETRY_STREAM_AFTER));
        }
        if let Some(ip) = client {
            let held = open.by_client.entry(ip).or_default();
            if *held >= STREAMS_PER_CLIENT {
                let detail = format!(
                    "at most {STREAMS_PER_CLIENT} live streams per client address; close one (another tab) first"
                );
                return Err(ApiError::new(ErrorCode::TooManyStreams, detail).retry_after(RETRY_STREAM_AFTER));
            }
            *held += 1;
        }
        open.total += 1;
        Ok(StreamSlot { open: Arc::clone(&self.0), client })
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        open.total -= 1;
        if let Some(ip) = self.client
            && let std::collections::hash_map::Entry::Occupied(mut held) = open.by_client.entry(ip)
        {
            *held.get_mut() -= 1;
            if *held.get() == 0 {
                held.remove();
            }
        }
    }
}
