"""kconnect runtime."""
