//! One page per file, one route each (the console's member page answers two: its link and the
//! find form). The console's pages exist with the `console` feature only: in the server and the
//! console's bundle, never in the contestants' bundle.

#[cfg(feature = "console")]
pub mod audit;
pub mod board;
#[cfg(feature = "console")]
pub mod console;
pub mod home;
pub mod hot;
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
