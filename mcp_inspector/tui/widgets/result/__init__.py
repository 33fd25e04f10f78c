"""The result panel and what it uses: history of results, queries over a result, JSON text, files."""
