"""pygridengine: execd package."""
