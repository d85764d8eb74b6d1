"""The model gateway: a local HTTP server every agent talks to instead of the provider."""
