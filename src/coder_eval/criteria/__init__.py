"""Success criteria: one module per type, registered by decorator, found by package scan."""
