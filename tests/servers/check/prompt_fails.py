"""check fixture: a prompt without required arguments that errors when got (draws prompt-get)."""

from base import Server, run


class Fixture(Server):
    def get_prompt(self, name, arguments):
        if name == "greet":
            return None
        return super().get_prompt(name, arguments)


run(Fixture)
