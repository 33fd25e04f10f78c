"""The inspector TUI: ``run_tui`` for the CLI, ``make_app`` for tests.

The app itself holds what outlives a connection (the TrafficStore, the config,
themes, key bindings, the recorder) and delegates everything about servers
and views to ``MainScreen``.

Quitting (ctrl+q, or SIGTERM, SIGHUP, SIGINT when run by ``run_tui``: closing the
terminal sends SIGHUP) first shuts the server down in the spec's order with
short waits (``QUIT_CLOSE_GRACE``, ``QUIT_TERM_GRACE``), then exits; a second
signal stops waiting and kills the server's process group at once. Whatever
way the app ends, ``run_tui`` SIGKILLs any server process group still running.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
import termios
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from textual.app import App

from ..core.base.framing import MAX_LINE_BYTES
from ..core.config.servers import ServerSpec, demo_spec
from ..core.traffic.store import TrafficStore
from . import textual_compat
from .commands import InspectorCommands
from .config import TuiConfig, load_config
from .key_reach import reaches
from .keymap import APP_KEYS, KEYS_BY_ID, bindings
from .look.theme_vars import theme_variable_defaults
from .screens.opener import ScreenDialogs
from .terminal_keys import escape_then_digit, read_escape_digit_as_alt
from .text.control_filter import ControlCharacters

if TYPE_CHECKING:
    from ..core.proxy.viewer import LiveFeed

DEFAULT_THEME = "inspector-dark"
QUIT_CLOSE_GRACE = 0.5  # seconds for the server to exit once its stdin is closed
QUIT_TERM_GRACE = 1.0  # seconds for its process group to exit after SIGTERM (then SIGKILL)
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def utc_clock(ts: float) -> str:
    """Timestamps in UTC (snapshot mode: the same output in every time zone)."""
    return time.strftime("%H:%M:%S", time.gmtime(ts)) + f".{int(round(ts * 1000)) % 1000:03d}"


class InspectorApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "mcp-inspector"
    BINDINGS = bindings(APP_KEYS)
    COMMANDS = App.COMMANDS | {InspectorCommands}

    def __init__(
        self,
        spec: ServerSpec | None,
        *,
        open_file: str | None = None,
        record: str | None = None,
        timeout: float = 60.0,
        config: TuiConfig | None = None,
        snapshot_mode: bool = False,
        time_format: Callable[[float], str] | None = None,
        cwd: str | None = None,
        store: TrafficStore | None = None,
        handle_signals: bool = False,
        max_frame_bytes: int = MAX_LINE_BYTES,
        watch: list[str] | None = None,
        rerun: bool = False,
        timeout_given: bool = True,
        live_feed: LiveFeed | None = None,
    ) -> None:
        """``handle_signals``: quit cleanly on SIGTERM, SIGHUP and SIGINT (``run_tui``; tests leave it off).
        ``watch``: the paths whose edits restart ``spec`` ("" infers them); ``rerun``: then call the last
        tool again (screens/main/watch_state.py). ``timeout_given`` False: the config file's
        ``request_timeout``, when it has one, wins over ``timeout``."""
        self.config = config if config is not None else load_config()
        super().__init__()
        read_escape_digit_as_alt()  # ESC digit is alt+digit (terminal_keys.py): when an app is made, not on import
        textual_compat.install()  # highlighted TextArea documents are freed when replaced (textual_compat.py)
        self.spec = spec
        self.open_file = open_file
        self.live_feed = live_feed  # a running proxy's session (mcp-inspector attach)
        self.record = record
        self.timeout = self.config.request_timeout if not timeout_given and self.config.request_timeout_set else timeout
        self.max_frame_bytes = max_frame_bytes
        self.snapshot_mode = snapshot_mode
        self.time_format = time_format or (utc_clock if snapshot_mode else None)
        self.cwd = cwd
        self.store = store if store is not None else TrafficStore()
        self.recorder = None
        self.handle_signals = handle_signals
        self.watch_paths = list(watch or [])  # not "watch": that would hide Textual's App.watch()
        self.rerun = rerun
        self.connection = None  # the main screen's, kept here so it outlives the screen
        self.confirm_destructive = self.config.confirm_destructive  # screens/dialogs/tool_detail.py
        self.dialogs = ScreenDialogs(self)  # the screens widgets open (widgets/dialogs.py)
        from .server.roots import RootsBook

        self.roots = RootsBook()  # each server's roots (--root, the config entry, the Roots editor)
        self.raw_history = None  # the frames sent by hand (screens/traffic/raw_frame.py), read when first needed
        self._quitting = False

    # -- setup -----------------------------------------------------------
    _control_filter = ControlCharacters()

    def get_line_filters(self):
        """Textual's filters, then control characters removed: server text never drives the terminal."""
        return [*super().get_line_filters(), self._control_filter]

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme.dark)  # light defaults for a light theme

    def get_default_screen(self):
        from .screens.main.screen import MainScreen

        screen = MainScreen(
            self.store,
            self.spec,
            open_file=self.open_file,
            timeout=self.timeout,
            snapshot_mode=self.snapshot_mode,
            time_format=self.time_format,
            cwd=self.cwd,
            max_frame_bytes=self.max_frame_bytes,
            watch=self.watch_paths,
            rerun=self.rerun,
            live_feed=self.live_feed,
        )
        self.connection = screen.connection
        from .screens.dialogs.auth_prompt import TuiAuthUi

        screen.connection.auth_ui = TuiAuthUi(self)
        return screen

    async def on_event(self, event) -> None:
        # escape then a digit, typed quickly (or in tmux), arrives as alt+digit (terminal_keys.py)
        keys = escape_then_digit(event) if not getattr(event, "is_forwarded", True) else None
        if keys is not None:
            event.stop()
            self.run_worker(self._replay_keys(keys), group="keys", exit_on_error=False)
            return
        await super().on_event(event)

    async def _replay_keys(self, keys: list) -> None:
        """One key at a time, each handled before the next (as Pilot presses them): the escape
        must have left the composer field before the digit arrives, or the field types it."""
        from .textual_compat import wait_for_idle

        for key in keys:
            self.post_message(key)
            await wait_for_idle(0)

    def on_load(self) -> None:
        from .look.themes import builtin_themes, user_themes

        problems = list(self.config.problems)
        for theme in builtin_themes():
            self.register_theme(theme)
        if not self.snapshot_mode:
            themes, theme_problems = user_themes()
            problems += theme_problems
            for theme in themes:
                self.register_theme(theme)
        wanted = DEFAULT_THEME if self.snapshot_mode else self.config.theme
        if wanted not in self.available_themes:
            problems.append(f"unknown theme {wanted!r}; using {DEFAULT_THEME}")
            wanted = DEFAULT_THEME
        self.theme = wanted
        if self.config.keymap:
            self.set_keymap(self.config.keymap)
        self._startup_problems = problems
        if self.record and self.open_file is None:
            self._start_recording(self.record)
        if self.handle_signals:
            loop = asyncio.get_running_loop()
            for sig in STOP_SIGNALS:
                if sig == signal.SIGHUP:
                    # Not through the loop: once the terminal is gone the loop can be blocked on
                    # a full output queue, where only a plain handler still runs (see _hangup).
                    signal.signal(sig, lambda signum, frame: self._hangup(loop))
                else:
                    loop.add_signal_handler(sig, self._stop_signal, sig)

    def on_mount(self) -> None:
        if not self.snapshot_mode:
            from .look.themes import keep_theme_choice

            keep_theme_choice(self)  # the theme picked in the palette is kept for next time
        if self._startup_problems:
            self.notify(
                "\n".join(self._startup_problems),
                title="Configuration problems",
                severity="warning",
                markup=False,
                timeout=10,
            )

    def on_descendant_focus(self, event) -> None:
        """Snapshot mode: no blinking cursors, so pictures do not depend on timing."""
        if self.snapshot_mode and hasattr(event.widget, "cursor_blink"):
            event.widget.cursor_blink = False

    def _start_recording(self, path: str) -> None:
        from ..core.traffic.recording import SessionWriter

        header: dict[str, Any] = {"recorded_by": "mcp-inspector tui"}
        if self.spec is not None:
            header.update(server=self.spec.describe(), name=self.spec.name)
        try:
            self.recorder = SessionWriter(path, header)
        except OSError as exc:
            self._startup_problems.append(f"cannot record to {path}: {exc.strerror or exc}")
            return
        self.store.attach_recorder(self.recorder)

    def on_unmount(self) -> None:
        # A server not shut down by quit() (an app ended another way: a test's run_test, an
        # exception) is killed here: server-everything (node) does not exit on stdin EOF, and was
        # left running, re-parented to init, after such ends.
        self.kill_servers()
        if self.recorder is not None:
            self.recorder.close()
        self.store.close()

    # -- quitting --------------------------------------------------------
    async def action_quit(self) -> None:
        self.quit()

    def quit(self, return_code: int = 0) -> None:
        """Shut the server down (bounded, a few seconds at most), then exit."""
        if self._quitting:
            return
        self._quitting = True
        with contextlib.suppress(LookupError):
            self.main.file_watch.stop(quiet=True)  # no restart while quitting; the watch thread ends at once
        self.run_worker(self._shutdown_and_exit(return_code), group="quit", exit_on_error=False)

    async def _shutdown_and_exit(self, return_code: int) -> None:
        try:
            if self.connection is not None:
                await self.connection.shutdown(QUIT_CLOSE_GRACE, QUIT_TERM_GRACE)
        finally:
            self.exit(return_code=return_code)

    def _hangup(self, loop: asyncio.AbstractEventLoop) -> None:
        """SIGHUP, in the main thread as soon as it arrives, even inside a blocked write."""
        self._detach_from_dead_terminal()
        loop.call_soon_threadsafe(self._stop_signal, signal.SIGHUP)

    def _stop_signal(self, sig: int) -> None:
        """SIGTERM, SIGHUP, SIGINT: quit as ctrl+q does (exit status 128 + signal); a second one kills at once."""
        if self._quitting:
            self.kill_servers()
            self.exit(return_code=self.return_code or 128 + sig)
            return
        self.quit(128 + sig)

    def _detach_from_dead_terminal(self) -> None:
        """The terminal was closed: send our output to /dev/null so that shutting down cannot hang.

        Textual's output thread dies on the first write that fails, and the app then blocks
        for good once the thread's queue is full. So: fd 0-2 become /dev/null, a fresh output
        thread takes over, and the old queue is emptied, which releases a write blocked on it
        (this runs in a plain signal handler, so it runs even then)."""
        try:
            termios.tcgetattr(0)
            return  # a SIGHUP from kill: the terminal is still there, restore it as usual
        except termios.error as exc:
            if exc.args and exc.args[0] not in (errno.EIO, errno.ENXIO, errno.ENOTTY, errno.EBADF):
                return
        try:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            os.close(devnull)
        except OSError:
            return
        from .textual_compat import WriterThread, driver_writer, set_driver_writer, writer_file, writer_queue

        writer = driver_writer(self._driver)
        if writer is None:
            return
        fresh = WriterThread(writer_file(writer))
        fresh.start()
        set_driver_writer(self._driver, fresh)
        # The old thread is dead already or about to fail: what it holds can reach no screen.
        # Not blocking: the signal may have landed while this thread held the queue's lock.
        queue = writer_queue(writer)
        if queue.mutex.acquire(blocking=False):
            try:
                queue.queue.clear()
                queue.queue.append(None)  # if it is still alive, it stops
                queue.not_empty.notify()
                queue.not_full.notify_all()  # a write blocked on the full queue returns
            finally:
                queue.mutex.release()

    def kill_servers(self) -> None:
        """The last resort: SIGKILL every server process group still running (no waiting)."""
        if self.connection is not None:
            self.connection.kill_now()

    @property
    def keymap(self) -> dict[str, str]:
        """The keymap in force: config.toml's, or what ``set_keymap`` / ``update_keymap`` set since."""
        applied = getattr(self, "_applied_keymap", None)
        return dict(applied if applied is not None else self.config.keymap)

    def set_keymap(self, keymap: Mapping[str, str]) -> None:
        self._applied_keymap = {str(k): str(v) for k, v in dict(keymap).items()}
        super().set_keymap(keymap)

    def update_keymap(self, keymap: Mapping[str, str]) -> None:
        self._applied_keymap = {**self.keymap, **{str(k): str(v) for k, v in dict(keymap).items()}}
        super().update_keymap(keymap)

    @property
    def main(self):
        from .screens.main.screen import MainScreen

        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("the main screen is not running")

    # -- actions (bound in keymap.APP_KEYS) -------------------------------
    async def action_show_view(self, name: str) -> None:
        if self.screen is not self.main:
            return
        await self.main.show_view(name)

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_connect(self) -> None:
        from .screens.dialogs.connect import ConnectScreen

        if isinstance(self.screen, ConnectScreen):
            return

        def chosen(spec: ServerSpec | None) -> None:
            if spec is not None:
                self.main.connect(spec, reason="switch server")

        self.push_screen(ConnectScreen(self.main.spec, mask_paths=self.snapshot_mode), callback=chosen)

    def action_reconnect(self) -> None:
        main = self.main
        if main.spec is None:
            self.action_connect()
            return
        main.connect(main.spec, reason="reconnect")

    def action_restart(self) -> None:
        main = self.main
        if main.spec is None:
            self.action_connect()
            return
        main.connect(main.spec, reason="restart", force=True)

    def action_toggle_watch(self) -> None:
        self.main.file_watch.toggle()

    def action_edit_roots(self) -> None:
        from .screens.dialogs.roots_editor import open_roots_editor

        open_roots_editor(self)

    def action_refresh_tools(self) -> None:
        self.main.refresh_tools()

    def action_show_tool_diff(self) -> None:
        self.main.show_tool_diff()

    def action_dismiss_tool_changes(self) -> None:
        self.main.dismiss_tool_changes()

    async def action_focus_tools(self) -> None:
        if self.screen is self.main:
            await self.main.show_view("main")
            self.main.tool_list.filter_input.focus()
            self.main.tool_list.filter_input.select_all()  # typing starts a new filter (keys only: no clearing by hand)

    def action_tool_detail(self) -> None:
        from .screens.dialogs.tool_detail import ToolDetailScreen

        if self.screen is not self.main:
            return
        tool = self.main.tool_list.highlighted_tool() or self.main.current_tool
        if tool is None:
            self.notify("No tool selected.", severity="warning")
            return
        self.push_screen(ToolDetailScreen(tool))

    def action_result_history(self) -> None:
        from .widgets.result.history import open_history

        open_history(self)

    def action_request_timeout(self) -> None:
        from .screens.dialogs.timeout_setting import open_timeout_setting

        if self.screen is self.main:
            open_timeout_setting(self)

    def action_replay(self) -> None:
        from .screens.traffic.replay_run import open_replay

        open_replay(self)

    def action_compare_snapshot(self) -> None:
        from .screens.dialogs.surface_compare import open_compare

        open_compare(self)

    def action_raw_frame(self) -> None:
        from .screens.traffic.raw_frame import open_raw_frame

        open_raw_frame(self)

    def action_toggle_maximize(self) -> None:
        from .maximize import toggle_maximize

        toggle_maximize(self)

    async def action_reach_key(self, binding_id: str) -> None:
        """A key that goes before a text field's own (keymap ``reach``): its action, as the palette runs it."""
        await self.run_action(KEYS_BY_ID[binding_id].action)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reach_key" and parameters:
            spec = KEYS_BY_ID.get(str(parameters[0]))
            return spec is not None and reaches(self, spec)  # False: the key goes on to the focused widget
        return True

    def toggle_confirm_destructive(self) -> None:
        self.confirm_destructive = not self.confirm_destructive
        state = "on: a tool marked destructive asks before it is called" if self.confirm_destructive else "off"
        self.notify(f"Confirm destructive tools: {state}", title="Settings", markup=False, timeout=4)
        self.keep_setting(
            "confirm_destructive", "true" if self.confirm_destructive else "false", "the destructive-tool confirmation"
        )

    def keep_setting(self, key: str, value: str, what: str) -> None:
        """Save a setting changed in the app for next time, in the config file it was read from
        (an app built on a config of its own, as in tests, or in snapshot mode saves nothing)."""
        from .config import ConfigSaveError, save_setting

        if self.snapshot_mode or self.config.path is None:
            return
        try:
            save_setting(key, value, what, self.config.path)
        except ConfigSaveError as exc:
            self.notify(str(exc), title="Setting not kept", severity="warning", markup=False)

    def open_http_exchange(self, exchange_id: int) -> None:
        """The HTTP view on one exchange, its detail open (the frame detail's "h")."""
        if self.screen is self.main:
            self.run_worker(self.main.show_exchange(exchange_id), exit_on_error=False)

    def action_screenshot(self) -> None:
        path = self.save_screenshot()
        self.notify(path, title="Screenshot saved", markup=False)

    def extra_commands(self) -> list[tuple[str, Callable[[], Any], str]]:
        """Palette commands for actions that live on widgets or have no key of their own (palette_entries.py)."""
        from .palette_entries import extra_commands

        return extra_commands(self)


def make_app(
    spec: ServerSpec | None = None,
    *,
    open_file: str | None = None,
    record: str | None = None,
    timeout: float = 60.0,
    config: TuiConfig | None = None,
    snapshot_mode: bool = False,
    time_format: Callable[[float], str] | None = None,
    cwd: str | None = None,
    use_demo: bool = True,
    max_frame_bytes: int = MAX_LINE_BYTES,
    watch: list[str] | None = None,
    rerun: bool = False,
    timeout_given: bool = True,
    live_feed: LiveFeed | None = None,
) -> InspectorApp:
    """Build the app (tests call this; ``run_tui`` runs it). No spec and no file means the demo server."""
    if spec is None and open_file is None and live_feed is None and use_demo:
        spec = demo_spec()
    return InspectorApp(
        spec,
        open_file=open_file,
        record=record,
        timeout=timeout,
        config=config,
        snapshot_mode=snapshot_mode,
        time_format=time_format,
        cwd=cwd,
        max_frame_bytes=max_frame_bytes,
        watch=watch,
        rerun=rerun,
        timeout_given=timeout_given,
        live_feed=live_feed,
    )


def run_tui(
    spec: ServerSpec | None,
    *,
    open_file: str | None = None,
    record: str | None = None,
    timeout: float = 60.0,
    cwd: str | None = None,
    max_frame_bytes: int = MAX_LINE_BYTES,
    watch: list[str] | None = None,
    rerun: bool = False,
    timeout_given: bool = True,
    live_feed: LiveFeed | None = None,
) -> int:
    """Run the TUI until the user quits; returns the exit code (``timeout_given``: --timeout was on
    the command line, so it wins over the config file's request_timeout)."""
    app = make_app(
        spec,
        open_file=open_file,
        record=record,
        timeout=timeout,
        cwd=cwd,
        max_frame_bytes=max_frame_bytes,
        watch=watch,
        rerun=rerun,
        timeout_given=timeout_given,
        live_feed=live_feed,
    )
    app.handle_signals = True
    from . import images

    images.prepare()  # the terminal's image protocol: it can only be asked before the app starts
    try:
        result = app.run()
    finally:
        app.kill_servers()  # after a clean quit there is nothing left to kill
    return app.return_code if app.return_code is not None else (result or 0)
