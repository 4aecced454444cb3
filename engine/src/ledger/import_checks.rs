//! What an export must hold before its import writes anything (`import.rs`): a settled period
//! under this build's rules, segment values its board declares, and an unbroken chain of
//! settlement revisions.

use super::LedgerError;
use crate::transfer::PeriodExport;
use domain::ErrorCode;
use domain::lifecycle::State;
use domain::receipt::{self, ChainLink, Tree};
use domain::settlement::RULE_VERSION;
use domain::{Board, MemberId};
use std::collections::HashSet;

/// Only a settled or archived period, settled under this build's rules, can be imported.
pub(super) fn check_importable(export: &PeriodExport) -> Result<(), LedgerError> {
    if !matches!(export.state, State::Settled | State::Archived) {
        return Err(LedgerError::refused(
            ErrorCode::NotSettled,
            format!("the export's period is {}", export.state),
        ));
    }
    if export.settlement.rule_version != RULE_VERSION {
        return Err(LedgerError::refused(
            ErrorCode::RuleVersionMismatch,
            format!(
                "the export was settled under rule version {}; this ledger settles under {RULE_VERSION}",
                export.settlement.rule_version
            ),
        ));
    }
    Ok(())
}

/// The export's segment values must name dimensions its board declares, values shaped as a
/// write's, and only members with entries in the period (a write fixes values only when it
/// records an entry).
pub(super) fn check_memberships(board: &Board, export: &PeriodExport) -> Result<(), LedgerError> {
    let invalid = |detail: String| LedgerError::refused(ErrorCode::InvalidExport, detail);
    if export.segments.is_empty() {
        return Ok(());
    }
    let with_entries: HashSet<&MemberId> = export.entries.iter().map(|e| &e.member).collect();
    for (member, values) in &export.segments {
        if !with_entries.contains(member) {
            return Err(invalid(format!("the export gives segment values to {member}, who has no entries")));
        }
        domain::segment::check_values(&board.segments, values)
            .map_err(|e| invalid(format!("the segment values of {member}: {e}")))?;
    }
    Ok(())
}

/// The export's revisions must be 1, 2, … up to the latest, each hashing to its digest and
/// naming the digest of the one before (the first names none): the hash chain a re-settlement
/// writes. The latest revision's own digest is checked against the standings recomputed from
/// the entries. Each revision's receipts root and chain link are computed from its standings; an
/// export that states them (format version 4) must state the same (`chain_broken` otherwise).
/// Answers the chain, oldest first.
pub(super) fn check_chain(export: &PeriodExport) -> Result<Vec<ChainLink>, LedgerError> {
    let (slug, key) = (export.board.slug.as_str(), export.period.to_string());
    let broken = |detail: String| LedgerError::refused(ErrorCode::ChainBroken, detail);
    let mut previous: Option<&str> = None;
    let mut chain: Vec<ChainLink> = Vec::new();
    for (i, r) in export.revisions.iter().chain([&export.settlement]).enumerate() {
        if r.revision != i as i64 + 1 {
            return Err(broken(format!("revision {} where revision {} was expected", r.revision, i + 1)));
        }
        if r.previous_digest.as_deref() != previous {
            return Err(broken(format!(
                "revision {} names {:?} as the digest before it; revision {} has {:?}",
                r.revision, r.previous_digest, i, previous
            )));
        }
        let last = i == export.revisions.len();
        // An earlier revision's segment records are taken as stated: its digest must fold them.
        let own = receipt::settlement_digest(slug, &key, &r.standings, &r.segments);
        if !last && own != r.digest {
            return Err(LedgerError::refused(
                ErrorCode::DigestMismatch,
                format!(
                    "revision {}'s standings give digest {own}, the export says {}",
                    r.revision, r.digest
                ),
            ));
        }
        let root = Tree::of_standings(&r.standings).root();
        let previous_link = chain.last().map(|c| c.link.clone());
        let link = receipt::link(slug, &key, r.revision, previous_link.as_deref(), &r.digest, &root);
        if r.merkle_root.as_ref().is_some_and(|stated| *stated != root) {
            return Err(broken(format!(
                "revision {}'s standings give receipts root {root}, the export says {:?}",
                r.revision, r.merkle_root
            )));
        }
        if r.link.as_ref().is_some_and(|stated| *stated != link) {
            return Err(broken(format!(
                "revision {}'s chain link is {link}, the export says {:?}",
                r.revision, r.link
            )));
        }
        chain.push(ChainLink { revision: r.revision, previous_link, digest: r.digest.clone(), root, link });
        previous = Some(&r.digest);
    }
    Ok(chain)
}
