"""The pure resource model of complex(5): value types, wildcard expressions, complex
definitions and request matching. No I/O, no clock: data in, data out."""
