## 凭证校验的发现（pages/verify.rs）：每项一行，与 `laurel verify` 所说一致

finding-leaf-is-members = 该叶节点属于 { $member }，排名 { $ranking }
finding-included = { $member } 在 { $board } { $period } 第 { $revision } 次修订中排第 { $rank } 名，{ $points } 分{ $prize }：叶节点及其证明得出根 { $root }
finding-included-prize = ，奖项 { $prize }
finding-absent = { $member } 在 { $board } { $period } 第 { $revision } 次修订的排名 { $ranking } 中没有名次（根 { $root }）
finding-chain-starts = 链中第 { $revision } 次修订的根和摘要与凭证一致
finding-chain-holds = 从第 { $from } 次修订到第 { $to } 次修订的链接链成立（链接 { $link }）
finding-digest-holds = 第 { $revision } 次修订的名次得出其摘要
finding-segments-hold = 第 { $revision } 次修订的名次与导出文件中的分榜取值得出其 { $rankings } 个分榜
finding-previous-holds = 第 { $revision } 次修订写明了前一次的摘要
finding-root-holds = 第 { $revision } 次修订的名次得出其根 { $root }
finding-link-holds = 第 { $revision } 次修订的链接成立（{ $link }）
finding-unknown-version = 不是本版本能读取的凭证（格式“{ $format }”，版本 { $version }）
finding-leaf-of-another = 该叶节点属于排名 { $leaf_ranking } 中的 { $leaf_member }，而凭证是 { $ranking } 中 { $member } 的
finding-root-differs = { $side }及其证明得出根 { $root }，凭证写的是 { $stated }
finding-proof-broken = { $side }的证明不成立：{ $error }
finding-no-proof = 凭证应包含一个收录证明或一个缺席证明
finding-neighbour-misplaced = { $side }（{ $leaf_ranking }，{ $leaf_member }）没有排在（{ $ranking }，{ $member }）{ $place ->
    [after] 之后
   *[before] 之前
}
finding-not-adjacent = 两个相邻叶节点在树中并不相邻
finding-no-chain = 凭证没有链接链
finding-chain-start-differs = 链从第 { $first_revision } 次修订开始，根 { $first_root }，摘要 { $first_digest }；凭证却是第 { $revision } 次修订，根 { $root }，摘要 { $digest }
finding-link-differs = 第 { $revision } 次修订的链接是 { $own }，{ $source }写的是 { $stated }
finding-chain-broken = 第 { $next } 次修订没有接在第 { $revision } 次修订之后（它写的链接是 { $named }，第 { $revision } 次修订的是 { $link }）
finding-out-of-place = 第 { $revision } 次修订在导出文件中排第 { $position } 个
finding-digest-differs = 第 { $revision } 次修订的名次得出摘要 { $own }，导出文件写的是 { $stated }
finding-segment-differs = 第 { $revision } 次修订的分榜 { $segment } 得出 { $own }，导出文件写的是 { $stated }
finding-previous-differs = 第 { $revision } 次修订写明的前一次摘要是 { $named }，而不是 { $expected }
finding-standings-root-differs = 第 { $revision } 次修订的名次得出根 { $own }，导出文件写的是 { $stated }
finding-not-json = 不是 JSON：{ $error }
finding-not-receipt = 不是凭证：{ $error }
finding-not-export = 不是周期导出文件：{ $error }
finding-unknown-format = 既不是凭证也不是周期导出文件：其格式为 { $format }
finding-side-leaf = 叶节点
finding-side-before = 前一个叶节点
finding-side-after = 后一个叶节点
finding-source-chain = 链
finding-source-export = 导出文件
finding-none = （无）
finding-proof-index = 叶节点序号 { $index } 不小于叶节点数 { $leaves }
finding-proof-short = 证明比树的高度短
finding-proof-not-hex = 证明步骤“{ $step }”不是 32 字节的十六进制
finding-proof-long = 证明比树的高度长
