"""pytest plugin of kconnect-testkit (inert until a test class subclasses a suite)."""
