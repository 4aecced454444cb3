# Parts shared by pages: the error view and the errors the app words itself, revision notes, charts.

## The error view (components/error_view.rs) and the app's own error messages (error.rs, api/)

error-heading-not-found = Not found
error-heading-invalid = Not a valid request
error-heading-denied = Not allowed
error-heading-unavailable = Temporarily unavailable
error-heading-unreachable = The server could not be reached
error-back-console = Back to the console
error-back-boards = See all boards
error-sign-in = Sign in to the console
error-sentence = { $text }.
error-unavailable = the leaderboard is temporarily unavailable; please try again shortly
error-transport = request failed: { $detail }
error-no-such = there is no { $what }
error-no-such-board = there is no board { $board }
error-no-such-period = there is no period { $period }
error-no-such-member = there is no member { $member }
error-no-board = this board does not exist
error-not-an-id = { $value } is not a { $kind }: it { $problem }
error-id-empty = must not be empty
error-id-too-long = must be at most { $max } bytes, got { $got }
error-id-forbidden = may only contain { $allowed }, found { $found }
error-link-not-configured = contestant links are not set up on this server
error-link-expired = this link has expired; ask for a new one
error-link-forged = this link is not valid

## Revision notes (components/revisions.rs)

revision-heading = Corrections after settlement
revision-line = Revision { $revision } ({ $day }): { $what }{ $why }.
revision-recomputed = recomputed
revision-line-why = {" "}— { $reason }
revision-digest = Digest
revision-first-digest = The first settlement's digest was
revision-first-digest-after = . Every revision stays readable, and each names the digest of the one before.
revision-rank-moved = rank changed from { $from } to { $to }
revision-rank = { $rank }
revision-unranked = unranked
revision-prize-changed = prize changed from { $was } to { $now }
revision-prize-taken = prize { $was } taken back
revision-prize-awarded = prize { $now } awarded
revision-rank-and-prize = { $rank } and { $prize }
revision-moved = { $what } in revision { $revision } ({ $day }){ $why }.
revision-moved-why = : { $reason }

## Charts (components/charts/)

chart-numbers = The chart's numbers
chart-you-are-here = you are here
chart-history-standing = rank { $rank } of { $members }, { $points }
chart-history-no-points = no points
chart-history-tip = { $period } ({ $state }): { $standing }
chart-history-item = { $period } { $standing }
chart-history-separator = ;{" "}
chart-history-label = Rank of { $member } in the last { $count } periods, oldest first: { $periods }.
chart-history-caption = Rank by period (1 at the top); – no points. The list says the same.
chart-history-list = Rank by period, newest first
chart-histogram-empty = Nobody had points in { $period } when this page was loaded; reload to chart the points since.
chart-histogram-you = {" "}You ({ $points }, rank { $rank }) are in the range { $range }.
chart-histogram-label = Distribution of points in { $period }: { $members } members in { $ranges } ranges of points from { $from } to { $to }.{ $you }
chart-histogram-tip-points = { $range } points: { $members } members
chart-histogram-tip-time = { $range }: { $members } members
chart-histogram-caption = Members by range of points
chart-histogram-points = Points
chart-histogram-members = Members
chart-histogram-note = Note
chart-points-no-change = no change
chart-points-kind-point = points
chart-points-kind-total = total set
chart-points-kind-submission = submission
chart-points-kind-correction = correction
chart-points-kind-revocation = revocation
chart-points-step = { $kind } ({ $moved })
chart-points-step-revoked = { $kind } ({ $moved }), revoked later
chart-points-empty = No entries in { $period } yet.
chart-points-truncated = {" "}(the first ones only)
chart-points-label = Points of { $who } through { $period }: { $last } after { $entries } entries{ $truncated }; { $corrections } corrections, { $revocations } revocations, { $revoked } revoked entries.
chart-points-tip = { $time }: { $step }, { $points }
chart-points-legend-correction = ◆ correction
chart-points-legend-revocation = ✕ revocation
chart-points-legend-revoked = ○ revoked entry
chart-points-numbers = The chart's numbers ({ $listed } newest of { $steps } steps)
chart-points-caption = Points after each entry, newest first ({ $zone })
chart-points-when = When ({ $zone })
chart-points-entry = Entry
chart-points-after = Points after
chart-sparkline-hour = Hour
chart-sparkline-count = Count
change-revoke = { $count ->
    [one] 1 entry revoked
   *[other] { $count } entries revoked
}
change-revoke-member = { $count ->
    [one] 1 member's entries revoked
   *[other] { $count } members' entries revoked
}
change-correct = { $count ->
    [one] 1 correction
   *[other] { $count } corrections
}
change-accept-late = { $count ->
    [one] 1 late write accepted
   *[other] { $count } late writes accepted
}
change-reject-late = { $count ->
    [one] 1 late write rejected
   *[other] { $count } late writes rejected
}
change-hide = { $count ->
    [one] 1 member hidden
   *[other] { $count } members hidden
}
change-unhide = { $count ->
    [one] 1 member shown again
   *[other] { $count } members shown again
}
change-move = { $count ->
    [one] 1 member moved to another segment
   *[other] { $count } members moved to another segment
}
change-separator = {", "}
# The engine's refusals: English readers get its detail as the API says it.
error-refused = { $code ->
   *[other] { $detail }
}
