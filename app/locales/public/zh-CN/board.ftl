# 榜单页：一个周期的排名、实时榜、导出、倒计时、时间滑块和封榜提示。

board-loading = 正在加载榜单…
board-from-ledger = 实时排名暂不可用，现显示账本中的总分（名次相同，每隔几秒更新一次）。
board-before-first = { $title } 在其第一个周期 { $first } 之前没有周期：{ $period } 从未有过排名。
board-nobody-found = { $period } 的排名中没有成员 ID 为“{ $asked }”或名字以“{ $asked }”开头的成员。
board-frozen-then = 。此后的得分仍然计入，将在结束时揭晓。
board-frozen-just-now = （刚刚）
board-period-label = {" "}周期 { $period } ·{" "}
board-ends-at = （{ $ends }，{ $zone }）
board-ended-early = { $state ->
    [frozen] 已提前冻结
    [settled] 已提前结算
    [archived] 已提前归档
    *[other] { $word }
    }；本周期于 { $ends }（{ $zone }）结束
board-ended = 已于 { $ends }（{ $zone }）结束
board-periods = 周期
board-period-pick = 周期
board-period-option = { $period }（{ $state }）
board-go = 前往
board-periods-unread = 无法读取周期列表，请稍后再试。
board-current-period = 当前周期
board-you-are = 你是{" "}
board-you-are-end = 。
board-my-page = 我的页面
board-around-me = 我附近的排名
board-my-live = {" "}· 你的实时积分：{ $points }
board-my-live-none = 暂无
board-my-pending = { $count ->
    *[other] （你有 { $shown } 条记录尚未公开）
    }
board-find-me = 查找我
board-find-placeholder = 你的名字或成员 ID
board-find = 查找
board-pin = 固定此视图
board-tie-shared = 积分相同者并列同一名次，以“=”标出；其后的名次相应跳过（1、2、2、4）。
board-tie-first-reached = 积分相同时，先达到该积分者名次更高：不会有两名成员并列。
board-then-notice = 榜单在 { $when }（{ $zone }）时的情况：当时共有 { $total } 名成员上榜。
board-then-frozen = 当时已封榜；封榜之后的内容均不显示。
board-then-back = 返回实时榜单
board-then-caption = { $caption }，{ $when }时
board-then-pages = 当时榜单的分页
board-then-higher = ← 更高名次
board-then-lower = 更低名次 →
board-members = { $count ->
    *[other] { $shown } 名成员
    }
board-hint-open = 实时排名：阅读时各行可能变动。
board-hint-frozen = 已冻结：新的积分不再计入；只有迟到写入被接受时名次才会变化。
board-hint-final = 最终排名。
board-loading-more = 加载中…
board-show-more = 显示更多
board-hint-stable = 稳定分页：无论榜单如何变动，每位成员只出现一次。
board-hint-pinned = 固定视图：名次为固定时的状态（保留 10 分钟）。
board-pinned-pages = 固定视图的分页
board-previous-page = 上一页
board-next-page = 下一页
board-back-to-live = 返回实时榜单
board-back-to-top = 返回榜首
board-no-more = 没有更多记录了。
board-no-points-yet = 本周期还没有积分。
board-order-fastest = 用时最短者优先：时间越少，名次越高。
board-order-fewest = 越低越好：积分最少者名次最高。
board-choice-line = （{ $member }）— 第 { $rank } 名，{ $points }
board-choices = 有多个名字以“{ $asked }”开头，哪一个是你？
board-choices-more = 还有更多名字以此开头：请多输入几个字。
board-unread = 无法读取，请稍后再试。
board-prizes = 奖项
board-shape-heading = 本周期积分分布
board-past-heading = 往期
board-no-prizes = 本榜单未设奖项。
board-nobody = 无人
board-won-rank = （第 { $rank } 名，{ $points }）
board-prizes-caption = 各名次的奖项
board-ranks = 名次
board-prize = 奖项
board-won-by = 获奖者
board-no-points = 无积分
board-leader-points = （{ $points }）
board-winner-is = 获胜者：
board-leading = 领先者：
board-past-caption = 本榜单最近的周期，最新的在前
board-period = 周期
board-state = 状态
board-winner = 获胜者
board-member-count = 成员

ranking-rank = 名次
ranking-member = 成员
ranking-time = 用时
ranking-points = 积分
ranking-since-last-visit = 自你上次访问以来
ranking-moved-up = { $places ->
    *[other] ，自你上次访问以来上升 { $shown } 名
    }
ranking-moved-down = { $places ->
    *[other] ，自你上次访问以来下降 { $shown } 名
    }
ranking-tied = 并列：积分相同，名次相同
ranking-wins = ，获得 { $prize }
ranking-live = 实时：有新积分即更新。周期状态：
ranking-export-csv = 导出 CSV
ranking-export-json = 导出 JSON
ranking-export-hint = {" "}仅含当前显示的行

freeze-standings = 封榜
freeze-at = 于 { $when }（{ $zone }）

countdown-ends-in = { $left }后结束
countdown-ended = 已结束
countdown-minutes = { $minutes } 分
countdown-hours = { $hours } 小时 { $minutes } 分
countdown-days = { $days } 天 { $hours } 小时 { $minutes } 分

then-label = 榜单时刻
then-now = 现在
then-submit = 查看当时的榜单
