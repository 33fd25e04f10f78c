"""A server's surface (tools, resources, templates, prompts, capabilities) as a canonical
snapshot, and a classified diff between two of them (breaking / unknown / compatible / cosmetic)."""
