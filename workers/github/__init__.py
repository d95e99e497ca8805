"""Everything the bot does on GitHub: auth, one client per installation, and the effects."""
