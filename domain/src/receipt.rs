//! Receipts: a Merkle tree over a settlement revision's standings, so one member can check their
//! standing (or their absence) against the revision's root, and the root against the chain of
//! revisions, with nothing but the receipt (docs/RECEIPTS.md is the format, with a Python verifier).
//!
//! - A leaf is one standing of one ranking (`board` for the board's own standings; other names are
//!   reserved for segment rankings): its bytes are netstrings (`<len>:<bytes>,`) of the tag
//!   `laurel-leaf-1`, the ranking, the member, the rank, the points and the prize (empty for none).
//! - Leaves are sorted by (ranking, member) in byte order, so a member's absence is proved by its two
//!   neighbours. Leaf hash = SHA-256(0x00 ‖ leaf), node = SHA-256(0x01 ‖ left ‖ right); an odd last
//!   node is promoted unchanged; the root of no leaves is SHA-256 of nothing.
//! - A revision's chain link = SHA-256 of netstrings of `laurel-link-1`, board, period, revision,
//!   the previous revision's link (empty for revision 1), the revision's digest and root (all hex).
//!
//! The verifiers ([`verify_receipt`], [`verify_export`], [`verify_json`]) answer a [`Report`]: each
//! fact that holds, and exactly what does not.

use crate::settlement::{Standing, canonical_text};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The ranking of a board's own standings.
pub const BOARD_RANKING: &str = "board";
/// The `format` of a receipt; [`RECEIPT_VERSION`] rises with any change of its shape.
pub const RECEIPT_FORMAT: &str = "laurel-receipt";
pub const RECEIPT_VERSION: u32 = 1;
/// The `format` of a period export (`engine::transfer`), which [`verify_json`] also recognises.
pub const EXPORT_FORMAT: &str = "laurel-period";

type Hash = [u8; 32];

/// One leaf of the tree: a standing of one ranking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Leaf {
    pub ranking: String,
    pub member: String,
    pub rank: u64,
    pub points: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prize: Option<String>,
}

impl Leaf {
    /// The board ranking's leaf of a standing.
    pub fn of(s: &Standing) -> Leaf {
        Leaf {
            ranking: BOARD_RANKING.into(),
            member: s.member.as_str().into(),
            rank: s.rank,
            points: s.points,
            prize: s.prize.clone(),
        }
    }

    /// The canonical bytes of the leaf.
    pub fn bytes(&self) -> Vec<u8> {
        netstrings(&[
            b"laurel-leaf-1",
            self.ranking.as_bytes(),
            self.member.as_bytes(),
            self.rank.to_string().as_bytes(),
            self.points.to_string().as_bytes(),
            self.prize.as_deref().unwrap_or("").as_bytes(),
        ])
    }

    fn key(&self) -> (&str, &str) {
        (&self.ranking, &self.member)
    }

    fn hash(&self) -> Hash {
        let mut h = Sha256::new();
        h.update([0u8]);
        h.update(self.bytes());
        h.finalize().into()
    }
}

fn netstrings(fields: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in fields {
        out.extend_from_slice(f.len().to_string().as_bytes());
        out.push(b':');
        out.extend_from_slice(f);
        out.push(b',');
    }
    out
}

fn node(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// Lower-case hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The root of no leaves.
pub fn empty_root() -> String {
    hex(&Sha256::digest(b""))
}

/// A revision's chain link (hex): see the module's doc.
pub fn link(
    board: &str,
    period: &str,
    revision: i64,
    previous: Option<&str>,
    digest: &str,
    root: &str,
) -> String {
    hex(&Sha256::digest(netstrings(&[
        b"laurel-link-1",
        board.as_bytes(),
        period.as_bytes(),
        revision.to_string().as_bytes(),
        previous.unwrap_or("").as_bytes(),
        digest.as_bytes(),
        root.as_bytes(),
    ])))
}

/// The settlement digest of standings (SHA-256 of `canonical_text`, hex).
pub fn digest(board: &str, period: &str, standings: &[Standing]) -> String {
    hex(&Sha256::digest(canonical_text(board, period, standings).as_bytes()))
}

/// A built tree: the sorted leaves and every level of hashes, leaves first.
#[derive(Debug, Clone)]
pub struct Tree {
    leaves: Vec<Leaf>,
    levels: Vec<Vec<Hash>>,
}

/// A leaf with where it is and the hashes that lead from it to the root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Proven {
    pub index: u64,
    pub leaf: Leaf,
    /// The sibling hashes (hex) from the leaf up; a promoted node has none at its level.
    pub proof: Vec<String>,
}

/// A member's absence: the neighbouring leaves in sort order (one at an edge, none when empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Absence {
    pub before: Option<Proven>,
    pub after: Option<Proven>,
}

/// What a tree proves of a member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Membership {
    Included(Proven),
    Absent(Absence),
}

impl Tree {
    /// The tree of leaves (sorted here).
    pub fn new(mut leaves: Vec<Leaf>) -> Tree {
        leaves.sort_unstable_by(|a, b| a.key().cmp(&b.key()));
        let mut levels = vec![leaves.iter().map(Leaf::hash).collect::<Vec<_>>()];
        while levels.last().is_some_and(|l| l.len() > 1) {
            let below = levels.last().expect("a level");
            let up = below
                .chunks(2)
                .map(|pair| match pair {
                    [l, r] => node(l, r),
                    [only] => *only,
                    _ => unreachable!("chunks of two"),
                })
                .collect();
            levels.push(up);
        }
        Tree { leaves, levels }
    }

    /// The tree of a revision's standings (the board ranking).
    pub fn of_standings(standings: &[Standing]) -> Tree {
        Tree::new(standings.iter().map(Leaf::of).collect())
    }

    pub fn len(&self) -> usize {
        self.leaves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.leaves.is_empty()
    }

    /// The root (hex).
    pub fn root(&self) -> String {
        match self.levels.last().and_then(|l| l.first()) {
            Some(root) => hex(root),
            None => empty_root(),
        }
    }

    fn proven(&self, index: usize) -> Proven {
        let mut proof = Vec::new();
        let mut i = index;
        for level in &self.levels[..self.levels.len() - 1] {
            let sibling = i ^ 1;
            if sibling < level.len() {
                proof.push(hex(&level[sibling]));
            }
            i /= 2;
        }
        Proven { index: index as u64, leaf: self.leaves[index].clone(), proof }
    }

    /// The member's leaf in `ranking` with its proof, or the proof of its absence.
    pub fn membership(&self, ranking: &str, member: &str) -> Membership {
        match self.leaves.binary_search_by(|l| l.key().cmp(&(ranking, member))) {
            Ok(i) => Membership::Included(self.proven(i)),
            Err(i) => Membership::Absent(Absence {
                before: i.checked_sub(1).map(|b| self.proven(b)),
                after: (i < self.leaves.len()).then(|| self.proven(i)),
            }),
        }
    }
}

/// The root a leaf and its proof lead to, if the proof has the length its index and the leaf
/// count call for.
fn root_of(p: &Proven, leaves: u64) -> Result<String, String> {
    if p.index >= leaves {
        return Err(format!("leaf index {} is not below the leaf count {leaves}", p.index));
    }
    let mut h = p.leaf.hash();
    let (mut i, mut width) = (p.index, leaves);
    let mut steps = p.proof.iter();
    while width > 1 {
        let sibling = i ^ 1;
        if sibling < width {
            let step = steps.next().ok_or("the proof is shorter than the tree is high")?;
            let s = unhex(step).ok_or_else(|| format!("proof step {step:?} is not 32 bytes of hex"))?;
            h = if i % 2 == 1 { node(&s, &h) } else { node(&h, &s) };
        }
        i /= 2;
        width = width.div_ceil(2);
    }
    if steps.next().is_some() {
        return Err("the proof is longer than the tree is high".into());
    }
    Ok(hex(&h))
}

fn unhex(s: &str) -> Option<Hash> {
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// One revision in a receipt's chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChainLink {
    pub revision: i64,
    /// The link of the revision before (none for revision 1).
    pub previous_link: Option<String>,
    pub digest: String,
    pub root: String,
    pub link: String,
}

/// A member's receipt for one settlement revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Receipt {
    /// Always [`RECEIPT_FORMAT`].
    pub format: String,
    pub format_version: u32,
    pub board: String,
    pub period: String,
    pub revision: i64,
    pub ranking: String,
    pub member: String,
    /// How many leaves the tree has.
    pub leaves: u64,
    pub root: String,
    pub digest: String,
    /// The member's leaf and its proof, when it has a standing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inclusion: Option<Proven>,
    /// Otherwise the proof of its absence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absence: Option<Absence>,
    /// The revisions from this one to the latest, each naming the link before it.
    pub chain: Vec<ChainLink>,
}

impl Receipt {
    /// The receipt of `member` in `tree`, the tree of `chain[0]`'s revision.
    pub fn new(board: &str, period: &str, tree: &Tree, member: &str, chain: Vec<ChainLink>) -> Receipt {
        let first = chain.first();
        let (inclusion, absence) = match tree.membership(BOARD_RANKING, member) {
            Membership::Included(p) => (Some(p), None),
            Membership::Absent(a) => (None, Some(a)),
        };
        Receipt {
            format: RECEIPT_FORMAT.into(),
            format_version: RECEIPT_VERSION,
            board: board.into(),
            period: period.into(),
            revision: first.map_or(0, |c| c.revision),
            ranking: BOARD_RANKING.into(),
            member: member.into(),
            leaves: tree.len() as u64,
            root: tree.root(),
            digest: first.map_or_else(String::new, |c| c.digest.clone()),
            inclusion,
            absence,
            chain,
        }
    }
}

/// What a verifier found: the facts that hold and the ones that do not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// `receipt` or `export`.
    pub kind: String,
    pub holds: Vec<String>,
    pub fails: Vec<String>,
}

impl Report {
    /// Whether everything checked holds.
    pub fn ok(&self) -> bool {
        self.fails.is_empty() && !self.holds.is_empty()
    }

    fn check(&mut self, holds: bool, fact: impl Into<String>, failure: impl FnOnce() -> String) {
        if holds { self.holds.push(fact.into()) } else { self.fails.push(failure()) }
    }
}

/// Checks a receipt offline: its leaf (or the absence) against its root, and the chain of links
/// from its revision to the latest one it names.
pub fn verify_receipt(r: &Receipt) -> Report {
    let mut report = Report { kind: "receipt".into(), ..Report::default() };
    if r.format != RECEIPT_FORMAT || r.format_version != RECEIPT_VERSION {
        report.fails.push(format!(
            "not a receipt this version reads (format {:?} version {})",
            r.format, r.format_version
        ));
        return report;
    }
    let at = format!("{} {} revision {}", r.board, r.period, r.revision);
    match (&r.inclusion, &r.absence) {
        (Some(p), None) => {
            let leaf = &p.leaf;
            let named = leaf.member == r.member && leaf.ranking == r.ranking;
            report.check(named, format!("the leaf is {}'s in ranking {}", r.member, r.ranking), || {
                format!(
                    "the leaf is {}'s in ranking {}, the receipt is for {} in {}",
                    leaf.member, leaf.ranking, r.member, r.ranking
                )
            });
            match root_of(p, r.leaves) {
                Ok(root) => report.check(
                    root == r.root,
                    format!(
                        "{} has rank {} with {} points{} in {at}: the leaf and its proof lead to root {}",
                        leaf.member,
                        leaf.rank,
                        leaf.points,
                        leaf.prize.as_ref().map(|p| format!(" and prize {p:?}")).unwrap_or_default(),
                        r.root
                    ),
                    || format!("the leaf and its proof lead to root {root}, the receipt says {}", r.root),
                ),
                Err(e) => report.fails.push(format!("the inclusion proof does not hold: {e}")),
            }
        }
        (None, Some(a)) => absence(&mut report, r, a, &at),
        _ => report.fails.push("a receipt holds either an inclusion or an absence proof".into()),
    }
    chain(&mut report, r);
    report
}

fn absence(report: &mut Report, r: &Receipt, a: &Absence, at: &str) {
    let key = (r.ranking.as_str(), r.member.as_str());
    let mut ok = true;
    for (side, p) in [("before", &a.before), ("after", &a.after)] {
        let Some(p) = p else { continue };
        let placed = if side == "before" { p.leaf.key() < key } else { p.leaf.key() > key };
        if !placed {
            ok = false;
            report.fails.push(format!(
                "the leaf {side} ({}, {}) does not sort {side} ({}, {})",
                p.leaf.ranking, p.leaf.member, r.ranking, r.member
            ));
        }
        match root_of(p, r.leaves) {
            Ok(root) if root == r.root => {}
            Ok(root) => {
                ok = false;
                report.fails.push(format!(
                    "the leaf {side} and its proof lead to root {root}, the receipt says {}",
                    r.root
                ));
            }
            Err(e) => {
                ok = false;
                report.fails.push(format!("the proof of the leaf {side} does not hold: {e}"));
            }
        }
    }
    let adjacent = match (&a.before, &a.after) {
        (Some(b), Some(f)) => f.index == b.index + 1,
        (None, Some(f)) => f.index == 0,
        (Some(b), None) => b.index + 1 == r.leaves,
        (None, None) => r.leaves == 0 && r.root == empty_root(),
    };
    if !adjacent {
        ok = false;
        report.fails.push("the neighbours are not next to each other in the tree".into());
    }
    if ok {
        report
            .holds
            .push(format!("{} has no standing in ranking {} of {at} (root {})", r.member, r.ranking, r.root));
    }
}

fn chain(report: &mut Report, r: &Receipt) {
    let Some(first) = r.chain.first() else {
        report.fails.push("the receipt has no chain".into());
        return;
    };
    report.check(
        first.revision == r.revision && first.root == r.root && first.digest == r.digest,
        format!("revision {} of the chain has the receipt's root and digest", r.revision),
        || {
            format!(
                "the chain starts at revision {} with root {} and digest {}, the receipt is of revision {} \
                 with root {} and digest {}",
                first.revision, first.root, first.digest, r.revision, r.root, r.digest
            )
        },
    );
    let mut ok = true;
    for (i, c) in r.chain.iter().enumerate() {
        let own = link(&r.board, &r.period, c.revision, c.previous_link.as_deref(), &c.digest, &c.root);
        if own != c.link {
            ok = false;
            report.fails.push(format!("revision {}'s link is {own}, the chain says {}", c.revision, c.link));
        }
        if let Some(next) = r.chain.get(i + 1)
            && (next.revision != c.revision + 1 || next.previous_link.as_deref() != Some(c.link.as_str()))
        {
            ok = false;
            report.fails.push(format!(
                "revision {} does not follow revision {} (it names link {:?}, revision {} has {})",
                next.revision, c.revision, next.previous_link, c.revision, c.link
            ));
        }
    }
    if ok {
        let last = r.chain.last().expect("a chain");
        report.holds.push(format!(
            "the chain of links holds from revision {} to revision {} (link {})",
            r.revision, last.revision, last.link
        ));
    }
}

/// The parts of a period export (`engine::transfer::PeriodExport`) the verifier reads.
#[derive(Debug, Deserialize)]
struct Export {
    format_version: u32,
    board: ExportBoard,
    period: String,
    settlement: ExportRevision,
    #[serde(default)]
    revisions: Vec<ExportRevision>,
}

#[derive(Debug, Deserialize)]
struct ExportBoard {
    slug: String,
}

#[derive(Debug, Deserialize)]
struct ExportRevision {
    revision: i64,
    digest: String,
    #[serde(default)]
    previous_digest: Option<String>,
    #[serde(default)]
    merkle_root: Option<String>,
    #[serde(default)]
    link: Option<String>,
    standings: Vec<Standing>,
}

/// The first export format version that carries each revision's root and link.
pub const EXPORT_RECEIPTS_VERSION: u32 = 4;

/// Checks a period export offline: each revision's standings against its digest and root, the
/// chain of digests and of links.
pub fn verify_export(value: &serde_json::Value) -> Report {
    let mut report = Report { kind: "export".into(), ..Report::default() };
    let e: Export = match serde_json::from_value(value.clone()) {
        Ok(e) => e,
        Err(err) => {
            report.fails.push(format!("not a period export: {err}"));
            return report;
        }
    };
    let (board, period) = (e.board.slug.as_str(), e.period.as_str());
    let mut previous: Option<(String, String)> = None;
    for (i, r) in e.revisions.iter().chain([&e.settlement]).enumerate() {
        let n = r.revision;
        if n != i as i64 + 1 {
            report.fails.push(format!("revision {n} is number {} in the export", i + 1));
        }
        let own = digest(board, period, &r.standings);
        report.check(own == r.digest, format!("revision {n}'s standings give its digest"), || {
            format!("revision {n}'s standings give digest {own}, the export says {}", r.digest)
        });
        let named = previous.as_ref().map(|(d, _)| d.as_str());
        report.check(
            r.previous_digest.as_deref() == named,
            format!("revision {n} names the digest before it"),
            || format!("revision {n} names {:?} as the digest before it, not {named:?}", r.previous_digest),
        );
        let root = Tree::of_standings(&r.standings).root();
        let own_link = link(board, period, n, previous.as_ref().map(|(_, l)| l.as_str()), &r.digest, &root);
        if e.format_version >= EXPORT_RECEIPTS_VERSION || r.merkle_root.is_some() {
            let stated = r.merkle_root.as_deref().unwrap_or("(none)");
            report.check(stated == root, format!("revision {n}'s standings give its root {root}"), || {
                format!("revision {n}'s standings give root {root}, the export says {stated}")
            });
            let stated = r.link.as_deref().unwrap_or("(none)");
            report.check(stated == own_link, format!("revision {n}'s link holds ({own_link})"), || {
                format!("revision {n}'s link is {own_link}, the export says {stated}")
            });
        }
        previous = Some((r.digest.clone(), own_link));
    }
    report
}

/// Checks a receipt or a period export given as JSON text, telling them apart by `format`.
pub fn verify_json(text: &str) -> Report {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Report {
                kind: "unknown".into(),
                fails: vec![format!("not JSON: {e}")],
                ..Report::default()
            };
        }
    };
    match value.get("format").and_then(|f| f.as_str()) {
        Some(RECEIPT_FORMAT) => match serde_json::from_value::<Receipt>(value) {
            Ok(r) => verify_receipt(&r),
            Err(e) => Report {
                kind: "receipt".into(),
                fails: vec![format!("not a receipt: {e}")],
                ..Report::default()
            },
        },
        Some(EXPORT_FORMAT) => verify_export(&value),
        other => Report {
            kind: "unknown".into(),
            fails: vec![format!(
                "neither a receipt ({RECEIPT_FORMAT:?}) nor a period export ({EXPORT_FORMAT:?}): format is {other:?}"
            )],
            ..Report::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemberId;

    fn standings(n: usize) -> Vec<Standing> {
        (0..n)
            .map(|i| Standing {
                rank: i as u64 + 1,
                member: MemberId::parse(format!("m{i:03}")).unwrap(),
                points: 1000 - i as i64,
                prize: (i == 0).then(|| "gold".into()),
            })
            .collect()
    }

    fn receipt(n: usize, member: &str) -> Receipt {
        let s = standings(n);
        let tree = Tree::of_standings(&s);
        let d = digest("b", "2026-W01", &s);
        let root = tree.root();
        let l = link("b", "2026-W01", 1, None, &d, &root);
        let chain = vec![ChainLink { revision: 1, previous_link: None, digest: d, root, link: l }];
        Receipt::new("b", "2026-W01", &tree, member, chain)
    }

    #[test]
    fn every_member_of_trees_of_every_size_has_a_receipt_that_verifies() {
        for n in 0..20 {
            for i in 0..n {
                let r = receipt(n, &format!("m{i:03}"));
                assert!(verify_receipt(&r).ok(), "{n} {i}: {:?}", verify_receipt(&r));
            }
            for absent in ["a", "m0005x", "z"] {
                let r = receipt(n, absent);
                assert!(r.absence.is_some());
                assert!(verify_receipt(&r).ok(), "{n} {absent}: {:?}", verify_receipt(&r));
            }
        }
    }

    #[test]
    fn a_changed_leaf_or_neighbour_is_refused() {
        let mut r = receipt(7, "m003");
        r.inclusion.as_mut().unwrap().leaf.points += 1;
        assert!(!verify_receipt(&r).ok());
        let mut r = receipt(7, "m0035");
        // Claiming a non-adjacent neighbour: skip a member that is in the tree.
        let tree = Tree::of_standings(&standings(7));
        let Membership::Included(far) = tree.membership(BOARD_RANKING, "m005") else { panic!() };
        r.absence.as_mut().unwrap().after = Some(far);
        let report = verify_receipt(&r);
        assert!(!report.ok() && report.fails.iter().any(|f| f.contains("next to each other")), "{report:?}");
    }
}
