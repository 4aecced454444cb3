//! Pieces shared by pages.

pub mod console;
pub mod correction;
pub mod countdown;
pub mod error_view;
pub mod ranking_table;
pub mod revisions;
