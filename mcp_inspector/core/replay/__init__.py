"""Sessions as regression checks: re-run a recording's client requests and compare the answers.

``plan`` reads a session file or a hand-written JSONL file, ``run`` sends its steps
through a connected session, ``compare`` says what differs, ``update`` rewrites the
expectations in place.
"""
