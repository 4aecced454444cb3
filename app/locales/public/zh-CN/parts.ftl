# 各页面共用的部件：错误页与应用自己给出的错误信息、修订说明、图表。

## 错误页（components/error_view.rs）与应用自己的错误信息（error.rs、api/）

error-heading-not-found = 未找到
error-heading-invalid = 请求无效
error-heading-denied = 无权访问
error-heading-unavailable = 暂时无法使用
error-heading-unreachable = 无法连接服务器
error-back-console = 返回控制台
error-back-boards = 查看所有榜单
error-sign-in = 登录控制台
error-sentence = { $text }。
error-unavailable = 榜单暂时无法使用，请稍后再试
error-transport = 请求失败：{ $detail }
error-no-such = 找不到 { $what }
error-no-such-board = 找不到榜单 { $board }
error-no-such-period = 找不到周期 { $period }
error-no-such-member = 找不到成员 { $member }
error-no-board = 该榜单不存在
error-not-an-id = { $kind ->
   *[other] { $value } 不是有效的成员 ID（{ $problem }）
}
error-id-empty = 不能为空
error-id-too-long = 最多 { $max } 字节，实际为 { $got } 字节
error-id-forbidden = 只能包含 { $allowed }，却有 { $found }
error-link-not-configured = 本服务器未启用参赛者链接
error-link-expired = 该链接已过期，请索取新链接
error-link-forged = 该链接无效

## 修订说明（components/revisions.rs）

revision-heading = 结算后的更正
revision-line = 第 { $revision } 次修订（{ $day }）：{ $what }{ $why }。
revision-recomputed = 重新计算
revision-line-why = ，原因：{ $reason }
revision-digest = 摘要
revision-first-digest = 首次结算的摘要为
revision-first-digest-after = 。每次修订都可随时查看，且各自注明前一次修订的摘要。
revision-rank-moved = 名次从{ $from }变为{ $to }
revision-rank = 第 { $rank } 名
revision-unranked = 未上榜
revision-prize-changed = 奖项从 { $was } 变为 { $now }
revision-prize-taken = 奖项 { $was } 被收回
revision-prize-awarded = 获得奖项 { $now }
revision-rank-and-prize = { $rank }，{ $prize }
revision-moved = 第 { $revision } 次修订（{ $day }）：{ $what }{ $why }。
revision-moved-why = ，原因：{ $reason }

## 图表（components/charts/）

chart-numbers = 图表数据
chart-you-are-here = 你在这里
chart-history-standing = 第 { $rank } 名（共 { $members } 人），{ $points }
chart-history-no-points = 无积分
chart-history-tip = { $period }（{ $state }）：{ $standing }
chart-history-item = { $period } { $standing }
chart-history-separator = ；
chart-history-label = { $member } 最近 { $count } 个周期的排名（从早到晚）：{ $periods }。
chart-history-caption = 各周期排名（第 1 名在最上方）；– 表示无积分。下方列表内容相同。
chart-history-list = 各周期排名，从新到旧
chart-histogram-empty = 载入本页时，{ $period } 还没有人获得积分；刷新页面即可查看此后的积分分布。
chart-histogram-you = 你（{ $points }，第 { $rank } 名）位于 { $range } 区间。
chart-histogram-label = { $period } 的积分分布：{ $members } 名成员，分布在 { $ranges } 个积分区间，从 { $from } 到 { $to }。{ $you }
chart-histogram-tip-points = { $range } 分：{ $members } 名成员
chart-histogram-tip-time = { $range }：{ $members } 名成员
chart-histogram-caption = 各积分区间的成员数
chart-histogram-points = 积分
chart-histogram-members = 成员数
chart-histogram-note = 备注
chart-points-no-change = 无变化
chart-points-kind-point = 积分
chart-points-kind-total = 设定总分
chart-points-kind-submission = 提交
chart-points-kind-correction = 更正
chart-points-kind-revocation = 撤销
chart-points-step = { $kind }（{ $moved }）
chart-points-step-revoked = { $kind }（{ $moved }），后被撤销
chart-points-empty = { $period } 还没有记录。
chart-points-truncated = （仅含最早的部分）
chart-points-label = { $who } 在 { $period } 的积分：{ $entries } 条记录后为 { $last }{ $truncated }；更正 { $corrections } 次，撤销 { $revocations } 次，被撤销的记录 { $revoked } 条。
chart-points-tip = { $time }：{ $step }，{ $points }
chart-points-legend-correction = ◆ 更正
chart-points-legend-revocation = ✕ 撤销
chart-points-legend-revoked = ○ 被撤销的记录
chart-points-numbers = 图表数据（共 { $steps } 步，列出最新的 { $listed } 步）
chart-points-caption = 每条记录后的积分，从新到旧（{ $zone }）
chart-points-when = 时间（{ $zone }）
chart-points-entry = 记录
chart-points-after = 之后的积分
chart-sparkline-hour = 小时
chart-sparkline-count = 次数
change-revoke = 撤销 { $count } 条记录
change-revoke-member = 撤销 { $count } 名成员的全部记录
change-correct = 更正 { $count } 处
change-accept-late = 接受 { $count } 条迟到写入
change-reject-late = 拒绝 { $count } 条迟到写入
change-hide = 隐藏 { $count } 名成员
change-unhide = 恢复显示 { $count } 名成员
change-move = { $count } 名成员改换分榜
change-separator = 、
# 引擎的拒绝理由：按错误代码说明，并附上英文原文。
error-refused = { $code ->
    [invalid] 输入的值不符合规则
    [wrong_operator] 该接口不适用于此榜单的计分方式
    [batch_too_large] 一批写入的数量超过上限
    [board_exists] 已有榜单使用这个标识
    [invalid_transition] 当前状态下不能执行这一步
    [late_pending] 还有迟到写入等待处理，处理完才能结算
    [period_settled] 该周期已结算，名次已确定；请通过预览修改
    [already_decided] 这条迟到写入已经按另一种方式处理过
    [id_taken] 该更正 ID 已被本榜单的另一条记录使用
    [correction_rejected] 这项更正会超出榜单的分数范围
    [preview_stale] 预览之后该周期已有变化，请重新预览
    [preview_cancelled] 该预览已取消
    [preview_expired] 该预览已超过 15 分钟，已失效
    [preview_applied] 该预览已应用，不能再取消
    [invalid_change] 预览中的某项修改已无法按预览执行
    [segment_frozen] 公开封榜期间，分组排名暂不公开，揭晓后再开放
    [snapshot_expired] 固定的视图已过期
    [period_not_open] 只能向进行中的周期导入总分
    [admin_exists] 已有控制台账户使用这个用户名
    [rate_limited] 请求过于频繁，请稍后再试
   *[other] 请求被拒绝
}（{ $detail }）
