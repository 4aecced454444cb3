//! One page per file, one route each (the console's member page answers two: its link and the
//! find form). The console's pages exist with the `console` feature only: in the server and the
//! console's bundle, never in the contestants' bundle.
//!
//! Contestants: `home` (boards, and hot boards under "Trending"), `board`, `member`, `hot`, `me`
//! (a signed link), `verify` (a receipt checked in the browser), `not_found`. The console:
//! `login`, `console` (the front page: what needs attention, each board's activity),
//! `period_console`, `member_console`, `audit`, `keys`, `hot_console` (a hot board's filter). Data
//! pages render in `SsrMode::Async`, so the HTML already holds their data and every view works
//! without JavaScript. A section whose read fails says so; the rest of the page still shows.

#[cfg(feature = "console")]
pub mod audit;
pub mod board;
#[cfg(feature = "console")]
pub mod console;
pub mod home;
pub mod hot;
#[cfg(feature = "console")]
pub mod hot_console;
#[cfg(feature = "console")]
pub mod keys;
#[cfg(feature = "console")]
pub mod login;
pub mod me;
pub mod member;
#[cfg(feature = "console")]
pub mod member_console;
pub mod not_found;
#[cfg(feature = "console")]
pub mod period_console;
pub mod verify;
