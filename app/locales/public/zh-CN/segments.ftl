# 分组（issue 43）：榜单页在全榜排行与各分组排行之间切换，成员页列出成员在各分组中的排名。

segment-switcher = 排行榜
segment-pick = 查看排行：
segment-whole-board = 全榜
segment-option = { $value }（{ $members ->
    *[other] { $shown } 名成员
    }）
segment-more-values = 仅列出 { $dimension } 的前 100 个值
segment-show = 查看
segment-unread = 无法读取分组，请稍后再试。
segment-frozen = 排名已冻结：分组排行在揭晓前隐藏。
segment-back-to-board = 查看全榜
segment-heading-board = 排行：全榜
segment-heading = { $dimension } { $value } 的排行
segment-caption = { $caption } — { $dimension } { $value }
segment-board-only = 图表、奖品、修订和往期属于全榜，而非该分组：
segment-board-only-link = 在全榜查看
segment-choice-line = （{ $member }）— { $points }
segment-nobody-found = { $period } 的 { $dimension } { $value } 中，没有成员的成员 ID 为“{ $asked }”或名字以其开头。
segment-view-unsupported = 固定视图和某一时刻的榜单仅适用于全榜；请不带分组打开。

member-segments-heading = 分组排名
member-segment-rank = 在 { $dimension } { $value } 中排第 { $rank } 名（共 { $members } 名）
member-segment-tied = （并列）
member-segment-points = {" "}· { $points }
member-segments-frozen = 排名已冻结：分组排名在揭晓前隐藏。
