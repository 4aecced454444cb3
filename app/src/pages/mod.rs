//! One page per file, one route each.

pub mod board;
pub mod console;
pub mod home;
pub mod hot;
pub mod keys;
pub mod login;
pub mod me;
pub mod member;
pub mod not_found;
