"""pygridengine: clients package."""
