"""The vocabulary: scenario keys and sections, hardware profiles, workload cost profiles and
the typed-key machinery (schema.py) they are checked with. Depends on nothing but errors and
the rules library's binding (rxbisect/_native.py)."""
