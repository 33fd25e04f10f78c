"""check fixture: a prompt message image without mimeType (draws content)."""

from base import Server, run


class Fixture(Server):
    def get_prompt(self, name, arguments):
        if name == "greet":
            return {"messages": [{"role": "user", "content": {"type": "image", "data": "AAAA"}}]}
        return super().get_prompt(name, arguments)


run(Fixture)
