//! Pieces shared by pages.

pub mod countdown;
pub mod error_view;
pub mod ranking_table;
