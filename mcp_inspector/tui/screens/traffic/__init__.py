"""Screens over the frames: one frame's detail, one HTTP exchange, the raw frame composer and its
pick list, replaying a recording, and two frames side by side."""
