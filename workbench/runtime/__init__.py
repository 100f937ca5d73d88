"""The runtime layer: argv or MCP arguments -> parsed request -> handler -> envelope."""
