# The contestants' pages: home, hot board, member, "me" link, receipt check, page not found.

## Home (pages/home.rs)

home-title = Boards
home-loading = Loading boards…
home-empty = No boards yet.
home-weekly = weekly
home-daily = daily
home-monthly = monthly
home-season = season
home-trending = Trending

## Hot board (pages/hot.rs)

hot-loading = Loading…
hot-same = no change
hot-up = up { $places }
hot-down = down { $places }
hot-updated = Updated { $time } UTC; a new list every { $seconds } s.
hot-no-list = No list yet: the first one is computed within { $seconds } s.
hot-refresh = Refresh
hot-pause = Pause updates
hot-resume = Resume updates
hot-empty = Nothing in the window yet.
hot-caption = Top { $count } — { $window }
hot-rank = Rank
hot-change = Change
hot-term = Term
hot-score = Score
hot-new = new

## Member (pages/member.rs)

member-loading = Loading…
member-history-unread = The history could not be read; try again in a moment.
member-receipt-download = Download my receipt
member-receipt-proof = {" "}(JSON): proof of this standing in revision { $revision }, which you can{" "}
member-receipt-verify = verify
member-receipt-after = {" "}without us.
member-id = member { $member }
member-frozen = : this is the standing and the entries of that moment. Points scored since then are revealed at the end.
member-from-ledger = Live ranking unavailable; the rank is from the ledger's totals.
member-standing-points = Rank { $rank }{ $tied } with { $points } points in { $period }
member-standing-time = Rank { $rank }{ $tied } with a time of { $points } in { $period }
member-standing-tied = {" "}(tied)
member-no-points = No points in { $period }.
member-chart-heading = Points through the period
season-rule-sum = sum
season-rule-best = best periods
season-rule-weighted = weighted
season-rule-placement = placement points
member-season-why = Why this season total
member-season-caption = What each period gave under the { $rule } rule: { $points } in all
member-season-period = Period
member-season-there = There
member-season-gave = Gave
member-season-rank = #{ $rank } with { $points }
member-season-absent = no points
member-season-dropped = dropped
member-season-carried = Carried over from the last season
member-why = Why this score
member-no-entries = No entries.
member-entries-caption = Ledger entries, newest first
member-when = When ({ $zone })
member-change = Change
member-entry-id = Id
member-older = Older entries
member-last-periods = Last periods
member-change-total = total set to { $value } (version { $version })
member-change-submitted = submitted { $value }
member-change-correction = { $delta } correction{ $because }
member-change-revokes = revokes { $what }{ $by }{ $because }
member-change-an-entry = an entry
member-change-by = {" "}({ $delta })
member-change-because = : { $reason }
member-change-revoked = { $change } — revoked
member-target-points = { $points } points to rank { $rank }{ $prize }
member-target-time = { $points } more to reach rank { $rank }{ $prize }
member-target-fewer = { $points } points fewer for rank { $rank }{ $prize }
member-target-faster = { $points } faster for rank { $rank }{ $prize }
member-target-prize-points = { $points } points to a prize: rank { $rank }{ $prize }
member-target-prize-time = { $points } more to reach a prize: rank { $rank }{ $prize }
member-target-prize-fewer = { $points } points fewer for a prize: rank { $rank }{ $prize }
member-target-prize-faster = { $points } faster for a prize: rank { $rank }{ $prize }
member-target-prize-name = {" "}({ $prize })
member-hint-shared = Counting from the public ranking; equal points share a rank.
member-hint-first-reached = Counting from the public ranking; on equal points, who reached them first ranks higher.

## "Me": a contestant's signed link (pages/me.rs)

me-title = Your link
me-checking = Checking your link…
me-welcome = Welcome, { $member }
me-highlight = Boards now highlight
me-highlight-after = and offer your page. Nothing else changes: rankings stay public.
me-boards = See the boards

## Verify a receipt (pages/verify.rs)

verify-title = Verify a receipt
verify-intro = Paste, drop or choose a receipt (the file “Download my receipt” gives on a member's page) or a period export. It is checked here, in your browser — nothing is sent to the server: the member's leaf against the revision's root, and the chain of links from that revision to the latest one.
verify-noscript = Checking needs JavaScript; without it, use
verify-noscript-after = or docs/verify_receipt.py.
verify-label = Receipt (JSON): paste it, drop the file here, or choose it
verify-file = Receipt file
verify-unreadable = { $file } could not be read as text.
verify-ok = { $kind ->
    [receipt] The receipt verifies
    [export] The export verifies
   *[other] The { $kind } verifies
}
verify-failed = { $kind ->
    [receipt] The receipt does not verify
    [export] The export does not verify
   *[other] The { $kind } does not verify
}
verify-standing = { $member }: rank { $rank } with { $points } points{ $prize } in { $board } { $period }, revision { $revision }.
verify-prize = , prize { $prize }
verify-no-standing = { $member }: no standing in { $board } { $period }, revision { $revision }.
verify-link = Revision { $revision }: link
verify-holds = What holds

## Page not found (pages/not_found.rs)

notfound-title = Not found
notfound-heading = Page not found
notfound-back = See all boards
season-rows-heading = Period by period
season-rows-caption = What each period gave the first { $count } members above; struck through: dropped by the season's rule.
season-rows-member = Member
season-rows-carried = Carried over
season-rows-total = Season
season-rows-unread = The season's periods could not be read just now.
