//! The state every handler reaches: the engine, the site options and the top-N answers, behind
//! one `Arc`.

use crate::cli::PublicUrl;
use crate::top_cache::TopBytes;
use axum::extract::FromRef;
use engine::Engine;
use leptos::prelude::LeptosOptions;
use std::sync::Arc;

/// What every handler can reach. axum hands each request its own copy of the state, so the
/// state is one `Arc`: a copy costs one reference count, not a copy of the engine's many handles
/// and the site options (measured on the cached top-N read, docs/BENCHMARKS.md).
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

pub struct Shared {
    pub leptos_options: LeptosOptions,
    pub engine: Engine,
    pub web: Web,
    /// What the top-N route answered, for repeats (`top_cache`).
    pub top_bytes: TopBytes,
    /// The board pages kept for anonymous visitors (`page_cache`).
    pub pages: crate::page_cache::PageCache,
    /// The live streams open on this process, by client (`rest::slots`).
    pub streams: crate::rest::slots::StreamSlots,
}

/// How the site is served: the bundle files it embeds and the origin browsers see it at.
#[derive(Clone, Debug, Default)]
pub struct Web {
    pub site_files: app::SiteFiles,
    /// `--public-url`: None when the server is reached where it listens.
    pub public_url: Option<PublicUrl>,
    /// `--trusted-proxies`: whose forwarded client address is believed.
    pub trusted_proxies: crate::peer::TrustedProxies,
    /// `--public-rate-per-second`, `--public-burst`: what each client without credentials may
    /// spend (`anonymous`); None: no limit.
    pub public_limits: Option<domain::apikey::KeyLimits>,
}

impl AppState {
    pub fn new(leptos_options: LeptosOptions, engine: Engine) -> Self {
        Self::with_web(leptos_options, engine, Web::default())
    }

    pub fn with_web(leptos_options: LeptosOptions, engine: Engine, web: Web) -> Self {
        Self(Arc::new(Shared {
            leptos_options,
            engine,
            web,
            top_bytes: TopBytes::default(),
            pages: Default::default(),
            streams: Default::default(),
        }))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}
