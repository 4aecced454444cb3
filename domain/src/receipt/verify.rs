//! The verifiers: a receipt's leaf (or absence) against its root and its chain of links, and a
//! period export's revisions against their digests, roots and links, and their segment rankings
//! against the export's segment values — each fact found a [`Finding`].

use super::finding::{self, Finding, Side, Source};
use super::{
    Absence, EXPORT_FORMAT, Proven, RECEIPT_FORMAT, RECEIPT_VERSION, Receipt, Tree, empty_root, link,
    root_of, segments_settled, settlement_digest,
};
use crate::board::SegmentPrizes;
use crate::kinds::TiePolicy;
use crate::segment::Values;
use crate::settlement::{SegmentSettled, Standing, segment_standings};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a verifier found: the facts that hold and the ones that do not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// `receipt`, `export` or `unknown`.
    pub kind: String,
    pub holds: Vec<Finding>,
    pub fails: Vec<Finding>,
}

impl Report {
    fn of(kind: &str) -> Report {
        Report { kind: kind.into(), ..Report::default() }
    }

    /// A report of one failure: what the text is not.
    fn refused(kind: &str, why: Finding) -> Report {
        Report { kind: kind.into(), fails: vec![why], ..Report::default() }
    }

    /// Whether everything checked holds.
    pub fn ok(&self) -> bool {
        self.fails.is_empty() && !self.holds.is_empty()
    }

    fn check(&mut self, holds: bool, fact: Finding, failure: impl FnOnce() -> Finding) {
        if holds { self.holds.push(fact) } else { self.fails.push(failure()) }
    }
}

/// Checks a receipt offline: its leaf (or the absence) against its root, and the chain of links
/// from its revision to the latest one it names.
pub fn verify_receipt(r: &Receipt) -> Report {
    let mut report = Report::of("receipt");
    if r.format != RECEIPT_FORMAT || r.format_version != RECEIPT_VERSION {
        report.fails.push(Finding::UnknownVersion { format: r.format.clone(), version: r.format_version });
        return report;
    }
    match (&r.inclusion, &r.absence) {
        (Some(p), None) => inclusion(&mut report, r, p),
        (None, Some(a)) => absence(&mut report, r, a),
        _ => report.fails.push(Finding::NoProof),
    }
    chain(&mut report, r);
    report
}

fn inclusion(report: &mut Report, r: &Receipt, p: &Proven) {
    let leaf = &p.leaf;
    let named = leaf.member == r.member && leaf.ranking == r.ranking;
    report.check(
        named,
        Finding::LeafIsMembers { member: r.member.clone(), ranking: r.ranking.clone() },
        || Finding::LeafOfAnother {
            leaf_member: leaf.member.clone(),
            leaf_ranking: leaf.ranking.clone(),
            member: r.member.clone(),
            ranking: r.ranking.clone(),
        },
    );
    match root_of(p, r.leaves) {
        Ok(root) => report.check(
            root == r.root,
            Finding::Included {
                member: leaf.member.clone(),
                rank: leaf.rank,
                points: leaf.points,
                prize: leaf.prize.clone(),
                board: r.board.clone(),
                period: r.period.clone(),
                revision: r.revision,
                root: r.root.clone(),
            },
            || Finding::RootDiffers { side: Side::Leaf, root, stated: r.root.clone() },
        ),
        Err(error) => report.fails.push(Finding::ProofBroken { side: Side::Leaf, error }),
    }
}

fn absence(report: &mut Report, r: &Receipt, a: &Absence) {
    let key = (r.ranking.as_str(), r.member.as_str());
    let mut ok = true;
    for (side, p) in [(Side::Before, &a.before), (Side::After, &a.after)] {
        let Some(p) = p else { continue };
        let placed = if side == Side::Before { p.leaf.key() < key } else { p.leaf.key() > key };
        if !placed {
            ok = false;
            report.fails.push(Finding::NeighbourMisplaced {
                side,
                leaf_ranking: p.leaf.ranking.clone(),
                leaf_member: p.leaf.member.clone(),
                ranking: r.ranking.clone(),
                member: r.member.clone(),
            });
        }
        match root_of(p, r.leaves) {
            Ok(root) if root == r.root => {}
            Ok(root) => {
                ok = false;
                report.fails.push(Finding::RootDiffers { side, root, stated: r.root.clone() });
            }
            Err(error) => {
                ok = false;
                report.fails.push(Finding::ProofBroken { side, error });
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
        report.fails.push(Finding::NotAdjacent);
    }
    if ok {
        report.holds.push(Finding::Absent {
            member: r.member.clone(),
            ranking: r.ranking.clone(),
            board: r.board.clone(),
            period: r.period.clone(),
            revision: r.revision,
            root: r.root.clone(),
        });
    }
}

fn chain(report: &mut Report, r: &Receipt) {
    let Some(first) = r.chain.first() else {
        report.fails.push(Finding::NoChain);
        return;
    };
    report.check(
        first.revision == r.revision && first.root == r.root && first.digest == r.digest,
        Finding::ChainStartsAtReceipt { revision: r.revision },
        || Finding::ChainStartDiffers {
            first_revision: first.revision,
            first_root: first.root.clone(),
            first_digest: first.digest.clone(),
            revision: r.revision,
            root: r.root.clone(),
            digest: r.digest.clone(),
        },
    );
    let mut ok = true;
    for (i, c) in r.chain.iter().enumerate() {
        let own = link(&r.board, &r.period, c.revision, c.previous_link.as_deref(), &c.digest, &c.root);
        if own != c.link {
            ok = false;
            report.fails.push(Finding::LinkDiffers {
                revision: c.revision,
                own,
                stated: c.link.clone(),
                source: Source::Chain,
            });
        }
        if let Some(next) = r.chain.get(i + 1)
            && (next.revision != c.revision + 1 || next.previous_link.as_deref() != Some(c.link.as_str()))
        {
            ok = false;
            report.fails.push(Finding::ChainBroken {
                next: next.revision,
                revision: c.revision,
                named: next.previous_link.clone(),
                link: c.link.clone(),
            });
        }
    }
    if ok {
        let last = r.chain.last().expect("a chain");
        report.holds.push(Finding::ChainHolds {
            from: r.revision,
            to: last.revision,
            link: last.link.clone(),
        });
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
    /// Each member's segment values (format version 5).
    #[serde(default)]
    segments: BTreeMap<String, Values>,
}

#[derive(Debug, Deserialize)]
struct ExportBoard {
    slug: String,
    #[serde(default)]
    tie_policy: Option<TiePolicy>,
    #[serde(default)]
    segment_prizes: SegmentPrizes,
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
    #[serde(default)]
    segments: Vec<SegmentSettled>,
}

/// The first export format version that carries each revision's root and link.
pub const EXPORT_RECEIPTS_VERSION: u32 = 4;

/// Checks a period export offline: each revision's standings against its digest and root, the
/// chain of digests and of links.
pub fn verify_export(value: &serde_json::Value) -> Report {
    let e: Export = match serde_json::from_value(value.clone()) {
        Ok(e) => e,
        Err(err) => return Report::refused("export", Finding::NotExport { error: err.to_string() }),
    };
    let mut report = Report::of("export");
    let (board, period) = (e.board.slug.as_str(), e.period.as_str());
    let mut previous: Option<(String, String)> = None;
    for (i, r) in e.revisions.iter().chain([&e.settlement]).enumerate() {
        let n = r.revision;
        if n != i as i64 + 1 {
            report.fails.push(Finding::RevisionOutOfPlace { revision: n, position: i + 1 });
        }
        let own = settlement_digest(board, period, &r.standings, &r.segments);
        report.check(own == r.digest, Finding::DigestHolds { revision: n }, || Finding::DigestDiffers {
            revision: n,
            own,
            stated: r.digest.clone(),
        });
        // The export's segment values are the period's now: a move may have changed them since
        // an earlier revision, whose records are held by its digest and the chain instead.
        let latest = i == e.revisions.len();
        if latest && (!e.segments.is_empty() || !r.segments.is_empty()) {
            check_segments(&mut report, &e, r);
        }
        let named = previous.as_ref().map(|(d, _)| d.clone());
        report.check(r.previous_digest == named, Finding::PreviousHolds { revision: n }, || {
            Finding::PreviousDiffers {
                revision: n,
                named: r.previous_digest.clone(),
                expected: named.clone(),
            }
        });
        let root = Tree::of_standings(&r.standings).root();
        let own_link = link(board, period, n, previous.as_ref().map(|(_, l)| l.as_str()), &r.digest, &root);
        if e.format_version >= EXPORT_RECEIPTS_VERSION || r.merkle_root.is_some() {
            let stated = finding::or_none(&r.merkle_root);
            report.check(stated == root, Finding::RootHolds { revision: n, root: root.clone() }, || {
                Finding::StandingsRootDiffers { revision: n, own: root.clone(), stated: stated.into() }
            });
            let stated = finding::or_none(&r.link);
            report.check(
                stated == own_link,
                Finding::LinkHolds { revision: n, link: own_link.clone() },
                || Finding::LinkDiffers {
                    revision: n,
                    own: own_link.clone(),
                    stated: stated.into(),
                    source: Source::Export,
                },
            );
        }
        previous = Some((r.digest.clone(), own_link));
    }
    report
}

/// Recomputes the latest revision's segment rankings from its standings and the export's segment values
/// (`crate::settlement::segment_standings`, with the board's segment prize tables) and compares
/// each one's member count and digest with the revision's records.
fn check_segments(report: &mut Report, e: &Export, r: &ExportRevision) {
    let (board, period, n) = (e.board.slug.as_str(), e.period.as_str(), r.revision);
    let policy = e.board.tie_policy.unwrap_or(TiePolicy::Shared);
    let rankings =
        segment_standings(policy, &r.standings, |m| e.segments.get(m.as_str()), &e.board.segment_prizes);
    let own = segments_settled(board, period, &rankings);
    let name = |s: &SegmentSettled| format!("{}:{}", s.dimension, s.value);
    let stated: BTreeMap<String, &SegmentSettled> = r.segments.iter().map(|s| (name(s), s)).collect();
    let computed: BTreeMap<String, &SegmentSettled> = own.iter().map(|s| (name(s), s)).collect();
    let said = |s: Option<&&SegmentSettled>| {
        s.map_or("none".to_owned(), |s| format!("{} members, {}", s.members, s.digest))
    };
    let mut ok = true;
    for segment in stated.keys().chain(computed.keys()).collect::<std::collections::BTreeSet<_>>() {
        let (a, b) = (computed.get(segment), stated.get(segment));
        if a != b {
            ok = false;
            report.fails.push(Finding::SegmentDiffers {
                revision: n,
                segment: segment.clone(),
                own: said(a),
                stated: said(b),
            });
        }
    }
    if ok {
        report.holds.push(Finding::SegmentsHold { revision: n, rankings: own.len() });
    }
}

/// Checks a receipt or a period export given as JSON text, telling them apart by `format`.
pub fn verify_json(text: &str) -> Report {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return Report::refused("unknown", Finding::NotJson { error: e.to_string() }),
    };
    match value.get("format").and_then(|f| f.as_str()) {
        Some(RECEIPT_FORMAT) => match serde_json::from_value::<Receipt>(value) {
            Ok(r) => verify_receipt(&r),
            Err(e) => Report::refused("receipt", Finding::NotReceipt { error: e.to_string() }),
        },
        Some(EXPORT_FORMAT) => verify_export(&value),
        other => Report::refused("unknown", Finding::UnknownFormat { format: other.map(str::to_owned) }),
    }
}
