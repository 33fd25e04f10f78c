"""The recording proxy: stand between a real host and its server (stdio), record and publish the session."""
