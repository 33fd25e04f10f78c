"""check fixture: keeps running after stdin closes (until a signal) (draws exit-on-eof)."""

from base import Server, run, sleep


class Fixture(Server):
    def on_eof(self):
        sleep(60)


run(Fixture)
