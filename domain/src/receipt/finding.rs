//! What a verifier found, one typed fact at a time, so that each reader words it: `laurel verify`
//! prints the English of [`Finding`]'s `Display`, the `/verify` page says it in the reader's
//! language from the catalogue.

use serde::Serialize;
use std::fmt;

/// Which proof a finding is about: the member's own leaf, or a neighbour of an absent member.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Leaf,
    Before,
    After,
}

/// Why a leaf and its proof lead to no root at all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum ProofError {
    IndexOutOfRange { index: u64, leaves: u64 },
    TooShort,
    NotHex { step: String },
    TooLong,
}

impl Side {
    /// Where a neighbour of an absent member sorts: `before` or `after` it.
    pub fn place(self) -> &'static str {
        match self {
            Side::After => "after",
            Side::Leaf | Side::Before => "before",
        }
    }
}

/// Where a value that disagrees was stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Chain,
    Export,
}

/// One fact a verifier checked: the ones a [`super::Report`] lists under `holds` and the ones
/// under `fails`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "fact", rename_all = "snake_case")]
pub enum Finding {
    // What holds.
    LeafIsMembers {
        member: String,
        ranking: String,
    },
    Included {
        member: String,
        rank: u64,
        points: i64,
        prize: Option<String>,
        board: String,
        period: String,
        revision: i64,
        root: String,
    },
    Absent {
        member: String,
        ranking: String,
        board: String,
        period: String,
        revision: i64,
        root: String,
    },
    ChainStartsAtReceipt {
        revision: i64,
    },
    ChainHolds {
        from: i64,
        to: i64,
        link: String,
    },
    DigestHolds {
        revision: i64,
    },
    SegmentsHold {
        revision: i64,
        rankings: usize,
    },
    PreviousHolds {
        revision: i64,
    },
    RootHolds {
        revision: i64,
        root: String,
    },
    LinkHolds {
        revision: i64,
        link: String,
    },
    // What does not.
    UnknownVersion {
        format: String,
        version: u32,
    },
    LeafOfAnother {
        leaf_member: String,
        leaf_ranking: String,
        member: String,
        ranking: String,
    },
    RootDiffers {
        side: Side,
        root: String,
        stated: String,
    },
    ProofBroken {
        side: Side,
        error: ProofError,
    },
    NoProof,
    NeighbourMisplaced {
        side: Side,
        leaf_ranking: String,
        leaf_member: String,
        ranking: String,
        member: String,
    },
    NotAdjacent,
    NoChain,
    ChainStartDiffers {
        first_revision: i64,
        first_root: String,
        first_digest: String,
        revision: i64,
        root: String,
        digest: String,
    },
    LinkDiffers {
        revision: i64,
        own: String,
        stated: String,
        source: Source,
    },
    ChainBroken {
        next: i64,
        revision: i64,
        named: Option<String>,
        link: String,
    },
    RevisionOutOfPlace {
        revision: i64,
        position: usize,
    },
    DigestDiffers {
        revision: i64,
        own: String,
        stated: String,
    },
    SegmentDiffers {
        revision: i64,
        segment: String,
        own: String,
        stated: String,
    },
    PreviousDiffers {
        revision: i64,
        named: Option<String>,
        expected: Option<String>,
    },
    StandingsRootDiffers {
        revision: i64,
        own: String,
        stated: String,
    },
    NotJson {
        error: String,
    },
    NotReceipt {
        error: String,
    },
    NotExport {
        error: String,
    },
    UnknownFormat {
        format: Option<String>,
    },
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Leaf => "the leaf",
            Side::Before => "the leaf before",
            Side::After => "the leaf after",
        })
    }
}

impl fmt::Display for ProofError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProofError::IndexOutOfRange { index, leaves } => {
                write!(f, "leaf index {index} is not below the leaf count {leaves}")
            }
            ProofError::TooShort => f.write_str("the proof is shorter than the tree is high"),
            ProofError::NotHex { step } => write!(f, "proof step \"{step}\" is not 32 bytes of hex"),
            ProofError::TooLong => f.write_str("the proof is longer than the tree is high"),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Chain => "the chain",
            Source::Export => "the export",
        })
    }
}

/// `None` as the text "(none)", for values a file may leave out.
pub fn or_none(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("(none)")
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Finding::*;
        match self {
            LeafIsMembers { member, ranking } => write!(f, "the leaf is {member}'s in ranking {ranking}"),
            Included { member, rank, points, prize, board, period, revision, root } => {
                let prize = prize.as_ref().map(|p| format!(" and prize \"{p}\"")).unwrap_or_default();
                write!(
                    f,
                    "{member} has rank {rank} with {points} points{prize} in {board} {period} revision \
                     {revision}: the leaf and its proof lead to root {root}"
                )
            }
            Absent { member, ranking, board, period, revision, root } => write!(
                f,
                "{member} has no standing in ranking {ranking} of {board} {period} revision {revision} (root {root})"
            ),
            ChainStartsAtReceipt { revision } => {
                write!(f, "revision {revision} of the chain has the receipt's root and digest")
            }
            ChainHolds { from, to, link } => {
                write!(f, "the chain of links holds from revision {from} to revision {to} (link {link})")
            }
            DigestHolds { revision } => write!(f, "revision {revision}'s standings give its digest"),
            SegmentsHold { revision, rankings } => write!(
                f,
                "revision {revision}'s standings and the export's segment values give its {rankings} segment rankings"
            ),
            PreviousHolds { revision } => write!(f, "revision {revision} names the digest before it"),
            RootHolds { revision, root } => write!(f, "revision {revision}'s standings give its root {root}"),
            LinkHolds { revision, link } => write!(f, "revision {revision}'s link holds ({link})"),
            UnknownVersion { format, version } => {
                write!(f, "not a receipt this version reads (format \"{format}\" version {version})")
            }
            LeafOfAnother { leaf_member, leaf_ranking, member, ranking } => write!(
                f,
                "the leaf is {leaf_member}'s in ranking {leaf_ranking}, the receipt is for {member} in {ranking}"
            ),
            RootDiffers { side, root, stated } => {
                write!(f, "{side} and its proof lead to root {root}, the receipt says {stated}")
            }
            ProofBroken { side, error } => write!(f, "the proof of {side} does not hold: {error}"),
            NoProof => f.write_str("a receipt holds either an inclusion or an absence proof"),
            NeighbourMisplaced { side, leaf_ranking, leaf_member, ranking, member } => write!(
                f,
                "{side} ({leaf_ranking}, {leaf_member}) does not sort {} ({ranking}, {member})",
                side.place()
            ),
            NotAdjacent => f.write_str("the neighbours are not next to each other in the tree"),
            NoChain => f.write_str("the receipt has no chain"),
            ChainStartDiffers { first_revision, first_root, first_digest, revision, root, digest } => write!(
                f,
                "the chain starts at revision {first_revision} with root {first_root} and digest {first_digest}, \
                 the receipt is of revision {revision} with root {root} and digest {digest}"
            ),
            LinkDiffers { revision, own, stated, source } => {
                write!(f, "revision {revision}'s link is {own}, {source} says {stated}")
            }
            ChainBroken { next, revision, named, link } => write!(
                f,
                "revision {next} does not follow revision {revision} (it names link {}, revision {revision} \
                 has {link})",
                or_none(named)
            ),
            RevisionOutOfPlace { revision, position } => {
                write!(f, "revision {revision} is number {position} in the export")
            }
            DigestDiffers { revision, own, stated } => {
                write!(f, "revision {revision}'s standings give digest {own}, the export says {stated}")
            }
            SegmentDiffers { revision, segment, own, stated } => write!(
                f,
                "revision {revision}'s segment ranking {segment} gives {own}, the export says {stated}"
            ),
            PreviousDiffers { revision, named, expected } => write!(
                f,
                "revision {revision} names {} as the digest before it, not {}",
                or_none(named),
                or_none(expected)
            ),
            StandingsRootDiffers { revision, own, stated } => {
                write!(f, "revision {revision}'s standings give root {own}, the export says {stated}")
            }
            NotJson { error } => write!(f, "not JSON: {error}"),
            NotReceipt { error } => write!(f, "not a receipt: {error}"),
            NotExport { error } => write!(f, "not a period export: {error}"),
            UnknownFormat { format } => {
                write!(f, "neither a receipt nor a period export: its format is {}", or_none(format))
            }
        }
    }
}
