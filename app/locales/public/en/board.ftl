# The board page: a period's ranking, its live table, export, countdown, time slider and freeze banner.

board-loading = Loading the board…
board-from-ledger = Live ranking unavailable; showing the ledger's totals (the same ranks, updated every few seconds).
board-before-first = { $title } has no period before { $first }, its first: nothing was ever ranked in { $period }.
board-nobody-found = Nobody ranked in { $period } has the member id or a name starting with “{ $asked }”.
board-frozen-then = . Points scored since then still count; they are revealed at the end.
board-frozen-just-now = {" "}just now
board-period-label = {" "}Period { $period } ·{" "}
board-ends-at = {" "}({ $ends }, { $zone })
board-ended-early = { $state ->
    *[other] { $word }
    } early; the period ends { $ends } ({ $zone })
board-ended = ended { $ends } ({ $zone })
board-periods = Periods
board-period-pick = Period
board-period-option = { $period } ({ $state })
board-go = Go
board-periods-unread = The list of periods could not be read; try again in a moment.
board-current-period = Current period
board-you-are = You are{" "}
board-you-are-end = .{" "}
board-my-page = My page
board-around-me = Around me
board-my-live = {" "}· Your live points: { $points }
board-my-live-none = none yet
board-my-pending = { $count ->
    [one] {" "}({ $shown } of your entries is not public yet)
    *[other] {" "}({ $shown } of your entries are not public yet)
    }
board-find-me = Find me
board-find-placeholder = your name or member id
board-find = Find
board-pin = Pin this view
board-tie-shared = Equal points share a rank, marked “=”; the next rank skips as many (1, 2, 2, 4).
board-tie-first-reached = On equal points, who reached them first ranks higher: no two members share a rank.
board-then-notice = The board as it stood at { $when } ({ $zone }): { $total } member(s) ranked then.{" "}
board-then-frozen = The standings were frozen then; nothing after the freeze is shown.{" "}
board-then-back = Back to the live board
board-then-caption = { $caption }, at { $when }
board-then-pages = Pages of the board then
board-then-higher = ← Higher ranks
board-then-lower = Lower ranks →
board-members = { $count ->
    [one] { $shown } member
    *[other] { $shown } members
    }
board-hint-open = Live ranking: rows may shift while you read.
board-hint-frozen = Frozen: new points no longer count; a rank changes only if a late write is accepted.
board-hint-final = Final standings.
board-loading-more = Loading…
board-show-more = Show more
board-hint-stable = Stable paging: each member appears once, however the board moves.
board-hint-pinned = Pinned view: ranks as they were when pinned (kept for 10 minutes).
board-pinned-pages = Pinned pages
board-previous-page = Previous page
board-next-page = Next page
board-back-to-live = Back to live
board-back-to-top = Back to the top
board-no-more = No more entries.
board-no-points-yet = No points in this period yet.
board-order-fastest = Fastest first: the lowest time ranks highest.
board-order-fewest = Lower is better: the fewest points rank highest.
board-choice-line = {" "}({ $member }) — rank { $rank }, { $points }
board-choices = Several names start with “{ $asked }”; which one is you?
board-choices-more = More names start with it: type more of yours.
board-unread = This could not be read; try again in a moment.
board-prizes = Prizes
board-shape-heading = Points in this period
board-past-heading = Past periods
board-no-prizes = This board has no prizes.
board-nobody = nobody
board-won-rank = {" "}(rank { $rank }, { $points }){" "}
board-prizes-caption = Prizes by rank
board-ranks = Ranks
board-prize = Prize
board-won-by = Won by
board-no-points = no points
board-leader-points = {" "}({ $points }){" "}
board-winner-is = Winner:{" "}
board-leading = Leading:{" "}
board-past-caption = The board's last periods, newest first
board-period = Period
board-state = State
board-winner = Winner
board-member-count = Members

ranking-rank = Rank
ranking-member = Member
ranking-time = Time
ranking-points = Points
ranking-since-last-visit = Since your last visit
ranking-moved-up = , up { $places ->
    [one] { $shown } place
    *[other] { $shown } places
    } since your last visit
ranking-moved-down = , down { $places ->
    [one] { $shown } place
    *[other] { $shown } places
    } since your last visit
ranking-tied = Tied: same points, same rank
ranking-wins = , wins { $prize }
ranking-live = Live: updates as scores come in. Period{" "}
ranking-export-csv = Export CSV
ranking-export-json = Export JSON
ranking-export-hint = {" "}the rows shown

freeze-standings = Standings frozen
freeze-at = {" "}at { $when } ({ $zone })

countdown-ends-in = ends in { $left }
countdown-ended = ended
countdown-minutes = { $minutes }m
countdown-hours = { $hours }h { $minutes }m
countdown-days = { $days }d { $hours }h { $minutes }m

then-label = The board at
then-now = now
then-submit = Show the board then
