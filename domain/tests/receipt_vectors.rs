//! The shared receipt vectors (`domain/tests/vectors/receipts/`): what the code makes is what is
//! committed, every `valid_*` file verifies and every `tampered_*` one is refused — by the Rust
//! verifier and by docs/verify_receipt.py alike (`laurel verify` and the `/verify` page use the
//! Rust one). `LAUREL_WRITE_VECTORS=1` rewrites the files after a deliberate change of the format.

use domain::MemberId;
use domain::receipt::{ChainLink, Receipt, Tree, digest, link, verify_json, verify_receipt};
use domain::settlement::Standing;
use std::path::{Path, PathBuf};

const BOARD: &str = "weekly-xp";
const PERIOD: &str = "2026-W34";

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/receipts")
}

fn standing(rank: u64, member: &str, points: i64, prize: Option<&str>) -> Standing {
    Standing { rank, member: MemberId::parse(member).unwrap(), points, prize: prize.map(Into::into) }
}

/// Three revisions of one period: a correction lowers u3, then u5's entries are revoked.
fn revisions() -> Vec<Vec<Standing>> {
    vec![
        vec![
            standing(1, "u3", 900, Some("gold")),
            standing(2, "u1", 700, Some("silver")),
            standing(3, "u7", 650, None),
            standing(3, "u5", 650, None),
            standing(5, "u2", -20, None),
        ],
        vec![
            standing(1, "u1", 700, Some("gold")),
            standing(2, "u7", 650, Some("silver")),
            standing(2, "u5", 650, Some("silver")),
            standing(4, "u3", 600, None),
            standing(5, "u2", -20, None),
        ],
        vec![
            standing(1, "u1", 700, Some("gold")),
            standing(2, "u7", 650, Some("silver")),
            standing(3, "u3", 600, None),
            standing(4, "u2", -20, None),
        ],
    ]
}

fn chain(revisions: &[Vec<Standing>]) -> Vec<ChainLink> {
    let mut chain: Vec<ChainLink> = Vec::new();
    for (i, s) in revisions.iter().enumerate() {
        let (d, root) = (digest(BOARD, PERIOD, s), Tree::of_standings(s).root());
        let previous_link = chain.last().map(|c| c.link.clone());
        let l = link(BOARD, PERIOD, i as i64 + 1, previous_link.as_deref(), &d, &root);
        chain.push(ChainLink { revision: i as i64 + 1, previous_link, digest: d, root, link: l });
    }
    chain
}

fn receipt(revision: usize, member: &str) -> Receipt {
    let all = revisions();
    let tree = Tree::of_standings(&all[revision - 1]);
    Receipt::new(BOARD, PERIOD, &tree, member, chain(&all)[revision - 1..].to_vec())
}

fn flip(hex: &mut String) {
    let last = if hex.ends_with('0') { '1' } else { '0' };
    hex.pop();
    hex.push(last);
}

/// Every vector by file name.
fn vectors() -> Vec<(&'static str, Receipt)> {
    let valid = receipt(1, "u5");
    let mut v = vec![
        ("valid_inclusion_rev1.json", valid.clone()),
        ("valid_inclusion_latest.json", receipt(3, "u3")),
        ("valid_absence_rev3.json", receipt(3, "u5")),
        ("valid_absence_edge.json", receipt(2, "u9")),
    ];
    let mut t = valid.clone();
    t.inclusion.as_mut().unwrap().leaf.points = 651;
    v.push(("tampered_leaf.json", t));
    let mut t = valid.clone();
    t.inclusion.as_mut().unwrap().leaf.rank = 2;
    v.push(("tampered_rank.json", t));
    let mut t = valid.clone();
    t.member = "u7".into();
    t.inclusion.as_mut().unwrap().leaf.member = "u7".into();
    v.push(("tampered_member.json", t));
    let mut t = valid.clone();
    flip(&mut t.inclusion.as_mut().unwrap().proof[0]);
    v.push(("tampered_proof_step.json", t));
    let mut t = valid.clone();
    flip(&mut t.root);
    flip(&mut t.chain[0].root);
    v.push(("tampered_root.json", t));
    let mut t = valid.clone();
    flip(&mut t.chain[1].link);
    v.push(("tampered_chain_link.json", t));
    let mut t = receipt(3, "u5");
    // Claim u5 absent with neighbours that are not next to each other.
    let far = receipt(3, "u2").inclusion.unwrap();
    t.absence.as_mut().unwrap().before = Some(far);
    v.push(("tampered_absence.json", t));
    v
}

#[test]
fn the_committed_vectors_are_what_the_code_makes() {
    for (name, r) in vectors() {
        let text = serde_json::to_string_pretty(&r).unwrap() + "\n";
        let path = dir().join(name);
        if std::env::var_os("LAUREL_WRITE_VECTORS").is_some() {
            std::fs::create_dir_all(dir()).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{name}");
    }
}

fn files() -> Vec<(String, String)> {
    let mut out: Vec<_> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    assert!(out.iter().filter(|(n, _)| n.starts_with("valid_")).count() >= 2, "{out:?}");
    assert!(out.iter().filter(|(n, _)| n.starts_with("tampered_")).count() >= 6, "{out:?}");
    out
}

#[test]
fn the_rust_verifier_accepts_the_valid_vectors_and_refuses_the_tampered_ones() {
    for (name, text) in files() {
        let report = verify_json(&text);
        assert_eq!(report.kind, "receipt", "{name}");
        if name.starts_with("valid_") {
            assert!(report.ok(), "{name}: {report:?}");
        } else {
            assert!(!report.ok() && !report.fails.is_empty(), "{name} verifies: {report:?}");
        }
    }
    // What each tampering breaks, exactly.
    let fails = |name: &str| -> Vec<String> {
        let report = verify_json(&std::fs::read_to_string(dir().join(name)).unwrap());
        report.fails.iter().map(ToString::to_string).collect()
    };
    assert!(fails("tampered_chain_link.json").iter().any(|f| f.starts_with("revision 2's link is")));
    assert!(fails("tampered_absence.json").iter().any(|f| f.contains("not next to each other")));
    assert!(fails("tampered_leaf.json").iter().any(|f| f.contains("lead to root")));
    let ok = verify_receipt(&receipt(1, "u5"));
    assert!(
        ok.holds.iter().any(|h| h
            .to_string()
            .starts_with("u5 has rank 3 with 650 points in weekly-xp 2026-W34 revision 1")),
        "{ok:?}"
    );
    assert!(ok.holds.iter().any(|h| h.to_string().contains("from revision 1 to revision 3")), "{ok:?}");
}

#[test]
fn the_python_verifier_accepts_the_valid_vectors_and_refuses_the_tampered_ones() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/verify_receipt.py");
    for (name, _) in files() {
        let out = std::process::Command::new("python3")
            .arg(&script)
            .arg(dir().join(&name))
            .output()
            .expect("python3 runs docs/verify_receipt.py");
        let said =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        if name.starts_with("valid_") {
            assert!(out.status.success() && said.starts_with("ok: "), "{name}: {said}");
        } else {
            assert!(!out.status.success() && said.contains("AssertionError"), "{name} accepted: {said}");
        }
    }
}
