#!/usr/bin/env sh
# Run every benchmark once, in order (not part of the test suite; takes a few minutes).
#   bench/run_all.sh            # uses $PYTHON, else /work/venv/bin/python, else python3
#   QUICK=1 bench/run_all.sh    # fewer rounds, for a smoke run
set -eu
cd "$(dirname "$0")/.."
if [ -z "${PYTHON:-}" ]; then
    if [ -x /work/venv/bin/python ]; then PYTHON=/work/venv/bin/python; else PYTHON=python3; fi
fi
if [ -n "${QUICK:-}" ]; then
    CORE="--rounds 3 --calls 500"; CLI="--runs 3"; INGEST="--rounds 2"; PIPE="--quick"; HTTP="--quick"; QUERY="--quick"
    WATCH="--rounds 3"; TOOLS="--rounds 2"; CHECK="--runs 2"
else
    CORE="--rounds 7 --calls 2000"; CLI="--runs 10"; INGEST="--rounds 5"; PIPE="--rounds 3"; HTTP=""; QUERY=""
    WATCH="--rounds 7"; TOOLS=""; CHECK="--runs 5"
fi

echo "### bench_core_calls (not pinned)"
"$PYTHON" bench/bench_core_calls.py $CORE
echo
if [ "$(nproc 2>/dev/null || echo 1)" -gt 1 ]; then
    echo "### bench_core_calls (client and server pinned to cpu 1: tracks CPU cost)"
    "$PYTHON" bench/bench_core_calls.py $CORE --pin 1
    echo
fi
echo "### bench_cli_tools"
"$PYTHON" bench/bench_cli_tools.py $CLI --why || echo "(bench_cli_tools skipped or failed: see above)"
echo
echo "### bench_pipe"
"$PYTHON" bench/bench_pipe.py $PIPE
echo
echo "### bench_http"
"$PYTHON" bench/bench_http.py $HTTP || echo "(bench_http failed: see above)"
echo
echo "### bench_ingest"
"$PYTHON" bench/bench_ingest.py $INGEST
echo
echo "### bench_query"
"$PYTHON" bench/bench_query.py $QUERY
echo
echo "### bench_tui_flood"
"$PYTHON" bench/bench_tui_flood.py
echo
echo "### bench_tui_startup"
"$PYTHON" bench/bench_tui_startup.py || echo "(bench_tui_startup skipped or failed: see above)"
echo
echo "### bench_watch"
"$PYTHON" bench/bench_watch.py $WATCH || echo "(bench_watch failed: see above)"
echo
echo "### bench_result_view"
"$PYTHON" bench/bench_result_view.py

echo
echo "### bench_check"
"$PYTHON" bench/bench_check.py $CHECK || echo "(bench_check skipped or failed: see above)"

echo
echo "### bench_tool_list"
"$PYTHON" bench/bench_tool_list.py $TOOLS

echo
echo "### bench_schema_check"
"$PYTHON" bench/bench_schema_check.py $([ -n "${QUICK:-}" ] && echo "--rounds 2")

echo "### bench_proxy (the recording proxy: round trips vs direct, a flood with viewers)"
"$PYTHON" bench/bench_proxy.py

echo "### bench_telemetry (tracing off vs on, per call over a loopback transport)"
"$PYTHON" bench/bench_telemetry.py $([ -n "${QUICK:-}" ] && echo "--calls 1000 --rounds 2")
