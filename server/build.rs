//! The release binary embeds `target/site` (built by scripts/build). This makes sure the folder
//! exists so the server compiles (and `cargo clippy` runs) before any site has been built, and
//! rebuilds the binary when the site changes.

fn main() {
    let site = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/site");
    std::fs::create_dir_all(&site).expect("create target/site");
    println!("cargo:rerun-if-changed={}", site.display());
}
