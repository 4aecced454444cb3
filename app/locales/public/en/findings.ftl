## What the receipt checker found (pages/verify.rs): one line per fact, as `laurel verify` says it

finding-leaf-is-members = the leaf is { $member }'s in ranking { $ranking }
finding-included = { $member } has rank { $rank } with { $points } points{ $prize } in { $board } { $period } revision { $revision }: the leaf and its proof lead to root { $root }
finding-included-prize = {" "}and prize "{ $prize }"
finding-absent = { $member } has no standing in ranking { $ranking } of { $board } { $period } revision { $revision } (root { $root })
finding-chain-starts = revision { $revision } of the chain has the receipt's root and digest
finding-chain-holds = the chain of links holds from revision { $from } to revision { $to } (link { $link })
finding-digest-holds = revision { $revision }'s standings give its digest
finding-segments-hold = revision { $revision }'s standings and the export's segment values give its { $rankings } segment rankings
finding-previous-holds = revision { $revision } names the digest before it
finding-root-holds = revision { $revision }'s standings give its root { $root }
finding-link-holds = revision { $revision }'s link holds ({ $link })
finding-unknown-version = not a receipt this version reads (format "{ $format }" version { $version })
finding-leaf-of-another = the leaf is { $leaf_member }'s in ranking { $leaf_ranking }, the receipt is for { $member } in { $ranking }
finding-root-differs = { $side } and its proof lead to root { $root }, the receipt says { $stated }
finding-proof-broken = the proof of { $side } does not hold: { $error }
finding-no-proof = a receipt holds either an inclusion or an absence proof
finding-neighbour-misplaced = { $side } ({ $leaf_ranking }, { $leaf_member }) does not sort { $place ->
    [after] after
   *[before] before
} ({ $ranking }, { $member })
finding-not-adjacent = the neighbours are not next to each other in the tree
finding-no-chain = the receipt has no chain
finding-chain-start-differs = the chain starts at revision { $first_revision } with root { $first_root } and digest { $first_digest }, the receipt is of revision { $revision } with root { $root } and digest { $digest }
finding-link-differs = revision { $revision }'s link is { $own }, { $source } says { $stated }
finding-chain-broken = revision { $next } does not follow revision { $revision } (it names link { $named }, revision { $revision } has { $link })
finding-out-of-place = revision { $revision } is number { $position } in the export
finding-digest-differs = revision { $revision }'s standings give digest { $own }, the export says { $stated }
finding-segment-differs = revision { $revision }'s segment ranking { $segment } gives { $own }, the export says { $stated }
finding-previous-differs = revision { $revision } names { $named } as the digest before it, not { $expected }
finding-standings-root-differs = revision { $revision }'s standings give root { $own }, the export says { $stated }
finding-not-json = not JSON: { $error }
finding-not-receipt = not a receipt: { $error }
finding-not-export = not a period export: { $error }
finding-unknown-format = neither a receipt nor a period export: its format is { $format }
finding-side-leaf = the leaf
finding-side-before = the leaf before
finding-side-after = the leaf after
finding-source-chain = the chain
finding-source-export = the export
finding-none = (none)
finding-proof-index = leaf index { $index } is not below the leaf count { $leaves }
finding-proof-short = the proof is shorter than the tree is high
finding-proof-not-hex = proof step "{ $step }" is not 32 bytes of hex
finding-proof-long = the proof is longer than the tree is high
