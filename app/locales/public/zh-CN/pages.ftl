# 参赛者页面：首页、热榜、成员页、“我的”链接、凭证验证、页面不存在。

## 首页（pages/home.rs）

home-title = 榜单
home-loading = 正在加载榜单…
home-empty = 暂无榜单。
home-weekly = 每周
home-daily = 每日
home-monthly = 每月
home-season = 赛季
home-trending = 热榜

## 热榜（pages/hot.rs）

hot-loading = 加载中…
hot-same = 无变化
hot-up = 上升 { $places } 位
hot-down = 下降 { $places } 位
hot-updated = 更新于 { $time } UTC；每 { $seconds } 秒生成一次新榜单。
hot-no-list = 尚无榜单：首份榜单将在 { $seconds } 秒内生成。
hot-refresh = 刷新
hot-pause = 暂停更新
hot-resume = 继续更新
hot-empty = 时间窗口内暂无内容。
hot-caption = 前 { $count } 名 — { $window }
hot-rank = 名次
hot-change = 变化
hot-term = 词条
hot-score = 热度
hot-new = 新

## 成员页（pages/member.rs）

member-loading = 加载中…
member-history-unread = 无法读取历史记录，请稍后再试。
member-receipt-download = 下载我的凭证
member-receipt-proof = （JSON）：证明你在第 { $revision } 次修订中的这一名次，你可以不经我们自行
member-receipt-verify = 验证
member-receipt-after = 。
member-id = 成员 { $member }
member-frozen = ：此处为该时刻的名次与记录。此后获得的积分将在最后揭晓。
member-from-ledger = 实时排名暂不可用；名次依据账本中的总分。
member-standing-points = { $period } 第 { $rank } 名{ $tied }，积分 { $points }
member-standing-time = { $period } 第 { $rank } 名{ $tied }，用时 { $points }
member-standing-tied = （并列）
member-no-points = { $period } 暂无积分。
member-chart-heading = 本周期积分变化
season-rule-sum = 累加
season-rule-best = 最佳若干期
season-rule-weighted = 加权
season-rule-placement = 名次积分
member-season-why = 赛季总分从何而来
member-season-caption = 按 { $rule } 规则各期的贡献：共 { $points }
member-season-period = 期
member-season-there = 当期
member-season-gave = 计入
member-season-rank = 第 { $rank } 名，{ $points }
member-season-absent = 无分
member-season-dropped = 未计入
member-season-carried = 从上一赛季继承
member-why = 积分从何而来
member-no-entries = 暂无记录。
member-entries-caption = 账本记录，从新到旧
member-when = 时间（{ $zone }）
member-change = 变化
member-entry-id = ID
member-older = 更早的记录
member-last-periods = 往期
member-change-total = 总分设为 { $value }（版本 { $version }）
member-change-submitted = 提交 { $value }
member-change-correction = 更正 { $delta }{ $because }
member-change-revokes = 撤销 { $what }{ $by }{ $because }
member-change-an-entry = 一条记录
member-change-by = （{ $delta }）
member-change-because = ：{ $reason }
member-change-revoked = { $change }（已撤销）
member-target-points = 还差 { $points } 分升至第 { $rank } 名{ $prize }
member-target-time = 还差 { $points } 可达第 { $rank } 名{ $prize }
member-target-fewer = 再少 { $points } 分可达第 { $rank } 名{ $prize }
member-target-faster = 再快 { $points } 可达第 { $rank } 名{ $prize }
member-target-prize-points = 还差 { $points } 分可获奖项：第 { $rank } 名{ $prize }
member-target-prize-time = 还差 { $points } 可获奖项：第 { $rank } 名{ $prize }
member-target-prize-fewer = 再少 { $points } 分可获奖项：第 { $rank } 名{ $prize }
member-target-prize-faster = 再快 { $points } 可获奖项：第 { $rank } 名{ $prize }
member-target-prize-name = （{ $prize }）
member-hint-shared = 按公开排名计算；积分相同者名次并列。
member-hint-first-reached = 按公开排名计算；积分相同时，先达到者名次靠前。

## “我的”：参赛者的签名链接（pages/me.rs）

me-title = 你的链接
me-checking = 正在检查你的链接…
me-welcome = 欢迎，{ $member }
me-highlight = 现在榜单会高亮显示
me-highlight-after = 并提供你的个人页面。其他一切不变：排名依然公开。
me-boards = 查看榜单

## 验证凭证（pages/verify.rs）

verify-title = 验证凭证
verify-intro = 粘贴、拖入或选择一份凭证（即成员页面上“下载我的凭证”得到的文件）或一份周期导出文件。校验就在你的浏览器中进行——不会向服务器发送任何内容：核对成员的叶节点与该修订的根，以及从该修订到最新修订的链接链。
verify-noscript = 校验需要 JavaScript；如未启用，请使用
verify-noscript-after = 或 docs/verify_receipt.py。
verify-label = 凭证（JSON）：粘贴内容、将文件拖到此处，或选择文件
verify-file = 凭证文件
verify-unreadable = 无法以文本形式读取 { $file }。
verify-ok = { $kind ->
    [receipt] 凭证校验通过
    [export] 导出文件校验通过
   *[other] { $kind } 校验通过
}
verify-failed = { $kind ->
    [receipt] 凭证校验未通过
    [export] 导出文件校验未通过
   *[other] { $kind } 校验未通过
}
verify-standing = { $member }：{ $board } { $period } 第 { $rank } 名，{ $points } 分{ $prize }，第 { $revision } 次修订。
verify-prize = ，奖项 { $prize }
verify-no-standing = { $member }：在 { $board } { $period } 第 { $revision } 次修订中没有名次。
verify-link = 第 { $revision } 次修订：链接
verify-holds = 成立的检查项

## 页面不存在（pages/not_found.rs）

notfound-title = 未找到
notfound-heading = 页面不存在
notfound-back = 查看所有榜单
season-rows-heading = 逐期明细
season-rows-caption = 各期为上方前 { $count } 名成员贡献的积分；划线：按赛季规则未计入。
season-rows-member = 成员
season-rows-carried = 继承
season-rows-total = 赛季
season-rows-unread = 暂时无法读取赛季的各期。
