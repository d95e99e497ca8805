"""Tasks: one per issue, stored in Redis as versioned JSON, worked on under a lease."""
