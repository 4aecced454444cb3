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

use crate::segment::Segment;
use crate::settlement::{
    SegmentSettled, SegmentStandings, Standing, canonical_text, folded_text, segment_canonical_text,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

mod finding;
mod verify;
pub use finding::{Finding, ProofError, Side, Source};
pub use verify::{EXPORT_RECEIPTS_VERSION, Report, verify_export, verify_json, verify_receipt};

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

/// The digest of one segment ranking's standings (SHA-256 of `segment_canonical_text`, hex).
pub fn segment_digest(board: &str, period: &str, segment: &Segment, standings: &[Standing]) -> String {
    hex(&Sha256::digest(segment_canonical_text(board, period, segment, standings).as_bytes()))
}

/// Every segment ranking's record of a settlement, from its standings.
pub fn segments_settled(board: &str, period: &str, rankings: &[SegmentStandings]) -> Vec<SegmentSettled> {
    rankings
        .iter()
        .map(|r| SegmentSettled {
            dimension: r.segment.dimension.clone(),
            value: r.segment.value.clone(),
            members: r.standings.len() as u64,
            digest: segment_digest(board, period, &r.segment, &r.standings),
        })
        .collect()
}

/// A settlement's digest: its standings' digest when it has no segment ranking, else the
/// SHA-256 of `folded_text` over that digest and every segment ranking's (`crate::settlement`).
pub fn settlement_digest(
    board: &str,
    period: &str,
    standings: &[Standing],
    segments: &[SegmentSettled],
) -> String {
    let own = digest(board, period, standings);
    match segments.is_empty() {
        true => own,
        false => hex(&Sha256::digest(folded_text(board, period, &own, segments).as_bytes())),
    }
}

/// A season's settlement digest: the SHA-256 of `season_text` over its own settlement digest
/// and its weeks' (`crate::settlement`).
pub fn season_digest(
    board: &str,
    period: &str,
    own_digest: &str,
    source: &str,
    weeks: &[crate::settlement::SeasonWeek],
) -> String {
    hex(&Sha256::digest(crate::settlement::season_text(board, period, own_digest, source, weeks).as_bytes()))
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
fn root_of(p: &Proven, leaves: u64) -> Result<String, ProofError> {
    if p.index >= leaves {
        return Err(ProofError::IndexOutOfRange { index: p.index, leaves });
    }
    let mut h = p.leaf.hash();
    let (mut i, mut width) = (p.index, leaves);
    let mut steps = p.proof.iter();
    while width > 1 {
        let sibling = i ^ 1;
        if sibling < width {
            let step = steps.next().ok_or(ProofError::TooShort)?;
            let s = unhex(step).ok_or_else(|| ProofError::NotHex { step: step.clone() })?;
            h = if i % 2 == 1 { node(&s, &h) } else { node(&h, &s) };
        }
        i /= 2;
        width = width.div_ceil(2);
    }
    if steps.next().is_some() {
        return Err(ProofError::TooLong);
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
        assert!(!report.ok() && report.fails.contains(&Finding::NotAdjacent), "{report:?}");
    }
}
