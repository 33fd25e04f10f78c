"""A tool name of 68 characters: valid for the spec (1-128), refused by Claude, OpenAI and Gemini
(64) and filtered by Cursor (60 with the server's name) (draws client-compat)."""

from base import Server, run


class LongName(Server):
    def tools(self):
        tools = super().tools()
        tools[0] = {**tools[0], "name": "add_two_numbers_together_and_return_their_sum_as_a_structured_result"}
        return tools

    def call(self, name, arguments):
        return super().call("add" if name == self.tools()[0]["name"] else name, arguments)


if __name__ == "__main__":
    run(LongName)
