"""pygridengine: scheduler package."""
