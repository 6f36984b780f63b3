"""`vision.live`: counting a live picture (a webcam, a stream, a clip) with steady counts.

Each frame is counted by `vision.count.Counter` (its live settings), the cards are followed
from frame to frame by ultralytics' ByteTrack (`tracking`), and the table's count changes
only when a card appears and stays or is taken away (`steady`). `sources` opens cameras,
files, folders of frames and streams; `watch` runs the loop.
"""
