//! Sharded pub/sub for live boards (`crate::live`): `SPUBLISH` of "this period changed" on the
//! shared connection, and [`Listener`], the one connection per process that holds the
//! `SSUBSCRIBE`s and hands their messages (RESP3 push messages) to a callback.
//!
//! redis-rs 1.8 has `ssubscribe` on a Cluster connection only; on a standalone server the
//! listener is a multiplexed RESP3 connection that sends `SSUBSCRIBE` / `SUNSUBSCRIBE` with one
//! channel each, so each command has exactly one confirmation (its reply). A Cluster connection
//! subscribes on the node that owns the channel's slot and re-subscribes after a reconnect by
//! itself; a standalone listener that lost its connection is replaced by its owner.

use super::conn::{CONNECT_TIMEOUT, RESPONSE_TIMEOUT};
use super::{Projection, RedisTarget};
use ::redis::aio::MultiplexedConnection;
use ::redis::cluster::ClusterClientBuilder;
use ::redis::cluster_async::ClusterConnection;
use ::redis::{
    AsyncConnectionConfig, IntoConnectionInfo, ProtocolVersion, PushInfo, PushKind, RedisResult, Value,
};
use std::time::Duration;

/// How long a publish may take before it is given up: publishes run beside writes, never in them.
pub const PUBLISH_TIMEOUT: Duration = Duration::from_secs(1);

impl Projection {
    /// Says on `channel` that its period changed (an empty message). Skipped while Redis is
    /// paused after a failure; a failure here does not pause anything (publishes are optional).
    pub async fn spublish(&self, channel: &str) -> RedisResult<()> {
        if self.paused() {
            return Err(::redis::RedisError::from((
                ::redis::ErrorKind::Io,
                "publish skipped: Redis failed a moment ago",
            )));
        }
        let mut conn = self.conn().await?;
        ::redis::cmd("SPUBLISH").arg(channel).arg("").exec_async(&mut conn).await
    }
}

/// What the listener heard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// A message on a channel: its period changed.
    Changed(String),
    /// A subscription was confirmed — also after a reconnect, when messages may have been missed.
    Subscribed(String),
    /// A subscription ended (ours, or the server's when a slot moved).
    Unsubscribed(String),
    /// A connection was lost; its subscriptions missed whatever was said meanwhile.
    Disconnected,
}

impl Heard {
    fn from_push(push: PushInfo) -> Option<Self> {
        let channel = || push.data.first().and_then(text);
        Some(match push.kind {
            PushKind::SMessage => Heard::Changed(channel()?),
            PushKind::SSubscribe => Heard::Subscribed(channel()?),
            PushKind::SUnsubscribe => Heard::Unsubscribed(channel()?),
            PushKind::Disconnection => Heard::Disconnected,
            _ => return None,
        })
    }
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::BulkString(bytes) => String::from_utf8(bytes.clone()).ok(),
        Value::SimpleString(s) => Some(s.clone()),
        _ => None,
    }
}

/// The connection that holds a process's sharded subscriptions.
pub enum Listener {
    Standalone(MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl Listener {
    /// Connects (RESP3) and sends everything it hears to `heard`, which must not block.
    pub async fn connect(
        target: &RedisTarget,
        heard: impl Fn(Heard) + Send + Sync + 'static,
    ) -> RedisResult<Self> {
        let push = move |push: PushInfo| -> Result<(), std::convert::Infallible> {
            if let Some(h) = Heard::from_push(push) {
                heard(h);
            }
            Ok(())
        };
        match target {
            RedisTarget::Standalone(url) => {
                let info = url.as_str().into_connection_info()?;
                let redis = info.redis_settings().clone().set_protocol(ProtocolVersion::RESP3);
                let client = ::redis::Client::open(info.set_redis_settings(redis))?;
                let config = AsyncConnectionConfig::new()
                    .set_connection_timeout(Some(CONNECT_TIMEOUT))
                    .set_response_timeout(Some(RESPONSE_TIMEOUT))
                    .set_push_sender(push);
                Ok(Listener::Standalone(client.get_multiplexed_async_connection_with_config(&config).await?))
            }
            RedisTarget::Cluster(nodes) => {
                let client = ClusterClientBuilder::new(nodes.clone())
                    .use_protocol(ProtocolVersion::RESP3)
                    .connection_timeout(CONNECT_TIMEOUT)
                    .response_timeout(RESPONSE_TIMEOUT)
                    .push_sender(push)
                    .build()?;
                Ok(Listener::Cluster(client.get_async_connection().await?))
            }
        }
    }

    /// Whether a lost connection heals itself (Cluster) or must be replaced (standalone).
    pub fn reconnects_by_itself(&self) -> bool {
        matches!(self, Listener::Cluster(_))
    }

    pub async fn ssubscribe(&mut self, channel: &str) -> RedisResult<()> {
        match self {
            Listener::Standalone(conn) => ::redis::cmd("SSUBSCRIBE").arg(channel).exec_async(conn).await,
            Listener::Cluster(conn) => conn.ssubscribe(channel).await,
        }
    }

    pub async fn sunsubscribe(&mut self, channel: &str) -> RedisResult<()> {
        match self {
            Listener::Standalone(conn) => ::redis::cmd("SUNSUBSCRIBE").arg(channel).exec_async(conn).await,
            Listener::Cluster(conn) => conn.sunsubscribe(channel).await,
        }
    }
}
