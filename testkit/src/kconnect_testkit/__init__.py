"""kconnect conformance testkit."""
