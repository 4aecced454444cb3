//! Pieces shared by pages.

pub mod charts;
#[cfg(feature = "console")]
pub mod console;
#[cfg(feature = "console")]
pub mod correction;
pub mod countdown;
pub mod error_view;
pub mod export;
pub mod freeze_banner;
pub mod live;
pub mod movement;
pub mod ranking_table;
pub mod revisions;
