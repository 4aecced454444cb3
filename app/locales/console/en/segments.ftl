## Segment rankings in the console: rewards name their ranking; previews list each one's prizes

period-col-ranking = Ranking
period-ranking-board = board
correct-segment-prizes = Prizes changing hands in { $ranking }
