//! `laurel verify FILE` offline: the shared receipt vectors (`domain/tests/vectors/receipts/`)
//! pass or fail as the verifiers say, and a failure names exactly what does not hold.

use std::path::{Path, PathBuf};
use std::process::Command;

fn vector(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../domain/tests/vectors/receipts").join(name)
}

fn verify(file: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_laurel"))
        .arg("verify")
        .arg(file)
        // No stores: verify must not need any.
        .env_remove("LAUREL_DATABASE_URL")
        .env_remove("LAUREL_REDIS_URL")
        .output()
        .expect("run laurel verify");
    (
        out.status.success(),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
    )
}

#[test]
fn a_valid_receipt_verifies_and_says_what_holds() {
    let (ok, said) = verify(&vector("valid_inclusion_rev1.json"));
    assert!(ok, "{said}");
    assert!(said.contains("holds: u5 has rank 3 with 650 points in weekly-xp 2026-W34 revision 1"), "{said}");
    assert!(said.contains("from revision 1 to revision 3"), "{said}");
    let (ok, said) = verify(&vector("valid_absence_rev3.json"));
    assert!(ok && said.contains("u5 has no standing"), "{said}");
}

#[test]
fn a_tampered_receipt_fails_with_exactly_what_does_not_hold() {
    let (ok, said) = verify(&vector("tampered_chain_link.json"));
    assert!(!ok, "{said}");
    assert!(said.contains("FAILS: revision 2's link is"), "{said}");
    let (ok, said) = verify(&vector("tampered_rank.json"));
    assert!(!ok && said.contains("FAILS: the leaf and its proof lead to root"), "{said}");
}

/// The parts of a period export the verifier reads, for one revision of two members.
fn export(tamper: bool) -> serde_json::Value {
    use domain::receipt::{Tree, digest, link};
    let standings: Vec<domain::settlement::Standing> = serde_json::from_value(serde_json::json!([
        {"rank": 1, "member": "u1", "points": 50, "prize": "gold"},
        {"rank": 2, "member": "u2", "points": 30},
    ]))
    .unwrap();
    let d = digest("b", "2026-W34", &standings);
    let mut root = Tree::of_standings(&standings).root();
    let l = link("b", "2026-W34", 1, None, &d, &root);
    if tamper {
        root = format!("{}{}", if root.starts_with('0') { "1" } else { "0" }, &root[1..]);
    }
    serde_json::json!({
        "format": "laurel-period", "format_version": 4, "board": {"slug": "b"}, "period": "2026-W34",
        "settlement": {"revision": 1, "digest": d, "merkle_root": root, "link": l, "standings": standings},
    })
}

#[test]
fn an_export_is_verified_and_a_tampered_one_or_another_file_refused() {
    let dir = std::env::temp_dir().join(format!("laurel-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("export.json");
    std::fs::write(&file, export(false).to_string()).unwrap();
    let (ok, said) = verify(&file);
    assert!(ok && said.contains("holds: revision 1's link holds"), "{said}");
    std::fs::write(&file, export(true).to_string()).unwrap();
    let (ok, said) = verify(&file);
    assert!(!ok && said.contains("FAILS: revision 1's standings give root"), "{said}");
    std::fs::write(&file, r#"{"format": "something-else"}"#).unwrap();
    let (ok, said) = verify(&file);
    assert!(!ok && said.contains("neither a receipt"), "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}
