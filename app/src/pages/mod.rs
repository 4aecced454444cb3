//! One page per file, one route each (the console's member page answers two: its link and the
//! find form).

pub mod audit;
pub mod board;
pub mod console;
pub mod home;
pub mod hot;
pub mod keys;
pub mod login;
pub mod me;
pub mod member;
pub mod member_console;
pub mod not_found;
pub mod period_console;
