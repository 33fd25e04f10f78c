"""The timeline: the traffic store, session files (recording, reading back) and export."""
