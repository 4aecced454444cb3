## Segment rankings in the console: rewards name their ranking; previews list each one's prizes

period-col-ranking = Ranking
period-ranking-board = board
correct-segment-prizes = Prizes changing hands in { $ranking }
correct-change-move = Move a member to another segment value
correct-segment = Segment to move to ({ $dimensions }):
correct-segment-invalid = Write the segment as dimension:value, e.g. province:zj.
period-field-segment-prizes = Prizes of each segment ranking, one range per line after its dimension ({ $dimensions }; e.g. province 1-3: Medal):
console-field-segments = Segment dimensions (optional):
console-segments-hint = Each dimension adds one ranking per value beside the board's own, e.g. a province board for each province. Every event then names the member's values (province: zj). Fixed once the board exists.
console-field-segment-prizes = Prizes of each segment ranking, one range per line after its dimension (e.g. province 1-3: Medal):
