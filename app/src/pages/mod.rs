//! One page per file, one route each.

pub mod board;
pub mod home;
pub mod hot;
pub mod member;
pub mod not_found;
