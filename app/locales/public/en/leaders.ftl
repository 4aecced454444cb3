# The leaders' race on the board page (components/charts/leaders.rs): the top five's points
# through the period, one line each.

chart-leaders-heading = The leaders through the period
chart-leaders-empty = Nobody has points in { $period } yet.
chart-leaders-label = { $count ->
    [one] Points of the leader of { $period } through the period: { $leaders }.
   *[other] Points of the top { $count } of { $period } through the period: { $leaders }.
}{ $truncated }
chart-leaders-item = { $name } ({ $points })
chart-leaders-separator = {", "}
chart-leaders-truncated = {" "}Some lines show the first entries only.
chart-leaders-tip = { $rank }. { $name }: { $points }
chart-leaders-caption = The leaders of { $period } and where their lines end
chart-leaders-changes = Changes
chart-leaders-last-change = Last change ({ $zone })
