//! `sqlx::migrate!` embeds `migrations/` when the crate compiles: rebuild it when a migration is
//! added or changed, not only when a source file is.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
