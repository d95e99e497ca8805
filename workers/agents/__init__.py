"""The agents: the LLM seam, its Anthropic adapter, the tool loop, prompts, tools, sandbox."""
